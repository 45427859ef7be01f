package frequency

import (
	"fmt"
	"slices"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The node-local top-K of seeds/003_db23ffc09a843575.txt ("Streaming Top K
// Instrumentation"): every app node counts the items of its own requests
// in a map and keeps its k busiest in a min-heap; every cycle each node
// pushes its k items with their counts to one central sorted set on the
// store (ZINCRBY on the day's key) and starts the next cycle empty. The
// central set, summed over the cycles and the nodes, answers the top K.
//
// The seed keeps the items outside the top k in a max-heap, to promote its
// root when it passes the min-heap's. Counts only grow within a cycle, so
// an item outside the top k can pass the min-heap's root only on an update
// of its own, which sees it: the map and the min-heap hold the exact top k
// of the cycle without the max-heap, and this design keeps none.
//
// What it loses. An item's count on a node in a cycle reaches the central
// set only if the item is in that node's top k at the cycle's end; below,
// it is dropped. So a count is never above the truth (ErrsUnder), and it
// misses at most, over the cycles and the nodes, the k-th count of each
// full push — the most a dropped item could have had — which Item.Err
// carries: Σ over pushes of the node's k-th count when it held k items.
// Small items spread over many nodes and cycles vanish; the central key
// takes nodes × k ZINCRBY a cycle, in one burst.
//
// What goes on the wire: the central set asks the nodes nothing (no phase
// has a request, unlike split-topk's and TPUT's coordinators): a node with
// items pushes once a cycle on its own clock, one message of at most k
// items of 16 B. So over C cycles at most nodes × C messages and
// nodes × k × C items, all of them pushes.

// NodeLocalTopKParams are the parameters of the node-local top-K.
type NodeLocalTopKParams struct {
	Nodes int           `key:"nodes" range:"1..4096" defaultdoc:"the stream's nodes (a split stream); required otherwise" doc:"app nodes"`
	Top   int           `key:"top" range:"1..1048576" default:"100" doc:"k: the items a node keeps and pushes each cycle (100, as the seed's nodes)"`
	Cycle time.Duration `key:"cycle" range:">0" default:"10s" doc:"the push interval"`
	By    string        `key:"by" oneof:"actor,id" defaultdoc:"actor with a split stream, else id" doc:"how an event finds its node: actor (the event's actor, a split stream's node) or id (a load balancer: Mix64(ID) mod nodes)"`
}

// resolve fills nodes and by from the stream: a split stream's nodes, by
// actor; else nodes must be given, by id.
func (p NodeLocalTopKParams) resolve(env strategies.Env) (NodeLocalTopKParams, error) {
	if p.Nodes == 0 {
		if env.Nodes == 0 {
			return p, &strategies.ParamError{Key: "nodes", Msg: "required: the stream is not split over nodes (allowed: 1..4096)"}
		}
		p.Nodes = env.Nodes
	}
	if p.By == "" {
		p.By = "id"
		if env.Nodes > 0 {
			p.By = "actor"
		}
	}
	if p.By == "actor" && env.Nodes != p.Nodes {
		return p, &strategies.ParamError{Key: "nodes", Msg: fmt.Sprintf("%d nodes by actor, on a stream split over %d (allowed: the stream's nodes, or by: id)", p.Nodes, env.Nodes)}
	}
	return p, nil
}

// NodeLocalTopK is the node-local top-K: a TopK, a PointCounter (the central
// count), a Flusher (the last push), Distributed. Not safe for concurrent
// use.
type NodeLocalTopK struct {
	p       NodeLocalTopKParams
	nodes   []nodeTopK
	central ds.CountTable // the central sorted set's counts, summed over pushes
	store   strategies.Store
	key     uint64 // the central set's store key
	ops     []strategies.StoreOp
	seed    uint64
	cycle   int64
	next    int64 // the time of the next push, ns
	byActor bool

	errBound uint64 // Σ over full pushes of the node's k-th count
	pushes   int64  // node pushes (messages)
	items    int64  // items pushed
}

// nodeTopK is one node's cycle: its exact counts and its top k.
type nodeTopK struct {
	counts ds.CountTable
	heap   ds.TopHeap
}

var (
	_ strategies.TopK         = (*NodeLocalTopK)(nil)
	_ strategies.PointCounter = (*NodeLocalTopK)(nil)
	_ strategies.Flusher      = (*NodeLocalTopK)(nil)
	_ strategies.Distributed  = (*NodeLocalTopK)(nil)
)

// NewNodeLocalTopK returns the design for env (its nodes, its Store: nil
// accounts no load), hashing with env.Seed.
func NewNodeLocalTopK(p NodeLocalTopKParams, env strategies.Env) (*NodeLocalTopK, error) {
	if err := strategies.ValidateWith("node-local-topk", &p); err != nil {
		return nil, err
	}
	p, err := p.resolve(env)
	if err != nil {
		return nil, strategies.WithType("node-local-topk", err)
	}
	d := &NodeLocalTopK{p: p, store: env.Store, seed: workload.SplitMix64(env.Seed ^ 0x6e6f64656c6f63),
		cycle: int64(p.Cycle), next: int64(p.Cycle), byActor: p.By == "actor"}
	d.key = workload.Mix64(d.seed ^ 0x63656e7472616c) // "central"
	// A node's table starts small and grows to the items of its busiest
	// cycle; a reset keeps its slots.
	for i := range p.Nodes {
		n := nodeTopK{heap: ds.NewTopHeap(p.Top, d.seed+uint64(i))}
		n.counts.Init(ds.TableLen(uint64(2*p.Top)), d.seed+uint64(i))
		d.nodes = append(d.nodes, n)
	}
	d.central.Init(ds.TableLen(max(64, uint64(p.Top)*uint64(p.Nodes))), d.seed)
	return d, nil
}

func init() {
	strategies.Define("node-local-topk", "each app node counts its own requests and keeps its top k in a min-heap; every cycle it pushes them to a central sorted set and starts afresh (seed 003)",
		func(p *NodeLocalTopKParams, env strategies.Env) (strategies.Strategy, error) {
			return NewNodeLocalTopK(*p, env)
		},
		nodeLocalPlan, strategies.OnServers, strategies.Answers(strategies.FamilyTopK, strategies.FamilyPointCounter), strategies.Errs(strategies.ErrsUnder),
		strategies.CheckedBy(func(p *NodeLocalTopKParams, env strategies.Env) error { _, err := p.resolve(env); return err }))
}

// nodeLocalPlan: the central key's load and what the nodes send a cycle.
func nodeLocalPlan(p *NodeLocalTopKParams, env strategies.Env) []strategies.PlanLine {
	q, err := p.resolve(env)
	if err != nil {
		return nil
	}
	secs := q.Cycle.Seconds()
	per := float64(q.Nodes * q.Top)
	lines := []strategies.PlanLine{
		{Metric: metrics.Nodes, Value: float64(q.Nodes), Unit: "nodes", Note: "app nodes"},
		{Metric: metrics.KeysUsed, Value: 1, Unit: "keys", Note: "the central sorted set"},
		{Metric: metrics.IncrementsPerSec, Value: per / secs, Unit: "ops/s",
			Note: fmt.Sprintf("nodes × k / cycle = %d × %d / %s s: ZINCRBY on the central key, at most (a node with fewer items pushes fewer)", q.Nodes, q.Top, strategies.Num(secs))},
	}
	if env.Duration > 0 {
		pushes := float64((env.Duration + int64(q.Cycle) - 1) / int64(q.Cycle)) // the last, partial cycle too
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.Messages, Value: pushes * float64(q.Nodes), Unit: "messages", Note: "nodes × cycles: one push a node a cycle"},
			strategies.PlanLine{Metric: metrics.ItemsSent, Value: pushes * per, Unit: "items", Note: "nodes × k × cycles, at most"})
	}
	return lines
}

// nodeOf returns the node of an event.
func (d *NodeLocalTopK) nodeOf(e *workload.Event) int {
	if d.byActor {
		return int(e.Actor)
	}
	return int(ds.Reduce(workload.Mix64(e.ID^d.seed), uint64(len(d.nodes))))
}

// Observe counts each write on its node, keeping the node's top k, and
// pushes every node at each cycle's end it passes; the pushes of a batch
// go to the store in one Do call.
func (d *NodeLocalTopK) Observe(batch []workload.Event) {
	d.ops = d.ops[:0]
	// The node and the hash of each event, worked out nodeAhead events
	// before it is counted, when its slot is prefetched: a node's table
	// grows to hold every key the node sees in a cycle, and a probe of it
	// is a cache miss.
	var node [nodeAhead]int32
	var hs [nodeAhead]uint64
	ahead := func(k int) {
		e := &batch[k]
		j := d.nodeOf(e)
		h := workload.Mix64(e.Key ^ d.nodes[j].counts.Seed)
		node[k%nodeAhead], hs[k%nodeAhead] = int32(j), h
		d.nodes[j].counts.Prefetch(h)
	}
	for k := range min(len(batch), nodeAhead) {
		ahead(k)
	}
	for i := range batch {
		e := &batch[i]
		j, h := node[i%nodeAhead], hs[i%nodeAhead]
		if k := i + nodeAhead; k < len(batch) {
			ahead(k)
		}
		for e.At >= d.next {
			d.push(d.next)
			d.next += d.cycle
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		n := &d.nodes[j]
		sl := n.counts.Find(h, e.Key)
		if sl.Count != 0 {
			sl.Count += uint64(e.Delta)
		} else {
			n.counts.Insert(sl, h, e.Key, uint64(e.Delta))
			sl = n.counts.Find(h, e.Key) // insert may have doubled the table
		}
		c := sl.Count
		hh := n.heap.Index.Hash(e.Key)
		if pos, ok := n.heap.FindAt(hh, e.Key); ok {
			n.heap.Raise(pos, c)
		} else if it := (strategies.Item{Key: e.Key, Count: c}); !n.heap.Full() {
			n.heap.Push(it)
		} else if ds.Worse(n.heap.Min(), &it) {
			n.heap.ReplaceMin(it)
		}
	}
	d.send()
}

// push sends every node's top k to the central set at time at, and empties
// the nodes for the next cycle.
// nodeAhead is how many events ahead Observe prefetches a key's slot.
const nodeAhead = 8

func (d *NodeLocalTopK) push(at int64) {
	for i := range d.nodes {
		n := &d.nodes[i]
		if n.heap.Len() == 0 {
			continue
		}
		d.pushes++
		if n.heap.Full() {
			d.errBound += n.heap.Min().Count
		}
		for j := range n.heap.Len() {
			it := n.heap.At(j)
			d.central.Add(workload.Mix64(it.Key^d.central.Seed), it.Key, it.Count)
			d.ops = append(d.ops, strategies.StoreOp{At: at, Kind: strategies.ZIncrBy, Key: d.key, Member: it.Key, Delta: int64(it.Count)})
			d.items++
		}
		n.heap.Reset()
		n.counts.Reset()
	}
}

// send hands the ops gathered to the store.
func (d *NodeLocalTopK) send() {
	if d.store != nil && len(d.ops) > 0 {
		d.store.Do(d.ops, nil)
	}
	d.ops = d.ops[:0]
}

// Flush pushes what the nodes hold at now, as the last cycle's end.
func (d *NodeLocalTopK) Flush(now int64) {
	d.ops = d.ops[:0]
	d.push(max(now, d.next-d.cycle))
	d.send()
}

// Count returns the central set's count of key: never above the truth.
func (d *NodeLocalTopK) Count(key uint64) uint64 {
	return d.central.GetAt(workload.Mix64(key^d.central.Seed), key)
}

// Top returns the k items of highest central count, each with the bound
// on what the pushes dropped of it.
func (d *NodeLocalTopK) Top(k int) []strategies.Item {
	if k <= 0 {
		return nil
	}
	var all []strategies.Item
	for key, c := range d.central.All() {
		all = append(all, strategies.Item{Key: key, Count: c, Err: d.errBound})
	}
	ds.SortItems(all)
	return slices.Clip(all[:min(k, len(all))])
}

// Coordination: a message a node a push it made, and the items pushed,
// 16 B each (a member and its increment); no request goes the other way.
func (d *NodeLocalTopK) Coordination() (messages, items, bytes int64) {
	return d.pushes, d.items, 16 * d.items
}

// NodeBytes is the largest node's counts and heap.
func (d *NodeLocalTopK) NodeBytes() int64 {
	var most int64
	for i := range d.nodes {
		most = max(most, d.nodes[i].counts.Bytes()+d.nodes[i].heap.Bytes())
	}
	return most
}

// Bytes is every node's and the central set's, 16 B a central slot (as a
// model of the store's: the design holds it).
func (d *NodeLocalTopK) Bytes() int64 {
	b := d.central.Bytes() + int64(cap(d.ops))*int64(unsafe.Sizeof(strategies.StoreOp{}))
	for i := range d.nodes {
		b += d.nodes[i].counts.Bytes() + d.nodes[i].heap.Bytes()
	}
	return b
}

func (d *NodeLocalTopK) check() error {
	for i := range d.nodes {
		if err := d.nodes[i].heap.Check(); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		if err := d.nodes[i].counts.Check(); err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
	}
	return d.central.Check()
}
