package ratings

import (
	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// The naive average: an item's score is the plain mean of its stars,
// Σ ratings / n. It is what `ORDER BY AVG(stars) DESC` gives, and the
// reason sites do not rank by it: an item with a single 5-star rating has
// the highest score there is, so the top of the list is taken by items
// rated once or twice (Evan Miller, "How Not To Sort By Average Rating",
// 2009). It is kept as the baseline the Bayesian average and the Wilson
// lower bound fix.
//
// It keeps per item the number of ratings and the sum of their stars
// (ratingTally, 24 B an item), so a score is exact; Observe is one probe of
// the item's slot and two additions a rating.

// NaiveAverageParams are the parameters of the naive average: none.
type NaiveAverageParams struct{}

// NaiveAverage ranks items by the mean of their stars. Not safe for
// concurrent use.
type NaiveAverage struct {
	t ratingTally
}

// NewNaiveAverage returns an empty naive average sized for about items
// items, hashing with seed.
func NewNaiveAverage(items, seed uint64) *NaiveAverage {
	return &NaiveAverage{t: newRatingTally(items, seed)}
}

// Observe adds each Write event's Delta to its item's stars.
func (a *NaiveAverage) Observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write {
			c := a.t.ref(e.Key)
			c.n++
			c.x += e.Delta
		}
	}
}

// Bytes is the memory of the tally.
func (a *NaiveAverage) Bytes() int64 { return a.t.bytes() }

// naiveScore is Σ ratings / n, and 0 for no ratings.
func naiveScore(c ratingCounts) float64 {
	if c.n == 0 {
		return 0
	}
	return float64(c.x) / float64(c.n)
}

// Score returns the mean stars of item and its ratings; 0 and 0 for an
// item never rated.
func (a *NaiveAverage) Score(item uint64) (float64, int64) {
	c := a.t.get(item)
	return naiveScore(c), c.n
}

// Top returns the k items of highest mean stars (Rating).
func (a *NaiveAverage) Top(k int) []strategies.Rated { return a.t.top(k, naiveScore) }

var _ strategies.Rating = (*NaiveAverage)(nil)

func init() {
	strategies.Define("naive-average", "rank items by the plain mean of their stars, Σ ratings / n: the baseline that one 5-star rating tops",
		func(_ *NaiveAverageParams, env strategies.Env) (strategies.Strategy, error) {
			return NewNaiveAverage(env.Keys, env.Seed), nil
		},
		func(_ *NaiveAverageParams, env strategies.Env) []strategies.PlanLine {
			return []strategies.PlanLine{
				{Metric: metrics.OneFiveStar, Value: 5, Unit: "stars", Note: "one 5-star review: 5 / 1 = 5, the top of the scale"},
				ratingPlanBytes(env),
			}
		},
		strategies.Answers(strategies.FamilyRating))
}
