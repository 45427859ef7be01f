package frequency

import (
	"fmt"
	"slices"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Threshold top-K over a split stream: TPUT, P. Cao and Z. Wang, "Efficient
// top-K query calculation in distributed networks", PODC 2004. The exact
// fix of split-topk's trap (issue 11).
//
// The nodes are split-topk's: S exact local count tables, an event's node
// its Actor (split_topk_nodes.go). Top(k) runs the paper's three phases,
// with ψ(x) the coordinator's partial sum of the local counts of x it has
// received:
//
//  1. Every node sends its local top k. τ1 = the k-th largest ψ, a lower
//     bound of the true k-th count (0 with fewer than k keys).
//  2. The coordinator sends T = τ1/S; every node sends every key with local
//     count ≥ T, i.e. ≥ t = max(1, ⌈τ1/S⌉) since counts are whole. A key
//     no node sent has a true count ≤ S(t−1) < τ1. τ2 = the k-th largest
//     ψ now (τ2 ≥ τ1). A node that did not send x holds it below t, so
//     U(x) = ψ(x) + (nodes that did not send x)·(t−1) bounds its true count
//     (the paper's bound, ψ + misses·T, over whole counts). Every x with
//     U(x) < τ2 is pruned: at least k keys have counts ≥ τ2 > true(x), so
//     x is strictly below k keys and cannot be in the top k, whatever the
//     tie order. A key with U(x) = τ2 stays: it may tie the k-th and win it
//     on its key.
//  3. The coordinator sends the remaining candidates; every node sends its
//     counts of those it holds and has not sent yet. Every candidate's sum
//     is now exact; the true top k lies among them (above), so sorting them
//     by count descending, key ascending gives exactly the top k.
//
// Economies the paper allows and the accounting follows: a node sends a key
// once (phase 2 and 3 send only keys not sent before; a node knows what it
// sent); a node that holds at most k keys sent them all in phase 1, so it is
// not asked again and counts for no miss in U; phase 3 is
// skipped when no candidate is left whose sum is not yet exact, and asks
// only for the candidates whose sums are not (P below).
//
// What goes on the wire, both ways, is what Coordination counts: every
// phase is the coordinator's request to each node it asks and that node's
// reply, even an empty one (the coordinator waits for every node it
// asked). A request carries no item but phase 3's, which carries the
// candidates (8 B a key); a reply carries (key, count) items of 16 B. With
// S nodes, O of them open after phase 1 (holding more than k keys), R_i
// the keys of node i of local count ≥ t not sent in phase 1 and P the
// candidates left whose sums are not exact:
//
//	phase 1: S requests (k) + S replies of min(k, keys_i) items;
//	phase 2: O requests (T) + O replies of R_i items;
//	phase 3: O requests of P keys each + O replies of at most P items each,
//
// so 2S + 4·O ≤ 6S messages, and phase 3 alone O·P keys asked (the paper's
// broadcast of its candidate set to every node) beside what the nodes
// answer. Phases 2 and 3 are skipped when O = 0, phase 3 when P = 0.
//
// Cost: phase 1 O(n log k) a node of n keys, phase 2 O(n) a node, phase 3
// O(1) a candidate a node; the coordinator O(C log C) for C candidates.

// ThresholdTopKParams are the parameters of threshold-topk.
type ThresholdTopKParams struct {
	// Nodes is S; 0 (not given) takes the scenario's nodes.
	Nodes int `key:"nodes" range:"1..4096" defaultdoc:"the scenario's nodes" doc:"nodes S the stream is split over; an event's node is its actor mod S"`
}

// resolve fills S from env where it was not given.
func (p ThresholdTopKParams) resolve(env strategies.Env) (ThresholdTopKParams, error) {
	if err := strategies.CheckParams(&p); err != nil {
		return p, err
	}
	var err error
	p.Nodes, err = splitParam("nodes", p.Nodes, env.Nodes, "nodes (a split stream)")
	return p, err
}

// roundCost is what one phase of a distributed answer cost, summed over
// the answers given: the coordinator's requests (one a node asked) and the
// keys they carried (phase 3's candidates, once a node asked), the nodes'
// replies (one a node asked) and the (key, count) items they carried.
type roundCost struct {
	Requests, Asked int64 // coordinator → node
	Replies, Items  int64 // node → coordinator
}

// splitKeyBytes is the bytes a key asked about takes on the wire from the
// coordinator to a node.
const splitKeyBytes = 8

// messages is the phase's messages both ways, items the keys and items
// they carried, bytes their bytes.
func (r roundCost) messages() int64 { return r.Requests + r.Replies }
func (r roundCost) items() int64    { return r.Asked + r.Items }
func (r roundCost) bytes() int64    { return r.Asked*splitKeyBytes + r.Items*splitNodeBytes }

// ThresholdTopK is threshold-topk: S nodes of exact local counts and a
// coordinator running TPUT. It is an exact TopK (Err 0, the true top k)
// and a Distributed. Not safe for concurrent use.
type ThresholdTopK struct {
	nodes  splitNodes
	rounds [3]roundCost // summed over the answers given
}

// NewThresholdTopK returns threshold-topk of p.Nodes ≥ 1 nodes, each node's
// table sized for about nodeKeys keys (it grows past that); seed seeds the
// tables' hash (answers do not depend on it).
func NewThresholdTopK(p ThresholdTopKParams, nodeKeys, seed uint64) (*ThresholdTopK, error) {
	if err := strategies.ValidateWith("threshold-topk", &p); err != nil {
		return nil, err
	}
	if p.Nodes == 0 {
		return nil, strategies.WithType("threshold-topk", strategies.ParamErrorf("nodes", "0 not in 1..%d", splitMaxNodes))
	}
	return &ThresholdTopK{nodes: newSplitNodes(p.Nodes, nodeKeys, seed)}, nil
}

// Observe counts every write event's positive Delta on the node of its
// Actor; other events are ignored. No allocation unless a node's table
// doubles.
func (s *ThresholdTopK) Observe(batch []workload.Event) { s.nodes.observe(batch) }

// Bytes returns the memory of every node's table (the coordinator keeps
// nothing between answers but its tallies).
func (s *ThresholdTopK) Bytes() int64 { return s.nodes.bytes() }

// NodeBytes returns the memory of the largest node's table.
func (s *ThresholdTopK) NodeBytes() int64 { return s.nodes.nodeBytes() }

// Coordination returns what went between the coordinator and the nodes
// over every Top answered so far (each call runs the protocol again on the
// counts of the moment and adds to these), both ways and the three phases
// summed: the requests and the replies, the keys asked and the items
// answered, 8 B a key asked and 16 B an item.
func (s *ThresholdTopK) Coordination() (messages, items, bytes int64) {
	for _, r := range s.rounds {
		messages += r.messages()
		items += r.items()
		bytes += r.bytes()
	}
	return messages, items, bytes
}

// tputCand is a key the coordinator has heard of: its partial sum and how
// many of the nodes asked in phase 2 have sent it.
type tputCand struct {
	key  uint64
	sum  uint64
	sent int32
}

// Top runs TPUT and returns the exact k heaviest keys, count descending then
// key ascending, Err 0.
func (s *ThresholdTopK) Top(k int) []strategies.Item {
	if k <= 0 {
		return []strategies.Item{}
	}
	S := len(s.nodes.tables)
	index := map[uint64]int{}
	var cands []tputCand
	heard := func(key, count uint64) *tputCand {
		j, ok := index[key]
		if !ok {
			j = len(cands)
			index[key] = j
			cands = append(cands, tputCand{key: key})
		}
		c := &cands[j]
		c.sum += count
		return c
	}

	// Phase 1: every node's local top k. A node that holds more keys than
	// it sent (open) is asked again; the others sent all they hold.
	lasts := make([]strategies.Item, S) // an open node's k-th item: the keys it sent are those not worse
	open := make([]int, 0, S)
	for i := range S {
		s.rounds[0].ask(0) // "send your top k"
		list := s.nodes.localTop(i, k)
		s.rounds[0].reply(len(list))
		isOpen := s.nodes.tables[i].Len() > len(list)
		if isOpen {
			open = append(open, i)
			lasts[i] = list[len(list)-1]
		}
		for _, it := range list {
			c := heard(it.Key, it.Count)
			if isOpen {
				c.sent++
			}
		}
	}
	if len(open) == 0 {
		return tputAnswer(cands, k) // every node sent all it holds: the sums are exact
	}
	tau1 := tputKth(cands, k)

	// Phase 2: every open node sends the keys of local count ≥ t it has not
	// sent.
	t := max(1, (tau1+uint64(S)-1)/uint64(S))
	for _, i := range open {
		s.rounds[1].ask(0) // T
		last, n := &lasts[i], 0
		for key, c := range s.nodes.tables[i].All() {
			if c >= t && ds.Worse(&strategies.Item{Key: key, Count: c}, last) {
				heard(key, c).sent++
				n++
			}
		}
		s.rounds[1].reply(n)
	}
	tau2 := tputKth(cands, k)

	// Prune by the upper bound U(x) = ψ(x) + misses·(t−1); a key whose
	// misses are 0, or t = 1, has its exact sum already.
	kept, pending := cands[:0], 0
	for _, c := range cands {
		misses := uint64(len(open)) - uint64(c.sent)
		if c.sum+misses*(t-1) < tau2 {
			continue
		}
		if misses > 0 && t > 1 {
			pending++
		}
		kept = append(kept, c)
	}
	cands = kept

	// Phase 3: the coordinator sends every open node the pending
	// candidates; each sends its counts of those it holds and has not sent.
	if pending > 0 {
		for _, i := range open {
			s.rounds[2].ask(pending)
			last, n := &lasts[i], 0
			for j := range cands {
				c := &cands[j]
				if uint64(c.sent) == uint64(len(open)) || t == 1 {
					continue
				}
				v := s.nodes.count(i, c.key)
				if v == 0 || v >= t || !ds.Worse(&strategies.Item{Key: c.key, Count: v}, last) {
					continue // not held, or sent in phase 1 or 2
				}
				c.sum += v
				n++
			}
			s.rounds[2].reply(n)
		}
	}
	return tputAnswer(cands, k)
}

// ask counts one request of the coordinator's carrying n keys.
func (r *roundCost) ask(n int) {
	r.Requests++
	r.Asked += int64(n)
}

// reply counts one node's reply carrying n items.
func (r *roundCost) reply(n int) {
	r.Replies++
	r.Items += int64(n)
}

// tputKth returns the k-th largest partial sum, 0 with fewer than k keys.
func tputKth(cands []tputCand, k int) uint64 {
	if len(cands) < k {
		return 0
	}
	sums := make([]uint64, len(cands))
	for j, c := range cands {
		sums[j] = c.sum
	}
	slices.Sort(sums)
	return sums[len(sums)-k]
}

// tputAnswer sorts candidates of exact sums and returns the k first.
func tputAnswer(cands []tputCand, k int) []strategies.Item {
	items := make([]strategies.Item, len(cands))
	for j, c := range cands {
		items[j] = strategies.Item{Key: c.key, Count: c.sum}
	}
	ds.SortItems(items)
	return items[:min(k, len(items))]
}

// check validates the nodes' tables and their sum.
func (s *ThresholdTopK) check() error {
	if err := s.nodes.check(); err != nil {
		return fmt.Errorf("threshold-topk: %w", err)
	}
	return nil
}

func init() {
	strategies.Define("threshold-topk", "exact top-K of a stream split over nodes by actor: TPUT (Cao & Wang), three rounds with a threshold τ/S that proves no key left out can win",
		func(p *ThresholdTopKParams, env strategies.Env) (strategies.Strategy, error) {
			r, err := p.resolve(env)
			if err != nil {
				return nil, strategies.WithType("threshold-topk", err)
			}
			return NewThresholdTopK(r, splitNodeKeys(env.Keys, env.Events, r.Nodes), env.Seed)
		},
		thresholdTopKPlan, strategies.Answers(strategies.FamilyTopK), strategies.Promises(strategies.PromiseAll),
		strategies.CheckedBy(func(p *ThresholdTopKParams, env strategies.Env) error {
			_, err := p.resolve(env)
			return err
		}))
}

// thresholdTopKPlan: the nodes, their tables' bytes, and the closed-form
// part of an answer's cost: at most three phases of S requests and S
// replies, and phase 1's S·K candidates. What phases 2 and 3 carry depends
// on the data (rounds tallies it; the top of the file says how).
func thresholdTopKPlan(p *ThresholdTopKParams, env strategies.Env) []strategies.PlanLine {
	r, err := p.resolve(env)
	if err != nil {
		return nil
	}
	s := float64(r.Nodes)
	lines := []strategies.PlanLine{
		{Metric: metrics.Nodes, Value: s, Unit: "nodes", Note: "S"},
		splitNodesPlan(env, r.Nodes),
		{Metric: metrics.Messages, Value: 6 * s, Unit: "messages", Note: "6S at most: three phases of a request to each node and its reply (2S + 4 × the nodes still open after phase 1); fewer when every node sent all it holds, or no candidate is left to complete"},
	}
	if env.Top > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.MergeCandidates, Value: s * float64(env.Top), Unit: "keys",
			Note: "S × K in phase 1, at most; phase 2 adds every key of local count ≥ τ1/S"})
	}
	return lines
}
