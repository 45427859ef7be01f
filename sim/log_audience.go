package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A log replayed as an audience (as: audience, issue 25): the distinct
// actors of each day of a team's own log — day d the events from d·day to
// (d+1)·day after the log's first, a log without a time column one day —
// of every event or of one key's (only), counted by the audience's runner
// (audience.go) exactly as it counts a generated audience's: each design
// built afresh for each day, asked each day's count, the union of the days
// by merge and the naive sum. The truth is worked out from the events as
// they are fed: one exact map from each actor to the last day it acted,
// which counts an actor once a day and once in the union (the log's days
// come in order: the reader never lets time go back). A log read whole at
// Prepare is known exactly then; a longer one is read once more before
// the designs, for its truth alone, so that they are built and planned
// for its own figures (an exact set sized for its largest day, as in the
// synthetic run), and the report notes the estimates from its head.

func init() {
	defineLogAs("audience", newLogAudience)
	defineSampler("audience", sampleAudience)
}

// logAudienceKind is the audience's runner with its days read from a log:
// it is the runner's audienceDays.
type logAudienceKind struct {
	*audienceKind
	*logBase
	dayNs int64  // a day's length; MaxInt64 without a time column: one day
	only  uint64 // the key whose actors count, when filter
	// filter: only the events of key only count
	filter bool
	est    audienceFigures // from the head, at Prepare

	src     *logSource
	pend    []workload.Event // read from src, not handed out yet: pend[pos:]
	pos     int
	next    int // the next chunk of src to ask for
	eof     bool
	tr      *audienceTruth
	counted bool // tr was counted by a pass of its own before the designs'
	reached int  // the days handed out
	tooLong bool // an event past maxLogAudienceDays ended the read
}

// maxLogAudienceDays is the most days a log's audience spans, as many as a
// generated audience's: each day's designs are held to the end.
const maxLogAudienceDays = 366

// audienceFigures are what the plans of a log's audience depend on: its
// events (of the key counted), the distinct actors of its largest day and
// of all its days, and its days.
type audienceFigures struct {
	events, largest, union float64
	days                   int
}

func newLogAudience(h *engine.Harness, b *logBase) (engine.Kind, error) {
	spec := b.spec
	k := &logAudienceKind{logBase: b, dayNs: spec.Day}
	if spec.Time == "" {
		k.dayNs = math.MaxInt64
	}
	if spec.Only != "" {
		k.filter = true
		k.only = xxhash.Sum64String(spec.Only)
		if spec.KeyID != "" { // the key column's ids are the keys
			id, err := strconv.ParseUint(spec.Only, 10, 64)
			if err != nil {
				return nil, scenarios.Errorf(spec.Pos, "workload.only: %q is not a key id: with key_id, only names a key by its decimal id (allowed: 0..18446744073709551615)", spec.Only)
			}
			k.only = id
		}
	}
	est, err := k.estimateAudience(h.Ctx)
	if err != nil {
		return nil, b.badInput(err)
	}
	if k.tooLong {
		return nil, k.tooManyDays()
	}
	k.est = est
	if k.audienceKind, err = newAudienceRunner(h, spec.Batch, k); err != nil {
		return nil, err
	}
	env := &h.Lineup.Env
	env.Keys = uint64(math.Ceil(est.largest))
	env.Events = int64(math.Ceil(est.events))
	return k, nil
}

// dayOf is the day of an event.
func (k *logAudienceKind) dayOf(e *workload.Event) int {
	return int(min(e.At/k.dayNs, math.MaxInt32))
}

// estimateAudience reads the head of the log (as much as Prepare's
// estimate of it) and counts its distinct actors a day and over all: a
// log read whole there is known exactly. A longer one is extrapolated by
// the bytes read, its events in proportion, its days by the time the head
// spans, its distinct actors as logBase.estimate extrapolates keys (the
// growth from half the head to all of it, repeated for every doubling),
// and its largest day as the head's largest whole day (its last may be cut
// short), or the union where the head is a part of one day.
func (k *logAudienceKind) estimateAudience(ctx context.Context) (audienceFigures, error) {
	var f audienceFigures
	r, err := workload.OpenLog(k.cfg)
	if err != nil {
		return f, err
	}
	defer r.Close()
	buf := make([]workload.Event, 0, 4096)
	t := newAudienceTruth(0)
	half := 0
	var last int64
	for r.Events() < logSampleEvents {
		if err := ctx.Err(); err != nil {
			return f, err
		}
		if half == 0 && r.Events() >= logSampleEvents/2 {
			half = len(t.seen)
		}
		b, err := r.Read(buf[:0])
		for i := range b {
			if e := &b[i]; !k.filter || e.Key == k.only {
				if k.dayOf(e) >= maxLogAudienceDays {
					k.tooLong = true
					return f, nil
				}
				t.at(k.dayOf(e))
				t.observeOne(e.Actor)
				f.events++
			}
			last = b[i].At
		}
		if err == io.EOF {
			f.union, f.largest = float64(len(t.seen)), float64(slices.Max(append(t.perDay, 0)))
			f.days = max(len(t.perDay), 1)
			return f, nil
		}
		if err != nil {
			return f, err
		}
	}
	scale := max(float64(r.Size())/float64(max(r.BytesRead(), 1)), 1)
	f.events *= scale
	growth := float64(len(t.seen)) / float64(max(half, 1))
	f.union = min(f.events, float64(len(t.seen))*math.Pow(max(growth, 1), math.Log2(scale)))
	f.largest = f.union
	if n := len(t.perDay); n > 1 {
		f.largest = float64(slices.Max(t.perDay[:n-1]))
	}
	f.days = 1
	if k.dayNs < math.MaxInt64 {
		f.days = int(min(math.Ceil(float64(last)*scale/float64(k.dayNs)), 366*100)) + 1
	}
	return f, nil
}

// day opens the log at day 0; day d is the events from where day d−1 left
// off to the first of a later day. Past the log's last event there are no
// more days (a log's first day is day 0 even when it is empty).
func (k *logAudienceKind) day(d int) (engine.Source, bool) {
	if d == 0 {
		k.src, k.pend, k.pos, k.next, k.eof = k.source(), k.pend[:0], 0, 0, false
		if !k.counted {
			k.tr = newAudienceTruth(int(min(k.est.union, 1<<26)))
		}
	} else if k.head() == nil {
		return nil, false
	}
	k.reached = d + 1
	return logDay{k, d}, true
}

// head is the next event not handed out yet, reading more of the log when
// none is left; nil at the end of the log (or at a bad line).
func (k *logAudienceKind) head() *workload.Event {
	for k.pos == len(k.pend) {
		if k.eof {
			return nil
		}
		k.pend = k.src.Chunk(k.next, k.pend[:0])
		k.next++
		k.pos = 0
		k.eof = len(k.pend) == 0
	}
	return &k.pend[k.pos]
}

// logDay is one day of the log as a source read once: its events of the
// key counted, a chunk at a time, until the first of a later day.
type logDay struct {
	k   *logAudienceKind
	day int
}

func (d logDay) Chunks() int { return -1 }

func (d logDay) Chunk(_ int, buf []workload.Event) []workload.Event {
	k := d.k
	buf = slices.Grow(buf[:0], workload.DefaultChunkSize)
	for len(buf) < workload.DefaultChunkSize {
		e := k.head()
		if e == nil || k.dayOf(e) > d.day {
			break
		}
		if k.dayOf(e) >= maxLogAudienceDays {
			k.tooLong, k.eof, k.pos = true, true, len(k.pend)
			break
		}
		if !k.filter || e.Key == k.only {
			buf = append(buf, *e)
		}
		k.pos++
	}
	return buf
}

// Done is the share of the log read.
func (d logDay) Done() float64 { return d.k.src.Done() }

func (k *logAudienceKind) truth(d int) engine.Observer {
	if k.counted {
		return nil
	}
	k.tr.at(d)
	return k.tr
}

// Run counts the truth of a log longer than Prepare's head in a pass of
// its own, then builds the designs for its figures and runs them.
func (k *logAudienceKind) Run(ctx context.Context) (*engine.Report, error) {
	if !k.whole {
		if err := k.Count(ctx); err != nil {
			if ctx.Err() != nil {
				rep := &engine.Report{Partial: true}
				rep.Note("Stopped while the log's actors were counted, before any design was fed: nothing was measured.")
				return rep, context.Cause(ctx)
			}
			return nil, err
		}
	}
	return k.audienceKind.Run(ctx)
}

// Count reads the log through for its truth alone, day by day as the run
// does, and sizes and plans the designs for the figures it found: the
// distinct actors of its largest day (Env.Keys) and its events. It stops
// when ctx ends, looking at every chunk, and refuses bad input as the run
// does.
func (k *logAudienceKind) Count(ctx context.Context) error {
	var buf []workload.Event
	var events int64
	for d := 0; ; d++ {
		src, ok := k.day(d)
		if !ok {
			break
		}
		k.tr.at(d)
		for i := 0; ; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if buf = src.Chunk(i, buf); len(buf) == 0 {
				break
			}
			k.tr.Observe(buf)
			events += int64(len(buf))
		}
	}
	if k.src.err != nil {
		return k.badInput(k.src.err)
	}
	if k.tooLong {
		return k.tooManyDays()
	}
	k.counted = true
	k.lineup.Env.Keys = uint64(slices.Max(append(slices.Clone(k.tr.perDay), 0)))
	k.lineup.Env.Events = events
	k.lineup.PlanFor(engine.Fed{Events: events, Writes: float64(events)})
	return nil
}

func (k *logAudienceKind) Distinct(d int) int64 {
	if d < len(k.tr.perDay) {
		return k.tr.perDay[d]
	}
	return 0
}

func (k *logAudienceKind) union(int) int64 { return int64(len(k.tr.seen)) }

// complete: the log was read to its end, every day in.
func (k *logAudienceKind) complete(days int) bool { return k.eof && days == k.reached }

// finish refuses a bad line of the log; once it is read whole, the plans
// are worked out for its own figures, and the report notes those estimated
// from its head before the read.
func (k *logAudienceKind) finish(rep *engine.Report, days int, events int64, stopped bool) error {
	if k.src.err != nil {
		return k.badInput(k.src.err)
	}
	if k.tooLong {
		return k.tooManyDays()
	}
	if stopped {
		k.lineup.Replan(rep, engine.Fed{Events: events, Of: math.Ceil(k.est.events), Writes: float64(events)})
		return nil
	}
	got := audienceFigures{events: float64(events), union: float64(len(k.tr.seen)), days: days,
		largest: float64(slices.Max(append(slices.Clone(k.tr.perDay), 0)))}
	if got != k.est {
		rep.Note(fmt.Sprintf("The log held %s events, %s distinct actors (%s on its largest day) over %s, estimated at %s, %s (%s) and %s from its first %s events before the read: the log was read once for its truth before the designs, which are built and planned for its own figures.",
			metrics.Format(got.events), metrics.Format(got.union), metrics.Format(got.largest), engine.Count(float64(got.days), "day"),
			metrics.Format(math.Ceil(k.est.events)), metrics.Format(math.Round(k.est.union)), metrics.Format(math.Round(k.est.largest)),
			engine.Count(float64(k.est.days), "day"), metrics.Format(logSampleEvents)))
	}
	if k.spec.SkipBad > 0 {
		k.rows.Truth(rep, metrics.SkippedLines, float64(k.src.skipped), "lines", nil,
			fmt.Sprintf("bad lines skipped (skip_bad: %d)", k.spec.SkipBad))
	}
	if k.spec.Time != "" {
		k.rows.Truth(rep, metrics.ReorderedEvents, float64(k.src.reordered), "events", nil,
			"events earlier than one before them, within the tolerance, taken at the later time")
	}
	return nil
}

// dayLength says a day's length as a scenario would: 24h, 90m, 1.5s.
func dayLength(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// tooManyDays refuses a log longer than maxLogAudienceDays days.
func (k *logAudienceKind) tooManyDays() error {
	return scenarios.Errorf(k.spec.Pos, "workload.day: the log spans more than %d days of %s (allowed: a longer day, up to %d days of the log)",
		maxLogAudienceDays, dayLength(k.dayNs), maxLogAudienceDays)
}

func (k *logAudienceKind) Describe() string {
	about := k.about()
	days := "one day (no time column)"
	if k.dayNs < math.MaxInt64 {
		days = fmt.Sprintf("days of %s by column %s", dayLength(k.dayNs), k.spec.Time)
	}
	actor := k.spec.Actor
	if actor == "" {
		actor = k.spec.ActorID
	}
	of := "every event"
	if k.filter {
		of = fmt.Sprintf("the events of key %q", k.spec.Only)
	}
	return fmt.Sprintf("Recorded log as an audience: %s (%s), the distinct actors (column %s) of %s, %s; %s%s events, %s%s actors over %s%s.",
		k.cfg.Path, k.spec.Format, actor, of, days, about, metrics.Format(math.Ceil(k.est.events)),
		about, metrics.Format(math.Round(k.est.union)), about, engine.Count(float64(k.est.days), "day"))
}

// Memory: the truth's map of every distinct actor (made with room for the
// estimate, at most 2^26: past that it grows), and each design held once a
// day, the largest as it doubles.
func (k *logAudienceKind) Memory() (int64, int64) {
	return goMapBytes(int64(min(k.est.union, 1<<26))) + k.growing(), int64(k.est.days)
}

// Churns: the reader makes garbage at every line it parses.
func (k *logAudienceKind) Churns() bool { return true }

// Reports: an audience's rows, and the truth's of the lines skipped and
// the events reordered where the log's spec has them.
func (k *logAudienceKind) Reports(d *engine.Design) []metrics.Metric {
	ms := k.audienceKind.Reports(d)
	if d == nil && k.spec.SkipBad > 0 {
		ms = append(ms, metrics.SkippedLines)
	}
	if d == nil && k.spec.Time != "" {
		ms = append(ms, metrics.ReorderedEvents)
	}
	return ms
}

// audienceTruth is the exact truth of a log's audience: each actor seen
// and the last day (from 1) it acted, and the distinct actors of each day.
// Days come in order, so an actor counts once a day and len(seen) is the
// union.
type audienceTruth struct {
	seen   map[uint64]int32
	perDay []int64
	day    int32 // the day being fed, from 1
}

func newAudienceTruth(hint int) *audienceTruth {
	return &audienceTruth{seen: make(map[uint64]int32, hint)}
}

// at makes day d (from 0) the day being fed.
func (t *audienceTruth) at(d int) {
	for len(t.perDay) <= d {
		t.perDay = append(t.perDay, 0)
	}
	t.day = int32(d + 1)
}

func (t *audienceTruth) Observe(batch []workload.Event) {
	for i := range batch {
		t.observeOne(batch[i].Actor)
	}
}

func (t *audienceTruth) observeOne(actor uint64) {
	if t.seen[actor] != t.day {
		t.seen[actor] = t.day
		t.perDay[t.day-1]++
	}
}

// sampleAudience samples an audience: its whole stream, day after day, the
// one key named "video" and each viewer by its index ("viewer 123"), the
// days 24 h long (an audience's day); refused past n events.
func sampleAudience(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Audience)
	a, err := workload.NewAudience(audienceConfig(scn.Seed, spec))
	if err != nil {
		return nil, err
	}
	var total int64
	for d := range a.Days() {
		total += a.Events(d)
	}
	if total > n {
		return nil, fmt.Errorf("%s's audience is %s views, past the %s events asked for: an audience is sampled whole (allowed: -events %d or more)",
			scn.ID(), metrics.Format(float64(total)), metrics.Format(float64(n)), total)
	}
	names := SampleNames{Key: func(uint64) string { return "video" },
		Actor: func(id uint64) string { return "viewer " + strconv.FormatUint(a.ViewerIndex(id), 10) }}
	out := &Sampled{As: "audience", Keys: [][2]string{{"day", "24h"}}}
	var buf []workload.Event
	for d := range a.Days() {
		for i := range a.Chunks(d) {
			buf = a.Chunk(d, i, buf)
			if err := each(buf, names); err != nil {
				return nil, err
			}
			out.Events += int64(len(buf))
		}
	}
	return out, nil
}
