package frequency

import (
	"fmt"
	"math/bits"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
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
	Counters int `key:"counters" range:"1..10000000" required:"true" doc:"monitored keys m; every key counted more than N/m times is monitored"`
}

const SpaceSavingMaxCounters = 10_000_000 // so the index has ≤ 2^25 slots and a counter keeps 32 bits of hash

// SpaceSaving is the Space-Saving summary of m counters. It is a
// PointCounter (Count is an upper bound) and a TopK (Item.Err is the
// counter's error). Not safe for concurrent use.
type SpaceSaving struct {
	ss    ds.StreamSummary // counters (len grows to m; a counter keeps its id) in buckets by count
	index ds.HashIndex     // key (its hash) → counter id + 1 (fixed capacity m)
	m     int
	n     uint64
}

// NewSpaceSaving returns an empty summary of p.Counters counters; seed
// seeds the key index's hash (results do not depend on it).
func NewSpaceSaving(p SpaceSavingParams, seed uint64) (*SpaceSaving, error) {
	if err := strategies.ValidateWith("space-saving", &p); err != nil {
		return nil, err
	}
	st := workload.SplitMix(seed ^ 0x7370616365736176)
	return &SpaceSaving{
		ss:    ds.StreamSummary{Counters: make([]ds.SSCounter, 0, p.Counters), Buckets: make([]ds.SSBucket, 0, p.Counters), Head: -1, Free: -1},
		index: ds.NewHashIndex(p.Counters, st.Uint64()),
		m:     p.Counters,
	}, nil
}

// spaceSavingBytes is the memory of m counters: a counter (key, error, the
// low half of the key's hash, three links: 32 B), a bucket (count, three links: 24 B) and the key index, 12 B
// a slot of a power-of-two table ≥ 2m.
func spaceSavingBytes(m int) int64 {
	return int64(m)*int64(unsafe.Sizeof(ds.SSCounter{})+unsafe.Sizeof(ds.SSBucket{})) +
		int64(ds.FixedTableLen(m))*ds.TableSlotBytes[int32]()
}

// Bytes returns the memory of the counters, the buckets and the key index,
// measured from their arrays.
func (s *SpaceSaving) Bytes() int64 {
	return int64(cap(s.ss.Counters))*int64(unsafe.Sizeof(ds.SSCounter{})) +
		int64(cap(s.ss.Buckets))*int64(unsafe.Sizeof(ds.SSBucket{})) + s.index.Bytes()
}

// Observe counts every write event's positive Delta; other events are
// ignored. Until the m counters are all taken each event goes through add;
// from then on through observeFull, the same steps written out in one loop.
func (s *SpaceSaving) Observe(batch []workload.Event) {
	for len(s.ss.Counters) < s.m {
		if len(batch) == 0 {
			return
		}
		if e := &batch[0]; e.Op == workload.Write && e.Delta > 0 {
			s.add(e.Key, s.index.Hash(e.Key), uint64(e.Delta))
		}
		batch = batch[1:]
	}
	s.observeFull(batch)
}

// add counts delta > 0 for key, whose hash is h, while the counters are not
// all taken: a key monitored has its counter raised, any other takes the
// next counter and the index slot where its probe ended.
func (s *SpaceSaving) add(key, h, delta uint64) {
	s.n += delta
	slot, c := s.index.Find(h)
	if c != 0 {
		s.ss.Raise(c-1, delta)
		return
	}
	c = int32(len(s.ss.Counters))
	s.ss.Counters = append(s.ss.Counters, ds.SSCounter{Key: key, Hash: uint32(h), Bucket: -1})
	s.index.Insert(slot, h, c+1)
	s.ss.Link(c, delta, -1, s.ss.Head)
}

// observeFull counts the events once the counters are all taken: a key
// monitored has its counter raised; any other takes the first counter of
// the smallest count, min, its error min, and the index slot where its
// probe ended, and the index drops the key it had (found from the hash the
// counter keeps, not hashed again); then the counter is raised by the
// delta. The summary's arrays and the index's are in locals and the
// commonest moves are written out.
//
// On the full day's stream (search-full-day.yaml: 1,000 counters, Zipf
// s = 1 over 400 M phrases) 27.5% of the events find their key monitored
// and 72.5% evict the first counter of the smallest count, min, which then
// counts min + 1. Either way a unit delta nearly always moves the counter,
// not alone in its bucket, to the next bucket, of count + 1 (the Raise of
// the stream-summary: out of its ring, onto the end of the next's), or,
// alone, renames its bucket; those two are written out here, and every
// other move (a bucket to make or to free, a delta that passes buckets) is
// Raise's. Everything fits in the caches (80 KB at m = 1,000), so an
// event's cost is its instructions and its mispredicted branches: whether
// the key is monitored is one, unpredictable on such a stream; the probe
// tests its first slots without a branch, the counter to evict is read
// before that branch is decided, and the index's replace, whose loops
// branch on the runs' lengths, comes after the raise.
//
// Measured (BenchmarkSpaceSavingDay, CPU an event, on a busy 2-core
// machine, 10 rounds of concurrent pairs, benchstat): 63.4 ns ± 13% with
// add alone and the index of keys (ds.Table, e32e83e), 50.9 ± 19% here
// (−20%, p = 0.000; the least of each 54.7 and 40.4); the floor (a map and
// a heap) 190. TestSpaceSavingMatchesReference holds the summary to the bit
// against the former.
func (s *SpaceSaving) observeFull(batch []workload.Event) {
	ss := &s.ss
	cs, bs := ss.Counters, ss.Buckets
	ids, seed := s.index.IDs, s.index.Seed
	mask := uint64(len(ids) - 1) // = the index's Mask; so written, a probe needs no bounds check
	hs := s.index.Hashes[:len(ids)]
	_ = ids[mask]
	n, head := s.n, ss.Head
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		d := uint64(e.Delta)
		n += d
		// The counter an unmonitored key would take is read before the
		// probe says whether it will: most events take it, and the
		// loads then overlap with the probe's instead of following the
		// branch, which is mispredicted on about one event in three.
		victim := bs[head].First
		vct := &cs[victim]
		h := workload.Mix64(e.Key ^ seed)
		// The probe: the first 4 slots from the home at once, without a
		// branch, to the first that ends it (empty, or holding h); the
		// loop goes on only if all 4 hold other keys. A probe's length
		// is random (about 2.5 slots for a key not held at load 1/2),
		// and a loop's test, one a slot, was mispredicted about once a
		// probe.
		j := h & mask
		j1, j2, j3 := (j+1)&mask, (j+2)&mask, (j+3)&mask
		stop := 1<<4 | b2u(ids[j] == 0) | b2u(hs[j] == h) |
			(b2u(ids[j1] == 0)|b2u(hs[j1] == h))<<1 |
			(b2u(ids[j2] == 0)|b2u(hs[j2] == h))<<2 |
			(b2u(ids[j3] == 0)|b2u(hs[j3] == h))<<3
		j = (j + uint64(bits.TrailingZeros64(stop))) & mask
		v := ids[j]
		for v != 0 && hs[j] != h {
			j = (j + 1) & mask
			v = ids[j]
		}
		c, old := victim, uint64(0)
		if v != 0 {
			c = v - 1
		} else {
			// The new key takes the first counter of the smallest count;
			// the index replaces the old key below, after the raise, so
			// that the raise's work is done before the index's branches,
			// and not lost when the CPU backs out of a mispredicted one.
			old = uint64(vct.Hash)
			vct.Key, vct.Hash, vct.Err = e.Key, uint32(h), bs[head].Count
		}
		ct := &cs[c]
		b := ct.Bucket
		bk := &bs[b]
		nv := bk.Count + d
		at := bk.Next
		switch {
		case ct.Next == c && (at < 0 || bs[at].Count > nv):
			bk.Count = nv // Raise's rename: alone, and no bucket in the way
		case ct.Next != c && at >= 0 && bs[at].Count == nv:
			// Raise's move from a ring of several into the next
			// bucket's, of count nv: unlink, then Link at the ring's end.
			prev, next := ct.Prev, ct.Next
			cs[prev].Next = next
			cs[next].Prev = prev
			if bk.First == c {
				bk.First = next
			}
			first := bs[at].First
			fc := &cs[first]
			last := fc.Prev
			ct.Bucket, ct.Prev, ct.Next = at, last, first
			cs[last].Next = c
			fc.Prev = c
		default:
			ss.Raise(c, d)
			bs, head = ss.Buckets, ss.Head // Raise may have made a bucket or freed the head
		}
		if v == 0 {
			s.index.Replace(j, h, c+1, old)
		}
	}
	s.n = n
}

// Min returns the smallest counter: 0 while fewer than m keys have been seen,
// and never more than N/m.
func (s *SpaceSaving) Min() uint64 {
	if len(s.ss.Counters) < s.m {
		return 0
	}
	return s.ss.Buckets[s.ss.Head].Count
}

// Count returns an upper bound of key's true count: its counter if the key
// is monitored, otherwise the smallest counter (Min), which no unmonitored
// key can exceed — 0 while the counters are not all taken, since then every
// key seen is monitored.
func (s *SpaceSaving) Count(key uint64) uint64 {
	if c := s.index.Get(key); c != 0 {
		return s.ss.Buckets[s.ss.Counters[c-1].Bucket].Count
	}
	return s.Min()
}

// items returns every monitored key in answer order.
func (s *SpaceSaving) items() []strategies.Item {
	items := make([]strategies.Item, len(s.ss.Counters))
	for i, c := range s.ss.Counters {
		items[i] = strategies.Item{Key: c.Key, Count: s.ss.Buckets[c.Bucket].Count, Err: c.Err}
	}
	ds.SortItems(items)
	return items
}

// Top returns up to k monitored keys, count descending then key ascending.
// Err is each counter's error: the true count is in [Count − Err, Count].
// O(m log m).
func (s *SpaceSaving) Top(k int) []strategies.Item {
	items := s.items()
	return items[:min(max(k, 0), len(items))]
}

// guaranteed reports whether Top(k) is certainly the set of the k heaviest
// keys (ties aside): each of the k first counts less its error is at least
// the (k+1)-th count, which bounds every key outside the answer (the paper's
// guaranteed top-k test). O(m log m).
func (s *SpaceSaving) guaranteed(k int) bool {
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
	seen := make([]bool, len(s.ss.Counters))
	live, prev := 0, int32(-1)
	var sum uint64
	minC := s.Min()
	for b := s.ss.Head; b >= 0; prev, b = b, s.ss.Buckets[b].Next {
		bk := &s.ss.Buckets[b]
		if live++; live > len(s.ss.Buckets) {
			return fmt.Errorf("space-saving: bucket list has a cycle")
		}
		if bk.Prev != prev || prev >= 0 && s.ss.Buckets[prev].Count >= bk.Count {
			return fmt.Errorf("space-saving: bucket %d (count %d) badly linked after %d", b, bk.Count, prev)
		}
		if bk.First < 0 {
			return fmt.Errorf("space-saving: bucket %d (count %d) is empty", b, bk.Count)
		}
		c := bk.First
		for {
			ct := &s.ss.Counters[c]
			if seen[c] || ct.Bucket != b || s.ss.Counters[ct.Next].Prev != c {
				return fmt.Errorf("space-saving: counter %d badly linked in bucket %d", c, b)
			}
			seen[c] = true
			sum += bk.Count
			if ct.Err >= bk.Count || ct.Err > minC {
				return fmt.Errorf("space-saving: key %d has count %d and error %d (minimum %d)", ct.Key, bk.Count, ct.Err, minC)
			}
			if i := s.index.Get(ct.Key); i != c+1 {
				return fmt.Errorf("space-saving: index gives key %d counter %d (-1: absent), want %d", ct.Key, i-1, c)
			}
			if h := uint32(s.index.Hash(ct.Key)); ct.Hash != h {
				return fmt.Errorf("space-saving: counter %d keeps the hash %#x of key %d, want %#x", c, ct.Hash, ct.Key, h)
			}
			if c = ct.Next; c == bk.First {
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
	for b := s.ss.Free; b >= 0; b = s.ss.Buckets[b].Next {
		if nfree++; nfree > len(s.ss.Buckets) {
			return fmt.Errorf("space-saving: free list has a cycle")
		}
	}
	if live+nfree != len(s.ss.Buckets) || s.index.Len() != len(s.ss.Counters) {
		return fmt.Errorf("space-saving: %d live and %d free of %d buckets; %d keys indexed for %d counters",
			live, nfree, len(s.ss.Buckets), s.index.Len(), len(s.ss.Counters))
	}
	if err := s.index.Check(); err != nil {
		return fmt.Errorf("space-saving: index: %w", err)
	}
	return nil
}

func init() {
	strategies.Define("space-saving", "Space-Saving (Metwally et al.): m counters, every key above N/m monitored, count − err ≤ true ≤ count",
		func(p *SpaceSavingParams, env strategies.Env) (strategies.Strategy, error) {
			s, err := NewSpaceSaving(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		spaceSavingPlan, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyTopK), strategies.Errs(strategies.ErrsOver), strategies.Promises(strategies.PromiseAbove))
}

// spaceSavingPlan: memory, and the threshold N/m above which a key is
// guaranteed to be monitored, at both scales.
func spaceSavingPlan(p *SpaceSavingParams, env strategies.Env) []strategies.PlanLine {
	m := float64(p.Counters)
	lines := []strategies.PlanLine{
		{Metric: metrics.Undercounts, Value: 0, Unit: "keys", Note: "Count is an upper bound: a monitored count, or the smallest counter"},
		{Metric: metrics.Counters, Value: m, Unit: "counters", Note: "m"},
		{Metric: metrics.Bytes, Value: float64(spaceSavingBytes(p.Counters)), Unit: "B",
			Note: "m·(32 B counter + 24 B bucket) + key index of 12 B × the power of two ≥ 2m"},
	}
	const note = "N/m: a key counted more often is always monitored"
	if env.Events > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.GuaranteeAbove, Value: strategies.Tidy(float64(env.Events) / m), Unit: "events", Note: note})
	}
	if env.Full.Events > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.GuaranteeAbove, Value: strategies.Tidy(env.Full.Events / m), Unit: "events", Full: true, Note: note})
	}
	return lines
}

// b2u is 1 for true and 0 for false: a SETcc, no branch.
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
