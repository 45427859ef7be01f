package sim

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
)

// fakeBackend opens stores that apply ops on a simulated cluster of their
// own with no capacity limit to speak of, count what they were sent, and
// fail after failAfter ops when it is set. No code is shared with package
// redisstore: this tests the twins' plumbing, not Redis.
type fakeBackend struct {
	failAfter int64
	late      int64 // ns every op is answered after its due time
	mu        sync.Mutex
	stores    []*fakeStore
}

func (b *fakeBackend) Name() string { return "fake" }

func (b *fakeBackend) Open(_ context.Context, design string, paced bool, fail func(error)) (strategies.RealStore, error) {
	c, err := cluster.New(cluster.Config{Nodes: 2, KeyCapacity: 1e9})
	if err != nil {
		return nil, err
	}
	s := &fakeStore{Cluster: c, keys: map[uint64]bool{}, design: design, paced: paced, fail: fail, failAfter: b.failAfter, late: b.late}
	b.mu.Lock()
	b.stores = append(b.stores, s)
	b.mu.Unlock()
	return s, nil
}

type fakeStore struct {
	*cluster.Cluster
	writes, reads   int64           // the ops sent, as the cluster counts them
	keys            map[uint64]bool // the keys sent an op
	design          string
	paced           bool
	fail            func(error)
	failAfter       int64
	late            int64
	ops             int64
	failed, settled bool
	closed          bool
}

func (s *fakeStore) Do(ops []strategies.StoreOp, vals []int64) {
	if s.failed {
		return
	}
	if s.failAfter > 0 && s.ops+int64(len(ops)) > s.failAfter {
		s.failed = true
		s.fail(errors.New("fake store: connection reset"))
		return
	}
	s.ops += int64(len(ops))
	for _, op := range ops {
		s.keys[op.Key] = true
		if op.Kind.Writes() {
			s.writes++
		} else {
			s.reads++
		}
	}
	s.Cluster.Do(ops, vals)
}

func (s *fakeStore) Settle() { s.settled = true }

func (s *fakeStore) Stats() strategies.RealStats {
	st := strategies.RealStats{Ops: s.ops, Writes: s.writes, Reads: s.reads, RoundTrips: 1, Keys: len(s.keys), Paced: s.paced, Wall: 1e9}
	st.Latency.Add(1000 + s.late)
	st.Nodes = []strategies.RealNode{{Addr: "a", Ops: s.ops}, {Addr: "b"}}
	return st
}

func (s *fakeStore) Close() error { s.closed = true; return nil }

// TestTwinsOnARealStore: every design on servers, and only those, runs a
// second time on the backend's store, under NAME@BACKEND, scored like the
// original (the same final counts: the same ops, applied in order), with
// the real store's rows, no timing of its own and no expectation; the
// stores are settled and closed.
func TestTwinsOnARealStore(t *testing.T) {
	yaml := hotYAML + `  - name: exact
    type: exact
`
	yaml = strings.Replace(yaml, "    type: single-key\n", "    type: single-key\n    expect: [\"count_error == 0\"]\n", 1)
	b := &fakeBackend{}
	st := prepare(t, yaml, engine.Options{Store: b})
	var names []string
	for _, d := range st.Members {
		names = append(names, d.Name())
	}
	if got, want := strings.Join(names, " "), "single single@fake striped striped@fake batched batched@fake exact"; got != want {
		t.Fatalf("designs %s, want %s", got, want)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"single", "striped", "batched"} {
		twin := name + "@fake"
		for _, m := range []metrics.Metric{metrics.FinalCount, metrics.CountError} {
			if a, b := find(t, rep.Results, name, m).Value, find(t, rep.Results, twin, m).Value; *a != *b {
				t.Errorf("%s %s = %v on the simulation, %v on the store", name, m, *a, *b)
			}
		}
		if rows := metrics.Select(rep.Results, twin, metrics.NsPerEvent, metrics.Sim); len(rows) != 0 {
			t.Errorf("%s has an ns_per_event row: a twin's time is the store's", twin)
		}
		if v := *find(t, rep.Results, twin, metrics.KeptUp).Value; v != 1 {
			t.Errorf("%s kept_up %v, want 1", twin, v)
		}
	}
	if *find(t, rep.Results, "batched@fake", metrics.CountError).Value >= 0 {
		t.Error("batched@fake lost nothing to the crash")
	}
	for _, s := range b.stores {
		ops := *find(t, rep.Results, s.design, metrics.StoreOps).Value
		if ops != float64(s.ops) || ops == 0 || !s.paced || !s.settled || !s.closed {
			t.Errorf("%s: store_ops %v, sent %d, paced %v, settled %v, closed %v", s.design, ops, s.ops, s.paced, s.settled, s.closed)
		}
	}
	if len(b.stores) != 3 {
		t.Errorf("%d stores opened, want 3", len(b.stores))
	}
	verdicts := st.Judge(rep)
	if len(verdicts) != 1 || verdicts[0].Design != "single" {
		t.Errorf("verdicts %+v, want single's one expectation alone (a twin carries none)", verdicts)
	}
}

// TestSlowStoreIsSaidSo: a replay whose ops were answered more than a
// second late is not the scenario's: kept_up is 0 and the notes say so.
func TestSlowStoreIsSaidSo(t *testing.T) {
	st := prepare(t, hotYAML, engine.Options{Store: &fakeBackend{late: 3e9}})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if v := *find(t, rep.Results, "striped@fake", metrics.KeptUp).Value; v != 0 {
		t.Errorf("kept_up %v, want 0", v)
	}
	if len(st.Notes) != 3 || !strings.Contains(st.Notes[1], "striped@fake did not keep the scenario's pace") {
		t.Errorf("notes %q, want one for each twin", st.Notes)
	}
}

// TestFailingStoreStopsTheRun: a store that fails mid-stream stops the run
// with its error and a partial report; the stores are closed.
func TestFailingStoreStopsTheRun(t *testing.T) {
	b := &fakeBackend{failAfter: 20_000}
	st := prepare(t, hotYAML, engine.Options{Store: b})
	rep, err := st.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("error %v, want the store's", err)
	}
	if rep == nil || !rep.Partial {
		t.Fatalf("report %v, want a partial one", rep)
	}
	if w := *find(t, rep.Results, "truth", metrics.Writes).Value; w >= 80_000 {
		t.Errorf("the truth took %v writes of 80,000: the run went on after the failure", w)
	}
	for _, s := range b.stores {
		if !s.closed {
			t.Errorf("%s not closed", s.design)
		}
	}
}

// TestAudienceTwinsRedisHLL: Redis's HLL through the store runs on a
// simulated store without a cluster: key, and its twin on the backend's;
// both count each day and the union by PFMERGE within 5σ of the truth.
func TestAudienceTwinsRedisHLL(t *testing.T) {
	yaml := `name: a
seed: 3
workload:
  audience:
    days:
      - viewers: 200_000
      - viewers: 150_000
        overlap: 100_000
strategies:
  - name: pf
    type: redis-hll
  - name: hll
    type: hll
`
	b := &fakeBackend{}
	st := prepare(t, yaml, engine.Options{Store: b})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"pf", "pf@fake"} {
		rows := metrics.Select(rep.Results, name, metrics.Distinct, metrics.Sim)
		if len(rows) != 4 { // two days, their sum, the union
			t.Fatalf("%s: %d distinct rows, want 4", name, len(rows))
		}
		for _, r := range []metrics.Result{rows[0], rows[1], rows[3]} {
			if rel := (*r.Value - *r.Plan) / *r.Plan; rel > 5*0.0081 || rel < -5*0.0081 {
				t.Errorf("%s %s: %v against %v, off by %.2f%%", name, r.Note, *r.Value, *r.Plan, 100*rel)
			}
		}
	}
	if len(b.stores) != 1 || b.stores[0].paced {
		t.Errorf("stores %+v, want one, not paced (an audience is not timed)", b.stores)
	}
}

// TestRealStoreNotTakenByBoards: a board standing on standings (loaded
// into the designs, not sent to the store) does not run on a real store:
// the notes say so and there are no twins.
func TestRealStoreNotTakenByBoards(t *testing.T) {
	st := prepare(t, `name: b
workload:
  keys: 1000
  phases: [{duration: 1s, rate: 1000}]
  scores: {delta_min: 1, delta_max: 5, start_max: 100}
cluster: {nodes: 2, key_capacity: 10000}
strategies:
  - name: board
    type: sorted-set
`, engine.Options{Store: &fakeBackend{}})
	for _, d := range st.Members {
		if d.Real != "" {
			t.Errorf("twin %s made for a board", d.Name())
		}
	}
	if len(st.Notes) != 1 || !strings.Contains(st.Notes[0], "does not take a real store") {
		t.Errorf("notes %q", st.Notes)
	}
}

// TestHashTagPutsStripesOnOneNode: on the simulated cluster, a striped
// counter's stripes with a hash tag share one node, which takes every
// write; without it 32 stripes spread over 8 nodes.
func TestHashTagPutsStripesOnOneNode(t *testing.T) {
	st := prepare(t, `name: h
seed: 9
workload:
  keys: 1
  phases: [{duration: 2s, rate: 20000}]
cluster: {nodes: 8, key_capacity: 10000}
strategies:
  - name: spread
    type: striped
    params: {stripes: 32}
  - name: tagged
    type: striped
    params: {stripes: 32, hashtag: true}
`, engine.Options{})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	spread := *find(t, rep.Results, "spread", metrics.MaxNodeOps).Value
	tagged := *find(t, rep.Results, "tagged", metrics.MaxNodeOps).Value
	// Tagged: the busiest node-second is a whole second of the stream,
	// Poisson-free (even arrivals): 20,000. Spread: 32 stripes over 8
	// nodes, at most 12 stripes on a node by any seed's luck is 7,500.
	if tagged < 19_900 || spread > 12*20_000/32+500 {
		t.Errorf("max node ops: tagged %v (want ≈ 20,000), spread %v (want ≤ 8,000)", tagged, spread)
	}
	// The node-load chart: a bar a node for each design; the tagged one's
	// load all on one node, the spread one's on every node.
	busy := map[string]int{}
	for _, se := range rep.Series {
		if se.Name != "node-load" {
			continue
		}
		if len(se.Y) != 8 {
			t.Errorf("%s: %d node bars, want 8", se.Strategy, len(se.Y))
		}
		for _, y := range se.Y {
			if y > 0 {
				busy[se.Strategy]++
			}
		}
	}
	if busy["tagged"] != 1 || busy["spread"] < 6 {
		t.Errorf("nodes with load: %v, want tagged 1 and spread most of 8", busy)
	}
}
