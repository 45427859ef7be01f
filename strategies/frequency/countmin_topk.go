package frequency

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
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
// above the minimum. Cost per event: the sketch's O(d) and one comparison
// with the heap's minimum; only an event whose estimate reaches it (on a
// skewed stream, mostly the held keys' own events) costs an O(1) expected
// lookup in the heap's index, which reuses the sketch's hash, and O(log
// Top) heap work. Nothing is allocated per event.
//
// Counts are estimates: never below the truth, and above it by at most εN
// with probability 1 − δ per key. A CountMinTopK is not safe for
// concurrent use.
type CountMinTopK struct {
	sketch *CountMin
	heap   ds.TopHeap
	// floor is the heap's least count once it is full, 0 before: a key
	// whose estimate is below it is not held (a held key's heap count is at
	// least the minimum and at most its estimate now) and does not get in.
	floor uint64
}

// NewCountMinTopK returns a sketch with a heap of p.Top keys (p.Top ≥ 1),
// hashing with seed.
func NewCountMinTopK(p CountMinParams, seed uint64) (*CountMinTopK, error) {
	s, err := NewCountMin(p, seed)
	if err != nil {
		return nil, err
	}
	if p.Top < 1 {
		return nil, strategies.WithType("count-min", strategies.ParamErrorf("top", "%d: a heap needs top ≥ 1", p.Top))
	}
	// The heap's index hashes a key as Mix64(key ⊕ s1), the sketch's h1, so
	// that Observe hands it the hash it has. The index probes from h1's low
	// bits, the rows read its high bits.
	return &CountMinTopK{sketch: s, heap: ds.NewTopHeap(p.Top, s.rows.S1)}, nil
}

// Bytes returns the sketch's counters plus the heap and its key index.
func (s *CountMinTopK) Bytes() int64 { return s.sketch.Bytes() + s.heap.Bytes() }

// Parts reports the sketch ("bytes", the memory the (ε, δ) plan fixes) and
// the heap ("heap_bytes") apart.
func (s *CountMinTopK) Parts() []strategies.Part {
	return []strategies.Part{{Metric: metrics.Bytes, Bytes: s.sketch.Bytes()}, {Metric: metrics.HeapBytes, Bytes: s.heap.Bytes()}}
}

// Observe adds every write event's positive Delta to its key and keeps the
// heap up to date; other events are ignored.
//
// With the plain update the sketch's loop is written out here as in
// CountMin.Observe, with the key's estimate (the least of its new counters)
// taken on the way; only an estimate at or above the heap's minimum (the
// cached floor) goes on to the heap's index, so most events of a skewed
// stream cost the sketch's update and one comparison.
func (s *CountMinTopK) Observe(batch []workload.Event) {
	cm := s.sketch
	if cm.conservative {
		for i := range batch {
			if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
				s.Add(e.Key, uint64(e.Delta))
			}
		}
		return
	}
	w, cells := uint64(cm.rows.Width), cm.rows.Cells
	dw := w * uint64(cm.rows.Depth)
	n := cm.rows.N
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		delta := uint64(e.Delta)
		if n += delta; n > math.MaxUint32 {
			cm.rows.N = n - delta
			s.Add(e.Key, delta)
			continue
		}
		g, step, accel := cm.rows.Hashes(e.Key)
		h1 := g
		est := uint32(math.MaxUint32)
		for off := uint64(0); off < dw; off += w {
			j := off + ds.Reduce(g, w)
			c := cells[j] + uint32(delta)
			cells[j] = c
			est = min(est, c)
			g += step
			step += accel
		}
		if uint64(est) >= s.floor {
			s.floor = s.heap.Offer(h1, e.Key, uint64(est))
		}
	}
	cm.rows.N = n
}

// Add adds delta to key in the sketch and offers the key's new estimate to
// the heap.
func (s *CountMinTopK) Add(key, delta uint64) {
	if est := s.sketch.add(key, delta); est >= s.floor {
		s.floor = s.heap.Offer(s.heap.Index.Hash(key), key, est)
	}
}

// Count returns the sketch's estimate of key.
func (s *CountMinTopK) Count(key uint64) uint64 { return s.sketch.Count(key) }

// Top returns up to k keys of the heap, count descending then key ascending.
// Count is the key's estimate now (it may have grown through other keys'
// collisions since the key's last event) and Err is the sketch's bound
// ⌈εN⌉: the true count is in [Count − Err, Count] with probability 1 − δ per
// key. A key whose estimate never beat the heap's minimum is missing.
func (s *CountMinTopK) Top(k int) []strategies.Item {
	items := make([]strategies.Item, s.heap.Len())
	bound := s.sketch.Bound()
	for i := range s.heap.Heap {
		key := s.heap.At(i).Key
		items[i] = strategies.Item{Key: key, Count: s.sketch.Count(key), Err: bound}
	}
	ds.SortItems(items)
	return items[:min(max(k, 0), len(items))]
}

// check validates the sketch and the heap, and that no key's heap count is
// above its estimate now (heap counts are estimates at the key's last event).
func (s *CountMinTopK) check() error {
	if err := s.sketch.check(); err != nil {
		return err
	}
	if err := s.heap.Check(); err != nil {
		return fmt.Errorf("count-min: %w", err)
	}
	for i := range s.heap.Heap {
		it := s.heap.At(i)
		if est := s.sketch.Count(it.Key); it.Count > est || it.Count == 0 {
			return fmt.Errorf("count-min: heap holds key %d at %d, its estimate is %d", it.Key, it.Count, est)
		}
	}
	return nil
}
