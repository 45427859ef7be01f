package boards

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The score histogram (seeds/002_aa28a8d9e3b54cd9.txt, "Approximate rank
// from score histograms"): counts of players per bucket of Width points,
// and a player's rank estimated from them, for "you are around the 82nd
// percentile" feedback on the long tail. It keeps each player's score (the
// durable scores table a real design reads) to move the player between
// buckets, and the bucket counts in a Fenwick tree (P. M. Fenwick, "A new
// data structure for cumulative frequency tables", Software: Practice and
// Experience 24(3), 1994), so an update and a rank are O(log B) for B
// buckets.
//
// The estimate. For a player of score s in bucket b = ⌊(s − min)/w⌋, which
// spans [lo, lo + w), the competition rank is 1 + the players in the
// buckets above b + an estimate of those in b above s, the bucket's count
// × (lo + w − 1 − s)/w, as if its players spread evenly over its w scores
// (rounded to the nearest whole player). With w = 1 it is exact; the error
// is at most the players of the player's bucket, so it grows with w (and
// with how crowded the scores are), and the memory falls as 1/w: the run
// plots one against the other. Histograms of shards add bucket by bucket.
// It answers the competition rank only: the ordinal and dense ranks need
// the order and the distinct scores inside a bucket, which it does not keep.

// ScoreHistogramParams are the parameters of the score histogram.
type ScoreHistogramParams struct {
	Width int64 `key:"width" range:"1..1099511627776" required:"true" doc:"points a bucket spans (at most 2^40): wider buckets take less memory and give rougher ranks"`
	Min   int64 `key:"min" allowed:"an integer" default:"0" doc:"the lowest score of the first bucket; lower scores count in the first bucket"`
}

// maxBucketWidth bounds Width so that bucket arithmetic stays far from
// int64's range.
const maxBucketWidth = 1 << 40

// histPrefetch is how many events ahead Observe prefetches a player's slot.
const histPrefetch = 8

// maxHistBuckets is the most buckets a histogram grows to (8 GiB of counts).
const maxHistBuckets = 1 << 30

// ScoreHistogram is a Ranker that estimates competition ranks from bucket
// counts. Not safe for concurrent use.
type ScoreHistogram struct {
	width, min int64
	scores     *ds.ScoreTable // player → score
	tree       []int64        // Fenwick tree over the buckets, 1-based: tree[0] unused
	total      int64          // players
	top        int            // buckets in use: 1 + the highest bucket ever filled
	sink       int64          // the stream's rank queries, computed
}

var (
	_ strategies.Ranker = (*ScoreHistogram)(nil)
	_ strategies.Parted = (*ScoreHistogram)(nil)
	_ strategies.Loader = (*ScoreHistogram)(nil)
)

// NewScoreHistogram returns an empty histogram sized for about players
// players, at most 2^20 of them up front: past that its table grows by
// half as it fills, where a table made for 2^24 players is one allocation
// that takes seconds on a busy machine and that a stopped run cannot cut
// short.
func NewScoreHistogram(p ScoreHistogramParams, players uint64) (*ScoreHistogram, error) {
	if err := strategies.ValidateWith("score-histogram", &p); err != nil {
		return nil, err
	}
	return &ScoreHistogram{width: p.Width, min: p.Min, scores: ds.NewScoreTable(int(min(players, 1<<20))), tree: make([]int64, 1+64)}, nil
}

func init() {
	strategies.Define("score-histogram", "player counts per score bucket of a stated width: a player's competition rank estimated from the buckets above (percentile feedback)",
		func(p *ScoreHistogramParams, env strategies.Env) (strategies.Strategy, error) {
			return NewScoreHistogram(*p, env.Keys)
		},
		scoreHistogramPlan, strategies.Answers(strategies.FamilyRank))
}

func scoreHistogramPlan(p *ScoreHistogramParams, env strategies.Env) []strategies.PlanLine {
	return []strategies.PlanLine{{Metric: metrics.BucketWidth, Value: float64(p.Width), Unit: "points", Note: "w configured: the rank error is at most the players of one bucket"}}
}

// bucket returns the bucket of score s, 0-based.
func (h *ScoreHistogram) bucket(s int64) int {
	if s <= h.min {
		return 0
	}
	b := uint64(s-h.min) / uint64(h.width) // s − min > 0 fits: both int64, s > min
	if b >= maxHistBuckets {
		panic(fmt.Sprintf("strategies: score-histogram: score %d needs bucket %d, beyond %d buckets; widen the buckets", s, b, maxHistBuckets))
	}
	return int(b)
}

// inc adds d to bucket b's count, growing the tree (doubling, rebuilt in
// O(B)) when b is beyond it.
func (h *ScoreHistogram) inc(b int, d int64) {
	if b+1 >= len(h.tree) {
		h.grow(b + 1)
	}
	h.top = max(h.top, b+1)
	for i := b + 1; i < len(h.tree); i += i & -i {
		h.tree[i] += d
	}
}

// grow rebuilds the tree with room for at least n buckets.
func (h *ScoreHistogram) grow(n int) {
	size := len(h.tree) - 1
	for size < n+1 {
		size *= 2
	}
	counts := make([]int64, size)
	for b := range h.top {
		counts[b] = h.bucketCount(b)
	}
	t := make([]int64, size+1)
	for i := 1; i <= size; i++ { // the O(n) Fenwick build
		t[i] += counts[i-1]
		if j := i + i&-i; j <= size {
			t[j] += t[i]
		}
	}
	h.tree = t
}

// prefix returns the players in buckets 0..b.
func (h *ScoreHistogram) prefix(b int) int64 {
	var n int64
	for i := min(b+1, len(h.tree)-1); i > 0; i -= i & -i {
		n += h.tree[i]
	}
	return n
}

func (h *ScoreHistogram) bucketCount(b int) int64 {
	if b == 0 {
		return h.prefix(0)
	}
	return h.prefix(b) - h.prefix(b-1)
}

// Observe moves each player whose score changes to its new bucket; a rank
// query (Op Read) is estimated. The table's slot of the player of the
// event histPrefetch ahead is prefetched (ds.Prefetch), so that the
// lookups' cache misses overlap.
func (h *ScoreHistogram) Observe(batch []workload.Event) {
	for i := range batch {
		if k := i + histPrefetch; k < len(batch) {
			h.scores.Prefetch(batch[k].Key)
		}
		e := &batch[i]
		switch e.Op {
		case workload.Write, workload.Set:
			p, ok := h.scores.Ref(e.Key)
			old, s := *p, e.Delta
			if e.Op == workload.Write {
				s = old + e.Delta
			}
			if ok {
				if ob, nb := h.bucket(old), h.bucket(s); ob != nb {
					h.inc(ob, -1)
					h.inc(nb, 1)
				}
			} else {
				h.inc(h.bucket(s), 1)
				h.total++
			}
			*p = s
		case workload.Read:
			h.sink += h.Rank(e.Key, strategies.TiesCompetition)
		}
	}
}

// Load takes the standings: the batch's Set events, as Observe takes them
// (the histogram sends nothing to a store).
func (h *ScoreHistogram) Load(batch []workload.Event) {
	for i := range batch {
		if batch[i].Op == workload.Set {
			h.Observe(batch[i : i+1])
		}
	}
}

// Rank estimates a player's competition rank (0 for a player never seen,
// or for another policy).
func (h *ScoreHistogram) Rank(player uint64, t strategies.Ties) int64 {
	s, ok := h.scores.Get(player)
	if !ok || t != strategies.TiesCompetition {
		return 0
	}
	b := h.bucket(s)
	above := h.total - h.prefix(b)
	lo := h.min + int64(b)*h.width
	frac := float64(lo+h.width-1-max(s, h.min)) / float64(h.width)
	return 1 + above + int64(math.Round(float64(h.bucketCount(b))*frac))
}

// RankTies: the competition rank only.
func (h *ScoreHistogram) RankTies() []strategies.Ties {
	return []strategies.Ties{strategies.TiesCompetition}
}

// Players returns the players seen.
func (h *ScoreHistogram) Players() int64 { return h.total }

// Buckets returns the buckets in use: 1 + the highest bucket filled.
func (h *ScoreHistogram) Buckets() int { return h.top }

// Parts: the histogram (8 B a bucket in use, what a design keeps; the tree
// holds a power of two of them) and the scores table, as a hash map of the
// design would hold it: a Go map's 8 B key, 8 B score and control byte a
// player, at its maximum load of 7/8 (the table this one keeps, a lookup
// one cache miss, takes 24 B a slot at a load of 1/2 to 3/4).
func (h *ScoreHistogram) Parts() []strategies.Part {
	return []strategies.Part{
		{Metric: metrics.Bytes, Bytes: int64(h.top) * 8},
		{Metric: metrics.ScoresTableBytes, Bytes: int64(h.scores.Len()) * (8 + 8 + 1) * 8 / 7},
	}
}

// Bytes is the sum of the parts.
func (h *ScoreHistogram) Bytes() int64 {
	var n int64
	for _, p := range h.Parts() {
		n += p.Bytes
	}
	return n
}
