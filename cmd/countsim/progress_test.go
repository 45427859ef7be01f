package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"countsim/sim"
)

func TestStatusLine(t *testing.T) {
	for _, c := range []struct {
		id   string
		p    sim.Progress
		want string
	}{
		{"search-full-day", sim.Progress{Events: 500_000_000, Done: 0.25, Elapsed: 40 * time.Second, Slowest: "space-saving"},
			"countsim: search-full-day: 25%, 500,000,000 events, 12,500,000 events/s, ETA 2 min 00 s, 40 s in, slowest space-saving"},
		// The ETA is the time taken times the share left over the share done.
		{"cricket-final/views", sim.Progress{Events: 2_000_000, Done: 0.0999, Elapsed: 10 * time.Second, Slowest: "striped-32"},
			"countsim: cricket-final/views: 9%, 2,000,000 events, 200,000 events/s, ETA 1 min 30 s, 10 s in, slowest striped-32"},
		{"leaderboard-full", sim.Progress{Stage: "standings", Events: 5_000_000, Done: 0.25, Elapsed: 10 * time.Second, Slowest: "sorted-set"},
			"countsim: leaderboard-full: 25%, 5,000,000 players of the standings loaded, 500,000 players/s, ETA 30 s, 10 s in, slowest sorted-set"},
		// Nothing handed out yet, or all of it: no ETA.
		{"s", sim.Progress{Events: 0, Elapsed: 2 * time.Second}, "countsim: s: 0%, 0 events, 0 events/s, 2 s in"},
		{"s", sim.Progress{Events: 10, Done: 1, Elapsed: 3700 * time.Second, Slowest: "truth"}, "countsim: s: 100%, 10 events, 0 events/s, 1 h 01 min in, slowest truth"},
	} {
		if got := statusLine(c.id, c.p); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
	if got := doneLine("cricket-final/views", 60400*time.Millisecond, 12_205_000, false); got != "countsim: cricket-final/views: done in 60.4 s, 12,205,000 events" {
		t.Errorf("done line %q", got)
	}
	if got := doneLine("hll-accuracy", 1234*time.Millisecond, -1, false); got != "countsim: hll-accuracy: done in 1.2 s" {
		t.Errorf("done line without events %q", got)
	}
	if got := doneLine("one", time.Second, 1, false); got != "countsim: one: done in 1.0 s, 1 event" {
		t.Errorf("done line of one event %q", got)
	}
}

func TestFitLine(t *testing.T) {
	for _, c := range []struct {
		line  string
		width int
		want  string
	}{
		{"abcdef", 0, "abcdef"}, {"abcdef", 7, "abcdef"}, {"abcdef", 6, "abcde"}, {"abcdef", 3, "ab"}, {"é×ab", 3, "é×"},
	} {
		if got := fitLine(c.line, c.width); got != c.want {
			t.Errorf("fitLine(%q, %d) = %q, want %q", c.line, c.width, got, c.want)
		}
	}
}

// On a terminal the status line is rewritten in place, cut to the width,
// and wiped before any other line; elsewhere each status is a line.
func TestProgressPrinter(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b, tty: true, width: 70, fed: map[string]int64{}}
	long := sim.Progress{Events: 1_000_000, Done: 0.5, Elapsed: 10 * time.Second, Slowest: "count-min"}
	short := sim.Progress{Events: 3, Done: 0.5, Elapsed: 10 * time.Second}
	p.status("a", long)
	p.status("a", short)
	p.done("a", 20*time.Second, -1, false)
	p.line("countsim: running b")
	first := fitLine(statusLine("a", long), 70)
	second := statusLine("a", short)
	if len(first) != 69 || len(second) >= 69 {
		t.Fatalf("lines of %d and %d columns: the test wants one cut and one shorter", len(first), len(second))
	}
	want := "\r" + first +
		"\r" + second + strings.Repeat(" ", 69-len(second)) + // the end of the longer line wiped
		"\r" + strings.Repeat(" ", len(second)) + "\r" + "countsim: a: done in 20.0 s, 3 events\n" + // events from the last status
		"countsim: running b\n"
	if b.String() != want {
		t.Errorf("terminal:\ngot  %q\nwant %q", b.String(), want)
	}

	b.Reset()
	p = &progress{w: &b, fed: map[string]int64{}}
	p.status("a", long)
	p.status("a", short)
	p.done("a", 20*time.Second, 7, false)
	want = statusLine("a", long) + "\n" + second + "\n" + "countsim: a: done in 20.0 s, 7 events\n"
	if b.String() != want {
		t.Errorf("not a terminal:\ngot  %q\nwant %q", b.String(), want)
	}

	var none *progress // -q: a nil printer prints nothing and does not panic
	none.status("a", long)
	none.line("x")
	none.done("a", time.Second, 1, false)
}

// The printer exists but with -q; it reports a stream's status on a
// terminal or with -progress, and is a log of the steps done otherwise.
func TestProgressPrinterWhen(t *testing.T) {
	var buf bytes.Buffer
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, c := range []struct {
		name            string
		env             cmdEnv
		printer, status bool
	}{
		{"a buffer", cmdEnv{stderr: &buf}, true, false},
		{"a buffer, -progress", cmdEnv{stderr: &buf, progress: true}, true, true},
		{"a buffer, -progress -q", cmdEnv{stderr: &buf, progress: true, quiet: true}, false, false},
		{"a buffer, -q", cmdEnv{stderr: &buf, quiet: true}, false, false},
		{"/dev/null", cmdEnv{stderr: null}, true, false},
	} {
		if got := c.env.progressPrinter() != nil; got != c.printer {
			t.Errorf("%s: printer %v, want %v", c.name, got, c.printer)
		}
		if got := c.env.progressFor("x") != nil; got != c.status {
			t.Errorf("%s: status callback %v, want %v", c.name, got, c.status)
		}
	}
}

// A run with -progress says what it runs, a status of each step's stream
// while it is fed, and a line when each step is done; without it, stderr
// not being a terminal, only the line of each step done (a log a CI job
// reads); with -q, none of it.
func TestRunProgress(t *testing.T) {
	defer func(every time.Duration) { progressEvery = every }(progressEvery)
	progressEvery = time.Millisecond
	_, stderr, code := cli(t, "run", "-progress", "-out", t.TempDir(), "testdata/small.yaml")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"countsim: running small: ", "\ncountsim: small: done in ", " s, 300,000 events\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stderr, "countsim: small: ") || !strings.Contains(stderr, " events/s, ") {
		t.Errorf("stderr has no status line:\n%s", stderr)
	}
	for _, args := range [][]string{{"run", "-q", "-progress"}, {"run", "-q"}} {
		// (A warning may remain: the test process's peak memory may pass
		// the plan, after the tests before.)
		_, stderr, code := cli(t, append(args, "-out", t.TempDir(), "testdata/small.yaml")...)
		if code != 0 || strings.Contains(stderr, "running") || strings.Contains(stderr, "done in") || strings.Contains(stderr, "events/s") {
			t.Errorf("%v, stderr a buffer: exit %d, stderr %q; want no progress", args, code, stderr)
		}
	}
	// Off a terminal: one line a step, when it is done, and no status.
	dir := t.TempDir()
	steps := filepath.Join(dir, "two-steps.yaml")
	if err := os.WriteFile(steps, []byte(twoSteps), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cli(t, "run", "-out", dir, "testdata/small.yaml", steps)
	var done []string
	for line := range strings.SplitSeq(stderr, "\n") {
		if strings.Contains(line, ": done in ") {
			done = append(done, line)
		}
	}
	if code != 0 || len(done) != 3 || !strings.HasPrefix(done[0], "countsim: small: done in ") || !strings.HasSuffix(done[0], " s, 300,000 events") ||
		!strings.HasPrefix(done[1], "countsim: two-steps/views: done in ") || !strings.HasPrefix(done[2], "countsim: two-steps/searches: done in ") ||
		strings.Contains(stderr, "running") || strings.Contains(stderr, "events/s") {
		t.Errorf("run, stderr a buffer: exit %d, stderr %q; want a line as each step is done, nothing else of progress", code, stderr)
	}
}
