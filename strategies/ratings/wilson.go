package ratings

import (
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// The Wilson lower bound: each rating is an up vote (stars ≥ Up, 4 of 5 by
// default) or a down vote, and an item's score is the lower end of the
// Wilson score interval for its share of up votes (E. B. Wilson, "Probable
// inference, the law of succession, and statistical inference", JASA 22,
// 1927; recommended for ranking by Evan Miller, "How Not To Sort By Average
// Rating", 2009). With n votes, p̂ = up/n and z the normal quantile of the
// confidence (1.96 for 95%),
//
//	score = (p̂ + z²/2n − z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n).
//
// It is the share of up votes the item has with confidence at least 1 − α/2
// (α = 2(1 − Φ(z))): a lower bound that rises towards p̂ as n grows, so one
// up vote scores 1/(1 + z²) = 0.207 at z = 1.96 while 90 of 100 score 0.826.
// Scores are shares in [0, 1], not stars.
//
// It keeps per item the number of ratings and of up votes (ratingTally,
// 24 B an item), so a score is exact; Observe is one probe, a comparison
// and two additions a rating.

// WilsonParams are the parameters of the Wilson lower bound.
type WilsonParams struct {
	// Z is the normal quantile of the interval; it must be > 0.
	Z float64 `key:"z" range:">0" default:"1.96" doc:"the normal quantile z of the interval (1.96: 95% two-sided)"`
	// Up is the fewest stars that make an up vote; it must be in 2..5.
	Up int64 `key:"up" range:"2..5" default:"4" doc:"the fewest stars that count as an up vote (4: 4 and 5 stars are up, 1 to 3 down)"`
}

// Wilson ranks items by the Wilson lower bound of their share of up
// votes. Not safe for concurrent use.
type Wilson struct {
	t  ratingTally
	z  float64
	up int64
}

// NewWilson returns an empty Wilson ranking of the parameters, sized for
// about items items, hashing with seed.
func NewWilson(p WilsonParams, items, seed uint64) (*Wilson, error) {
	if err := strategies.ValidateWith("wilson", &p); err != nil {
		return nil, err
	}
	return &Wilson{t: newRatingTally(items, seed), z: p.Z, up: p.Up}, nil
}

// Observe counts each Write event as a vote of its item, up when its Delta
// is at least Up.
func (w *Wilson) Observe(batch []workload.Event) {
	up := w.up
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write {
			var vote int64 // 1 for an up vote: a conditional move, not a branch a coin flip mispredicts
			if e.Delta >= up {
				vote = 1
			}
			c := w.t.ref(e.Key)
			c.n++
			c.x += vote
		}
	}
}

// Bytes is the memory of the tally.
func (w *Wilson) Bytes() int64 { return w.t.bytes() }

// wilsonLower is the lower bound of the Wilson score interval of up of n
// at z, and 0 for no votes.
func wilsonLower(z float64, n, up int64) float64 {
	if n == 0 {
		return 0
	}
	nf := float64(n)
	p := float64(up) / nf
	z2 := z * z
	return (p + z2/(2*nf) - z*math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))) / (1 + z2/nf)
}

// Score returns the Wilson lower bound of item and its votes; 0 and 0 for
// an item never rated.
func (w *Wilson) Score(item uint64) (float64, int64) {
	c := w.t.get(item)
	return wilsonLower(w.z, c.n, c.x), c.n
}

// UpStars returns the fewest stars that make an up vote, so that a table
// can print an item's up votes beside its ratings and its score be checked
// by hand.
func (w *Wilson) UpStars() int64 { return w.up }

// Top returns the k items of highest lower bound (Rating).
func (w *Wilson) Top(k int) []strategies.Rated {
	return w.t.top(k, func(c ratingCounts) float64 { return wilsonLower(w.z, c.n, c.x) })
}

var _ strategies.Rating = (*Wilson)(nil)

func init() {
	strategies.Define("wilson", "rank items by the Wilson (1927) lower bound of their share of up votes (stars >= up): small samples pay for their uncertainty",
		func(p *WilsonParams, env strategies.Env) (strategies.Strategy, error) {
			return NewWilson(*p, env.Keys, env.Seed)
		},
		func(p *WilsonParams, env strategies.Env) []strategies.PlanLine {
			return []strategies.PlanLine{
				{Metric: metrics.OneFiveStar, Value: 1 / (1 + p.Z*p.Z), Unit: "share",
					Note: "one 5-star review, one up vote of one: 1/(1 + z²)"},
				ratingPlanBytes(env),
			}
		},
		strategies.Answers(strategies.FamilyRating))
}
