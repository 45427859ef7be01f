package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
)

const smallYAML = `name: small
seed: 3
workload:
  events: 200000
  keys: 20000
  s: 1.1
  batch: 999
questions:
  top: 10
strategies:
  - name: exact
    type: exact
  - name: cm
    type: count-min
    params: {epsilon: 0.001, delta: 0.01, top: 10}
  - name: ss
    type: space-saving
    params: {counters: 100}
`

func prepare(t testing.TB, yaml string, opts engine.Options) *engine.Setup {
	t.Helper()
	scn, err := scenarios.Parse("small.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Prepare(scn, opts)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// find returns the first simulated-scale row of one strategy and metric,
// failing if there is none.
func find(t *testing.T, rs []metrics.Result, strategy string, metric metrics.Metric) metrics.Result {
	t.Helper()
	got := metrics.Select(rs, strategy, metric, metrics.Sim)
	if len(got) == 0 {
		t.Fatalf("no %s row for %s", metric, strategy)
	}
	return got[0]
}

func TestRunScoresAgainstTruth(t *testing.T) {
	rep, err := prepare(t, smallYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	if got := find(t, rs, "truth", "events").Number(); got != 200000 {
		t.Errorf("events: got %v, want 200000", got)
	}
	for _, c := range []struct {
		strategy string
		metric   metrics.Metric
		want     float64
	}{
		{"exact", "undercounts", 0}, {"exact", "max_overestimate", 0}, {"exact", "topk_recall", 1},
		{"cm", "undercounts", 0}, {"cm", "topk_recall", 1}, {"ss", "topk_recall", 1},
	} {
		if got := find(t, rs, c.strategy, c.metric).Number(); got != c.want {
			t.Errorf("%s %s: got %v, want %v", c.strategy, c.metric, got, c.want)
		}
	}
	// The exact design's estimate of the 10th key is its true count.
	kth := find(t, rs, "truth", "kth_true_count")
	if got := find(t, rs, "exact", "kth_estimate").Number(); got != kth.Number() {
		t.Errorf("exact kth_estimate: got %v, want the true %v", got, kth.Number())
	}
	// The 10th key's count is Binomial(N, p10); 6σ covers it with room.
	p := *kth.Plan / 200000
	if sd := math.Sqrt(200000 * p * (1 - p)); math.Abs(kth.Number()-*kth.Plan) > 6*sd {
		t.Errorf("kth_true_count %v too far from the theory %v (σ %.1f)", kth.Number(), *kth.Plan, sd)
	}
	bound := find(t, rs, "cm", "max_overestimate")
	if bound.Plan == nil || *bound.Plan != 200 {
		t.Errorf("cm max_overestimate plan: got %v, want εN = 200", bound.Plan)
	}
	if len(rep.Series) == 0 {
		t.Error("no series for the charts")
	}
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	var runs [][]metrics.Result
	for _, w := range []int{1, 3, 8} {
		rep, err := prepare(t, smallYAML, engine.Options{Workers: w}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, metrics.Untimed(rep.Results))
	}
	for i := 1; i < len(runs); i++ {
		if !reflect.DeepEqual(runs[0], runs[i]) {
			t.Errorf("results with different worker counts differ")
		}
	}
}

func TestCancelGivesPartialReport(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := prepare(t, smallYAML, engine.Options{}).Run(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	if rep == nil || !rep.Partial {
		t.Fatalf("got report %+v, want a partial one", rep)
	}
	if got := find(t, rep.Results, "truth", "events"); got.Plan != nil || got.Number() >= 200000 {
		t.Errorf("a stopped run claims the whole stream: %+v", got)
	}
	for _, r := range rep.Results {
		if math.IsNaN(r.Number()) || math.IsInf(r.Number(), 0) {
			t.Errorf("%s %s: %v is not a number JSON can hold", r.Strategy, r.Metric, r.Number())
		}
	}
}

func TestPrepareErrors(t *testing.T) {
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"param line", "epsilon: 0.001", "epsilon: 1.5", "small.yaml:15:"},
		{"unknown type", "type: space-saving", "type: nope", "small.yaml:17:"}, // at the type
		{"unknown param", "counters: 100", "counterz: 100", "small.yaml:18:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			yaml := strings.Replace(smallYAML, c.old, c.new, 1)
			scn, err := scenarios.Parse("small.yaml", []byte(yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = engine.Prepare(scn, engine.Options{})
			var se *scenarios.Error
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want a scenarios.Error at %s", err, c.want)
			}
		})
	}
}

func TestMemoryLimitRefusedBeforeAllocating(t *testing.T) {
	scn, err := scenarios.Parse("small.yaml", []byte(smallYAML))
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Prepare(scn, engine.Options{MemoryLimit: 1 << 20})
	if err == nil || !strings.Contains(err.Error(), "limit of 1,048,576 bytes") {
		t.Errorf("got %v, want the memory limit refused with both numbers", err)
	}
}

// liar undercounts one key and answers a wrong top list: the scoring must see it.
type liar struct{ victim uint64 }

func (l *liar) Observe([]workload.Event) {}
func (l *liar) Bytes() int64             { return 8 }
func (l *liar) Count(key uint64) uint64 {
	if key == l.victim {
		return 0
	}
	return 1 << 40
}
func (l *liar) Top(k int) []strategies.Item { return []strategies.Item{{Key: l.victim, Count: 1}} }

func TestScoringCatchesAWrongDesign(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	tr := engine.NewTruth(16, false, false)
	tr.Observe([]workload.Event{{Key: 5, Delta: 3}, {Key: 6, Delta: 1}, {Key: 7, Delta: 2}})
	k := st.Kind.(*streamKind)
	k.top = 2 // the question asked of the scoring, whatever the scenario's
	st.Members = st.Members[:1]
	r := &engine.Run{Truth: tr, Designs: []strategies.Strategy{&liar{victim: 5}}, Names: []string{"exact"}, Elapsed: []int64{0}}
	rep := &engine.Report{}
	k.score(context.Background(), rep, r, tr, 6, nil, nil)
	if got := find(t, rep.Results, "exact", "undercounts").Number(); got != 1 {
		t.Errorf("undercounts: got %v, want 1", got)
	}
	if got := find(t, rep.Results, "exact", "topk_recall").Number(); got != 0.5 {
		t.Errorf("topk_recall: got %v, want 0.5", got)
	}
}

// What a design would refuse when built is found by Prepare, before any
// scenario runs: validate must not pass what run refuses.
func TestPrepareChecksWhatBuildWouldRefuse(t *testing.T) {
	timed := "name: t\nworkload:\n  keys: 1\n  phases: [{duration: 1s, rate: 100}]\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"striped without a cluster", timed + "strategies:\n  - {name: s, type: striped, params: {stripes: 4}}\n",
			"t.yaml:6: strategies[0] s: striped needs a cluster"},
		{"batched without servers", timed + "cluster: {key_capacity: 10}\nstrategies:\n  - {name: b, type: batched}\n",
			"t.yaml:7: strategies[0] b: batched: parameter servers: not given, and the assumptions give no app_servers"},
		{"count-min on an audience", "name: t\nworkload:\n  audience: {days: [{viewers: 10}]}\nstrategies:\n  - {name: c, type: count-min, params: {epsilon: 0.1, delta: 0.1}}\n",
			"t.yaml:5: strategies[0] c: a count-min does not count distinct ids (allowed with an audience: exact-distinct, hll, redis-hll)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			scn, err := scenarios.Parse("t.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatal(err)
			}
			_, err = engine.Prepare(scn, engine.Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}

// cancelling cancels the run's context when it first sees events.
type cancelling struct {
	cancel func()
	seen   int
}

func (c *cancelling) Observe(b []workload.Event) { c.seen += len(b); c.cancel() }
func (c *cancelling) Bytes() int64               { return 0 }

// A run stopped with chunks in flight stops at the next chunk, and leaves
// no generating goroutine behind.
func TestCancelMidStream(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cancelling{cancel: cancel}
	r := &engine.Run{Truth: engine.NewTruth(16, false, false), Designs: []strategies.Strategy{c}, Names: []string{"cancelling"}, Elapsed: make([]int64, 1)}
	// 1,000 chunks: the lanes' queues hold a few, so the stream cannot
	// all be handed out before the design cancels.
	fed, err := engine.Feeder{Workers: 3}.Feed(ctx, r, fixedSource{chunks: 1000, size: 1000}, 999)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if fed == 0 || fed >= 1_000_000 || int64(c.seen) != fed {
		t.Errorf("fed %d events (the design saw %d), want some of the 1,000,000", fed, c.seen)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines left running, want %d", n, before)
	}
}

// Every kind of run the loader can pick has a runner here, and no runner
// waits for a kind the loader does not know.
func TestEveryKindHasARunner(t *testing.T) {
	names := scenarios.KindNames()
	for _, name := range names {
		if engine.Kinds[name] == nil {
			t.Errorf("no runner for the loader's kind %q", name)
		}
	}
	for name := range engine.Kinds {
		if !slices.Contains(names, name) {
			t.Errorf("a runner for %q, which the loader does not know", name)
		}
	}
}

// An on-demand design runs only when Options.With names it.
func TestOnDemandDesigns(t *testing.T) {
	scn, err := scenarios.Builtin("search-full-day")
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Prepare(scn, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Members) != 3 || !slices.Equal(st.LeftOut, []string{"exact"}) {
		t.Errorf("without -with: %d designs, left out %v; want 3 and exact", len(st.Members), st.LeftOut)
	}
	st, err = engine.Prepare(scn, engine.Options{With: []string{"exact"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Members) != 4 || len(st.LeftOut) != 0 || st.Members[3].Index != 3 {
		t.Errorf("with exact: %d designs, left out %v; want all 4", len(st.Members), st.LeftOut)
	}
	// The whole day with exact needs more than a 4 GiB limit: refused with the numbers.
	if _, err := engine.Prepare(scn, engine.Options{With: []string{"exact"}, MemoryLimit: 4 << 30}); err == nil || !strings.Contains(err.Error(), "limit of 4,294,967,296 bytes") {
		t.Errorf("got %v, want the memory limit refused", err)
	}
}

// A run is capped at what the machine has available, whatever the limit
// says; and the machine's figure is read at all.
func TestMemoryCappedAtTheMachine(t *testing.T) {
	if runtime.GOOS == "linux" && engine.MachineMemory() <= 0 {
		t.Fatal("MemAvailable of /proc/meminfo was not read")
	}
	defer func(f func() int64) { engine.MachineMemory = f }(engine.MachineMemory)
	engine.MachineMemory = func() int64 { return 1 << 20 }
	scn, err := scenarios.Parse("small.yaml", []byte(smallYAML))
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.Prepare(scn, engine.Options{MemoryLimit: 1 << 40})
	if err == nil || !strings.Contains(err.Error(), "more than the 1,048,576 bytes this machine has available") {
		t.Errorf("got %v, want the run refused at the machine's 1 MiB", err)
	}
}

// The memory guard counts every term: each design's planned bytes (all its
// parts), the truth by rank (4 bytes a key), the buffers and the process.
// Each design added to a scenario raises the planned memory by exactly its
// planned bytes, and the key space by 4 bytes a key.
func TestMemoryGuardCountsEveryTerm(t *testing.T) {
	base := "name: m\nseed: 1\nworkload: {events: 1000000, keys: KEYS, s: 1}\nquestions: {top: 10}\nstrategies:\n  - {name: first, type: space-saving, params: {counters: 10}}\n"
	need := func(keys string, extra string) (int64, *engine.Setup) {
		st := prepare(t, strings.Replace(base, "KEYS", keys, 1)+extra, engine.Options{MemoryLimit: 1 << 40})
		return st.MemoryNeeded(), st
	}
	zero, _ := need("100000", "")
	for _, d := range []string{
		"  - {name: d, type: exact, params: {shards: 4}}\n",
		"  - {name: d, type: count-min, params: {width: 100000, depth: 4}}\n",
		"  - {name: d, type: count-min, params: {width: 100000, depth: 4, top: 1000}}\n",
		"  - {name: d, type: space-saving, params: {counters: 50000}}\n",
	} {
		got, st := need("100000", d)
		planned := st.Members[1].PlannedValue(metrics.TotalBytes)
		if planned == 0 {
			planned = st.Members[1].PlannedValue(metrics.Bytes)
		}
		// the scoring histogram of one more design, too
		if want := zero + int64(planned) + int64(unsafe.Sizeof(engine.Overs{})); got != want || planned <= 0 {
			t.Errorf("%s: planned memory %d, want %d (+%v for the design)", strings.TrimSpace(d), got, want, planned)
		}
	}
	more, _ := need("1000000", "")
	if more-zero != 4*(1_000_000-100_000) {
		t.Errorf("900,000 more keys: %d bytes more planned, want 3,600,000 for the truth by rank", more-zero)
	}
}
