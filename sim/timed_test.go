package sim

import (
	"context"
	"math"
	"testing"

	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
)

const hotYAML = `name: hot
seed: 5
assumptions:
  peak_rate: 20000
  read_rate: 500
  key_capacity: 2000
  headroom: 0.7
  app_servers: 10
workload:
  keys: 1
  phases:
    - {duration: 4s, rate: 20000}
  reads: 500
  resend: 0.02
  resend_delay: 50ms
cluster:
  nodes: 4
  key_capacity: 2000
faults:
  - {at: 2.5s, kind: app-crash, server: 3}
strategies:
  - name: single
    type: single-key
  - name: striped
    type: striped
    params: {stripes: 16, select: hash, dedup: 1s}
  - name: batched
    type: batched
    params: {servers: 10, flush: 1s, dedup: 1s}
`

func TestTimedRunAgainstTruth(t *testing.T) {
	rep, err := prepare(t, hotYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	writes := find(t, rs, "truth", "writes").Number()
	resends := find(t, rs, "truth", "resends").Number()
	if resends == 0 {
		t.Fatal("no resends: a weak test")
	}
	// Without dedup every resend is counted twice; with it, none is.
	if got := find(t, rs, "single", "count_error").Number(); got != resends {
		t.Errorf("single count_error: got %v, want the %v resends", got, resends)
	}
	if got := find(t, rs, "striped", "count_error").Number(); got != 0 {
		t.Errorf("striped with dedup count_error: got %v, want 0", got)
	}
	// The crash loses what server 3 held since the flush at 2 s: about
	// 0.5 s of its tenth of 20,000/s, 1,000, never more than its whole share
	// of a flush interval.
	lost := find(t, rs, "batched", "lost_on_crash").Number()
	if lost <= 0 || lost > 20000.0/10*1 {
		t.Errorf("batched lost_on_crash: got %v, want in (0, 2,000]", lost)
	}
	if got := find(t, rs, "batched", "final_count").Number(); got != writes-lost {
		t.Errorf("batched final_count: got %v, want writes − lost = %v", got, writes-lost)
	}
	// One key sent 20,000/s plus 2% resends against 2,000/s served: the
	// backlog grows 20,400 − 2,000 = 18,400 a second. Arrivals are even and
	// the resends a seeded 2%: the slope is that within the resends' binomial
	// spread (σ ≈ 20 a second), 1% here.
	single := find(t, rs, "single", "backlog_growth_per_s").Number()
	if math.Abs(single-18400) > 184 {
		t.Errorf("single backlog growth: got %v, want 18,400 within 1%%", single)
	}
	if got := find(t, rs, "striped", "keys_used").Number(); got != 16 {
		t.Errorf("striped keys_used: got %v, want 16", got)
	}
	// Every read of the single key sees only served writes: it falls behind.
	if got := find(t, rs, "single", "staleness_max_s").Number(); got < 1 {
		t.Errorf("single staleness_max_s: got %v, want the backlog's seconds", got)
	}
}

func TestFaultsReachDesignsAtTheirTime(t *testing.T) {
	r := &engine.Run{
		Truth:    engine.NewTruth(4, false, false),
		Designs:  []strategies.Strategy{&faultLog{}},
		Clusters: make([]*cluster.Cluster, 1),
		Elapsed:  make([]int64, 1),
		Next:     make([]int, 1),
		Faults:   []strategies.Fault{{At: 150, Kind: strategies.AppCrash, Target: 1}, {At: 150, Kind: strategies.AppCrash, Target: 2}, {At: 900, Kind: strategies.AppCrash}},
	}
	var b []workload.Event
	for at := int64(0); at < 400; at += 50 {
		b = append(b, workload.Event{At: at, Key: 1, Delta: 1, ID: uint64(at) + 1})
	}
	r.Observe(0, b)
	(&engine.ClusterRun{Run: r}).Finish(1000)
	log := r.Designs[0].(*faultLog)
	want := "0 50 100 F1 F2 150 200 250 300 350 F0 flush"
	if got := log.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// faultLog records the events and faults it is given, in order.
type faultLog struct{ log []string }

func (f *faultLog) Observe(b []workload.Event) {
	for _, e := range b {
		f.log = append(f.log, metrics.Format(float64(e.At)))
	}
}
func (f *faultLog) Bytes() int64 { return 0 }
func (f *faultLog) Fault(x strategies.Fault) {
	f.log = append(f.log, "F"+metrics.Format(float64(x.Target)))
}
func (f *faultLog) Flush(int64) { f.log = append(f.log, "flush") }
func (f *faultLog) String() string {
	s := ""
	for i, l := range f.log {
		if i > 0 {
			s += " "
		}
		s += l
	}
	return s
}

func TestStalenessFromHistory(t *testing.T) {
	tr := engine.NewTruth(4, false, true)
	// One write every 10 ms for a second, then a read at 1 s shown 50.
	var b []workload.Event
	for i := range 100 {
		b = append(b, workload.Event{At: int64(i) * 10e6, Key: 9, Delta: 1})
	}
	b = append(b, workload.Event{At: 1e9, Key: 9, Op: workload.Read})
	tr.Observe(b)
	// The 51st write, at 500 ms, made 50 untrue: 0.5 s old.
	ns, ok := tr.Staleness(9, 50, tr.Reads[0], tr.ReadAt[0])
	if !ok || ns != 500e6 {
		t.Errorf("got %v ns (%v), want 500,000,000", ns, ok)
	}
	if ns, _ := tr.Staleness(9, 100, 100, 1e9); ns != 0 {
		t.Errorf("an up-to-date value: got %v ns, want 0", ns)
	}
}

func TestNodeLossLosesWhatTheNodeHeld(t *testing.T) {
	yaml := `name: loss
workload:
  keys: 1
  phases:
    - {duration: 3s, rate: 8000}
cluster:
  nodes: 4
  key_capacity: 10000
faults:
  - {at: 1.5s, kind: node-loss, node: 1}
strategies:
  - name: striped
    type: striped
    params: {stripes: 16, select: round-robin}
`
	rep, err := prepare(t, yaml, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	writes := find(t, rep.Results, "truth", "writes").Number()
	lost := find(t, rep.Results, "striped", "lost_on_node_loss").Number()
	// Round-robin puts 500 writes a second on each of 16 stripes; the node
	// holds some of them (placement by hash), each with 750 by 1.5 s.
	if lost <= 0 || int(lost)%750 != 0 {
		t.Errorf("lost_on_node_loss: got %v, want a positive multiple of 750", lost)
	}
	if got := find(t, rep.Results, "striped", "count_error").Number(); got != -lost {
		t.Errorf("count_error: got %v, want −%v (of %v writes)", got, lost, writes)
	}
}

// fixedSource is a stream of chunks of events every 50 ns.
type fixedSource struct{ chunks, size int }

func (f fixedSource) Chunks() int { return f.chunks }
func (f fixedSource) Chunk(i int, buf []workload.Event) []workload.Event {
	buf = buf[:0]
	for j := range f.size {
		at := int64(i*f.size+j) * 50
		buf = append(buf, workload.Event{At: at, Key: 1, Delta: 1, ID: uint64(at) + 1})
	}
	return buf
}

// Every design, each on its own lane, gets every event and its own faults
// at their time, however the lanes are scheduled.
func TestFeedGivesEveryLaneItsFaults(t *testing.T) {
	r := &engine.Run{
		Truth:    engine.NewTruth(4, false, false),
		Designs:  []strategies.Strategy{&faultLog{}, &faultLog{}, &faultLog{}},
		Names:    []string{"a", "b", "c"},
		Clusters: make([]*cluster.Cluster, 3),
		Faults:   []strategies.Fault{{At: 150, Kind: strategies.AppCrash, Target: 1}, {At: 375, Kind: strategies.AppCrash, Target: 2}},
	}
	fed, err := engine.Feeder{Workers: 3}.Feed(context.Background(), r, fixedSource{chunks: 5, size: 2}, 3)
	if err != nil || fed != 10 {
		t.Fatalf("fed %d, %v; want 10 events", fed, err)
	}
	want := "0 50 100 F1 150 200 250 300 350 F2 400 450"
	for i, d := range r.Designs {
		if got := d.(*faultLog).String(); got != want {
			t.Errorf("design %d: got %q, want %q", i, got, want)
		}
	}
	if got := r.Truth.(*engine.Truth).Total(); got != 10 {
		t.Errorf("the truth counted %d, want 10", got)
	}
}

// A node down for 1 s under round-robin stripes at a steady 8,000 writes a
// second: every write sent to the node in the window fails, exactly the
// plan (the node's writes a second × 1 s), and the count is short by them;
// a failover's lag loses the node's writes a second × the lag.
func TestStoreFaultsOnTheCluster(t *testing.T) {
	yaml := `name: outage
workload:
  keys: 1
  phases:
    - {duration: 4s, rate: 8000}
cluster:
  nodes: 4
  key_capacity: 10000
faults:
  - {at: 1s, kind: node-down, node: 1, for: 1s}
  - {at: 3s, kind: failover, node: 2, delay: 500ms, lag: 100ms}
strategies:
  - name: striped
    type: striped
    params: {stripes: 16, select: round-robin}
`
	rep, err := prepare(t, yaml, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := find(t, rep.Results, "striped", "fault_failed_ops")
	if r.Plan == nil || r.Number() <= 0 {
		t.Fatalf("fault_failed_ops %v, plan %v: want a plan and failures", r.Number(), r.Plan)
	}
	// Each stripe takes 500 writes a second: the node down fails 500 a
	// stripe it holds, the failover's 500 ms another 250 a stripe of its node.
	if got, plan := r.Number(), *r.Plan; got != plan || int(got)%250 != 0 {
		t.Errorf("fault_failed_ops: got %v, want the plan %v, a multiple of 250", got, plan)
	}
	lost := find(t, rep.Results, "striped", "lost_on_failover")
	t.Logf("failed %v (plan %v), lost %v", r.Number(), *r.Plan, lost.Number())
	if lost.Plan == nil || lost.Number() <= 0 || lost.Number() != *lost.Plan {
		t.Errorf("lost_on_failover: got %v, plan %v: want them equal, above 0", lost.Number(), lost.Plan)
	}
	if got := find(t, rep.Results, "striped", "count_error").Number(); got != -(r.Number() + lost.Number()) {
		t.Errorf("count_error: got %v, want −(%v failed + %v lost)", got, r.Number(), lost.Number())
	}
	if rec := find(t, rep.Results, "striped", "fault_recovery_s"); rec.Number() != 0 || rec.Plan == nil || *rec.Plan != 0 {
		t.Errorf("fault_recovery_s: got %v, plan %v; want 0 = plan", rec.Number(), rec.Plan)
	}
}
