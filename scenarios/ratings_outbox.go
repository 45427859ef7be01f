package scenarios

// The rating-outbox run (`workload: {reviews: {…}, outbox: {…}, …}`, issue
// 29): reviews are created, edited and deleted; each change goes to an
// outbox in the review's transaction, and the designs — consumers of the
// outbox — keep each item's rating sum and count, held against the review
// table's (seeds/002, "Writes, edits and deletes").

// RatingOutbox is a rating-outbox run: the review lifecycle, the outbox
// that delivers it, the ranking the aggregates feed, and the batch size.
type RatingOutbox struct {
	Stream ReviewStream `key:"reviews" required:"true" doc:"reviews of items created, edited and deleted, their popularity Zipf and their stars drawn around hidden qualities (a rating-outbox run)"`
	Outbox Outbox       `key:"outbox" doc:"how the outbox delivers each change: at least once, late, perhaps twice"`
	// Top, PriorMean and Weight are the ranking the aggregates serve: the
	// Bayesian average (C·m + sum)/(C + count) of each item, its top K.
	Top       int     `key:"top" range:"1..1000" default:"10" doc:"K: the ranking's top K, by the Bayesian average of each design's aggregates against the truth's"`
	PriorMean float64 `key:"prior_mean" range:"1..5" default:"4" doc:"the ranking's prior mean m in stars"`
	Weight    float64 `key:"weight" range:">=0" default:"20" doc:"the ranking's prior weight C in pseudo-reviews"`
	Batch     int     `key:"batch" range:"1..1048576" default:"4096" doc:"deliveries handed to the designs at a time"`
	Pos       Pos     // the workload key
}

// ReviewStream is the lifecycle: Events changes to reviews of Items items.
type ReviewStream struct {
	Items   uint64  `key:"items" range:"1..1e9" required:"true" doc:"items that can be reviewed"`
	Events  int64   `key:"events" range:"1..100000000" required:"true" doc:"lifecycle events committed (creates, edits, deletes), one a tick"`
	S       float64 `key:"s" range:">=0" default:"1" doc:"the Zipf exponent of the items' popularity: a create reviews the item of rank r with probability ∝ r^-s"`
	Scale   *Scale  `key:"scale" defaultdoc:"1..5" doc:"the star scale, min and max stars, within 1..5"`
	Quality Quality `key:"quality" required:"true" doc:"the items' hidden qualities (mean stars), uniform from min to max within the scale; a review of quality q is lo + Binomial(hi − lo, (q − lo)/(hi − lo)) stars, and so is an edit's new stars"`
	// EditShare and DeleteShare are the probabilities that an event edits
	// or deletes a live review, picked uniformly; the rest are creates.
	EditShare   float64 `key:"edit_share" range:"[0,1]" default:"0.2" doc:"the probability that an event edits a live review (new stars redrawn, the next version)"`
	DeleteShare float64 `key:"delete_share" range:"[0,1]" default:"0.1" doc:"the probability that an event deletes a live review; edit_share + delete_share at most 1, the rest creates"`
	Pos         Pos     // the reviews key
}

// Outbox is the delivery model: each change is delivered after an
// exponential delay, and a second time with probability Redeliver.
type Outbox struct {
	Redeliver float64 `key:"redeliver" range:"[0,1]" default:"0.01" doc:"the probability that a change is delivered a second time (an at-least-once relay)"`
	Delay     float64 `key:"delay" range:">=0" default:"50" doc:"the mean delay of a change's first delivery after its commit, in ticks: exponential, so changes arrive late and out of order (0: at once)"`
	Retry     float64 `key:"retry" range:">=0" default:"500" doc:"the mean delay of the second delivery after the first, in ticks: exponential (0: at once)"`
	Pos       Pos
}

func init() {
	defineKind(&kindDef{name: "rating-outbox", order: 7, key: "workload", marker: "reviews", what: "reviews created, edited and deleted through an outbox",
		new: func() Run { return &RatingOutbox{Outbox: Outbox{Redeliver: 0.01, Delay: 50, Retry: 500}} }})
}

func (r *RatingOutbox) Kind() string    { return "rating-outbox" }
func (r *RatingOutbox) Where() Pos      { return r.Pos }
func (r *RatingOutbox) Duration() int64 { return 0 }

func (r *RatingOutbox) refuses(section string) string {
	switch section {
	case "questions":
		return "a rating-outbox run asks for its top K in workload.top"
	case "cluster":
		return "a rating-outbox run keeps its consumers in memory, with no store cluster"
	case "faults":
		return "faults need a timed stream; a rating-outbox run's faults are its outbox's redeliveries and delays, workload.outbox"
	}
	return ""
}

func (r *RatingOutbox) refusal(key string) string {
	switch key {
	case "keys":
		return "a rating-outbox run's keys are its items, workload.reviews.items"
	case "s", "distribution":
		return "a rating-outbox run's popularity law is Zipf with exponent workload.reviews.s"
	case "events":
		return "a rating-outbox run's events are its lifecycle events, workload.reviews.events"
	}
	return ""
}

func (r *RatingOutbox) simulates() []Figure {
	return []Figure{
		{Name: "events", Simulated: float64(r.Stream.Events), SimulatedAt: "workload.reviews.events"},
		{Name: "keys", Simulated: float64(r.Stream.Items), SimulatedAt: "workload.reviews.items"},
	}
}

// ScaleRange returns the scale's fewest and most stars: 1..5 unless given.
func (s *ReviewStream) ScaleRange() (lo, hi int64) {
	if s.Scale == nil {
		return 1, 5
	}
	return s.Scale.Min, s.Scale.Max
}

// check: the qualities lie within the scale, min at most max; the edit and
// delete shares sum to at most 1.
func (s *ReviewStream) check(r *rule) error {
	rs := RatingStream{Scale: s.Scale, Quality: s.Quality}
	if err := rs.check(r); err != nil {
		return err
	}
	if s.EditShare+s.DeleteShare > 1 {
		key := "delete_share"
		if !r.has(key) {
			key = "edit_share"
		}
		if !r.has(key) {
			return r.failHere("edit_share %g + delete_share %g = %g is above 1 (allowed: a sum of at most 1, the rest of the events creates)", s.EditShare, s.DeleteShare, s.EditShare+s.DeleteShare)
		}
		return r.fail(key, "edit_share %g + delete_share %g = %g is above 1 (allowed: a sum of at most 1, the rest of the events creates)", s.EditShare, s.DeleteShare, s.EditShare+s.DeleteShare)
	}
	return nil
}
