package size

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// Check is one goal judged on one candidate size over its trials.
type Check struct {
	Goal     scenarios.Expectation
	Worst    float64 // the worst measured value over the trials (the largest for <, <=; the smallest for >, >=; the farthest for ==)
	Measured bool    // a row of the goal's metric was measured
	Pass     bool
	PerKey   bool    // judged by the binomial test over keys and trials
	P        float64 // with PerKey: the test's p-value
	Over     float64 // with PerKey: keys over the bound, over all trials
	Keys     float64 // with PerKey: keys, over all trials
	Bound    float64 // with PerKey: the design's own per-key bound, at most the goal's value
	Failed   int     // trials in which the goal did not hold
	Trials   int
	Upper    float64 // Clopper–Pearson upper bound on the failure rate, at the confidence
	Miss     float64 // how far past the goal the worst value is, as a share of the goal (0 when it holds)
}

// Note says how the goal was judged, in a line.
func (c Check) Note(conf, falseAlarm float64) string {
	switch {
	case !c.Measured:
		return "not measured"
	case c.PerKey:
		return fmt.Sprintf("%s of %s keys over the design's bound %s (≤ %s) in %d trials: P(Binomial(%s, δ = %.3g) ≥ %s) = %.3g, %s at false alarm %g",
			metrics.Format(c.Over), metrics.Format(c.Keys), metrics.Format(c.Bound), metrics.Format(c.Goal.Value), c.Trials, metrics.Format(c.Keys), 1-conf, metrics.Format(c.Over), c.P, word(c.Pass, "holds", "FAILS"), falseAlarm)
	}
	return fmt.Sprintf("held in %d of %d trials; failure rate ≤ %.3g (Clopper–Pearson, %g)", c.Trials-c.Failed, c.Trials, c.Upper, conf)
}

func word(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

// judge judges goal g over the trials' reports of the design name, with
// the truth's rows named truth; delta and bound are the design's planned
// per-key failure probability and bound (nil where it plans none).
func judge(g scenarios.Expectation, reps []*engine.Report, name, truth string, conf, falseAlarm float64, delta, bound *float64) Check {
	c := Check{Goal: g, Trials: len(reps), Pass: true}
	worse := func(a, b float64) bool { // a is worse than b
		switch g.Op {
		case "<=", "<":
			return a > b
		case ">=", ">":
			return a < b
		}
		return math.Abs(a-g.Value) > math.Abs(b-g.Value)
	}
	for _, rep := range reps {
		held, seen := true, false
		for _, r := range rep.Results {
			if r.Strategy != name || string(r.Metric) != g.Metric || r.Scale != metrics.Sim || r.Value == nil {
				continue
			}
			v := *r.Value
			if !c.Measured || worse(v, c.Worst) {
				c.Worst = v
			}
			c.Measured, seen = true, true
			held = held && g.Holds(v, g.Value)
		}
		if !seen || !held {
			c.Failed++
		}
	}
	if !c.Measured {
		c.Pass = false
		return c
	}
	// A per-key bound: the keys over the design's own bound, which is at
	// most the goal, tested against δ = 1 − confidence.
	if metrics.Metric(g.Metric) == metrics.MaxOverestimate && (g.Op == "<=" || g.Op == "<") && delta != nil && bound != nil && *bound <= g.Value && *delta <= 1-conf {
		over, keys, ok := 0.0, 0.0, true
		for _, rep := range reps {
			o, k := row(rep, name, metrics.KeysOverBound), row(rep, truth, metrics.DistinctKeys)
			if o == nil || k == nil {
				ok = false
				break
			}
			over, keys = over+*o, keys+*k
		}
		if ok && keys > 0 {
			c.PerKey, c.Over, c.Keys, c.Bound = true, over, keys, *bound
			c.P = engine.BinomialTail(keys, 1-conf, over)
			c.Pass = c.P >= falseAlarm
			c.Miss = missOf(g, c.Worst)
			if c.Pass {
				c.Miss = 0
			}
			return c
		}
	}
	c.Pass = c.Failed == 0
	c.Upper = clopperPearson(c.Failed, c.Trials, conf)
	c.Miss = missOf(g, c.Worst)
	return c
}

// row is the design's first measured simulated-scale row of metric m.
func row(rep *engine.Report, name string, m metrics.Metric) *float64 {
	for _, r := range rep.Results {
		if r.Strategy == name && r.Metric == m && r.Scale == metrics.Sim && r.Value != nil {
			return r.Value
		}
	}
	return nil
}

// missOf is how far v is past the goal, as a share of the goal's value
// (of 1 where the goal is 0), 0 where it holds.
func missOf(g scenarios.Expectation, v float64) float64 {
	if g.Holds(v, g.Value) {
		return 0
	}
	scale := math.Abs(g.Value)
	if scale == 0 {
		scale = 1
	}
	return math.Abs(v-g.Value) / scale
}

// clopperPearson is the one-sided upper bound, at confidence conf, on a
// rate of which x of n trials failed (Clopper & Pearson 1934): the conf
// quantile of Beta(x+1, n−x); 1 when every trial failed.
func clopperPearson(x, n int, conf float64) float64 {
	if n == 0 || x >= n {
		return 1
	}
	return distuv.Beta{Alpha: float64(x + 1), Beta: float64(n - x)}.Quantile(conf)
}

// TrialsToShow is the fewest trials, all without a failure, that bound a
// whole-answer goal's failure rate at 1 − conf with confidence conf: with
// no failure in n trials the Clopper–Pearson bound is 1 − (1 − conf)^(1/n),
// at most 1 − conf once n ≥ ln(1 − conf) / ln conf (459 at 0.99).
func TrialsToShow(conf float64) int {
	n := int(math.Ceil(math.Log(1-conf) / math.Log(conf)))
	for n > 1 && clopperPearson(0, n-1, conf) <= 1-conf { // the float64 ceiling, one too many
		n--
	}
	for clopperPearson(0, n, conf) > 1-conf { // or one too few
		n++
	}
	return n
}
