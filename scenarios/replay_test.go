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

// TestEdit: a path reaches a top-level key and a step's by its name; Set
// adds a missing key; a missing step, a key under a scalar and a value that
// is not one YAML value are errors; the edited text parses, its comments
// kept, its expectations gone once dropped.
func TestEdit(t *testing.T) {
	src, err := BuiltinSource("cricket-final")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEdit(src)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := e.Get("steps[views].cluster.nodes"); err != nil || !strings.HasPrefix(got, "8 #") {
		t.Errorf("the views step's nodes: %q, %v", got, err)
	}
	for _, c := range []struct{ path, value string }{{"name", "small"}, {"steps[views].cluster.nodes", "4"}, {"steps[views].cluster.node_capacity", "50000"}} {
		if err := e.Set(c.path, c.value); err != nil {
			t.Fatalf("Set(%s): %v", c.path, err)
		}
		if got, err := e.Get(c.path); err != nil || got != c.value+"\n" {
			t.Errorf("Get(%s) after Set: %q, %v", c.path, got, err)
		}
	}
	for _, c := range []struct{ path, value, want string }{
		{"steps[nope].cluster", "1", `no step "nope"`},
		{"seed.x", "1", "seed is not a mapping"},
		{"name", "a: [", "is not one YAML value"},
	} {
		if err := e.Set(c.path, c.value); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%s, %q): %v, want %q", c.path, c.value, err, c.want)
		}
	}
	if _, err := e.Get("steps[views].nope"); err == nil {
		t.Error("Get of a missing key")
	}
	e.DropExpectations()
	out, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Parse("x.yaml", out)
	if err != nil {
		t.Fatalf("the edited scenario: %v\n%s", err, out)
	}
	if c := s.Steps[0].Cluster; s.Name != "small" || c.Nodes != 4 || c.NodeCapacity != 50000 || !strings.Contains(string(out), "# ") {
		t.Errorf("edited: name %q, cluster %+v", s.Name, c)
	}
	for _, st := range s.Steps {
		for _, d := range st.Strategies {
			if len(d.Expect)+len(d.Shows) > 0 {
				t.Errorf("%s keeps its expectations", d.Name)
			}
		}
	}
}
