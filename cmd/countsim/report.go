package main

// The report folder's files: report.md, the tables and charts, results.csv
// and .json, manifest.json (manifest.go).

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/plots"
	"countsim/sim"
)

// writeReport writes every file of the report folder, each atomically.
func writeReport(dir string, env *cmdEnv, setups []*sim.Setup, results []metrics.Result, series []metrics.Series,
	tables []metrics.Table, started time.Time, wall []time.Duration, partial bool) error {
	var files []plots.File
	if len(series) > 0 {
		plotDir := filepath.Join(dir, "plots")
		if err := os.Mkdir(plotDir, 0o755); err != nil {
			return err
		}
		var err error
		files, err = plots.Draw(plotDir, series)
		if err != nil && len(files) == 0 && !partial {
			return err
		}
		if err != nil {
			// Charts that could not be drawn (a stopped run may leave a
			// chart with no data) are skipped; the tables are what counts.
			fmt.Fprintf(env.stderr, "countsim: some charts were not drawn: %v\n", err)
		}
	}
	if len(tables) > 0 {
		if err := os.Mkdir(filepath.Join(dir, "tables"), 0o755); err != nil {
			return err
		}
		for _, t := range tables {
			path := filepath.Join(dir, "tables", t.Scenario+"-"+t.Name+".csv")
			if err := metrics.WriteFile(path, func(w io.Writer) error { return metrics.WriteTableCSV(w, t) }); err != nil {
				return err
			}
		}
	}
	if err := metrics.WriteFile(filepath.Join(dir, "results.csv"), func(w io.Writer) error { return metrics.WriteCSV(w, results) }); err != nil {
		return err
	}
	if err := metrics.WriteFile(filepath.Join(dir, "results.json"), func(w io.Writer) error { return metrics.WriteJSON(w, results) }); err != nil {
		return err
	}
	man, err := json.MarshalIndent(manifest(setups, started, wall, partial), "", "  ")
	if err != nil {
		return err
	}
	if err := metrics.WriteFile(filepath.Join(dir, "manifest.json"), writeBytes(append(man, '\n'))); err != nil {
		return err
	}
	return metrics.WriteFile(filepath.Join(dir, "report.md"), writeBytes(reportMarkdown(dir, setups, results, files, tables, partial)))
}

// writeBytes is a callback for metrics.WriteFile that writes b.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	}
}

// reportMarkdown is report.md: per scenario its assumptions, the table of
// measured values beside the plan, and the charts.
func reportMarkdown(dir string, setups []*sim.Setup, results []metrics.Result, files []plots.File, tables []metrics.Table, partial bool) []byte {
	var b bytes.Buffer
	b.WriteString("# countsim report\n\n")
	if partial {
		b.WriteString("**PARTIAL: the run was stopped before the end; the figures cover the events fed so far.**\n\n")
	}
	for i, st := range setups {
		scn := st.Scenario
		if i == 0 || setups[i-1].Scenario.Name != scn.Name {
			fmt.Fprintf(&b, "## %s\n\nScenario `%s` (%s), seed %d.\n\n", scn.Title, scn.Name, scn.File, scn.Seed)
		}
		if scn.Step != "" {
			fmt.Fprintf(&b, "### Step `%s`: %s\n\n", scn.Step, cmp.Or(scn.StepTitle, scn.Step))
		}
		if d := strings.TrimSpace(scn.Description); d != "" {
			b.WriteString(d + "\n\n")
		}
		b.WriteString(st.Describe() + "\n\n")
		for _, n := range st.Notes {
			b.WriteString("**Note:** " + n + "\n\n")
		}
		for _, line := range figureNotes(scn) {
			b.WriteString(line + "\n\n")
		}
		if i+1 < len(setups) && setups[i+1].Scenario.Name == scn.Name {
			continue // the scenario's table and charts come after its last step
		}
		var rows []metrics.Result
		for _, r := range results {
			if r.Scenario == scn.Name {
				rows = append(rows, r)
			}
		}
		_ = metrics.WriteMarkdown(&b, rows)
		b.WriteString("\n")
		for _, t := range tables {
			if t.Scenario == scn.Name {
				fmt.Fprintf(&b, "%s (also tables/%s-%s.csv):\n\n", t.Title, t.Scenario, t.Name)
				_ = metrics.WriteTableMarkdown(&b, t)
				b.WriteString("\n")
			}
		}
		for _, f := range files {
			if f.Scenario != scn.Name {
				continue
			}
			for _, p := range f.Paths {
				if strings.HasSuffix(p, ".svg") {
					rel, _ := filepath.Rel(dir, p)
					fmt.Fprintf(&b, "![%s](%s)\n\n", f.Title, filepath.ToSlash(rel))
				}
			}
		}
	}
	b.WriteString("Rows marked ⏱ are read off the wall clock and vary between runs; every other figure is the same for the same seed.\n")
	return b.Bytes()
}
