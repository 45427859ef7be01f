package scenarios

import "fmt"

// Goals are what a design must meet for `countsim size` (`goals:`): a list
// of expectations in the grammar of expect: (`max_overestimate <= 0.0001 * N`,
// `topk_recall == 1`, `bytes <= 1MB`), the confidence a per-key bound must
// be shown at, and the trials that show it. Size takes each design of the
// scenario's strategies as a type and its fixed parameters, finds the
// smallest value of its size parameter (width, counters, stripes,
// precision…) that meets every goal, and verifies it by Trials runs.
type Goals struct {
	Meet []Expectation `key:"meet" required:"true" doc:"the goals, each 'metric op value' or 'metric op NUMBER * FIGURE' (N, events or an assumptions key), as expect: writes them; a per-key bound (max_overestimate) is met when the keys over it are few enough for the confidence, a whole-answer goal (topk_recall) when it held in every trial"`
	// Confidence is 1 − δ of a per-key bound: the share of keys that must
	// be within it.
	Confidence float64 `key:"confidence" range:"(0,1)" default:"0.99" doc:"the probability with which a key must meet a per-key goal (1 − δ): the binomial test over keys and trials at false_alarm decides"`
	Trials     int     `key:"trials" range:"1..100" default:"3" doc:"runs of each candidate size, each with its own derived seed: a whole-answer goal must hold in every one"`
	PowerOfTwo bool    `key:"power_of_two" doc:"round the size found up to a power of two (stripes, counters, width); true or false"`
	Pos        Pos     // the goals key
}

// check: goals do not compare with a plan (the plan is what is sized) or
// with another metric, and there is at least one.
func (g *Goals) check(r *rule) error {
	if len(g.Meet) == 0 {
		return r.failKey("meet", "an empty list (allowed: at least one goal, such as \"max_overestimate <= 0.001 * N\")")
	}
	for i, e := range g.Meet {
		if e.Plan || e.Other != "" {
			return Errorf(e.Pos, "goals.meet[%d]: %q compares with %s (allowed: a number or NUMBER * FIGURE: a goal is what the plan is sized to)", i, e.Text, map[bool]string{true: "the plan", false: "another metric"}[e.Plan])
		}
	}
	return nil
}

// Goal names the goals for messages.
func (g *Goals) String() string {
	if g == nil {
		return "no goals"
	}
	var s string
	for i, e := range g.Meet {
		if i > 0 {
			s += ", "
		}
		s += e.Text
	}
	return fmt.Sprintf("%s at %g", s, g.Confidence)
}
