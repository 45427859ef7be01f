package size_test

import (
	"context"
	"testing"

	"countsim/scenarios"
	_ "countsim/sim" // the kinds of run
	"countsim/sim/size"
)

// BenchmarkSizeSizing sizes every step of the built-in sizing scenario:
// what `countsim size sizing` does but print. It reports the trial runs
// the searches took and the designs sized.
func BenchmarkSizeSizing(b *testing.B) {
	scn, err := scenarios.Builtin("sizing")
	if err != nil {
		b.Fatal(err)
	}
	var runs, designs int
	for b.Loop() {
		runs, designs = 0, 0
		for _, step := range scn.Steps {
			got, err := size.Size(context.Background(), step, size.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range got {
				runs += s.Runs
				if s.Found != nil {
					designs++
				}
			}
		}
	}
	b.ReportMetric(float64(runs), "trial-runs/op")
	b.ReportMetric(float64(designs), "designs-met/op")
}

// TestSizingBuiltin: every design of the built-in sizing scenario meets
// its goals, within the budget of trial runs, and its sizes are the plans
// inverted where the plan is exact (count-min's w and d, stripes).
func TestSizingBuiltin(t *testing.T) {
	if testing.Short() {
		t.Skip("sizes the built-in sizing scenario (seconds)")
	}
	scn, err := scenarios.Builtin("sizing")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]int64{
		"count-min": {"width": 27183, "depth": 5}, // ⌈e·N/T⌉ with N = 2·10^6, T = 200
		"striped":   {"stripes": 29},              // ⌈200,000 / 7,000⌉
		"hll":       {"p": 17},                    // 2.576 × 1.04/√m ≤ 1%
	}
	for _, step := range scn.Steps {
		got, err := size.Size(context.Background(), step, size.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range got {
			if s.Found == nil {
				t.Errorf("%s %s: no size met the goals (%s)", s.Scenario, s.Design, s.Skipped)
				continue
			}
			if s.Runs > size.DefaultMaxRuns {
				t.Errorf("%s: %d trial runs, over the budget of %d", s.Design, s.Runs, size.DefaultMaxRuns)
			}
			for key, v := range want[s.Design] {
				for _, p := range s.Found.Params {
					if p.Key == key && p.Value != v {
						t.Errorf("%s: %s %v, want %d", s.Design, key, p.Value, v)
					}
				}
			}
		}
	}
}
