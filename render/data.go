package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
)

// Data is what a template's calls may name: the steps of its scenarios.
type Data struct {
	Steps []*Step
	// Measured is false for the first pass, before anything runs: Rows
	// hold the plans alone, and a measured value asked of a metric the
	// step reports stands in as 1 (nothing of it is written).
	Measured bool
}

// Step is one step of a run (or a scenario not told in steps): what may be
// asked of it and its rows.
type Step struct {
	Scenario string
	Step     string // "" for a scenario not told in steps
	// Designs are the names a call may give, the truth's among them, in
	// the lineup's order; Metrics[design] the metrics the step measures
	// or plans of it.
	Designs []string
	Metrics map[string][]string
	Rows    []metrics.Result
	// Charts maps a chart's name (key-load, backlog, …) to its PNG file,
	// once the run is drawn; nil before.
	Charts map[string]string
}

// ID is the step as a call names it: STEP, or the scenario's name for
// one not told in steps.
func (s *Step) ID() string {
	if s.Step == "" {
		return s.Scenario
	}
	return s.Step
}

// find resolves a call's first argument: a step's name, a scenario's (one
// not told in steps), or SCENARIO/STEP.
func (d *Data) find(name string) (*Step, error) {
	var ids []string
	var hit []*Step
	for _, s := range d.Steps {
		full := s.Scenario
		if s.Step != "" {
			full += "/" + s.Step
		}
		ids = append(ids, s.ID())
		if name == s.ID() || name == full {
			hit = append(hit, s)
		}
	}
	switch len(hit) {
	case 1:
		return hit[0], nil
	case 0:
		return nil, fmt.Errorf("no step %q in the scenarios named (allowed: %s)%s", name, strings.Join(ids, ", "), scenarios.DidYouMean(name, ids))
	}
	return nil, fmt.Errorf("step %q is in several scenarios: name it SCENARIO/STEP (%s/%s, %s/%s)", name, hit[0].Scenario, name, hit[1].Scenario, name)
}

// check refuses a design or metric the step does not have.
func (s *Step) check(design, metric string) error {
	if !slices.Contains(s.Designs, design) {
		return fmt.Errorf("no design %q in %s (allowed: %s)%s", design, s.ID(), strings.Join(s.Designs, ", "), scenarios.DidYouMean(design, s.Designs))
	}
	ms := s.Metrics[design]
	if !slices.Contains(ms, metric) {
		return fmt.Errorf("no metric %q of %s in %s (allowed: %s)%s", metric, design, s.ID(), strings.Join(ms, ", "), scenarios.DidYouMean(metric, ms))
	}
	return nil
}

// stats are the words that pick a statistic of a scenario run in trials.
var stats = []string{"mean", "min", "p50", "p95", "max"}

// row finds the one row of design's metric that a call means: a plan
// (planned true: a row with a plan, at full scale where there is one,
// else at the simulated scale) or a measurement. which narrows the rows:
// "sim" or "full" picks the scale, a statistic's name (mean, max, …) the
// row of a run in trials, any other word the rows whose note holds it.
// found is false before the run for a measurement (or a plan only a
// measured row carries), the names being right.
func (s *Step) row(design, metric string, planned bool, which []string) (r metrics.Result, found bool, err error) {
	if err := s.check(design, metric); err != nil {
		return r, false, err
	}
	var rows []metrics.Result
	for _, r := range s.Rows {
		if r.Strategy != design || string(r.Metric) != metric || r.Timing && planned {
			continue
		}
		if planned && r.Plan == nil || !planned && r.Value == nil {
			continue
		}
		rows = append(rows, r)
	}
	scale := ""
	stat := ""
	for _, w := range which {
		switch {
		case w == "sim" || w == "full":
			scale = w
		case slices.Contains(stats, w):
			stat = w
		default:
			before := rows
			rows = slices.DeleteFunc(slices.Clone(rows), func(r metrics.Result) bool { return !strings.Contains(r.Note, w) })
			if len(rows) == 0 && len(before) > 0 {
				var notes []string
				for _, r := range before {
					if n := fmt.Sprintf("%q", shortNote(r.Note)); !slices.Contains(notes, n) {
						notes = append(notes, n)
					}
				}
				return r, false, fmt.Errorf("no row of %s %s in %s has %q in its note (allowed: sim, full, %s, or a word of: %s)",
					design, metric, s.ID(), w, strings.Join(stats, ", "), strings.Join(notes, ", "))
			}
		}
	}
	if !planned {
		scale = "sim"
	}
	if scale == "" && slices.ContainsFunc(rows, func(r metrics.Result) bool { return r.Scale == metrics.Full }) {
		scale = "full"
	}
	if scale != "" {
		rows = slices.DeleteFunc(rows, func(r metrics.Result) bool { return string(r.Scale) != scale })
	}
	if stat == "" && slices.ContainsFunc(rows, func(r metrics.Result) bool { return r.Stat != "" }) {
		stat = "mean"
	}
	rows = slices.DeleteFunc(rows, func(r metrics.Result) bool { return r.Stat != stat })
	what := "measured"
	if planned {
		what = "planned"
	}
	switch {
	case len(rows) == 0:
		return r, false, nil
	case len(rows) > 1 && !allSame(rows, planned):
		var notes []string
		for _, r := range rows {
			notes = append(notes, fmt.Sprintf("%q", shortNote(r.Note)))
		}
		return r, false, fmt.Errorf("%d rows %s of %s %s in %s: say which with a word of its note (allowed: %s)",
			len(rows), what, design, metric, s.ID(), strings.Join(notes, ", "))
	}
	return rows[0], true, nil
}

// allSame reports whether the rows agree on the number asked.
func allSame(rows []metrics.Result, planned bool) bool {
	v := func(r metrics.Result) float64 {
		if planned {
			return *r.Plan
		}
		return *r.Value
	}
	for _, r := range rows[1:] {
		if a, b := v(r), v(rows[0]); a != b && !(math.IsNaN(a) && math.IsNaN(b)) {
			return false
		}
	}
	return true
}

// shortNote is a note up to its first ';' or ':': what tells rows apart
// ("day 1", "union of the days by merge").
func shortNote(n string) string {
	if i := strings.IndexAny(n, ";:"); i >= 0 {
		n = n[:i]
	}
	return strings.TrimSpace(n)
}

func didYouMean(name string, allowed []string) string { return scenarios.DidYouMean(name, allowed) }
