package ratings

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// The Bayesian average: an item's score is its mean after C pseudo-ratings
// at the prior mean m have been added to its own,
//
//	score = (C·m + Σ ratings) / (C + n),
//
// the posterior mean of a normal model with a prior worth C ratings
// (Evan Miller, "Bayesian Average Ratings", 2012; the worked example's
// "Ranking is not the raw mean"). With m = 4.0 and C = 20, one 5-star
// review gives (20·4 + 5)/21 = 4.0476, about 4.05, not 5.0: an item rises
// above m only when many ratings say so, and tends to its own mean as n
// grows past C. C = 0 is the naive average.
//
// It keeps per item the number of ratings and the sum of their stars
// (ratingTally, 24 B an item), so a score is exact; Observe is the naive
// average's, and m and C enter only when a score is asked.

// BayesianAverageParams are the parameters of the Bayesian average.
type BayesianAverageParams struct {
	// PriorMean is m, the mean an item is assumed to have before its
	// ratings; it must lie on the star scale, 1..5.
	PriorMean float64 `key:"prior_mean" range:"1..5" default:"4" doc:"the prior mean m in stars: the score of an item with no ratings"`
	// Weight is C, the prior's worth in ratings; it must be ≥ 0.
	Weight float64 `key:"weight" range:">=0" default:"20" doc:"the prior's weight C in pseudo-ratings; 0 is the naive average"`
}

// BayesianAverage ranks items by (C·m + Σ ratings)/(C + n). Not safe for
// concurrent use.
type BayesianAverage struct {
	t    ratingTally
	m, c float64
}

// NewBayesianAverage returns an empty Bayesian average of the parameters,
// sized for about items items, hashing with seed.
func NewBayesianAverage(p BayesianAverageParams, items, seed uint64) (*BayesianAverage, error) {
	if err := strategies.ValidateWith("bayesian-average", &p); err != nil {
		return nil, err
	}
	return &BayesianAverage{t: newRatingTally(items, seed), m: p.PriorMean, c: p.Weight}, nil
}

// Observe adds each Write event's Delta to its item's stars.
func (a *BayesianAverage) Observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write {
			c := a.t.ref(e.Key)
			c.n++
			c.x += e.Delta
		}
	}
}

// Bytes is the memory of the tally.
func (a *BayesianAverage) Bytes() int64 { return a.t.bytes() }

// bayesianScore is (C·m + sum)/(C + n), and m for no ratings (also when
// C = 0, where the formula is 0/0).
func bayesianScore(m, c float64, n, sum int64) float64 {
	if n == 0 {
		return m
	}
	return (c*m + float64(sum)) / (c + float64(n))
}

// Score returns the Bayesian average of item and its ratings; m and 0 for
// an item never rated.
func (a *BayesianAverage) Score(item uint64) (float64, int64) {
	c := a.t.get(item)
	return bayesianScore(a.m, a.c, c.n, c.x), c.n
}

// Top returns the k items of highest Bayesian average (Rating).
func (a *BayesianAverage) Top(k int) []strategies.Rated {
	return a.t.top(k, func(c ratingCounts) float64 { return bayesianScore(a.m, a.c, c.n, c.x) })
}

var _ strategies.Rating = (*BayesianAverage)(nil)

func init() {
	strategies.Define("bayesian-average", "rank items by (C·m + Σ ratings)/(C + n): the mean after C pseudo-ratings at the prior m (m = 4, C = 20: one 5-star review scores 4.05)",
		func(p *BayesianAverageParams, env strategies.Env) (strategies.Strategy, error) {
			return NewBayesianAverage(*p, env.Keys, env.Seed)
		},
		bayesianPlan, strategies.Answers(strategies.FamilyRating))
}

// bayesianPlan: the seed's example with the design's own m and C — one
// 5-star review scores (C·m + 5)/(C + 1) — and the tally's bytes.
func bayesianPlan(p *BayesianAverageParams, env strategies.Env) []strategies.PlanLine {
	v := bayesianScore(p.PriorMean, p.Weight, 1, 5)
	return []strategies.PlanLine{
		{Metric: metrics.OneFiveStar, Value: v, Unit: "stars",
			Note: fmt.Sprintf("one 5-star review with m = %g, C = %g: (C·m + 5)/(C + 1) = (%g·%g + 5)/%g = %.4f ≈ %.2f",
				p.PriorMean, p.Weight, p.Weight, p.PriorMean, p.Weight+1, v, v)},
		ratingPlanBytes(env),
	}
}
