package workload

// Review lifecycles and their outbox (issue 29): reviews of items are
// created, edited and deleted; each change is written to an outbox in the
// review's transaction, and a consumer keeps each item's rating sum and
// count from the outbox, whose events may come twice, or late and out of
// order.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// ReviewKind is what a lifecycle event did to its review.
type ReviewKind uint8

const (
	// ReviewCreate adds a review of New stars: the item's sum gains New,
	// its count 1.
	ReviewCreate ReviewKind = 1 + iota
	// ReviewEdit changes a live review from Old to New stars: the sum
	// gains New − Old, the count is unchanged.
	ReviewEdit
	// ReviewDelete removes a live review of Old stars: the sum loses Old,
	// the count 1.
	ReviewDelete
)

// String returns "create", "edit" or "delete".
func (k ReviewKind) String() string {
	switch k {
	case ReviewCreate:
		return "create"
	case ReviewEdit:
		return "edit"
	case ReviewDelete:
		return "delete"
	}
	return fmt.Sprintf("review-kind(%d)", uint8(k))
}

// MaxReviewStars is the most stars a review event can carry (4 bits).
const MaxReviewStars = 15

// MaxReviewVersion is the highest version a review event can carry (48
// bits).
const MaxReviewVersion = 1<<48 - 1

// Review is one outbox event of a review's lifecycle. Version numbers a
// review's changes 1, 2, 3, …: its create is version 1, each edit the next,
// its delete the last. New is the review's stars after the change (0 once
// deleted), Old before it (0 before its create).
type Review struct {
	Item    uint64
	Review  uint64 // the review's id, ≥ 1, unique in the stream
	Kind    ReviewKind
	Old     int64
	New     int64
	Version uint64
}

// SumDelta is what the change adds to its item's rating sum: New − Old.
func (r Review) SumDelta() int64 { return r.New - r.Old }

// CountDelta is what it adds to its item's rating count: 1, 0 or −1.
func (r Review) CountDelta() int64 {
	switch r.Kind {
	case ReviewCreate:
		return 1
	case ReviewDelete:
		return -1
	}
	return 0
}

// Live says whether the review exists after the change (not deleted).
func (r Review) Live() bool { return r.Kind != ReviewDelete }

// Event encodes r at time at: Op Write, Key the item, ID the review, Delta
// New − Old (what a consumer adds to the sum), and Actor the rest,
// Version<<16 | Kind<<8 | Old<<4 | New. It does not check r: Check does.
func (r Review) Event(at int64) Event {
	return Event{At: at, Key: r.Item, ID: r.Review, Delta: r.New - r.Old, Op: Write,
		Actor: r.Version<<16 | uint64(r.Kind)<<8 | uint64(r.Old)<<4 | uint64(r.New)}
}

// Check says whether r is a well-formed lifecycle event: a review id ≥ 1,
// a known kind, stars in 0..MaxReviewStars, a version in 1..
// MaxReviewVersion, a create of version 1 from 0 stars, an edit of version
// ≥ 2, a delete of version ≥ 2 to 0 stars.
func (r Review) Check() error {
	switch {
	case r.Review == 0:
		return fmt.Errorf("workload: review event of review id 0 (allowed: ids from 1)")
	case r.Kind < ReviewCreate || r.Kind > ReviewDelete:
		return fmt.Errorf("workload: review event of kind %d (allowed: 1 create, 2 edit, 3 delete)", uint8(r.Kind))
	case r.Old < 0 || r.Old > MaxReviewStars || r.New < 0 || r.New > MaxReviewStars:
		return fmt.Errorf("workload: review event of %d → %d stars (allowed: 0..%d)", r.Old, r.New, MaxReviewStars)
	case r.Version < 1 || r.Version > MaxReviewVersion:
		return fmt.Errorf("workload: review event of version %d (allowed: 1..%d)", r.Version, uint64(MaxReviewVersion))
	case r.Kind == ReviewCreate && (r.Version != 1 || r.Old != 0):
		return fmt.Errorf("workload: a create of version %d from %d stars (allowed: version 1 from 0 stars)", r.Version, r.Old)
	case r.Kind != ReviewCreate && r.Version < 2:
		return fmt.Errorf("workload: %s of version %d (allowed: 2 and up; a create is version 1)", r.Kind, r.Version)
	case r.Kind == ReviewDelete && r.New != 0:
		return fmt.Errorf("workload: a delete to %d stars (allowed: 0)", r.New)
	}
	return nil
}

// ReviewOf reads the review event e encodes, unchecked: the hot path of a
// consumer, for events the stream made (Review.Event). It inlines and
// allocates nothing.
func ReviewOf(e *Event) Review {
	return Review{Item: e.Key, Review: e.ID, Kind: ReviewKind(e.Actor >> 8 & 0xff),
		Old: int64(e.Actor >> 4 & 0xf), New: int64(e.Actor & 0xf), Version: e.Actor >> 16}
}

// DecodeReview reads the review event e encodes and checks it: an error
// for an event no Review encodes (Op not Write, Delta not New − Old, a bad
// field), never a panic.
func DecodeReview(e Event) (Review, error) {
	if e.Op != Write {
		return Review{}, fmt.Errorf("workload: review event of op %s (allowed: write)", e.Op)
	}
	r := ReviewOf(&e)
	if err := r.Check(); err != nil {
		return Review{}, err
	}
	if e.Delta != r.SumDelta() {
		return Review{}, fmt.Errorf("workload: review event of delta %d, not new − old = %d", e.Delta, r.SumDelta())
	}
	return r, nil
}

// ReviewTick is the simulated time between two committed lifecycle
// events, in ns: event j commits at j·ReviewTick. Delays are drawn in
// ticks and kept to the ns.
const ReviewTick = 1000

// ReviewsConfig describes a review lifecycle and its outbox. Every field is
// checked by NewReviews.
type ReviewsConfig struct {
	// Seed and Label make the stream reproducible: the same config gives
	// the same events byte for byte.
	Seed  uint64
	Label string
	// Events is the number of lifecycle events committed; it must be in
	// 1..MaxReviewEvents.
	Events int64
	// Items, S, Scramble, ScaleMin, ScaleMax, QualityMin and QualityMax are
	// a Ratings stream's (RatingsConfig): a create's item and stars are
	// that stream's next rating. ScaleMax must be at most MaxReviewStars.
	Items                  uint64
	S                      float64
	Scramble               bool
	ScaleMin, ScaleMax     int64
	QualityMin, QualityMax float64
	// EditShare and DeleteShare are the probabilities that an event edits
	// or deletes a review, picked uniformly among the live ones; both ≥ 0,
	// their sum ≤ 1. The rest, and any event while no review is live, is a
	// create.
	EditShare, DeleteShare float64
	// Redeliver is the probability that the outbox delivers an event a
	// second time, in [0, 1].
	Redeliver float64
	// DelayMean is the mean delay of an event's first delivery after its
	// commit, in ticks, ≥ 0: exponential (0: at once).
	DelayMean float64
	// RetryMean is the mean delay of the second delivery after the first,
	// in ticks, ≥ 0: exponential (0: at once after it).
	RetryMean float64
}

// MaxReviewEvents bounds a review stream, held in memory: 100 M events.
const MaxReviewEvents = 100_000_000

// ReviewBytes is what a review stream holds an event committed: the
// committed event, its deliveries (up to two) and the review's state.
const ReviewBytes = 48 + 2*48 + 24

// Reviews is a review lifecycle, committed in order, and its outbox's
// deliveries.
//
// The lifecycle. Event j commits at j·ReviewTick ns. With u a uniform draw:
// u < EditShare edits a live review picked uniformly (its stars redrawn
// from its item's law, the same law as a rating's: possibly unchanged);
// EditShare ≤ u < EditShare + DeleteShare deletes one; otherwise, and when
// no review is live, the next rating of the Ratings stream of the same
// (Seed, Label, Items, S, scale, qualities) is created as a review, ids
// 1, 2, 3… in order of creation.
//
// The outbox. Each committed event is delivered at its commit plus D1 ~
// Exponential(DelayMean ticks), and with probability Redeliver a second
// time, at its first delivery plus D2 ~ Exponential(RetryMean ticks), the
// draws independent of each other and of the lifecycle (an at-least-once
// outbox relay that crashed before recording a send). The deliveries are
// in order of time (ties by commit, then first before second), so an
// event can arrive after later ones: late, out of order.
//
// Determinism. The lifecycle is drawn in order from SplitMix64 generators
// seeded by (Seed, Label); the deliveries of event j from one seeded by
// (Seed, Label, j). NewReviews is O(Events·log Events) and holds
// ReviewBytes an event.
type Reviews struct {
	cfg       ReviewsConfig
	ratings   *Ratings
	committed []Event
	delivered []Event
	commitOf  []int64 // the commit index of each delivery
	creates   int64
	edits     int64
	deletes   int64
	twice     int64 // events delivered twice
}

// NewReviews validates cfg and draws its lifecycle and deliveries.
func NewReviews(cfg ReviewsConfig) (*Reviews, error) {
	if cfg.Events < 1 || cfg.Events > MaxReviewEvents {
		return nil, fmt.Errorf("workload: reviews events %d not in [1, %d]", cfg.Events, MaxReviewEvents)
	}
	if cfg.ScaleMax > MaxReviewStars {
		return nil, fmt.Errorf("workload: reviews scale max %d above %d", cfg.ScaleMax, MaxReviewStars)
	}
	ok := func(p float64) bool { return p >= 0 && p <= 1 } // NaN fails
	if !ok(cfg.EditShare) || !ok(cfg.DeleteShare) || !(cfg.EditShare+cfg.DeleteShare <= 1) {
		return nil, fmt.Errorf("workload: reviews edit share %v and delete share %v not each in [0, 1] with a sum <= 1", cfg.EditShare, cfg.DeleteShare)
	}
	if !ok(cfg.Redeliver) {
		return nil, fmt.Errorf("workload: reviews redelivery probability %v not in [0, 1]", cfg.Redeliver)
	}
	finite := func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }
	if !finite(cfg.DelayMean) || !finite(cfg.RetryMean) {
		return nil, fmt.Errorf("workload: reviews delay mean %v and retry mean %v not finite numbers >= 0", cfg.DelayMean, cfg.RetryMean)
	}
	rs, err := NewRatings(RatingsConfig{Seed: cfg.Seed, Label: cfg.Label, Ratings: cfg.Events, Items: cfg.Items, S: cfg.S,
		Scramble: cfg.Scramble, ScaleMin: cfg.ScaleMin, ScaleMax: cfg.ScaleMax, QualityMin: cfg.QualityMin, QualityMax: cfg.QualityMax})
	if err != nil {
		return nil, err
	}
	s := &Reviews{cfg: cfg, ratings: rs}
	s.commit()
	s.deliver()
	return s, nil
}

// review is the state of a review while the lifecycle is drawn.
type review struct {
	item    uint64
	stars   int64
	version uint64
	at      int // its place in live
}

func (s *Reviews) commit() {
	const tag = 0x7265766965777321 // "reviews!"
	label := xxhash.Sum64String(s.cfg.Label)
	g := SplitMix(SplitMix64(SplitMix64(s.cfg.Seed^tag) ^ label))
	s.committed = make([]Event, 0, s.cfg.Events)
	var reviews []review
	var live []uint64 // ids of the live reviews
	var buf []Event   // the Ratings chunk creates read from
	next, chunk := 0, 0
	lo, w := float64(s.cfg.ScaleMin), float64(s.cfg.ScaleMax-s.cfg.ScaleMin)
	for j := range s.cfg.Events {
		u := float64(g.Uint64()>>11) * 0x1p-53
		var r Review
		switch {
		case len(live) > 0 && u < s.cfg.EditShare+s.cfg.DeleteShare:
			id := live[g.Uint64()%uint64(len(live))]
			v := &reviews[id-1]
			v.version++
			r = Review{Item: v.item, Review: id, Old: v.stars, Version: v.version}
			if u < s.cfg.EditShare {
				cut := (s.ratings.Quality(s.ratings.RankOf(v.item)) - lo) / w * 0x1p53
				stars := s.cfg.ScaleMin
				for range s.cfg.ScaleMax - s.cfg.ScaleMin {
					if float64(g.Uint64()>>11) < cut {
						stars++
					}
				}
				r.Kind, r.New, v.stars = ReviewEdit, stars, stars
				s.edits++
			} else {
				r.Kind = ReviewDelete
				last := live[len(live)-1]
				live[v.at] = last
				reviews[last-1].at = v.at
				live = live[:len(live)-1]
				s.deletes++
			}
		default:
			if next == len(buf) {
				buf = s.ratings.Chunk(chunk, buf)
				chunk, next = chunk+1, 0
			}
			e := buf[next]
			next++
			id := uint64(len(reviews) + 1)
			reviews = append(reviews, review{item: e.Key, stars: e.Delta, version: 1, at: len(live)})
			live = append(live, id)
			r = Review{Item: e.Key, Review: id, Kind: ReviewCreate, New: e.Delta, Version: 1}
			s.creates++
		}
		s.committed = append(s.committed, r.Event(j*ReviewTick))
	}
}

// exponential returns a draw of Exponential(mean ticks) in ns, from the
// top 53 bits of x.
func exponential(x uint64, mean float64) int64 {
	if mean == 0 {
		return 0
	}
	u := float64(x>>11) * 0x1p-53
	return int64(math.Round(-mean * ReviewTick * math.Log1p(-u)))
}

func (s *Reviews) deliver() {
	const tag = 0x6f7574626f782121 // "outbox!!"
	base := SplitMix64(SplitMix64(s.cfg.Seed^tag) ^ xxhash.Sum64String(s.cfg.Label))
	type copyOf struct {
		at     int64
		commit int64
		second bool
	}
	copies := make([]copyOf, 0, len(s.committed)+int(float64(len(s.committed))*s.cfg.Redeliver)+16)
	cut := s.cfg.Redeliver * 0x1p53
	for j, e := range s.committed {
		g := SplitMix(Mix64(base ^ uint64(j)))
		first := e.At + exponential(g.Uint64(), s.cfg.DelayMean)
		copies = append(copies, copyOf{at: first, commit: int64(j)})
		if float64(g.Uint64()>>11) < cut {
			copies = append(copies, copyOf{at: first + exponential(g.Uint64(), s.cfg.RetryMean), commit: int64(j), second: true})
			s.twice++
		}
	}
	slices.SortFunc(copies, func(a, b copyOf) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		if c := cmp.Compare(a.commit, b.commit); c != 0 {
			return c
		}
		if a.second == b.second {
			return 0
		}
		if a.second {
			return 1
		}
		return -1
	})
	s.delivered = make([]Event, len(copies))
	s.commitOf = make([]int64, len(copies))
	for i, c := range copies {
		e := s.committed[c.commit]
		e.At = c.at
		s.delivered[i] = e
		s.commitOf[i] = c.commit
	}
}

// Config returns the stream's config.
func (s *Reviews) Config() ReviewsConfig { return s.cfg }

// Ratings returns the ratings stream creates are drawn from (its items'
// keys, popularity and qualities).
func (s *Reviews) Ratings() *Ratings { return s.ratings }

// Committed returns the lifecycle events in commit order, At their commit
// time. The slice is the stream's own: do not modify it.
func (s *Reviews) Committed() []Event { return s.committed }

// Delivered returns the outbox's deliveries in order of time, At their
// delivery time. The slice is the stream's own: do not modify it.
func (s *Reviews) Delivered() []Event { return s.delivered }

// CommitOf returns the index in Committed of delivery i.
func (s *Reviews) CommitOf(i int) int64 { return s.commitOf[i] }

// Counts returns how many events were creates, edits and deletes.
func (s *Reviews) Counts() (creates, edits, deletes int64) { return s.creates, s.edits, s.deletes }

// Twice returns how many events were delivered twice.
func (s *Reviews) Twice() int64 { return s.twice }

// Chunks returns the chunks of the deliveries, DefaultChunkSize each.
func (s *Reviews) Chunks() int { return (len(s.delivered)-1)/DefaultChunkSize + 1 }

// Chunk fills buf[:0] with the deliveries of chunk i, in [0, Chunks()),
// and returns it; it grows buf only when cap(buf) is below the chunk's
// length. It may be called from many goroutines at once. It panics if i
// is out of range.
func (s *Reviews) Chunk(i int, buf []Event) []Event {
	if i < 0 || i >= s.Chunks() {
		panic(fmt.Sprintf("workload: reviews chunk %d not in [0, %d)", i, s.Chunks()))
	}
	start := i * DefaultChunkSize
	end := min(start+DefaultChunkSize, len(s.delivered))
	return append(buf[:0], s.delivered[start:end]...)
}

// LateAfter returns the probability that an event's first delivery comes
// more than x ns after its commit: P(D1 > x) = e^(−x/L), L = DelayMean
// ticks (1 for x < 0; 0 for x ≥ 0 when L = 0).
func (s *Reviews) LateAfter(x float64) float64 { return survival(x, s.cfg.DelayMean*ReviewTick) }

// SecondAfter returns the probability that an event's second delivery,
// given there is one, comes more than x ns after its commit: P(D1 + D2 >
// x), the sum of two exponentials of means L and M (L = DelayMean, M =
// RetryMean ticks): (L·e^(−x/L) − M·e^(−x/M))/(L − M), or e^(−x/L)·(1 +
// x/L) when L = M.
func (s *Reviews) SecondAfter(x float64) float64 {
	l, m := s.cfg.DelayMean*ReviewTick, s.cfg.RetryMean*ReviewTick
	switch {
	case x < 0:
		return 1
	case l == 0 || m == 0:
		return survival(x, l+m)
	case l == m:
		return math.Exp(-x/l) * (1 + x/l)
	}
	return (l*math.Exp(-x/l) - m*math.Exp(-x/m)) / (l - m)
}

// survival is P(D > x) for D ~ Exponential(mean), a point mass at 0 when
// mean is 0.
func survival(x, mean float64) float64 {
	switch {
	case x < 0:
		return 1
	case mean == 0:
		return 0
	}
	return math.Exp(-x / mean)
}
