package strategies

import (
	"fmt"
	"unsafe"

	"countsim/workload"
)

// Space-Saving: A. Metwally, D. Agrawal and A. El Abbadi, "Efficient
// computation of frequent and top-k elements in data streams", ICDT 2005.
//
// m counters, each monitoring one key with a count and an error. A
// monitored key's count grows by its deltas. An unmonitored key, once all m
// counters are taken, replaces the key with the smallest count, min: it
// inherits the counter as min + delta and records err = min, the most it
// may have been overcounted. With N the sum of all deltas this gives
// (the paper's properties, which carry over to weighted deltas):
//
//	count − err ≤ true ≤ count      for every monitored key,
//	Σ counts = N,                   so the minimum counter is ≤ N/m,
//	true > N/m ⇒ monitored          a key heavier than N/m is never evicted.
//
// The counters live in the paper's stream-summary: a list of buckets in
// increasing count order, each holding the ring of counters that share its
// count (here as int32 links in arrays, not pointers). A unit increment
// moves a counter to the next bucket or renames its bucket: O(1). A delta
// d > 1 walks past the buckets whose counts lie in between, at most
// min(d, buckets) steps. Among counters of the smallest count the one that
// reached it first is evicted.

// SpaceSavingParams are the parameters of Space-Saving.
type SpaceSavingParams struct {
	// Counters is m, the number of keys monitored, 1..10,000,000. Every key
	// with a true count above N/m is among them.
	Counters int `param:"counters" doc:"monitored keys m, 1..10000000 (required); every key counted more than N/m times is monitored"`
}

const spaceSavingMaxCounters = 10_000_000 // so the index has ≤ 2^25 slots and a counter keeps 32 bits of hash

// Validate checks 1 ≤ counters ≤ 10,000,000.
func (p SpaceSavingParams) Validate() error {
	if p.Counters < 1 || p.Counters > spaceSavingMaxCounters {
		return paramErr("counters", "%d not in 1..%d", p.Counters, spaceSavingMaxCounters)
	}
	return nil
}

// SpaceSaving is the Space-Saving summary of m counters. It is a
// PointCounter (Count is an upper bound) and a TopK (Item.Err is the
// counter's error). Not safe for concurrent use.
type SpaceSaving struct {
	ss    streamSummary // counters (len grows to m; a counter keeps its id) in buckets by count
	index table[int32]  // key → counter id + 1 (fixed capacity m)
	m     int
	n     uint64
}

// NewSpaceSaving returns an empty summary of p.Counters counters; seed
// seeds the key index's hash (results do not depend on it).
func NewSpaceSaving(p SpaceSavingParams, seed uint64) (*SpaceSaving, error) {
	if err := p.Validate(); err != nil {
		return nil, typed("space-saving", err)
	}
	st := workload.SplitMix(seed ^ 0x7370616365736176)
	return &SpaceSaving{
		ss:    streamSummary{counters: make([]ssCounter, 0, p.Counters), buckets: make([]ssBucket, 0, p.Counters), head: -1, free: -1},
		index: newFixedTable[int32](p.Counters, st.Uint64()),
		m:     p.Counters,
	}, nil
}

// spaceSavingBytes is the memory of m counters: a counter (key, error, the
// low half of the key's hash, three links: 32 B), a bucket (count, three links: 24 B) and the key index, 12 B
// a slot of a power-of-two table ≥ 2m.
func spaceSavingBytes(m int) int64 {
	return int64(m)*int64(unsafe.Sizeof(ssCounter{})+unsafe.Sizeof(ssBucket{})) +
		int64(fixedTableLen(m))*tableSlotBytes[int32]()
}

// Counters returns m.
func (s *SpaceSaving) Counters() int { return s.m }

// N returns the sum of all deltas observed.
func (s *SpaceSaving) N() uint64 { return s.n }

// Bytes returns the memory of the counters, the buckets and the key index,
// measured from their arrays.
func (s *SpaceSaving) Bytes() int64 {
	return int64(cap(s.ss.counters))*int64(unsafe.Sizeof(ssCounter{})) +
		int64(cap(s.ss.buckets))*int64(unsafe.Sizeof(ssBucket{})) + s.index.bytes()
}

// Observe counts every write event's positive Delta; other events are
// ignored.
func (s *SpaceSaving) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op == workload.Write && e.Delta > 0 {
			s.add(e.Key, uint64(e.Delta))
		}
	}
}

// Add counts delta (> 0) for key: O(1) for a unit delta.
func (s *SpaceSaving) Add(key, delta uint64) {
	if delta != 0 {
		s.add(key, delta)
	}
}

// add is Add for delta > 0. The key is hashed once, and a key not
// monitored takes the index slot where its probe ended: the index is probed
// once an event.
func (s *SpaceSaving) add(key, delta uint64) {
	s.n += delta
	h := s.index.hash(key)
	slot, c := s.index.find(h, key)
	if c != 0 {
		s.ss.raise(c-1, delta)
		return
	}
	if len(s.ss.counters) < s.m {
		c := int32(len(s.ss.counters))
		s.ss.counters = append(s.ss.counters, ssCounter{key: key, hash: uint32(h), bucket: -1})
		*s.index.refAt(h, key) = c + 1
		s.ss.link(c, delta, -1, s.ss.head)
		return
	}
	// Evict the first counter of the smallest count; the new key inherits
	// it. The counter keeps its key's hash, so the index deletes the old
	// key without hashing it again.
	b := s.ss.head
	c = s.ss.buckets[b].first
	ct := &s.ss.counters[c]
	s.index.replace(slot, key, c+1, uint64(ct.hash), ct.key)
	ct.key, ct.hash, ct.err = key, uint32(h), s.ss.buckets[b].count
	s.ss.raise(c, delta)
}

// Min returns the smallest counter: 0 while fewer than m keys have been seen,
// and never more than N/m.
func (s *SpaceSaving) Min() uint64 {
	if len(s.ss.counters) < s.m {
		return 0
	}
	return s.ss.buckets[s.ss.head].count
}

// Count returns an upper bound of key's true count: its counter if the key
// is monitored, otherwise the smallest counter (Min), which no unmonitored
// key can exceed — 0 while the counters are not all taken, since then every
// key seen is monitored.
func (s *SpaceSaving) Count(key uint64) uint64 {
	if c := s.index.get(key); c != 0 {
		return s.ss.buckets[s.ss.counters[c-1].bucket].count
	}
	return s.Min()
}

// items returns every monitored key in answer order.
func (s *SpaceSaving) items() []Item {
	items := make([]Item, len(s.ss.counters))
	for i, c := range s.ss.counters {
		items[i] = Item{Key: c.key, Count: s.ss.buckets[c.bucket].count, Err: c.err}
	}
	sortItems(items)
	return items
}

// Top returns up to k monitored keys, count descending then key ascending.
// Err is each counter's error: the true count is in [Count − Err, Count].
// O(m log m).
func (s *SpaceSaving) Top(k int) []Item {
	items := s.items()
	return items[:min(max(k, 0), len(items))]
}

// Guaranteed reports whether Top(k) is certainly the set of the k heaviest
// keys (ties aside): each of the k first counts less its error is at least
// the (k+1)-th count, which bounds every key outside the answer (the paper's
// guaranteed top-k test). O(m log m).
func (s *SpaceSaving) Guaranteed(k int) bool {
	items := s.items()
	if k <= 0 || k > len(items) {
		return false
	}
	next := s.Min() // bounds the true count of every unmonitored key
	if k < len(items) {
		next = items[k].Count
	}
	for _, it := range items[:k] {
		if it.Count-it.Err < next {
			return false
		}
	}
	return true
}

// check validates the stream-summary: buckets in strictly increasing count
// order with consistent links, each a non-empty consistent ring of counters
// that name it; every counter in exactly one bucket; free and live buckets
// accounting for all; the index mapping exactly the monitored keys, each
// counter keeping its key's hash; and Σ counts = N, 0 ≤ err < count, err ≤ the minimum counter (an error is a
// past minimum and the minimum never decreases).
func (s *SpaceSaving) check() error {
	seen := make([]bool, len(s.ss.counters))
	live, prev := 0, int32(-1)
	var sum uint64
	minC := s.Min()
	for b := s.ss.head; b >= 0; prev, b = b, s.ss.buckets[b].next {
		bk := &s.ss.buckets[b]
		if live++; live > len(s.ss.buckets) {
			return fmt.Errorf("space-saving: bucket list has a cycle")
		}
		if bk.prev != prev || prev >= 0 && s.ss.buckets[prev].count >= bk.count {
			return fmt.Errorf("space-saving: bucket %d (count %d) badly linked after %d", b, bk.count, prev)
		}
		if bk.first < 0 {
			return fmt.Errorf("space-saving: bucket %d (count %d) is empty", b, bk.count)
		}
		c := bk.first
		for {
			ct := &s.ss.counters[c]
			if seen[c] || ct.bucket != b || s.ss.counters[ct.next].prev != c {
				return fmt.Errorf("space-saving: counter %d badly linked in bucket %d", c, b)
			}
			seen[c] = true
			sum += bk.count
			if ct.err >= bk.count || ct.err > minC {
				return fmt.Errorf("space-saving: key %d has count %d and error %d (minimum %d)", ct.key, bk.count, ct.err, minC)
			}
			if i := s.index.get(ct.key); i != c+1 {
				return fmt.Errorf("space-saving: index gives key %d counter %d (-1: absent), want %d", ct.key, i-1, c)
			}
			if h := uint32(s.index.hash(ct.key)); ct.hash != h {
				return fmt.Errorf("space-saving: counter %d keeps the hash %#x of key %d, want %#x", c, ct.hash, ct.key, h)
			}
			if c = ct.next; c == bk.first {
				break
			}
		}
	}
	if sum != s.n {
		return fmt.Errorf("space-saving: counters sum to %d, want N = %d", sum, s.n)
	}
	for c, ok := range seen {
		if !ok {
			return fmt.Errorf("space-saving: counter %d in no bucket", c)
		}
	}
	nfree := 0
	for b := s.ss.free; b >= 0; b = s.ss.buckets[b].next {
		if nfree++; nfree > len(s.ss.buckets) {
			return fmt.Errorf("space-saving: free list has a cycle")
		}
	}
	if live+nfree != len(s.ss.buckets) || s.index.len() != len(s.ss.counters) {
		return fmt.Errorf("space-saving: %d live and %d free of %d buckets; %d keys indexed for %d counters",
			live, nfree, len(s.ss.buckets), s.index.len(), len(s.ss.counters))
	}
	if err := s.index.check(); err != nil {
		return fmt.Errorf("space-saving: index: %w", err)
	}
	return nil
}

func init() {
	define("space-saving", "Space-Saving (Metwally et al.): m counters, every key above N/m monitored, count − err ≤ true ≤ count",
		func() *SpaceSavingParams { return &SpaceSavingParams{} },
		func(p *SpaceSavingParams, env Env) (Strategy, error) {
			s, err := NewSpaceSaving(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		spaceSavingPlan, answers(FamilyPointCounter, FamilyTopK), errs(ErrsOver), promises(PromiseAbove))
}

// spaceSavingPlan: memory, and the threshold N/m above which a key is
// guaranteed to be monitored, at both scales.
func spaceSavingPlan(p *SpaceSavingParams, env Env) []PlanLine {
	m := float64(p.Counters)
	lines := []PlanLine{
		{Metric: MetricUndercounts, Value: 0, Unit: "keys", Note: "Count is an upper bound: a monitored count, or the smallest counter"},
		{Metric: MetricCounters, Value: m, Unit: "counters", Note: "m"},
		{Metric: MetricBytes, Value: float64(spaceSavingBytes(p.Counters)), Unit: "B",
			Note: "m·(32 B counter + 24 B bucket) + key index of 12 B × the power of two ≥ 2m"},
	}
	const note = "N/m: a key counted more often is always monitored"
	if env.Events > 0 {
		lines = append(lines, PlanLine{Metric: MetricGuaranteeAbove, Value: tidy(float64(env.Events) / m), Unit: "events", Note: note})
	}
	if env.Full.Events > 0 {
		lines = append(lines, PlanLine{Metric: MetricGuaranteeAbove, Value: tidy(env.Full.Events / m), Unit: "events", Full: true, Note: note})
	}
	return lines
}
