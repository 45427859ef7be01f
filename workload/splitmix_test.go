package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// *SplitMix is a math/rand/v2 Source.
var _ rand.Source = (*SplitMix)(nil)

// splitMixCheck are the first outputs of SplitMix64 from state 1234567
// (Rosetta Code's check values for Vigna's splitmix64.c).
var splitMixCheck = []uint64{6457827717110365317, 3203168211198807973, 9817491932198370423, 4593380528125082431, 16408922859458223821}

func TestSplitMix64(t *testing.T) {
	// SplitMix64(x) is the output for state x + γ: the k-th output is
	// SplitMix64 of the state after k − 1 steps.
	state := uint64(1234567)
	for i, w := range splitMixCheck {
		if got := SplitMix64(state); got != w {
			t.Errorf("SplitMix64, output %d: got %d, want %d", i, got, w)
		}
		state += golden
	}
	s := SplitMix(1234567)
	for i, w := range splitMixCheck {
		if got := s.Uint64(); got != w {
			t.Errorf("SplitMix.Uint64, output %d: got %d, want %d", i, got, w)
		}
	}
	if want := SplitMix(state); s != want { // state is 1234567 + 5γ
		t.Errorf("state after 5 outputs: got %#x, want %#x", uint64(s), uint64(want))
	}
	for _, m := range []uint64{mixMul1, mixMul2, 3, math.MaxUint64} {
		if got := m * inverseOdd(m); got != 1 {
			t.Errorf("%#x · inverseOdd: got %d, want 1", m, got)
		}
	}
	if mixMul1Inv != inverseOdd(mixMul1) || mixMul2Inv != inverseOdd(mixMul2) {
		t.Errorf("the written-out inverses %#x, %#x differ from inverseOdd's", uint64(mixMul1Inv), uint64(mixMul2Inv))
	}
	// The written-out xor-shift inverses undo what unshift undoes.
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		x := r.Uint64()
		if got, want := unmix64(x), unshift(unshift(unshift(x, 31)*mixMul2Inv, 27)*mixMul1Inv, 30); got != want {
			t.Fatalf("unmix64(%#x) = %#x, want %#x", x, got, want)
		}
	}
}

// TestSplitMixSource checks that rand.New over a SplitMix reads it and
// nothing else, and that a copy forks the sequence.
func TestSplitMixSource(t *testing.T) {
	for _, seed := range []uint64{0, 1, 1234567, math.MaxUint64} {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := SplitMix(seed)
			r := rand.New(&s)
			for i := range 100 {
				fork := s
				if got, want := r.Uint64(), fork.Uint64(); got != want {
					t.Fatalf("output %d: got %#x from rand.New, want %#x from a copy", i, got, want)
				}
				if s != fork {
					t.Fatalf("output %d: got state %#x, want the copy's %#x", i, uint64(s), uint64(fork))
				}
			}
		})
	}
}

// TestMix64Inverse checks that unmix64 inverts Mix64 on both sides.
func TestMix64Inverse(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	xs := []uint64{0, 1, 2, golden, 1<<63 - 1, 1 << 63, math.MaxUint64}
	for range 10_000 {
		xs = append(xs, r.Uint64())
	}
	for _, x := range xs {
		if got := unmix64(Mix64(x)); got != x {
			t.Fatalf("unmix64(Mix64(%#x)): got %#x, want %#x", x, got, x)
		}
		if got := Mix64(unmix64(x)); got != x {
			t.Fatalf("Mix64(unmix64(%#x)): got %#x, want %#x", x, got, x)
		}
	}
}

// TestMixAvalanche checks the mixing of the finaliser: flipping one input
// bit flips each output bit with probability close to 1/2.
func TestMixAvalanche(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	const trials = 2000
	var flips [64][64]int
	for range trials {
		x := r.Uint64()
		y := Mix64(x)
		for i := range 64 {
			d := y ^ Mix64(x^1<<i)
			for j := range 64 {
				flips[i][j] += int(d >> j & 1)
			}
		}
	}
	// Each cell is Binomial(2000, 1/2): sd 22.4. Over 4096 cells a 6.5 sd
	// limit (±146) fails a good mixer with probability about 3·10^−7, while
	// a weak mixer (one multiply round fewer, say) is off by hundreds.
	for i := range 64 {
		for j := range 64 {
			if d := flips[i][j] - trials/2; d > 146 || d < -146 {
				t.Fatalf("input bit %d flips output bit %d: got %d of %d, want %d ± 146", i, j, flips[i][j], trials, trials/2)
			}
		}
	}
}
