package ratings

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The naive consumer repaired by periodic recounts (seeds/002: "Aggregates
// drift when bugs, retries or manual fixes bypass the normal path.
// Schedule periodic recounts from the review table or event log and repair
// differences. Keep the recount scoped, for example recently changed items
// first"). Between recounts it is the naive consumer (outbox_naive.go): it
// applies every delivered delta and drifts by each duplicate. It also
// keeps the items it has touched since its last recount. At every multiple
// b of Every ticks (workload.ReviewTick ns each), before the first event
// delivered at or after b, it recounts those items from the review table
// as it stood at b (every change committed before b): it reads each
// item's live review rows — SELECT SUM(stars), COUNT(*) … WHERE item = ? —
// and sets the item's aggregate to them, so the cost of a recount is the
// live reviews of the items recounted, and it repairs every drift those
// items held.
//
// What is left after the last recount, at t: a change committed before t
// whose delivery (first or second) comes at or after t is applied on top
// of a table that already held it, and a duplicate delivered at or after t
// is applied twice, as by the naive consumer. The first is a race of the
// recount with the outbox, and it makes drift where the naive consumer
// alone has none: without any redelivery, a change in flight at a recount
// is counted by the table and again on arrival. So each item's count drift
// is at most the creates and deletes delivered at or after t that were
// committed before t or are second deliveries; the runner plans that
// number from the outbox's delay law (sim/ratings_outbox.go).
//
// Memory: the aggregate table, 24 B an item, and the set of items touched
// since the last recount (a dense set, 12 B an item at most).

// OutboxRecountParams are the parameters of the recounting consumer.
type OutboxRecountParams struct {
	// Every is the recount period R in ticks (one committed event a
	// tick); it must be ≥ 1.
	Every int64 `key:"every" range:"1..1e12" default:"10000" doc:"the recount period R in ticks (a tick is one committed lifecycle event): the items touched since the last recount are recounted from the review table every R ticks"`
}

// OutboxRecount is the naive consumer with a recount of the items it has
// touched every R ticks. Without a ledger (UseLedger) it does not recount.
// Not safe for concurrent use.
type OutboxRecount struct {
	t        ratingTally
	dirty    ds.DenseKeys
	seed     uint64
	every    int64 // ns
	next     int64 // the next recount's time
	ledger   *strategies.ReviewLedger
	recounts int64
	rows     int64
	last     int64
}

// NewOutboxRecount returns an empty recounting consumer of the parameters,
// sized for about items items, hashing with seed.
func NewOutboxRecount(p OutboxRecountParams, items, seed uint64) (*OutboxRecount, error) {
	if err := strategies.ValidateWith("outbox-recount", &p); err != nil {
		return nil, err
	}
	if p.Every > math.MaxInt64/workload.ReviewTick {
		return nil, fmt.Errorf("outbox-recount: every %d ticks overflows the clock", p.Every)
	}
	st := workload.SplitMix(seed ^ 0x7265636f756e7421) // "recount!"
	every := p.Every * workload.ReviewTick
	dirty := ds.NewDense[struct{}](ratingSlots(items))
	dirty.Keys = make([]uint64, 0, items)
	dirty.Vals = make([]struct{}, 0, items)
	return &OutboxRecount{t: newRatingTally(items, seed), dirty: dirty,
		seed: st.Uint64(), every: every, next: every, last: -1}, nil
}

// UseLedger gives the consumer the review table it recounts from
// (Recounter).
func (a *OutboxRecount) UseLedger(l *strategies.ReviewLedger) { a.ledger = l }

// Observe applies each event's deltas, recounting first at every period
// boundary at or before the event's time.
func (a *OutboxRecount) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		for e.At >= a.next && a.ledger != nil {
			a.recount(a.next)
			a.next += a.every
		}
		if e.Op != workload.Write {
			continue
		}
		applyDelta(&a.t, e)
		a.dirty.Slot(e.Key, a.seed)
	}
}

// recount sets every touched item's aggregate to the review table's at t.
func (a *OutboxRecount) recount(t int64) {
	for _, item := range a.dirty.Keys {
		sum, count := a.ledger.AsOf(item, t)
		c := a.t.ref(item)
		c.x, c.n = sum, count
		a.rows += count
	}
	a.dirty.Reset()
	a.recounts++
	a.last = t
}

// Recounts returns the recounts done, the review rows read and the last
// recount's time (Recounter).
func (a *OutboxRecount) Recounts() (recounts, rows, last int64) { return a.recounts, a.rows, a.last }

// Period returns the recount period R in ns (Recounter).
func (a *OutboxRecount) Period() int64 { return a.every }

// Aggregate returns the item's sum and count (Aggregate).
func (a *OutboxRecount) Aggregate(item uint64) (sum, count int64) {
	c := a.t.get(item)
	return c.x, c.n
}

// Bytes is the memory of the aggregate table and the touched set.
func (a *OutboxRecount) Bytes() int64 { return a.t.bytes() + a.dirty.Bytes() }

func (a *OutboxRecount) check() error {
	if err := a.t.d.Check(a.t.seed); err != nil {
		return err
	}
	if err := a.dirty.Check(a.seed); err != nil {
		return err
	}
	for _, item := range a.dirty.Keys {
		if a.t.d.Find(item, a.t.seed) < 0 {
			return fmt.Errorf("ratings: touched item %#x has no aggregate", item)
		}
	}
	return nil
}

var _ strategies.Recounter = (*OutboxRecount)(nil)

func init() {
	strategies.Define("outbox-recount", "the naive outbox consumer, repaired every R ticks by recounting the items it touched since the last recount from the review table: drift only from what is delivered after the last recount, at a cost of the live review rows of the items recounted",
		func(p *OutboxRecountParams, env strategies.Env) (strategies.Strategy, error) {
			return NewOutboxRecount(*p, env.Keys, env.Seed)
		},
		func(p *OutboxRecountParams, env strategies.Env) []strategies.PlanLine {
			return []strategies.PlanLine{{Metric: metrics.Bytes, Value: float64(ratingTallyBytes(env.Keys) + 4*int64(ratingSlots(env.Keys)) + 8*int64(env.Keys)), Unit: "B",
				Note: "the aggregate table, and the touched set sized for every item: 4 B × the power of two ≥ 2·items of index, 8 B an item"}}
		},
		strategies.Answers(strategies.FamilyAggregate, strategies.FamilyRecount))
}
