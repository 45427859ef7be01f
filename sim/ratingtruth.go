package sim

import (
	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/workload"
	"fmt"
)

// The truth of a ratings run (ratings.go), generated or read from a log,
// and the tables of each top K that it fills in.

// ratingTruth is the exact truth of a ratings run, by item: each item's
// ratings, stars and ratings of each number of stars above the scale's
// fewest (the up votes of any threshold, for the tables), in arrays that
// share no code with the designs' tables. A generated run's item is at its
// popularity rank − 1 (src); a log's at the order it was first rated in
// (index, keys).
type ratingTruth struct {
	src    *workload.Ratings
	index  map[uint64]int32
	keys   []uint64
	lo     int64
	n, sum []int64
	stars  [][]int64 // stars[s−lo−1][i]: the ratings of s stars of item i, lo < s ≤ hi
}

// newRatingTruth is an empty truth of items items by rank of src, or, src
// nil, of the items of a log as they come (items: room made).
func newRatingTruth(src *workload.Ratings, items int, lo, hi int64) *ratingTruth {
	t := &ratingTruth{src: src, lo: lo, stars: make([][]int64, hi-lo)}
	size, room := items, items
	if src == nil {
		t.index = make(map[uint64]int32, items)
		size = 0
	}
	t.n, t.sum = make([]int64, size, room), make([]int64, size, room)
	for s := range t.stars {
		t.stars[s] = make([]int64, size, room)
	}
	return t
}

// ratingTruthBytes is the truth's memory an item on the scale lo..hi: its
// ratings, stars and ratings of each number of stars above lo.
func ratingTruthBytes(lo, hi int64) int64 { return 8 * (2 + hi - lo) }

func (t *ratingTruth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write {
			continue
		}
		var r int
		if t.src != nil {
			r = int(t.src.RankOf(e.Key) - 1)
		} else {
			r = t.add(e.Key)
		}
		t.n[r]++
		t.sum[r] += e.Delta
		if s := e.Delta - t.lo; s > 0 && s <= int64(len(t.stars)) {
			t.stars[s-1][r]++
		}
	}
}

// add returns the index of a log's item, adding it when new.
func (t *ratingTruth) add(key uint64) int {
	if r, ok := t.index[key]; ok {
		return int(r)
	}
	r := len(t.keys)
	t.index[key] = int32(r)
	t.keys = append(t.keys, key)
	t.n, t.sum = append(t.n, 0), append(t.sum, 0)
	for s := range t.stars {
		t.stars[s] = append(t.stars[s], 0)
	}
	return r
}

// keyOf is the key of the item at index i.
func (t *ratingTruth) keyOf(i int) uint64 {
	if t.src != nil {
		return t.src.KeyOf(uint64(i + 1))
	}
	return t.keys[i]
}

// indexOf is the index of the item of key (−1: never rated).
func (t *ratingTruth) indexOf(key uint64) int {
	if t.src != nil {
		return int(t.src.RankOf(key) - 1)
	}
	if r, ok := t.index[key]; ok {
		return int(r)
	}
	return -1
}

// up is the ratings of item i of at least up stars: its up votes.
func (t *ratingTruth) up(i int, up int64) int64 {
	if up <= t.lo {
		return t.n[i]
	}
	var v int64
	for s := up - t.lo - 1; s < int64(len(t.stars)); s++ {
		v += t.stars[s][i]
	}
	return v
}

// ratingsTables draws each top K as a table.
type ratingsTables struct {
	k      *ratingsKind
	tr     *ratingTruth
	hidden hiddenQuality
	ups    []int64        // the up votes' thresholds, a column each
	names  map[int]string // the items' strings, by index; nil: none
}

// of is one top K as a table: place, the item (its popularity rank, or
// its index as first rated, with its string where the items have one),
// its ratings and up votes (of at least each threshold: the Wilson bound
// checked by hand), mean stars and hidden quality (from the truth), and
// the design's score.
func (tb ratingsTables) of(name string, t ratingsTop) metrics.Table {
	k, tr := tb.k, tb.tr
	item, score := "popularity rank", "the design's, or the hidden quality for the true-quality top"
	if tb.hidden == nil {
		item, score = "the order it was first rated in", "the design's, or the mean stars for the true-mean top"
	}
	out := metrics.Table{Scenario: k.rows.Scenario, Name: "top-" + name,
		Title:   fmt.Sprintf("%s: top %d (item = %s; score: %s)", name, k.top, item, score),
		Columns: []string{"place", "item", "ratings"}}
	for _, u := range tb.ups {
		out.Columns = append(out.Columns, fmt.Sprintf("up votes (≥ %d stars)", u))
	}
	out.Columns = append(out.Columns, "mean stars")
	if tb.hidden != nil {
		out.Columns = append(out.Columns, "hidden quality")
	}
	out.Columns = append(out.Columns, "score")
	if tb.names != nil {
		out.LabelColumn = "key"
	}
	for j, it := range t.items {
		i := t.idx[j]
		mean := 0.0
		if tr.n[i] > 0 {
			mean = float64(tr.sum[i]) / float64(tr.n[i])
		}
		row := []float64{float64(j + 1), float64(i + 1), float64(tr.n[i])}
		for _, u := range tb.ups {
			row = append(row, float64(tr.up(i, u)))
		}
		row = append(row, engine.Round(mean, 4))
		if tb.hidden != nil {
			row = append(row, engine.Round(tb.hidden.quality(i), 4))
		}
		out.Rows = append(out.Rows, append(row, engine.Round(it.Score, 4)))
		if tb.names != nil {
			out.Labels = append(out.Labels, tb.names[i])
		}
	}
	return out
}
