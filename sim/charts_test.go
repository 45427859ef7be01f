package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"slices"
	"strings"
	"testing"
)

// seriesOf returns the series of chart name drawn for strategy ("" for any).
func seriesOf(rep *engine.Report, name, strategy string) []metrics.Series {
	var out []metrics.Series
	for _, s := range rep.Series {
		if s.Name == name && (strategy == "" || s.Strategy == strategy) {
			out = append(out, s)
		}
	}
	return out
}

// The charts of a timed run: the key-load chart marks the key's limit and
// the load the scenario plans for (headroom 0.7 of 2,000: 1,400); the
// backlog is on a log axis; the staleness chart names its zeros.
func TestTimedCharts(t *testing.T) {
	rep, err := prepare(t, hotYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	load := seriesOf(rep, "key-load", "striped")
	if len(load) != 1 {
		t.Fatalf("%d key-load series of striped, want 1", len(load))
	}
	var values []float64
	for _, m := range load[0].Marks {
		values = append(values, m.Value)
	}
	if !slices.Equal(values, []float64{2000, 1400}) || !strings.Contains(load[0].Marks[1].Label, "70%") || !strings.Contains(load[0].Marks[1].Label, "1,400") {
		t.Errorf("key-load marks %+v, want the limit 2,000 and the planned 70%%, 1,400", load[0].Marks)
	}
	for _, s := range seriesOf(rep, "backlog", "") {
		if !s.LogY {
			t.Errorf("backlog of %s on a linear axis", s.Strategy)
		}
	}
	stale := seriesOf(rep, "staleness", "")
	if len(stale) == 0 {
		t.Fatal("no staleness chart")
	}
	for _, s := range stale {
		if !s.LogX || s.ZeroLabel != "0 (fresh)" {
			t.Errorf("staleness of %s: LogX %v, ZeroLabel %q", s.Strategy, s.LogX, s.ZeroLabel)
		}
	}
	if got := engine.KeyLoadMarks(10000, 0); len(got) != 1 {
		t.Errorf("no headroom: marks %+v, want the limit alone", got)
	}
}

const stepsYAML = `name: two
seed: 4
steps:
  - name: first
    workload: {events: 50000, keys: 5000, s: 1.1}
    questions: {top: 10}
    strategies:
      - {name: exact, type: exact}
      - {name: cm, type: count-min, params: {epsilon: 0.001, delta: 0.01, top: 10}}
  - name: second
    workload: {events: 50000, keys: 5000, s: 1.2}
    questions: {top: 10}
    strategies:
      - {name: exact-2, type: exact}
      - {name: cm-2, type: count-min, params: {epsilon: 0.001, delta: 0.01, top: 10}}
`

// Every series of a step carries its step, so that the steps' charts of
// the same name are two charts, each titled with its step.
func TestSeriesCarryTheStep(t *testing.T) {
	scn, err := scenarios.Parse("two.yaml", []byte(stepsYAML))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range scn.Steps {
		st, err := engine.Prepare(step, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := st.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Series) == 0 {
			t.Fatalf("step %s drew nothing", step.Step)
		}
		for _, s := range rep.Series {
			if s.Scenario != "two" || s.Step != step.Step {
				t.Errorf("series %q: scenario %q, step %q; want two, %q", s.Name, s.Scenario, s.Step, step.Step)
			}
		}
	}
}

const recallSweepYAML = `name: rs
seed: 6
workload: {events: 200000, keys: 50000, s: 0.9}
questions: {top: 10}
strategies:
  - {name: exact, type: exact}
  - {name: mg, type: misra-gries, params: {counters: 20}}
  - name: ss
    type: space-saving
    sweep: {counters: [10, 30, 3000]}
`

// The top-K recall bars hold the designs not swept (a swept design's recall
// is on its sweep's curve against memory), and a chart with nothing to
// compare is not drawn.
func TestRecallCharts(t *testing.T) {
	rep, err := prepare(t, recallSweepYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	bars := seriesOf(rep, "topk-recall", "")
	if len(bars) != 1 || !slices.Equal(bars[0].Labels, []string{"exact", "mg"}) {
		t.Fatalf("recall bars %+v, want exact and mg only", bars)
	}
	if bars[0].Y[0] != 1 || bars[0].Y[1] == 1 {
		t.Fatalf("recall %v: want exact's 1 beside mg's less (a weak test otherwise)", bars[0].Y)
	}
	curve := seriesOf(rep, "sweep-ss-topk_recall", "ss (measured)")
	if len(curve) != 1 || len(curve[0].Y) != 3 || curve[0].Y[0] >= curve[0].Y[2] {
		t.Errorf("ss recall against memory %+v, want 3 points rising", curve)
	}
	for _, s := range rep.Series {
		var group []metrics.Series
		for _, o := range rep.Series {
			if o.Name == s.Name {
				group = append(group, o)
			}
		}
		if metrics.Flat(group) {
			t.Errorf("chart %q shows nothing: %v", s.Name, s.Y)
		}
	}
}

func TestDropFlat(t *testing.T) {
	bar := func(scenario, name string, y ...float64) metrics.Series {
		return metrics.Series{Scenario: scenario, Name: name, Kind: metrics.Bars, Labels: make([]string, len(y)), Y: y}
	}
	line := func(strategy string, y ...float64) metrics.Series {
		return metrics.Series{Scenario: "a", Strategy: strategy, Name: "backlog", Kind: metrics.Curve, X: make([]float64, len(y)), Y: y}
	}
	in := []metrics.Series{
		bar("a", "topk-recall", 1, 1, 1), line("x", 0, 0), bar("b", "topk-recall", 1, 0.9), line("y", 0, 0),
		{Scenario: "a", Name: "staleness", Kind: metrics.Distribution, Values: []float64{0, 0}},
	}
	var got []string
	for _, s := range engine.DropFlat(in) {
		got = append(got, s.Scenario+"/"+s.Name)
	}
	if want := []string{"b/topk-recall", "a/staleness"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
}

const trendYAML = `name: tr
seed: 8
workload:
  trending:
    rate: 200
    duration: 30m
    keys: 5_000
    s: 1.0
    checkpoint: 1m
    plants:
      - {name: burst, rank: 2_000, start: 10m, end: 20m, share: 0.1}
questions:
  top: 10
strategies:
  - {name: buckets, type: time-buckets, params: {bucket: 1m, window: 10m}}
  - {name: decay, type: decay, params: {half_life: 10m}}
`

// On a plant's chart each design's "takes it in" mark rides on the
// design's own curve, so it takes that curve's colour; before, every mark
// rode on the first curve and was drawn in its colour.
func TestTrendingMarksOwnCurve(t *testing.T) {
	rep, err := prepare(t, trendYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, s := range seriesOf(rep, "plant-burst", "") {
		for _, m := range s.Marks {
			found++
			if m.Label != s.Strategy+" takes it in" {
				t.Errorf("mark %q on the curve of %s", m.Label, s.Strategy)
			}
		}
	}
	if found != 2 {
		t.Errorf("%d marks, want one a design", found)
	}
}
