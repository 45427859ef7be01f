package sim

import (
	"cmp"
	"slices"

	"countsim/workload"
)

// truth is the exact ground truth: every key's count, kept in a Go map so
// that it shares no code with the designs it judges.
type truth struct {
	counts map[uint64]uint64
	n      uint64 // sum of positive write deltas
}

func newTruth(sizeHint int) *truth {
	return &truth{counts: make(map[uint64]uint64, sizeHint)}
}

func (t *truth) observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		t.counts[e.Key] += uint64(e.Delta)
		t.n += uint64(e.Delta)
	}
}

// keyCount is a key and its exact count.
type keyCount struct {
	key   uint64
	count uint64
}

// top returns the k heaviest keys, count descending then key ascending —
// the same order the designs' Top answers use.
func (t *truth) top(k int) []keyCount {
	all := make([]keyCount, 0, len(t.counts))
	for key, c := range t.counts {
		all = append(all, keyCount{key, c})
	}
	slices.SortFunc(all, func(a, b keyCount) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	return all[:min(k, len(all))]
}

// keys returns every key seen, sorted, so that scoring visits keys in an
// order that does not depend on map iteration.
func (t *truth) keys() []uint64 {
	ks := make([]uint64, 0, len(t.counts))
	for k := range t.counts {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
