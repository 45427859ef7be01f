package metrics

import (
	"math"
	"slices"
)

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of xs by linear interpolation
// between order statistics (type 7, as R and NumPy default). xs is sorted in
// place. It returns NaN for an empty slice.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 || math.IsNaN(q) {
		return math.NaN()
	}
	slices.Sort(xs)
	q = min(max(q, 0), 1)
	h := q * float64(len(xs)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[lo] + (h-float64(lo))*(xs[lo+1]-xs[lo])
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
func Select(rs []Result, strategy, metric string, scale Scale) []Result {
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
