package engine

import (
	"math"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/strategies"
)

// faultRows sends writes to key 5 of a one-node cluster at rate a second
// for secs seconds through client cl, with fault f, and returns the rows
// FaultRows gives, by metric.
func faultRows(t *testing.T, f strategies.Fault, rate float64, secs int, cl strategies.Client) map[metrics.Metric]metrics.Result {
	t.Helper()
	cfg := cluster.Config{Nodes: 1, KeyCapacity: 10_000}
	c, err := cluster.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c.Fault(f)
	n := int(rate) * secs
	ops := make([]strategies.StoreOp, 1)
	st := make([]strategies.OpStatus, 1)
	for i := range n {
		ops[0] = strategies.StoreOp{At: int64(math.Round(float64(i) * 1e9 / rate)), Kind: strategies.IncrBy, Key: 5, Delta: 1}
		c.DoClient(cl, ops, nil, st)
	}
	s := &Scorer{Rep: &Report{}, D: Design{Spec: scenarios.Strategy{Name: "d"}}, Measured: map[metrics.Metric]bool{}}
	Clusters{Cfg: &cfg}.FaultRows(s, c, c.Outages())
	rows := map[metrics.Metric]metrics.Result{}
	for _, r := range s.Rep.Results {
		rows[r.Metric] = r
	}
	return rows
}

// A slow node at half speed for 1 s under 8,000 writes/s against 10,000/s,
// clients timing out at 10 ms: recovery 1.45 s after the end, measured and
// planned ((3,000 − 100)/2,000); its failed ops have no closed form.
func TestFaultRowsSlowNode(t *testing.T) {
	rows := faultRows(t, strategies.Fault{At: 1e9, Kind: strategies.NodeSlow, For: 1e9, Share: 0.5}, 8000, 5, strategies.Client{Timeout: 10e6})
	rec := rows[metrics.FaultRecovery]
	if rec.Plan == nil || math.Abs(*rec.Plan-1.45) > 1e-9 || math.Abs(rec.Number()-1.45) > 0.001 {
		t.Errorf("fault_recovery_s %v, plan %v; want 1.45 ± 0.001 and the plan 1.45", rec.Number(), rec.Plan)
	}
	if p := rows[metrics.FaultFailedOps].Plan; p != nil || rows[metrics.FaultFailedOps].Number() < 19_000 {
		t.Errorf("fault_failed_ops %v, plan %v; want about 19,467 and no plan", rows[metrics.FaultFailedOps].Number(), p)
	}
	// Without a timeout nothing times out: recovered at the end, plan 0.
	rows = faultRows(t, strategies.Fault{At: 1e9, Kind: strategies.NodeSlow, For: 1e9, Share: 0.5}, 8000, 5, strategies.Client{})
	if rec := rows[metrics.FaultRecovery]; rec.Number() != 0 || rec.Plan == nil || *rec.Plan != 0 {
		t.Errorf("no timeout: fault_recovery_s %v, plan %v; want 0 = plan", rec.Number(), rec.Plan)
	}
}

// A failover at 1 s with 100 ms of lag and 500 ms of delay under 1,000
// writes/s: 100 lost and 500 failed, each its plan; recovered at once.
func TestFaultRowsFailover(t *testing.T) {
	rows := faultRows(t, strategies.Fault{At: 1e9, Kind: strategies.Failover, Delay: 500e6, Lag: 100e6}, 1000, 3, strategies.Client{})
	for m, want := range map[metrics.Metric]float64{metrics.LostOnFailover: 100, metrics.FaultFailedOps: 500, metrics.FaultRecovery: 0} {
		r := rows[m]
		if r.Number() != want || r.Plan == nil || *r.Plan != want {
			t.Errorf("%s: got %v, plan %v; want %v = plan", m, r.Number(), r.Plan, want)
		}
	}
}
