package main

import (
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/report"
)

// TestCurate: the charts a report draws of a run's series. A size swept
// (counters) loses its curve against the size, the twin of its curve
// against memory; a duration swept (a push interval) keeps it. One
// design's curve without a plan against memory goes where the chart of
// every design swept draws it (node's against its cycle stays). A swept
// entry's overestimate histograms are one figure, a panel a value, on a log
// axis, the bound named once in the legend and its value in the panel's
// title. A design with a guarantee N/m has it drawn on its histogram, and
// its sweep's overestimates against memory have N/m's curve beside them.
func TestCurate(t *testing.T) {
	sweeps := []sweepOf{
		{scenario: "s", step: "a", name: "ss", key: "counters", members: []string{"ss-counters-30", "ss-counters-300"}, values: []string{"30", "300"}, sized: true},
		{scenario: "s", step: "a", name: "node", key: "cycle", members: []string{"node-cycle-1s", "node-cycle-5s"}, values: []string{"1s", "5s"}},
	}
	plan := func(design string, v float64) metrics.Result {
		return metrics.Result{Scenario: "s", Strategy: design, Metric: metrics.GuaranteeAbove, Plan: metrics.PlanOf(v), Scale: metrics.Sim,
			Note: "N/m: a key counted more often is always monitored"}
	}
	results := []metrics.Result{plan("ss-counters-30", 1000), plan("ss-counters-300", 100)}
	curve := func(name, strategy string) metrics.Series {
		return metrics.Series{Scenario: "s", Step: "a", Strategy: strategy, Name: name, Kind: metrics.Curve, X: []float64{2448, 29088}, Y: []float64{900, 90}}
	}
	hist := func(design string) metrics.Series {
		return metrics.Series{Scenario: "s", Step: "a", Strategy: design, Name: "overestimate-" + design, Kind: metrics.Distribution,
			Title: design + ": overestimate per key (1,000 keys)", XLabel: "estimate − true count", Values: []float64{1, 2, 3}}
	}
	series := []metrics.Series{
		curve("sweep-ss-topk_recall", "ss (measured)"),
		curve("sweep-ss-topk_recall-by-counters", "ss (measured)"),
		curve("sweep-node-topk_recall", "node (measured)"),
		curve("sweep-node-topk_recall-by-cycle", "node (measured)"),
		curve("sweep-ss-max_overestimate", "ss (measured)"),
		curve("sweeps-topk_recall", "ss"),
		hist("ss-counters-30"), hist("ss-counters-300"),
		hist("lone"),
	}
	got := curate(sweeps, results, series)
	var names []string
	for _, s := range got {
		names = append(names, s.Name+"/"+s.Strategy)
	}
	want := []string{
		"sweep-node-topk_recall-by-cycle/node (measured)",
		"sweep-ss-max_overestimate/ss (measured)",
		"sweep-ss-max_overestimate/ss (plan: N/m)",
		"sweeps-topk_recall/ss",
		"overestimate-ss/", "overestimate-ss/",
		"overestimate-lone/lone",
	}
	if !slices.Equal(names, want) {
		t.Fatalf("curated series:\n%q\nwant:\n%q", names, want)
	}
	if p := got[2]; !slices.Equal(p.Y, []float64{1000, 100}) || !slices.Equal(p.X, got[1].X) {
		t.Errorf("N/m's curve %v at %v, want [1000 100] at the measured curve's X %v", p.Y, p.X, got[1].X)
	}
	for i, want := range []string{"counters = 30, N/m = 1,000", "counters = 300, N/m = 100"} {
		h := got[4+i]
		if h.Panel != want || !h.LogX || h.XLabel != "estimate − true count (log)" || len(h.Marks) != 1 || h.Marks[0].Label != "N/m" ||
			h.Title != "ss: overestimate per key (1,000 keys), a panel a counters" {
			t.Errorf("histogram %d: panel %q, log X %v (%q), marks %+v, title %q; want panel %q on a log axis, one mark named N/m",
				i, h.Panel, h.LogX, h.XLabel, h.Marks, h.Title, want)
		}
	}
	if lone := got[6]; len(lone.Marks) != 0 || lone.Panel != "" {
		t.Errorf("a design with no guarantee and no sweep: marks %+v, panel %q", lone.Marks, lone.Panel)
	}
	if len(series[6].Marks) != 0 || series[6].Name != "overestimate-ss-counters-30" {
		t.Error("curate changed the run's series")
	}
}

// TestAnswers: the chart that answers a step is the one whose metrics its
// expectations judge most; a chart of every design swept comes first,
// recall's before the others'.
func TestAnswers(t *testing.T) {
	var vs []report.Verdict
	for _, m := range []string{"max_node_ops_per_s", "max_node_ops_per_s", "max_key_ops_per_s"} {
		vs = append(vs, report.Verdict{Design: "d", Metric: m, Pass: true})
	}
	best := func(names ...string) string {
		b := 0
		for i, n := range names {
			if answers(n, vs) > answers(names[b], vs) {
				b = i
			}
		}
		return names[b]
	}
	if got := best("backlog", "key-load", "node-load", "staleness"); got != "node-load" {
		t.Errorf("answer %s, want node-load (two verdicts on the busiest node, one on the busiest key)", got)
	}
	if got := best("node-load", "sweeps-topk_count_error_mean", "sweeps-topk_recall"); got != "sweeps-topk_recall" {
		t.Errorf("answer %s, want sweeps-topk_recall", got)
	}
}
