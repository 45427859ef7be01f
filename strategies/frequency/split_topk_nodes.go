package frequency

import (
	"fmt"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The nodes of a split stream, shared by split-topk and threshold-topk
// (issue 11): the events of one key are spread over S nodes by something
// other than the key (the user, the region, the app server), and each node
// keeps the exact counts of the events it received in a CountTable of its
// own (slottable.go). An event's node is its Actor; a design of S nodes folds
// a stream split over more onto its own, Actor mod S. What the two designs
// differ in is what the nodes send a coordinator to answer a top-K query.

// splitNodeBytes is the bytes one item takes on the wire from a node to the
// coordinator: a key and a count, 8 B each.
const splitNodeBytes = 16

// splitMaxNodes bounds S: a node is a region or an app server, not an event.
const splitMaxNodes = 4096

// splitNodes is S exact count tables, one a node, hashing with one seed.
// Not safe for concurrent use.
type splitNodes struct {
	tables []ds.CountTable
	seed   uint64
	n      uint64 // the sum of all deltas counted
}

// splitNodeKeys is the keys one of S nodes is sized for when the stream
// holds about keys keys over events events: a node sees at most the keys of
// its events, and at most all keys (a split by actor gives every node a
// share of the events of every key, so the share of the keys, keys/S, would
// be too small). 0 events (unknown) takes all keys. The tables grow past it.
func splitNodeKeys(keys uint64, events int64, nodes int) uint64 {
	if nodes < 1 {
		return keys
	}
	if events > 0 {
		return min(keys, (uint64(events)+uint64(nodes)-1)/uint64(nodes))
	}
	return keys
}

// splitNodesBytes is the memory of S nodes sized for keys keys over events
// events, as bytes measures them before any table grows: the S tables of
// 16 B slots, and their headers.
func splitNodesBytes(keys uint64, events int64, nodes int) int64 {
	slots := int64(ds.TableLen(splitNodeKeys(keys, events, nodes)))
	return int64(nodes) * (slots*ds.ExactSlotBytes + int64(unsafe.Sizeof(ds.CountTable{})))
}

// splitNodesPlan is the bytes plan line of S nodes (split-topk's and
// threshold-topk's).
func splitNodesPlan(env strategies.Env, nodes int) strategies.PlanLine {
	return strategies.PlanLine{Metric: metrics.Bytes, Value: float64(splitNodesBytes(env.Keys, env.Events, nodes)), Unit: "B",
		Note: "S tables of 16 B × the power of two ≥ 4/3 of a node's keys (at most all the keys, at most events/S)"}
}

// newSplitNodes returns nodes empty tables, each sized for about nodeKeys
// keys; seed seeds the hash of their slots.
func newSplitNodes(nodes int, nodeKeys, seed uint64) splitNodes {
	st := workload.SplitMix(seed ^ 0x73706c69746e6f64) // "splitnod"
	s := splitNodes{tables: make([]ds.CountTable, nodes), seed: st.Uint64()}
	size := ds.TableLen(nodeKeys)
	for i := range s.tables {
		s.tables[i].Init(size, s.seed)
		prefault(s.tables[i].Slots)
	}
	return s
}

// prefault writes one slot of every 4 KB page of slots, in order, with
// what it holds (an empty slot). A node's table is sized for all its share
// of the keys and its pages are touched at random as keys come; a page
// first read (a probe) and then written (an insert) costs the kernel two
// faults, the shared zero page and then the copy, where a page first
// written costs one. In run search-split (24 tables of 16 MB) it took
// 300,000 faults (of 600,000) and 1 s of system time off. Exact's shards
// take it too.
func prefault(slots []ds.CountSlot) {
	const perPage = 4096 / int(unsafe.Sizeof(ds.CountSlot{}))
	for j := 0; j < len(slots); j += perPage {
		slots[j] = ds.CountSlot{}
	}
}

// observe counts every write event's positive Delta on the node of its
// Actor (mod S); other events are ignored. It is CountTable.Add written out
// over the batch, as Exact.Observe is: one hash an event, no call, no
// allocation unless a node's table has to double.
//
// A node's table is large and mostly empty (sized for every key of its
// share of the events), so each event's probe is a cache miss; taken one
// after the other they queue. The batch goes in runs of splitAhead events:
// the first pass hashes each and prefetches its home slot (ds.Prefetch),
// misses the core takes side by side, the second counts them from the
// cache. The counts
// are those of one pass.
func (s *splitNodes) observe(batch []workload.Event) {
	var n uint64
	tables, seed := s.tables, s.seed
	nodes := uint64(len(tables))
	var hs [splitAhead]uint64
	for len(batch) > 0 {
		run := batch[:min(len(batch), splitAhead)]
		batch = batch[len(run):]
		for i := range run {
			e := &run[i]
			a := e.Actor
			if a >= nodes {
				a %= nodes
			}
			h := workload.Mix64(e.Key ^ seed)
			hs[i] = h
			tables[a].Prefetch(h)
		}
		for i := range run {
			e := &run[i]
			if e.Op != workload.Write || e.Delta <= 0 {
				continue
			}
			d := uint64(e.Delta)
			n += d
			a := e.Actor
			if a >= nodes { // a stream split over more nodes than the design's
				a %= nodes
			}
			t := &tables[a]
			h := hs[i]
			slots, mask := t.Slots, t.Mask
			for j := h & mask; ; j = (j + 1) & mask {
				sl := &slots[j]
				if sl.Count == 0 {
					t.Insert(sl, h, e.Key, d)
					break
				}
				if sl.Key == e.Key {
					sl.Count += d
					break
				}
			}
		}
	}
	s.n += n
}

// splitAhead is the events whose home slots observe prefetches before it
// counts them.
const splitAhead = 32

// count returns key's count on node i.
func (s *splitNodes) count(i int, key uint64) uint64 {
	return s.tables[i].GetAt(workload.Mix64(key^s.seed), key)
}

// localTop returns node i's k heaviest keys with their local counts, count
// descending then key ascending (all its keys if it holds fewer).
// O(n log k) for the n keys of the node.
func (s *splitNodes) localTop(i, k int) []strategies.Item {
	items := ds.TopCounts(&s.tables[i], k)
	ds.SortItems(items)
	return items
}

// bytes is the memory of every node's table and of the table headers.
func (s *splitNodes) bytes() int64 {
	b := int64(cap(s.tables)) * int64(unsafe.Sizeof(ds.CountTable{}))
	for i := range s.tables {
		b += s.tables[i].Bytes()
	}
	return b
}

// nodeBytes is the memory of the largest node's table.
func (s *splitNodes) nodeBytes() int64 {
	var b int64
	for i := range s.tables {
		b = max(b, s.tables[i].Bytes())
	}
	return b
}

// check validates every node's table and that the counts sum to N.
func (s *splitNodes) check() error {
	var sum uint64
	for i := range s.tables {
		t := &s.tables[i]
		if err := t.Check(); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		if t.Seed != s.seed {
			return fmt.Errorf("node %d hashes with seed %#x, want %#x", i, t.Seed, s.seed)
		}
		for _, c := range t.All() {
			sum += c
		}
	}
	if sum != s.n {
		return fmt.Errorf("counts sum to %d, want N = %d", sum, s.n)
	}
	return nil
}

// splitParam resolves a parameter that defaults to a figure of the
// scenario: the value given, or else the scenario's (env), or an error
// naming key when neither is set.
func splitParam(key string, given, env int, what string) (int, error) {
	switch {
	case given > 0:
		return given, nil
	case env > 0:
		return env, nil
	}
	return 0, strategies.ParamErrorf(key, "not given, and the scenario has no %s to take it from", what)
}
