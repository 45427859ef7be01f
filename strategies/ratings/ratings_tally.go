package ratings

import (
	"fmt"
	"slices"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// What the rating designs share: the tally of an item's ratings, and the
// plan of its bytes.

// ratingCounts is what a rating design keeps of an item: its ratings n, and
// x, the sum of their stars or the up votes among them.
type ratingCounts struct {
	n, x int64
}

// ratingTally is the per-item state of a rating design: a dense table
// (dense.go) from item key to its counts, in the order items were first
// rated. It is sized for the items the Env announces (Env.Keys): its index
// of a power of two ≥ 2·items slots and its arrays of that many items are
// made up front, so Observe allocates nothing unless more items come than
// announced (then the arrays grow as append grows them).
type ratingTally struct {
	d    ds.Dense[ratingCounts]
	seed uint64
}

// ratingTallyBytes is the memory of a tally sized for items items: 4 B an
// index slot, 8 B a key and 16 B of counts an item.
func ratingTallyBytes(items uint64) int64 {
	return 4*int64(ratingSlots(items)) + 24*int64(items)
}

// ratingSlots is the index of a tally for items items: the power of two ≥
// 2·items, at least DenseMin.
func ratingSlots(items uint64) int {
	s := ds.DenseMin
	for uint64(s) < 2*items {
		s *= 2
	}
	return s
}

func newRatingTally(items, seed uint64) ratingTally {
	st := workload.SplitMix(seed ^ 0x726174696e677321) // "ratings!"
	d := ds.NewDense[ratingCounts](ratingSlots(items))
	d.Keys = make([]uint64, 0, items)
	d.Vals = make([]ratingCounts, 0, items)
	return ratingTally{d: d, seed: st.Uint64()}
}

// ref returns the counts of item, adding it if new: one call, inlined.
func (t *ratingTally) ref(item uint64) *ratingCounts { return t.d.Ref(item, t.seed) }

// get returns the counts of item, zero if never rated.
func (t *ratingTally) get(item uint64) ratingCounts {
	if n := t.d.Find(item, t.seed); n >= 0 {
		return t.d.Vals[n]
	}
	return ratingCounts{}
}

func (t *ratingTally) bytes() int64 { return t.d.Bytes() }

// top returns the k items of highest score(counts), in the family's
// order, keeping the best k seen in a sorted slice: O(items·log k + k²).
func (t *ratingTally) top(k int, score func(ratingCounts) float64) []strategies.Rated {
	if k <= 0 {
		return nil
	}
	best := make([]strategies.Rated, 0, min(k, t.d.Len())+1)
	for i, key := range t.d.Keys {
		c := t.d.Vals[i]
		r := strategies.Rated{Key: key, Score: score(c), Ratings: c.n}
		if len(best) == k && !r.Before(best[k-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, r, func(a, b strategies.Rated) int {
			if a.Before(b) {
				return -1
			}
			return 1 // keys are distinct: never equal
		})
		best = slices.Insert(best, at, r)
		if len(best) > k {
			best = best[:k]
		}
	}
	return best
}

// check validates the tally: the dense table's invariants, every item
// rated at least once, x within [lo·n, hi·n] (lo, hi: the bounds of x per
// rating, 0 and 1 for up votes).
func (t *ratingTally) check(lo, hi int64) error {
	if err := t.d.Check(t.seed); err != nil {
		return err
	}
	for i, c := range t.d.Vals {
		if c.n < 1 || c.x < lo*c.n || c.x > hi*c.n {
			return fmt.Errorf("ratings: item %#x has %d ratings and x = %d, want n ≥ 1 and x in [%d·n, %d·n]", t.d.Keys[i], c.n, c.x, lo, hi)
		}
	}
	return nil
}

// ratingPlanBytes is the plan line of a tally's memory at the simulated
// scale, for env.Keys items.
func ratingPlanBytes(env strategies.Env) strategies.PlanLine {
	return strategies.PlanLine{Metric: metrics.Bytes, Value: float64(ratingTallyBytes(env.Keys)), Unit: "B",
		Note: "4 B × the power of two ≥ 2·items of index, 24 B an item (key, ratings, sum or up votes)"}
}
