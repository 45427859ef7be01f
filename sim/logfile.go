package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/strategies/distinct"
	"countsim/workload"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"
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
	feeder engine.Feeder
}

// logBase is what every replay of a log starts from, whatever it is
// replayed as: the spec, the reader's config, and what Prepare's read of
// its head says of it.
type logBase struct {
	spec *scenarios.Log
	cfg  workload.LogConfig
	// estimated from the head of the log at Prepare: its events, distinct
	// keys and distinct actors, for the memory check and the designs' size
	// hints; whole: the head was the whole log, and they are exact
	logEvents, logKeys, logActors float64
	whole                         bool
	// logNodes is one more than the highest node the head names (with a
	// node column), and logPairs its distinct (key, node) pairs, estimated
	// as the keys are
	logNodes int
	logPairs float64
}

func init() { engine.DefineKind("log", newLogKind) }

// logAs builds the runner of a log replayed as a kind other than a count
// stream (as: timed, audience, …), each in a file of its own (log_*.go)
// that registers it with defineLogAs.
var logAs = map[string]func(h *engine.Harness, b *logBase) (engine.Kind, error){}

// defineLogAs registers the runner of a log replayed as kind as. It panics
// on a duplicate.
func defineLogAs(as string, build func(h *engine.Harness, b *logBase) (engine.Kind, error)) {
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
func newLogBase(h *engine.Harness) (*logBase, error) {
	spec := h.Scn.Run.(*scenarios.Log)
	cfg := workload.LogConfig{Path: spec.Path(h.Scn.File), Format: spec.Format, Key: spec.Key, KeyID: spec.KeyID,
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
	if err := b.estimate(h.Ctx); err != nil {
		return nil, b.badInput(err) // stopped: Prepare says so instead
	}
	return b, nil
}

func newLogKind(h *engine.Harness) (engine.Kind, error) {
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
	k := &logKind{logBase: b, feeder: h.Feeder}
	env := &h.Lineup.Env
	env.Keys = k.sizeHint()
	env.Events = int64(math.Ceil(k.logEvents))
	k.keyed = newKeyed(h, uint64(k.logKeys), k.logEvents, nil, "no plan: a recorded log has no law of its keys")
	return k, nil
}

// sizeHint is the Env's Keys of a log's designs, as for a count stream the
// most distinct keys the stream can hold: a log read whole at Prepare holds
// at most its events (its key space is unknown), so that a design sizes
// itself as it would for the synthetic stream of those events; a longer
// log, its keys estimated.
func (b *logBase) sizeHint() uint64 {
	if b.whole {
		return uint64(b.logEvents)
	}
	return uint64(math.Ceil(b.logKeys))
}

// countsActors reports whether design d counts distinct actors (an exact
// set, an HLL): its Keys are the log's actors, not its keys.
func countsActors(d *engine.Design) bool {
	return d.Typ.Answers(strategies.FamilyDistinct) || d.Typ.Answers(strategies.FamilyWindowDistinct)
}

// envOf is design d's Env for a log whose designs are built for env: a
// design that counts distinct actors is sized for them — the events of a
// log read whole, as keys are, else the actors estimated.
func (b *logBase) envOf(d *engine.Design, env strategies.Env) strategies.Env {
	if countsActors(d) {
		env.Keys = uint64(math.Ceil(b.logActors))
		if b.whole {
			env.Keys = uint64(b.logEvents)
		}
	}
	return env
}

// planActors works out again the plan of every design of l that counts
// distinct actors, for the actors it is built for (Prepare planned it for
// the keys).
func (b *logBase) planActors(l *engine.Lineup) {
	for i := range l.Members {
		if d := &l.Members[i]; countsActors(d) {
			d.Plan = d.Typ.Plan(d.Params, b.envOf(d, l.Env))
		}
	}
}

// replanFor works every design's plan of l out again for env, a design
// that counts distinct actors for actors (left as it is where they were
// not counted, −1), but the bytes a design holds: for the larger of what
// it was built for and env's figures (a table made for its size hint grows
// past it).
func replanFor(l *engine.Lineup, env strategies.Env, actors float64) {
	for i := range l.Members {
		d := &l.Members[i]
		e := env
		if countsActors(d) {
			if actors < 0 {
				continue
			}
			e.Keys = uint64(math.Round(actors))
		}
		built := d.Plan
		d.Plan = d.Typ.Plan(d.Params, e)
		for j := range d.Plan {
			p := &d.Plan[j]
			if p.Unit != "B" {
				continue
			}
			for _, o := range built {
				if o.Metric == p.Metric && o.Full == p.Full && o.Unit == "B" {
					p.Value = max(p.Value, o.Value)
				}
			}
		}
	}
}

// replanRead works every design's plan of l out again once the log is read
// (events events, keys distinct keys, actors distinct actors, −1 where not
// counted): a stopped read's plans are for what was fed (replan); else
// every plan line for the log's own figures — N, its keys, its actors for
// a design that counts them — but the bytes a design holds, planned for
// the larger of what it was built for and the log's figure (a table made
// for the hint grows past it). A note gives the estimates beside the
// figures read where they differ.
func (b *logBase) replanRead(l *engine.Lineup, rep *engine.Report, events int64, keys int, actors float64) {
	if rep.Partial {
		l.Replan(rep, engine.Fed{Events: events, Writes: float64(events)})
		return
	}
	env := l.Env
	env.Events, env.Keys = events, uint64(keys)
	if env.Sim.Events > 0 {
		env.Sim.Events = float64(events)
	}
	replanFor(l, env, actors)
	var held []string
	differ := func(read, est float64, what string) {
		if read != est {
			held = append(held, fmt.Sprintf("%s %s, estimated at %s", metrics.Format(read), what, metrics.Format(est)))
		}
	}
	differ(float64(events), math.Ceil(b.logEvents), "events")
	differ(float64(keys), math.Round(b.logKeys), "keys")
	if actors >= 0 {
		differ(math.Round(actors), math.Round(b.logActors), "actors")
	}
	if len(held) > 0 {
		rep.Note(fmt.Sprintf("The log held %s, from its first %s events before the read: every simulated-scale plan is worked out for the figures read (a design's bytes for the larger of what it was built for and them).",
			strings.Join(held, "; "), metrics.Format(min(logSampleEvents, b.logEvents))))
	}
}

// logAsNames lists what a log is replayed as today: count and the kinds
// registered.
func logAsNames() []string {
	return append([]string{"count"}, slices.Sorted(maps.Keys(logAs))...)
}

// about is "about " before a figure estimated from the log's head, "" when
// the head was the whole log and the figure is exact.
func (k *logBase) about() string {
	if k.whole {
		return ""
	}
	return "about "
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
	seen, actors, pairs := map[uint64]struct{}{}, map[uint64]struct{}{}, map[uint64]struct{}{}
	var half [3]int
	nodes := k.cfg.Node != ""
	for r.Events() < logSampleEvents {
		if err := ctx.Err(); err != nil {
			return err
		}
		if half[0] == 0 && r.Events() >= logSampleEvents/2 {
			half = [3]int{len(seen), len(actors), len(pairs)}
		}
		b, err := r.Read(buf[:0])
		for i := range b {
			e := &b[i]
			seen[e.Key] = struct{}{}
			actors[e.Actor] = struct{}{}
			if nodes {
				pairs[e.Key^workload.Mix64(e.Actor+1)] = struct{}{}
				k.logNodes = max(k.logNodes, int(e.Actor)+1)
			}
		}
		if err == io.EOF {
			k.logEvents, k.logKeys, k.logActors, k.logPairs = float64(r.Events()), float64(len(seen)), float64(len(actors)), float64(len(pairs))
			k.whole = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	scale := max(float64(r.Size())/float64(max(r.BytesRead(), 1)), 1)
	k.logEvents = float64(r.Events()) * scale
	heaps := func(n, half int) float64 { // n seen in the head, half in its first half
		growth := float64(n) / float64(max(half, 1))
		return min(k.logEvents, float64(n)*math.Pow(max(growth, 1), math.Log2(scale)))
	}
	k.logKeys, k.logActors, k.logPairs = heaps(len(seen), half[0]), heaps(len(actors), half[1]), heaps(len(pairs), half[2])
	return nil
}

// readRows adds the truth's rows of how the log read: the bad lines
// skipped (with skip_bad) and the events reordered (with a time column).
func (k *logBase) readRows(rep *engine.Report, rows engine.ScoreRows, src *logSource) {
	if k.spec.SkipBad > 0 {
		rows.Truth(rep, metrics.SkippedLines, float64(src.skipped), "lines", nil,
			fmt.Sprintf("bad lines skipped (skip_bad: %d)", k.spec.SkipBad))
	}
	if k.spec.Time != "" {
		rows.Truth(rep, metrics.ReorderedEvents, float64(src.reordered), "events", nil,
			"events earlier than one before them, within the tolerance, taken at the later time")
	}
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

func (k *logKind) Describe() string {
	timing := "timed by column " + k.spec.Time
	if k.spec.Time == "" {
		timing = fmt.Sprintf("spaced at %s events/s", metrics.Format(k.spec.Rate))
	}
	about := k.about()
	return fmt.Sprintf("Recorded log: %s (%s, key column %s, %s), %s%s events over %s%s keys, batches of %d.",
		k.cfg.Path, k.spec.Format, k.spec.Key, timing, about, metrics.Format(math.Round(k.logEvents)), about, metrics.Format(math.Round(k.logKeys)), k.spec.Batch)
}

func (k *logKind) Accepts(*strategies.Type) error { return nil }

// Plan: a recorded log has no law of its keys, so no expected count of
// the K-th; the chance of two key strings sharing a 64-bit hash is its
// own plan row.
func (k *logKind) Plan() []metrics.Result {
	pairs := workload.CollisionPairs(k.logKeys)
	return []metrics.Result{k.rows.Plan(strategies.PlanLine{Metric: metrics.HashCollisions,
		Value: pairs, Unit: "pairs", Note: fmt.Sprintf("distinct key strings whose XXH64 collide, expected: n(n−1)/2⁶⁵ for n ≈ %s keys", metrics.Format(math.Round(k.logKeys)))})}
}

// Memory: the truth's map, made with room for the keys estimated (at most
// 2^26: past that it grows), the sorted copy of its keys that scoring
// makes, as the keys estimated, and the actors' count where a design
// counts them. It first plans every design that counts distinct actors
// for them (Prepare planned it for the keys). Measured: the 2.3 GB log of 130 M searches
// of the README (29.1 M distinct phrases, 36.7 M estimated) with
// search-full-day's designs peaked at 3.46 GB against 3.26 GB planned.
func (k *logKind) Memory() (int64, int64) {
	k.planActors(k.lineup)
	held := goMapBytes(int64(min(k.logKeys, 1<<26))) + int64(k.logKeys)*logSortedBytesPerKey
	if slices.ContainsFunc(k.lineup.Members, func(d engine.Design) bool { return countsActors(&d) }) {
		held += goMapBytes(int64(min(k.logActors, actorExactMax)))
	}
	return held, 1
}

// actorExactMax is the most actors the truth counts exactly; past it, an
// HLL of 2^16 registers estimates them (standard error 1.04/256 = 0.41%):
// the figure only sizes the plans, and an exact set of 10^7 actors would
// hold 300 MB.
const actorExactMax = 1 << 20

// actorCount counts a log's distinct actors for the plans: exactly up to
// actorExactMax, then by an HLL.
type actorCount struct {
	exact map[uint64]struct{}
	hll   *distinct.HLL
}

func (c *actorCount) add(a uint64) {
	if c.hll != nil {
		c.hll.Insert(a)
		return
	}
	if c.exact == nil {
		c.exact = map[uint64]struct{}{}
	}
	c.exact[a] = struct{}{}
	if len(c.exact) > actorExactMax {
		c.hll, _ = distinct.NewHLL(distinct.HLLParams{Precision: 16, Dense: true}, 0x6163746f7273) // "actors"
		for x := range c.exact {
			c.hll.Insert(x)
		}
		c.exact = nil
	}
}

// Count is the actors counted: exact up to actorExactMax, else estimated.
func (c *actorCount) Count() float64 {
	if c.hll != nil {
		return c.hll.Estimate()
	}
	return float64(len(c.exact))
}

// actorTruth is the count log's truth, counting the actors of its writes
// besides.
type actorTruth struct {
	*engine.Truth
	actors *actorCount
}

func (t *actorTruth) Observe(batch []workload.Event) {
	t.Truth.Observe(batch)
	for i := range batch {
		if batch[i].Op == workload.Write {
			t.actors.add(batch[i].Actor)
		}
	}
}

// Churns: the reader makes garbage at every line it parses (80 B an event
// of a CSV log, 48 of NDJSON), all the log long, so the heap runs up to its
// GC target, twice what is live, whatever the run holds. Measured without
// this (and at 96 B a key for the truth): a log of 10^7 searches split
// over 8 nodes, replayed with search-split's designs (2.2 GB live),
// peaked at 4.05 GB against a plan of 2.37 GB; with it, 4.58 GB planned.
func (k *logKind) Churns() bool { return true }

// logSortedBytesPerKey is what the sorted copy of the truth's keys costs a
// key: 8 B, and the room its slice grows into as it is collected.
const logSortedBytesPerKey = 10

// goMapBytes is the memory of a Go map of n entries (engine.GoMapBytes).
var goMapBytes = engine.GoMapBytes

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

func (k *logKind) Run(ctx context.Context) (*engine.Report, error) {
	tr := engine.NewTruth(int(min(k.logKeys, 1<<26)), false, false)
	r := &engine.Run{Truth: tr}
	var actors *actorCount
	if slices.ContainsFunc(k.lineup.Members, func(d engine.Design) bool { return countsActors(&d) }) {
		actors = &actorCount{}
		r.Truth = &actorTruth{Truth: tr, actors: actors}
	}
	if err := k.lineup.Build(r, func(i int) strategies.Env { return k.envOf(&k.lineup.Members[i], k.lineup.Env) }); err != nil {
		return nil, err
	}
	sctx, release := engine.Scoring(ctx)
	defer release()
	src := k.source()
	events, err := k.feeder.FeedCount(ctx, r, src, k.spec.Batch)
	if src.err != nil {
		return nil, k.badInput(src.err) // bad input: nothing is reported
	}
	rep := &engine.Report{Partial: err != nil}
	// The log read: its N, keys and actors are known, no longer the
	// estimates from its head; every plan that depends on them (εN, N/m,
	// the keys a design tracks, an exact set's actors) is worked out for
	// them, and the judgement of keys over the bound with it.
	a := -1.0
	if actors != nil {
		a = actors.Count()
	}
	k.replanRead(k.lineup, rep, events, len(tr.Counts), a)
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "events read from the log")
	k.readRows(rep, k.rows, src)
	k.score(sctx, rep, r, tr, events, nil, nil)
	if err == nil && !rep.Partial {
		err = k.topStrings(sctx, rep, tr, src.last)
	}
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// topStrings adds the table of the true top K with the keys' strings, read
// again from the log.
//
// It stops when ctx ends, the table then left out and rep saying so.
func (k *logKind) topStrings(ctx context.Context, rep *engine.Report, tr *engine.Truth, last *workload.LogReader) error {
	top := k.top
	if top <= 0 || last == nil {
		return nil
	}
	kc, err := tr.Top(ctx, top)
	if err != nil {
		rep.Cut("the table of the top keys' strings")
		return nil
	}
	keys := make([]uint64, len(kc))
	for i, c := range kc {
		keys[i] = c.Key
	}
	names, err := last.StringsContext(ctx, keys)
	if ctx.Err() != nil {
		rep.Cut("the table of the top keys' strings")
		return nil
	}
	if err != nil {
		return k.badInput(err)
	}
	t := metrics.Table{Scenario: k.rows.Scenario, Name: "top-keys", Title: fmt.Sprintf("the true top %d keys of the log, by count", top),
		Columns: []string{"rank", "count"}, LabelColumn: "key"}
	for i, c := range kc {
		t.Rows = append(t.Rows, []float64{float64(i + 1), float64(c.Count)})
		t.Labels = append(t.Labels, names[c.Key])
	}
	rep.Tables = append(rep.Tables, t)
	return nil
}
