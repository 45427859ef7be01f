package sim

import (
	"context"
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// Every row a built-in scenario measures, of a design or of the truth, is
// among what its kind says it reports: the list the expectations are
// checked against at load time never refuses a metric the run measures.
func TestReportsCoverScoring(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every built-in scenario; the full suite runs it")
	}
	names, err := scenarios.DefaultBuiltins()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		scn, err := scenarios.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		steps := scn.Steps
		if len(steps) == 0 {
			steps = []*scenarios.Scenario{scn}
		}
		for _, step := range steps {
			st, err := engine.Prepare(step, engine.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := st.Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rep.Results {
				if r.Value == nil {
					continue
				}
				var d *engine.Design
				for i := range st.Members {
					if st.Members[i].Name() == r.Strategy {
						d = &st.Members[i]
					}
				}
				if d == nil && r.Strategy != engine.TruthName(st.Scenario) {
					t.Fatalf("%s: a row of %q, neither a design nor the truth", step.ID(), r.Strategy)
				}
				if !slices.Contains(st.Kind.Reports(d), metrics.Metric(r.Metric)) {
					t.Errorf("%s: %s measured %s, which its kind does not list", step.ID(), r.Strategy, r.Metric)
				}
			}
		}
	}
}
