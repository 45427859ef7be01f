package strategies

import (
	"errors"

	"countsim/metrics"
	"countsim/workload"
)

// The families: the questions a design can answer, each a small interface
// with its contract — what is bounded, in which direction an answer errs,
// and when a method may be called. A design implements Strategy and the
// families of the questions it answers; the runner finds them by type
// assertion once per run, never per event. Its Type (registry.go) declares
// the families, the direction its counts err ([Bias]) and what its top-K
// answer promises ([Promise]), so a run can be checked before any design is
// built; the conformance suite holds every design to its own declaration.

// Strategy is one counting design.
type Strategy interface {
	// Observe consumes a batch of events in stream order. It must not
	// allocate in the steady state nor make an interface call per event.
	// It may be called any number of times, with batches of any length.
	Observe(batch []workload.Event)
	// Bytes is the memory the design holds, counted from its own arrays.
	// It may be called at any time.
	Bytes() int64
}

// Bias is the direction in which a design's counts may err.
type Bias int8

const (
	// ErrsNever: every count is the true count (Err is 0).
	ErrsNever Bias = iota
	// ErrsOver: a count is never below the truth, true ≤ Count ≤ true + Err
	// (count-min, Space-Saving).
	ErrsOver
	// ErrsUnder: a count is never above the truth, true − Err ≤ Count ≤
	// true (HeavyKeeper, a lossy counter).
	ErrsUnder
)

// String returns "exact", "over" or "under".
func (b Bias) String() string {
	switch b {
	case ErrsNever:
		return "exact"
	case ErrsOver:
		return "over"
	case ErrsUnder:
		return "under"
	}
	return "bias(?)"
}

// PointCounter answers the count of one key: the sum of the positive
// deltas of the writes to it observed so far, erring only in the direction
// its Type's Bias says. Count may be called between batches, any number of
// times; a design that holds writes back (a Flusher) counts them once
// flushed.
type PointCounter interface {
	Strategy
	Count(key uint64) uint64
}

// TopK answers the k heaviest keys, heaviest first.
type TopK interface {
	Strategy
	// Top returns at most k items ordered by Count descending, ties by Key
	// ascending; k ≤ 0 gives none. Each item's Count errs from the key's
	// true count by at most its Err, in the direction of the Type's Bias.
	// The slice is freshly allocated: the caller may keep or change it.
	Top(k int) []Item
}

// Item is one key of a top-K answer: its (estimated) count, and the most
// the estimate may differ from the true count, in the direction of its
// design's Bias (0 for an exact design).
type Item struct {
	Key   uint64
	Count uint64
	Err   uint64
}

// Promise is what a TopK design's answer promises of the true top k.
type Promise int8

const (
	// PromiseNone: no key is promised (a sketch with a heap can miss any).
	PromiseNone Promise = iota
	// PromiseAll: the answer is the true top k (exact designs).
	PromiseAll
	// PromiseAbove: every key whose true count is above the design's
	// planned guarantee_threshold is in the answer (Space-Saving: N/m).
	PromiseAbove
)

// Distinct answers how many different ids a design has seen: the audience
// of a match, the unique viewers of a video. The ids are the Actor of the
// Write events observed; Read events are ignored. Distinct is exact for an
// exact set and an estimate for a sketch, within its planned standard
// error in either direction.
type Distinct interface {
	Strategy
	// Distinct returns the number of distinct ids observed, or its estimate.
	Distinct() float64
}

// DistinctUnion is a Distinct whose state for two streams combines into the
// state for their union, as HLLs merge by register maximum: unique viewers
// over two days come from the union, never from adding the days' counts.
type DistinctUnion interface {
	Distinct
	// UnionWith folds other, a design of the same type and parameters, into
	// the receiver. It refuses anything else and then leaves the receiver
	// unchanged.
	UnionWith(other Distinct) error
}

// Reader is a design that answers reads during the stream: for each Read
// event it observes it records the count the reader was shown, which may
// be stale (a cache, a backlog on the store) but never counts a write not
// yet sent.
type Reader interface {
	Strategy
	// Shown returns one value per Read event observed, in stream order.
	Shown() []int64
}

// Flusher is a design that holds counts back (local batching). Flush(now)
// sends everything held at simulated time now, not before the last event
// observed; the runner calls it once, after the stream's end, before
// asking for counts.
type Flusher interface {
	Strategy
	Flush(now int64)
}

// Deduper is a design that drops resent writes (the `dedup` parameter of
// the hot-counter designs): a write whose ID it saw within its window is
// not counted again.
type Deduper interface {
	Strategy
	// Deduplicating reports whether a dedup window is on.
	Deduplicating() bool
	// Dropped is how many writes it has dropped so far.
	Dropped() int64
}

// FaultKind names a fault injected at a simulated time.
type FaultKind string

const (
	// AppCrash: app server Target crashes and restarts at once; whatever it
	// held in memory is lost.
	AppCrash FaultKind = "app-crash"
	// NodeLoss: store node Target loses its data (handled by the store).
	NodeLoss FaultKind = "node-loss"
	// The store faults of storefault.go, handled by the store: a node down
	// for a time, a slow node, a partition, a failover.
	NodeDown  FaultKind = "node-down"
	NodeSlow  FaultKind = "node-slow"
	Partition FaultKind = "partition"
	Failover  FaultKind = "failover"
)

// StoreFault reports whether the store handles the fault (a node's loss,
// outage, slowness, partition or failover) rather than the design.
func (k FaultKind) StoreFault() bool {
	return k == NodeLoss || k == NodeDown || k == NodeSlow || k == Partition || k == Failover
}

// Fault is one injected fault, at simulated time At (ns). The fields past
// Target are the store faults' (storefault.go); each kind reads its own.
type Fault struct {
	At     int64
	Kind   FaultKind
	Target int // app-crash: the app server; node-loss, node-down, node-slow, failover: the node
	// For is how long node-down, node-slow and partition last (ns): the
	// fault ends at At+For.
	For int64
	// Share is node-slow's share of the node's capacity left, in (0,1).
	Share float64
	// Servers and Nodes are a partition's sides: app servers Servers
	// cannot reach store nodes Nodes (nor these them).
	Servers, Nodes []int
	// Delay is failover's time (ns) from the master's death at At until its
	// replica answers as the new master; Lag is its replication lag (ns):
	// the writes the master served in (At−Lag, At] had not reached the
	// replica and are lost.
	Delay, Lag int64
}

// End is when a fault with a duration ends: At+For, or for a failover
// At+Delay; At for the others.
func (f Fault) End() int64 {
	if f.Kind == Failover {
		return f.At + f.Delay
	}
	return f.At + f.For
}

// Faultable is a design that reacts to faults. The runner delivers a fault
// after every event before f.At and before every event at or after it.
type Faultable interface {
	Strategy
	Fault(f Fault)
}

// Lossy is a design that can lose counts; Lost is how many it has dropped
// so far (counts held by a crashed app server), by its own accounting. The
// runner also measures the loss against the truth.
type Lossy interface {
	Strategy
	Lost() int64
}

// Parted is implemented by a design built of parts whose sizes are planned
// separately, such as a sketch with a top-K heap riding on it. The runner
// reports each part's bytes under the part's metric name and the sum,
// Bytes(), as metrics.TotalBytes; a design that is not Parted has one
// metrics.Bytes row.
type Parted interface {
	Strategy
	Parts() []Part
}

// Part is the memory of one part of a design.
type Part struct {
	Metric metrics.Metric // metrics.Bytes for the principal structure, metrics.HeapBytes…
	Bytes  int64
}

// Distributed is a design spread over the nodes of a split stream (issue
// 11): an event's node is its Actor, 0..Env.Nodes−1 (a region, an app
// server), each node keeps state of its own, and a coordinator asks the
// nodes for what it needs to answer. It accounts what that costs.
type Distributed interface {
	Strategy
	// Coordination returns what went between the coordinator and the
	// nodes for the answers given so far, both ways: messages (the
	// coordinator's requests, one a node a round it asks, and the nodes'
	// replies or pushes), the items they carried in all (the keys a request
	// asks about, the items a node sends) and their bytes (16 B an item a
	// node sends: key and count; 8 B a key asked; unless the design says
	// otherwise).
	Coordination() (messages, items, bytes int64)
	// NodeBytes returns the memory of the largest node.
	NodeBytes() int64
}

// TwoPass is a design that reads the stream twice (a candidate set checked
// against the log): after the stream, the runner calls SecondPass once and
// hands the same events to Observe again, in the same order and batches of
// the same size. Its answers are read after the second pass.
type TwoPass interface {
	Strategy
	SecondPass()
}

// Errors of Merge, shared by every sketch that merges.
var (
	// ErrMergeParams: the sketches differ in shape or update rule.
	ErrMergeParams = errors.New("strategies: cannot merge sketches with different parameters")
	// ErrMergeSeed: the sketches hash with different seeds.
	ErrMergeSeed = errors.New("strategies: cannot merge sketches built with different seeds")
)
