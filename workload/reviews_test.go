package workload

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func reviewsConfig() ReviewsConfig {
	return ReviewsConfig{Seed: 3, Label: "reviews", Events: 60_000, Items: 500, S: 1, Scramble: true,
		ScaleMin: 1, ScaleMax: 5, QualityMin: 2, QualityMax: 4.8, EditShare: 0.25, DeleteShare: 0.15,
		Redeliver: 0.02, DelayMean: 40, RetryMean: 400}
}

// The lifecycle is a valid one: every event well formed, ids in order of
// creation, each review's versions 1, 2, 3… in commit order, its create
// first and nothing after its delete, an edit's and a delete's old stars
// the review's stars then; the deliveries are every event once or twice,
// in order of time, none before its commit and the second after the first.
func TestReviewsLifecycle(t *testing.T) {
	s, err := NewReviews(reviewsConfig())
	if err != nil {
		t.Fatal(err)
	}
	type state struct {
		item    uint64
		stars   int64
		version uint64
		deleted bool
	}
	reviews := map[uint64]*state{}
	var creates, edits, deletes int64
	for j, e := range s.Committed() {
		r, err := DecodeReview(e)
		if err != nil {
			t.Fatalf("event %d: %v", j, err)
		}
		if e.At != int64(j)*ReviewTick {
			t.Fatalf("event %d at %d, want %d", j, e.At, int64(j)*ReviewTick)
		}
		st := reviews[r.Review]
		switch r.Kind {
		case ReviewCreate:
			creates++
			if st != nil || r.Review != uint64(len(reviews)+1) {
				t.Fatalf("event %d creates review %d, with %d before it", j, r.Review, len(reviews))
			}
			reviews[r.Review] = &state{item: r.Item, stars: r.New, version: 1}
			continue
		case ReviewEdit:
			edits++
		case ReviewDelete:
			deletes++
		}
		if st == nil || st.deleted || st.item != r.Item || st.stars != r.Old || r.Version != st.version+1 {
			t.Fatalf("event %d: %+v on review state %+v", j, r, st)
		}
		st.stars, st.version, st.deleted = r.New, r.Version, r.Kind == ReviewDelete
		if r.New < 1 && !st.deleted || r.New > 5 {
			t.Fatalf("event %d: %d stars off the scale", j, r.New)
		}
	}
	if c, e, d := s.Counts(); c != creates || e != edits || d != deletes {
		t.Errorf("Counts %d %d %d, counted %d %d %d", c, e, d, creates, edits, deletes)
	}
	// Shares: edits and deletes are Binomial(N, share) but for the few
	// events drawn while no review was live (the first, at least): within
	// 6σ + 10.
	n := float64(reviewsConfig().Events)
	for _, c := range []struct {
		name  string
		got   int64
		share float64
	}{{"edits", edits, 0.25}, {"deletes", deletes, 0.15}} {
		if sd := math.Sqrt(n * c.share * (1 - c.share)); math.Abs(float64(c.got)-n*c.share) > 6*sd+10 {
			t.Errorf("%s %d, want %g ± %.0f", c.name, c.got, n*c.share, 6*sd+10)
		}
	}
	deliveries := map[int64][]int64{}
	prev := int64(math.MinInt64)
	for i, e := range s.Delivered() {
		c := s.CommitOf(i)
		ce := s.Committed()[c]
		if e.At < prev || e.At < ce.At {
			t.Fatalf("delivery %d at %d: after %d, commit at %d", i, e.At, prev, ce.At)
		}
		prev = e.At
		at := e.At
		e.At = ce.At
		if e != ce {
			t.Fatalf("delivery %d is not its commit's event: %+v, %+v", i, e, ce)
		}
		deliveries[c] = append(deliveries[c], at)
	}
	var twice int64
	for j := range s.Committed() {
		switch d := deliveries[int64(j)]; len(d) {
		case 1:
		case 2:
			twice++
		default:
			t.Fatalf("event %d delivered %d times", j, len(d))
		}
	}
	if twice != s.Twice() {
		t.Errorf("Twice %d, counted %d", s.Twice(), twice)
	}
	if sd := math.Sqrt(n * 0.02 * 0.98); math.Abs(float64(twice)-n*0.02) > 6*sd {
		t.Errorf("%d delivered twice, want %g ± %.0f", twice, n*0.02, 6*sd)
	}
	// Chunks cut the deliveries and nothing else.
	var all []Event
	var buf []Event
	for i := range s.Chunks() {
		buf = s.Chunk(i, buf)
		all = append(all, buf...)
	}
	if !slices.Equal(all, s.Delivered()) {
		t.Error("the chunks are not the deliveries")
	}
}

// The same config gives the same events; another seed others; the
// creates are the ratings stream's ratings, in order.
func TestReviewsDeterministic(t *testing.T) {
	a, _ := NewReviews(reviewsConfig())
	b, _ := NewReviews(reviewsConfig())
	if !slices.Equal(a.Committed(), b.Committed()) || !slices.Equal(a.Delivered(), b.Delivered()) {
		t.Fatal("the same config gave other events")
	}
	cfg := reviewsConfig()
	cfg.Seed++
	c, _ := NewReviews(cfg)
	if slices.Equal(a.Committed(), c.Committed()) {
		t.Error("another seed gave the same lifecycle")
	}
	var ratings []Event
	for i := range a.Ratings().Chunks() {
		ratings = append(ratings, a.Ratings().Chunk(i, nil)...)
	}
	k := 0
	for _, e := range a.Committed() {
		if r := ReviewOf(&e); r.Kind == ReviewCreate {
			if e.Key != ratings[k].Key || r.New != ratings[k].Delta {
				t.Fatalf("create %d: item %#x, %d stars; the rating: %#x, %d", k, e.Key, r.New, ratings[k].Key, ratings[k].Delta)
			}
			k++
		}
	}
}

// Without delay or redelivery the outbox is the lifecycle, in order.
func TestReviewsInOrder(t *testing.T) {
	cfg := reviewsConfig()
	cfg.Redeliver, cfg.DelayMean, cfg.RetryMean = 0, 0, 0
	s, err := NewReviews(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Committed(), s.Delivered()) {
		t.Error("the deliveries of an outbox without delay are not the lifecycle")
	}
}

// The delay laws: survival functions against their definitions.
func TestReviewsSurvival(t *testing.T) {
	s, _ := NewReviews(reviewsConfig())
	l, m := 40.0*ReviewTick, 400.0*ReviewTick
	for _, x := range []float64{0, 1000, 4e4, 3e5} {
		if got, want := s.LateAfter(x), math.Exp(-x/l); math.Abs(got-want) > 1e-12 {
			t.Errorf("LateAfter(%g) %g, want %g", x, got, want)
		}
		// P(D1 + D2 > x) by numerical integration of the convolution.
		var integral float64
		const steps = 200000
		h := x / steps
		for i := range steps {
			u := (float64(i) + 0.5) * h // D1 = u ≤ x, then D2 > x − u
			integral += math.Exp(-u/l) / l * math.Exp(-(x-u)/m) * h
		}
		want := math.Exp(-x/l) + integral
		if got := s.SecondAfter(x); math.Abs(got-want) > 1e-6 {
			t.Errorf("SecondAfter(%g) %g, want %g", x, got, want)
		}
	}
	if s.LateAfter(-1) != 1 || s.SecondAfter(-1) != 1 {
		t.Error("a delivery is after any time before its commit")
	}
}

func TestReviewsConfigErrors(t *testing.T) {
	for _, c := range []struct {
		edit func(*ReviewsConfig)
		want string
	}{
		{func(c *ReviewsConfig) { c.Events = 0 }, "events 0 not in"},
		{func(c *ReviewsConfig) { c.EditShare, c.DeleteShare = 0.7, 0.4 }, "with a sum <= 1"},
		{func(c *ReviewsConfig) { c.EditShare = math.NaN() }, "edit share NaN"},
		{func(c *ReviewsConfig) { c.Redeliver = 1.5 }, "redelivery probability 1.5"},
		{func(c *ReviewsConfig) { c.DelayMean = -1 }, "delay mean -1"},
		{func(c *ReviewsConfig) { c.RetryMean = math.Inf(1) }, "retry mean +Inf"},
		{func(c *ReviewsConfig) { c.ScaleMin, c.ScaleMax = 10, 16 }, "scale max 16 above 15"},
		{func(c *ReviewsConfig) { c.Items = 0 }, "items 0"},
	} {
		cfg := reviewsConfig()
		c.edit(&cfg)
		if _, err := NewReviews(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// A Review round-trips through its Event; a malformed one is refused.
func TestReviewCodec(t *testing.T) {
	good := []Review{
		{Item: 7, Review: 1, Kind: ReviewCreate, New: 5, Version: 1},
		{Item: 0, Review: 1 << 60, Kind: ReviewEdit, Old: 5, New: 1, Version: 2},
		{Item: math.MaxUint64, Review: 9, Kind: ReviewDelete, Old: 15, Version: MaxReviewVersion},
	}
	for _, r := range good {
		got, err := DecodeReview(r.Event(123))
		if err != nil || got != r {
			t.Errorf("%+v: decoded %+v, %v", r, got, err)
		}
	}
	bad := []Review{
		{Item: 7, Review: 0, Kind: ReviewCreate, New: 5, Version: 1},
		{Item: 7, Review: 1, Kind: 4, New: 5, Version: 2},
		{Item: 7, Review: 1, Kind: ReviewCreate, New: 5, Version: 2},
		{Item: 7, Review: 1, Kind: ReviewCreate, Old: 1, New: 5, Version: 1},
		{Item: 7, Review: 1, Kind: ReviewEdit, Old: 1, New: 5, Version: 1},
		{Item: 7, Review: 1, Kind: ReviewDelete, Old: 1, New: 2, Version: 3},
		{Item: 7, Review: 1, Kind: ReviewEdit, Old: 1, New: 16, Version: 3},
	}
	for _, r := range bad {
		if err := r.Check(); err == nil {
			t.Errorf("%+v passed its check", r)
		}
	}
	e := good[0].Event(0)
	e.Delta++
	if _, err := DecodeReview(e); err == nil {
		t.Error("an event whose delta is not new − old decoded")
	}
	e = good[0].Event(0)
	e.Op = Read
	if _, err := DecodeReview(e); err == nil {
		t.Error("a read decoded as a review event")
	}
}
