package main

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/sim/engine"
)

// cancelOn is a stderr that cancels the run's context the first time what
// was written to it contains at (or, with match, matches it); progress is
// written from sim's goroutine, so it locks.
type cancelOn struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
	at     string
	match  *regexp.Regexp
	fired  bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.buf.Write(p)
	if !c.fired && (c.at != "" && strings.Contains(c.buf.String(), c.at) || c.match != nil && c.match.Match(c.buf.Bytes())) {
		c.fired = true
		c.cancel()
	}
	return n, err
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func TestDoneLineOfAStoppedStep(t *testing.T) {
	for _, c := range []struct {
		events int64
		want   string
	}{
		{1_234_567, "countsim: big: stopped after 1,234,567 events, in 2.5 s"},
		{0, "countsim: big: stopped after 0 events, in 2.5 s"}, // stopped while a board's standings loaded
		{-1, "countsim: big: stopped after 2.5 s"},             // no stream of events: a profile, trials
	} {
		if got := doneLine("big", 2500*time.Millisecond, c.events, true); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// bigYAML is a count stream that takes seconds: 50 M events.
const bigYAML = `name: big
seed: 3
workload:
  events: 50_000_000
  keys: 20_000
  s: 1.1
  batch: 1000
questions:
  top: 10
strategies:
  - name: count-min
    type: count-min
    params: {epsilon: 0.001, delta: 0.01, top: 10}
`

// A run stopped mid-stream says after how many events it stopped, on
// stderr and in the summary, never that it is done; and the plan beside
// each measurement is the plan for the events fed: count-min's bound εN
// with N the events fed, not the 50,000,000 of the whole stream.
func TestStoppedMidStreamSaysStoppedAndPlansWhatWasFed(t *testing.T) {
	defer func(every time.Duration) { progressEvery = every }(progressEvery)
	progressEvery = time.Millisecond
	// The scoring of what was fed is whole however busy the machine: under
	// the race detector count-min's 20,000 keys took more than the 150 ms
	// a stopped run's scoring is given, and its rows were left out.
	defer func(g time.Duration) { engine.ScoreGrace = g }(engine.ScoreGrace)
	engine.ScoreGrace = time.Minute
	dir := t.TempDir()
	file := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(file, []byte(bigYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{cancel: cancel, match: regexp.MustCompile(`countsim: big: \d+%, [1-9][\d,]* events`)} // the first status with events fed
	var stdout bytes.Buffer
	out := filepath.Join(dir, "reports")
	err := run(ctx, &stdout, stderr, []string{"run", "-progress", "-out", out, file})
	errText := stderr.String()
	if code := exitCode(err, stderr); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errText)
	}
	m := regexp.MustCompile(`countsim: big: stopped after ([\d,]+) events, in [\d.]+ s\n`).FindStringSubmatch(errText)
	if m == nil || strings.Contains(errText, "done in") {
		t.Fatalf("stderr says no \"stopped after N events\", or says done:\n%s", errText)
	}
	fedText := m[1]
	summary := stdout.String()
	for _, want := range []string{"PARTIAL", "Stopped after " + fedText + " events of the 50,000,000 planned", "worked out for what was fed"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q:\n%s", want, summary)
		}
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "big-*"))
	if len(dirs) != 1 {
		t.Fatalf("report folders %v, want one", dirs)
	}
	rs, err := readResults(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	fed := metrics.Select(rs, "truth", metrics.Events, metrics.Sim)
	if len(fed) != 1 || metrics.Format(fed[0].Number()) != fedText || fed[0].Number() >= 50_000_000 {
		t.Fatalf("truth events %+v, want the %s events stderr says, fewer than the stream's", fed, fedText)
	}
	n := fed[0].Number()
	// ε·N with N the events fed: 0.001·N (count-min's width ⌈e/ε⌉ makes
	// its bound e/w·N, within 0.02% of it, rounded up to an event).
	over := metrics.Select(rs, "count-min", metrics.MaxOverestimate, metrics.Sim)
	if len(over) != 1 || over[0].Plan == nil {
		t.Fatalf("count-min max_overestimate rows %+v, want one with a plan", over)
	}
	if got, want := *over[0].Plan, 0.001*n; math.Abs(got-want) > 1+2e-4*want {
		t.Errorf("count-min's bound beside its measurement: %v, want about εN = %v for the %v events fed (the whole stream's is 50,000)", got, want, n)
	}
	if rep, err := os.ReadFile(filepath.Join(dirs[0], "report.md")); err != nil || !bytes.Contains(rep, []byte("worked out for what was fed")) {
		t.Errorf("report.md does not say the plans are for what was fed (%v)", err)
	}
}

// Stopped before its scenario is prepared, a run writes nothing and says
// so.
func TestStoppedWhilePreparing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(ctx, &stdout, &stderr, []string{"run", "-out", out, "testdata/small.yaml"})
	if code := exitCode(err, &stderr); code != 1 || !strings.Contains(stderr.String(), "small: stopped while it was prepared") {
		t.Errorf("exit %d, stderr %q; want 1 and the stop", code, stderr.String())
	}
	if dirs, _ := filepath.Glob(filepath.Join(out, "*")); len(dirs) != 0 {
		t.Errorf("a run stopped before it ran wrote %v", dirs)
	}
}
