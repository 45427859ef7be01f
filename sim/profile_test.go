package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
)

// profileYAML is a small profile of the designs named, each a line of
// strategies.
func profileYAML(designs ...string) string {
	y := `name: prof
seed: 7
profile:
  max: 30000
  points_per_octave: 2
  trials: 24
strategies:
`
	for _, d := range designs {
		y += d + "\n"
	}
	return y
}

var (
	profHLL8  = "  - {name: hll-8, type: hll, params: {p: 8}}"
	profHLL11 = "  - {name: hll-11, type: hll, params: {p: 11, dense: true}}"
	profExact = "  - {name: exact, type: exact-distinct}"
)

// profileRun runs a profile to its end with workers goroutines and returns
// its results without the timing rows, and its tables.
func profileRun(t *testing.T, yaml string, workers int) ([]metrics.Result, []metrics.Table) {
	t.Helper()
	rep, err := prepare(t, yaml, engine.Options{Workers: workers}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Partial {
		t.Fatal("a run to the end is partial")
	}
	return metrics.Untimed(rep.Results), rep.Tables
}

// The trials run side by side and the designs share each trial's ids, yet
// the profile is the same whatever the number of workers, and each design's
// profile is the one it has when it runs alone: sharing the stream changes
// no design's input.
func TestProfileDeterministic(t *testing.T) {
	yaml := profileYAML(profHLL8, profExact, profHLL11)
	rs1, tb1 := profileRun(t, yaml, 1)
	for _, w := range []int{2, 5} {
		rs, tb := profileRun(t, yaml, w)
		if !reflect.DeepEqual(rs, rs1) || !reflect.DeepEqual(tb, tb1) {
			t.Errorf("workers=%d: the profile differs from workers=1", w)
		}
	}
	for _, alone := range []struct {
		line, name string
	}{{profHLL8, "hll-8"}, {profExact, "exact"}, {profHLL11, "hll-11"}} {
		rs, tb := profileRun(t, profileYAML(alone.line), 2)
		var want []metrics.Result
		for _, r := range rs1 {
			if r.Strategy == alone.name {
				want = append(want, r)
			}
		}
		if !reflect.DeepEqual(rs, want) {
			t.Errorf("%s alone: results\n%v\nwant, as among the others,\n%v", alone.name, rs, want)
		}
		i := tableIndex(tb1, "accuracy-"+alone.name)
		if len(tb) != 1 || i < 0 || !reflect.DeepEqual(tb[0], tb1[i]) {
			t.Errorf("%s alone: its table differs from the one it has among the others", alone.name)
		}
	}
	// The exact set is exact at every cardinality: every band is 0.
	for _, row := range tb1[tableIndex(tb1, "accuracy-exact")].Rows {
		for _, v := range row[1:] {
			if v != 0 {
				t.Fatalf("exact-distinct: n = %v: row %v, want 0 in every band", row[0], row)
			}
		}
	}
}

// tableIndex returns the index of the table named name, or -1.
func tableIndex(tbs []metrics.Table, name string) int {
	return slices.IndexFunc(tbs, func(tb metrics.Table) bool { return tb.Name == name })
}

// A profile stopped before its first trial ends scores nothing, and says
// it was stopped.
func TestProfileStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := prepare(t, profileYAML(profHLL8, profHLL11), engine.Options{}).Run(ctx)
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Partial {
		t.Fatalf("got %v, %+v; want context.Canceled and a partial report", err, rep)
	}
	if len(rep.Results) != 0 || len(rep.Tables) != 0 || len(rep.Series) != 0 {
		t.Errorf("a profile with no trial done scored %d rows, %d tables, %d series", len(rep.Results), len(rep.Tables), len(rep.Series))
	}
}

// cancelOnObserve cancels its context at its first batch and counts ids.
type cancelOnObserve struct {
	cancel func()
	seen   int
}

func (c *cancelOnObserve) Observe(b []workload.Event) { c.seen += len(b); c.cancel() }
func (c *cancelOnObserve) Bytes() int64               { return 0 }
func (c *cancelOnObserve) Distinct() float64          { return float64(c.seen) }

// A trial stops at the batch after a stop, not at its end (it used to run
// to the end: 17–26 s of hll-accuracy after Ctrl-C), and says it did not
// finish.
func TestProfileTrialStopsWithinABatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cancelOnObserve{cancel: cancel}
	grid := []uint64{1000, 1 << 20}
	rec := []profileRecord{newProfileRecord(len(grid), 1)}
	fed, done := profileTrial(ctx, []strategies.Distinct{c}, grid, 1, rec, 0)
	if done || c.seen != 1000 || fed != 1000 {
		t.Errorf("stopped in the first batch: done %v, fed %d, seen %d; want not done after 1,000 ids", done, fed, c.seen)
	}
	fed, done = profileTrial(context.Background(), []strategies.Distinct{&cancelOnObserve{cancel: func() {}}}, grid, 1, rec, 0)
	if !done || fed != 1<<20 {
		t.Errorf("not stopped: done %v, fed %d; want done with 2^20 ids", done, fed)
	}
}

// An accuracy profile's planned memory counts its error records: grid
// points × trials × 8 bytes a design (a scenario once planned at 24 bytes
// grew past 200 MB).
func TestProfileMemoryCountsRecords(t *testing.T) {
	const yaml = "name: p\nprofile: {min: 1, max: 1000000, points_per_octave: 8, trials: 1000}\nstrategies:\n  - {name: a, type: hll, params: {p: 4}}\n  - {name: b, type: hll, params: {p: 4}}\n"
	st := prepare(t, yaml, engine.Options{})
	records := int64(2) * int64(len(st.Kind.(*profileKind).grid)+1) * 1000 * 8
	if held, _ := st.Kind.Memory(); held < records {
		t.Errorf("a profile of %d points × 1,000 trials × 2 designs plans %d bytes, fewer than its %d bytes of records", len(st.Kind.(*profileKind).grid), held, records)
	}
}

// The HLLs of a profile share one chart, a panel each, their quantiles in
// units of their own 1.04/√m, so that p = 8 and p = 11 read on one scale,
// with the theory's ±1, 2, 3σ as marks; the table keeps the %.
func TestProfileChart(t *testing.T) {
	st := prepare(t, profileYAML(profHLL8, profHLL11), engine.Options{Workers: 2})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	panels := map[string]int{}
	for _, s := range rep.Series {
		if s.Name != "accuracy" {
			t.Errorf("series %q of %s: want every HLL on the chart \"accuracy\"", s.Name, s.Strategy)
			continue
		}
		panels[s.Panel]++
		var marks []float64
		for _, m := range s.Marks {
			marks = append(marks, m.Value)
		}
		if !slices.Equal(marks, []float64{1, -1, 2, -2, 3, -3}) {
			t.Errorf("%s %s: marks %v, want ±1, 2, 3", s.Panel, s.Strategy, marks)
		}
	}
	want := map[string]int{"hll-8: m = 256, 1.04/√m = 6.5%": len(bands), "hll-11: m = 2,048, 1.04/√m = 2.3%": len(bands)}
	if !reflect.DeepEqual(panels, want) {
		t.Fatalf("panels %v, want %v", panels, want)
	}
	// The curve is the table's % over 1.04/√m (the table rounds to 1e-4 %).
	tb := rep.Tables[tableIndex(rep.Tables, "accuracy-hll-8")]
	sigma := 104 / math.Sqrt(256)
	for _, s := range rep.Series {
		if s.Panel != "hll-8: m = 256, 1.04/√m = 6.5%" || s.Strategy != "+1σ" {
			continue
		}
		col := slices.Index(tb.Columns, "+1σ")
		for j, row := range tb.Rows {
			if s.X[j] != row[0] || math.Abs(s.Y[j]*sigma-row[col]) > 1e-4 {
				t.Fatalf("n = %v: curve %v σ = %v %%, table %v %%", row[0], s.Y[j], s.Y[j]*sigma, row[col])
			}
		}
	}
}
