package engine

import (
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/strategies"
)

// fakeTwin is a real store that only reports whether it heard of failed
// ops: sideBySide reads nothing else of it.
type fakeTwin struct {
	strategies.Store
	fallible bool
}

func (f fakeTwin) Settle()                     {}
func (f fakeTwin) Close() error                { return nil }
func (f fakeTwin) Stats() strategies.RealStats { return strategies.RealStats{Fallible: f.fallible} }
func row(d string, m metrics.Metric, v float64) metrics.Result {
	return metrics.Result{Strategy: d, Metric: m, Value: &v, Scale: metrics.Sim}
}

// TestSideBySide: a fallible twin of a run with one failover gets its
// table, each simulated row beside the real one (a row either side lacks
// left out), the recovery from the kill simulated as the fault's delay
// plus fault_recovery_s; with two store faults no recovery row; a twin
// that sent no op through DoClient, or a run with no store fault, none.
func TestSideBySide(t *testing.T) {
	failover := strategies.Fault{At: 3e9, Kind: strategies.Failover, Target: 1, Delay: 2.5e9}
	results := []metrics.Result{
		row("r", metrics.FaultFailedOps, 450), row("r@x", metrics.StoreFailed, 420),
		row("r", metrics.WritesCountedTwice, 0), row("r@x", metrics.WritesCountedTwice, 3),
		row("r", metrics.WritesRetried, 7), // no real twin: left out
		row("r", metrics.FaultRecovery, 0.25), row("r@x", metrics.StoreRecovery, 2.6),
		row("plain", metrics.FaultFailedOps, 450), row("plain@x", metrics.StoreFailed, 420),
	}
	run := func(faults []strategies.Fault) (*Report, []string) {
		var notes []string
		rr := &RealRun{Twins: Twins{scenario: "s", notes: &notes}, Faults: faults,
			Stores: []strategies.RealStore{nil, fakeTwin{fallible: true}, nil, fakeTwin{}},
			names:  []string{"", "r@x", "", "plain@x"}, sims: []string{"", "r", "", "plain"}}
		rep := &Report{Results: results}
		rr.sideBySide(rep)
		return rep, notes
	}
	rep, notes := run([]strategies.Fault{failover, {At: 1e9, Kind: strategies.AppCrash}})
	if len(rep.Tables) != 1 || rep.Tables[0].Name != "sidebyside-r" {
		t.Fatalf("tables %+v, want sidebyside-r only (plain@x heard of no failure)", rep.Tables)
	}
	tb := rep.Tables[0]
	want := map[string][2]float64{
		"ops failed in the faults":                                        {450, 420},
		"writes counted twice (final - truth)":                            {0, 3},
		"recovery from the kill, s (simulated: delay + fault_recovery_s)": {2.75, 2.6},
	}
	if len(tb.Labels) != len(want) || len(tb.Rows) != len(want) {
		t.Fatalf("rows %q %v, want %v", tb.Labels, tb.Rows, want)
	}
	for k, l := range tb.Labels {
		if w, ok := want[l]; !ok || tb.Rows[k][0] != w[0] || tb.Rows[k][1] != w[1] {
			t.Errorf("row %q: %v, want %v", l, tb.Rows[k], w)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "store_writes_extra") {
		t.Errorf("notes %q, want one naming the real rows with no simulated twin", notes)
	}
	rep, _ = run([]strategies.Fault{failover, {At: 6e9, Kind: strategies.NodeDown, Target: 0, For: 1e9}})
	if len(rep.Tables) != 1 || len(rep.Tables[0].Rows) != 2 {
		t.Errorf("two store faults: %+v, want the table without its recovery row", rep.Tables)
	}
	if rep, notes := run([]strategies.Fault{{At: 1e9, Kind: strategies.AppCrash}}); len(rep.Tables) != 0 || len(notes) != 0 {
		t.Errorf("no store fault: tables %+v, notes %q", rep.Tables, notes)
	}
}
