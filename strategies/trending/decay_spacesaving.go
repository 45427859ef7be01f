package trending

import (
	"fmt"
	"math"
	"time"
	"unsafe"

	"countsim/strategies"
	"countsim/strategies/frequency"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// A Space-Saving summary of forward-decayed weights: Space-Saving (A.
// Metwally, D. Agrawal and A. El Abbadi, "Efficient computation of frequent
// and top-k elements in data streams", ICDT 2005) fed each event's forward
// weight Delta · 2^((At − L)/h) (decay.go; Cormode et al., ICDE 2009, show
// that forward decay turns a decayed heavy-hitter query into an undecayed
// weighted one).
//
// Space-Saving's properties hold for any positive weights, and every
// counter is scaled by the same 2^(−(now − L)/h) at a query, so with W(now)
// the total decayed weight of the stream:
//
//	score − err ≤ true ≤ score   for every monitored key (all at now),
//	Σ scores = W(now),            so the smallest counter is ≤ W(now)/m,
//	true > W(now)/m ⇒ monitored.
//
// err is the smallest counter when the key took its counter, decayed like
// the rest. The weights are floats that grow, so the integer
// stream-summary of spacesaving.go does not fit: the m counters sit in a
// binary min-heap by weight (the paper allows any structure that finds the
// minimum), with their places in the heap kept in the counters and a key
// index (table[int32]). An event on a monitored key adds its weight and
// sifts the counter down: a heavy key, the common case on a skewed stream,
// is near the leaves and moves little; O(log m) at worst. An unmonitored key
// takes the root's counter. A landmark move multiplies every weight and
// error by the same power of two, which keeps the heap's order.

// DecaySpaceSaving is a Space-Saving summary of m forward-decayed counters.
// A Trending design whose scores err over, by at most each counter's error.
// Not safe for concurrent use.
type DecaySpaceSaving struct {
	clock forwardClock
	ctr   []dssCounter    // len grows to m; a counter keeps its id
	heap  []int32         // counter ids, a min-heap by weight
	index ds.Table[int32] // key → counter id + 1 (fixed capacity m)
	m     int
}

// dssCounter is one counter: its key, its forward weight and error, its
// place in the heap and the low half of its key's hash (to delete it from
// the index without hashing again).
type dssCounter struct {
	key    uint64
	w, err float64
	pos    int32
	hash   uint32
}

// NewDecaySpaceSaving returns an empty summary of m counters of half-life h;
// seed seeds the key index's hash (results do not depend on it).
func NewDecaySpaceSaving(h time.Duration, m int, seed uint64) (*DecaySpaceSaving, error) {
	if err := strategies.ValidateWith("decay", &DecayParams{HalfLife: h, Counters: m}); err != nil {
		return nil, err
	}
	if m < 1 {
		return nil, strategies.WithType("decay", strategies.ParamErrorf("counters", "%d not in 1..%d", m, frequency.SpaceSavingMaxCounters))
	}
	st := workload.SplitMix(seed ^ 0x6465636179737376) // "decayssv"
	return &DecaySpaceSaving{
		clock: newForwardClock(h),
		ctr:   make([]dssCounter, 0, m),
		heap:  make([]int32, 0, m),
		index: ds.NewFixedTable[int32](m, st.Uint64()),
		m:     m,
	}, nil
}

// decaySpaceSavingBytes is the memory of m counters: 32 B a counter, 4 B of
// heap, and the key index of 12 B a slot of a power-of-two table ≥ 2m.
func decaySpaceSavingBytes(m int) int64 {
	return int64(m)*(int64(unsafe.Sizeof(dssCounter{}))+4) + int64(ds.FixedTableLen(m))*ds.TableSlotBytes[int32]()
}

// Law returns the decay law: the half-life.
func (s *DecaySpaceSaving) Law() strategies.TrendLaw { return strategies.TrendLaw{HalfLife: s.clock.h} }

// Bytes returns the memory of the counters, the heap and the index.
func (s *DecaySpaceSaving) Bytes() int64 {
	return int64(cap(s.ctr))*int64(unsafe.Sizeof(dssCounter{})) + int64(cap(s.heap))*4 + s.index.Bytes()
}

// Observe adds every write event's positive Delta, weighted by
// 2^((At − L)/h), to the summary; other events are ignored. No allocation.
func (s *DecaySpaceSaving) Observe(batch []workload.Event) {
	c := &s.clock
	c.start(batch)
	at, f := c.at, c.f
	land, inv := c.land, c.inv
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		if e.At != at {
			if x := float64(e.At-land) * inv; x < decayMoveAt && x >= -1000 {
				f = exp2(x)
			} else {
				f = c.factor(e.At, s.rescale)
				land = c.land
			}
			at = e.At
		}
		s.add(e.Key, float64(e.Delta)*f)
	}
	c.at, c.f = at, f
}

// add counts the forward weight w > 0 for key. The index is probed once.
func (s *DecaySpaceSaving) add(key uint64, w float64) {
	h := s.index.Hash(key)
	slot, c := s.index.Find(h, key)
	if c != 0 {
		ct := &s.ctr[c-1]
		ct.w += w
		s.down(ct.pos)
		return
	}
	if len(s.ctr) < s.m {
		id := int32(len(s.ctr))
		s.ctr = append(s.ctr, dssCounter{key: key, w: w, pos: id, hash: uint32(h)})
		s.heap = append(s.heap, id)
		*s.index.RefAt(h, key) = id + 1
		s.up(id)
		return
	}
	// The new key takes the smallest counter: it inherits its weight as
	// its error.
	id := s.heap[0]
	ct := &s.ctr[id]
	s.index.Replace(slot, key, id+1, uint64(ct.hash), ct.key)
	ct.key, ct.hash, ct.err = key, uint32(h), ct.w
	ct.w += w
	s.down(0)
}

// up moves the counter at heap place i towards the root while it is
// lighter than its parent.
func (s *DecaySpaceSaving) up(i int32) {
	heap, ctr := s.heap, s.ctr
	id := heap[i]
	w := ctr[id].w
	for i > 0 {
		p := (i - 1) / 2
		pid := heap[p]
		if !(w < ctr[pid].w) {
			break
		}
		heap[i] = pid
		ctr[pid].pos = i
		i = p
	}
	heap[i] = id
	ctr[id].pos = i
}

// down moves the counter at heap place i towards the leaves while a child
// is lighter.
func (s *DecaySpaceSaving) down(i int32) {
	heap, ctr := s.heap, s.ctr
	n := int32(len(heap))
	id := heap[i]
	w := ctr[id].w
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c, cw := l, ctr[heap[l]].w
		if r := l + 1; r < n {
			if rw := ctr[heap[r]].w; rw < cw {
				c, cw = r, rw
			}
		}
		if !(cw < w) {
			break
		}
		heap[i] = heap[c]
		ctr[heap[i]].pos = i
		i = c
	}
	heap[i] = id
	ctr[id].pos = i
}

// rescale multiplies every weight and error by 2^−k (a landmark move by k
// half-lives): the same monotone map for all, so the heap stays ordered.
func (s *DecaySpaceSaving) rescale(k int) {
	for i := range s.ctr {
		c := &s.ctr[i]
		c.w, c.err = math.Ldexp(c.w, -k), math.Ldexp(c.err, -k)
	}
}

// Trending returns up to k monitored keys of highest decayed score at now,
// score descending then key ascending. O(m log k).
func (s *DecaySpaceSaving) Trending(k int, now int64) []strategies.Trend {
	if k <= 0 {
		return []strategies.Trend{}
	}
	h := make(trendHeap, 0, min(k, len(s.ctr)))
	for _, c := range s.ctr {
		h.offer(k, strategies.Trend{Key: c.key, Score: c.w})
	}
	return h.scores(s.clock.decay(now))
}

// decayedCounter is a monitored key with its score and error at a time.
type decayedCounter struct {
	key        uint64
	score, err float64
}

// counters returns every monitored key with its score and error at now, in
// counter order.
func (s *DecaySpaceSaving) counters(now int64) []decayedCounter {
	m, n := s.clock.decay(now)
	out := make([]decayedCounter, len(s.ctr))
	for i, c := range s.ctr {
		out[i] = decayedCounter{key: c.key, score: scaleSum(c.w, m, n), err: scaleSum(c.err, m, n)}
	}
	return out
}

// minScore returns the smallest counter's score at now: 0 while fewer than m
// keys have been seen, and never more than W(now)/m.
func (s *DecaySpaceSaving) minScore(now int64) float64 {
	if len(s.ctr) < s.m {
		return 0
	}
	m, n := s.clock.decay(now)
	return scaleSum(s.ctr[s.heap[0]].w, m, n)
}

// check validates the heap (every counter in its place, no child lighter
// than its parent), the index (exactly the monitored keys, each counter
// keeping its key's hash), and each counter's 0 ≤ err ≤ w, both finite.
func (s *DecaySpaceSaving) check() error {
	if len(s.heap) != len(s.ctr) || len(s.ctr) > s.m || s.index.Len() != len(s.ctr) {
		return fmt.Errorf("decay space-saving: %d in the heap, %d counters of %d, %d indexed", len(s.heap), len(s.ctr), s.m, s.index.Len())
	}
	for i, id := range s.heap {
		c := &s.ctr[id]
		if c.pos != int32(i) {
			return fmt.Errorf("decay space-saving: counter %d at heap place %d says %d", id, i, c.pos)
		}
		if i > 0 && c.w < s.ctr[s.heap[(i-1)/2]].w {
			return fmt.Errorf("decay space-saving: counter %d (weight %v) below its parent", id, c.w)
		}
		if !(c.err >= 0 && c.err <= c.w) || math.IsInf(c.w, 0) {
			return fmt.Errorf("decay space-saving: key %d has weight %v and error %v", c.key, c.w, c.err)
		}
		if got := s.index.Get(c.key); got != id+1 {
			return fmt.Errorf("decay space-saving: index gives key %d counter %d (-1: absent), want %d", c.key, got-1, id)
		}
		if h := uint32(s.index.Hash(c.key)); c.hash != h {
			return fmt.Errorf("decay space-saving: counter %d keeps the hash %#x of key %d, want %#x", id, c.hash, c.key, h)
		}
	}
	if err := s.index.Check(); err != nil {
		return fmt.Errorf("decay space-saving: index: %w", err)
	}
	return nil
}

// TrendScore is a monitored key's decayed counter at now (an upper bound
// of its score), 0 for a key not monitored.
func (s *DecaySpaceSaving) TrendScore(key uint64, now int64) float64 {
	_, c := s.index.Find(s.index.Hash(key), key)
	if c == 0 {
		return 0
	}
	m, n := s.clock.decay(now)
	return scaleSum(s.ctr[c-1].w, m, n)
}

var _ strategies.TrendScorer = (*DecaySpaceSaving)(nil)
