package frequency

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/cespare/xxhash/v2"
	"gonum.org/v1/gonum/stat/distuv"

	"countsim/strategies/internal/ds"
)

// The seeded hash of HLL and of the hot counters' stripes is XXH64 of
// rowSeed‖key, computed in pieces; it must equal the reference
// implementation bit for bit.
func TestRowHashIsXXH64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		seed, key := r.Uint64(), r.Uint64()
		if r.IntN(10) == 0 {
			key = uint64(r.IntN(100)) // small keys too
		}
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], seed)
		binary.LittleEndian.PutUint64(b[8:], key)
		if got, want := ds.RowHash(ds.RowState(seed), ds.KeyLane(key)), xxhash.Sum64(b[:]); got != want {
			t.Fatalf("rowHash(%#x, %#x): got %#x, want xxhash.Sum64 %#x", seed, key, got, want)
		}
	}
}

// rowIndex is one row's bucket of a key: how a sketch (or a deliberately
// broken variant of it) spreads keys over a row of w counters.
type rowIndex func(row int, key uint64) uint64

// sketchIndex is the count-min sketch's own: reduce(h1 + i·h2 + C(i,2)·h3,
// w) in row i, which CountMin computes by forward differences
// (TestCountMinColumns checks that every path agrees).
func sketchIndex(s *CountMin) rowIndex {
	return func(row int, key uint64) uint64 {
		h1, h2, h3 := s.rows.Hashes(key)
		i := uint64(row)
		return ds.Reduce(h1+i*h2+i*(i-1)/2*h3, uint64(s.rows.Width))
	}
}

// keySets are the key sets every row hash must spread evenly: sequential
// ids (unscrambled ranks), ids with only high bits set, and random keys.
func keySets(n int) map[string][]uint64 {
	seq, high, rnd := make([]uint64, n), make([]uint64, n), make([]uint64, n)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		seq[i] = uint64(i)
		high[i] = uint64(i) << 40
		rnd[i] = r.Uint64()
	}
	return map[string][]uint64{"sequential": seq, "high-bits": high, "random": rnd}
}

// rowUniformityP returns, over the rows, the smallest two-sided p-value of
// Pearson's chi-square test that the keys fall uniformly in the w buckets of
// the row (w−1 degrees of freedom). Too even is as suspicious as too
// uneven: sequential keys modulo w would be perfectly even.
func rowUniformityP(idx rowIndex, depth, w int, keys []uint64) float64 {
	worst := 1.0
	counts := make([]float64, w)
	want := float64(len(keys)) / float64(w)
	chi := distuv.ChiSquared{K: float64(w - 1)}
	for row := range depth {
		clear(counts)
		for _, k := range keys {
			counts[idx(row, k)]++
		}
		var x2 float64
		for _, c := range counts {
			x2 += (c - want) * (c - want) / want
		}
		p := 2 * math.Min(chi.Survival(x2), chi.CDF(x2))
		worst = math.Min(worst, p)
	}
	return worst
}

// rowPairZ returns, over the pairs of rows (i, j), the largest |z| of the
// number of key pairs that share a bucket in both rows. With pairwise
// independent uniform rows a pair collides in both with probability p =
// 1/w², the pair indicators are pairwise independent, so the count has mean
// P·p and variance P·p·(1−p) for P key pairs; with one hash reused the count
// is about P/w, w times more. Count-min's rows are 3-wise independent, and
// no more (see CountMin); TestCountMinRowCollisions counts three rows and
// all of them.
func rowPairZ(idx rowIndex, depth, w int, keys []uint64) float64 {
	pairs := float64(len(keys)) * float64(len(keys)-1) / 2
	p := 1 / float64(w*w)
	mean, sd := pairs*p, math.Sqrt(pairs*p*(1-p))
	cells := make([]uint32, w*w)
	worst := 0.0
	for i := range depth {
		for j := i + 1; j < depth; j++ {
			clear(cells)
			for _, k := range keys {
				cells[idx(i, k)*uint64(w)+idx(j, k)]++
			}
			var both float64
			for _, c := range cells {
				both += float64(c) * float64(c-1) / 2
			}
			worst = math.Max(worst, math.Abs(both-mean)/sd)
		}
	}
	return worst
}

// Thresholds of the row-hash tests. About 3 key sets × 3 widths × (5 rows +
// 10 row pairs) statistics are taken; at p < 1e-9 each (|z| > 6.1 is p ≈ 1e-9
// two-sided) a correct hash fails a run less than once in five million.
const (
	uniformityMinP = 1e-9
	pairMaxZ       = 6.1
)

func TestRowHashQuality(t *testing.T) {
	// A prime; 1,000 = 2^3·5^3, a width ⌈e/ε⌉ gives; and 2,718 = 2·3^2·151,
	// composite as the search scenario's 27,183 = 3·13·17·41 is, at a tenth
	// of it: the largest the pair test's w² cells afford.
	for _, w := range []int{61, 1000, 2718} {
		s, err := NewCountMin(CountMinParams{Width: w, Depth: 5}, 42)
		if err != nil {
			t.Fatal(err)
		}
		// About 60 keys a bucket in the uniformity test; 64·w keys in the
		// pair test, for about 2,048 pairs expected in both rows, enough for
		// the normal approximation of the count far into its tails.
		uniKeys := keySets(60 * w)
		pairKeys := keySets(64 * w)
		for name := range uniKeys {
			t.Run(fmt.Sprintf("w=%d/%s", w, name), func(t *testing.T) {
				if p := rowUniformityP(sketchIndex(s), 5, w, uniKeys[name]); p < uniformityMinP {
					t.Errorf("row uniformity: got p = %.3g, want ≥ %g", p, uniformityMinP)
				}
				if z := rowPairZ(sketchIndex(s), 5, w, pairKeys[name]); z > pairMaxZ {
					t.Errorf("row independence: got |z| = %.2f for pairs colliding in two rows, want ≤ %g", z, pairMaxZ)
				}
			})
		}
	}
}

// The same statistics reject the realistic ways of getting row hashes
// wrong, so their passing above means something.
func TestRowHashQualityCatchesBrokenHashes(t *testing.T) {
	const depth = 5
	type brokenCase struct {
		w   int
		idx func(s *CountMin) rowIndex
	}
	broken := map[string]brokenCase{
		// h2 = 0: every row takes row 0's column
		"h2=0": {61, func(s *CountMin) rowIndex {
			return func(_ int, key uint64) uint64 { h1, _, _ := s.rows.Hashes(key); return ds.Reduce(h1, 61) }
		}},
		// h2 = h1, one seed for both hashes: row i is (i+1)·h1, and keys close
		// in row 0 stay close in every row
		"h2=h1": {61, func(s *CountMin) rowIndex {
			s.rows.S2 = s.rows.S1
			return sketchIndex(s)
		}},
		// a row shifted from another: row i = (row 0 + i) mod w
		"shifted": {61, func(s *CountMin) rowIndex {
			return func(row int, key uint64) uint64 { return (sketchIndex(s)(0, key) + uint64(row)) % 61 }
		}},
		// the key reduced without mixing: keys differing in low bits collide
		"unmixed": {61, func(*CountMin) rowIndex {
			return func(row int, key uint64) uint64 { return ds.Reduce(key^uint64(row)<<60, 61) }
		}},
		// the key modulo w: sequential ids spread perfectly evenly, too evenly
		"modulo": {61, func(*CountMin) rowIndex {
			return func(row int, key uint64) uint64 { return (key + uint64(row)) % 61 }
		}},
		// Kirsch–Mitzenmacher's double hashing modulo w, as BoomFilters does
		// it (32-bit halves of one hash, (h1 + i·h2) mod w), at a composite
		// width: rows i and j with gcd(j−i, w) = g > 1 collide g times too
		// often (rows 0 and 4 at w = 1000: 4 times).
		"mod-w-double-hashing": {1000, func(s *CountMin) rowIndex {
			return func(row int, key uint64) uint64 {
				h, _, _ := s.rows.Hashes(key)
				return (h&0xffffffff + uint64(row)*(h>>32)) % 1000
			}
		}},
	}
	for name, bc := range broken {
		t.Run(name, func(t *testing.T) {
			s, err := NewCountMin(CountMinParams{Width: bc.w, Depth: depth}, 42)
			if err != nil {
				t.Fatal(err)
			}
			idx := bc.idx(s)
			p := rowUniformityP(idx, depth, bc.w, keySets(60 * bc.w)["sequential"])
			z := rowPairZ(idx, depth, bc.w, keySets(64 * bc.w)["random"])
			t.Logf("uniformity p = %.3g, pair |z| = %.2f", p, z)
			if p >= uniformityMinP && z <= pairMaxZ {
				t.Errorf("a %s row hash passed: uniformity p = %.3g, pair |z| = %.2f", name, p, z)
			}
		})
	}
}
