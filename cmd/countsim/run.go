package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/plots"
	"countsim/report"
	"countsim/scenarios"
	"countsim/sim"
)

// startCPUProfile profiles the process's CPU into a new file at path (one
// already there is left as it was) until the returned stop is called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("-cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

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
	ran, err := execRun(ctx, env, setups)
	if err != nil {
		return err
	}
	if err := writeStdout(env, ran.results, ran.shown, ran.dir); err != nil {
		return err
	}
	if planned, peak := maxPlanned(setups), peakRSS(); peak > planned+planned/10 {
		fmt.Fprintf(env.stderr, "countsim: the peak resident memory, %s bytes, passed the plan of %s bytes by more than 10%%\n",
			metrics.Format(float64(peak)), metrics.Format(float64(planned)))
	}
	if ran.partial {
		return fmt.Errorf("run stopped (%v): the report in %s is partial", ran.runErr, ran.dir)
	}
	return nil
}

// ran is what execRun did: the report folder it wrote, the rows in it and
// what its report shows; partial when the run was stopped (runErr says
// why) and the folder holds what was measured until then.
type ran struct {
	dir     string
	charts  []plots.File // the charts drawn, their paths in the folder as it was written (plots/ of a temporary one)
	results []metrics.Result
	shown   *report.Run
	partial bool
	runErr  error
}

// execRun runs the prepared scenarios one after another and writes their
// report folder under env.out, as `countsim run` does; an error before
// anything was measured leaves nothing behind.
func execRun(ctx context.Context, env *cmdEnv, setups []*sim.Setup) (*ran, error) {
	defer env.closeStores()
	defer forgetPeaks(setups)
	if err := env.connectStores(ctx); err != nil {
		return nil, err
	}
	if env.cpuProfile != "" {
		stop, err := startCPUProfile(env.cpuProfile)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	// Everything is written into a hidden folder that takes its final name
	// only once complete, so a failure leaves nothing behind; each
	// scenario's charts are drawn there as it ends. A run that fails
	// before measuring anything (a log's bad line found as it is read)
	// takes back the folder and any of -out's folders it made.
	made, err := mkdirs(env.out)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(env.out, ".countsim-report-")
	if err != nil {
		unmake(made)
		return nil, err
	}
	drawn := newCharts(tmp)
	started := time.Now().UTC()
	var results []metrics.Result
	var tables []metrics.Table
	var runErr error
	var wall []time.Duration // each scenario's, in order
	partial := false
	prog := env.progressPrinter()
	for _, st := range setups {
		prog.line(fmt.Sprintf("countsim: running %s: %s", st.Scenario.ID(), st.Describe()))
		if len(st.LeftOut) > 0 {
			fmt.Fprintf(env.stderr, "countsim: %s: left out the on-demand %s %s (include with -with NAME)\n",
				st.Scenario.ID(), pluralNoun(len(st.LeftOut), "design"), strings.Join(st.LeftOut, ", "))
		}
		recordPeak(nil, peakRSS()) // what came before: preparing, the scenarios before it
		resetPeakRSS()             // so that its peak is its own
		t0 := time.Now()
		rep, err := st.Run(ctx)
		took := time.Since(t0)
		wall = append(wall, took)
		recordPeak(st, peakRSS())
		stopped := rep != nil && rep.Partial || rep == nil && err != nil && ctx.Err() != nil // never "done"
		prog.done(st.Scenario.ID(), took, stepEvents(st, rep), stopped)
		for _, n := range st.Notes {
			fmt.Fprintf(env.stderr, "countsim: %s: %s\n", st.Scenario.ID(), n)
		}
		if rep != nil {
			// Every row says its step, and that the run was stopped if it
			// was, in results.json and .csv too.
			for i := range rep.Results {
				rep.Results[i].Step = st.Scenario.Step
				if rep.Partial {
					rep.Results[i].Partial = true
				}
			}
			results = append(results, rep.Results...)
			drawn.draw(st, rep.Results, rep.Series)
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
		drawn.wait()
		os.RemoveAll(tmp)
		unmake(made)
		return nil, runErr // failed before measuring anything
	}
	shown, err := writeReport(tmp, env, setups, results, drawn, tables, started, wall, partial)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	if err := shareable(tmp); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("writing the report: %w", err)
	}
	dir, err := publish(tmp, env.out, reportName(setups, started))
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	files, _ := drawn.wait() // what writeReport waited for
	return &ran{dir: dir, charts: files, results: results, shown: shown, partial: partial, runErr: runErr}, nil
}

// stdoutFormats are the values of run -format; defaultFormat is the one
// run prints when -format is not given.
var stdoutFormats = []string{"summary", "md", "csv", "json"}

const defaultFormat = "summary"

// writeStdout writes what run prints on stdout once the report folder dir
// is written: the results in env.format. summary (the default) is a few
// lines a step — each design's answers to the summary's questions beside
// their plans, the expectations' tally (report.Text) — and the folder; md is a markdown table a scenario
// (metrics.WriteMarkdown) and then the folder's path; csv and json are
// results.csv's and results.json's bytes alone, for a pipe, and the
// folder's path goes to stderr.
func writeStdout(env *cmdEnv, results []metrics.Result, shown *report.Run, dir string) error {
	switch env.format {
	case "summary":
		if err := report.Text(env.stdout, shown); err != nil {
			return err
		}
		_, err := fmt.Fprintf(env.stdout, "Every row: report.html in the folder below, or -format md.\nreport: %s\n", dir)
		return err
	case "csv":
		fmt.Fprintf(env.stderr, "countsim: report: %s\n", dir)
		return metrics.WriteCSV(env.stdout, results)
	case "json":
		fmt.Fprintf(env.stderr, "countsim: report: %s\n", dir)
		return metrics.WriteJSON(env.stdout, results)
	case "md":
		if err := metrics.WriteMarkdown(env.stdout, results); err != nil {
			return err
		}
		_, err := fmt.Fprintf(env.stdout, "\nreport: %s\n", dir)
		return err
	}
	return fmt.Errorf("-format %q: no writer (allowed: %s)", env.format, strings.Join(stdoutFormats, ", "))
}

// choice is a flag whose value is one of allowed.
type choice struct {
	p       *string
	allowed []string
}

func (c *choice) String() string {
	if c.p == nil {
		return ""
	}
	return *c.p
}

func (c *choice) Set(s string) error {
	if !slices.Contains(c.allowed, s) {
		return fmt.Errorf("allowed: %s%s", strings.Join(c.allowed, ", "), scenarios.DidYouMean(s, c.allowed))
	}
	*c.p = s
	return nil
}

// checkOut checks -out before anything runs: a file there is refused (it
// was found only once the run was over), and the hidden folders a killed
// run left behind are named, for the user to remove: another run writing
// into the same folder right now would have one too, so none is removed.
func checkOut(env *cmdEnv) error {
	fi, err := os.Stat(env.out)
	if err == nil && !fi.IsDir() {
		return &usageError{msg: fmt.Sprintf("-out %s: is a file (allowed: a folder, or a path to make one at)", env.out)}
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

// shareable makes the folder dir and everything in it readable by all, as
// a report is meant to be read: folders 0755 (os.MkdirTemp made dir 0700,
// and a umask may have narrowed the others), files 0644 (metrics.WriteFile
// makes them so; this is for any other). It is applied before the folder
// takes its name, so the report appears readable or not at all.
func shareable(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Chmod(path, 0o755)
		case d.Type().IsRegular():
			return os.Chmod(path, 0o644)
		}
		return nil
	})
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

// mkdirs makes dir and any of its parents that are missing, and returns
// those it made, dir's first.
func mkdirs(dir string) ([]string, error) {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	return made, os.MkdirAll(dir, 0o755)
}

// unmake removes the folders mkdirs made, innermost first, where empty.
func unmake(made []string) {
	for _, d := range made {
		os.Remove(d)
	}
}
