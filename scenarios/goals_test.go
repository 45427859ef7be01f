package scenarios

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

// TestParseScaledAndUnits: NUMBER * FIGURE and byte units on the right of
// an expectation, with and without spaces, and what is refused.
func TestParseScaledAndUnits(t *testing.T) {
	for _, c := range []struct {
		text   string
		value  float64
		factor float64
		figure string
	}{
		{"max_overestimate <= 0.0001 * N", 0, 0.0001, "N"},
		{"max_key_ops_per_s<=0.7*key_capacity", 0, 0.7, "key_capacity"},
		{"x <= 2 *events", 0, 2, "events"},
		{"x <= 1_000 * keys", 0, 1000, "keys"},
		{"bytes <= 1MB", 1e6, 0, ""},
		{"bytes <= 1 MB", 1e6, 0, ""},
		{"bytes < 12KB", 12e3, 0, ""},
		{"bytes <= 1.5GB", 1.5e9, 0, ""},
		{"bytes <= 12 KiB", 12 << 10, 0, ""},
		{"bytes <= 1MiB", 1 << 20, 0, ""},
		{"bytes >= 2GiB", 2 << 30, 0, ""},
	} {
		e, err := ParseExpectation(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if e.Value != c.value || e.Factor != c.factor || e.Figure != c.figure || e.Plan || e.Other != "" {
			t.Errorf("%q: %+v, want value %v factor %v figure %q", c.text, e, c.value, c.factor, c.figure)
		}
	}
	for _, text := range []string{
		"x <= * N", "x <= 5 *", "x <= N * 5", "x <= 5 * 6", "x <= 5MB * N", "x <= 5 * Key", "x <= nan * N",
		"x <= 5 mb", "x <= 5 TB", "x <= MB", "x <= 5 5 MB", "x <= 1e308 GB", "x <= 5 * N * 2", "x <= 5 KiB MB",
	} {
		if e, err := ParseExpectation(text); err == nil {
			t.Errorf("%q: read as %+v, want an error", text, e)
		} else if !strings.Contains(err.Error(), "allowed:") {
			t.Errorf("%q: %v, want it to say what is allowed", text, err)
		}
	}
}

// TestFigureThresholds: a goal against a multiple of a figure, resolved
// from the scenario, holds at and around its threshold as its operator
// says: εN = 0.0001 × 10,000,000 = 1,000 exactly.
func TestFigureThresholds(t *testing.T) {
	src := "name: t\nworkload: {events: 10_000_000, keys: 1000}\nstrategies: [{name: e, type: exact}]\ngoals:\n  meet:\n"
	for _, op := range Ops {
		s, err := Parse("t.yaml", []byte(src+"    - \"max_overestimate "+op+" 0.0001 * N\"\n"))
		if err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		g := s.Goals.Meet[0]
		if g.Value != 1000 {
			t.Fatalf("%s: value %v, want 1000", op, g.Value)
		}
		want := map[string][5]bool{ // 999, next below, at, next above, 1001
			"<=": {true, true, true, false, false}, "<": {true, true, false, false, false}, "==": {false, false, true, false, false},
			">=": {false, false, true, true, true}, ">": {false, false, false, true, true},
		}[op]
		for i, x := range []float64{999, math.Nextafter(1000, 0), 1000, math.Nextafter(1000, 2000), 1001} {
			if got := g.Holds(x, g.Value); got != want[i] {
				t.Errorf("%v %s 1000: %v, want %v", x, op, got, want[i])
			}
		}
	}
	// An assumption, and a figure the simulation states (key_capacity
	// from the cluster when the assumptions have none).
	s, err := Parse("t.yaml", []byte("name: t\nassumptions: {headroom: 0.7, app_servers: 200}\nworkload: {keys: 1, phases: [{duration: 1s, rate: 100}]}\ncluster: {key_capacity: 10_000}\n"+
		"strategies: [{name: s, type: single-key, expect: [\"max_key_ops_per_s <= 0.7 * key_capacity\"]}]\ngoals: {meet: [\"lost_on_crash <= 0.5 * app_servers\"], confidence: 0.9, trials: 5, power_of_two: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v := s.Strategies[0].Expect[0].Value; v != 7000 {
		t.Errorf("0.7 * key_capacity = %v, want 7000", v)
	}
	if g := s.Goals; g.Meet[0].Value != 100 || g.Confidence != 0.9 || g.Trials != 5 || !g.PowerOfTwo {
		t.Errorf("goals %+v, want 0.5 × 200 = 100 at 0.9, 5 trials, powers of two", g)
	}
}

// TestGoalsErrors: bad goals name the file, the line and what is allowed.
func TestGoalsErrors(t *testing.T) {
	base := "name: t\nworkload: {events: 1000, keys: 10}\nstrategies: [{name: e, type: exact}]\n"
	for _, c := range []struct{ yaml, want string }{
		{"goals: {meet: [\"x <= 0.1 * nope\"]}\n", `t.yaml:4: "x <= 0.1 * nope": unknown figure "nope" (allowed: N, events, events, keys`},
		{"goals: {meet: [\"x <= 0.1 * key_capacity\"]}\n", `t.yaml:4: "x <= 0.1 * key_capacity": the scenario states no key_capacity`},
		{"goals: {meet: [\"x <= plan\"]}\n", `t.yaml:4: goals.meet[0]: "x <= plan" compares with the plan (allowed: a number or NUMBER * FIGURE`},
		{"goals: {meet: [\"x <= y\"]}\n", `compares with another metric`},
		{"goals: {meet: []}\n", `t.yaml:4: goals.meet: an empty list (allowed: at least one goal`},
		{"goals: {confidence: 0.9}\n", `missing required key "meet"`},
		{"goals: {meet: [\"x <= 1\"], confidence: 1}\n", `goals.confidence`},
		{"goals: {meet: [\"x <= 1\"], trials: 0}\n", `goals.trials`},
		{"goals: {meet: [\"x <= 1\"], nope: 1}\n", `unknown key "nope" (allowed: meet, confidence, trials, power_of_two)`},
	} {
		_, err := Parse("t.yaml", []byte(base+c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want it to contain %q", strings.TrimSpace(c.yaml), err, c.want)
		}
	}
}

// refParse is a plain re-implementation of the grammar, by hand and
// without regular expressions: the fuzz target holds ParseExpectation to
// it. kind is "plan", "other", "scaled" or "value".
func refParse(text string) (metric, op, kind string, value float64, name string, ok bool) {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }
	s := strings.TrimSpace(text)
	i := 0
	isMetric := func(s string) bool {
		if s == "" || s[0] < 'a' || s[0] > 'z' {
			return false
		}
		for j := range len(s) {
			c := s[j]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
		return true
	}
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || i > 0 && (s[i] >= '0' && s[i] <= '9' || s[i] == '_')) {
		i++
	}
	metric = s[:i]
	if metric == "" {
		return
	}
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	for _, o := range []string{"<=", ">=", "==", "<", ">"} {
		if strings.HasPrefix(s[i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return
	}
	i += len(op)
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	rest := s[i:]
	hasSpace := func(s string) bool { return strings.IndexAny(s, " \t\n\f\r") >= 0 }
	trim := func(s string) string { return strings.Trim(s, " \t\n\f\r") }
	plain := func(s string) (float64, bool) {
		if s == "" {
			return 0, false
		}
		v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	withUnit := func(s string) (float64, bool, bool) { // value, ok, had a unit
		for _, u := range []struct {
			u string
			m float64
		}{{"KiB", 1024}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}} {
			if left, found := strings.CutSuffix(s, u.u); found {
				left = trim(left)
				if hasSpace(left) {
					return 0, false, true
				}
				v, ok := plain(left)
				return v * u.m, ok && !math.IsInf(v*u.m, 0), true
			}
		}
		v, ok := plain(s)
		return v, ok, false
	}
	switch {
	case rest == "":
		return
	case rest == "plan":
		return metric, op, "plan", 0, "", true
	case strings.Contains(rest, "*"):
		j := strings.Index(rest, "*")
		left, right := trim(rest[:j]), trim(rest[j+1:])
		if left == "" || right == "" || hasSpace(left) || hasSpace(right) {
			return
		}
		f, okf, unit := withUnit(left)
		if !okf || unit || !(isMetric(right) || right == "N") {
			return
		}
		return metric, op, "scaled", f, right, true
	}
	v, okv, unit := withUnit(rest)
	if okv {
		return metric, op, "value", v, "", true
	}
	if unit || hasSpace(rest) || !isMetric(rest) || strings.EqualFold(rest, "nan") || strings.EqualFold(rest, "inf") {
		return
	}
	return metric, op, "other", 0, rest, true
}

// FuzzParseExpectation holds ParseExpectation to refParse: the same
// verdict, and on success the same reading; an error always says what is
// allowed.
func FuzzParseExpectation(f *testing.F) {
	for _, s := range []string{"a <= 5", "bytes <= 1MB", "bytes <= 12 KiB", "x <= 0.0001 * N", "x<=0.7*key_capacity",
		"x <= plan", "a < b", "a <= 5 * N * 2", "a <=* N", "a <= 1e308 GB", "a <= _5", "a >= -2.5e3", "a == 0x1p-2", "a <= 5 6"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e, err := ParseExpectation(text)
		metric, op, kind, value, name, ok := refParse(text)
		if (err == nil) != ok {
			t.Fatalf("%q: ParseExpectation %+v, %v; the plain reading ok=%v (%s %s %s %v %q)", text, e, err, ok, metric, op, kind, value, name)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "allowed:") {
				t.Fatalf("%q: %v, want it to say what is allowed", text, err)
			}
			return
		}
		got := "value"
		switch {
		case e.Plan:
			got = "plan"
		case e.Other != "":
			got = "other"
		case e.Figure != "":
			got = "scaled"
		}
		gotValue, gotName := e.Value, e.Other+e.Figure
		if got == "scaled" {
			gotValue = e.Factor
		}
		if e.Metric != metric || e.Op != op || got != kind || gotValue != value || gotName != name {
			t.Fatalf("%q: read as %s %s %s %v %q, the plain reading %s %s %s %v %q", text, e.Metric, e.Op, got, gotValue, gotName, metric, op, kind, value, name)
		}
	})
}
