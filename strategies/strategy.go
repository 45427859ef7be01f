package strategies

import "countsim/workload"

// Strategy is one counting design.
type Strategy interface {
	// Observe consumes a batch of events in order. It must not allocate in
	// the steady state nor make an interface call per event.
	Observe(batch []workload.Event)
	// Bytes is the memory the design holds, counted from its own arrays.
	Bytes() int64
}

// PointCounter answers the count of one key.
type PointCounter interface {
	Strategy
	Count(key uint64) uint64
}

// TopK answers the k heaviest keys, heaviest first.
type TopK interface {
	Strategy
	// Top returns at most k items ordered by Count descending, ties by Key
	// ascending. The slice is freshly allocated.
	Top(k int) []Item
}

// Distinct answers how many different ids a design has seen: the audience
// of a match, the unique viewers of a video. Distinct is exact for an exact
// set and an estimate for a sketch. The ids are the Actor of the Write
// events observed; Read events are ignored.
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

// Item is one key of a top-K answer: its (estimated) count and the most the
// estimate may exceed the true count (0 for an exact design).
type Item struct {
	Key   uint64
	Count uint64
	Err   uint64
}

// Parted is implemented by a design built of parts whose sizes are planned
// separately, such as a sketch with a top-K heap riding on it. The runner
// reports each part's bytes under the part's metric name and the sum,
// Bytes(), as "total_bytes"; a design that is not Parted has one "bytes" row.
type Parted interface {
	Strategy
	Parts() []Part
}

// Part is the memory of one part of a design.
type Part struct {
	Metric string // "bytes" for the principal structure, "heap_bytes"…
	Bytes  int64
}
