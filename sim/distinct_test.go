package sim

import (
	"context"
	"math"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

const audienceYAML = `name: viewers
seed: 2
assumptions:
  keys: 40_000_000
workload:
  audience:
    days:
      - viewers: 40_000
      - viewers: 38_000
        overlap: 30_000
    views: 2
strategies:
  - name: exact
    type: exact-distinct
  - name: hll
    type: hll
    params: {p: 14}
`

// rowsOf returns the simulated-scale rows of one strategy and metric, in order.
func rowsOf(rs []metrics.Result, strategy string, metric metrics.Metric) []metrics.Result {
	return metrics.Select(rs, strategy, metric, metrics.Sim)
}

func TestAudienceDaysUnionAndSum(t *testing.T) {
	rep, err := prepare(t, audienceYAML, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// exact: day 1, day 2, the sum of the days, the union by merge.
	got := rowsOf(rep.Results, "exact", "distinct")
	want := []float64{40000, 38000, 78000, 48000}
	if len(got) != len(want) {
		t.Fatalf("exact distinct rows: got %d, want %d", len(got), len(want))
	}
	for i, r := range got {
		if r.Number() != want[i] {
			t.Errorf("exact distinct %d (%s): got %v, want %v", i, r.Note, r.Number(), want[i])
		}
	}
	if p := got[2].Plan; p == nil || *p != 48000 {
		t.Errorf("the sum's plan: got %v, want the union 48,000", p)
	}
	sumErr := rowsOf(rep.Results, "exact", "relative_error")[2]
	if sumErr.Number() != 62.5 {
		t.Errorf("the sum is too high by %v%%, want 62.5%%", sumErr.Number())
	}
	// hll at p = 14: σ = 0.81%; 5σ is a 6e-7 two-sided tail.
	for i, r := range rowsOf(rep.Results, "hll", "distinct") {
		truth := *r.Plan
		if i == 2 {
			continue // the naive sum
		}
		if math.Abs(r.Number()-truth) > 5*0.0081*truth {
			t.Errorf("hll %s: got %v, want %v within 5σ", r.Note, r.Number(), truth)
		}
	}
	if b := rowsOf(rep.Results, "hll", "bytes")[0]; b.Number() > 12288 || *b.Plan != 12288 {
		t.Errorf("hll bytes: got %v (plan %v), want ≤ 12,288", b.Number(), *b.Plan)
	}
}

func TestProfileBands(t *testing.T) {
	yaml := `name: prof
seed: 4
profile:
  max: 20000
  points_per_octave: 2
  trials: 60
strategies:
  - name: hll-10
    type: hll
    params: {p: 10}
`
	scn, err := scenarios.Parse("prof.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	st, err := engine.Prepare(scn, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	grid := st.Kind.(*profileKind).grid
	if len(rep.Tables) != 1 || len(rep.Tables[0].Rows) != len(grid) {
		t.Fatalf("got %d tables, want one row per grid point (%d)", len(rep.Tables), len(grid))
	}
	// With one id every trial sets one register: Ertl's estimate is within
	// 0.1% of 1 whatever its rank.
	if first := rep.Tables[0].Rows[0]; first[0] != 1 || math.Abs(first[1]) > 0.1 || math.Abs(first[7]) > 0.1 {
		t.Errorf("n = 1: got row %v, want every trial within 0.1%%", first)
	}
	// Bands are ordered: −3σ ≤ … ≤ median ≤ … ≤ +3σ at every n.
	for _, row := range rep.Tables[0].Rows {
		for c := 2; c < len(row); c++ {
			if row[c] < row[c-1] {
				t.Errorf("n = %v: bands out of order: %v", row[0], row)
			}
		}
	}
	// Over 60 trials the ±1σ half-band estimates σ ≈ 3.25% within ~25%.
	s := rowsOf(rep.Results, "hll-10", "sigma_large_n")
	if len(s) != 1 || math.Abs(s[0].Number()-3.25)/3.25 > 0.35 {
		t.Errorf("sigma_large_n: got %+v, want near 1.04/√1024 = 3.25%%", s)
	}
}

// Zipf views: many events per viewer, but a distinct counter still counts
// viewers.
func TestAudienceZipfViews(t *testing.T) {
	yaml := strings.Replace(audienceYAML, "    views: 2", "    views_max: 50\n    views_s: 1.1", 1)
	rep, err := prepare(t, yaml, engine.Options{}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ev := rowsOf(rep.Results, "truth", "events")[0].Number(); ev <= 2*78000 {
		t.Errorf("events: got %v, want more than 2 views a viewer on average", ev)
	}
	got := rowsOf(rep.Results, "exact", "distinct")
	if got[0].Number() != 40000 || got[3].Number() != 48000 {
		t.Errorf("exact distinct: day 1 %v, union %v; want 40,000 and 48,000", got[0].Number(), got[3].Number())
	}
}

func TestStoppedAudienceScoresNoHalfDay(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := prepare(t, audienceYAML, engine.Options{}).Run(ctx)
	if err == nil || rep == nil || !rep.Partial {
		t.Fatalf("got %v, %+v; want a partial report", err, rep)
	}
	if got := rowsOf(rep.Results, "hll", "distinct"); len(got) != 0 {
		t.Errorf("a day cut short was scored: %+v", got)
	}
}
