package strategies

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"countsim/workload"
)

// The rating family: designs that rank items by a score of their star
// ratings (issue 10). A rating is a Write event: Key the item, Delta its
// stars; Read and Set events are ignored. The designs (naive-average,
// bayesian-average, wilson: one file each) keep per item the number of
// ratings and one more integer — the sum of the stars, or the up votes —
// and compute the score when asked, so they are exact: a score is its
// formula applied to the item's exact counts.

// FamilyRating is the question of the rating designs: a score per item and
// the top k items by score.
const FamilyRating Family = "rating"

// Rating ranks rated items by a score.
type Rating interface {
	Strategy
	// Score returns the item's score and how many ratings it has. An item
	// never rated has 0 ratings and the design's score of no ratings (its
	// doc says which). It may be called between batches.
	Score(item uint64) (score float64, ratings int64)
	// Top returns the k rated items of highest score, highest first, ties
	// by Key ascending: a deterministic answer whatever the order the
	// items came in. Fewer when fewer items are rated; none for k ≤ 0.
	// The slice is freshly allocated.
	Top(k int) []Rated
}

// Rated is one item of a Rating design's answer.
type Rated struct {
	Key     uint64
	Score   float64
	Ratings int64
}

// Before is the family's order: higher score first, then lower key.
func (a Rated) Before(b Rated) bool {
	return a.Score > b.Score || a.Score == b.Score && a.Key < b.Key
}

// The aggregate family (issue 29): consumers of a review outbox. A review
// is created, edited and deleted; each change is an outbox event
// (workload.Review: the item, the review id, its kind, its stars before
// and after, its version), and the consumer keeps each item's rating sum
// and count — the serving row a ranking reads. The outbox may deliver an
// event twice, or late and out of order; the designs (outbox-naive,
// outbox-idempotent, outbox-recount) differ in what that does to their
// aggregates.

// FamilyAggregate is the question of the outbox consumers: an item's
// rating sum and count.
const FamilyAggregate Family = "rating-aggregate"

// FamilyRecount is declared by an Aggregate that recounts from the review
// table (Recounter), and FamilyReviewKeyed by one that keeps an entry per
// review (ReviewKeeper): the runner knows before any design is built which
// measure recounts and entries.
const (
	FamilyRecount     Family = "recount"
	FamilyReviewKeyed Family = "review-keyed"
)

// DeltaApplier is an Aggregate that applies every delivery's delta as it
// comes, with no memory of what it applied (the naive consumer): each
// redelivered event is applied twice, so its expected excess over all
// items is the redelivery probability times the sum of every committed
// delta, which the runner plans from the stream.
type DeltaApplier interface {
	Aggregate
	AppliesEveryDelta()
}

// ReviewKeeper is an Aggregate that keeps an entry per review to apply
// each change once.
type ReviewKeeper interface {
	Aggregate
	// Reviews is the entries held, one per review seen (live or deleted).
	Reviews() int64
	// Dropped is the deliveries dropped as not newer than the review's
	// last applied change.
	Dropped() int64
}

// Aggregate keeps items' rating sums and counts from an outbox's events.
// Observe takes the deliveries in order of delivery (At ascending). A
// design states in its doc whether its aggregates equal the truth under
// redelivery; none of them errs in a declared direction (a duplicate
// delete subtracts), so the family has no Bias.
type Aggregate interface {
	Strategy
	// Aggregate returns the item's rating sum and count as the design
	// holds them; 0, 0 for an item it never saw. It may be called between
	// batches.
	Aggregate(item uint64) (sum, count int64)
}

// Recounter is an Aggregate that repairs its aggregates from the review
// table (seeds/002: "schedule periodic recounts from the review table or
// event log and repair differences"). The runner gives it the table once,
// before the first batch.
type Recounter interface {
	Aggregate
	// UseLedger gives the design the review table to recount from. It is
	// read-only and shared by every design of a run.
	UseLedger(l *ReviewLedger)
	// Recounts returns the recounts done so far, the review rows they
	// read, and the time (ns) of the last one (−1: none yet).
	Recounts() (recounts, rows, last int64)
	// Period is the time between two recounts, in ns.
	Period() int64
}

// ReviewLedger is the review table as of any time: for each item, its
// committed changes in commit order with the running sum and count after
// each, so that the item's aggregate as it stood at time t is one binary
// search. It is built once from the committed lifecycle and never changes,
// so many designs may read it at once. Memory: 24 B a committed event and
// 4 B (plus a map entry) an item.
type ReviewLedger struct {
	index map[uint64]int32 // item key → its number
	start []int32          // item n's changes are at[start[n]:start[n+1]]
	at    []int64          // the commit time of each change
	sum   []int64          // the item's sum after it
	count []int64          // the item's count (live reviews) after it
	times []int64          // every commit time, ascending
	live  []int64          // live reviews of every item after each commit
}

// NewReviewLedger builds the ledger of a committed lifecycle, in commit
// order (At ascending); an event that is not a review event, or out of
// order, is refused.
func NewReviewLedger(committed []workload.Event) (*ReviewLedger, error) {
	l := &ReviewLedger{index: map[uint64]int32{}}
	var per []int32 // changes an item
	var items []int32
	for i := range committed {
		e := &committed[i]
		if _, err := workload.DecodeReview(*e); err != nil {
			return nil, fmt.Errorf("strategies: committed event %d: %w", i, err)
		}
		if i > 0 && e.At < committed[i-1].At {
			return nil, fmt.Errorf("strategies: committed event %d at %d ns before the one before it, at %d", i, e.At, committed[i-1].At)
		}
		n, ok := l.index[e.Key]
		if !ok {
			n = int32(len(per))
			l.index[e.Key] = n
			per = append(per, 0)
		}
		per[n]++
		items = append(items, n)
	}
	l.start = make([]int32, len(per)+1)
	for n, c := range per {
		l.start[n+1] = l.start[n] + c
	}
	fill := slices.Clone(l.start[:len(per)])
	l.at = make([]int64, len(committed))
	l.sum = make([]int64, len(committed))
	l.count = make([]int64, len(committed))
	l.times = make([]int64, len(committed))
	l.live = make([]int64, len(committed))
	var live int64
	for i := range committed {
		r := workload.ReviewOf(&committed[i])
		n := items[i]
		j := fill[n]
		fill[n]++
		var s, c int64
		if j > l.start[n] {
			s, c = l.sum[j-1], l.count[j-1]
		}
		l.at[j], l.sum[j], l.count[j] = committed[i].At, s+r.SumDelta(), c+r.CountDelta()
		live += r.CountDelta()
		l.times[i], l.live[i] = committed[i].At, live
	}
	return l, nil
}

// AsOf returns the item's sum and count as the review table held them at
// time t: every change committed before t, none at or after.
func (l *ReviewLedger) AsOf(item uint64, t int64) (sum, count int64) {
	n, ok := l.index[item]
	if !ok {
		return 0, 0
	}
	lo, hi := int(l.start[n]), int(l.start[n+1])
	j := lo + sort.Search(hi-lo, func(i int) bool { return l.at[lo+i] >= t })
	if j == lo {
		return 0, 0
	}
	return l.sum[j-1], l.count[j-1]
}

// Final returns the item's sum and count after every change.
func (l *ReviewLedger) Final(item uint64) (sum, count int64) { return l.AsOf(item, math.MaxInt64) }

// LiveBefore returns the live reviews of every item at time t (changes
// committed before t): the rows a full recount at t reads.
func (l *ReviewLedger) LiveBefore(t int64) int64 {
	j := sort.Search(len(l.times), func(i int) bool { return l.times[i] >= t })
	if j == 0 {
		return 0
	}
	return l.live[j-1]
}

// Items returns the items the ledger holds, in order of their first
// change.
func (l *ReviewLedger) Items() []uint64 {
	keys := make([]uint64, len(l.index))
	for k, n := range l.index {
		keys[n] = k
	}
	return keys
}

// Bytes is the ledger's memory: its arrays, 16 B a map entry.
func (l *ReviewLedger) Bytes() int64 {
	return int64(len(l.at))*(8*5) + int64(len(l.start))*4 + int64(len(l.index))*16
}
