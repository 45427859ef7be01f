package metrics

import (
	"slices"
	"testing"
)

func TestDiff(t *testing.T) {
	row := func(strategy string, metric Metric, v, plan *float64, timing bool) Result {
		return Result{Scenario: "s", Strategy: strategy, Metric: metric, Value: v, Plan: plan, Scale: Sim, Timing: timing}
	}
	old := []Result{
		row("a", "bytes", Measured(100), PlanOf(100), false),
		row("a", "distinct", Measured(10), nil, false),
		row("a", "distinct", Measured(20), nil, false), // a second row of the same name
		row("a", "max_overestimate", Measured(656), PlanOf(1000), false),
		row("a", "ns_per_event", Measured(20), nil, true),
		row("b", "bytes", Measured(5), nil, false),
	}
	same := slices.Clone(old)
	if got := Diff(old, same, 0); len(got) != 1 || got[0].Kind != Timed {
		t.Fatalf("the same rows: got %v, want only the timing ratio", got)
	}
	new := []Result{
		row("a", "bytes", Measured(100), PlanOf(120), false),             // replanned
		row("a", "distinct", Measured(10), nil, false),                   // same
		row("a", "distinct", Measured(21), nil, false),                   // the second moved
		row("a", "max_overestimate", Measured(643), PlanOf(1000), false), // moved 2%
		row("a", "ns_per_event", Measured(40), nil, true),                // timing ×2
		row("c", "bytes", Measured(7), nil, false),                       // appeared; b vanished
	}
	var kinds []string
	for _, c := range Diff(old, new, 0) {
		kinds = append(kinds, string(c.Kind)+" "+c.Key)
	}
	want := []string{
		"plan s/a bytes (sim)", "moved s/a distinct (sim) #2", "moved s/a max_overestimate (sim)",
		"timing s/a ns_per_event (sim)", "appeared s/c bytes (sim)", "vanished s/b bytes (sim)",
	}
	if !slices.Equal(kinds, want) {
		t.Errorf("got %q\nwant %q", kinds, want)
	}
	// A tolerance of 6% lets both moves (2% and 4.8%) through; 1% not the 2%.
	for _, c := range Diff(old, new, 0.06) {
		if c.Kind == Moved {
			t.Errorf("tolerance 6%%: %v should not count", c)
		}
	}
	if c := Diff(old, new, 0.01); !slices.ContainsFunc(c, func(c Change) bool { return c.Key == "s/a max_overestimate (sim)" }) {
		t.Errorf("tolerance 1%%: the 2%% move is missing from %v", c)
	}
}
