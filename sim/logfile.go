package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

// The recorded log: a team's own events read from a CSV or NDJSON file
// (workload.LogReader), streamed in order once — never held whole — and
// fed like a count stream to an exact truth by key and to every design
// (issue 15). A bad line stops the run with the log's name and line, as
// bad input, unless the scenario skips that many; the keys of the true
// top K are looked up again in the file so that the tables show their
// strings.

// logKind runs with the keyed questions' pieces and a feeder.
type logKind struct {
	keyed
	*logBase
	feeder feeder
}

// logBase is what every replay of a log starts from, whatever it is
// replayed as: the spec, the reader's config, and what Prepare's read of
// its head says of it.
type logBase struct {
	spec *scenarios.Log
	cfg  workload.LogConfig
	// estimated from the head of the log at Prepare: its events and
	// distinct keys, for the memory check and the designs' size hints;
	// whole: the head was the whole log, and they are exact
	logEvents, logKeys float64
	whole              bool
}

func init() { defineKind("log", newLogKind) }

// logAs builds the runner of a log replayed as a kind other than a count
// stream (as: timed, audience, …), each in a file of its own (log_*.go)
// that registers it with defineLogAs.
var logAs = map[string]func(h *harness, b *logBase) (kind, error){}

// defineLogAs registers the runner of a log replayed as kind as. It panics
// on a duplicate.
func defineLogAs(as string, build func(h *harness, b *logBase) (kind, error)) {
	if _, dup := logAs[as]; dup {
		panic("sim: log as " + as + " defined twice")
	}
	logAs[as] = build
}

// logSampleEvents is how much of the log Prepare reads to estimate its
// size: enough to see the bytes an event takes and how keys repeat.
const logSampleEvents = 1 << 20

// newLogBase reads the spec's log config and estimates the log from its
// head (a missing file or column, or a bad line there, is bad input).
func newLogBase(h *harness) (*logBase, error) {
	spec := h.scn.Run.(*scenarios.Log)
	cfg := workload.LogConfig{Path: spec.Path(h.scn.File), Format: spec.Format, Key: spec.Key, KeyID: spec.KeyID,
		Time: spec.Time, Actor: spec.Actor, ActorID: spec.ActorID, ID: spec.ID, EventID: spec.EventID, Delta: spec.Delta, Op: spec.Op,
		SkipBad: int(min(spec.SkipBad, math.MaxInt32))}
	switch spec.As {
	case "board":
		cfg.Score = spec.Score
	case "ratings":
		cfg.Delta = spec.Stars
	case "split":
		cfg.Node, cfg.Nodes = spec.Node, spec.NodeCount
		if cfg.Nodes == 0 {
			cfg.Nodes = workload.MaxSplitNodes
		}
	}
	if spec.Time == "" {
		cfg.Rate = spec.Rate
	} else {
		cfg.Tolerance = time.Duration(spec.Tolerance)
	}
	b := &logBase{spec: spec, cfg: cfg}
	if err := b.estimate(h.ctx); err != nil {
		return nil, b.badInput(err) // stopped: Prepare says so instead
	}
	return b, nil
}

func newLogKind(h *harness) (kind, error) {
	b, err := newLogBase(h)
	if err != nil {
		return nil, err
	}
	if as := b.spec.As; as != "count" {
		build, ok := logAs[as]
		if !ok {
			return nil, scenarios.Errorf(b.spec.Pos, "workload.as: a log is not replayed as %s yet (allowed: %s)", as, strings.Join(logAsNames(), ", "))
		}
		return build(h, b)
	}
	k := &logKind{logBase: b, feeder: h.feeder}
	// As for a count stream, Keys is the most distinct keys the stream can
	// hold: a log read whole at Prepare holds at most its events (its key
	// space is unknown), so that a design sizes itself as it would for the
	// synthetic stream of those events; a longer log, its keys estimated.
	env := &h.lineup.env
	env.Keys = uint64(math.Ceil(k.logKeys))
	if k.whole {
		env.Keys = uint64(k.logEvents)
	}
	env.Events = int64(math.Ceil(k.logEvents))
	k.keyed = newKeyed(h, uint64(k.logKeys), k.logEvents, nil, "no plan: a recorded log has no law of its keys")
	return k, nil
}

// logAsNames lists what a log is replayed as today: count and the kinds
// registered.
func logAsNames() []string {
	return append([]string{"count"}, slices.Sorted(maps.Keys(logAs))...)
}

// source is the log as a source read once, in order, afresh.
func (b *logBase) source() *logSource { return &logSource{cfg: b.cfg} }

// estimate reads the head of the log: a missing file or column, or a bad
// line there, is refused before anything runs. A log read whole there is
// known exactly; a longer one is extrapolated from its head by the bytes
// read — its events in proportion, its distinct keys by Heaps' law, the
// growth of the keys seen from half the head to all of it repeated for
// every doubling to the whole log (keys repeat more as a log grows). It
// stops with ctx's error when ctx ends first, looking at each read.
func (k *logBase) estimate(ctx context.Context) error {
	r, err := workload.OpenLog(k.cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	buf := make([]workload.Event, 0, 4096)
	seen := map[uint64]bool{}
	half := 0
	for r.Events() < logSampleEvents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if half == 0 && r.Events() >= logSampleEvents/2 {
			half = len(seen)
		}
		b, err := r.Read(buf[:0])
		for _, e := range b {
			seen[e.Key] = true
		}
		if err == io.EOF {
			k.logEvents, k.logKeys = float64(r.Events()), float64(len(seen))
			k.whole = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	scale := max(float64(r.Size())/float64(max(r.BytesRead(), 1)), 1)
	k.logEvents = float64(r.Events()) * scale
	growth := float64(len(seen)) / float64(max(half, 1))
	k.logKeys = min(k.logEvents, float64(len(seen))*math.Pow(max(growth, 1), math.Log2(scale)))
	return nil
}

// badInput is a log's error as bad input: at the log's line (a
// *scenarios.Error, so that the run exits 2 and writes nothing), or at the
// workload key for an error of the file as a whole.
func (k *logBase) badInput(err error) error {
	var le *workload.LogError
	if errors.As(err, &le) {
		return &scenarios.Error{Pos: scenarios.Pos{File: le.Path, Line: int(le.Line)}, Msg: le.Msg}
	}
	return scenarios.Errorf(k.spec.Pos, "workload.file: %v", err)
}

func (k *logKind) describe() string {
	timing := "timed by column " + k.spec.Time
	if k.spec.Time == "" {
		timing = fmt.Sprintf("spaced at %s events/s", metrics.Format(k.spec.Rate))
	}
	about := "about "
	if k.whole {
		about = ""
	}
	return fmt.Sprintf("Recorded log: %s (%s, key column %s, %s), %s%s events over %s%s keys, batches of %d.",
		k.cfg.Path, k.spec.Format, k.spec.Key, timing, about, metrics.Format(math.Round(k.logEvents)), about, metrics.Format(math.Round(k.logKeys)), k.spec.Batch)
}

func (k *logKind) accepts(*strategies.Type) error { return nil }

// plan: a recorded log has no law of its keys, so no expected count of
// the K-th; the chance of two key strings sharing a 64-bit hash is its
// own plan row.
func (k *logKind) plan() []metrics.Result {
	pairs := workload.CollisionPairs(k.logKeys)
	return []metrics.Result{k.rows.plan(strategies.PlanLine{Metric: metrics.HashCollisions,
		Value: pairs, Unit: "pairs", Note: fmt.Sprintf("distinct key strings whose XXH64 collide, expected: n(n−1)/2⁶⁵ for n ≈ %s keys", metrics.Format(math.Round(k.logKeys)))})}
}

// memory: the truth's map, made with room for the keys estimated (at most
// 2^26: past that it grows), and the sorted copy of its keys that scoring
// makes, as the keys estimated. Measured: the 2.3 GB log of 130 M searches
// of the README (29.1 M distinct phrases, 36.7 M estimated) with
// search-full-day's designs peaked at 3.46 GB against 3.26 GB planned.
func (k *logKind) memory() (int64, int64) {
	return goMapBytes(int64(min(k.logKeys, 1<<26))) + int64(k.logKeys)*logSortedBytesPerKey, 1
}

// churns: the reader makes garbage at every line it parses (80 B an event
// of a CSV log, 48 of NDJSON), all the log long, so the heap runs up to its
// GC target, twice what is live, whatever the run holds. Measured without
// this (and at 96 B a key for the truth): a log of 10^7 searches split
// over 8 nodes, replayed with search-split's designs (2.2 GB live),
// peaked at 4.05 GB against a plan of 2.37 GB; with it, 4.58 GB planned.
func (k *logKind) churns() bool { return true }

// logSortedBytesPerKey is what the sorted copy of the truth's keys costs a
// key: 8 B, and the room its slice grows into as it is collected.
const logSortedBytesPerKey = 10

// goMapBytes is the memory of a Go map of 16-byte entries (uint64 to
// uint64) made with room for n: Swiss tables (Go 1.24 on) of 1,024 slots,
// each a 16-byte entry and a control byte, filled to 7/8 at most, as many
// tables as a power of two, and 6% for the tables' and groups' headers.
// Measured: a map made for 1,124,686 and filled to 95% takes 33.6 B an
// entry made room for; made for 3,659,263, 20.7 B: this gives 33.5 and
// 20.6 (TestGoMapBytes).
func goMapBytes(n int64) int64 {
	const slots, slotBytes, fill = 1024, 17, 1024 * 7 / 8
	tables := int64(1)
	for tables*fill < n {
		tables *= 2
	}
	return tables * slots * slotBytes * 106 / 100
}

// logSource is the log as a source read once, in order (feed.go): chunk i
// is the next DefaultChunkSize events; chunk 0 opens the log afresh, so a
// second pass reads it again.
type logSource struct {
	cfg  workload.LogConfig
	mu   sync.Mutex // Done is read by the progress goroutine
	r    *workload.LogReader
	err  error // the first error but the end
	last *workload.LogReader

	skipped, reordered int64
}

func (s *logSource) Chunks() int { return -1 }

func (s *logSource) Chunk(i int, buf []workload.Event) []workload.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return buf[:0]
	}
	if i == 0 {
		if s.r != nil {
			s.r.Close()
		}
		if s.r, s.err = workload.OpenLog(s.cfg); s.err != nil {
			return buf[:0]
		}
	}
	if s.r == nil {
		return buf[:0]
	}
	buf = slices.Grow(buf[:0], workload.DefaultChunkSize)[:0]
	for len(buf) < workload.DefaultChunkSize {
		var err error
		buf, err = s.r.Read(buf)
		if err == io.EOF {
			s.skipped, s.reordered = s.r.Skipped(), s.r.Reordered()
			s.r.Close()
			s.last, s.r = s.r, nil
			break
		}
		if err != nil {
			s.err = err
			return buf[:0]
		}
	}
	return buf
}

// Done is the share of the file read.
func (s *logSource) Done() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil || s.r.Size() <= 0 {
		return 1
	}
	return float64(s.r.BytesRead()) / float64(s.r.Size())
}

func (k *logKind) run(ctx context.Context) (*Report, error) {
	tr := newTruth(int(min(k.logKeys, 1<<26)), false, false)
	r := &run{truth: tr}
	if err := k.lineup.build(r, k.lineup.sameEnv); err != nil {
		return nil, err
	}
	sctx, release := scoring(ctx)
	defer release()
	src := k.source()
	events, err := k.feeder.feedCount(ctx, r, src, k.spec.Batch)
	if src.err != nil {
		return nil, k.badInput(src.err) // bad input: nothing is reported
	}
	rep := &Report{Partial: err != nil}
	switch {
	case rep.Partial: // every design's plan for the events read
		k.lineup.replan(rep, fed{events: events, writes: float64(events)})
	case !k.whole && float64(events) != math.Ceil(k.logEvents):
		// The log read whole: its N is known, no longer the estimate from
		// its head; every plan that depends on it (εN, N/m) is worked out
		// for it, and the judgement of keys over the bound with it.
		k.lineup.planFor(fed{events: events, writes: float64(events)})
		rep.note(fmt.Sprintf("The log held %s events, estimated at %s from its first %s before the read: every simulated-scale plan is worked out for the %s read.",
			metrics.Format(float64(events)), metrics.Format(math.Ceil(k.logEvents)), metrics.Format(logSampleEvents), metrics.Format(float64(events))))
	}
	k.rows.truth(rep, metrics.Events, float64(events), "events", nil, "events read from the log")
	if k.spec.SkipBad > 0 {
		k.rows.truth(rep, metrics.SkippedLines, float64(src.skipped), "lines", nil,
			fmt.Sprintf("bad lines skipped (skip_bad: %d)", k.spec.SkipBad))
	}
	if k.spec.Time != "" {
		k.rows.truth(rep, metrics.ReorderedEvents, float64(src.reordered), "events", nil,
			"events earlier than one before them, within the tolerance, taken at the later time")
	}
	k.score(sctx, rep, r, tr, events, nil, nil)
	if err == nil && !rep.Partial {
		err = k.topStrings(sctx, rep, tr, src.last)
	}
	return rep, stoppedScoring(ctx, rep, err)
}

// topStrings adds the table of the true top K with the keys' strings, read
// again from the log.
//
// It stops when ctx ends, the table then left out and rep saying so.
func (k *logKind) topStrings(ctx context.Context, rep *Report, tr *truth, last *workload.LogReader) error {
	top := k.top
	if top <= 0 || last == nil {
		return nil
	}
	kc, err := tr.top(ctx, top)
	if err != nil {
		rep.cut("the table of the top keys' strings")
		return nil
	}
	keys := make([]uint64, len(kc))
	for i, c := range kc {
		keys[i] = c.key
	}
	names, err := last.StringsContext(ctx, keys)
	if ctx.Err() != nil {
		rep.cut("the table of the top keys' strings")
		return nil
	}
	if err != nil {
		return k.badInput(err)
	}
	t := metrics.Table{Scenario: k.rows.scenario, Name: "top-keys", Title: fmt.Sprintf("the true top %d keys of the log, by count", top),
		Columns: []string{"rank", "count"}, LabelColumn: "key"}
	for i, c := range kc {
		t.Rows = append(t.Rows, []float64{float64(i + 1), float64(c.count)})
		t.Labels = append(t.Labels, names[c.key])
	}
	rep.Tables = append(rep.Tables, t)
	return nil
}
