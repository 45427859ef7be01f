package size

import (
	"math"
	"testing"

	"countsim/scenarios"
)

// goal parses one goal or fails the test.
func goal(t *testing.T, text string, value float64) scenarios.Expectation {
	t.Helper()
	e, err := scenarios.ParseExpectation(text)
	if err != nil {
		t.Fatal(err)
	}
	if e.Figure != "" {
		e.Value = e.Factor * value
	}
	return e
}

// TestClosedForms: each plan inverted, against the numbers worked by
// hand in the issue and the seeds.
func TestClosedForms(t *testing.T) {
	step := &scenarios.Scenario{Goals: &scenarios.Goals{Trials: 1}}
	cases := []struct {
		typ   string
		goals []scenarios.Expectation
		c     sizing
		want  float64
	}{
		// w = ⌈e/ε⌉ with εN = 0.0001 × 10^7 = 1,000: ⌈27,182.8⌉.
		{"count-min", []scenarios.Expectation{goal(t, "max_overestimate <= 0.0001 * N", 1e7)}, sizing{n: 1e7, conf: 0.99}, 27183},
		// Space-Saving overcounts by at most N/m: m = 10^7 / 1,000.
		{"space-saving", []scenarios.Expectation{goal(t, "max_overestimate <= 1000", 0)}, sizing{n: 1e7, conf: 0.99}, 10000},
		// Every key above N/m is monitored: m > 10^7 / 69,479.5 = 143.9.
		{"space-saving", []scenarios.Expectation{goal(t, "topk_recall == 1", 0)}, sizing{n: 1e7, k: 10, kth: 69479.5}, 144},
		// Misra-Gries holds every key above N/(k+1): k + 1 > 143.9.
		{"misra-gries", []scenarios.Expectation{goal(t, "topk_recall == 1", 0)}, sizing{n: 1e7, k: 10, kth: 69479.5}, 143},
		// K = ⌈200,000 / (0.7 × 10,000)⌉ = ⌈28.57⌉.
		{"striped", []scenarios.Expectation{goal(t, "max_key_ops_per_s <= 0.7 * key_capacity", 10000)}, sizing{sim: scenarios.Assumptions{PeakRate: 200000, KeyCapacity: 10000}}, 29},
		// Exactly at a whole number: 140,000 / 7,000 = 20, not 21.
		{"striped", []scenarios.Expectation{goal(t, "max_key_ops_per_s <= 7000", 0)}, sizing{sim: scenarios.Assumptions{PeakRate: 140000}}, 20},
		// 2.576 × 1.04 / √m ≤ 1%: m ≥ 71,764, p = 17.
		{"hll", []scenarios.Expectation{goal(t, "relative_error <= 1", 0), goal(t, "relative_error >= -1", 0)}, sizing{conf: 0.99}, 17},
		// A crash loses up to peak / A × T: T = 1,000 × 200 / 200,000 = 1 s.
		{"batched", []scenarios.Expectation{goal(t, "lost_on_crash <= 1000", 0)}, sizing{sim: scenarios.Assumptions{PeakRate: 200000}, entry: scenarios.Strategy{Params: []scenarios.Param{{Key: "servers", Value: int64(200)}}}}, 1e9},
	}
	for _, c := range cases {
		c.c.goals, c.c.step = c.goals, step
		v, note, ok := sizers[c.typ].closed0(&c.c)
		if !ok || v != c.want || note == "" {
			t.Errorf("%s %v: %v (%q, %v), want %v", c.typ, c.goals[0].Text, v, note, ok, c.want)
		}
	}
	if d := (&sizing{conf: 0.99}).depth(); d != 5 {
		t.Errorf("d = ⌈ln 100⌉ = %d, want 5", d)
	}
	if d := (&sizing{conf: 1 - math.Exp(-3)}).depth(); d != 3 {
		t.Errorf("d = ⌈ln 1/e^-3⌉ = %d, want 3 (not 4 by rounding)", d)
	}
	// Heavykeeper has none: size searches.
	if _, _, ok := sizers["heavykeeper"].closed0(&sizing{step: step}); ok {
		t.Error("heavykeeper has a closed form")
	}
}

// TestClopperPearson: the one-sided upper bound at its known values.
func TestClopperPearson(t *testing.T) {
	for _, c := range []struct {
		x, n int
		conf float64
		want float64
	}{
		{0, 3, 0.99, 1 - math.Pow(0.01, 1.0/3)}, // x = 0: 1 − α^(1/n)
		{0, 2, 0.99, 0.9},
		{0, 100, 0.95, 1 - math.Pow(0.05, 0.01)},
		{1, 10, 0.95, 0.3942}, // tables: 0.394
		{3, 3, 0.99, 1},
	} {
		if got := clopperPearson(c.x, c.n, c.conf); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("CP(%d of %d, %g) = %.5f, want %.5f", c.x, c.n, c.conf, got, c.want)
		}
	}
}

// TestGrid: sizes on the knob's grid, powers of two when asked, and the
// search's steps.
func TestGrid(t *testing.T) {
	st := sizers["striped"]
	for _, c := range []struct {
		v    float64
		pow2 bool
		want float64
	}{{28.57, false, 29}, {29, true, 32}, {32, true, 32}, {33, true, 64}, {1, true, 1}, {0, false, 1}, {1e9, false, 65536}} {
		if got := st.round(c.v, c.pow2); got != c.want {
			t.Errorf("round(%v, %v) = %v, want %v", c.v, c.pow2, got, c.want)
		}
	}
	if got := st.more(29); got != 58 {
		t.Errorf("more(29) = %v, want 58", got)
	}
	if got := sizers["batched"].more(1e9); got != 5e8 {
		t.Errorf("batched more(1 s) = %v, want 500 ms", got)
	}
	if got := st.mid(29, 58, false); got != 42 {
		t.Errorf("mid(29, 58) = %v, want ⌈√(29 × 58)⌉ = ⌈41.01⌉ = 42", got)
	}
	if got := st.mid(29, 30, false); got != 30 {
		t.Errorf("mid(29, 30) = %v, want the end 30", got)
	}
}

// TrialsToShow is the fewest failure-free trials whose Clopper–Pearson
// bound reaches 1 − conf: one fewer does not.
func TestTrialsToShow(t *testing.T) {
	for _, tt := range []struct {
		conf float64
		want int
	}{{0.99, 459}, {0.95, 59}, {0.9, 22}, {0.5, 1}} {
		n := TrialsToShow(tt.conf)
		if n != tt.want {
			t.Errorf("TrialsToShow(%g) = %d, want %d", tt.conf, n, tt.want)
		}
		if u := clopperPearson(0, n, tt.conf); u > 1-tt.conf {
			t.Errorf("conf %g: bound at %d trials %g, over %g", tt.conf, n, u, 1-tt.conf)
		}
		if n > 1 {
			if u := clopperPearson(0, n-1, tt.conf); u <= 1-tt.conf {
				t.Errorf("conf %g: %d trials already bound it (%g)", tt.conf, n-1, u)
			}
		}
	}
}
