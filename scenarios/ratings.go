package scenarios

// The ratings run (`workload: {ratings: {items: N, ratings: M, …}, …}`):
// items rated on a star scale, a few rated often and most a handful of
// times, each with a hidden true quality; the designs rank them (naive
// average, Bayesian average, Wilson lower bound) and their top K is held
// against the truth (issue 10).

// Ratings is a ratings run: the stream of ratings, the questions asked of
// the designs' top K, and the batch size.
type Ratings struct {
	Stream RatingStream `key:"ratings" required:"true" doc:"items rated on a star scale, their popularity Zipf and their hidden qualities uniform (a ratings run)"`
	Top    int          `key:"top" range:"1..1000" default:"10" doc:"K: each design is asked for its top K items"`
	Few    int64        `key:"few" range:"1..1000000" default:"5" doc:"a top-K item rated fewer times than this counts as thinly rated (the report gives the share of the top K)"`
	Enough int64        `key:"enough" range:"1..1e9" default:"30" doc:"the true-quality top K is taken among the items rated at least this many times"`
	Batch  int          `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Pos    Pos          // the workload key
}

// RatingStream is the ratings: Ratings ratings of Items items.
type RatingStream struct {
	Items   uint64  `key:"items" range:"1..1e9" required:"true" doc:"items that can be rated"`
	Ratings int64   `key:"ratings" range:"1..1e10" required:"true" doc:"ratings in the stream"`
	S       float64 `key:"s" range:">=0" default:"1" doc:"the Zipf exponent of the items' popularity: the item of rank r gets a rating with probability ∝ r^-s (0 is uniform)"`
	Scale   *Scale  `key:"scale" defaultdoc:"1..5" doc:"the star scale, min and max stars, within 1..5"`
	// Quality is the law of the items' hidden qualities (their mean
	// stars): uniform on [Min, Max]. A rating of an item of quality q is
	// lo + Binomial(hi − lo, (q − lo)/(hi − lo)) stars on the scale lo..hi.
	Quality Quality `key:"quality" required:"true" doc:"the items' hidden qualities (mean stars), uniform from min to max within the scale; a rating of quality q is lo + Binomial(hi − lo, (q − lo)/(hi − lo)) stars"`
	Pos     Pos     // the ratings key
}

// Scale is the star scale: Min to Max stars.
type Scale struct {
	Min int64 `key:"min" range:"1..5" default:"1" doc:"the fewest stars"`
	Max int64 `key:"max" range:"1..5" default:"5" doc:"the most stars, above min"`
	Pos Pos
}

// Quality is the law of the hidden qualities: uniform on [Min, Max].
type Quality struct {
	Min float64 `key:"min" range:"1..5" required:"true" doc:"the lowest quality, in stars, within the scale"`
	Max float64 `key:"max" range:"1..5" required:"true" doc:"the highest quality, in stars, at least min and within the scale"`
	Pos Pos
}

func init() {
	defineKind(&kindDef{name: "ratings", order: 6, key: "workload", marker: "ratings", what: "items rated on a star scale",
		new: func() Run { return new(Ratings) }})
}

func (r *Ratings) Kind() string    { return "ratings" }
func (r *Ratings) Where() Pos      { return r.Pos }
func (r *Ratings) Duration() int64 { return 0 }

func (r *Ratings) refuses(section string) string {
	switch section {
	case "questions":
		return "a ratings run asks for its top K in workload.top"
	case "cluster":
		return "a ratings run keeps its designs in memory, with no store cluster"
	case "faults":
		return "faults need a timed stream, and a ratings run is not timed"
	}
	return ""
}

func (r *Ratings) refusal(key string) string {
	switch key {
	case "keys":
		return "a ratings run's keys are its items, workload.ratings.items"
	case "s", "distribution":
		return "a ratings run's popularity law is Zipf with exponent workload.ratings.s"
	case "events":
		return "a ratings run's events are its ratings, workload.ratings.ratings"
	}
	return ""
}

func (r *Ratings) simulates() []Figure {
	return []Figure{
		{Name: "events", Simulated: float64(r.Stream.Ratings), SimulatedAt: "workload.ratings.ratings"},
		{Name: "keys", Simulated: float64(r.Stream.Items), SimulatedAt: "workload.ratings.items"},
	}
}

// ScaleRange returns the scale's fewest and most stars: 1..5 unless given.
func (s *RatingStream) ScaleRange() (lo, hi int64) {
	if s.Scale == nil {
		return 1, 5
	}
	return s.Scale.Min, s.Scale.Max
}

// check: max above min.
func (s *Scale) check(r *rule) error {
	if s.Max > s.Min {
		return nil
	}
	key := "max"
	if !r.has("max") {
		key = "min"
	}
	return r.fail(key, "scale %d..%d is empty (allowed: min below max, both in 1..5)", s.Min, s.Max)
}

// check: the qualities lie within the scale, min at most max.
func (s *RatingStream) check(r *rule) error {
	lo, hi := s.ScaleRange()
	q := s.Quality
	qpath := join(r.path, "quality")
	for _, c := range []struct {
		key string
		v   float64
	}{{"min", q.Min}, {"max", q.Max}} {
		if c.v < float64(lo) || c.v > float64(hi) {
			at := r.d.nodes[join(qpath, c.key)]
			return r.d.fail(at, join(qpath, c.key), "%g is outside the scale %d..%d (allowed: %d..%d, the scale's stars)", c.v, lo, hi, lo, hi)
		}
	}
	if q.Max < q.Min {
		at := r.d.nodes[join(qpath, "max")]
		return r.d.fail(at, join(qpath, "max"), "%g is below min, %g (allowed: %g..%d)", q.Max, q.Min, q.Min, hi)
	}
	return nil
}
