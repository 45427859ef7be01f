package scenarios

import (
	"errors"
	"strings"
	"testing"
)

// mustSets parses -set arguments a test gives.
func mustSets(t *testing.T, args ...string) []Set {
	t.Helper()
	sets, err := ParseSets(args)
	if err != nil {
		t.Fatal(err)
	}
	return sets
}

func stepNamed(t *testing.T, s *Scenario, name string) *Scenario {
	t.Helper()
	for _, st := range s.Steps {
		if st.Step == name {
			return st
		}
	}
	t.Fatalf("no step %s", name)
	return nil
}

func paramOf(t *testing.T, s *Scenario, design, key string) any {
	t.Helper()
	for _, st := range s.Strategies {
		if st.Name == design {
			for _, p := range st.Params {
				if p.Key == key {
					return p.Value
				}
			}
			t.Fatalf("%s has no parameter %s", design, key)
		}
	}
	t.Fatalf("no design %s", design)
	return nil
}

func TestSetReplacesAndAddsKeys(t *testing.T) {
	base, err := Builtin("cricket-final")
	if err != nil {
		t.Fatal(err)
	}
	s, err := Builtin("cricket-final", mustSets(t,
		"assumptions.key_capacity=5000",
		"steps[views].workload.phases[0].rate=400_000",
		"steps[0].strategies[striped-32].params.stripes=64",
		"steps[views].strategies[single-key].params.select=random", // a key the file does not give: added
		"steps[viewers].cluster.nodes=6",
	)...)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Assumptions.KeyCapacity; got != 5000 {
		t.Errorf("key_capacity %v, want 5000", got)
	}
	views := stepNamed(t, s, "views")
	if got := views.Assumptions.KeyCapacity; got != 5000 {
		t.Errorf("the step's key_capacity %v, want the top's 5000", got)
	}
	if r, ok := views.Run.(*Timed); !ok || r.Phases[0].Rate != 400_000 {
		t.Errorf("views' phase: %#v, want a rate of 400,000", views.Run)
	}
	if got := paramOf(t, views, "striped-32", "stripes"); got != int64(64) {
		t.Errorf("stripes %v (%T), want 64", got, got)
	}
	if got := paramOf(t, views, "single-key", "select"); got != "random" {
		t.Errorf("select %v, want random", got)
	}
	if got := stepNamed(t, s, "viewers").Cluster.Nodes; got != 6 {
		t.Errorf("viewers' nodes %d, want 6", got)
	}
	// What no Set touched is as the file says.
	if a, b := stepNamed(t, base, "leaderboard"), stepNamed(t, s, "leaderboard"); a.Cluster.Nodes != b.Cluster.Nodes || len(a.Strategies) != len(b.Strategies) {
		t.Errorf("leaderboard changed: %d nodes, %d designs against %d, %d", b.Cluster.Nodes, len(b.Strategies), a.Cluster.Nodes, len(a.Strategies))
	}
	if len(s.Sets) != 5 || s.Sets[0] != "assumptions.key_capacity=5000" || len(views.Sets) != 5 {
		t.Errorf("Sets %q, step's %q: want the five arguments in order", s.Sets, views.Sets)
	}
	if len(base.Sets) != 0 {
		t.Errorf("a scenario without -set lists %q", base.Sets)
	}
}

func TestSetLaterWins(t *testing.T) {
	s, err := Builtin("search", mustSets(t, "questions.top=20", "questions.top=30")...)
	if err != nil {
		t.Fatal(err)
	}
	if s.Questions.Top != 30 {
		t.Errorf("top %d, want the later Set's 30", s.Questions.Top)
	}
}

func TestSetFlowValues(t *testing.T) {
	s, err := Builtin("search", mustSets(t, `strategies[count-min].expect=["bytes > 0"]`)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range s.Strategies {
		if st.Name == "count-min" && (len(st.Expect) != 1 || st.Expect[0].Text != "bytes > 0") {
			t.Errorf("count-min's expect %v, want the one the Set gave", st.Expect)
		}
	}
}

// Every refusal names the -set argument, what is wrong, and what is
// allowed; none names a line of the file as if the file said it.
func TestSetRefusals(t *testing.T) {
	for _, c := range []struct {
		scenario string
		arg      string
		want     []string
	}{
		{"cricket-final", "assumptions.key_capacity=abc", []string{"-set assumptions.key_capacity=abc", "assumptions.key_capacity", "number"}},
		{"cricket-final", "assumptions.key_capacty=5", []string{"-set assumptions.key_capacty=5", `did you mean "key_capacity"`}},
		{"cricket-final", "assumptions.key_capacity=-5", []string{"-set assumptions.key_capacity=-5", "> 0"}},
		{"cricket-final", "assumptions.key_capacity=", []string{"-set assumptions.key_capacity=", "missing value"}},
		{"cricket-final", "workload.phases[0].rate=1", []string{"told in steps", "steps[views].workload.phases[0].rate", "views, viewers, leaderboard"}},
		{"cricket-final", "steps[view].cluster.nodes=4", []string{"no entry of steps is named \"view\"", `did you mean "views"`}},
		{"cricket-final", "steps[9].cluster.nodes=4", []string{"steps has 3 entries", "[0] to [2]"}},
		{"cricket-final", "steps[views].workload.phases[peak].rat=1", []string{`did you mean "rate"`, "-set steps[views]"}},
		{"cricket-final", "title.x=1", []string{"title is", "no keys"}},
		{"cricket-final", "assumptions[0]=1", []string{"assumptions", "not a list"}},
		{"search", "questions.top=[1", []string{"not YAML"}},
		{"search", "seed=1\n---\n2", []string{"more than one YAML document"}},
		{"search", "workload.events=&a 5", []string{"-set workload.events=&a 5", "anchor"}},
	} {
		sets, err := ParseSets([]string{c.arg})
		if err == nil {
			_, err = Builtin(c.scenario, sets...)
		}
		if err == nil {
			t.Errorf("%s -set %q: accepted", c.scenario, c.arg)
			continue
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Errorf("%s -set %q: %T, want *Error", c.scenario, c.arg, err)
		}
		msg := err.Error()
		for _, w := range append(c.want, "-set ") {
			if !strings.Contains(msg, w) {
				t.Errorf("%s -set %q: %q does not say %q", c.scenario, c.arg, msg, w)
			}
		}
	}
}

// An entry of a list a -set before emptied is refused as an empty list's.
func TestSetEntryOfEmptyList(t *testing.T) {
	_, err := Builtin("cricket-final", mustSets(t, "steps[views].faults=[]", "steps[views].faults[0].at=1s")...)
	if err == nil || !strings.Contains(err.Error(), "-set steps[views].faults[0].at=1s: steps[views].faults[0]: faults is an empty list") {
		t.Errorf("got %v, want the empty list named", err)
	}
}

func TestParseSetGrammar(t *testing.T) {
	ok := map[string][]PathSeg{
		"seed=2":                      {{Key: "seed"}},
		"a.b[0].c=x":                  {{Key: "a"}, {Key: "b", Indexed: true}, {Key: "c"}},
		"strategies[cm].params.eps=1": {{Key: "strategies", Indexed: true, Name: "cm"}, {Key: "params"}, {Key: "eps"}},
		"x[12]=":                      {{Key: "x", Indexed: true, Index: 12}},
		"steps[a-b_c].name=v=w":       {{Key: "steps", Indexed: true, Name: "a-b_c"}, {Key: "name"}},
	}
	for arg, want := range ok {
		s, err := ParseSet(arg)
		if err != nil {
			t.Errorf("%q: %v", arg, err)
			continue
		}
		if pathString(s.Path) != pathString(want) || len(s.Path) != len(want) {
			t.Errorf("%q: path %s, want %s", arg, pathString(s.Path), pathString(want))
		}
		for i := range want {
			if s.Path[i] != want[i] {
				t.Errorf("%q: segment %d %+v, want %+v", arg, i, s.Path[i], want[i])
			}
		}
	}
	if s, _ := ParseSet("steps[a-b_c].name=v=w"); s.Value != "v=w" {
		t.Errorf("value %q, want everything after the first '='", s.Value)
	}
	for _, arg := range []string{"seed", "=5", " =5", "a..b=1", "a.=1", "a[=1", "a[]=1", "a[1]b=1", "a[1][2]=1", "a[-1]=1", "[0]=1", "a b=1"} {
		if _, err := ParseSet(arg); err == nil {
			t.Errorf("%q: accepted", arg)
		} else if !strings.Contains(err.Error(), "-set "+arg) || !strings.Contains(err.Error(), "allowed: PATH=VALUE") {
			t.Errorf("%q: %q does not name the argument and the grammar", arg, err)
		}
	}
}

// FuzzSet: any -set on a built-in scenario gives a scenario or an *Error
// naming the argument, never a panic.
func FuzzSet(f *testing.F) {
	for _, seed := range []string{"assumptions.key_capacity=5000", "steps[views].workload.phases[0].rate=1", "steps[0].strategies[striped-32].params.stripes=[1]",
		"questions.top={a: 1}", "a[b].c=", "steps[views]=x", "steps=[]", "strategies[0]={name: x, type: hll}"} {
		f.Add("cricket-final", seed)
		f.Add("search", seed)
	}
	f.Fuzz(func(t *testing.T, scenario, arg string) {
		if scenario != "search" {
			scenario = "cricket-final"
		}
		sets, err := ParseSets([]string{arg})
		if err == nil {
			_, err = Builtin(scenario, sets...)
		}
		if err == nil {
			return
		}
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("%q: %T %v, want *Error", arg, err, err)
		}
	})
}
