package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/engine"
	"math"
	"strings"
	"testing"
)

// runYAML prepares and runs a scenario, failing on any error.
func runYAML(t *testing.T, yaml string) *engine.Report {
	t.Helper()
	rep, err := prepare(t, yaml, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// planOnly returns the rows of strategy and metric that carry no
// measurement, at the given scale.
func planOnly(rs []metrics.Result, strategy string, metric metrics.Metric, scale metrics.Scale) []metrics.Result {
	var out []metrics.Result
	for _, r := range rs {
		if r.Strategy == strategy && r.Metric == metric && r.Scale == scale && !r.Measured() {
			out = append(out, r)
		}
	}
	return out
}

// A batching design's last flush, sent when the stream ends, is the
// shutdown's, not a burst of the stream: the busiest key-second is one
// flush of A servers (the plan A/T), and the shutdown is a row of its own.
// Without a crash, the crash's worst case is a plan, never a measurement.
func TestShutdownApartFromTheStream(t *testing.T) {
	const yaml = `name: flush
seed: 2
assumptions: {key_capacity: 2000, app_servers: 20}
workload:
  keys: 1
  phases: [{duration: 6s, rate: 20000}]
cluster: {nodes: 2}
strategies:
  - {name: batched, type: batched, params: {flush: 1s}}
  - {name: single, type: single-key}
`
	rs := runYAML(t, yaml).Results
	busiest := find(t, rs, "batched", "max_key_ops_per_s")
	if *busiest.Value != 20 || busiest.Plan == nil || *busiest.Plan != 20 {
		t.Errorf("busiest key-second: got %v (plan %v), want 20, one flush of 20 servers", *busiest.Value, busiest.Plan)
	}
	if got := find(t, rs, "batched", "shutdown_ops").Number(); got != 20 {
		t.Errorf("shutdown_ops: got %v, want the 20 servers' last flush", got)
	}
	if got := find(t, rs, "batched", "backlog_end").Number(); got != 0 {
		t.Errorf("backlog_end: got %v, want 0: the shutdown is after the stream", got)
	}
	// 20 flushes a second over 6 s, the last one the shutdown's.
	if got := find(t, rs, "batched", "increments_per_s").Number(); got != 20 {
		t.Errorf("increments_per_s: got %v, want 20", got)
	}
	if got := find(t, rs, "batched", "count_error").Number(); got != 0 {
		t.Errorf("count_error: got %v, want 0 once the shutdown is served", got)
	}
	// One key at 20,000/s against 2,000/s: 6 s of 18,000/s backlog takes
	// 54 s more to serve.
	if got := find(t, rs, "single", "drained_after_s").Number(); math.Abs(got-54) > 1 {
		t.Errorf("single drained_after_s: got %v, want about 54", got)
	}
	for _, r := range rs {
		if r.Metric == "lost_on_crash" && r.Measured() {
			t.Errorf("lost_on_crash measured without a crash: %+v", r)
		}
		if r.Metric == "shutdown_ops" && r.Strategy == "single" {
			t.Errorf("a shutdown row for a design that holds nothing back: %+v", r)
		}
	}
	if len(planOnly(rs, "batched", "lost_on_crash", metrics.Full)) != 1 {
		t.Errorf("want the crash's worst case as one full-scale plan row")
	}
}

// Where the cluster simulates keys of another capacity than the
// assumptions', the plans beside the measurements follow the simulation,
// and the full-scale plans the assumptions.
func TestPlansFollowTheSimulation(t *testing.T) {
	const yaml = `name: differ
seed: 2
assumptions: {key_capacity: 10000, headroom: 0.7}
workload:
  keys: 1
  phases: [{duration: 3s, rate: 20000}]
cluster: {nodes: 2, key_capacity: 8000}
strategies:
  - {name: striped, type: striped, params: {stripes: 4, select: round-robin}}
`
	st := prepare(t, yaml, engine.Options{})
	d := st.Scenario.Differing()
	if len(d) != 1 || d[0].Name != "key_capacity" || d[0].AssumedAt.Line != 3 || d[0].SimulatedPos.Line != 7 {
		t.Fatalf("got differing figures %+v, want key_capacity at lines 3 and 7", d)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	u := find(t, rep.Results, "striped", "utilisation")
	if u.Plan == nil || *u.Plan != 5000.0/8000 {
		t.Errorf("utilisation plan %v, want 5,000 / 8,000 as simulated", u.Plan)
	}
	full := metrics.Select(rep.Results, "striped", "utilisation", metrics.Full)
	if len(full) != 1 || *full[0].Plan != 0.5 || full[0].Measured() {
		t.Errorf("full-scale utilisation %+v, want the plan 5,000 / 10,000 alone", full)
	}
	if got := find(t, rep.Results, "striped", "utilisation").Number(); math.Abs(got-0.625) > 0.01 {
		t.Errorf("measured utilisation %v, want near 0.625", got)
	}
}

// Space-Saving promises the true top-K keys counted more than N/m, not the
// whole top K: at s = 0.7 over 10^6 keys with m = 1,000 the 10th key is
// expected below N/m (N·P(10) ≈ 0.000963·N), and the plan says so.
func TestSpaceSavingPromisesKeysAboveTheThreshold(t *testing.T) {
	if testing.Short() {
		t.Skip("4,000,000 events")
	}
	const yaml = `name: flat
seed: 1
workload: {events: 4_000_000, keys: 1_000_000, s: 0.7}
questions: {top: 10}
strategies:
  - {name: ss, type: space-saving, params: {counters: 1000}}
  - {name: cm, type: count-min, params: {epsilon: 0.001, delta: 0.01, top: 10}}
  - {name: exact, type: exact}
`
	rs := runYAML(t, yaml).Results
	kth := find(t, rs, "truth", "kth_true_count").Number()
	if kth >= 4000 {
		t.Fatalf("the 10th key was counted %v times, above N/m = 4,000: the case this test needs is not this seed's", kth)
	}
	recall := find(t, rs, "ss", "topk_recall")
	if recall.Plan == nil || *recall.Plan >= 1 || *recall.Plan < 0.5 {
		t.Errorf("space-saving recall plan %v, want the share of the top 10 above N/m, below 1", recall.Plan)
	}
	if !strings.Contains(recall.Note, "guarantee threshold 4,000") {
		t.Errorf("note %q: want the threshold named", recall.Note)
	}
	if p := find(t, rs, "cm", "topk_recall").Plan; p != nil {
		t.Errorf("count-min with a heap promises nothing, got plan %v", *p)
	}
	if p := find(t, rs, "exact", "topk_recall").Plan; p == nil || *p != 1 {
		t.Errorf("exact recall plan %v, want 1", p)
	}
}

// Count-min's bound in both of its forms, at full scale, for the likes
// seed's sketch: w = 100,000 and d = 4 over 10^9 events, 1.6 MB.
func TestCountMinBothBounds(t *testing.T) {
	const yaml = `name: likes-sketch
assumptions: {events: 1_000_000_000}
workload: {events: 1000, keys: 100}
strategies:
  - {name: cm, type: count-min, params: {width: 100000, depth: 4}}
`
	plan := prepare(t, yaml, engine.Options{}).Plan()
	want := map[metrics.Metric]float64{"bytes": 1.6e6, "overestimate_bound": 27183, "bound_confidence": 0.98168,
		"overestimate_bound_2n_w": 20000, "bound_2n_w_confidence": 0.9375}
	for metric, v := range want {
		scale := metrics.Full
		if metric == "bytes" {
			scale = metrics.Sim
		}
		got := metrics.Select(plan, "cm", metric, scale)
		if len(got) != 1 || got[0].Plan == nil || *got[0].Plan != v || got[0].Measured() {
			t.Errorf("%s: got %+v, want the plan %v", metric, got, v)
		}
	}
}
