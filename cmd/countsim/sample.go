package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
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
}

var sampleOpts sampleFlags

var cmdSample = &command{
	Name:      "sample",
	UsageLine: "sample [-o FILE] [-format csv|ndjson] [-events N] [-bad LINE] [SCENARIO]",
	Short:     "write a small event log from a built-in count stream, to replay as workload: {file: …}",
	Long: `
Sample writes the first N events (default 300,000) of a count stream scenario
(default search) as a recorded log: CSV with a header, or NDJSON, gzipped when
FILE ends in .gz. Its columns are time (RFC 3339), key (the phrase's string,
"phrase #RANK" by popularity), key_id (the key's 64-bit id), actor, id, delta
and op. A scenario that replays it with key_id, actor_id and event_id gets
the very events of the scenario with events: N, so the two runs measure the
same; with key alone, the strings are hashed as a team's own log's would be.
-bad LINE (repeatable) writes that line of the file as one that cannot be
read, to try bad input and skip_bad. FILE is never written over.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		sampleOpts = sampleFlags{format: "csv", events: 300_000}
		fs.StringVar(&sampleOpts.out, "o", "sample.csv.gz", "write the log to `FILE` (.gz: gzipped)")
		fs.Var(&choice{&sampleOpts.format, []string{"csv", "ndjson"}}, "format", "the log's `FORMAT`: csv or ndjson")
		fs.Int64Var(&sampleOpts.events, "events", 300_000, "the events to write, `N` from 1 to 10^10")
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
		return &usageError{"sample takes one scenario (default search)"}
	}
	if o.events < 1 || o.events > 1e10 {
		return &usageError{fmt.Sprintf("-events %d: want 1 to 10^10", o.events)}
	}
	name := "search"
	if len(args) == 1 {
		name = args[0]
	}
	scn, err := scenarios.Resolve(name)
	if err != nil {
		return err
	}
	if len(scn.Steps) > 0 {
		return &usageError{fmt.Sprintf("sample: %s is told in steps; name a scenario that is one count stream, such as search", scn.Name)}
	}
	var written int64
	err = metrics.WriteFile(o.out, func(w io.Writer) error {
		var gz *gzip.Writer
		if strings.HasSuffix(o.out, ".gz") {
			gz = gzip.NewWriter(w)
			w = gz
		}
		if len(o.bad) > 0 {
			w = &badLines{w: w, line: 1, bad: o.bad}
		}
		rank := map[uint64]uint32{}
		lw, err := workload.NewLogWriter(w, o.format, func(key uint64) string { return "phrase #" + strconv.Itoa(int(rank[key])) })
		if err != nil {
			return err
		}
		err = sim.Sample(scn, o.events, func(events []workload.Event, ranks []uint32) error {
			clear(rank) // the names of this chunk's keys only: memory stays bounded
			for i, e := range events {
				rank[e.Key] = ranks[i] // 1 for the most searched
			}
			written += int64(len(events))
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
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, `wrote %s events of %s to %s; replay them with a scenario whose workload is
workload:
  file: %s       # relative to the scenario file
  format: %s
  key: key
  key_id: key_id      # the synthetic run's keys; without it the key strings are hashed
  time: time
  actor_id: actor
  event_id: id
  delta: delta
  op: op
`, metrics.Format(float64(written)), scn.Name, o.out, o.out, o.format)
	return nil
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
