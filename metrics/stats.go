package metrics

import (
	"math"
	"slices"
)

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of xs as [QuantileSorted]
// does. xs is sorted in place. It returns NaN for an empty slice.
func Quantile(xs []float64, q float64) float64 {
	slices.Sort(xs)
	return QuantileSorted(xs, 0, q)
}

// QuantileSorted returns the q-quantile of the n = zeros + len(sorted)
// values x₀ ≤ … ≤ xₙ₋₁ made of zeros zeros followed by sorted, by linear
// interpolation between order statistics (type 7, the default of R and
// NumPy): with h = q·(n−1), it is x⌊h⌋ + (h−⌊h⌋)·(x⌊h⌋₊₁ − x⌊h⌋).
//
// zeros must be ≥ 0; sorted must be in increasing order, and ≥ 0 when
// zeros > 0 (the zeros stand for the cells of a sparse table that are not
// stored). q is clamped to [0, 1]; a NaN q or no value at all gives NaN. It
// costs O(1) and allocates nothing.
func QuantileSorted(sorted []float64, zeros int, q float64) float64 {
	n := zeros + len(sorted)
	if n == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	at := func(i int) float64 {
		if i < zeros {
			return 0
		}
		return sorted[i-zeros]
	}
	q = min(max(q, 0), 1)
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo+1 >= n {
		return at(n - 1)
	}
	return at(lo) + (h-float64(lo))*(at(lo+1)-at(lo))
}

// QuantileWeighted returns the q-quantile of a sample given as a
// histogram: values, increasing, where values[i] occurs weights[i] times
// (whole numbers ≥ 0; nil weights mean once each). It is the type 7
// quantile of [QuantileSorted] over the sample written out, without
// writing it out: the same number for the same sample. It returns NaN
// for an empty sample or a NaN q, and allocates nothing.
func QuantileWeighted(values, weights []float64, q float64) float64 {
	if weights == nil {
		return QuantileSorted(values, 0, q)
	}
	var n float64
	for _, w := range weights {
		n += w
	}
	if n == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	// at(i) is the i-th of the written-out sample, from 0.
	at := func(i float64) float64 {
		for j, w := range weights {
			if i < w {
				return values[j]
			}
			i -= w
		}
		return values[len(values)-1]
	}
	q = min(max(q, 0), 1)
	h := q * (n - 1)
	lo := math.Floor(h)
	if lo+1 >= n {
		return at(n - 1)
	}
	return at(lo) + (h-lo)*(at(lo+1)-at(lo))
}

// Recall is the share of the true set that the answer holds: |got ∩ want| / |want|.
// An empty want gives 1.
func Recall(got, want []uint64) float64 {
	if len(want) == 0 {
		return 1
	}
	return float64(overlap(got, want)) / float64(len(want))
}

// Precision is the share of the answer that is in the true set: |got ∩ want| / |got|.
// An empty answer gives 1.
func Precision(got, want []uint64) float64 {
	if len(got) == 0 {
		return 1
	}
	return float64(overlap(got, want)) / float64(len(got))
}

func overlap(a, b []uint64) int {
	in := make(map[uint64]bool, len(b))
	for _, k := range b {
		in[k] = true
	}
	n := 0
	for _, k := range a {
		if in[k] {
			n++
			in[k] = false // count a repeated key once
		}
	}
	return n
}

// Select returns the results of one strategy and metric at one scale, in
// their order.
func Select(rs []Result, strategy string, metric Metric, scale Scale) []Result {
	var out []Result
	for _, r := range rs {
		if r.Strategy == strategy && r.Metric == metric && r.Scale == scale {
			out = append(out, r)
		}
	}
	return out
}

// Untimed returns the results not read off the wall clock: the ones the
// same seed reproduces exactly.
func Untimed(rs []Result) []Result {
	var out []Result
	for _, r := range rs {
		if !r.Timing {
			out = append(out, r)
		}
	}
	return out
}
