package ratings

import (
	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// The naive outbox consumer: it applies every delivered event's delta to
// its item's aggregate — a create adds its stars and 1, an edit adds
// new − old, a delete subtracts its old stars and 1 (seeds/002, "Writes,
// edits and deletes") — with no memory of what it has applied. Deltas
// commute, so lateness and reordering do not move its final aggregates;
// a redelivered event is applied twice: a duplicate create counts the
// review twice, a duplicate delete subtracts it twice, a duplicate edit
// adds its difference twice. With each event delivered a second time with
// probability p, independently, the expected excess over all items is
// p·Σ δ over the committed events: p × the live reviews in the count and
// p × their stars in the sum (the runner plans both from the stream).
//
// Memory: the aggregate table, 24 B an item (ratingTally).

// OutboxNaiveParams are the parameters of the naive consumer: none.
type OutboxNaiveParams struct{}

// OutboxNaive applies every delivered review event. Not safe for
// concurrent use.
type OutboxNaive struct {
	t ratingTally
}

// NewOutboxNaive returns an empty naive consumer sized for about items
// items, hashing with seed.
func NewOutboxNaive(items, seed uint64) *OutboxNaive {
	return &OutboxNaive{t: newRatingTally(items, seed)}
}

// Observe applies each Write event's sum and count deltas; other events
// are ignored.
func (a *OutboxNaive) Observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write {
			applyDelta(&a.t, e)
		}
	}
}

// applyDelta adds e's deltas to its item's aggregate: Delta to the sum,
// the kind's 1, 0 or −1 to the count.
func applyDelta(t *ratingTally, e *workload.Event) {
	c := t.ref(e.Key)
	c.x += e.Delta
	switch workload.ReviewKind(e.Actor >> 8 & 0xff) {
	case workload.ReviewCreate:
		c.n++
	case workload.ReviewDelete:
		c.n--
	}
}

// Aggregate returns the item's sum and count (Aggregate).
func (a *OutboxNaive) Aggregate(item uint64) (sum, count int64) {
	c := a.t.get(item)
	return c.x, c.n
}

// Bytes is the memory of the aggregate table.
func (a *OutboxNaive) Bytes() int64 { return a.t.bytes() }

func (a *OutboxNaive) check() error { return a.t.d.Check(a.t.seed) }

// AppliesEveryDelta marks the naive consumer (DeltaApplier).
func (a *OutboxNaive) AppliesEveryDelta() {}

var _ strategies.DeltaApplier = (*OutboxNaive)(nil)

func init() {
	strategies.Define("outbox-naive", "keep each item's rating sum and count from a review outbox by applying every delivered event's delta: a redelivered event is applied twice, so the aggregates drift",
		func(_ *OutboxNaiveParams, env strategies.Env) (strategies.Strategy, error) {
			return NewOutboxNaive(env.Keys, env.Seed), nil
		},
		func(_ *OutboxNaiveParams, env strategies.Env) []strategies.PlanLine {
			return []strategies.PlanLine{ratingPlanBytes(env)}
		},
		strategies.Answers(strategies.FamilyAggregate))
}

// planZeroDrift is the plan lines of a consumer whose aggregates are
// exact: no drift in the counts or the sums.
func planZeroDrift(why string) []strategies.PlanLine {
	return []strategies.PlanLine{
		{Metric: metrics.AggCountDrift, Value: 0, Unit: "reviews", Note: why},
		{Metric: metrics.AggSumDrift, Value: 0, Unit: "stars", Note: why},
		{Metric: metrics.AggItemsDrifted, Value: 0, Unit: "items", Note: why},
		{Metric: metrics.RankMoved, Value: 0, Unit: "places", Note: "exact aggregates rank as the truth's"},
	}
}
