package sim

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// ratingsSmallYAML is the built-in ratings run at a fiftieth of its size.
const ratingsSmallYAML = `name: ratings-small
seed: 3
workload:
  ratings:
    items: 2_000
    ratings: 40_000
    s: 1
    quality: {min: 2.0, max: 4.8}
  top: 10
  few: 5
  enough: 30
  batch: 1000
strategies:
  - name: naive
    type: naive-average
  - name: bayesian
    type: bayesian-average
  - name: wilson
    type: wilson
`

func ratingsRun(t *testing.T, opts engine.Options) (*engine.Setup, *engine.Report) {
	t.Helper()
	st := prepare(t, ratingsSmallYAML, opts)
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return st, rep
}

// one returns the value of the only simulated row of strategy and metric.
func one(t *testing.T, rs []metrics.Result, strategy string, metric metrics.Metric) metrics.Result {
	t.Helper()
	got := rowsOf(rs, strategy, metric)
	if len(got) != 1 || got[0].Value == nil {
		t.Fatalf("%s %s: got %d rows %+v, want one measured", strategy, metric, len(got), got)
	}
	return got[0]
}

// The ratings run at a small scale: the truth's rows against their plans,
// the seed's example measured from each design's own score, and the
// naive top 10 thin and apart from the others. Every row is one its kind
// reports, and the top tables agree with the rows.
func TestRatingsRun(t *testing.T) {
	st, rep := ratingsRun(t, engine.Options{})
	rs := rep.Results
	if ev := one(t, rs, "truth", metrics.Events); *ev.Value != 40_000 || ev.Plan == nil || *ev.Plan != 40_000 {
		t.Errorf("events: %v of plan %v", *ev.Value, ev.Plan)
	}
	// Each truth count is a sum of independent Bernoulli trials (one an
	// item), so its variance is at most its mean: 6 sd past the plan is a
	// tail below 10^−8 (Chebyshev would give 1/36; the sums are of 2,000
	// nearly independent items, close to normal).
	for _, m := range []metrics.Metric{metrics.DistinctKeys, metrics.ItemsFewRatings,
		metrics.ItemsEnough, metrics.OneFiveStarItems} {
		r := one(t, rs, "truth", m)
		if r.Plan == nil || math.Abs(*r.Value-*r.Plan) > 6*math.Sqrt(*r.Plan)+1 {
			t.Errorf("truth %s: measured %v, plan %v", m, *r.Value, r.Plan)
		}
	}
	if n := *one(t, rs, "truth", metrics.OneFiveStarItems).Value; n < 1 {
		t.Fatalf("no item rated once with 5 stars")
	}
	for _, c := range []struct {
		design string
		want   float64
	}{{"naive", 5}, {"bayesian", 85.0 / 21}, {"wilson", 1 / (1 + 1.96*1.96)}} {
		r := one(t, rs, c.design, metrics.OneFiveStar)
		if math.Abs(*r.Value-c.want) > 1e-12 || r.Plan == nil || math.Abs(*r.Plan-c.want) > 1e-12 {
			t.Errorf("%s: one 5-star review measured %v, plan %v, want %v", c.design, *r.Value, r.Plan, c.want)
		}
	}
	if r := one(t, rs, "bayesian", metrics.OneFiveStar); !strings.Contains(r.Note, "4.05 to two places") {
		t.Errorf("bayesian one_five_star_score note %q does not say 4.05", r.Note)
	}
	naiveThin := *one(t, rs, "naive", metrics.TopFewShare).Value
	if naiveThin < 0.8 {
		t.Errorf("naive: %v of its top 10 thinly rated, want most", naiveThin)
	}
	for _, d := range []string{"bayesian", "wilson"} {
		if v := *one(t, rs, d, metrics.TopFewShare).Value; v != 0 {
			t.Errorf("%s: %v of its top 10 thinly rated, want none", d, v)
		}
		if m := *one(t, rs, d, metrics.TopMeanRatings).Value; m < 30 {
			t.Errorf("%s: its top 10 has %v ratings on average", d, m)
		}
	}
	for _, r := range rowsOf(rs, "naive", metrics.TopOverlap) {
		if *r.Value > 0.2 {
			t.Errorf("naive %s", r.Note)
		}
	}
	if got := len(rowsOf(rs, "wilson", metrics.TopOverlap)); got != 2 {
		t.Errorf("wilson: %d overlap rows, want one per other design", got)
	}
	for _, r := range rs {
		if r.Value == nil {
			continue
		}
		var d *engine.Design
		for i := range st.Members {
			if st.Members[i].Name() == r.Strategy {
				d = &st.Members[i]
			}
		}
		if !slices.Contains(st.Kind.Reports(d), metrics.Metric(r.Metric)) {
			t.Errorf("%s measured %s, which the ratings kind does not list", r.Strategy, r.Metric)
		}
	}
	// The tables: each design's top 10 and the true-quality top 10; the
	// naive table's ratings are the ones its thin share counts.
	if len(rep.Tables) != 4 {
		t.Fatalf("got %d tables, want 4", len(rep.Tables))
	}
	thin := 0
	for _, row := range rep.Tables[0].Rows {
		if row[2] < 5 {
			thin++
		}
	}
	if rep.Tables[0].Name != "top-naive" || len(rep.Tables[0].Rows) != 10 || float64(thin)/10 != naiveThin {
		t.Errorf("table %s: %d rows, %d thin, want 10 rows and the share %v", rep.Tables[0].Name, len(rep.Tables[0].Rows), thin, naiveThin)
	}
	for _, row := range rep.Tables[3].Rows {
		if row[2] < 30 {
			t.Errorf("the true-quality top 10 holds item %v rated %v times, fewer than enough", row[1], row[2])
		}
	}
}

// The same seed gives the same rows, whatever the workers.
func TestRatingsDeterministic(t *testing.T) {
	_, a := ratingsRun(t, engine.Options{Workers: 1})
	_, b := ratingsRun(t, engine.Options{Workers: 4})
	ja, _ := json.Marshal(metrics.Untimed(a.Results))
	jb, _ := json.Marshal(metrics.Untimed(b.Results))
	if string(ja) != string(jb) {
		t.Errorf("1 worker and 4 differ:\n%s\n%s", ja, jb)
	}
	ta, _ := json.Marshal(a.Tables)
	tb, _ := json.Marshal(b.Tables)
	if string(ta) != string(tb) {
		t.Errorf("tables differ between 1 worker and 4")
	}
}

// A design that does not rank rated items is refused at its entry, with
// the ones allowed; so is an expectation on a metric the run never
// measures.
func TestRatingsRefusesOtherDesigns(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"type: wilson", "type: hll", "a hll does not rank rated items (allowed with ratings: bayesian-average, naive-average, wilson)"},
		{"type: wilson", "type: wilson\n    expect: [\"topk_recall >= 1\"]", "this run never measures topk_recall for wilson"},
		{"    type: bayesian-average", "    type: bayesian-average\n    params: {prior_mean: 7}", "strategies[1].params.prior_mean: 7 is out of range (allowed: a number from 1 to 5)"},
	} {
		scn, err := scenarios.Parse("r.yaml", []byte(strings.Replace(ratingsSmallYAML, c.old, c.new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = engine.Prepare(scn, engine.Options{})
		var e *scenarios.Error
		if !errors.As(err, &e) || e.Pos.Line < 14 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error at a line of the strategies saying %q", err, c.want)
		}
	}
}
