package size

import (
	"math"
	"slices"

	"countsim/metrics"
	"countsim/scenarios"
)

// sizing is what the closed forms read: the step, its goals and figures.
type sizing struct {
	step  *scenarios.Scenario
	entry scenarios.Strategy
	goals []scenarios.Expectation
	sim   scenarios.Assumptions // the figures as simulated
	n     float64               // N: events simulated
	k     int                   // the top-K question's K
	kth   float64               // the K-th key's expected count (the run's plan), 0 if none
	conf  float64
}

// upper is the tightest upper bound the goals put on metric m (`m <= x`,
// `m < x`), and whether they put one.
func (c *sizing) upper(m metrics.Metric) (float64, bool) {
	best, ok := math.Inf(1), false
	for _, g := range c.goals {
		if metrics.Metric(g.Metric) == m && (g.Op == "<=" || g.Op == "<") && g.Value < best {
			best, ok = g.Value, true
		}
	}
	return best, ok
}

// band is the tightest bound the goals put on |m|: `m <= t` and
// `m >= −t` alike (a signed relative error).
func (c *sizing) band(m metrics.Metric) (float64, bool) {
	best, ok := math.Inf(1), false
	for _, g := range c.goals {
		if metrics.Metric(g.Metric) == m && g.Op != "==" && math.Abs(g.Value) < best {
			best, ok = math.Abs(g.Value), true
		}
	}
	return best, ok
}

// depth is count-min's d = ⌈ln 1/δ⌉ for δ = 1 − confidence.
func (c *sizing) depth() int { return max(1, int(math.Ceil(math.Log(1/(1-c.conf))-1e-12))) }

// asksTop reports whether a goal is on the top-K answer.
func (c *sizing) asksTop() bool {
	return c.k > 0 && slices.ContainsFunc(c.goals, func(g scenarios.Expectation) bool { return isTopMetric(metrics.Metric(g.Metric)) })
}

func isTopMetric(m metrics.Metric) bool {
	switch m {
	case metrics.TopKRecall, metrics.TopKPrecision, metrics.TopKCountError:
		return true
	}
	return false
}

// given reports whether the entry gives parameter key itself.
func (c *sizing) given(key string) bool {
	return slices.ContainsFunc(c.entry.Params, func(p scenarios.Param) bool { return p.Key == key })
}

// servers is the batching design's A: its own servers, or the assumptions'.
func (c *sizing) servers() float64 {
	for _, p := range c.entry.Params {
		if p.Key == "servers" {
			if v, ok := p.Value.(int64); ok {
				return float64(v)
			}
		}
	}
	return c.step.Assumptions.AppServers
}

func sortStrings(s []string) { slices.Sort(s) }
