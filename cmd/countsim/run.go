package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/plots"
	"countsim/sim"
)

// runRun is `countsim run`.
func runRun(ctx context.Context, env *cmdEnv, args []string) error {
	names, err := scenarioArgs(args)
	if err != nil {
		return err
	}
	env.realStores = true
	setups, err := prepareAll(names, env)
	if err != nil {
		return err
	}
	if err := checkOut(env); err != nil {
		return err
	}
	defer env.closeStores()
	if err := env.connectStores(ctx); err != nil {
		return err
	}
	started := time.Now().UTC()
	var results []metrics.Result
	var series []metrics.Series
	var tables []metrics.Table
	var runErr error
	var wall []time.Duration // each scenario's, in order
	partial := false
	for _, st := range setups {
		fmt.Fprintf(env.stderr, "countsim: running %s: %s\n", st.Scenario.ID(), st.Describe())
		if len(st.LeftOut) > 0 {
			fmt.Fprintf(env.stderr, "countsim: %s: left out the on-demand design(s) %s (include with -with NAME)\n",
				st.Scenario.ID(), strings.Join(st.LeftOut, ", "))
		}
		t0 := time.Now()
		rep, err := st.Run(ctx)
		wall = append(wall, time.Since(t0))
		fmt.Fprintf(env.stderr, "countsim: %s took %s of wall time\n", st.Scenario.ID(), time.Since(t0).Round(time.Millisecond))
		for _, n := range st.Notes {
			fmt.Fprintf(env.stderr, "countsim: %s: %s\n", st.Scenario.ID(), n)
		}
		if rep != nil {
			if rep.Partial { // every row says so, in results.json and .csv too
				for i := range rep.Results {
					rep.Results[i].Partial = true
				}
			}
			results = append(results, rep.Results...)
			series = append(series, rep.Series...)
			tables = append(tables, rep.Tables...)
			partial = partial || rep.Partial
		}
		if err != nil {
			runErr = err
			break
		}
		debug.FreeOSMemory() // what the scenario held goes back before the next one runs
	}
	if runErr != nil && !partial {
		return runErr // failed before measuring anything
	}
	// Everything is written into a hidden folder that takes its final name
	// only once complete, so a failure leaves nothing half-written behind.
	if err := os.MkdirAll(env.out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(env.out, ".countsim-report-")
	if err != nil {
		return err
	}
	if err := writeReport(tmp, env, setups, results, series, tables, started, wall, partial); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("writing the report: %w", err)
	}
	dir, err := publish(tmp, env.out, reportName(setups, started))
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	if err := metrics.WriteMarkdown(env.stdout, results); err != nil {
		return err
	}
	if planned, peak := maxPlanned(setups), peakRSS(); peak > planned+planned/10 {
		fmt.Fprintf(env.stderr, "countsim: the peak resident memory, %s bytes, passed the plan of %s bytes by more than 10%%\n",
			metrics.Format(float64(peak)), metrics.Format(float64(planned)))
	}
	fmt.Fprintf(env.stdout, "\nreport: %s\n", dir)
	if partial {
		return fmt.Errorf("run stopped (%v): the report in %s is partial", runErr, dir)
	}
	return nil
}

// checkOut checks -out before anything runs: a file there is refused (it
// was found only once the run was over), and the hidden folders a killed
// run left behind are named, for the user to remove: another run writing
// into the same folder right now would have one too, so none is removed.
func checkOut(env *cmdEnv) error {
	fi, err := os.Stat(env.out)
	if err == nil && !fi.IsDir() {
		return &usageError{fmt.Sprintf("-out %s: is a file (allowed: a folder, or a path to make one at)", env.out)}
	}
	left, _ := filepath.Glob(filepath.Join(env.out, ".countsim-report-*"))
	for _, dir := range left {
		fmt.Fprintf(env.stderr, "countsim: %s is what a stopped or killed run left half-written; remove it\n", dir)
	}
	return nil
}

// reportName is the report folder's name: the scenario's (or "run" for
// several) and the start time.
func reportName(setups []*sim.Setup, started time.Time) string {
	name := setups[0].Scenario.Name
	for _, st := range setups {
		if st.Scenario.Name != name {
			name = "run"
		}
	}
	return name + "-" + started.Format("20060102-150405")
}

// publish renames the finished folder tmp to out/name, or name-2, name-3…
// when a folder or file of that name exists: never over anything.
func publish(tmp, out, name string) (string, error) {
	for i := 1; i <= 1000; i++ {
		dir := filepath.Join(out, name)
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", dir, i)
		}
		if _, err := os.Lstat(dir); err == nil {
			continue
		}
		err := os.Rename(tmp, dir) // Go refuses to rename over a directory
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("no free name for %s under %s", name, out)
}

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

// manifest records what produced a report.
func manifest(setups []*sim.Setup, started time.Time, wall []time.Duration, partial bool) any {
	type scen struct {
		Name    string  `json:"name"`
		File    string  `json:"file"`
		Title   string  `json:"title"`
		Seed    uint64  `json:"seed"`
		Planned int64   `json:"memory_planned_bytes"` // what the memory check counted
		Wall    float64 `json:"wall_seconds"`         // 0 for a scenario not run
	}
	type module struct {
		Path    string `json:"path"`
		Version string `json:"version"`
	}
	m := struct {
		Scenarios []scen   `json:"scenarios"`
		Started   string   `json:"started"`
		Finished  string   `json:"finished"`
		Partial   bool     `json:"partial"`
		GoVersion string   `json:"go_version"`
		Modules   []module `json:"modules"`
		Machine   any      `json:"machine"`
		Countsim  string   `json:"countsim"`
		PeakRSS   int64    `json:"peak_rss_bytes"` // the process's, over every scenario; 0 where unknown
	}{
		Started:   started.Format(time.RFC3339),
		Finished:  time.Now().UTC().Format(time.RFC3339),
		Partial:   partial,
		GoVersion: runtime.Version(),
		Machine: map[string]any{
			"goos": runtime.GOOS, "goarch": runtime.GOARCH, "cpus": runtime.NumCPU(), "gomaxprocs": runtime.GOMAXPROCS(0),
			"hostname": hostname(),
		},
		Countsim: "(devel)",
		PeakRSS:  peakRSS(),
	}
	for i, st := range setups {
		sc := scen{st.Scenario.Name, st.Scenario.File, st.Scenario.Title, st.Scenario.Seed, st.MemoryNeeded(), 0}
		if i < len(wall) {
			sc.Wall = math.Round(wall[i].Seconds()*1000) / 1000
		}
		m.Scenarios = append(m.Scenarios, sc)
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m.Countsim = bi.Main.Version
		for _, d := range bi.Deps {
			m.Modules = append(m.Modules, module{d.Path, d.Version})
		}
	}
	return m
}

func hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return ""
	}
	return h
}

// maxPlanned is the most memory any of the scenarios planned: they run
// one after another.
func maxPlanned(setups []*sim.Setup) int64 {
	var most int64
	for _, st := range setups {
		most = max(most, st.MemoryNeeded())
	}
	return most
}

// progressFunc is the progress printer of a run: nil (none) with -q, or
// when stderr is not a terminal and -progress was not given.
func (env *cmdEnv) progressFunc() func(sim.Progress) {
	if env.quiet || !env.progress && !isTerminal(env.stderr) {
		return nil
	}
	return func(p sim.Progress) { fmt.Fprintln(env.stderr, progressLine(p)) }
}

// progressLine is one line of progress: events fed and their rate, the
// design that has taken the most time, the time elapsed and left.
func progressLine(p sim.Progress) string {
	secs := p.Elapsed.Seconds()
	what, rate := "events", "events/s"
	if p.Stage != "" {
		what, rate = "players of the "+p.Stage+" loaded", "players/s"
	}
	line := fmt.Sprintf("countsim: %s: %s %s (%.0f%%), %s %s, slowest %s, %s elapsed",
		p.Scenario, metrics.Format(float64(p.Events)), what, 100*p.Done, metrics.Format(math.Round(float64(p.Events)/secs)), rate,
		p.Slowest, p.Elapsed.Round(time.Second))
	if p.Done > 0 && p.Done < 1 {
		left := time.Duration(float64(p.Elapsed) * (1 - p.Done) / p.Done)
		line += fmt.Sprintf(", about %s left", left.Round(time.Second))
	}
	return line
}

// isTerminal reports whether w is a character device, as a terminal is.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
