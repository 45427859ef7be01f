package strategies

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
