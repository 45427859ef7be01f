package frequency

import (
	"fmt"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Misra-Gries: J. Misra and D. Gries, "Finding repeated elements", Science
// of Computer Programming 2(2), 1982 (the "Frequent" algorithm).
//
// k counters, each holding one key and a count. A write to a key held adds
// its delta to the key's count; a key not held takes a free counter with
// its delta. When all k counters are taken, the new key and every one of
// the k counters lose the same amount, δ = min(delta, the smallest count)
// (the weighted form of "decrement all k counters and the new key by one",
// as in Berinde et al., "Space-optimal heavy hitters with strong error
// bounds", TODS 2010): counters that reach 0 are freed, and if the new key
// has delta − δ > 0 left it takes one of them (δ < delta means the smallest
// counter reached 0). Every such step removes exactly (k+1)·δ from the
// stream's total N; with D the sum of all δ so far,
//
//	N = Σ counts + (k+1)·D,         so D ≤ N/(k+1),
//	count ≤ true ≤ count + D        for every key (count 0: not held),
//	true > N/(k+1) ⇒ held            a key heavier than N/(k+1) keeps a counter.
//
// A key loses at most δ in each step (from its counter, from its own
// delta, or what its counter held when it reached 0), hence true − count ≤
// D; the bound every Item carries as Err is D itself, which is known
// exactly and is at most N/(k+1).
//
// Decrementing k counters is O(k); here it is O(1) amortised. Counts are
// kept relative to a global offset, the D so far: a counter stores level =
// count + D at the time, so "every count loses δ" is D += δ, and the
// counters whose level is now ≤ D are the ones at 0. The levels live in the
// stream-summary of Metwally et al. (as Space-Saving's counters do,
// spacesaving.go): a list of buckets in increasing level order, each the
// ring of the counters of one level, int32 links in arrays. A unit increment
// moves a counter to the next bucket or renames its bucket, O(1); a delta
// d > 1 walks past at most min(d, buckets) buckets; the counters reaching 0
// are the first buckets of the list, each freed once after it was taken, so
// freeing is O(1) amortised per event. (A binary min-heap of the levels
// with the same offset is the floor of the benchmark,
// misragries_bench_test.go; it pays O(log k) an increment.)

// MisraGriesParams are the parameters of Misra-Gries.
type MisraGriesParams struct {
	// Counters is k, 1..16,777,216. Every key with a true count above
	// N/(k+1) holds one.
	Counters int `key:"counters" range:"1..16777216" required:"true" doc:"counters k; every key counted more than N/(k+1) times holds one, and no count is more than N/(k+1) low"`
}

const misraGriesMaxCounters = 1 << 24 // the index then has ≤ 2^25 slots: a counter keeps 32 bits of hash

// MisraGries is the Misra-Gries summary of k counters. It is a PointCounter
// (Count is a lower bound, 0 for a key not held) and a TopK (Item.Err is the
// total decrement D). Not safe for concurrent use.
type MisraGries struct {
	// The counters (len grows to k; a freed counter is reused) in buckets
	// by level, a bucket's count being its counters' level: count + D.
	ss     ds.StreamSummary
	freeC  int32           // first free counter (linked through next), or -1
	index  ds.Table[int32] // key → counter id + 1 (fixed capacity k)
	k      int
	held   int    // counters holding a key
	offset uint64 // D: the total decrement so far
	n      uint64
}

// NewMisraGries returns an empty summary of p.Counters counters; seed seeds
// the key index's hash (results do not depend on it).
func NewMisraGries(p MisraGriesParams, seed uint64) (*MisraGries, error) {
	if err := strategies.ValidateWith("misra-gries", &p); err != nil {
		return nil, err
	}
	st := workload.SplitMix(seed ^ 0x6d69737261677269)
	return &MisraGries{
		ss:    ds.StreamSummary{Counters: make([]ds.SSCounter, 0, p.Counters), Buckets: make([]ds.SSBucket, 0, p.Counters), Head: -1, Free: -1},
		freeC: -1,
		index: ds.NewFixedTable[int32](p.Counters, st.Uint64()),
		k:     p.Counters,
	}, nil
}

// misraGriesBytes is the memory of k counters: a counter of the shared
// Stream-Summary (key, Space-Saving's error, unused here, the low half of
// its hash, three links: 32 B), a bucket (level, three links: 24 B) and the
// key index, 12 B a slot of a power-of-two table ≥ 2k.
func misraGriesBytes(k int) int64 {
	return int64(k)*int64(unsafe.Sizeof(ds.SSCounter{})+unsafe.Sizeof(ds.SSBucket{})) +
		int64(ds.FixedTableLen(k))*ds.TableSlotBytes[int32]()
}

// Bytes returns the memory of the counters, the buckets and the key index,
// measured from their arrays.
func (s *MisraGries) Bytes() int64 {
	return int64(cap(s.ss.Counters))*int64(unsafe.Sizeof(ds.SSCounter{})) +
		int64(cap(s.ss.Buckets))*int64(unsafe.Sizeof(ds.SSBucket{})) + s.index.Bytes()
}

// Observe counts every write event's positive Delta; other events are
// ignored.
func (s *MisraGries) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op == workload.Write && e.Delta > 0 {
			s.add(e.Key, uint64(e.Delta))
		}
	}
}

// add counts delta > 0 for key: O(1) amortised for a unit delta.
func (s *MisraGries) add(key, delta uint64) {
	s.n += delta
	h := s.index.Hash(key)
	if c := s.index.GetAt(h, key); c != 0 {
		s.ss.Raise(c-1, delta)
		return
	}
	if s.held == s.k {
		// Every count and the new key lose δ = min(delta, smallest count):
		// the counters at level ≤ D + δ reach 0 and are freed.
		dec := min(delta, s.ss.Buckets[s.ss.Head].Count-s.offset)
		s.offset += dec
		for s.ss.Head >= 0 && s.ss.Buckets[s.ss.Head].Count <= s.offset {
			s.drop(s.ss.Head)
		}
		if delta -= dec; delta == 0 {
			return
		}
	}
	c := s.freeC
	if c >= 0 {
		s.freeC = s.ss.Counters[c].Next
		s.ss.Counters[c] = ds.SSCounter{Key: key, Hash: uint32(h), Bucket: -1}
	} else {
		c = int32(len(s.ss.Counters))
		s.ss.Counters = append(s.ss.Counters, ds.SSCounter{Key: key, Hash: uint32(h), Bucket: -1}) // within capacity: held < k
	}
	*s.index.RefAt(h, key) = c + 1
	s.held++
	s.ss.Link(c, s.offset+delta, -1, s.ss.Head)
}

// drop frees bucket b, the lowest, and every counter in it: their counts
// are 0.
func (s *MisraGries) drop(b int32) {
	c := s.ss.Buckets[b].First
	for {
		ct := &s.ss.Counters[c]
		next := ct.Next
		s.index.DelAt(uint64(ct.Hash), ct.Key)
		ct.Bucket, ct.Next = -1, s.freeC
		s.freeC = c
		s.held--
		if next == s.ss.Buckets[b].First {
			break
		}
		c = next
	}
	s.ss.Buckets[b].First = -1
	s.ss.FreeBucket(b)
}

// Count returns a lower bound of key's true count, at most D below it: its
// counter's count if the key holds one, otherwise 0.
func (s *MisraGries) Count(key uint64) uint64 {
	if c := s.index.Get(key); c != 0 {
		return s.ss.Buckets[s.ss.Counters[c-1].Bucket].Count - s.offset
	}
	return 0
}

// Top returns up to k of the keys held, count descending then key
// ascending. Err is D for every item: the true count is in [Count, Count +
// Err]. Every key counted more than N/(k+1) times is held, so Top(k) for k
// ≥ the summary's k lists them all. O(k log k).
func (s *MisraGries) Top(k int) []strategies.Item {
	items := make([]strategies.Item, 0, s.held)
	for b := s.ss.Head; b >= 0; b = s.ss.Buckets[b].Next {
		bk := &s.ss.Buckets[b]
		for c := bk.First; ; {
			items = append(items, strategies.Item{Key: s.ss.Counters[c].Key, Count: bk.Count - s.offset, Err: s.offset})
			if c = s.ss.Counters[c].Next; c == bk.First {
				break
			}
		}
	}
	ds.SortItems(items)
	return items[:min(max(k, 0), len(items))]
}

// check validates the summary: buckets in strictly increasing level order,
// every level above D, consistent links, each a non-empty ring of counters
// that name it; every counter either in exactly one bucket or on the free
// list; the index mapping exactly the keys held, each counter keeping its
// key's hash; and N = Σ counts + (k+1)·D, which gives D ≤ N/(k+1).
func (s *MisraGries) check() error {
	state := make([]int8, len(s.ss.Counters)) // 1: in a bucket, 2: free
	live, prev := 0, int32(-1)
	var sum uint64
	for b := s.ss.Head; b >= 0; prev, b = b, s.ss.Buckets[b].Next {
		bk := &s.ss.Buckets[b]
		if live++; live > len(s.ss.Buckets) {
			return fmt.Errorf("misra-gries: bucket list has a cycle")
		}
		if bk.Prev != prev || prev >= 0 && s.ss.Buckets[prev].Count >= bk.Count {
			return fmt.Errorf("misra-gries: bucket %d (level %d) badly linked after %d", b, bk.Count, prev)
		}
		if bk.Count <= s.offset || bk.First < 0 {
			return fmt.Errorf("misra-gries: bucket %d has level %d (D = %d) and first counter %d", b, bk.Count, s.offset, bk.First)
		}
		for c := bk.First; ; {
			ct := &s.ss.Counters[c]
			if state[c] != 0 || ct.Bucket != b || s.ss.Counters[ct.Next].Prev != c {
				return fmt.Errorf("misra-gries: counter %d badly linked in bucket %d", c, b)
			}
			state[c] = 1
			sum += bk.Count - s.offset
			if i := s.index.Get(ct.Key); i != c+1 {
				return fmt.Errorf("misra-gries: index gives key %d counter %d (-1: absent), want %d", ct.Key, i-1, c)
			}
			if h := uint32(s.index.Hash(ct.Key)); ct.Hash != h {
				return fmt.Errorf("misra-gries: counter %d keeps the hash %#x of key %d, want %#x", c, ct.Hash, ct.Key, h)
			}
			if c = ct.Next; c == bk.First {
				break
			}
		}
	}
	held := 0
	for _, st := range state {
		if st == 1 {
			held++
		}
	}
	nfree := 0
	for c := s.freeC; c >= 0; c = s.ss.Counters[c].Next {
		if state[c] != 0 || s.ss.Counters[c].Bucket != -1 {
			return fmt.Errorf("misra-gries: free counter %d is also in bucket %d", c, s.ss.Counters[c].Bucket)
		}
		state[c] = 2
		nfree++
	}
	if held != s.held || held+nfree != len(s.ss.Counters) || s.held > s.k || s.index.Len() != s.held {
		return fmt.Errorf("misra-gries: %d counters held (says %d), %d free, %d made, %d indexed, k = %d",
			held, s.held, nfree, len(s.ss.Counters), s.index.Len(), s.k)
	}
	nb := 0
	for b := s.ss.Free; b >= 0; b = s.ss.Buckets[b].Next {
		if nb++; nb > len(s.ss.Buckets) {
			return fmt.Errorf("misra-gries: free bucket list has a cycle")
		}
	}
	if live+nb != len(s.ss.Buckets) {
		return fmt.Errorf("misra-gries: %d live and %d free of %d buckets", live, nb, len(s.ss.Buckets))
	}
	if want := sum + uint64(s.k+1)*s.offset; want != s.n {
		return fmt.Errorf("misra-gries: Σ counts %d + (k+1)·D %d = %d, want N = %d", sum, uint64(s.k+1)*s.offset, want, s.n)
	}
	if err := s.index.Check(); err != nil {
		return fmt.Errorf("misra-gries: index: %w", err)
	}
	return nil
}

func init() {
	strategies.Define("misra-gries", "Misra-Gries (Misra & Gries 1982): k counters, every key above N/(k+1) held, count ≤ true ≤ count + N/(k+1)",
		func(p *MisraGriesParams, env strategies.Env) (strategies.Strategy, error) {
			s, err := NewMisraGries(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		misraGriesPlan, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyTopK), strategies.Errs(strategies.ErrsUnder), strategies.Promises(strategies.PromiseAbove))
}

// misraGriesPlan: memory, and N/(k+1), both the most a count is low and the
// threshold above which a key is guaranteed to be held, at both scales.
func misraGriesPlan(p *MisraGriesParams, env strategies.Env) []strategies.PlanLine {
	k := float64(p.Counters)
	lines := []strategies.PlanLine{
		{Metric: metrics.Counters, Value: k, Unit: "counters", Note: "k"},
		{Metric: metrics.Bytes, Value: float64(misraGriesBytes(p.Counters)), Unit: "B",
			Note: "k·(32 B counter + 24 B bucket) + key index of 12 B × the power of two ≥ 2k"},
	}
	add := func(n float64, full bool) {
		t := strategies.Tidy(n / (k + 1))
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.GuaranteeAbove, Value: t, Unit: "events", Full: full, Note: "N/(k+1): a key counted more often always holds a counter"},
			strategies.PlanLine{Metric: metrics.MinThreshold, Value: t, Unit: "events", Full: full, Note: "N/(k+1): the most any count is below the truth"})
	}
	if env.Events > 0 {
		add(float64(env.Events), false)
	}
	if env.Full.Events > 0 {
		add(env.Full.Events, true)
	}
	return lines
}
