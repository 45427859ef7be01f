package engine

import (
	"cmp"
	"context"
	"iter"
	"slices"
	"sync"

	"countsim/workload"
)

// Truth is the exact ground Truth: every key's count, kept in a Go map so
// that it shares no code with the designs it judges. It counts logical
// events: where the stream resends, a write whose ID was seen is a
// duplicate, not a count. For read events it records the true count of the
// key at that moment; for the few keys of a hot-counter scenario it keeps
// the count's history, so that a reader's staleness can be told in seconds.
type Truth struct {
	Counts map[uint64]uint64
	N      uint64 // sum of positive write deltas of logical events

	ids  map[uint64]struct{} // IDs seen, when the stream resends
	Dups uint64              // resent writes (deltas) not counted

	Reads   []uint64            // the true count of the key at each read event
	ReadAt  []int64             // the read's time
	ReadKey []uint64            // and its key
	history map[uint64][]uint64 // per key: the count at the end of each millisecond

	sortMu sync.Mutex
	sorted []uint64 // every key written, ascending, once ready (the stream fed); nil before
}

// truthHintMax is the most entries a truth's map is made for up front: a
// map made for more is one allocation that writes all of it (seconds for
// 20 M entries on a busy machine), which a stopped run cannot cut short;
// past it the map grows as it fills, a table of 1,024 slots at a time.
const truthHintMax = 1 << 20

// TruthHint is the size hint of a truth's map for about n keys.
func TruthHint(n uint64) int { return int(min(n, truthHintMax)) }

// HistoryMaxKeys is the most keys whose per-millisecond history the truth
// keeps (hot-counter scenarios have a handful).
const HistoryMaxKeys = 64

func NewTruth(sizeHint int, dedup, history bool) *Truth {
	hint := TruthHint(uint64(max(sizeHint, 0)))
	t := &Truth{Counts: make(map[uint64]uint64, hint)}
	if dedup {
		t.ids = make(map[uint64]struct{}, hint)
	}
	if history {
		t.history = map[uint64][]uint64{}
	}
	return t
}

func (t *Truth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		switch {
		case e.Op == workload.Read:
			t.Reads = append(t.Reads, t.Counts[e.Key])
			t.ReadAt = append(t.ReadAt, e.At)
			t.ReadKey = append(t.ReadKey, e.Key)
		case e.Op != workload.Write: // a Set is a board's absolute score, not a count
		case e.Delta <= 0:
		case t.ids != nil && t.seen(e.ID):
			t.Dups += uint64(e.Delta)
		default:
			if t.history != nil {
				t.record(e.Key, e.At)
			}
			t.Counts[e.Key] += uint64(e.Delta)
			t.N += uint64(e.Delta)
		}
	}
}

// Total is the sum of the writes counted.
func (t *Truth) Total() uint64 { return t.N }

// seen reports whether id was seen before, and remembers it.
func (t *Truth) seen(id uint64) bool {
	if _, ok := t.ids[id]; ok {
		return true
	}
	t.ids[id] = struct{}{}
	return false
}

// record extends key's history to the millisecond of at, carrying the
// count forward, before the write at that time is counted.
func (t *Truth) record(key uint64, at int64) {
	if len(t.history) >= HistoryMaxKeys {
		if _, ok := t.history[key]; !ok {
			return
		}
	}
	h := t.history[key]
	ms := int(at / 1e6)
	cur := t.Counts[key]
	for len(h) <= ms {
		h = append(h, cur)
	}
	t.history[key] = h
}

// Staleness is how old the value shown to a reader at time at was, in ns
// and to the millisecond: 0 if shown is the true count now, else the time
// since the write that made shown untrue (the (shown+1)-th). ok is false
// when the truth kept no history for key.
func (t *Truth) Staleness(key, shown, now uint64, at int64) (int64, bool) {
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

// KeyCount is a key and its exact count.
type KeyCount struct {
	Key   uint64
	Count uint64
}

// Top returns the k heaviest keys, count descending then key ascending —
// the same order the designs' Top answers use.
func (t *Truth) Top(ctx context.Context, k int) ([]KeyCount, error) {
	if err := t.Ready(ctx); err != nil {
		return nil, err
	}
	return TopOf(ctx, t.All(), k)
}

// Count is the exact Count of key.
func (t *Truth) Count(key uint64) uint64 { return t.Counts[key] }

// Distinct is the number of keys written.
func (t *Truth) Distinct(context.Context) (int, error) { return len(t.Counts), nil }

// Ready sorts the keys written, once the stream is fed, looking at ctx
// every stopEvery keys and in the sort (sortStop): stopped, it returns
// ctx's error and leaves them unsorted, for a later call to sort.
func (t *Truth) Ready(ctx context.Context) error {
	t.sortMu.Lock()
	defer t.sortMu.Unlock()
	if t.sorted != nil {
		return nil
	}
	keys := make([]uint64, 0, len(t.Counts))
	for k := range t.Counts {
		if Stopped(ctx, len(keys)) {
			return ctx.Err()
		}
		keys = append(keys, k)
	}
	if err := SortStop(ctx, keys, cmp.Compare[uint64]); err != nil {
		return err
	}
	t.sorted = keys // not nil, even with no key
	return nil
}

// All yields every key written with its count, keys ascending, so that
// scoring visits keys in an order that does not depend on map iteration.
// The keys are sorted once (ready); all may be called from several
// goroutines once the stream is fed.
func (t *Truth) All() iter.Seq2[uint64, uint64] {
	_ = t.Ready(context.Background())
	return func(yield func(uint64, uint64) bool) {
		for _, k := range t.sorted {
			if !yield(k, t.Counts[k]) {
				return
			}
		}
	}
}

// TopOf selects the k heaviest of the keys all yields, looking at ctx
// every stopEvery keys.
func TopOf(ctx context.Context, all iter.Seq2[uint64, uint64], k int) ([]KeyCount, error) {
	sel := selection{k: k}
	i := 0
	for key, c := range all {
		if Stopped(ctx, i) {
			return nil, ctx.Err()
		}
		i++
		sel.offer(KeyCount{key, c})
	}
	return sel.best, nil
}

// selection holds the k heaviest keys offered so far, count descending
// then key ascending: one pass and O(k) memory, no sort of every key. A
// key enters only when it beats the last one held.
type selection struct {
	k    int
	best []KeyCount
}

func (s *selection) full() bool      { return len(s.best) >= s.k }
func (s *selection) last() *KeyCount { return &s.best[len(s.best)-1] }

// heavier reports whether a comes before b in a top-K answer.
func heavier(a, b KeyCount) bool { return a.Count > b.Count || a.Count == b.Count && a.Key < b.Key }

func (s *selection) offer(kc KeyCount) {
	if s.k <= 0 || s.full() && !heavier(kc, *s.last()) {
		return
	}
	i := len(s.best)
	for i > 0 && heavier(kc, s.best[i-1]) {
		i--
	}
	s.best = slices.Insert(s.best, i, kc)
	if len(s.best) > s.k {
		s.best = s.best[:s.k]
	}
}
