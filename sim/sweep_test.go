package sim

import (
	"context"
	"slices"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/sim/engine"
)

const sweepYAML = `name: sw
seed: 2
workload: {events: 200000, keys: 20000, s: 1}
strategies:
  - name: cm
    type: count-min
    params: {depth: 4}
    sweep: {width: [100, 200, 400, 800, 1600, 3200]}
`

// A sweep runs one design a value, on the same events, and draws the
// largest overestimate against the bytes with the plan's εN beside it.
func TestSweep(t *testing.T) {
	st := prepare(t, sweepYAML, engine.Options{})
	var names []string
	for _, d := range st.Members {
		names = append(names, d.Name())
	}
	if want := []string{"cm-width-100", "cm-width-200", "cm-width-400", "cm-width-800", "cm-width-1600", "cm-width-3200"}; !slices.Equal(names, want) {
		t.Fatalf("designs %q, want %q", names, want)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var measured, plan []float64
	var xs []float64
	for _, s := range rep.Series {
		if s.Name != "sweep-cm-max_overestimate" {
			continue
		}
		switch s.Strategy {
		case "cm (measured)":
			measured, xs = s.Y, s.X
		case "cm (plan)":
			plan = s.Y
		}
	}
	if len(measured) != 6 || len(plan) != 6 || !slices.IsSorted(xs) || xs[0] != 4*100*4 || xs[5] != 4*3200*4 {
		t.Fatalf("curve x %v, measured %v, plan %v: want 6 points at 4·w·4 bytes", xs, measured, plan)
	}
	for i := 1; i < 6; i++ {
		if plan[i] >= plan[i-1] || measured[5] >= measured[0] {
			t.Fatalf("the plan εN = eN/w must fall with w: %v; and the measurement too: %v", plan, measured)
		}
	}
}

// A sweep's own errors name the line: a value its parameter refuses, a
// sweep that is not one parameter and a list, a name already taken.
func TestSweepErrors(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"[100, 200, 400, 800, 1600, 3200]", "[100, 0]", "sw.yaml:8: strategies[0].params.width: 0 is out of range (allowed: 1..268435456)"},
		{"{width: [100, 200, 400, 800, 1600, 3200]}", "{width: 100}", "sw.yaml:8: strategies[0].sweep.width: 100 is not a list of 2 to 50 values"},
		{"{width: [100, 200, 400, 800, 1600, 3200]}", "{width: [1], depth: [2]}", "is not a sweep (allowed: a mapping of one parameter"},
	} {
		scn, err := scenarios.Parse("sw.yaml", []byte(strings.Replace(sweepYAML, c.old, c.new, 1)))
		if err == nil {
			_, err = engine.Prepare(scn, engine.Options{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.new, err, c.want)
		}
	}
	dup := sweepYAML + "  - {name: cm-width-200, type: exact}\n"
	scn, err := scenarios.Parse("sw.yaml", []byte(dup))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Prepare(scn, engine.Options{}); err == nil || !strings.Contains(err.Error(), "has the name of another design") {
		t.Errorf("a taken name: got %v", err)
	}
}

// A swept duration is drawn in seconds, and its axis says so.
func TestSweepDurationLabel(t *testing.T) {
	spec := scenarios.Strategy{Name: "nl", Sweep: &scenarios.Sweep{Key: "cycle", Values: []any{"1s", "500ms"}, At: make([]scenarios.Pos, 2)}}
	ms := engine.SweepMembers(spec)
	if len(ms) != 2 || ms[0].Sweep.Value != 1 || ms[1].Sweep.Value != 0.5 || ms[0].Sweep.Label() != "cycle (s)" {
		t.Errorf("members %+v %+v, want 1 and 0.5 s, labelled \"cycle (s)\"", ms[0].Sweep, ms[1].Sweep)
	}
	spec.Sweep = &scenarios.Sweep{Key: "width", Values: []any{int64(10), int64(20)}, At: make([]scenarios.Pos, 2)}
	if l := engine.SweepMembers(spec)[0].Sweep.Label(); l != "width" {
		t.Errorf("label %q, want width", l)
	}
}
