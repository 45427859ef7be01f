package strategies

import (
	"fmt"

	"countsim/workload"
)

// CountMinTopK is a count-min sketch with a min-heap of the Top keys with
// the largest estimates: the classic "count-min + heap" top-K (Cormode &
// Muthukrishnan 2005, heavy hitters over a stream of increments).
//
// Per event it updates the sketch and reads the key's new estimate; a key
// in the heap gets the new estimate and moves down the heap; a key not in
// the heap replaces the heap's minimum if its estimate beats it (or fills
// the heap while it is not full). Estimates only grow, so a key dropped
// from the heap comes back as soon as one of its events lifts its estimate
// above the minimum. Cost per event: the sketch's O(d) plus an O(1)
// expected lookup and O(log Top) heap work. Nothing is allocated per event.
//
// Counts are estimates: never below the truth, and above it by at most εN
// with probability 1 − δ per key. A CountMinTopK is not safe for
// concurrent use.
type CountMinTopK struct {
	sketch *CountMin
	heap   topHeap
}

// NewCountMinTopK returns a sketch with a heap of p.Top keys (p.Top ≥ 1),
// hashing with seed.
func NewCountMinTopK(p CountMinParams, seed uint64) (*CountMinTopK, error) {
	s, err := NewCountMin(p, seed)
	if err != nil {
		return nil, err
	}
	if p.Top < 1 {
		return nil, typed("count-min", paramErr("top", "%d: a heap needs top ≥ 1", p.Top))
	}
	st := workload.SplitMix(seed ^ 0x6865617020696478) // the heap index hashes apart from the rows
	return &CountMinTopK{sketch: s, heap: newTopHeap(p.Top, st.Uint64())}, nil
}

// Sketch returns the underlying sketch (for Width, Depth, N, Bound, Merge of
// the counters). Adding to it directly bypasses the heap.
func (s *CountMinTopK) Sketch() *CountMin { return s.sketch }

// Bytes returns the sketch's counters plus the heap and its key index.
func (s *CountMinTopK) Bytes() int64 { return s.sketch.Bytes() + s.heap.bytes() }

// Parts reports the sketch ("bytes", the memory the (ε, δ) plan fixes) and
// the heap ("heap_bytes") apart.
func (s *CountMinTopK) Parts() []Part {
	return []Part{{Metric: MetricBytes, Bytes: s.sketch.Bytes()}, {Metric: MetricHeapBytes, Bytes: s.heap.bytes()}}
}

// Observe adds every write event's positive Delta to its key and keeps the
// heap up to date; other events are ignored.
func (s *CountMinTopK) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op == workload.Write && e.Delta > 0 {
			s.Add(e.Key, uint64(e.Delta))
		}
	}
}

// Add adds delta to key in the sketch and offers the key's new estimate to
// the heap.
func (s *CountMinTopK) Add(key, delta uint64) {
	est := s.sketch.add(key, delta)
	h := &s.heap
	if h.full() && est < h.min().Count {
		// A held key's heap count is at least the minimum and at most its
		// estimate now, so this key is not held, and does not get in.
		return
	}
	if i, ok := h.find(key); ok {
		h.raise(i, est)
		return
	}
	it := Item{Key: key, Count: est}
	switch {
	case !h.full():
		h.push(it)
	case worse(h.min(), &it):
		h.replaceMin(it)
	}
}

// Count returns the sketch's estimate of key.
func (s *CountMinTopK) Count(key uint64) uint64 { return s.sketch.Count(key) }

// Top returns up to k keys of the heap, count descending then key ascending.
// Count is the key's estimate now (it may have grown through other keys'
// collisions since the key's last event) and Err is the sketch's bound
// ⌈εN⌉: the true count is in [Count − Err, Count] with probability 1 − δ per
// key. A key whose estimate never beat the heap's minimum is missing.
func (s *CountMinTopK) Top(k int) []Item {
	items := make([]Item, s.heap.len())
	bound := s.sketch.Bound()
	for i := range s.heap.heap {
		key := s.heap.at(i).Key
		items[i] = Item{Key: key, Count: s.sketch.Count(key), Err: bound}
	}
	sortItems(items)
	return items[:min(max(k, 0), len(items))]
}

// check validates the sketch and the heap, and that no key's heap count is
// above its estimate now (heap counts are estimates at the key's last event).
func (s *CountMinTopK) check() error {
	if err := s.sketch.check(); err != nil {
		return err
	}
	if err := s.heap.check(); err != nil {
		return fmt.Errorf("count-min: %w", err)
	}
	for i := range s.heap.heap {
		it := s.heap.at(i)
		if est := s.sketch.Count(it.Key); it.Count > est || it.Count == 0 {
			return fmt.Errorf("count-min: heap holds key %d at %d, its estimate is %d", it.Key, it.Count, est)
		}
	}
	return nil
}
