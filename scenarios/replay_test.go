package scenarios

import (
	"strings"
	"testing"
)

// TestReplay: a step's replay is a scenario of its own — the top level's
// keys (seed, assumptions), the step's cluster, faults and designs, its
// workload the log's — that parses as written; a cut stream's replay
// keeps no expectation; a missing step is an error.
func TestReplay(t *testing.T) {
	src, err := BuiltinSource("cricket-final")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := Builtin("cricket-final")
	if err != nil {
		t.Fatal(err)
	}
	var step *Scenario
	for _, st := range orig.Steps {
		if st.Step == "views" {
			step = st
		}
	}
	if step == nil {
		t.Fatal("cricket-final has no step views")
	}
	workload := [][2]string{{"file", "views.csv"}, {"format", "csv"}, {"as", "timed"}, {"key", "key"}, {"time", "time"}, {"op", "op"}}
	for _, cut := range []bool{false, true} {
		text, err := Replay(src, "views", workload, cut)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse("team/replay.yaml", text)
		if err != nil {
			t.Fatalf("cut %v: the replay does not parse: %v\n%s", cut, err, text)
		}
		l, ok := s.Run.(*Log)
		switch {
		case !ok || l.As != "timed" || l.File != "views.csv":
			t.Errorf("cut %v: run %+v", cut, s.Run)
		case s.Name != "cricket-final-views-replay" || len(s.Steps) != 0 || s.Seed != orig.Seed:
			t.Errorf("cut %v: name %q, %d steps, seed %d", cut, s.Name, len(s.Steps), s.Seed)
		case s.Cluster == nil || s.Cluster.Nodes != step.Cluster.Nodes || len(s.Faults) != len(step.Faults) || len(s.Faults) == 0:
			t.Errorf("cut %v: cluster %+v, faults %v", cut, s.Cluster, s.Faults)
		case s.Assumptions.KeyCapacity != orig.Assumptions.KeyCapacity:
			t.Errorf("cut %v: key capacity %v", cut, s.Assumptions.KeyCapacity)
		case len(s.Strategies) != len(step.Strategies):
			t.Errorf("cut %v: %d designs, the step has %d", cut, len(s.Strategies), len(step.Strategies))
		}
		expects := 0
		for _, d := range s.Strategies {
			expects += len(d.Expect) + len(d.Shows)
		}
		if cut && expects > 0 || !cut && expects == 0 {
			t.Errorf("cut %v: %d expectations kept", cut, expects)
		}
		if !strings.Contains(string(text), "# One key lives on one server") && !strings.Contains(string(text), "#") {
			t.Errorf("cut %v: the comments are gone", cut)
		}
	}
	if _, err := Replay(src, "nope", workload, false); err == nil || !strings.Contains(err.Error(), `no step "nope"`) {
		t.Errorf("a missing step: %v", err)
	}
	if _, err := Replay([]byte("- a\n"), "", workload, false); err == nil {
		t.Error("a list took as a scenario")
	}
}
