package sim

import (
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// The judge is the code that decides CI, so it is tested to the edge: every
// operator at, just below and just above its threshold, for integers and
// floats; several rows of a metric where any one fails; rows at both
// scales; no row; no plan; other metrics; trials' statistics; and a fuzz
// target against plainJudge, a re-implementation written from the doc.

// judgeRow is a measured simulated-scale row of design d.
func judgeRow(metric metrics.Metric, v float64, plan *float64) metrics.Result {
	return metrics.Result{Strategy: "d", Metric: metric, Value: metrics.Measured(v), Plan: plan, Scale: metrics.Sim}
}

// verdictOf judges text against rows, for design d.
func verdictOf(t testing.TB, st *engine.Setup, text string, rows ...metrics.Result) engine.Verdict {
	t.Helper()
	e, err := scenarios.ParseExpectation(text)
	if err != nil {
		t.Fatal(err)
	}
	return st.JudgeOne(&engine.Report{Results: rows}, "d", e)
}

// TestJudgeOperatorEdges: each operator against a threshold written as a
// number and as the plan, with the measured value at the threshold, just
// below and just above it — the next float either way, and ±1 for
// integers.
func TestJudgeOperatorEdges(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	// holds[op] is whether measured − threshold < 0, == 0, > 0 holds.
	holds := map[string][3]bool{
		"<=": {true, true, false},
		"<":  {true, false, false},
		"==": {false, true, false},
		">=": {false, true, true},
		">":  {false, false, true},
	}
	if len(holds) != len(scenarios.Ops) {
		t.Fatalf("the table covers %d operators, scenarios has %d", len(holds), len(scenarios.Ops))
	}
	for _, th := range []struct {
		text string  // as written in the expectation
		v    float64 // its value
		int  bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-3", -3, true}, {"10_000", 10_000, true}, {"20_000_000", 2e7, true},
		{"0.7", 0.7, false}, {"1e-6", 1e-6, false}, {"-0.25", -0.25, false}, {"3.6", 3.6, false}, {"1.1", 1.1, false},
	} {
		below, above := math.Nextafter(th.v, math.Inf(-1)), math.Nextafter(th.v, math.Inf(1))
		type edge struct {
			x    float64
			sign int // 0, 1, 2: below, at, above the threshold
		}
		cases := []edge{{below, 0}, {th.v, 1}, {above, 2}}
		if th.int {
			cases = append(cases, edge{th.v - 1, 0}, edge{th.v + 1, 2})
		}
		for _, op := range scenarios.Ops {
			for _, c := range cases {
				want := holds[op][c.sign]
				// Against the number.
				vn := verdictOf(t, st, "bytes "+op+" "+th.text, judgeRow("bytes", c.x, nil))
				if vn.Pass != want || vn.Measured == nil || *vn.Measured != c.x {
					t.Errorf("bytes %s %s with bytes = %v: pass %v, want %v", op, th.text, c.x, vn.Pass, want)
				}
				// Against the plan.
				vp := verdictOf(t, st, "bytes "+op+" plan", judgeRow("bytes", c.x, metrics.PlanOf(th.v)))
				if vp.Pass != want || vp.Plan == nil || *vp.Plan != th.v {
					t.Errorf("bytes %s plan with bytes = %v, plan %v: pass %v, want %v", op, c.x, th.v, vp.Pass, want)
				}
				// Against another metric.
				vo := verdictOf(t, st, "bytes "+op+" distinct", judgeRow("bytes", c.x, nil), judgeRow("distinct", th.v, nil))
				if vo.Pass != want || vo.Plan == nil || *vo.Plan != th.v {
					t.Errorf("bytes %s distinct with bytes = %v, distinct %v: pass %v, want %v", op, c.x, th.v, vo.Pass, want)
				}
			}
		}
	}
}

// TestJudgeEveryRow: of several rows of one metric (a design's days, its
// checkpoints, a trial's statistics), any one failing fails the
// expectation — the first, a middle or the last — and the row shown is
// the first that fails; when all hold, the first.
func TestJudgeEveryRow(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	for _, c := range []struct {
		values   []float64
		pass     bool
		measured float64
	}{
		{[]float64{1, 2, 3}, true, 1},
		{[]float64{9, 2, 3}, false, 9},
		{[]float64{1, 9, 3}, false, 9},
		{[]float64{1, 2, 9}, false, 9},
		{[]float64{9, 2, 8}, false, 9},
		{[]float64{1, 8, 9}, false, 8},
		{[]float64{5, 5, 5}, true, 5},
		{[]float64{5, 5, 5.000001}, false, 5.000001},
	} {
		var rows []metrics.Result
		for _, v := range c.values {
			rows = append(rows, judgeRow("bytes", v, nil))
		}
		v := verdictOf(t, st, "bytes <= 5", rows...)
		if v.Pass != c.pass || *v.Measured != c.measured {
			t.Errorf("bytes <= 5 over %v: pass %v, measured %v; want %v, %v", c.values, v.Pass, *v.Measured, c.pass, c.measured)
		}
		// The same rows as a trial's statistics: every one is judged.
		for i, s := range engine.TrialStats {
			if i < len(rows) {
				rows[i].Stat = s.Name
			}
		}
		if v := verdictOf(t, st, "bytes <= 5", rows...); v.Pass != c.pass {
			t.Errorf("bytes <= 5 over the statistics %v: pass %v, want %v", c.values, v.Pass, c.pass)
		}
	}
}

// TestJudgeRowsJudged: only the design's own measured simulated-scale rows
// of the metric are judged; a full-scale row, another design's, a plan
// alone, or a row of another metric never decides.
func TestJudgeRowsJudged(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	full := judgeRow("bytes", 99, nil)
	full.Scale = metrics.Full
	other := judgeRow("bytes", 99, nil)
	other.Strategy = "e"
	planOnly := metrics.Result{Strategy: "d", Metric: "bytes", Plan: metrics.PlanOf(99), Scale: metrics.Sim}
	for _, c := range []struct {
		name string
		rows []metrics.Result
		pass bool
		why  string
	}{
		{"one row", []metrics.Result{judgeRow("bytes", 5, nil)}, true, ""},
		{"full scale beside", []metrics.Result{full, judgeRow("bytes", 5, nil), full}, true, ""},
		{"full scale only", []metrics.Result{full}, false, "d measured no bytes"},
		{"another design's", []metrics.Result{other, judgeRow("bytes", 5, nil)}, true, ""},
		{"another design's only", []metrics.Result{other}, false, "d measured no bytes"},
		{"plan only", []metrics.Result{planOnly}, false, "d measured no bytes"},
		{"plan only beside", []metrics.Result{planOnly, judgeRow("bytes", 5, nil)}, true, ""},
		{"another metric", []metrics.Result{judgeRow("distinct", 99, nil)}, false, "d measured no bytes"},
		{"no rows", nil, false, "d measured no bytes"},
	} {
		v := verdictOf(t, st, "bytes <= 5", c.rows...)
		if v.Pass != c.pass || v.Why != c.why {
			t.Errorf("%s: pass %v, why %q; want %v, %q", c.name, v.Pass, v.Why, c.pass, c.why)
		}
	}
	// Against the plan, a row without one fails, wherever it stands.
	for _, rows := range [][]metrics.Result{
		{judgeRow("bytes", 5, nil)},
		{judgeRow("bytes", 5, metrics.PlanOf(6)), judgeRow("bytes", 5, nil)},
		{judgeRow("bytes", 5, nil), judgeRow("bytes", 5, metrics.PlanOf(6))},
	} {
		if v := verdictOf(t, st, "bytes <= plan", rows...); v.Pass || v.Why != "the row has no plan" {
			t.Errorf("bytes <= plan over %d rows, one without a plan: pass %v, why %q", len(rows), v.Pass, v.Why)
		}
	}
	// Each row against its own plan.
	if v := verdictOf(t, st, "bytes <= plan", judgeRow("bytes", 5, metrics.PlanOf(6)), judgeRow("bytes", 7, metrics.PlanOf(6))); v.Pass || *v.Measured != 7 || *v.Plan != 6 {
		t.Errorf("bytes <= plan, the second row over its plan: %+v", v)
	}
	if v := verdictOf(t, st, "bytes <= plan", judgeRow("bytes", 5, metrics.PlanOf(6)), judgeRow("bytes", 7, metrics.PlanOf(8))); !v.Pass {
		t.Errorf("bytes <= plan, each row under its own plan: %+v", v)
	}
	// Another metric that was not measured fails, however the rows stand.
	if v := verdictOf(t, st, "bytes <= distinct", judgeRow("bytes", 5, nil)); v.Pass || v.Why != "d measured no distinct" {
		t.Errorf("bytes <= distinct without distinct: %+v", v)
	}
}

// TestJudgeWords: a bound says PASS or FAIL; a trap (a shows: item) SHOWN
// or NOT SHOWN; the same judge decides both.
func TestJudgeWords(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	for _, c := range []struct {
		text string
		trap bool
		want string
	}{
		{"bytes == 5", false, "PASS"},
		{"bytes > 5", false, "FAIL"},
		{"bytes == 5", true, "SHOWN"},
		{"bytes > 5", true, "NOT SHOWN"},
	} {
		e, err := scenarios.ParseExpectation(c.text)
		if err != nil {
			t.Fatal(err)
		}
		e.Trap = c.trap
		v := st.JudgeOne(&engine.Report{Results: []metrics.Result{judgeRow("bytes", 5, nil)}}, "d", e)
		if v.Word() != c.want || v.Trap() != c.trap {
			t.Errorf("%s (trap %v): %q, want %q", c.text, c.trap, v.Word(), c.want)
		}
	}
}

// TestJudgeOrder: Judge gives the truth's expect: then shows:, then each
// design's expect: then shows:, each marked with its list.
func TestJudgeOrder(t *testing.T) {
	yaml := strings.Replace(smallYAML, "strategies:", "expect: [\"events == plan\"]\nshows: [\"events > 0\"]\nstrategies:", 1)
	yaml = strings.Replace(yaml, "    type: count-min\n", "    type: count-min\n    shows: [\"max_overestimate > 0\"]\n    expect: [\"undercounts == 0\"]\n", 1)
	if !strings.Contains(yaml, "shows: [\"max_overestimate") {
		t.Fatal("smallYAML has no count-min entry")
	}
	st := prepare(t, yaml, engine.Options{})
	var got []string
	for _, v := range st.Judge(&engine.Report{}) {
		got = append(got, fmt.Sprintf("%s:%s:%v", v.Design, v.Expect.Text, v.Trap()))
	}
	want := fmt.Sprintf("%s:events == plan:false %s:events > 0:true cm:undercounts == 0:false cm:max_overestimate > 0:true", engine.TruthName(st.Scenario), engine.TruthName(st.Scenario))
	if strings.Join(got, " ") != want {
		t.Errorf("Judge order:\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
}

// plainJudge is the judge as its doc says it, written apart: the design's
// measured simulated-scale rows of the metric, each against the number, the
// row's own plan or the first such row of the other metric; it holds when
// every row does. No row, or (against the plan) a row without a plan,
// fails. The row shown is the first row without a plan, else the first
// that fails, else the first.
func plainJudge(rows []metrics.Result, name string, e scenarios.Expectation) (pass bool, why string, measured *float64) {
	judged := func(r metrics.Result, m string) bool {
		return r.Strategy == name && string(r.Metric) == m && r.Scale == metrics.Sim && r.Value != nil
	}
	var other *float64
	if e.Other != "" {
		for i := len(rows) - 1; i >= 0; i-- { // the first, found from the end
			if judged(rows[i], e.Other) {
				other = rows[i].Value
			}
		}
		if other == nil {
			return false, name + " measured no " + e.Other, nil
		}
	}
	var mine []metrics.Result
	for _, r := range rows {
		if judged(r, e.Metric) {
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return false, name + " measured no " + e.Metric, nil
	}
	if e.Plan {
		for _, r := range mine {
			if r.Plan == nil {
				return false, "the row has no plan", r.Value
			}
		}
	}
	allowed := map[string][]int{"<=": {-1, 0}, "<": {-1}, "==": {0}, ">=": {0, 1}, ">": {1}}[e.Op]
	for _, r := range mine {
		rhs := e.Value
		switch {
		case e.Plan:
			rhs = *r.Plan
		case other != nil:
			rhs = *other
		}
		sign := 0
		if *r.Value < rhs {
			sign = -1
		} else if *r.Value > rhs {
			sign = 1
		}
		ok := false
		for _, s := range allowed {
			ok = ok || s == sign
		}
		if !ok {
			return false, "", r.Value
		}
	}
	return true, "", mine[0].Value
}

// FuzzJudge draws rows and an expectation from the fuzzer's bytes and
// holds the judge to plainJudge: the verdict, the reason and the row shown.
func FuzzJudge(f *testing.F) {
	f.Add(uint64(1), uint64(2), []byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add(uint64(7), uint64(0), []byte{9, 9, 9, 9, 0, 0, 0, 0, 1, 2, 3})
	f.Add(uint64(42), uint64(99), []byte{})
	st := prepare(f, smallYAML, engine.Options{})
	metricsOf := []string{"bytes", "distinct", "undercounts"}
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64, raw []byte) {
		rng := rand.New(rand.NewPCG(seed1, seed2))
		// Small values, halves and equal values often: the edges.
		value := func() float64 {
			switch rng.IntN(4) {
			case 0:
				return float64(rng.IntN(5))
			case 1:
				return float64(rng.IntN(9)-4) / 2
			case 2:
				return math.Nextafter(float64(rng.IntN(3)), math.Inf(2*rng.IntN(2)-1))
			}
			return rng.Float64()*20 - 10
		}
		var rows []metrics.Result
		for _, b := range raw {
			r := metrics.Result{Strategy: []string{"d", "d", "d", "e"}[b&3], Metric: metrics.Metric(metricsOf[int(b>>2)%3]), Scale: metrics.Sim}
			if b&0x20 != 0 {
				r.Scale = metrics.Full
			}
			if b&0x40 == 0 || rng.IntN(8) > 0 {
				r.Value = metrics.Measured(value())
			}
			if b&0x80 != 0 || rng.IntN(4) > 0 {
				r.Plan = metrics.PlanOf(value())
			}
			if rng.IntN(4) == 0 {
				r.Stat = engine.TrialStats[rng.IntN(len(engine.TrialStats))].Name
			}
			rows = append(rows, r)
		}
		var rhs string
		switch rng.IntN(3) {
		case 0:
			rhs = "plan"
		case 1:
			rhs = metricsOf[rng.IntN(3)]
		default:
			rhs = strconv.FormatFloat(value(), 'g', -1, 64)
		}
		text := metricsOf[rng.IntN(3)] + " " + scenarios.Ops[rng.IntN(len(scenarios.Ops))] + " " + rhs
		e, err := scenarios.ParseExpectation(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		got := st.JudgeOne(&engine.Report{Results: rows}, "d", e)
		pass, why, measured := plainJudge(rows, "d", e)
		if got.Pass != pass || got.Why != why || (got.Measured == nil) != (measured == nil) || measured != nil && *got.Measured != *measured {
			t.Fatalf("%s over %+v:\njudge: pass %v, why %q, measured %v\nplain: pass %v, why %q, measured %v",
				text, rows, got.Pass, got.Why, show(got.Measured), pass, why, show(measured))
		}
	})
}

func show(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}
