package scenarios

import (
	"math"
	"strings"
	"testing"
)

// TestParseExpectation: the grammar of an expectation, at its edges: each
// operator with and without spaces (<= is never < followed by "=5"),
// numbers as YAML writes them, plan, another metric; what is not an
// expectation is refused with what is allowed.
func TestParseExpectation(t *testing.T) {
	for _, c := range []struct {
		text, metric, op string
		value            float64
		plan             bool
		other            string
	}{
		{"a<=5", "a", "<=", 5, false, ""},
		{"a<5", "a", "<", 5, false, ""},
		{"a==5", "a", "==", 5, false, ""},
		{"a>=5", "a", ">=", 5, false, ""},
		{"a>5", "a", ">", 5, false, ""},
		{"  count_error   ==   0  ", "count_error", "==", 0, false, ""},
		{"bytes <= 600_000", "bytes", "<=", 600_000, false, ""},
		{"x >= -2.5", "x", ">=", -2.5, false, ""},
		{"x < 1e-6", "x", "<", 1e-6, false, ""},
		{"x > 1.5e3", "x", ">", 1500, false, ""},
		{"x <= plan", "x", "<=", 0, true, ""},
		{"planted_node_max < local_kth_min", "planted_node_max", "<", 0, false, "local_kth_min"},
		{"x2 == y_3", "x2", "==", 0, false, "y_3"},
	} {
		e, err := ParseExpectation(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if e.Metric != c.metric || e.Op != c.op || e.Value != c.value || e.Plan != c.plan || e.Other != c.other || e.Text != strings.TrimSpace(c.text) || e.Trap {
			t.Errorf("%q: %+v, want metric %s op %s value %v plan %v other %q", c.text, e, c.metric, c.op, c.value, c.plan, c.other)
		}
	}
	for _, text := range []string{
		"", "a", "a <=", "<= 5", "a = 5", "a =< 5", "a => 5", "a != 5", "a <> 5", "a <== 5", "A <= 5", "1a <= 5",
		"a <= 5 6", "a <= nan", "a <= NaN", "a <= inf", "a <= -Inf", "a <= 1e999", "a <= Plan", "a <= 5%", "a <= b-c",
	} {
		if e, err := ParseExpectation(text); err == nil {
			t.Errorf("%q: read as %+v, want an error", text, e)
		} else if !strings.Contains(err.Error(), "allowed:") {
			t.Errorf("%q: %v, want it to say what is allowed", text, err)
		}
	}
}

// TestHolds: each operator below, at and above its right-hand side, for
// integers, fractions and the next float either way.
func TestHolds(t *testing.T) {
	want := map[string][3]bool{ // below, at, above
		"<=": {true, true, false}, "<": {true, false, false}, "==": {false, true, false},
		">=": {false, true, true}, ">": {false, false, true},
	}
	for _, op := range Ops {
		for _, rhs := range []float64{0, 1, -1, 0.7, 1e-6, 2e7} {
			for i, x := range []float64{math.Nextafter(rhs, math.Inf(-1)), rhs, math.Nextafter(rhs, math.Inf(1))} {
				if got := (Expectation{Op: op}).Holds(x, rhs); got != want[op][i] {
					t.Errorf("%v %s %v: %v, want %v", x, op, rhs, got, want[op][i])
				}
			}
			if math.Trunc(rhs) == rhs {
				if got := (Expectation{Op: op}).Holds(rhs-1, rhs); got != want[op][0] {
					t.Errorf("%v %s %v: %v, want %v", rhs-1, op, rhs, got, want[op][0])
				}
				if got := (Expectation{Op: op}).Holds(rhs+1, rhs); got != want[op][2] {
					t.Errorf("%v %s %v: %v, want %v", rhs+1, op, rhs, got, want[op][2])
				}
			}
		}
	}
	if (Expectation{Op: "!="}).Holds(1, 2) {
		t.Error("an unknown operator holds")
	}
}

// TestShows: a shows: list, under a design, at the top and in a step, is
// read as expect: is, with its lines, and marked a trap; expect: never is.
func TestShows(t *testing.T) {
	src := `name: x
workload: {events: 1000, keys: 10}
expect: ["events == plan"]
shows: ["events > 0"]
strategies:
  - name: a
    type: exact
    expect: ["undercounts == 0"]
    shows:
      - "max_overestimate >= 0"
      - "bytes > 1"
`
	s, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	check := func(who string, es []Expectation, trap bool, lines ...int) {
		t.Helper()
		if len(es) != len(lines) {
			t.Fatalf("%s: %d items, want %d", who, len(es), len(lines))
		}
		for i, e := range es {
			if e.Trap != trap || e.Pos.Line != lines[i] || e.Pos.File != "x.yaml" {
				t.Errorf("%s[%d] %q: trap %v at %v, want trap %v at line %d", who, i, e.Text, e.Trap, e.Pos, trap, lines[i])
			}
		}
	}
	check("expect", s.Expect, false, 3)
	check("shows", s.Shows, true, 4)
	check("a.expect", s.Strategies[0].Expect, false, 8)
	check("a.shows", s.Strategies[0].Shows, true, 10, 11)

	steps := `name: x
steps:
  - name: one
    workload: {events: 1000, keys: 10}
    shows: ["events > 0"]
    strategies:
      - name: a
        type: exact
        shows: ["bytes > 1"]
`
	s, err = Parse("x.yaml", []byte(steps))
	if err != nil {
		t.Fatal(err)
	}
	check("step shows", s.Steps[0].Shows, true, 5)
	check("step a.shows", s.Steps[0].Strategies[0].Shows, true, 9)

	for _, c := range []struct{ src, want string }{
		{strings.Replace(src, `shows: ["events > 0"]`, `shows: "events > 0"`, 1), `x.yaml:4: shows: "events > 0" is not a list`},
		{strings.Replace(src, `- "bytes > 1"`, `- "bytes >> 1"`, 1), `x.yaml:11: strategies[0].shows[1]: "bytes >> 1" is not an expectation`},
		{strings.Replace(src, `- "bytes > 1"`, `- 7`, 1), `x.yaml:11: strategies[0].shows[1]: 7 is not a string`},
	} {
		_, err := Parse("x.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want it to contain %q", err, c.want)
		}
	}
}
