package metrics

import (
	"fmt"
	"math/bits"
)

// Hist is a log-bucketed histogram of non-negative int64 values, after
// HdrHistogram (Gil Tene): each value below 64 has a bucket of its own;
// above, every power of two [2^k, 2^(k+1)) is split into 32 buckets of equal
// width, so a bucket is at most 1/32 of its values wide.
//
// [Hist.Quantile] answers from the buckets: it is at least the exact
// (nearest-rank) quantile, at most 1/32 above it, and never above the
// largest value added. Count, Sum and Max are exact.
//
// A Hist is a fixed 15 KB array: its zero value is empty and ready to use,
// Add costs O(1) and nothing allocates. It is not safe for concurrent use.
type Hist struct {
	n      int64
	sum    float64
	max    int64
	counts [histBuckets]int64
}

// histBuckets covers every int64: 64 exact buckets, then 32 for each power
// of two from 2^6 up (MaxInt64 falls in bucket 1887).
const histBuckets = 64 + 58*32

// histBucket is the index of the bucket that holds v ≥ 0.
func histBucket(v int64) int {
	if v < 64 {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - 6 // v >> e is in [32, 64)
	return 64 + (e-1)*32 + int(v>>e) - 32
}

// histBucketTop is the largest value of bucket i.
func histBucketTop(i int) int64 {
	if i < 64 {
		return int64(i)
	}
	e := (i-64)/32 + 1
	m := int64((i-64)%32 + 32)
	return (m+1)<<e - 1
}

// Add records v; a negative v is recorded as 0.
func (h *Hist) Add(v int64) {
	v = max(v, 0)
	h.n++
	h.sum += float64(v)
	h.max = max(h.max, v)
	h.counts[histBucket(v)]++
}

// AddN records v n times (n ≥ 0), leaving h as n calls of Add(v) do: in
// O(1) for v ≤ 0, which adds nothing to Sum; otherwise one at a time, so
// that Sum is rounded as n additions round it.
func (h *Hist) AddN(v, n int64) {
	if v > 0 {
		for range n {
			h.Add(v)
		}
		return
	}
	h.n += n
	h.counts[0] += n
}

// Count is the number of values added.
func (h *Hist) Count() int64 { return h.n }

// Sum is the sum of the values added, in float64.
func (h *Hist) Sum() float64 { return h.sum }

// Max is the largest value added, 0 for an empty histogram.
func (h *Hist) Max() int64 { return h.max }

// Mean is Sum / Count, 0 for an empty histogram.
func (h *Hist) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1) by nearest rank: the top of
// the bucket that holds the ⌈q·n⌉-th smallest value (at least the first),
// capped at Max. With x that value, x ≤ Quantile(q) ≤ min(x + x/32, Max),
// and it is x itself below 64. An empty histogram gives 0. It costs
// O(buckets) and allocates nothing.
func (h *Hist) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	x := q * float64(h.n)
	rank := int64(x)
	if float64(rank) < x*(1-1e-12) { // ⌈x⌉, not fooled by 0.07·100 = 7.000000000000001
		rank++
	}
	rank = max(rank, 1)
	var seen int64
	for i, n := range h.counts {
		if seen += n; seen >= rank {
			return min(histBucketTop(i), h.max)
		}
	}
	return h.max
}

// check validates the invariants: the buckets add up to Count, and Max is
// in the highest bucket used (0 when empty).
func (h *Hist) check() error {
	var n int64
	top := -1
	for i, c := range h.counts {
		if c < 0 {
			return fmt.Errorf("metrics: hist: bucket %d holds %d", i, c)
		}
		n += c
		if c > 0 {
			top = i
		}
	}
	if n != h.n {
		return fmt.Errorf("metrics: hist: buckets hold %d values, count %d", n, h.n)
	}
	if (top < 0 && h.max != 0) || (top >= 0 && histBucket(h.max) != top) {
		return fmt.Errorf("metrics: hist: max %d not in the highest bucket used, %d", h.max, top)
	}
	return nil
}
