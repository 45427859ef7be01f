package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/workload"
)

// countsim sample: a small recorded log to try replaying one's own traffic
// (workload: {file: …}) without outside data, and for the tests.

// sampleFlags are sample's flags.
type sampleFlags struct {
	out    string
	format string
	events int64
	bad    []int64 // lines to plant bad
	step   string
	replay string
}

var sampleOpts sampleFlags

var cmdSample = &command{
	Name:      "sample",
	UsageLine: "sample [-o FILE] [-format csv|ndjson] [-events N] [-step NAME] [-replay FILE] [-bad LINE] [SCENARIO]",
	Short:     "write a scenario's stream as an event log, to replay as workload: {file: …}",
	Long: `
Sample writes the stream of a scenario (default search) as a recorded log:
CSV with a header, or NDJSON, gzipped when FILE ends in .gz. A count stream
gives its first N events (default 300,000); every other kind — a timed
stream, an audience, trending phrases, a board, ratings, a split stream —
its whole stream, refused past N events. Its columns are time (RFC 3339),
key (the key's string: "phrase #RANK" by popularity, a player's, an
item's), key_id (the key's 64-bit id), actor (who acted, by name: a viewer,
a region, a node), actor_id (its id), id, delta and op. -step NAME samples
one step of a scenario told in steps.

-replay FILE writes beside it a scenario that replays the log as the run it
came from: the scenario (or the step) with its workload replaced by the log,
read by key_id, actor_id and event_id, so that countsim run of it gives the
synthetic run's measured rows; with key and actor alone, the strings are
hashed as a team's own log's would be. -bad LINE (repeatable) writes that
line of the file as one that cannot be read, to try bad input and skip_bad.
No FILE is ever written over.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		sampleOpts = sampleFlags{format: "csv", events: 300_000}
		fs.StringVar(&sampleOpts.out, "o", "sample.csv.gz", "write the log to `FILE` (.gz: gzipped)")
		fs.Var(&choice{&sampleOpts.format, []string{"csv", "ndjson"}}, "format", "the log's `FORMAT`: csv or ndjson")
		fs.Int64Var(&sampleOpts.events, "events", 300_000, "the events to write, `N` from 1 to 10^10 (a count stream's first N; any other kind's whole stream, refused past N)")
		fs.StringVar(&sampleOpts.step, "step", "", "sample the step `NAME` of a scenario told in steps")
		fs.StringVar(&sampleOpts.replay, "replay", "", "also write to `FILE` a scenario that replays the log as the run it came from")
		fs.Func("bad", "write line `LINE` of the file (the header is line 1) as a bad line; repeatable", func(s string) error {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 2 {
				return fmt.Errorf("-bad %q: want a line number from 2 (the header is line 1)", s)
			}
			sampleOpts.bad = append(sampleOpts.bad, n)
			return nil
		})
	},
	Run: runSample,
}

func runSample(ctx context.Context, env *cmdEnv, args []string) error {
	o := sampleOpts
	if len(args) > 1 {
		return &usageError{msg: "sample takes one scenario (default search)"}
	}
	if o.events < 1 || o.events > 1e10 {
		return &usageError{msg: fmt.Sprintf("-events %d: want 1 to 10^10", o.events)}
	}
	name := "search"
	if len(args) == 1 {
		name = args[0]
	}
	top, err := scenarios.Resolve(name)
	if err != nil {
		return err
	}
	scn, err := sampledStep(top, o.step)
	if err != nil {
		return err
	}
	if err := sim.CanSample(scn); err != nil {
		return &usageError{msg: err.Error()} // before any file is written
	}
	var src []byte
	if o.replay != "" {
		if o.replay == o.out {
			return &usageError{msg: "-replay and -o name the same file"}
		}
		if _, err := os.Lstat(o.replay); err == nil {
			return fmt.Errorf("sample: %s exists: it is never written over (allowed: a new file)", o.replay)
		}
		if src, err = scenarios.SourceOf(top); err != nil {
			return err
		}
	}
	var sampled *sim.Sampled
	err = writeLog(o.out, o.format, o.bad, func(each func([]workload.Event, sim.SampleNames) error) error {
		var err error
		sampled, err = sim.Sample(scn, o.events, each)
		return err
	})
	if err != nil {
		return err
	}
	var files []string // the further files, beside the log
	for _, f := range sampled.Files {
		path := withSuffix(o.out, f.Suffix)
		if err := writeLog(path, o.format, nil, f.Write); err != nil {
			os.Remove(o.out) // nothing half written: the log is nothing without its files
			for _, p := range files {
				os.Remove(p)
			}
			return err
		}
		files = append(files, path)
	}
	what := scn.Name
	if o.step != "" {
		what = top.Name + ", step " + o.step
	}
	fmt.Fprintf(env.stdout, "wrote %s events of %s to %s\n", metrics.Format(float64(sampled.Events)), what, o.out)
	for i, f := range sampled.Files {
		fmt.Fprintf(env.stdout, "wrote its %s to %s\n", f.Key, files[i])
	}
	if o.replay == "" {
		fmt.Fprintf(env.stdout, "replay them with a scenario whose workload is (the log's path relative to the scenario file)\nworkload:\n")
		for _, kv := range replayWorkload(o.out, o.format, sampled, files) {
			fmt.Fprintf(env.stdout, "  %s: %s\n", kv[0], kv[1])
		}
		return nil
	}
	text, err := scenarios.Replay(src, o.step, replayWorkload(relativeTo(o.replay, o.out), o.format, sampled, relativeAll(o.replay, files)), sampled.Cut)
	if err == nil && len(sampled.Unjudged) > 0 && !sampled.Cut {
		text, err = scenarios.LeaveOut(text, sampled.Unjudged)
	}
	if err != nil {
		return fmt.Errorf("sample: the replay scenario of %s: %w", top.File, err)
	}
	if err := metrics.WriteFile(o.replay, func(w io.Writer) error { _, err := w.Write(text); return err }); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "wrote the scenario that replays it to %s: countsim run %s\n", o.replay, o.replay)
	return nil
}

// writeLog writes the events draw hands it to path as a log of format
// (gzipped when path ends in .gz), the lines numbered in bad planted bad;
// never over a file.
func writeLog(path, format string, bad []int64, draw func(each func([]workload.Event, sim.SampleNames) error) error) error {
	return metrics.WriteFile(path, func(w io.Writer) error {
		var gz *gzip.Writer
		if strings.HasSuffix(path, ".gz") {
			gz = gzip.NewWriter(w)
			w = gz
		}
		if len(bad) > 0 {
			w = &badLines{w: w, line: 1, bad: bad}
		}
		var names sim.SampleNames
		lw, err := workload.NewLogWriter(w, format, func(key uint64) string { return names.Key(key) })
		if err != nil {
			return err
		}
		named := false
		err = draw(func(events []workload.Event, n sim.SampleNames) error {
			names = n
			if !named && n.Actor != nil {
				lw.NameActors(func(a uint64) string { return names.Actor(a) })
			}
			named = true
			return lw.Write(events)
		})
		if err != nil {
			return err
		}
		if err := lw.Flush(); err != nil {
			return err
		}
		if gz != nil {
			return gz.Close()
		}
		return nil
	})
}

// withSuffix is path with suffix put before its extensions: s.csv.gz,
// -standings: s-standings.csv.gz.
func withSuffix(path, suffix string) string {
	dir, base := filepath.Split(path)
	name, ext, _ := strings.Cut(base, ".")
	if ext != "" {
		ext = "." + ext
	}
	return dir + name + suffix + ext
}

// relativeAll is every path as the replay scenario at scenarioPath names
// it.
func relativeAll(scenarioPath string, paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = relativeTo(scenarioPath, p)
	}
	return out
}

// sampledStep is the scenario sample writes: scn itself, or its step
// named step.
func sampledStep(scn *scenarios.Scenario, step string) (*scenarios.Scenario, error) {
	if step == "" {
		if len(scn.Steps) > 0 {
			return nil, &usageError{msg: fmt.Sprintf("sample: %s is told in steps; name one with -step (allowed: %s)", scn.Name, stepList(scn))}
		}
		return scn, nil
	}
	for _, st := range scn.Steps {
		if st.Step == step {
			return st, nil
		}
	}
	if len(scn.Steps) == 0 {
		return nil, &usageError{msg: fmt.Sprintf("sample: -step %s: %s has no steps", step, scn.Name)}
	}
	return nil, &usageError{msg: fmt.Sprintf("sample: -step %s: no such step of %s (allowed: %s)", step, scn.Name, stepList(scn))}
}

func stepList(scn *scenarios.Scenario) string {
	var names []string
	for _, st := range scn.Steps {
		names = append(names, st.Step)
	}
	return strings.Join(names, ", ")
}

// badLines writes the lines of a log, the ones numbered in bad (1-based)
// replaced by a line no reader takes.
type badLines struct {
	w    io.Writer
	line int64
	bad  []int64
	part []byte // the line so far
}

func (b *badLines) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			b.part = append(b.part, p...)
			break
		}
		line := append(b.part, p[:i+1]...)
		if slices.Contains(b.bad, b.line) {
			line = []byte("{this line, " + strconv.FormatInt(b.line, 10) + ", was planted bad by countsim sample -bad\n")
		}
		if _, err := b.w.Write(line); err != nil {
			return 0, err
		}
		b.part, p = b.part[:0], p[i+1:]
		b.line++
	}
	return n, nil
}
