package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/plots"
	"countsim/report"
	"countsim/sim"
)

// The report folder's files: report.md, the tables and charts, results.csv
// and .json, manifest.json (manifest.go).

// charts draws each scenario's charts into a report folder's plots/ once
// the scenario is done, in the background while the next one runs: the
// run's lanes leave part of a core idle between and within steps, and the
// charts (3.4 CPU seconds of make run's, drawn once the last scenario was
// done) fill it instead of adding their time at the end. The scenarios'
// charts are drawn one scenario after another, in run order, each by
// plots.Draw on every core; wait returns them all.
type charts struct {
	dir   string
	last  chan struct{} // closed when the latest scenario's charts are drawn
	files []plots.File
	errs  []error
}

func newCharts(reportDir string) *charts {
	c := &charts{dir: filepath.Join(reportDir, "plots"), last: make(chan struct{})}
	close(c.last)
	return c
}

// draw draws the curated charts of one scenario's results and series once
// the scenarios before it are drawn.
func (c *charts) draw(st *sim.Setup, results []metrics.Result, series []metrics.Series) {
	if len(series) == 0 {
		return
	}
	prev, done := c.last, make(chan struct{})
	c.last = done
	go func() {
		defer close(done)
		<-prev
		files, err := plots.Draw(c.dir, curate(sweepsOf([]*sim.Setup{st}), results, series))
		c.files = append(c.files, files...)
		if err != nil {
			c.errs = append(c.errs, err)
		}
	}()
}

// wait returns every chart drawn, in run order, and the errors of those
// that could not be.
func (c *charts) wait() ([]plots.File, error) {
	<-c.last
	return c.files, errors.Join(c.errs...)
}

// writeReport writes every file of the report folder, each atomically, and
// returns what the report shows, for the summary on stdout. The charts
// were drawn as the scenarios ended (charts).
func writeReport(dir string, env *cmdEnv, setups []*sim.Setup, results []metrics.Result, drawn *charts,
	tables []metrics.Table, started time.Time, wall []time.Duration, partial bool) (*report.Run, error) {
	files, err := drawn.wait()
	if err != nil && len(files) == 0 && !partial {
		return nil, err
	}
	if err != nil {
		// Charts that could not be drawn (a stopped run may leave a
		// chart with no data) are skipped; the tables are what counts.
		fmt.Fprintf(env.stderr, "countsim: some charts were not drawn: %v\n", err)
	}
	if len(tables) > 0 {
		if err := os.Mkdir(filepath.Join(dir, "tables"), 0o755); err != nil {
			return nil, err
		}
		for _, t := range tables {
			path := filepath.Join(dir, "tables", t.Scenario+"-"+t.Name+".csv")
			if err := metrics.WriteFile(path, func(w io.Writer) error { return metrics.WriteTableCSV(w, t) }); err != nil {
				return nil, err
			}
		}
	}
	if err := metrics.WriteFile(filepath.Join(dir, "results.csv"), func(w io.Writer) error { return metrics.WriteCSV(w, results) }); err != nil {
		return nil, err
	}
	if err := metrics.WriteFile(filepath.Join(dir, "results.json"), func(w io.Writer) error { return metrics.WriteJSON(w, results) }); err != nil {
		return nil, err
	}
	man, err := json.MarshalIndent(manifest(setups, started, wall, partial, env.template), "", "  ")
	if err != nil {
		return nil, err
	}
	if err := metrics.WriteFile(filepath.Join(dir, "manifest.json"), writeBytes(append(man, '\n'))); err != nil {
		return nil, err
	}
	rr, err := reportRun(dir, setups, results, files, tables, partial, man)
	if err != nil {
		return nil, err
	}
	if err := metrics.WriteFile(filepath.Join(dir, "report.md"), func(w io.Writer) error { return report.Markdown(w, rr) }); err != nil {
		return nil, err
	}
	return rr, metrics.WriteFile(filepath.Join(dir, "report.html"), func(w io.Writer) error { return report.HTML(w, rr) })
}

// writeBytes is a callback for metrics.WriteFile that writes b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// reportRun gathers what the report shows of the run: per scenario its
// steps (each with its designs, notes and judged expectations), its rows,
// tables and charts (the SVG files read back to be inlined), and the
// manifest.
func reportRun(dir string, setups []*sim.Setup, results []metrics.Result, files []plots.File, tables []metrics.Table,
	partial bool, man []byte) (*report.Run, error) {
	r := &report.Run{Partial: partial, Manifest: man, ChartFont: plots.Font()}
	sweeps := sweepsOf(setups)
	for i, st := range setups {
		scn := st.Scenario
		if i == 0 || setups[i-1].Scenario.Name != scn.Name {
			sc := report.Scenario{Name: scn.Name, Title: scn.Title, File: scn.File, Seed: scn.Seed}
			for _, res := range results {
				if res.Scenario == scn.Name {
					sc.Results = append(sc.Results, res)
				}
			}
			for _, t := range tables {
				if t.Scenario == scn.Name {
					sc.Tables = append(sc.Tables, t)
				}
			}
			for _, f := range files {
				if scn.Step == "" && f.Step == "" {
					continue // a scenario not told in steps: its one step's
				}
				if f.Scenario != scn.Name || (f.Step != "" && slices.ContainsFunc(setups, func(o *sim.Setup) bool { return o.Scenario.Name == scn.Name && o.Scenario.Step == f.Step })) {
					continue // a step's chart goes with its step
				}
				c, err := chartOf(dir, f)
				if err != nil {
					return nil, err
				}
				sc.Charts = append(sc.Charts, c...)
			}
			r.Scenarios = append(r.Scenarios, sc)
		}
		sc := &r.Scenarios[len(r.Scenarios)-1]
		step := report.Step{Name: scn.Step, Title: scn.StepTitle, Description: scn.Description, Describe: st.Describe(),
			Notes: st.Notes, Figures: figureNotes(scn), Designs: st.Designs()}
		for _, sw := range sweeps {
			if sw.scenario == scn.Name && sw.step == scn.Step {
				step.Sweeps = append(step.Sweeps, report.Sweep{Name: sw.name, Key: sw.key, Members: sw.members, Values: sw.values})
			}
		}
		var names []string // the step's charts' names
		for _, f := range files {
			if f.Scenario == scn.Name && f.Step == scn.Step {
				c, err := chartOf(dir, f)
				if err != nil {
					return nil, err
				}
				step.Charts = append(step.Charts, c...)
				for range c {
					names = append(names, f.Chart)
				}
			}
		}
		unjudged := 0
		for _, v := range st.Judge(&sim.Report{Results: sc.Results}) {
			if partial && v.Measured == nil {
				unjudged++ // the run stopped before its row was measured: no verdict, not a ✘
				continue
			}
			step.Verdicts = append(step.Verdicts, report.Verdict{Design: v.Design, Metric: v.Expect.Metric, Text: v.Expect.Text, Pass: v.Pass, Trap: v.Trap()})
		}
		best := -1
		for i := range step.Charts {
			if a := answers(names[i], step.Verdicts); best < 0 || a > answers(names[best], step.Verdicts) {
				best = i
			}
		}
		if best >= 0 {
			step.Charts[best].Answer = true
		}
		if unjudged > 0 {
			step.Notes = append(slices.Clip(step.Notes), fmt.Sprintf("%s not judged: the run stopped before %s measured.",
				plural(unjudged, "expectation"), map[bool]string{true: "its row was", false: "their rows were"}[unjudged == 1]))
		}
		sc.Steps = append(sc.Steps, step)
	}
	return r, nil
}

// chartOf is a drawn chart's SVG, read back to be inlined, with its path in
// the folder.
func chartOf(dir string, f plots.File) ([]report.Chart, error) {
	var out []report.Chart
	for _, p := range f.Paths {
		if !strings.HasSuffix(p, ".svg") {
			continue
		}
		svg, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, report.Chart{Title: f.Title, SVG: svg, Path: filepath.ToSlash(rel)})
	}
	return out, nil
}

// The charts a report draws: the run's series, curated for a reader. A
// chart that repeats another goes (a size swept is drawn against the
// memory it takes, not against the size too; one design's curve without a
// plan is on the chart of every design swept); the overestimate histograms
// of one swept entry are one figure, a panel a value; a design with a
// guarantee N/m has it drawn on its overestimates.

// sweepOf is one swept entry of a step: its members' names and values.
type sweepOf struct {
	scenario, step, name, key string
	members, values           []string
	sized                     bool // the values are sizes (numbers), not durations
}

// sweepsOf lists the swept entries of the run's steps.
func sweepsOf(setups []*sim.Setup) []sweepOf {
	var out []sweepOf
	for _, st := range setups {
		scn := st.Scenario
		for _, spec := range scn.Strategies {
			if spec.Sweep == nil {
				continue
			}
			sw := sweepOf{scenario: scn.Name, step: scn.Step, name: spec.Name, key: spec.Sweep.Key, sized: true}
			for _, v := range spec.Sweep.Values {
				sw.members = append(sw.members, fmt.Sprintf("%s-%s-%v", spec.Name, spec.Sweep.Key, v))
				sw.values = append(sw.values, fmt.Sprint(v))
				if _, num := v.(string); num {
					sw.sized = false
				}
			}
			out = append(out, sw)
		}
	}
	return out
}

// curate is the series the report draws, from the run's.
func curate(sweeps []sweepOf, results []metrics.Result, series []metrics.Series) []metrics.Series {
	has, planned := map[[3]string]bool{}, map[[3]string]bool{}
	for _, s := range series {
		has[[3]string{s.Scenario, s.Step, s.Name}] = true
		if strings.HasSuffix(s.Strategy, " (plan)") {
			planned[[3]string{s.Scenario, s.Step, s.Name}] = true
		}
	}
	// guarantee is a design's N/m, and the row's note's head ("N/m").
	guarantee := func(scenario, design string) (float64, string, bool) {
		for _, r := range results {
			if r.Scenario == scenario && r.Strategy == design && r.Metric == metrics.GuaranteeAbove && r.Scale == metrics.Sim && r.Plan != nil {
				label, _, _ := strings.Cut(r.Note, ":")
				return *r.Plan, label, true
			}
		}
		return 0, "", false
	}
	var out []metrics.Series
	for _, s := range series {
		sw, member := findSweep(sweeps, s)
		// A size's curve against the size twins its curve against memory.
		if sw != nil && sw.sized && strings.HasSuffix(s.Name, "-by-"+sw.key) &&
			has[[3]string{s.Scenario, s.Step, strings.TrimSuffix(s.Name, "-by-"+sw.key)}] {
			continue
		}
		// One design's curve without a plan repeats its line on the chart
		// of every design swept.
		if sw != nil && member < 0 && !planned[[3]string{s.Scenario, s.Step, s.Name}] &&
			slices.ContainsFunc([]metrics.Metric{metrics.TopKRecall, metrics.TopKCountBias}, func(m metrics.Metric) bool {
				return s.Name == "sweep-"+sw.name+"-"+string(m) && has[[3]string{s.Scenario, s.Step, "sweeps-" + string(m)}]
			}) {
			continue
		}
		if s.Kind == metrics.Distribution && strings.HasPrefix(s.Name, "overestimate-") {
			if !slices.ContainsFunc(s.Marks, func(m metrics.Mark) bool { return m.Axis == "x" }) {
				if g, label, ok := guarantee(s.Scenario, s.Strategy); ok {
					s.Marks = append(slices.Clip(s.Marks), metrics.Mark{Label: label + " = " + metrics.Format(g), Value: g, Axis: "x"})
				}
			}
			if sw != nil && member >= 0 {
				s = swept(s, sw, member)
			}
		}
		out = append(out, s)
		// Space-Saving's overestimates against memory, beside the N/m each
		// size guarantees.
		if sw != nil && member < 0 && strings.HasSuffix(s.Strategy, " (measured)") && len(s.X) == len(sw.members) &&
			(s.Name == "sweep-"+sw.name+"-"+string(metrics.MaxOverestimate) || s.Name == "sweep-"+sw.name+"-"+string(metrics.MeanOverestimate)) {
			p := s
			p.Y = make([]float64, len(sw.members))
			ok := true
			label := ""
			for i, m := range sw.members {
				var g float64
				g, label, ok = guarantee(s.Scenario, m)
				if !ok {
					break
				}
				p.Y[i] = g
			}
			if ok {
				p.Strategy = sw.name + " (plan: " + label + ")"
				out = append(out, p)
			}
		}
	}
	return out
}

// findSweep is the swept entry a series is of: by its design (member ≥ 0,
// the index of its value) or by its name ("sweep-NAME-…", member -1).
func findSweep(sweeps []sweepOf, s metrics.Series) (*sweepOf, int) {
	for i := range sweeps {
		sw := &sweeps[i]
		if sw.scenario != s.Scenario || sw.step != s.Step {
			continue
		}
		if j := slices.Index(sw.members, s.Strategy); j >= 0 {
			return sw, j
		}
		if strings.HasPrefix(s.Name, "sweep-"+sw.name+"-") {
			return sw, -1
		}
	}
	return nil, -1
}

// swept puts a member's overestimate histogram in its entry's figure, a
// panel a value, on a log axis (the values span the sweep's decades): the
// panel says the value and the bound, the legend the bound's name once.
func swept(s metrics.Series, sw *sweepOf, member int) metrics.Series {
	panel := sw.key + " = " + sw.values[member]
	marks := make([]metrics.Mark, len(s.Marks))
	for i, m := range s.Marks {
		name, value, ok := strings.Cut(m.Label, " = ")
		if ok {
			panel += ", " + strings.TrimPrefix(name, "bound ") + " = " + value
		}
		m.Label = name
		marks[i] = m
	}
	keys := ""
	if i := strings.LastIndex(s.Title, " ("); i >= 0 {
		keys = s.Title[i:]
	}
	s.Name = "overestimate-" + sw.name
	s.Title = fmt.Sprintf("%s: overestimate per key%s, a panel a %s", sw.name, keys, sw.key)
	s.Panel = panel
	s.Strategy = ""
	s.Marks = marks
	if !strings.HasSuffix(s.XLabel, "(log)") {
		s.XLabel += " (log)"
	}
	s.LogX = true
	return s
}

// answers says which chart answers a step's question: the one whose
// metrics its expectations judge most, a chart of every design swept
// before one design's; of two that tie, the busiest key's load before the
// node's, the backlog's and the staleness'; else the first.
func answers(name string, verdicts []report.Verdict) int {
	score := 0
	for _, m := range chartMetrics(name) {
		for _, v := range verdicts {
			if v.Metric == string(m) {
				score += 10
			}
		}
	}
	if i := slices.Index([]string{"staleness", "backlog", "node-load", "key-load"}, name); i >= 0 {
		score += i + 1
	}
	switch {
	case name == "sweeps-"+string(metrics.TopKRecall): // which design finds the top K at which size
		score += 20000
	case strings.HasPrefix(name, "sweeps-"):
		score += 10000
	}
	return score
}

// chartMetrics are the metrics a chart draws, by its name.
func chartMetrics(name string) []metrics.Metric {
	switch {
	case name == "key-load":
		return []metrics.Metric{metrics.MaxKeyOps, metrics.Utilisation}
	case name == "node-load":
		return []metrics.Metric{metrics.MaxNodeOps}
	case name == "backlog":
		return []metrics.Metric{metrics.BacklogGrowth}
	case name == "staleness":
		return []metrics.Metric{metrics.StalenessMaxSec}
	case name == "topk-recall":
		return []metrics.Metric{metrics.TopKRecall}
	case strings.HasPrefix(name, "overestimate-"):
		return []metrics.Metric{metrics.MaxOverestimate, metrics.PlantedExcess, metrics.Undercounts}
	case strings.HasPrefix(name, "sweeps-"):
		return []metrics.Metric{metrics.Metric(strings.TrimPrefix(name, "sweeps-"))}
	}
	return nil
}
