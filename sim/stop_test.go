package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// cancelAt cancels a run's context at the first progress report that ask
// says to, for Options.Progress; fired tells whether it did.
type cancelAt struct {
	once   sync.Once
	cancel context.CancelFunc
	ask    func(engine.Progress) bool
	fired  chan struct{}
}

func newCancelAt(cancel context.CancelFunc, ask func(engine.Progress) bool) *cancelAt {
	return &cancelAt{cancel: cancel, ask: ask, fired: make(chan struct{})}
}

func (c *cancelAt) progress(p engine.Progress) {
	if c.ask(p) {
		c.once.Do(func() { c.cancel(); close(c.fired) })
	}
}

// boardLoadYAML is a board whose standings take seconds to load: 4 M
// players into a sorted set (about 2 µs a player) and the truth.
const boardLoadYAML = `name: big-board
seed: 5
workload:
  keys: 4_000_000
  s: 0.8
  phases: [{duration: 1s, rate: 1000}]
  reads: 10
  checked: 100
  scores: {delta_min: 1, delta_max: 10, start_max: 10_000}
questions:
  top: 10
cluster:
  nodes: 2
  key_capacity: 10_000
strategies:
  - name: sorted-set
    type: sorted-set
`

// A run stopped while its board's standings load stops there: Run returns
// context.Canceled with a partial report, the truth had taken only part of
// the standings (it stops within a piece of loadPiece players of the
// stop, where the whole load takes seconds), no design is judged, and the
// notes say why.
func TestStopDuringStandingsLoad(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCancelAt(cancel, func(p engine.Progress) bool { return p.Stage == "standings" && p.Events > 0 })
	st := prepare(t, boardLoadYAML, engine.Options{Progress: c.progress, ProgressEvery: time.Millisecond})
	rep, err := st.Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	select {
	case <-c.fired:
	default:
		t.Fatal("the run ended before the standings reported any progress")
	}
	if rep == nil || !rep.Partial {
		t.Fatalf("got %+v, want a partial report", rep)
	}
	players := find(t, rep.Results, "truth", metrics.Players).Number()
	if players <= 0 || players >= 4_000_000 {
		t.Errorf("the truth loaded %v players, want some of the 4,000,000: the load did not stop", players)
	}
	if got := rowsOf(rep.Results, "sorted-set", metrics.Players); len(got) != 0 {
		t.Errorf("a design was judged against a board half loaded: %+v", got)
	}
	if !slices.ContainsFunc(st.Notes, func(n string) bool { return strings.Contains(n, "Stopped while the standings loaded") }) {
		t.Errorf("notes %q do not say the standings were cut short", st.Notes)
	}
}

// bigStreamYAML is a count stream that takes seconds: 50 M events.
const bigStreamYAML = `name: big
seed: 3
workload:
  events: 50_000_000
  keys: 20_000
  s: 1.1
  batch: 1000
questions:
  top: 10
strategies:
  - name: cm
    type: count-min
    params: {epsilon: 0.001, delta: 0.01, top: 10}
  - name: ss
    type: space-saving
    params: {counters: 100}
`

// A count stream stopped part way is scored against what was fed, and
// every plan beside a measurement is the plan for the events fed — the
// design's type planned again for them — never the whole stream's; the
// notes say so.
func TestStoppedStreamPlansWhatWasFed(t *testing.T) {
	defer func(g time.Duration) { engine.ScoreGrace = g }(engine.ScoreGrace)
	engine.ScoreGrace = time.Minute // the scoring of 20,000 keys is whole, however busy the machine
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCancelAt(cancel, func(p engine.Progress) bool { return p.Events > 0 })
	st := prepare(t, bigStreamYAML, engine.Options{Progress: c.progress, ProgressEvery: time.Millisecond})
	full := map[string][]strategies.PlanLine{}
	for _, d := range st.Members {
		full[d.Name()] = d.Plan
	}
	rep, err := st.Run(ctx)
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Partial {
		t.Fatalf("got %v, %v; want context.Canceled and a partial report", err, rep)
	}
	events := find(t, rep.Results, "truth", metrics.Events).Number()
	if events <= 0 || events >= 50_000_000 {
		t.Fatalf("fed %v events, want some of the 50,000,000", events)
	}
	env := st.Env
	env.Events, env.Sim.Events = int64(events), events
	for _, d := range st.Members {
		want := d.Typ.Plan(d.Params, env)
		checked := 0
		for _, l := range want {
			if l.Full {
				continue
			}
			rows := metrics.Select(rep.Results, d.Name(), l.Metric, metrics.Sim)
			for _, r := range rows {
				if r.Plan == nil || r.Metric == metrics.Undercounts {
					continue
				}
				if *r.Plan != l.Value {
					t.Errorf("%s %s: plan %v, want %v, the plan for the %v events fed", d.Name(), l.Metric, *r.Plan, l.Value, events)
				}
				checked++
			}
		}
		// The full stream's plan differs where the events count: εN, N/m.
		if slices.Equal(want, full[d.Name()]) {
			t.Errorf("%s: the plan for %v events is the full stream's: the test proves nothing", d.Name(), events)
		}
		if checked == 0 {
			t.Errorf("%s: no row carries a plan to compare", d.Name())
		}
	}
	if !slices.ContainsFunc(st.Notes, func(n string) bool {
		return strings.Contains(n, "Stopped after "+metrics.Format(events)+" events of the 50,000,000 planned") && strings.Contains(n, "worked out for what was fed")
	}) {
		t.Errorf("notes %q do not say the plans are for what was fed", st.Notes)
	}
}

// Scoring whose context has ended leaves out the rows against the truth
// (it stops, at its first look, rather than read every key) and says so.
func TestScoringCutShortLeavesRowsOut(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	k := st.Kind.(*streamKind)
	tr := engine.NewTruth(16, false, false)
	for i := range uint64(3 * engine.StopEvery) {
		tr.Observe([]workload.Event{{Key: i, Delta: 1}})
	}
	r := &engine.Run{Truth: tr, Designs: []strategies.Strategy{&liar{victim: 5}}, Names: []string{"exact"}, Elapsed: []int64{0}}
	st.Members = st.Members[:1]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := &engine.Report{}
	k.score(ctx, rep, r, tr, 3*engine.StopEvery, nil, nil)
	for _, m := range []metrics.Metric{metrics.Undercounts, metrics.TopKRecall} {
		for _, r := range rowsOf(rep.Results, "exact", m) {
			if r.Value != nil {
				t.Errorf("%s measured by a scoring stopped: %+v", m, r)
			}
		}
	}
	if got := rowsOf(rep.Results, "exact", metrics.Bytes); len(got) != 1 {
		t.Errorf("bytes rows %+v, want the design's memory still", got)
	}
	if !rep.Partial || len(rep.Notes) == 0 || !strings.Contains(rep.Notes[0], "Stopped while scoring") {
		t.Errorf("partial %v, notes %q: want partial and a note of what was left out", rep.Partial, rep.Notes)
	}
}

// sortStop sorts as slices.SortFunc does, at every size around its
// cut-over to slices.SortFunc, on random, sorted and reversed input; with
// its context ended it stops at its first look.
func TestSortStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, engine.StopEvery, engine.StopEvery + 1, 3*engine.StopEvery + 7, 1 << 20} {
		for _, shape := range []string{"random", "sorted", "reversed", "few"} {
			s := make([]uint64, n)
			for i := range s {
				switch shape {
				case "random":
					s[i] = rng.Uint64()
				case "sorted":
					s[i] = uint64(i)
				case "reversed":
					s[i] = uint64(n - i)
				case "few": // many equal keys, made unique by the index
					s[i] = rng.Uint64N(4)<<32 | uint64(i)
				}
			}
			want := slices.Clone(s)
			slices.Sort(want)
			if err := engine.SortStop(context.Background(), s, cmp.Compare[uint64]); err != nil || !slices.Equal(s, want) {
				t.Fatalf("n=%d %s: err %v, sorted %v", n, shape, err, slices.IsSorted(s))
			}
		}
	}
	s := make([]uint64, 1<<20)
	for i := range s {
		s[i] = rng.Uint64()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	compares := 0
	err := engine.SortStop(ctx, s, func(a, b uint64) int { compares++; return cmp.Compare(a, b) })
	if !errors.Is(err, context.Canceled) || compares > 0 {
		t.Errorf("stopped: err %v after %d comparisons, want context.Canceled before any", err, compares)
	}
}

// The scoring context outlives the run's by scoreGrace, then ends with its
// cause; released, it ends at once.
func TestScoringContext(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sctx, release := engine.Scoring(ctx)
	defer release()
	if sctx.Err() != nil {
		t.Fatal("the scoring context ended while the run's is live")
	}
	stop := errors.New("interrupt")
	cancel(stop)
	select {
	case <-sctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the scoring context did not end after the run's")
	}
	if got := context.Cause(sctx); got != stop {
		t.Errorf("cause %v, want the run's", got)
	}
	s2, release2 := engine.Scoring(context.Background())
	release2()
	if s2.Err() == nil {
		t.Error("released, the scoring context is still live")
	}
}
