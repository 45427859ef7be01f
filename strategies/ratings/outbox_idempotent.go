package ratings

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The idempotent outbox consumer (seeds/002: "make the consumer idempotent
// with a stable review id and version, so replay does not double-apply a
// delta"). It keeps, per review id, the highest version it has applied and
// the review's stars and liveness at that version. An event whose version
// is not above the one kept is dropped: a duplicate, or an older change
// arriving after a newer one. An event with a newer version moves the
// item's aggregate from the kept state to the event's: the sum by
// New − kept stars, the count by live(new) − live(kept). It applies the
// event's state, not its delta, because a delta is relative to the version
// just before it, which may not have arrived yet (v3 before v2): after v3
// the aggregate holds v3's state, and v2, older, is dropped.
//
// Exactness: after every event of a review has been delivered at least
// once, the kept state is its last version's, whatever the order and the
// duplicates, so each item's sum and count equal the review table's. The
// plan is no drift.
//
// Memory: the aggregate table, 24 B an item, and one entry per review ever
// seen, deleted reviews included: 4 B × 2 index slots (at half load),
// 8 B of id and 16 B of state — 32 to 40 B a review. The entry of a
// deleted review is a tombstone: without it a late duplicate of its create
// would bring it back. With a delay bounded by Δ a tombstone could be
// dropped Δ after the delete; the outbox's delays here are exponential,
// unbounded, so the tombstones stay.

// OutboxIdempotentParams are the parameters of the idempotent consumer:
// none.
type OutboxIdempotentParams struct{}

// reviewSeen is what the idempotent consumer keeps of a review: the
// version it applied last, and the stars and liveness then.
type reviewSeen struct {
	version uint64
	stars   int32
	live    bool
}

// OutboxIdempotent applies a review event only if its version is newer
// than the review's last applied. Not safe for concurrent use.
type OutboxIdempotent struct {
	t       ratingTally
	reviews ds.Dense[reviewSeen]
	seed    uint64
	dropped int64
}

// NewOutboxIdempotent returns an empty idempotent consumer sized for about
// items items and reviews reviews, hashing with seed.
func NewOutboxIdempotent(items, reviews, seed uint64) *OutboxIdempotent {
	st := workload.SplitMix(seed ^ 0x7265766965772121) // "review!!"
	d := ds.NewDense[reviewSeen](ratingSlots(reviews))
	d.Keys = make([]uint64, 0, reviews)
	d.Vals = make([]reviewSeen, 0, reviews)
	return &OutboxIdempotent{t: newRatingTally(items, seed), reviews: d, seed: st.Uint64()}
}

// Observe applies each event newer than its review's last applied.
func (a *OutboxIdempotent) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write {
			continue
		}
		r := workload.ReviewOf(e)
		n, added := a.reviews.Slot(r.Review, a.seed)
		s := &a.reviews.Vals[n]
		if !added && r.Version <= s.version {
			a.dropped++
			continue
		}
		c := a.t.ref(r.Item)
		live := r.Live()
		c.x += r.New - int64(s.stars)
		if live != s.live {
			if live {
				c.n++
			} else {
				c.n--
			}
		}
		*s = reviewSeen{version: r.Version, stars: int32(r.New), live: live}
	}
}

// Aggregate returns the item's sum and count (Aggregate).
func (a *OutboxIdempotent) Aggregate(item uint64) (sum, count int64) {
	c := a.t.get(item)
	return c.x, c.n
}

// Reviews returns the review entries held: one per review seen, live or
// deleted.
func (a *OutboxIdempotent) Reviews() int64 { return int64(a.reviews.Len()) }

// Dropped returns the events dropped as not newer than their review's
// last applied version: duplicates and changes that came after a newer
// one.
func (a *OutboxIdempotent) Dropped() int64 { return a.dropped }

// Bytes is the memory of the aggregate table and the review entries.
func (a *OutboxIdempotent) Bytes() int64 { return a.t.bytes() + a.reviews.Bytes() }

// check validates both tables, and that the aggregates are the sums of the
// live reviews' kept stars and counts.
func (a *OutboxIdempotent) check() error {
	if err := a.t.d.Check(a.t.seed); err != nil {
		return err
	}
	if err := a.reviews.Check(a.seed); err != nil {
		return err
	}
	var sum, count, kept, live int64
	for _, c := range a.t.d.Vals {
		sum, count = sum+c.x, count+c.n
	}
	for _, s := range a.reviews.Vals {
		kept += int64(s.stars)
		if s.live {
			live++
		} else if s.stars != 0 {
			return fmt.Errorf("ratings: a deleted review keeps %d stars, want 0", s.stars)
		}
	}
	if sum != kept || count != live {
		return fmt.Errorf("ratings: aggregates total %d stars in %d reviews, the reviews kept %d in %d", sum, count, kept, live)
	}
	return nil
}

var _ strategies.ReviewKeeper = (*OutboxIdempotent)(nil)

// reviewTableBytes is the memory of a review table sized for reviews
// reviews: 4 B an index slot (the power of two ≥ 2·reviews), 8 B of id and
// 16 B of state a review.
func reviewTableBytes(reviews uint64) int64 {
	return 4*int64(ratingSlots(reviews)) + 24*int64(reviews)
}

func init() {
	strategies.Define("outbox-idempotent", "keep each item's rating sum and count from a review outbox, applying an event only if its version is newer than its review's last applied (keyed by review id and version): exact under redelivery and reordering, at one entry a review",
		func(_ *OutboxIdempotentParams, env strategies.Env) (strategies.Strategy, error) {
			return NewOutboxIdempotent(env.Keys, uint64(max(env.Events, 0)), env.Seed), nil
		},
		func(_ *OutboxIdempotentParams, env strategies.Env) []strategies.PlanLine {
			return append(planZeroDrift("every review's last version applied, whatever the order and the duplicates"),
				strategies.PlanLine{Metric: metrics.Bytes, Value: float64(ratingTallyBytes(env.Keys) + reviewTableBytes(uint64(max(env.Events, 0)))), Unit: "B",
					Note: fmt.Sprintf("the aggregate table for %d items, and the review table sized up front for one review an event (%d events): 4 B × the power of two ≥ 2·events of index, 24 B a review", env.Keys, env.Events)})
		},
		strategies.Answers(strategies.FamilyAggregate, strategies.FamilyReviewKeyed))
}
