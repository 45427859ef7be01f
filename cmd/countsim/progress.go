package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"countsim/metrics"
	"countsim/sim"
)

// What `countsim run` says on stderr while it works: the line that starts
// each step, a status line while a step's stream is fed (sim's Progress,
// every sim.DefaultProgressEvery), and a line when the step is done — or,
// stopped (Ctrl-C), a line that says after how many events it stopped,
// never that it is done. Off a terminal (a CI job's log) without -progress,
// only the last: one line a step.

// progressEvery is how often a step's stream reports its progress; tests
// shorten it.
var progressEvery = sim.DefaultProgressEvery

// progress prints a run's progress on stderr. On a terminal the status
// line is rewritten in place (\r) and cut to the terminal's width; else
// (-progress) each status is a line of its own; as a log (off a terminal
// without -progress) it prints only the line that ends each step. A nil
// *progress prints nothing. Its methods may be called from several goroutines: sim reports
// progress from a goroutine of its own.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool             // rewrite the status line in place
	log   bool             // only the line that ends each step
	width int              // the terminal's columns; 0 when unknown
	shown int              // the columns the status line on screen takes; 0 when none is
	fed   map[string]int64 // a step's events at its last status, by step
}

// progressPrinter is the run's progress printer, or nil with -q. When
// stderr is not a terminal and -progress was not given, it is a log: a
// line as each step ends, no more.
func (env *cmdEnv) progressPrinter() *progress {
	if env.quiet {
		return nil
	}
	if env.prog == nil {
		tty, width := terminal(env.stderr)
		env.prog = &progress{w: env.stderr, tty: tty, width: width, log: !tty && !env.progress, fed: map[string]int64{}}
	}
	return env.prog
}

// progressFor is the sim.Progress callback of step id (the scenario's ID,
// with its step), or nil when no progress is printed.
func (env *cmdEnv) progressFor(id string) func(sim.Progress) {
	p := env.progressPrinter()
	if p == nil || p.log {
		return nil
	}
	return func(s sim.Progress) { p.status(id, s) }
}

// status shows step id's progress s.
func (p *progress) status(id string, s sim.Progress) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if s.Stage == "" {
		p.fed[id] = s.Events
	}
	line := statusLine(id, s)
	if !p.tty {
		fmt.Fprintln(p.w, line)
		return
	}
	line = fitLine(line, p.width)
	n := utf8.RuneCountInString(line)
	fmt.Fprint(p.w, "\r"+line+strings.Repeat(" ", max(p.shown-n, 0)))
	p.shown = n
}

// line prints s as a line of its own, below no status line: a status line
// on screen is wiped first.
func (p *progress) line(s string) {
	if p == nil || p.log {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	fmt.Fprintln(p.w, s)
}

// done says that step id is done, or was stopped, after took; events is
// what its stream fed (−1: unknown, then as its last status said, if it
// had one).
func (p *progress) done(id string, took time.Duration, events int64, stopped bool) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n, ok := p.fed[id]; events < 0 && ok {
		events = n
	}
	p.clear()
	fmt.Fprintln(p.w, doneLine(id, took, events, stopped))
}

// clear wipes the status line on screen, if any; p.mu is held.
func (p *progress) clear() {
	if p.shown > 0 {
		fmt.Fprint(p.w, "\r"+strings.Repeat(" ", p.shown)+"\r")
		p.shown = 0
	}
}

// statusLine is a step's status: the share of its stream handed out, the
// events fed and their rate, the time left (from the share done and the
// time taken), the time taken, and the design that has taken the most
// time. While a board's standings load, the same of the players loaded.
func statusLine(id string, s sim.Progress) string {
	what, rate := "events", "events/s"
	if s.Stage != "" {
		what, rate = "players of the "+s.Stage+" loaded", "players/s"
	}
	line := fmt.Sprintf("countsim: %s: %d%%, %s %s", id, int(math.Floor(100*s.Done)), metrics.Format(float64(s.Events)), what)
	if secs := s.Elapsed.Seconds(); secs > 0 {
		line += fmt.Sprintf(", %s %s", metrics.Format(math.Round(float64(s.Events)/secs)), rate)
	}
	if left, ok := eta(s); ok {
		line += ", ETA " + clock(left)
	}
	line += ", " + clock(s.Elapsed) + " in"
	if s.Slowest != "" {
		line += ", slowest " + s.Slowest
	}
	return line
}

// eta is the time left of a stream at the rate so far: Elapsed·(1−Done)/Done.
// It is unknown (false) before anything was done and once all is.
func eta(s sim.Progress) (time.Duration, bool) {
	if !(s.Done > 0 && s.Done < 1) {
		return 0, false
	}
	return time.Duration(float64(s.Elapsed) * (1 - s.Done) / s.Done), true
}

// doneLine says a step is done: its wall time and the events it fed
// (left out when 0, or unknown: −1). A step stopped part way says instead
// after how many events it stopped (its wall time alone when unknown).
func doneLine(id string, took time.Duration, events int64, stopped bool) string {
	if stopped {
		if events < 0 {
			return fmt.Sprintf("countsim: %s: stopped after %.1f s", id, took.Seconds())
		}
		return fmt.Sprintf("countsim: %s: stopped after %s, in %.1f s", id, plural(events, "event"), took.Seconds())
	}
	line := fmt.Sprintf("countsim: %s: done in %.1f s", id, took.Seconds())
	if events > 0 {
		line += ", " + plural(events, "event")
	}
	return line
}

// clock is a duration for people, to the second: "45 s", "2 min 05 s",
// "1 h 02 min".
func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s < 3600:
		return fmt.Sprintf("%d min %02d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %02d min", s/3600, s/60%60)
}

// fitLine cuts line to width−1 columns (the last one would make some
// terminals wrap), or leaves it whole when the width is unknown (0).
func fitLine(line string, width int) string {
	if width <= 1 || utf8.RuneCountInString(line) < width {
		return line
	}
	r := []rune(line)
	return string(r[:width-1])
}

// stepEvents is what a step's stream fed: the measured events row of its
// truth ("truth", or "truth-STEP" in a step), or −1 when it has none (a
// profile; trials, whose rows are over the trials).
func stepEvents(st *sim.Setup, rep *sim.Report) int64 {
	if rep == nil {
		return -1
	}
	truth := "truth"
	if st.Scenario.Step != "" {
		truth += "-" + st.Scenario.Step
	}
	for _, r := range rep.Results {
		if r.Strategy == truth && r.Metric == metrics.Events && r.Scale == metrics.Sim && r.Stat == "" && r.Value != nil {
			return int64(*r.Value)
		}
	}
	return -1
}
