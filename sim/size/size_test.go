package size_test

import (
	"context"
	"testing"

	"countsim/scenarios"
	_ "countsim/sim" // the kinds of run
	"countsim/sim/size"
)

func sizeOf(t *testing.T, src string) []size.Sized {
	t.Helper()
	scn, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	steps := scn.Steps
	if len(steps) == 0 {
		steps = []*scenarios.Scenario{scn}
	}
	var out []size.Sized
	for _, st := range steps {
		got, err := size.Size(context.Background(), st, size.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, got...)
	}
	return out
}

func TestDebug(t *testing.T) {
	got := sizeOf(t, `
name: t
workload: {events: 10_000_000, keys: 1_000_000, distribution: zipf, s: 1.0, scramble: true, batch: 4096}
questions: {top: 10}
strategies:
  - {name: cm, type: count-min, params: {epsilon: 0.01, delta: 0.1}}
goals:
  meet: ["max_overestimate <= 0.0001 * N"]
  confidence: 0.99
  trials: 2
`)
	for _, s := range got {
		t.Logf("%s %s closed %v (%s) runs %d skipped %q", s.Design, s.Knob, s.Closed, s.ClosedNote, s.Runs, s.Skipped)
		for _, p := range s.Tried {
			t.Logf("  %v %v pass %v bytes %v err %s", p.Value, p.Params, p.Pass, p.Bytes, p.Err)
			for _, c := range p.Checks {
				t.Logf("    %s worst %v %s", c.Goal.Text, c.Worst, c.Note(0.99, 1e-6))
			}
		}
	}
}
