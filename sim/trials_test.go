package sim

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
)

// binomialTail is the exact upper tail: against a direct sum of the pmf.
func TestBinomialTail(t *testing.T) {
	for _, c := range []struct{ n, p, x float64 }{{10, 0.1, 0}, {10, 0.1, 1}, {10, 0.1, 3}, {50, 0.0067, 2}, {200, 0.5, 120}, {7, 0.3, 7}, {7, 0.3, 8}} {
		want := 0.0
		for k := c.x; k <= c.n; k++ {
			if k < 0 {
				continue
			}
			lg := func(v float64) float64 { r, _ := math.Lgamma(v + 1); return r }
			want += math.Exp(lg(c.n) - lg(k) - lg(c.n-k) + k*math.Log(c.p) + (c.n-k)*math.Log1p(-c.p))
		}
		want = min(want, 1)
		if got := engine.BinomialTail(c.n, c.p, c.x); math.Abs(got-want) > 1e-9*math.Max(want, 1e-300) && math.Abs(got-want) > 1e-12 {
			t.Errorf("P(Bin(%v, %v) ≥ %v) = %v, want %v", c.n, c.p, c.x, got, want)
		}
	}
}

// A scenario in trials: the same seeds give the same rows; each measured
// row comes as mean, min, p50, p95 and max; a count-min's share of keys
// over its bound is tested against δ.
func TestTrials(t *testing.T) {
	yaml := strings.Replace(smallYAML, "seed: 3\n", "seed: 3\ntrials: 4\n", 1)
	run := func() []metrics.Result {
		rep, err := prepare(t, yaml, engine.Options{}).Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return metrics.Untimed(rep.Results)
	}
	a, b := run(), run()
	same := func(x, y metrics.Result) bool {
		if x.Metric != y.Metric || x.Stat != y.Stat || (x.Value == nil) != (y.Value == nil) {
			return false
		}
		return x.Value == nil || *x.Value == *y.Value
	}
	if !slices.EqualFunc(a, b, same) {
		t.Fatal("two runs of the same trials differ")
	}
	var stats []string
	for _, r := range a {
		if r.Strategy == "cm" && r.Metric == "max_overestimate" {
			stats = append(stats, r.Stat)
		}
	}
	if !slices.Equal(stats, []string{"mean", "min", "p50", "p95", "max"}) {
		t.Errorf("max_overestimate's rows: %q, want mean, min, p50, p95, max", stats)
	}
	var share, p *metrics.Result
	for i, r := range a {
		if r.Strategy == "cm" && r.Metric == metrics.ShareOverBound {
			share = &a[i]
		}
		if r.Strategy == "cm" && r.Metric == metrics.BoundTestP {
			p = &a[i]
		}
	}
	if share == nil || p == nil || share.Plan == nil || *share.Plan != 0.01 || *p.Value < 1e-6 || !strings.Contains(p.Note, "holds") {
		t.Fatalf("share %+v, p %+v: want the share beside δ = 0.01 and a p-value that holds", share, p)
	}
}

// A design whose keys pass its bound far more often than δ fails the test:
// 2% of 100,000 keys against δ = 0.01.
func TestBoundTestCatchesABias(t *testing.T) {
	st := prepare(t, smallYAML, engine.Options{})
	rep := func(over float64) *engine.Report {
		return &engine.Report{Results: []metrics.Result{
			{Strategy: "truth", Metric: "distinct_keys", Value: metrics.Measured(50_000), Scale: metrics.Sim},
			{Strategy: "cm", Metric: "keys_over_bound", Value: metrics.Measured(over), Scale: metrics.Sim},
		}}
	}
	out := &engine.Report{}
	st.BoundTests(out, []*engine.Report{rep(1000), rep(1000)})
	var p *metrics.Result
	for i, r := range out.Results {
		if r.Metric == metrics.BoundTestP {
			p = &out.Results[i]
		}
	}
	if p == nil || *p.Value >= 1e-6 || !strings.Contains(p.Note, "FAILS") {
		t.Fatalf("2%% over a 1%% bound: %+v, want a p-value below 1e-6 and FAILS", p)
	}
	out = &engine.Report{}
	st.BoundTests(out, []*engine.Report{rep(480), rep(500)}) // 0.98%: within δ
	if v := out.Results[len(out.Results)-1]; *v.Value < 1e-6 || !strings.Contains(v.Note, "holds") {
		t.Fatalf("0.98%% against 1%%: %+v, want it to hold", v)
	}
}
