package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Buckets are in order, hold their values, and are at most 1/32 wide.
func TestHistBuckets(t *testing.T) {
	prev := -1
	for _, v := range []int64{0, 1, 63, 64, 65, 127, 128, 1000, 1 << 40, math.MaxInt64} {
		b := histBucket(v)
		top := histBucketTop(b)
		if b < prev || (b == prev && v < 64) || top < v || (v >= 64 && float64(top-v) > float64(v)/32) {
			t.Errorf("value %d: bucket %d (after %d), top %d", v, b, prev, top)
		}
		if b > 0 && histBucketTop(b-1) >= v {
			t.Errorf("value %d: bucket %d, but the previous bucket reaches %d", v, b, histBucketTop(b-1))
		}
		prev = b
	}
	if got := histBucket(math.MaxInt64); got >= histBuckets {
		t.Fatalf("bucket of MaxInt64 = %d, past the table of %d", got, histBuckets)
	}
}

// Nearest rank: the ⌈q·n⌉-th smallest; below 64 every value is exact,
// above it is the top of its bucket (98 and 99 share one).
func TestHistQuantileSmall(t *testing.T) {
	var h Hist
	if h.Quantile(0.5) != 0 || h.Max() != 0 || h.Mean() != 0 || h.Count() != 0 {
		t.Errorf("empty: p50 %d, max %d, mean %v, count %d; want 0", h.Quantile(0.5), h.Max(), h.Mean(), h.Count())
	}
	for v := range int64(100) {
		h.Add(v)
		if v == 49 && (h.Quantile(0.5) != 24 || h.Quantile(0.98) != 48 || h.Quantile(1) != 49) {
			t.Errorf("quantiles of 0..49: p50 %d p98 %d p100 %d, want 24, 48, 49", h.Quantile(0.5), h.Quantile(0.98), h.Quantile(1))
		}
	}
	if h.Quantile(0.5) != 49 || h.Quantile(0.99) != 99 || h.Quantile(1) != 99 || h.Max() != 99 {
		t.Errorf("quantiles of 0..99: p50 %d p99 %d p100 %d max %d, want 49, 99, 99, 99",
			h.Quantile(0.5), h.Quantile(0.99), h.Quantile(1), h.Max())
	}
	if h.Count() != 100 || h.Sum() != 4950 || h.Mean() != 49.5 {
		t.Errorf("count %d, sum %v, mean %v; want 100, 4950, 49.5", h.Count(), h.Sum(), h.Mean())
	}
	if err := h.check(); err != nil {
		t.Fatal(err)
	}
}

// The rank is ⌈q·n⌉ of the exact product: 0.07·100 is 7.000000000000001 in
// float64 (so are 0.14, 0.28, 0.55 and 0.56 times 100), and a plain ⌈⌉
// would take the 8th value where the 7th is meant. 0.99·100 is 99 exactly:
// the p99 of 100 values is the 99th.
func TestHistQuantileRounding(t *testing.T) {
	var h Hist
	for v := range int64(100) {
		h.Add(v) // the k-th smallest is k−1, exact below 64
	}
	for _, k := range []int64{7, 14, 28, 55, 56} {
		if got := h.Quantile(float64(k) / 100); got != k-1 {
			t.Errorf("0..99, q %d/100: got %d, want %d (rank %d)", k, got, k-1, k)
		}
	}
	h = Hist{}
	for range 99 {
		h.Add(1)
	}
	h.Add(1000)
	if got := h.Quantile(0.99); got != 1 {
		t.Errorf("p99 of 99 ones and 1000: got %d, want 1 (the 99th value)", got)
	}
	if got := h.Quantile(1); got != 1000 {
		t.Errorf("p100: got %d, want 1000", got)
	}
	h.Add(-5) // recorded as 0
	if got := h.Quantile(0); got != 0 || h.Count() != 101 {
		t.Errorf("after Add(-5): p0 %d, count %d; want 0, 101", got, h.Count())
	}
}

// On random data every quantile is the exact nearest-rank one, or at most
// 1/32 above it, and never above the max.
func TestHistQuantileBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	gens := map[string]func() int64{
		"small":       func() int64 { return rng.Int64N(100) },
		"log-uniform": func() int64 { return int64(math.Exp2(rng.Float64() * 62)) },
		"heavy-tail":  func() int64 { return int64(1e3 / (rng.Float64() + 1e-9)) },
	}
	for name, gen := range gens {
		t.Run(name, func(t *testing.T) {
			for trial := range 20 {
				var h Hist
				n := 1 + rng.IntN(5000)
				if trial == 0 {
					n = 100
				}
				vals := make([]int64, n)
				var sum float64
				for i := range vals {
					vals[i] = gen()
					h.Add(vals[i])
					sum += float64(vals[i])
				}
				if err := h.check(); err != nil {
					t.Fatal(err)
				}
				slices.Sort(vals)
				if h.Count() != int64(n) || h.Max() != vals[n-1] || h.Sum() != sum {
					t.Fatalf("count %d max %d sum %v; want %d, %d, %v", h.Count(), h.Max(), h.Sum(), n, vals[n-1], sum)
				}
				for _, k := range []int{0, 1, 250, 500, 900, 990, 999, 1000, rng.IntN(1001)} {
					rank := max((k*n+999)/1000, 1) // ⌈k·n/1000⌉, exactly
					x := vals[rank-1]
					got := h.Quantile(float64(k) / 1000)
					if got < x || got > vals[n-1] || (x < 64 && got != x) || 32*(got-x) > x {
						t.Fatalf("n %d, q %d/1000: got %d, exact %d, max %d: outside [x, min(x+x/32, max)]",
							n, k, got, x, vals[n-1])
					}
				}
			}
		})
	}
}

func TestHistAllocs(t *testing.T) {
	var h Hist
	if a := testing.AllocsPerRun(100, func() { h.Add(12345); _ = h.Quantile(0.99) }); a != 0 {
		t.Errorf("Add and Quantile allocate %v times", a)
	}
}

// AddN(v, n) leaves the histogram as n calls of Add(v) do, for values
// zero, negative (recorded as 0) and positive, n = 0 included.
func TestHistAddN(t *testing.T) {
	var a, b Hist
	for i, c := range []struct{ v, n int64 }{{0, 5}, {7, 3}, {-2, 4}, {1 << 40, 6}, {0, 0}, {3, 0}, {0, 1}} {
		a.AddN(c.v, c.n)
		for range c.n {
			b.Add(c.v)
		}
		if a != b {
			t.Fatalf("step %d, AddN(%d, %d): %d values, sum %v, max %d; Add one at a time: %d, %v, %d",
				i, c.v, c.n, a.Count(), a.Sum(), a.Max(), b.Count(), b.Sum(), b.Max())
		}
	}
	if err := a.check(); err != nil {
		t.Fatal(err)
	}
}
