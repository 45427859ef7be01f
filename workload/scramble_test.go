package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestScramblerRoundTrip(t *testing.T) {
	edges := []uint64{0, 1, 2, 1000, 1 << 32, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for _, seed := range []uint64{0, 1, 42, math.MaxUint64} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := NewScrambler(seed)
			r := rand.New(rand.NewPCG(seed, 7))
			xs := append([]uint64(nil), edges...)
			for range 10_000 {
				xs = append(xs, r.Uint64())
			}
			for _, x := range xs {
				if got := s.Rank(s.Key(x)); got != x {
					t.Fatalf("Rank(Key(%d)): got %d, want %d", x, got, x)
				}
				if got := s.Key(s.Rank(x)); got != x {
					t.Fatalf("Key(Rank(%d)): got %d, want %d", x, got, x)
				}
			}
		})
	}
}

// TestScramblerSpreads checks that the hot ranks 1..1000 get distinct keys
// that are not small ids: each is above 2^40 (a uniform key falls below with
// probability 2^−24, so about 6·10^−5 for all 1000 at once), and their top
// bits cover the key space.
func TestScramblerSpreads(t *testing.T) {
	for _, seed := range []uint64{0, 1, 2024} {
		s := NewScrambler(seed)
		seen := make(map[uint64]uint64, 1000)
		var top [16]int // keys by their top 4 bits
		for rank := uint64(1); rank <= 1000; rank++ {
			k := s.Key(rank)
			if prev, ok := seen[k]; ok {
				t.Fatalf("seed %d: got Key(%d) = Key(%d) = %#x, want distinct keys", seed, rank, prev, k)
			}
			seen[k] = rank
			if k < 1<<40 {
				t.Errorf("seed %d: got Key(%d) = %#x, want >= 2^40", seed, rank, k)
			}
			top[k>>60]++
		}
		// 1000 keys over 16 buckets: 62.5 each, sd 7.7; 20 is 5.5 sd low.
		for b, c := range top {
			if c < 20 {
				t.Errorf("seed %d: got %d of 1000 keys with top nibble %#x, want >= 20", seed, c, b)
			}
		}
	}
}

func TestScramblerSeeds(t *testing.T) {
	a, b := NewScrambler(1), NewScrambler(2)
	same := 0
	for rank := uint64(1); rank <= 1000; rank++ {
		if a.Key(rank) == b.Key(rank) {
			same++
		}
	}
	if same != 0 {
		t.Errorf("seeds 1 and 2: got %d of 1000 ranks with the same key, want 0", same)
	}
	if a, b := NewScrambler(7), NewScrambler(7); a != b {
		t.Errorf("NewScrambler(7) twice: got different scramblers, want equal")
	}
}
