package scenarios

// The split stream (`workload: {events: …, nodes: {count: 8, …}}`): a
// count stream whose events are partitioned over nodes by something other
// than the item — by region, each with items of its own, or by app server,
// all drawing from one law — with an item planted thinly on every node
// (issue 11). The nodes key picks it over the count stream its events
// would otherwise give.

import "fmt"

// Split is a split stream: a count stream's writes and their nodes.
type Split struct {
	Writes
	Nodes SplitNodes `key:"nodes" required:"true" doc:"the nodes the events are split over (a split stream): by region or by app server, with a planted item"`
	Pos   Pos        // the workload key
}

// SplitNodes are the nodes of a split stream.
type SplitNodes struct {
	Count int         `key:"count" range:"1..4096" required:"true" doc:"nodes the events are split over, each event to one at random; an event's actor is its node"`
	By    string      `key:"by" oneof:"region,server" default:"region" doc:"region: each node has items of its own (keys items each); server: every node draws the same items (app servers behind a load balancer)"`
	Plant float64     `key:"plant" range:"[0,1)" default:"0" doc:"share of every node's events that go to one planted item, the same on every node: an item heavy only in total"`
	Skews []SplitSkew `key:"skews" range:"1..4096" entry:"group" doc:"groups of nodes with a Zipf exponent of their own, in node order, their nodes adding up to count; without it every node takes the workload's s"`
	Pos   Pos         // the nodes key
}

// SplitSkew is a group of nodes sharing a Zipf exponent.
type SplitSkew struct {
	Nodes int     `key:"nodes" range:"1..4096" required:"true" doc:"nodes in the group"`
	S     float64 `key:"s" range:">=0" required:"true" doc:"the group's Zipf exponent"`
	Pos   Pos     // the entry's position
}

func init() {
	defineKind(&kindDef{name: "split", order: 7, key: "workload", marker: "nodes", over: "stream", what: "a split stream",
		new: func() Run { return new(Split) }})
}

func (s *Split) Kind() string { return "split" }
func (s *Split) Where() Pos   { return s.Pos }

// check: the writes' rules.
func (s *Split) check(r *rule) error { return s.checkWrites(r) }

// check: the groups' nodes add up to count.
func (n *SplitNodes) check(r *rule) error {
	if len(n.Skews) == 0 {
		return nil
	}
	total := 0
	for _, g := range n.Skews {
		total += g.Nodes
	}
	if total != n.Count {
		return r.failKey("skews", "the groups hold %d nodes in all, not count %d (allowed: groups whose nodes add up to %d)", total, n.Count, n.Count)
	}
	return nil
}

// Exponents returns each node's Zipf exponent: from the groups, or s for
// every node.
func (s *Split) Exponents() []float64 {
	if len(s.Nodes.Skews) == 0 {
		return []float64{s.Exponent()}
	}
	var out []float64
	for _, g := range s.Nodes.Skews {
		for range g.Nodes {
			out = append(out, g.S)
		}
	}
	return out
}

// Describe says the nodes in a phrase: "8 regions, 1% planted".
func (n *SplitNodes) Describe() string {
	what := "regions with items of their own"
	if n.By == "server" {
		what = "app servers sharing one law of items"
	}
	return fmt.Sprintf("%d %s, %g of each node's events to one planted item", n.Count, what, n.Plant)
}
