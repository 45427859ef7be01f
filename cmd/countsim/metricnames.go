package main

// The metric names a design reports, for `countsim list TYPE` and `countsim
// help scenario`: what an expect: or shows: item may name. Which metrics a
// run measures of a design depends on the kind of run as much as on the
// design (a timed stream adds the load on the servers), so they are read
// off the built-in scenarios: each is prepared (checked and planned, nothing
// large allocated: as plan does) and its kind asked what it reports of each
// design (engine.Kind's Reports, which TestReportsCoverScoring holds to what
// the scorers measure).

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"countsim/scenarios"
	"countsim/sim"
)

// measured is what one run of a built-in scenario measures of one design
// type (or of its truth: typ "").
type measured struct {
	typ     string
	step    string   // the scenario's ID: NAME or NAME/STEP
	metrics []string // in the order the kind reports them
}

// builtinMetrics prepares every built-in scenario, on-demand designs
// included, and lists what each step measures of each design type and of
// its truth, in the built-ins' order.
func builtinMetrics() ([]measured, error) {
	var out []measured
	for _, name := range scenarios.BuiltinNames() {
		scn, err := scenarios.Builtin(name)
		if err != nil {
			return nil, err
		}
		steps := scn.Steps
		if len(steps) == 0 {
			steps = []*scenarios.Scenario{scn}
		}
		for _, step := range steps {
			var with []string
			for _, s := range step.Strategies {
				if s.OnDemand {
					with = append(with, s.Name)
				}
			}
			st, err := sim.PrepareContext(context.Background(), step, sim.Options{With: with})
			if err != nil {
				return nil, fmt.Errorf("built-in %s: %w", step.ID(), err)
			}
			out = append(out, measured{step: step.ID(), metrics: metricStrings(st.Kind.Reports(nil))})
			for i := range st.Members {
				d := &st.Members[i]
				if d.Real != "" {
					continue
				}
				out = append(out, measured{typ: d.Typ.Name, step: step.ID(), metrics: metricStrings(st.Kind.Reports(d))})
			}
		}
	}
	return out, nil
}

func metricStrings[M ~string](ms []M) []string {
	var out []string
	for _, m := range ms {
		if !slices.Contains(out, string(m)) {
			out = append(out, string(m))
		}
	}
	return out
}

// metricGroups gathers what the runs measure of typ: each different list
// of metrics, with the scenarios (steps) that measure it, in first order.
func metricGroups(all []measured, typ string) (groups [][]string, where [][]string) {
	for _, m := range all {
		if m.typ != typ {
			continue
		}
		i := slices.IndexFunc(groups, func(g []string) bool { return slices.Equal(g, m.metrics) })
		if i < 0 {
			groups, where = append(groups, m.metrics), append(where, nil)
			i = len(groups) - 1
		}
		if !slices.Contains(where[i], m.step) {
			where[i] = append(where[i], m.step)
		}
	}
	return groups, where
}

// metricUnion is every metric the runs measure of typ, in first order.
func metricUnion(all []measured, typ string) []string {
	var out []string
	for _, m := range all {
		if m.typ == typ {
			for _, name := range m.metrics {
				if !slices.Contains(out, name) {
					out = append(out, name)
				}
			}
		}
	}
	return out
}

// writeWrapped writes words joined by ", " after head, wrapped before
// 80 columns, each further line indented by indent spaces.
func writeWrapped(w io.Writer, head string, indent int, words []string) {
	line := head
	for i, word := range words {
		if i < len(words)-1 {
			word += ","
		}
		if utf8.RuneCountInString(line)+1+len(word) > 79 && len(line) > indent {
			fmt.Fprintln(w, line)
			line = strings.Repeat(" ", indent) + word
			continue
		}
		if line != "" && !strings.HasSuffix(line, " ") {
			line += " "
		}
		line += word
	}
	fmt.Fprintln(w, line)
}
