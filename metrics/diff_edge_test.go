package metrics

import (
	"math"
	"slices"
	"strconv"
	"testing"
)

// brief is a change as "kind key old>new", nil for an absent number.
func brief(c Change) string {
	num := func(v *float64) string {
		if v == nil {
			return "nil"
		}
		return strconv.FormatFloat(*v, 'g', -1, 64)
	}
	return string(c.Kind) + " " + c.Key + " " + num(c.Old) + ">" + num(c.New)
}

// Diff at its edges. The tolerance is a fraction of the larger magnitude,
// and "more than": the rows at exactly tol use numbers whose difference and
// tol × the larger are both exact in float64 (3 and 4 with tol 1/4: 1 and
// 1), so that equality is equality. Several rows flip if tol were taken of
// the smaller magnitude (3 → 4 with tol 0.3: 1 > 1.2 no, but 1 > 0.9), or
// if "more than" were "at least".
func TestDiffEdges(t *testing.T) {
	v := Measured
	type row = Result
	m := func(metric Metric, value, plan *float64) row {
		return row{Scenario: "s", Strategy: "d", Metric: metric, Value: value, Plan: plan, Scale: Sim}
	}
	timing := func(metric Metric, value *float64) row {
		r := m(metric, value, nil)
		r.Timing = true
		return r
	}
	stat := func(metric Metric, st string, value *float64) row {
		r := m(metric, value, nil)
		r.Stat = st
		return r
	}
	full := func(metric Metric, plan *float64) row {
		r := m(metric, nil, plan)
		r.Scale = Full
		return r
	}
	x := func(value *float64) []row { return []row{m("x", value, nil)} } // the one row s/d x (sim)
	below, above := math.Nextafter(0.25, 0), math.Nextafter(0.25, 1)
	const key = "s/d x (sim)"
	cases := []struct {
		name     string
		old, new []row
		tol      float64
		want     []string
	}{
		// The tolerance: of the larger magnitude, and strictly beyond it.
		{"at tol, new larger", x(v(3)), x(v(4)), 0.25, nil},
		{"at tol, old larger", x(v(4)), x(v(3)), 0.25, nil},
		{"at tol, negative, new larger", x(v(-3)), x(v(-4)), 0.25, nil},
		{"at tol, negative, old larger", x(v(-4)), x(v(-3)), 0.25, nil},
		{"tol just below", x(v(3)), x(v(4)), below, []string{"moved " + key + " 3>4"}},
		{"tol just above", x(v(3)), x(v(4)), above, nil},
		{"value just past tol", x(v(3)), x(v(math.Nextafter(4, 5))), 0.25, []string{"moved " + key + " 3>" + strconv.FormatFloat(math.Nextafter(4, 5), 'g', -1, 64)}},
		{"value just inside tol", x(v(3)), x(v(math.Nextafter(4, 0))), 0.25, nil},
		{"within tol of the larger, not of the smaller", x(v(3)), x(v(4)), 0.3, nil},
		{"within tol of the larger, old larger", x(v(4)), x(v(3)), 0.3, nil},
		{"within tol of the larger, negative", x(v(-3)), x(v(-4)), 0.3, nil},
		{"beyond tol of the larger", x(v(3)), x(v(4)), 0.2, []string{"moved " + key + " 3>4"}},
		{"zero to non-zero, tol 1", x(v(0)), x(v(5)), 1, nil},
		{"non-zero to zero, tol 1", x(v(5)), x(v(0)), 1, nil},
		{"zero to non-zero, tol 1/2", x(v(0)), x(v(5)), 0.5, []string{"moved " + key + " 0>5"}},
		{"zero to negative, tol 1/2", x(v(0)), x(v(-5)), 0.5, []string{"moved " + key + " 0>-5"}},
		{"sign flip, tol 1", x(v(-1)), x(v(1)), 1, []string{"moved " + key + " -1>1"}},
		{"tol 0: one ulp moves", x(v(1)), x(v(math.Nextafter(1, 2))), 0, []string{"moved " + key + " 1>1.0000000000000002"}},
		{"-0 and 0 are equal", x(v(math.Copysign(0, -1))), x(v(0)), 0, nil},
		{"huge opposite values", x(v(math.MaxFloat64)), x(v(-math.MaxFloat64)), 1, []string{"moved " + key + " 1.7976931348623157e+308>-1.7976931348623157e+308"}},
		{"value vanishes from a row", x(v(3)), x(nil), 1, []string{"moved " + key + " 3>nil"}},
		{"value appears in a row", x(nil), x(v(3)), 1, []string{"moved " + key + " nil>3"}},

		// Plans: compared exactly, whatever tol.
		{"plan moves less than tol", []row{m("x", v(5), PlanOf(100))}, []row{m("x", v(5), PlanOf(100.5))}, 0.1,
			[]string{"plan " + key + " 100>100.5"}},
		{"plan moves one ulp, tol 1", []row{m("x", nil, PlanOf(1))}, []row{m("x", nil, PlanOf(math.Nextafter(1, 2)))}, 1,
			[]string{"plan " + key + " 1>1.0000000000000002"}},
		{"plan appears", []row{m("x", v(5), nil)}, []row{m("x", v(5), PlanOf(6))}, 1, []string{"plan " + key + " nil>6"}},
		{"plan vanishes", []row{m("x", v(5), PlanOf(6))}, []row{m("x", v(5), nil)}, 1, []string{"plan " + key + " 6>nil"}},
		{"plan -0 and 0", []row{m("x", v(5), PlanOf(math.Copysign(0, -1)))}, []row{m("x", v(5), PlanOf(0))}, 0, nil},
		{"value moved and plan changed: the move first", []row{m("x", v(5), PlanOf(6))}, []row{m("x", v(7), PlanOf(8))}, 0,
			[]string{"moved " + key + " 5>7", "plan " + key + " 6>8"}},
		{"value within tol, plan changed", []row{m("x", v(3), PlanOf(6))}, []row{m("x", v(4), PlanOf(8))}, 0.25,
			[]string{"plan " + key + " 6>8"}},

		// Rows appearing and vanishing: the value, or the plan of a plan-only row.
		{"a row appears", nil, []row{m("x", v(3), PlanOf(4))}, 0, []string{"appeared " + key + " nil>3"}},
		{"a plan-only row appears", nil, []row{full("x", PlanOf(7))}, 0, []string{"appeared s/d x (full) nil>7"}},
		{"an empty row appears", nil, []row{m("x", nil, nil)}, 0, []string{"appeared " + key + " nil>nil"}},
		{"a row vanishes", []row{m("x", v(3), PlanOf(4))}, nil, 0, []string{"vanished " + key + " 3>nil"}},
		{"a plan-only row vanishes", []row{full("x", PlanOf(7))}, nil, 0, []string{"vanished s/d x (full) 7>nil"}},
		{"sim and full are two rows", []row{full("x", PlanOf(7))}, []row{m("x", nil, PlanOf(7))}, 0,
			[]string{"appeared s/d x (sim) nil>7", "vanished s/d x (full) 7>nil"}},

		// Rows of the same name pair off in order: #2 is the second.
		{"the second of a name moves", []row{m("x", v(1), nil), m("x", v(2), nil)}, []row{m("x", v(1), nil), m("x", v(3), nil)}, 0,
			[]string{"moved " + key + " #2 2>3"}},
		{"the second of a name vanishes", []row{m("x", v(1), nil), m("x", v(2), nil)}, []row{m("x", v(1), nil)}, 0,
			[]string{"vanished " + key + " #2 2>nil"}},
		{"a second and third appear", []row{m("x", v(1), nil)}, []row{m("x", v(1), nil), m("x", v(2), nil), m("x", nil, PlanOf(5))}, 0,
			[]string{"appeared " + key + " #2 nil>2", "appeared " + key + " #3 nil>5"}},
		{"the first of two goes: they pair by position", []row{m("x", v(1), nil), m("x", v(2), nil)}, []row{m("x", v(2), nil)}, 0,
			[]string{"moved " + key + " 1>2", "vanished " + key + " #2 2>nil"}},

		// Names that print alike are still different rows (the fuzz target found
		// "s"/"d/x" paired with "s/d"/"x" as its #2).
		{"a slash in a name", []row{{Scenario: "s/d", Strategy: "x", Metric: "x", Value: v(1), Scale: Sim}},
			[]row{{Scenario: "s", Strategy: "d/x", Metric: "x", Value: v(2), Scale: Sim}}, 0,
			[]string{"appeared s/d/x x (sim) nil>2", "vanished s/d/x x (sim) 1>nil"}},
		{"a comma in a scale", []row{{Scenario: "s", Strategy: "d", Metric: "x", Value: v(1), Scale: "sim, mean"}, stat("x", "mean", v(2))},
			[]row{stat("x", "mean", v(2)), {Scenario: "s", Strategy: "d", Metric: "x", Value: v(1), Scale: "sim, mean"}}, 0, nil},

		// Stat: a statistic over trials is a row of its own, and #2 counts within it.
		{"stats are rows apart", []row{stat("x", "mean", v(1)), stat("x", "p95", v(2))}, []row{stat("x", "mean", v(1)), stat("x", "p95", v(3))}, 0,
			[]string{"moved s/d x (sim, p95) 2>3"}},
		{"a stat row is not the plain row", []row{m("x", v(1), nil)}, []row{stat("x", "mean", v(1))}, 0,
			[]string{"appeared s/d x (sim, mean) nil>1", "vanished " + key + " 1>nil"}},
		{"two rows of a stat", []row{stat("x", "max", v(1)), stat("x", "max", v(2))}, []row{stat("x", "max", v(1)), stat("x", "max", v(9))}, 0,
			[]string{"moved s/d x (sim, max) #2 2>9"}},

		// Timing rows: a ratio, never a move, whatever they did.
		{"timing ×100 at tol 0", []row{timing("x", v(10))}, []row{timing("x", v(1000))}, 0, []string{"timing " + key + " 10>1000"}},
		{"timing unchanged", []row{timing("x", v(10))}, []row{timing("x", v(10))}, 0, []string{"timing " + key + " 10>10"}},
		{"timing from 0: no ratio", []row{timing("x", v(0))}, []row{timing("x", v(1e9))}, 0, nil},
		{"timing from -0: no ratio", []row{timing("x", v(math.Copysign(0, -1)))}, []row{timing("x", v(5))}, 0, nil},
		{"timing to 0", []row{timing("x", v(7))}, []row{timing("x", v(0))}, 0, []string{"timing " + key + " 7>0"}},
		{"timing from nil", []row{timing("x", nil)}, []row{timing("x", v(5))}, 0, nil},
		{"timing to nil", []row{timing("x", v(5))}, []row{timing("x", nil)}, 0, nil},
		{"timing in the old run only", []row{timing("x", v(5))}, []row{m("x", v(500), nil)}, 0, []string{"timing " + key + " 5>500"}},
		{"timing in the new run only", []row{m("x", v(5), nil)}, []row{timing("x", v(500))}, 0, []string{"timing " + key + " 5>500"}},
		{"timing with a plan that changed", []row{{Scenario: "s", Strategy: "d", Metric: "x", Value: v(1), Plan: PlanOf(1), Scale: Sim, Timing: true}},
			[]row{{Scenario: "s", Strategy: "d", Metric: "x", Value: v(1), Plan: PlanOf(2), Scale: Sim, Timing: true}}, 0,
			[]string{"timing " + key + " 1>1"}},
		{"a timing row appears", nil, []row{timing("x", v(5))}, 0, []string{"appeared " + key + " nil>5"}},
		{"a timing row vanishes", []row{timing("x", v(5))}, nil, 0, []string{"vanished " + key + " 5>nil"}},

		// Order: the new run's, then what vanished in the old run's.
		{"order", []row{m("b", v(1), nil), m("v1", v(1), nil), timing("t", v(2)), m("a", v(1), nil), m("v2", v(1), nil)},
			[]row{m("c", v(1), nil), m("a", v(2), nil), timing("t", v(4)), m("b", v(2), PlanOf(3))}, 0,
			[]string{"appeared s/d c (sim) nil>1", "moved s/d a (sim) 1>2", "timing s/d t (sim) 2>4", "moved s/d b (sim) 1>2",
				"plan s/d b (sim) nil>3", "vanished s/d v1 (sim) 1>nil", "vanished s/d v2 (sim) 1>nil"}},
		{"nothing to nothing", nil, nil, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, ch := range Diff(c.old, c.new, c.tol) {
				got = append(got, brief(ch))
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("tol %v:\ngot  %q\nwant %q", c.tol, got, c.want)
			}
		})
	}
}
