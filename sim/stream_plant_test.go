package sim

import (
	"context"
	"flag"
	"math"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies/frequency"
	"countsim/workload"
)

// plantYAML is a count stream with a key of 400 writes planted, under
// count-min, an exact count and Space-Saving (a point counter without a
// bound on one key's excess).
const plantYAML = `name: plant
seed: 3
workload: {events: 200_000, keys: 5_000, s: 1, plant: {count: 400}}
expect: ["planted_count == plan"]
strategies:
  - {name: cm, type: count-min, params: {epsilon: 0.002, delta: 0.01}, expect: ["planted_excess <= plan"]}
  - {name: exact, type: exact, expect: ["planted_excess == 0"]}
  - {name: ss, type: space-saving, params: {counters: 100}}
`

// TestPlantedRows: the truth's row of the planted key is its 400 writes,
// planned as 400; each point counter's estimate of it is what the design
// answers for the key (the key of rank keys + 1, counted here from the
// stream itself), its excess that minus 400, beside εN for count-min and
// without a plan for the others; the expectations on them hold.
func TestPlantedRows(t *testing.T) {
	st := prepare(t, plantYAML, engine.Options{})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	src := st.Kind.(*streamKind).src
	key := src.KeyOf(5_001)
	var n int64
	for i := range src.Chunks() {
		for _, e := range src.Chunk(i, nil) {
			if e.Key == key {
				n++
			}
		}
	}
	if n != 400 {
		t.Fatalf("the stream writes the key of rank keys + 1 %d times, want 400", n)
	}
	pc := find(t, rs, engine.TruthName(st.Scenario), metrics.PlantedCount)
	if pc.Number() != 400 || pc.Plan == nil || *pc.Plan != 400 {
		t.Errorf("planted_count %v, plan %v; want 400 and 400", pc.Number(), pc.Plan)
	}
	cm := find(t, rs, "cm", metrics.PlantedEstimate).Number()
	if ex := find(t, rs, "cm", metrics.PlantedExcess); cm < 400 || ex.Number() != cm-400 || ex.Plan == nil || *ex.Plan != 400 {
		t.Errorf("count-min: estimate %v, excess %v plan %v; want at least 400, estimate − 400 and εN = 0.002 × 200,000 = 400", cm, ex.Number(), ex.Plan)
	}
	if e, x := find(t, rs, "exact", metrics.PlantedEstimate), find(t, rs, "exact", metrics.PlantedExcess); e.Number() != 400 || x.Number() != 0 || x.Plan != nil {
		t.Errorf("exact: estimate %v, excess %v (plan %v); want 400, 0 and no plan", e.Number(), x.Number(), x.Plan)
	}
	ss := find(t, rs, "ss", metrics.PlantedEstimate).Number()
	if x := find(t, rs, "ss", metrics.PlantedExcess); x.Number() != ss-400 || x.Plan != nil {
		t.Errorf("space-saving: excess %v (plan %v), want estimate %v − 400 and no plan", x.Number(), x.Plan, ss)
	}
	for _, v := range st.Judge(rep) {
		if !v.Pass {
			t.Errorf("%s: %s failed", v.Design, v.Expect.Text)
		}
	}
	// A stream without a plant has no such rows, nor may expect them; a
	// design without a bound on one key's excess has no plan for it.
	for _, c := range []struct{ yaml, want string }{
		{strings.Replace(plantYAML, ", plant: {count: 400}", "", 1), "planted_count"},
		{strings.Replace(plantYAML, `{name: exact, type: exact, expect: ["planted_excess == 0"]}`, `{name: exact, type: exact, expect: ["planted_excess <= plan"]}`, 1),
			"exact has no plan for planted_excess"},
	} {
		scn, err := scenarios.Parse("plant.yaml", []byte(c.yaml))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := engine.Prepare(scn, engine.Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error naming %q", err, c.want)
		}
	}
}

var practiceScan = flag.Uint64("practice.scan", 0, "TestPracticeDish: read count-min's estimate of this many dish ids from 1 on and print those that read the question's 3,100")

// The practice question's built-in: the seller's dish, searched exactly
// 400 times, reads 3,100 under count-min at ε = 0.001, δ = 0.01 after
// 3,000,000 searches — the question's figures — an excess of 2,700 within
// εN = 3,000; the fixes read it within 300 (ε = 0.0001) and exactly.
//
// The dish's id is one whose counters in all five rows hold at least 2,700
// of other dishes' searches, the least exactly 2,700: a change to
// count-min's hashing or to the stream moves it. Then this test fails, and
// go test ./sim -run TestPracticeDish -practice.scan 3000000000 (a minute
// or so)
// prints ids that read 3,100 again, for scenarios/practice-sketch.yaml.
func TestPracticeDish(t *testing.T) {
	scn, err := scenarios.Builtin("practice-sketch")
	if err != nil {
		t.Fatal(err)
	}
	if *practiceScan > 0 {
		scanDishes(t, scn, *practiceScan)
		return
	}
	st, err := engine.Prepare(scn, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	if got := find(t, rs, engine.TruthName(scn), metrics.PlantedCount).Number(); got != 400 {
		t.Errorf("the dish's true count %v, want 400", got)
	}
	for _, c := range []struct {
		design         string
		estimate, plan float64
	}{{"count-min", 3_100, 3_000}, {"count-min-small-eps", math.NaN(), 300}} {
		e := find(t, rs, c.design, metrics.PlantedEstimate).Number()
		x := find(t, rs, c.design, metrics.PlantedExcess)
		if !math.IsNaN(c.estimate) && e != c.estimate {
			t.Errorf("%s reads the dish as %v, not the question's %v: find another dish (-practice.scan, see the test's comment)", c.design, e, c.estimate)
		}
		if x.Plan == nil || *x.Plan != c.plan || x.Number() > c.plan || x.Number() != e-400 {
			t.Errorf("%s: excess %v, plan %v; want estimate − 400 within εN = %v", c.design, x.Number(), x.Plan, c.plan)
		}
	}
	if e := find(t, rs, "exact", metrics.PlantedEstimate).Number(); e != 400 {
		t.Errorf("exact reads the dish as %v, want 400", e)
	}
	for _, v := range st.Judge(rep) {
		if !v.Pass {
			t.Errorf("%s: %s failed", v.Design, v.Expect.Text)
		}
	}
}

// scanDishes feeds the practice scenario's count-min every search but the
// dish's and logs each of the first n ids, from 1, whose estimate is
// 3,100 − 400: with its 400 searches, it would read 3,100.
func scanDishes(t *testing.T, scn *scenarios.Scenario, n uint64) {
	spec := scn.Run.(*scenarios.Stream)
	src, err := workload.NewStream(streamConfig(scn.Seed, spec))
	if err != nil {
		t.Fatal(err)
	}
	cm, err := frequency.NewCountMin(frequency.CountMinParams{Epsilon: 0.001, Delta: 0.01}, scn.Seed)
	if err != nil {
		t.Fatal(err)
	}
	dish := src.PlantedKey()
	var buf []workload.Event
	for i := range src.Chunks() {
		buf = src.Chunk(i, buf)
		kept := buf[:0]
		for _, e := range buf {
			if e.Key != dish {
				kept = append(kept, e)
			}
		}
		cm.Observe(kept)
	}
	plain := src.Config()
	plain.Plant, plain.PlantKey = 0, 0
	zipf, err := workload.NewStream(plain)
	if err != nil {
		t.Fatal(err)
	}
	for id := uint64(1); id <= n; id++ {
		if cm.Count(id) == 2_700 {
			if r := zipf.RankOf(id); r >= 1 && r <= spec.Keys {
				continue // a dish of the catalogue
			}
			t.Logf("dish %d reads 3,100", id)
		}
	}
}
