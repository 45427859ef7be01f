package engine

import (
	"fmt"
	"slices"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
)

// Expectations: the assertions of a scenario's `expect:` and `shows:`
// lists, checked against what a run measured (countsim check). A design's
// expectation is checked when the scenario is prepared — its metric must be
// one countsim reports, and a comparison with the plan needs a plan at the
// simulated scale — and judged against every measured row of its metric
// after the run: it holds when every such row does. An `expect:` item that
// holds is a bound met (PASS); a `shows:` item that holds is a trap shown
// (SHOWN): the same judge, a different word, so that no reader takes the
// trap for a design that works.

// Verdict is one expectation judged against a run.
type Verdict struct {
	Scenario string // the scenario's ID (NAME or NAME/STEP)
	Design   string // the design's name, or the truth's
	Expect   scenarios.Expectation
	Measured *float64 // the row judged (the first that fails, else the first); nil: not measured
	Plan     *float64 // the row's plan, if it has one; with Expect.Other, the other metric's value
	Pass     bool     // the expectation held: a bound met, or a trap shown
	Why      string   // why it failed, when it did for want of a row or a plan
}

// Trap reports whether the verdict is on a `shows:` item: a trap the
// scenario shows on purpose.
func (v Verdict) Trap() bool { return v.Expect.Trap }

// Word is the verdict as check prints it: PASS or FAIL for a bound or a
// goal, SHOWN or NOT SHOWN for a trap.
func (v Verdict) Word() string {
	switch {
	case v.Trap() && v.Pass:
		return "SHOWN"
	case v.Trap():
		return "NOT SHOWN"
	case v.Pass:
		return "PASS"
	}
	return "FAIL"
}

// checkExpectations refuses, with the line of each, an expectation on a
// metric countsim does not report, or that this kind of run never measures
// for the design (kind.reports), or a comparison with a plan the design
// does not have.
func (st *Setup) checkExpectations() error {
	known := func(e scenarios.Expectation, d *Design) error {
		reported := st.Kind.Reports(d)
		who := TruthName(st.Scenario)
		if d != nil {
			who = d.Name()
		}
		var names []string
		for _, r := range reported {
			names = append(names, string(r))
		}
		for _, m := range []string{e.Metric, e.Other} {
			if m == "" {
				continue
			}
			if !metrics.Known(m) {
				// The metrics of this design in this run, and the nearest
				// of them; else the nearest of every metric countsim has.
				near := scenarios.DidYouMean(m, names)
				if near == "" {
					near = scenarios.DidYouMean(m, metricNames())
				}
				return scenarios.Errorf(e.Pos, "expect %q: unknown metric %q (allowed: the metrics this run measures for %s: %s)%s", e.Text, m, who, strings.Join(names, ", "), near)
			}
			if !slices.Contains(reported, metrics.Metric(m)) {
				return scenarios.Errorf(e.Pos, "expect %q: this run never measures %s for %s (allowed: %s)%s", e.Text, m, who, strings.Join(names, ", "), scenarios.DidYouMean(m, names))
			}
		}
		return nil
	}
	for _, e := range assertions(st.Scenario.Expect, st.Scenario.Shows) {
		if err := known(e, nil); err != nil {
			return err
		}
	}
	for i := range st.Members {
		d := &st.Members[i]
		for _, e := range assertions(d.Spec.Expect, d.Spec.Shows) {
			if err := known(e, d); err != nil {
				return err
			}
			if e.Plan && !d.hasPlanFor(metrics.Metric(e.Metric)) {
				return scenarios.Errorf(e.Pos, "expect %q: %s has no plan for %s at the simulated scale (planned: %s)", e.Text, d.Name(), e.Metric, d.plannedNames())
			}
		}
	}
	return nil
}

// assertions is an expect: list, then a shows: list.
func assertions(expect, shows []scenarios.Expectation) []scenarios.Expectation {
	return append(slices.Clip(expect), shows...)
}

// metricNames lists every metric countsim reports.
func metricNames() []string {
	var names []string
	for _, m := range metrics.All() {
		names = append(names, string(m))
	}
	return names
}

// hasPlanFor reports whether the row of metric m will carry a plan: its own
// simulated-scale plan line, or the one the scorer puts beside it (the
// bound εN beside the largest overestimate and a planted key's excess
// (stream_plant.go); 1 beside an exact design's
// top-K recall and precision; the share above the guarantee beside a
// guaranteeing design's recall; the truth beside a design's final count,
// its error and what its dedup dropped; a rating outbox's bounds,
// sim/ratings_outbox.go).
func (d Design) hasPlanFor(m metrics.Metric) bool {
	switch m {
	case metrics.MaxOverestimate, metrics.PlantedExcess:
		return d.Planned(metrics.OverestimateBound) != nil
	case metrics.TopKRecall:
		return d.Typ.Promises() == strategies.PromiseAll ||
			d.Typ.Promises() == strategies.PromiseAbove && d.Planned(metrics.GuaranteeAbove) != nil
	case metrics.TopKPrecision:
		return d.Typ.Promises() == strategies.PromiseAll
	case metrics.ShareOverBound:
		return d.Planned(metrics.Failure) != nil // δ, over trials
	case metrics.FinalCount, metrics.CountError, metrics.DedupDropped:
		return true // the truth's count, 0, the resends: beside every such row
	case metrics.AggCountDrift, metrics.RecountRows: // a rating outbox's recount: the bound after its last, a full recount's rows each time
		return d.Planned(m) != nil || d.Typ.Answers(strategies.FamilyRecount)
	case metrics.ReviewEntries: // the reviews created, beside a consumer keyed by review
		return d.Typ.Answers(strategies.FamilyReviewKeyed)
	}
	return d.Planned(m) != nil
}

// plannedNames lists the metrics the design has a simulated-scale plan for.
func (d Design) plannedNames() string {
	var names []string
	for _, l := range d.Plan {
		if !l.Full {
			names = append(names, string(l.Metric))
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Judge judges every expectation of the scenario against the rows a run
// of it returned: the truth's first, then each design's, each its expect:
// list then its shows: list.
func (st *Setup) Judge(rep *Report) []Verdict {
	var out []Verdict
	for _, e := range assertions(st.Scenario.Expect, st.Scenario.Shows) {
		out = append(out, st.JudgeOne(rep, TruthName(st.Scenario), e))
	}
	for _, d := range st.Members {
		for _, e := range assertions(d.Spec.Expect, d.Spec.Shows) {
			out = append(out, st.JudgeOne(rep, d.Name(), e))
		}
	}
	return out
}

// JudgeOne judges one expectation against every measured simulated-scale row
// of its metric for the design.
func (st *Setup) JudgeOne(rep *Report, name string, e scenarios.Expectation) Verdict {
	v := Verdict{Scenario: st.Scenario.ID(), Design: name, Expect: e, Pass: true}
	var other *float64
	if e.Other != "" {
		for _, r := range rep.Results {
			if r.Strategy == name && string(r.Metric) == e.Other && r.Scale == metrics.Sim && r.Value != nil {
				other = r.Value
				break
			}
		}
		if other == nil {
			v.Pass, v.Why = false, fmt.Sprintf("%s measured no %s", name, e.Other)
			return v
		}
	}
	rows := 0
	for _, r := range rep.Results {
		if r.Strategy != name || string(r.Metric) != e.Metric || r.Scale != metrics.Sim || r.Value == nil {
			continue
		}
		rows++
		rhs := e.Value
		if other != nil {
			rhs = *other
		}
		if e.Plan {
			if r.Plan == nil {
				v.Pass, v.Why, v.Measured = false, "the row has no plan", r.Value
				return v
			}
			rhs = *r.Plan
		}
		holds := e.Holds(*r.Value, rhs)
		if rows == 1 || v.Pass && !holds {
			v.Measured, v.Plan = r.Value, r.Plan
			if other != nil {
				v.Plan = other
			}
		}
		v.Pass = v.Pass && holds
	}
	if rows == 0 {
		v.Pass, v.Why = false, fmt.Sprintf("%s measured no %s", name, e.Metric)
	}
	return v
}
