package main

import (
	"encoding/json"
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

// writeReport writes every file of the report folder, each atomically, and
// returns what the report shows, for the summary on stdout.
func writeReport(dir string, env *cmdEnv, setups []*sim.Setup, results []metrics.Result, series []metrics.Series,
	tables []metrics.Table, started time.Time, wall []time.Duration, partial bool) (*report.Run, error) {
	var files []plots.File
	if len(series) > 0 {
		plotDir := filepath.Join(dir, "plots")
		if err := os.Mkdir(plotDir, 0o755); err != nil {
			return nil, err
		}
		var err error
		files, err = plots.Draw(plotDir, series)
		if err != nil && len(files) == 0 && !partial {
			return nil, err
		}
		if err != nil {
			// Charts that could not be drawn (a stopped run may leave a
			// chart with no data) are skipped; the tables are what counts.
			fmt.Fprintf(env.stderr, "countsim: some charts were not drawn: %v\n", err)
		}
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
	man, err := json.MarshalIndent(manifest(setups, started, wall, partial), "", "  ")
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
	r := &report.Run{Partial: partial, Manifest: man}
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
		if scn.Step != "" {
			for _, f := range files {
				if f.Scenario == scn.Name && f.Step == scn.Step {
					c, err := chartOf(dir, f)
					if err != nil {
						return nil, err
					}
					step.Charts = append(step.Charts, c...)
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
