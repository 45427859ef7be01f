package sim

import (
	"cmp"
	"slices"

	"countsim/workload"
)

// truth is the exact ground truth: every key's count, kept in a Go map so
// that it shares no code with the designs it judges. It counts logical
// events: where the stream resends, a write whose ID was seen is a
// duplicate, not a count. For read events it records the true count of the
// key at that moment; for the few keys of a hot-counter scenario it keeps
// the count's history, so that a reader's staleness can be told in seconds.
type truth struct {
	counts map[uint64]uint64
	n      uint64 // sum of positive write deltas of logical events

	ids  map[uint64]struct{} // IDs seen, when the stream resends
	dups uint64              // resent writes (deltas) not counted

	reads   []uint64            // the true count of the key at each read event
	readAt  []int64             // the read's time
	readKey []uint64            // and its key
	history map[uint64][]uint64 // per key: the count at the end of each millisecond
}

// historyMaxKeys is the most keys whose per-millisecond history the truth
// keeps (hot-counter scenarios have a handful).
const historyMaxKeys = 64

func newTruth(sizeHint int, dedup, history bool) *truth {
	t := &truth{counts: make(map[uint64]uint64, sizeHint)}
	if dedup {
		t.ids = make(map[uint64]struct{}, sizeHint)
	}
	if history {
		t.history = map[uint64][]uint64{}
	}
	return t
}

func (t *truth) observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		switch {
		case e.Op == workload.Read:
			t.reads = append(t.reads, t.counts[e.Key])
			t.readAt = append(t.readAt, e.At)
			t.readKey = append(t.readKey, e.Key)
		case e.Delta <= 0:
		case t.ids != nil && t.seen(e.ID):
			t.dups += uint64(e.Delta)
		default:
			if t.history != nil {
				t.record(e.Key, e.At)
			}
			t.counts[e.Key] += uint64(e.Delta)
			t.n += uint64(e.Delta)
		}
	}
}

// seen reports whether id was seen before, and remembers it.
func (t *truth) seen(id uint64) bool {
	if _, ok := t.ids[id]; ok {
		return true
	}
	t.ids[id] = struct{}{}
	return false
}

// record extends key's history to the millisecond of at, carrying the
// count forward, before the write at that time is counted.
func (t *truth) record(key uint64, at int64) {
	if len(t.history) >= historyMaxKeys {
		if _, ok := t.history[key]; !ok {
			return
		}
	}
	h := t.history[key]
	ms := int(at / 1e6)
	cur := t.counts[key]
	for len(h) <= ms {
		h = append(h, cur)
	}
	t.history[key] = h
}

// staleness is how old the value shown to a reader at time at was, in ns
// and to the millisecond: 0 if shown is the true count now, else the time
// since the write that made shown untrue (the (shown+1)-th). ok is false
// when the truth kept no history for key.
func (t *truth) staleness(key, shown, now uint64, at int64) (int64, bool) {
	h, ok := t.history[key]
	if !ok {
		return 0, false
	}
	if shown >= now {
		return 0, true
	}
	// h[ms] is the count when millisecond ms began. The first ms that began
	// above shown follows the millisecond of the (shown+1)-th write.
	m, _ := slices.BinarySearchFunc(h, shown, func(c, v uint64) int {
		if c > v {
			return 1
		}
		return -1
	})
	tau := int64(m-1) * 1e6
	return max(0, at-tau), true
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
