package sim

import (
	"cmp"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// A log replayed as a timed stream on the simulated cluster (as: timed,
// issue 25): the log's events, at the log's own times (its time column, or
// spaced at rate), go through every design on a cluster of its own, with
// the scenario's cluster and faults, as a generated timed stream's do; a
// line whose op is read is a read (a page showing the count). Each design
// answers what it answers on a generated timed stream — the load on its
// cluster, what readers were shown, its final counts, what a crash lost —
// by the same runner (timed.go), whose stream, truth and plans come from
// the log here.
//
// The log's clock starts at the whole second of its first event (0 for a
// log spaced at rate) and the log lasts the whole seconds that hold its
// events: its span ends at the end of the second of its last event. What
// the synthetic run takes from its phases is the log's own once it is
// read: the writes (∫ rate dt) are the writes counted (resends, a repeated
// ID where the log has an id column, apart); the peak rate is the
// writes of the log's busiest second, its seconds counted from the start;
// the read rate is the reads over the span; the duration is the span. The
// runner's phases are the log's seconds, each at its own rate, or one
// phase at the mean where every second is within max(10%, 5√mean) of the
// mean (a steady log, whose means compare with plans at the peak).
// Before the read they are estimated from the head Prepare reads (the
// busiest second of the head, its read rate, its span scaled by the bytes
// read); a log read whole there is known exactly, and a fault at or after
// its end is refused then, else once the log is read.

func init() { defineLogAs("timed", newLogTimed) }

// logTimedKind is the timed runner fed from a log.
type logTimedKind struct {
	*timedKind
	base   *logBase
	faults []scenarios.Fault
	// head is what Prepare's read of the head found; got what the truth
	// counts as it is fed.
	head, got timedFigures
	tr        *engine.Truth // the run's truth, once fed
	src       *logSource
}

// timedFigures is what a timed log holds, counted on the log's clock.
type timedFigures struct {
	perSecond []float64 // the writes (logical, deltas summed) in each second
	writes    float64
	reads     int64
	dups      float64 // writes whose ID was seen before (deltas)
	last      int64   // the latest event's At
	events    int64
}

// span is the whole seconds that hold the events, in ns: at least 1 s.
func (f *timedFigures) span() int64 { return (max(f.last, 0)/1e9 + 1) * 1e9 }

// add counts n writes at time at.
func (f *timedFigures) add(at int64, n float64) {
	s := int(at / 1e9)
	for len(f.perSecond) <= s {
		f.perSecond = append(f.perSecond, 0)
	}
	f.perSecond[s] += n
	f.writes += n
}

// peak is the writes of the busiest second.
func (f *timedFigures) peak() float64 {
	var p float64
	for _, c := range f.perSecond {
		p = max(p, c)
	}
	return p
}

// steady reports whether every second of the span wrote within
// max(10%, 5√mean) of the mean rate.
func (f *timedFigures) steady() bool {
	secs := f.span() / 1e9
	mean := f.writes / float64(secs)
	tol := max(0.1*mean, 5*math.Sqrt(mean))
	for s := range secs {
		c := 0.0
		if int(s) < len(f.perSecond) {
			c = f.perSecond[s]
		}
		if math.Abs(c-mean) > tol {
			return false
		}
	}
	return true
}

// shape is the timed stream the runner is told the log is: its span, its
// seconds as phases (or one phase where it is steady), its read rate and
// the share of its writes resent.
func (f *timedFigures) shape(spec *scenarios.Log, keys uint64) *scenarios.Timed {
	d := f.span()
	secs := float64(d) / 1e9
	t := &scenarios.Timed{Keyspace: scenarios.Keyspace{Keys: max(keys, 1)}, Batch: spec.Batch, Arrivals: "even",
		Reads: float64(f.reads) / secs, Pos: spec.Pos}
	if f.writes > 0 {
		t.Resend = f.dups / f.writes // a share of the writes, as a generated stream's
	}
	if f.steady() {
		t.Phases = []scenarios.Phase{{Name: "log", Duration: d, Rate: f.writes / secs, To: f.writes / secs}}
		return t
	}
	for s := range int(d / 1e9) {
		c := 0.0
		if s < len(f.perSecond) {
			c = f.perSecond[s]
		}
		t.Phases = append(t.Phases, scenarios.Phase{Name: "second " + strconv.Itoa(s), Duration: 1e9, Rate: c, To: c})
	}
	return t
}

func newLogTimed(h *engine.Harness, b *logBase) (engine.Kind, error) {
	k := &logTimedKind{base: b, faults: h.Scn.Faults}
	if err := k.readHead(h); err != nil {
		return nil, b.badInput(err)
	}
	if b.whole {
		if err := k.checkFaults(&k.head); err != nil {
			return nil, err
		}
	}
	keys := uint64(math.Ceil(b.logKeys))
	est := k.estimate()
	spec := est.shape(b.spec, keys)
	tk, err := newTimedRunner(h, spec, newKeyed(h, keys, est.writes, nil, "no plan: a recorded log has no law of its keys"))
	if err != nil {
		return nil, err
	}
	k.src = b.source()
	tk.stream, tk.log = &windowSource{logSource: k.src, window: workload.DefaultWindow}, k
	tk.dedup = b.spec.ID != "" || b.spec.EventID != ""
	k.timedKind = tk
	env := &h.Lineup.Env
	env.Keys = min(b.sizeHint(), uint64(max(math.Round(est.writes), 1))) // as for a generated stream of its writes
	if reads := float64(est.reads); reads > 0 {
		env.Reads = int64(reads + 6*math.Sqrt(reads) + 16) // room, as for a generated stream's reads
	}
	setTimedFigures(env, &est, keys)
	return k, nil
}

// setTimedFigures sets env to the figures of a log that holds f over keys
// keys: its writes, span, peak and read rate, at the simulated scale, and
// at full scale where the assumptions state no peak or read rate (the
// phases' figures would serve both there).
func setTimedFigures(env *strategies.Env, f *timedFigures, keys uint64) {
	secs := float64(f.span()) / 1e9
	env.Events = int64(math.Round(f.writes))
	env.Duration = f.span()
	env.Sim.Events, env.Sim.Keys = f.writes, float64(keys)
	env.Sim.PeakRate, env.Sim.ReadRate = f.peak(), float64(f.reads)/secs
	if env.Full.PeakRate == 0 {
		env.Full.PeakRate = env.Sim.PeakRate
	}
	if env.Full.ReadRate == 0 && f.reads > 0 {
		env.Full.ReadRate = env.Sim.ReadRate
	}
}

// readHead reads the head of the log on the log's clock: with a time
// column, the first event's time fixes the start, the whole second it is
// in, and the replay's reader counts from it.
func (k *logTimedKind) readHead(h *engine.Harness) error {
	cfg := k.base.cfg
	if cfg.Time != "" {
		cfg.Start = time.Unix(0, 0).UTC() // At is the time itself, to find the start
	}
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	var start int64
	ids := map[uint64]struct{}{}
	dedup := cfg.ID != "" || cfg.EventID != ""
	buf := make([]workload.Event, 0, 4096)
	f := &k.head
	for f.events < logSampleEvents {
		if err := h.Ctx.Err(); err != nil {
			return err
		}
		b, err := r.Read(buf[:0])
		for i := range b {
			e := &b[i]
			if f.events == 0 && cfg.Time != "" {
				start = e.At - e.At%1e9
			}
			f.events++
			at := e.At - start
			f.last = max(f.last, at)
			switch {
			case e.Op == workload.Read:
				f.reads++
			case e.Op != workload.Write || e.Delta <= 0:
			default:
				if dedup {
					if _, ok := ids[e.ID]; ok {
						f.dups += float64(e.Delta)
						continue
					}
					ids[e.ID] = struct{}{}
				}
				f.add(at, float64(e.Delta))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if f.events == 0 {
		return fmt.Errorf("the log holds no event (allowed: a log of at least one line)")
	}
	if cfg.Time != "" {
		k.base.cfg.Start = time.Unix(0, start).UTC()
	}
	return nil
}

// estimate is the log's figures as the head says them: exact for a log
// read whole; else the head's writes, reads and span scaled by the events
// estimated, its busiest second kept.
func (k *logTimedKind) estimate() timedFigures {
	f := k.head
	if k.base.whole {
		return f
	}
	scale := k.base.logEvents / float64(f.events)
	f.perSecond = append([]float64(nil), f.perSecond...)
	f.writes *= scale
	f.dups *= scale
	f.reads = int64(math.Round(float64(f.reads) * scale))
	f.last = int64(float64(f.last) * scale)
	f.events = int64(math.Round(k.base.logEvents))
	if secs := int(f.span() / 1e9); len(f.perSecond) < secs {
		f.perSecond = append(f.perSecond, make([]float64, secs-len(f.perSecond))...)
	}
	return f
}

// checkFaults refuses a fault at or after the end of a log that holds f,
// at the fault's line, naming the log's span.
func (k *logTimedKind) checkFaults(f *timedFigures) error {
	end := f.span()
	for i, ft := range k.faults {
		if ft.At >= end {
			from := "0, its events spaced at rate"
			if !k.base.cfg.Start.IsZero() {
				from = k.base.cfg.Start.Format(time.RFC3339Nano)
			}
			return scenarios.Errorf(ft.Pos, "faults[%d]: at %v is at or after the end of the log %s, which spans %s s from its start (%s; its last event at %s s) (allowed: a fault before %s s)",
				i, time.Duration(ft.At), k.base.cfg.Path, metrics.Format(float64(end)/1e9), from, metrics.Format(engine.Round(float64(f.last)/1e9, 9)), metrics.Format(float64(end)/1e9))
		}
	}
	return nil
}

// observer counts the log's figures as the truth is fed: each event is
// handed to the truth alone, so that its logical writes (a repeated ID
// apart) are counted in their second.
func (k *logTimedKind) observer(tr *engine.Truth) engine.Observer {
	k.got = timedFigures{}
	k.tr = tr
	return &timedLogTruth{Truth: tr, f: &k.got}
}

type timedLogTruth struct {
	*engine.Truth
	f *timedFigures
}

func (t *timedLogTruth) Observe(batch []workload.Event) {
	for i := range batch {
		n, dups := t.Truth.N, t.Truth.Dups
		t.Truth.Observe(batch[i : i+1])
		e := &batch[i]
		t.f.events++
		t.f.last = max(t.f.last, e.At)
		switch {
		case e.Op == workload.Read:
			t.f.reads++
		case t.Truth.N > n:
			t.f.add(e.At, float64(t.Truth.N-n))
		case t.Truth.Dups > dups:
			t.f.dups += float64(t.Truth.Dups - dups)
		}
	}
}

// read: the log is read whole; a fault at or after its end is refused, and
// the runner's spec, its writes and every design's plan are the log's own,
// with a note of the estimate where the head was not the whole log.
func (k *logTimedKind) read(rep *engine.Report) error {
	if k.src.err != nil {
		return k.base.badInput(k.src.err)
	}
	f := &k.got
	if err := k.checkFaults(f); err != nil {
		return err
	}
	keys := uint64(len(k.tr.Counts))
	est := k.estimate()
	k.spec = f.shape(k.base.spec, keys)
	k.writes, k.keys = f.writes, keys
	env := k.lineup.Env
	setTimedFigures(&env, f, keys)
	k.lineup.Env = env // a stopped second pass replans from the log's own
	env.Keys = keys
	replanFor(k.lineup, env, -1)
	k.base.readRows(rep, k.rows, k.src)
	if !k.base.whole {
		rep.Note(fmt.Sprintf("The log held %s writes and %s reads over %s s, its busiest second %s writes, estimated at %s, %s, %s s and %s from its first %s events before the read: every simulated-scale plan is worked out for the log's own figures.",
			metrics.Format(f.writes), metrics.Format(float64(f.reads)), metrics.Format(float64(f.span())/1e9), metrics.Format(f.peak()),
			metrics.Format(math.Round(est.writes)), metrics.Format(float64(est.reads)), metrics.Format(float64(est.span())/1e9), metrics.Format(est.peak()),
			metrics.Format(logSampleEvents)))
	}
	return nil
}

func (k *logTimedKind) Describe() string {
	b := k.base
	timing := "timed by column " + b.spec.Time + ", its clock from " + b.cfg.Start.Format(time.RFC3339)
	if b.spec.Time == "" {
		timing = fmt.Sprintf("spaced at %s events/s", metrics.Format(b.spec.Rate))
	}
	about := b.about()
	f := k.estimate()
	return fmt.Sprintf("Recorded log replayed as a timed stream: %s (%s, key column %s, %s), %s%s and %s over %s%s s, its busiest second %s, over %s%s.",
		b.cfg.Path, b.spec.Format, b.spec.Key, timing, about, engine.Count(math.Round(f.writes), "write"), engine.Count(float64(f.reads), "read"),
		about, metrics.Format(float64(f.span())/1e9), engine.Count(f.peak(), "write"), about, engine.Count(math.Round(b.logKeys), "key"))
}

// Churns: the log's reader makes garbage at every line (logKind.churns).
func (k *logTimedKind) Churns() bool { return true }

// Memory is the timed runner's, and the log's seconds counted.
func (k *logTimedKind) Memory() (int64, int64) {
	held, copies := k.timedKind.Memory()
	return held + 8*(k.spec.Duration()/1e9+1), copies
}

// windowSource is a log read once in chunks of a generated timed stream's
// windows (the events of one window of simulated time, the empty ones
// left out), so that the designs take it in the batches a generated stream
// of the same events is handed in.
type windowSource struct {
	*logSource
	window  int64
	pending []workload.Event // read from the log, not yet handed out
	next    int              // the log's next chunk
}

func (s *windowSource) Chunk(i int, buf []workload.Event) []workload.Event {
	if i == 0 {
		s.pending, s.next = nil, 0
	}
	buf = buf[:0]
	var end int64
	for {
		if len(s.pending) == 0 {
			s.pending = s.logSource.Chunk(s.next, s.pending)
			s.next++
			if len(s.pending) == 0 {
				return buf // the log's end, or a bad line (logSource.err)
			}
		}
		if len(buf) == 0 {
			end = (s.pending[0].At/s.window + 1) * s.window
		}
		j, _ := slices.BinarySearchFunc(s.pending, end, func(e workload.Event, t int64) int { return cmp.Compare(e.At, t) })
		buf = append(buf, s.pending[:j]...)
		if s.pending = s.pending[j:]; len(s.pending) > 0 {
			return buf
		}
	}
}

func init() { defineSampler("timed", sampleTimed) }

// sampleTimed samples a timed stream whole — its writes, resends and
// reads, an event's key named "key #ID" — refused when it is expected to
// hold more than n events, or holds more. Its Actor is 0 (an app server is
// hash(ID) mod A, so the log's id column replays it); the replay reads the
// log's clock from the start of the stream (a whole second), so that its
// events keep their times.
func sampleTimed(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Timed)
	expected := spec.ExpectedWrites()*(1+spec.Resend) + spec.ExpectedReads()
	if expected > float64(n) {
		return nil, fmt.Errorf("%s is a timed stream of about %s events, more than -events %s: it is sampled whole (allowed: -events %s or more)",
			scn.ID(), metrics.Format(math.Round(expected)), metrics.Format(float64(n)), metrics.Format(math.Ceil(expected*1.01)))
	}
	src, err := workload.NewTimed(timedConfig(scn.Seed, spec))
	if err != nil {
		return nil, err
	}
	names := SampleNames{Key: func(key uint64) string { return "key #" + strconv.FormatUint(key, 10) }}
	out := &Sampled{As: "timed"}
	var buf []workload.Event
	for i := range src.Chunks() {
		buf = src.Chunk(i, buf)
		if out.Events += int64(len(buf)); out.Events > n {
			return nil, fmt.Errorf("%s holds more than -events %s events: it is sampled whole (allowed: a larger -events)", scn.ID(), metrics.Format(float64(n)))
		}
		if err := each(buf, names); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (k *logTimedKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return append(k.timedKind.Reports(nil), metrics.SkippedLines, metrics.ReorderedEvents)
	}
	return k.timedKind.Reports(d)
}
