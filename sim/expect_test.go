package sim

import (
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// An expectation holds when every measured simulated-scale row of its
// metric does; the row shown is the first that fails; no row, or no plan
// to compare with, fails with the reason.
func TestJudge(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	row := func(metric metrics.Metric, v float64, plan *float64, scale metrics.Scale) metrics.Result {
		return metrics.Result{Strategy: "d", Metric: metric, Value: metrics.Measured(v), Plan: plan, Scale: scale}
	}
	rep := &engine.Report{Results: []metrics.Result{
		row("distinct", 10, metrics.PlanOf(10), metrics.Sim),
		row("distinct", 30, metrics.PlanOf(12), metrics.Sim),
		row("distinct", 99, metrics.PlanOf(1), metrics.Full), // another scale: not judged
		row("bytes", 5, nil, metrics.Sim),
		{Strategy: "d", Metric: "undercounts", Plan: metrics.PlanOf(0), Scale: metrics.Sim}, // plan only
	}}
	for _, c := range []struct {
		text     string
		pass     bool
		measured float64
		why      string
	}{
		{"distinct <= 30", true, 10, ""},
		{"distinct <= 20", false, 30, ""},
		{"distinct <= plan", false, 30, ""},
		{"distinct >= plan", true, 10, ""},
		{"bytes == 5", true, 5, ""},
		{"bytes <= plan", false, 5, "the row has no plan"},
		{"undercounts == 0", false, -1, "d measured no undercounts"},
		{"bytes < distinct", true, 5, ""},   // against the first distinct row, 10
		{"distinct > bytes", true, 10, ""},  // every distinct row above 5
		{"distinct < bytes", false, 10, ""}, // the first row fails
		{"bytes < undercounts", false, -1, "d measured no undercounts"},
	} {
		e, err := scenarios.ParseExpectation(c.text)
		if err != nil {
			t.Fatal(err)
		}
		v := st.JudgeOne(rep, "d", e)
		got := -1.0
		if v.Measured != nil {
			got = *v.Measured
		}
		if v.Pass != c.pass || got != c.measured || v.Why != c.why {
			t.Errorf("%s: pass %v, measured %v, why %q; want %v, %v, %q", c.text, v.Pass, got, v.Why, c.pass, c.measured, c.why)
		}
	}
}
