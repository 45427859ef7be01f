package frequency

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Split-count top-K by over-fetch: the merge that looks exact and is not
// (issue 11; the seed "Why shard top-K merge is only a candidate step").
//
// The events of a key are split over S nodes by something other than the
// key (user, region, app server); each node keeps the exact local counts of
// its events (split_topk_nodes.go). To answer Top(k) every node sends its
// local top K' (key, local count), K' ≥ k the over-fetch, and the
// coordinator sums what it received per key and returns the k largest
// sums. Unlike a split by key hash (exact with shards), a key's count is
// spread over nodes: a key just below every node's local K'-th count is sent
// by none and missed however heavy its total. Nothing bounds what is missed
// (Promise none), only how far a reported sum may fall short: a key
// reported by some nodes lacks its counts on the others, each of which holds
// it at most at that node's K'-th local count (the last it sent, or 0 for a
// node that sent every key it holds). So, per item,
//
//	true − Err ≤ Count ≤ true,   Err = Σ over the nodes that did not send the key of their K'-th count.
//
// Cost of one answer, both ways on the wire (Coordination counts both):
// the coordinator's request to every node ("your top K'", no item), S
// messages; every node's reply, S messages of min(K', its keys) items of
// 16 B. So 2S messages and at most S·K' items (merge candidates S·K'), and
// O(n log K') a node of n keys to select its list.

// SplitTopKParams are the parameters of split-topk.
type SplitTopKParams struct {
	// Overfetch is K', the keys each node sends, ≥ the scenario's K; 0
	// (not given) takes the scenario's K.
	Overfetch int `key:"overfetch" range:"1..1000000" defaultdoc:"the scenario's K" doc:"K', the local top keys each node sends, at least the scenario's K"`
	// Nodes is S; 0 (not given) takes the scenario's nodes.
	Nodes int `key:"nodes" range:"1..4096" defaultdoc:"the scenario's nodes" doc:"nodes S the stream is split over; an event's node is its actor mod S"`
}

// resolve fills K' and S from env where they were not given, and refuses a
// K' below the scenario's K.
func (p SplitTopKParams) resolve(env strategies.Env) (SplitTopKParams, error) {
	if err := strategies.CheckParams(&p); err != nil {
		return p, err
	}
	var err error
	if p.Nodes, err = splitParam("nodes", p.Nodes, env.Nodes, "nodes (a split stream)"); err != nil {
		return p, err
	}
	if p.Overfetch, err = splitParam("overfetch", p.Overfetch, env.Top, "top-K question"); err != nil {
		return p, err
	}
	if p.Overfetch < env.Top {
		return p, strategies.ParamErrorf("overfetch", "%d is below the scenario's K = %d: every node must send at least K keys", p.Overfetch, env.Top)
	}
	return p, nil
}

// SplitTopK is split-topk: S nodes of exact local counts and a coordinator
// that merges their local top K'. It is a TopK whose counts err under (Err
// bounds the shortfall) and a Distributed. Not safe for concurrent use.
type SplitTopK struct {
	nodes     splitNodes
	overfetch int
	requests  int64 // coordinator → node, over every answer given: one a node an answer, no item
	replies   int64 // node → coordinator: one a node an answer
	items     int64 // the (key, count) items the replies carried
}

// NewSplitTopK returns split-topk of p.Nodes nodes sending p.Overfetch keys
// each, both ≥ 1, each node's table sized for about nodeKeys keys (it grows
// past that); seed seeds the tables' hash (answers do not depend on it).
func NewSplitTopK(p SplitTopKParams, nodeKeys, seed uint64) (*SplitTopK, error) {
	if err := strategies.ValidateWith("split-topk", &p); err != nil {
		return nil, err
	}
	if p.Nodes == 0 {
		return nil, strategies.WithType("split-topk", strategies.ParamErrorf("nodes", "0 not in 1..%d", splitMaxNodes))
	}
	if p.Overfetch == 0 {
		return nil, strategies.WithType("split-topk", strategies.ParamErrorf("overfetch", "0 not in 1..1000000"))
	}
	return &SplitTopK{nodes: newSplitNodes(p.Nodes, nodeKeys, seed), overfetch: p.Overfetch}, nil
}

// Observe counts every write event's positive Delta on the node of its
// Actor; other events are ignored. No allocation unless a node's table
// doubles.
func (s *SplitTopK) Observe(batch []workload.Event) { s.nodes.observe(batch) }

// Bytes returns the memory of every node's table (the coordinator keeps
// nothing between answers).
func (s *SplitTopK) Bytes() int64 { return s.nodes.bytes() }

// NodeBytes returns the memory of the largest node's table.
func (s *SplitTopK) NodeBytes() int64 { return s.nodes.nodeBytes() }

// Coordination returns what went between the coordinator and the nodes
// over every Top answered so far (each call runs the exchange again on the
// counts of the moment, and adds to these): two messages a node a call,
// the coordinator's request, which carries no item, and the node's reply;
// the items the replies carried, 16 B each.
func (s *SplitTopK) Coordination() (messages, items, bytes int64) {
	return s.requests + s.replies, s.items, s.items * splitNodeBytes
}

// Top runs the exchange: every node sends its local top max(K', k), the
// coordinator sums per key and returns the k largest sums, count descending
// then key ascending; each item's Err bounds its shortfall (see the top of
// the file). A key heavy only in total may be missing. O(S·n log K').
func (s *SplitTopK) Top(k int) []strategies.Item {
	if k <= 0 {
		return []strategies.Item{}
	}
	per := max(s.overfetch, k)
	index := map[uint64]int{}
	var cands []strategies.Item // Err holds, until the end, the cuts of the nodes that sent the key
	var cuts uint64             // Σ over nodes of the last count each sent, 0 for a node that sent all it holds
	for i := range s.nodes.tables {
		s.requests++ // "send your top K'"
		list := s.nodes.localTop(i, per)
		s.replies++
		s.items += int64(len(list))
		var cut uint64
		if s.nodes.tables[i].Len() > len(list) {
			cut = list[len(list)-1].Count
		}
		cuts += cut
		for _, it := range list {
			j, ok := index[it.Key]
			if !ok {
				j = len(cands)
				index[it.Key] = j
				cands = append(cands, strategies.Item{Key: it.Key})
			}
			cands[j].Count += it.Count
			cands[j].Err += cut
		}
	}
	for j := range cands {
		cands[j].Err = cuts - cands[j].Err // the cuts of the nodes that did not send it
	}
	ds.SortItems(cands)
	return cands[:min(k, len(cands))]
}

// check validates the nodes' tables and their sum.
func (s *SplitTopK) check() error {
	if err := s.nodes.check(); err != nil {
		return fmt.Errorf("split-topk: %w", err)
	}
	return nil
}

func init() {
	strategies.Define("split-topk", "top-K of a stream split over nodes by actor: each node sends its local top K' (over-fetch), the coordinator sums them; can miss a key heavy only in total",
		func(p *SplitTopKParams, env strategies.Env) (strategies.Strategy, error) {
			r, err := p.resolve(env)
			if err != nil {
				return nil, strategies.WithType("split-topk", err)
			}
			return NewSplitTopK(r, splitNodeKeys(env.Keys, env.Events, r.Nodes), env.Seed)
		},
		splitTopKPlan, strategies.Answers(strategies.FamilyTopK), strategies.Errs(strategies.ErrsUnder), strategies.Promises(strategies.PromiseNone),
		strategies.CheckedBy(func(p *SplitTopKParams, env strategies.Env) error {
			_, err := p.resolve(env)
			return err
		}))
}

// splitTopKPlan: the nodes, their tables' bytes, and what one answer to the
// scenario's top-K question costs: S requests and S replies, the replies
// carrying at most S·K' keys of 16 B, the merge's candidates. The same at
// any scale: K' and S are the design's.
func splitTopKPlan(p *SplitTopKParams, env strategies.Env) []strategies.PlanLine {
	r, err := p.resolve(env)
	if err != nil {
		return nil
	}
	s, kk := float64(r.Nodes), float64(r.Overfetch)
	return []strategies.PlanLine{
		{Metric: metrics.Nodes, Value: s, Unit: "nodes", Note: "S"},
		splitNodesPlan(env, r.Nodes),
		{Metric: metrics.MergeCandidates, Value: s * kk, Unit: "keys", Note: "S × K' local top-K' entries, at most; a key split over nodes may be in none"},
		{Metric: metrics.Messages, Value: 2 * s, Unit: "messages", Note: "2S an answer: the coordinator's request to each node, and each node's reply"},
		{Metric: metrics.ItemsSent, Value: s * kk, Unit: "keys", Note: "S × K' at most, all in the replies (a node holding fewer keys sends them all; a request carries none)"},
		{Metric: metrics.BytesSent, Value: s * kk * splitNodeBytes, Unit: "B", Note: "S × K' × 16 B (key and count)"},
	}
}
