package sim

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// outboxSmallYAML is a rating-outbox run of 60,000 changes, redelivery 5%.
const outboxSmallYAML = `name: outbox-small
seed: 5
workload:
  reviews:
    items: 3_000
    events: 60_000
    quality: {min: 2.0, max: 4.8}
    edit_share: 0.2
    delete_share: 0.1
  outbox: {redeliver: 0.05, delay: 20, retry: 200}
  top: 10
  batch: 1000
strategies:
  - name: naive
    type: outbox-naive
  - name: idem
    type: outbox-idempotent
  - name: recount
    type: outbox-recount
    params: {every: 5000}
`

func outboxRun(t *testing.T, yaml string, opts engine.Options) *engine.Report {
	t.Helper()
	rep, err := prepare(t, yaml, opts).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The truth's rows add up; the idempotent consumer is exact with an entry
// a review created; the naive one's excess is planned at p × the live
// reviews and its drift bounds its excess; the recount's drift is within
// its planned bound, its rows within a full recount's each time.
func TestRatingOutboxRun(t *testing.T) {
	rep := outboxRun(t, outboxSmallYAML, engine.Options{})
	rs := rep.Results
	v := func(strategy string, m metrics.Metric) float64 { return *one(t, rs, strategy, m).Value }
	truth := engine.TruthName(&scenarios.Scenario{Name: "outbox-small"})
	creates, edits, deletes := v(truth, metrics.ReviewCreates), v(truth, metrics.ReviewEdits), v(truth, metrics.ReviewDeletes)
	if creates+edits+deletes != 60_000 || v(truth, metrics.ReviewsLive) != creates-deletes {
		t.Errorf("creates %g, edits %g, deletes %g, live %g", creates, edits, deletes, v(truth, metrics.ReviewsLive))
	}
	if ev := v(truth, metrics.Events); ev != 60_000+v(truth, metrics.Redelivered) {
		t.Errorf("%g deliveries for %g redelivered", ev, v(truth, metrics.Redelivered))
	}
	for _, m := range []metrics.Metric{metrics.AggCountDrift, metrics.AggSumDrift, metrics.AggItemsDrifted, metrics.RankMoved, metrics.AggCountExcess} {
		if got := v("idem", m); got != 0 {
			t.Errorf("idem %s = %g, want 0", m, got)
		}
	}
	if r := one(t, rs, "idem", metrics.ReviewEntries); *r.Value != creates || r.Plan == nil || *r.Plan != creates {
		t.Errorf("idem entries %g, plan %v, want the %g created", *r.Value, r.Plan, creates)
	}
	ex := one(t, rs, "naive", metrics.AggCountExcess)
	if ex.Plan == nil || math.Abs(*ex.Plan-0.05*(creates-deletes)) > 0.1 {
		t.Errorf("naive count excess plan %v, want 0.05 × %g", ex.Plan, creates-deletes)
	}
	// Bernstein at 1e-6 (strategies/ratings: TestOutboxNaiveDriftPlan):
	// variance p(1−p)(creates + deletes), terms within 1.
	l := math.Log(2e6)
	tol := (2*l/3 + math.Sqrt(4*l*l/9+8*l*0.05*0.95*(creates+deletes))) / 2
	if math.Abs(*ex.Value-*ex.Plan) > tol {
		t.Errorf("naive count excess %g, plan %g ± %.0f", *ex.Value, *ex.Plan, tol)
	}
	if d := v("naive", metrics.AggCountDrift); d < math.Abs(*ex.Value) || d == 0 {
		t.Errorf("naive drift %g below its |excess| %g, or 0", d, *ex.Value)
	}
	dr := one(t, rs, "recount", metrics.AggCountDrift)
	if dr.Plan == nil || *dr.Value > *dr.Plan || *dr.Value >= v("naive", metrics.AggCountDrift) {
		t.Errorf("recount drift %g, plan %v, naive's %g", *dr.Value, dr.Plan, v("naive", metrics.AggCountDrift))
	}
	rows := one(t, rs, "recount", metrics.RecountRows)
	if rows.Plan == nil || *rows.Value <= 0 || *rows.Value > *rows.Plan {
		t.Errorf("recount rows %g, plan %v", *rows.Value, rows.Plan)
	}
	if n := v("recount", metrics.Recounts); n != 12 { // every 5,000 ticks to the last delivery, just past tick 60,000
		t.Errorf("%g recounts, want 12", n)
	}
	if len(rep.Series) != 1 || len(rep.Series[0].Labels) != 3 {
		t.Errorf("series %+v, want the drift bars of the 3 designs", rep.Series)
	}
}

// With no redelivery the naive and idempotent consumers are exact: deltas
// commute, so lateness and reordering alone move no aggregate. The
// recounting one is not: a recount at t reads changes committed before t
// still in flight, and applies them again when they arrive — within its
// planned bound, which counts those late first deliveries.
func TestRatingOutboxNoRedelivery(t *testing.T) {
	rep := outboxRun(t, strings.Replace(outboxSmallYAML, "redeliver: 0.05", "redeliver: 0", 1), engine.Options{})
	for _, d := range []string{"naive", "idem"} {
		for _, m := range []metrics.Metric{metrics.AggCountDrift, metrics.AggSumDrift, metrics.RankMoved} {
			if r := one(t, rep.Results, d, m); *r.Value != 0 {
				t.Errorf("%s %s = %g without redelivery", d, m, *r.Value)
			}
		}
	}
	if r := one(t, rep.Results, "recount", metrics.AggCountDrift); *r.Value > *r.Plan {
		t.Errorf("recount drift %g above its bound %g", *r.Value, *r.Plan)
	}
	// Without a delay either, the recount reads only what was delivered:
	// exact too, and no bars of zeros are drawn.
	rep = outboxRun(t, strings.Replace(outboxSmallYAML, "{redeliver: 0.05, delay: 20, retry: 200}", "{redeliver: 0, delay: 0}", 1), engine.Options{})
	for _, d := range []string{"naive", "idem", "recount"} {
		if r := one(t, rep.Results, d, metrics.AggCountDrift); *r.Value != 0 {
			t.Errorf("%s drift %g with neither delay nor redelivery", d, *r.Value)
		}
	}
	if len(rep.Series) != 0 {
		t.Errorf("drift bars of zeros drawn: %+v", rep.Series)
	}
}

// The same seed gives the same rows, whatever the workers.
func TestRatingOutboxDeterministic(t *testing.T) {
	a := outboxRun(t, outboxSmallYAML, engine.Options{Workers: 1})
	b := outboxRun(t, outboxSmallYAML, engine.Options{Workers: 4})
	ja, _ := json.Marshal(metrics.Untimed(a.Results))
	jb, _ := json.Marshal(metrics.Untimed(b.Results))
	if string(ja) != string(jb) {
		t.Errorf("1 worker and 4 differ:\n%s\n%s", ja, jb)
	}
}

// A design that keeps no aggregates is refused with the ones allowed; an
// expectation on recounts of a design that does not recount is refused.
func TestRatingOutboxRefusesOtherDesigns(t *testing.T) {
	for _, c := range []struct{ old, new, want string }{
		{"type: outbox-naive", "type: wilson", "a wilson does not keep rating aggregates from an outbox (allowed with rating-outbox: outbox-idempotent, outbox-naive, outbox-recount)"},
		{"type: outbox-naive", "type: outbox-naive\n    expect: [\"recounts >= 1\"]", "this run never measures recounts for naive"},
		{"type: outbox-naive", "type: outbox-naive\n    expect: [\"review_entries == plan\"]", "this run never measures review_entries for naive"},
	} {
		scn, err := scenarios.Parse("o.yaml", []byte(strings.Replace(outboxSmallYAML, c.old, c.new, 1)))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Prepare(scn, engine.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
