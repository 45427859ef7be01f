package scenarios

// A log replayed as ratings (as: ratings): each row an item (the key) rated
// with the stars of a column, ranked by the designs as a ratings run ranks
// its items (issue 25). A star off the scale is a bad line. A log's items
// have no hidden quality: the truth is their ratings and mean stars.

// LogRatings is the keys of a log replayed as ratings.
type LogRatings struct {
	Stars       string `key:"stars" type:"line" doc:"as: ratings: the column of each rating's stars, a whole number on the scale"`
	RatingScale *Scale `key:"scale" defaultdoc:"1..5" doc:"as: ratings: the star scale"`
	Top         int    `key:"top" range:"1..1000" default:"10" doc:"as: ratings: the K of the top K items"`
	Few         int64  `key:"few" range:"1..1000000" default:"5" doc:"as: ratings: an item with fewer ratings than this has few"`
	Enough      int64  `key:"enough" range:"1..1e9" default:"30" doc:"as: ratings: the true-mean top K is taken among the items rated at least this many times"`
	Items       uint64 `key:"items" range:"1..1e9" doc:"as: ratings: the items that can be rated (a catalogue's), for which the designs size their tables, as a ratings run's items (countsim sample writes it); default: the items the log rates"`
}

// RatingsScale is the log's star scale: 1..5 unless given.
func (x *LogRatings) RatingsScale() (lo, hi int64) {
	if x.RatingScale == nil {
		return 1, 5
	}
	return x.RatingScale.Min, x.RatingScale.Max
}

// refuses: what a ratings run refuses.
func (x *LogRatings) refuses(section string) string { return new(Ratings).refuses(section) }

func (x *LogRatings) check(l *Log, r *rule) error {
	if x.Stars == "" {
		return r.failHere("as: ratings needs the column of the stars (allowed: stars: COLUMN)")
	}
	if r.has("delta") {
		return r.failKey("delta", "given with as: ratings, whose stars are the rating (allowed: remove delta)")
	}
	return nil
}
