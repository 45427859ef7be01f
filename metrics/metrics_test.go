package metrics

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func sample() []Result {
	return []Result{
		{Scenario: "search", Strategy: "count-min", Metric: "bytes", Value: Measured(543660), Unit: "B", Plan: PlanOf(543660), Scale: Sim},
		{Scenario: "search", Strategy: "count-min", Metric: "ns_per_event", Value: Measured(31.25), Unit: "ns", Scale: Sim, Timing: true, Note: "a|b"},
		{Scenario: "search", Strategy: "count-min", Metric: "overestimate_bound", Unit: "searches", Plan: PlanOf(200000), Scale: Full},
		{Scenario: "search", Strategy: "hll", Metric: "standard_error", Unit: "%", Plan: PlanOf(0.8125), Scale: Sim, Note: "plan only"},
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&buf)
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Metric != w.Metric || (g.Value == nil) != (w.Value == nil) || g.Value != nil && *g.Value != *w.Value || g.Timing != w.Timing || (g.Plan == nil) != (w.Plan == nil) {
			t.Errorf("row %d: got %+v, want %+v", i, g, w)
		}
	}
}

func TestJSONValueNull(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample()[3:]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"value": null`) || !strings.Contains(buf.String(), `"plan": 0.8125`) {
		t.Errorf("a plan-only row not written with a null value:\n%s", buf.String())
	}
	rs, err := ReadJSON(&buf)
	if err != nil || len(rs) != 1 || rs[0].Measured() || rs[0].Number() != 0.8125 {
		t.Errorf("read back %+v, %v: want the plan-only row, unmeasured", rs, err)
	}
}

func TestJSONPlanNull(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJSON(&buf, sample()[1:2]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"plan": null`) {
		t.Errorf("absent plan not written as null:\n%s", buf.String())
	}
}

func TestCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	want := "scenario,step,design,metric,measured,unit,plan,scale,timing,partial,stat,note\n" +
		"search,,count-min,bytes,543660,B,543660,sim,false,false,,\n" +
		"search,,count-min,ns_per_event,31.25,ns,,sim,true,false,,a|b\n" +
		"search,,count-min,overestimate_bound,,searches,200000,full,false,false,,\n" +
		"search,,hll,standard_error,,%,0.8125,sim,false,false,,plan only\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestMarkdown(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMarkdown(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| count-min | bytes | 543,660 | 543,660 | B |", "ns_per_event ⏱", `a\|b`, "| overestimate_bound (full scale) |  | 200,000 |", "| hll | standard_error |  | 0.8125 | % | plan only |"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, buf.String())
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {-1234567, "-1,234,567"}, {69480.25, "69,480.2"},
		{0.0143, "0.0143"}, {1.5, "1.5"}, {1.2e-7, "1.20e-07"}, {math.NaN(), "NaN"}, {2e9, "2,000,000,000"},
	} {
		if got := Format(c.v); got != c.want {
			t.Errorf("Format(%v): got %q, want %q", c.v, got, c.want)
		}
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for _, c := range []struct{ q, want float64 }{{0, 1}, {0.5, 3}, {1, 5}, {0.25, 2}, {0.1, 1.4}} {
		if got := Quantile(xs, c.q); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Quantile(%v): got %v, want %v", c.q, got, c.want)
		}
	}
	if !math.IsNaN(Quantile(nil, 0.5)) {
		t.Error("Quantile of nothing is not NaN")
	}
	for _, q := range []float64{-1, 2, math.NaN()} {
		want := map[bool]float64{true: 1, false: 5}[q < 0.5]
		if got := Quantile(xs, q); got != want && !(math.IsNaN(q) && math.IsNaN(got)) {
			t.Errorf("Quantile(%v): got %v, want %v (NaN for NaN)", q, got, want)
		}
	}
}

// QuantileSorted over implicit zeros agrees bit for bit with Quantile on the
// explicit multiset.
func TestQuantileSortedZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 500 {
		zeros := rng.IntN(50)
		vals := make([]float64, rng.IntN(50))
		for i := range vals {
			vals[i] = float64(1+rng.IntN(20)) * (1 + rng.Float64())
		}
		q := rng.Float64()
		switch trial % 10 {
		case 0:
			q = 0.99
		case 1:
			q = 0.25
		case 2:
			q = 1
		}
		all := append(make([]float64, zeros), vals...)
		slices.Sort(vals)
		want := Quantile(all, q)
		if got := QuantileSorted(vals, zeros, q); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("zeros %d, vals %v, q %v: got %v, want %v", zeros, vals, q, got, want)
		}
	}
	if got := QuantileSorted(nil, 3, 0.5); got != 0 {
		t.Errorf("three zeros: got %v, want 0", got)
	}
	if got := QuantileSorted([]float64{4}, 1, 0.75); got != 3 {
		t.Errorf("{0, 4} at 0.75: got %v, want 3", got)
	}
}

// TestQuantileWeighted: a histogram gives the quantile of the sample
// written out, bit for bit, including at the edges of a value's run.
func TestQuantileWeighted(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 2000 {
		var vals, weights, all []float64
		v := 0.0
		for range rng.IntN(8) {
			v += float64(1 + rng.IntN(5))
			w := float64(rng.IntN(4)) // zero weights included
			vals, weights = append(vals, v), append(weights, w)
			for range int(w) {
				all = append(all, v)
			}
		}
		q := rng.Float64()
		if trial%4 == 0 && len(all) > 1 {
			q = float64(rng.IntN(len(all))) / float64(len(all)-1) // on an order statistic
		}
		want := Quantile(all, q)
		if got := QuantileWeighted(vals, weights, q); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("vals %v weights %v q %v: got %v, want %v (sample %v)", vals, weights, q, got, want, all)
		}
		if got, want := QuantileWeighted(all, nil, q), QuantileSorted(all, 0, q); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("nil weights: got %v, want %v", got, want)
		}
	}
}

func TestQuantileSortedAllocs(t *testing.T) {
	xs := []float64{1, 2, 3}
	if a := testing.AllocsPerRun(100, func() { _ = QuantileSorted(xs, 2, 0.9) }); a != 0 {
		t.Errorf("QuantileSorted allocates %v times", a)
	}
}

func TestRecallPrecision(t *testing.T) {
	want := []uint64{1, 2, 3, 4}
	got := []uint64{2, 4, 9, 9}
	if r := Recall(got, want); r != 0.5 {
		t.Errorf("recall: got %v, want 0.5", r)
	}
	if p := Precision(got, want); p != 0.5 {
		t.Errorf("precision: got %v, want 0.5", p)
	}
	if r := Recall(nil, nil); r != 1 {
		t.Errorf("recall of nothing: got %v, want 1", r)
	}
}

func TestTableWriters(t *testing.T) {
	tb := Table{Columns: []string{"n", "median"}, Rows: [][]float64{{1024, -0.125}, {2048, 1.5}}}
	var c, m bytes.Buffer
	if err := WriteTableCSV(&c, tb); err != nil {
		t.Fatal(err)
	}
	if want := "n,median\n1024,-0.125\n2048,1.5\n"; c.String() != want {
		t.Errorf("csv: got %q, want %q", c.String(), want)
	}
	if err := WriteTableMarkdown(&m, tb); err != nil {
		t.Fatal(err)
	}
	if want := "| n | median |\n|---:|---:|\n| 1,024 | -0.125 |\n| 2,048 | 1.5 |\n"; m.String() != want {
		t.Errorf("markdown: got %q, want %q", m.String(), want)
	}
}

func TestSelect(t *testing.T) {
	rs := sample()
	if got := Select(rs, "count-min", "bytes", Sim); len(got) != 1 || *got[0].Value != 543660 {
		t.Errorf("got %+v, want the one bytes row", got)
	}
	if got := Select(rs, "count-min", "overestimate_bound", Sim); len(got) != 0 {
		t.Errorf("got %+v, want none at sim scale", got)
	}
}

func TestJSONRefusesNonFinite(t *testing.T) {
	var buf bytes.Buffer
	rs := []Result{{Scenario: "s", Strategy: "d", Metric: "m", Value: Measured(math.NaN())}}
	if err := WriteJSON(&buf, rs); err == nil || !strings.Contains(err.Error(), "s d m") || buf.Len() != 0 {
		t.Errorf("got %v and %d bytes, want an error naming the row and nothing written", err, buf.Len())
	}
}

func TestUntimed(t *testing.T) {
	got := Untimed(sample())
	if len(got) != 3 || got[0].Metric != "bytes" || got[1].Metric != "overestimate_bound" || got[2].Metric != "standard_error" {
		t.Errorf("got %+v, want the three rows not read off the clock", got)
	}
}

func TestFlat(t *testing.T) {
	bars := func(y ...float64) Series { return Series{Kind: Bars, Y: y} }
	curve := func(y ...float64) Series { return Series{Kind: Curve, Y: y} }
	for _, tc := range []struct {
		name  string
		group []Series
		want  bool
	}{
		{"equal bars", []Series{bars(1, 1, 1)}, true},
		{"one bar differs", []Series{bars(1, 1, 0.9)}, false},
		{"zero curves", []Series{curve(0, 0, 0), curve(0, 0)}, true},
		{"curves at two levels", []Series{curve(0, 0, 0), curve(3, 3)}, false},
		{"one point", []Series{curve(5)}, true},
		{"NaN left out", []Series{curve(2, math.NaN(), 2)}, true},
		{"distribution", []Series{{Kind: Distribution, Values: []float64{0, 0}}}, false},
		{"nothing", nil, false},
	} {
		if got := Flat(tc.group); got != tc.want {
			t.Errorf("%s: Flat = %v, want %v", tc.name, got, tc.want)
		}
	}
}
