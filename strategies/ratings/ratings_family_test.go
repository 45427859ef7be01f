package ratings

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// ratingEvents draws n ratings of items with small keys (some repeated,
// many rated once), stars 1..5, and a few events a rating design must
// ignore (reads and sets).
func ratingEvents(seed uint64, n, items int) []workload.Event {
	r := rand.New(rand.NewPCG(seed, 1))
	ev := make([]workload.Event, n)
	for i := range ev {
		key := uint64(r.IntN(items)) * 0x9e3779b97f4a7c15 // spread over uint64, 0 included
		if r.IntN(4) == 0 {
			key = uint64(r.IntN(3)) // a few hot items
		}
		ev[i] = workload.Event{Key: key, Delta: 1 + int64(r.IntN(5)), ID: uint64(i + 1), Op: workload.Write}
		switch r.IntN(50) {
		case 0:
			ev[i].Op = workload.Read
		case 1:
			ev[i].Op, ev[i].Delta = workload.Set, 100
		}
	}
	return ev
}

// ratingDesigns builds one of each rating design at non-default parameters
// where it has some, with the formula of its score over an item's exact
// ratings (brute force, written independently of the designs' code).
func ratingDesigns(t *testing.T, items uint64) []struct {
	name    string
	d       strategies.Rating
	formula func(stars []int64) float64
	x       func(stars []int64) (lo, hi int64)
} {
	t.Helper()
	bayes, err := NewBayesianAverage(BayesianAverageParams{PriorMean: 3.5, Weight: 7}, items, 9)
	if err != nil {
		t.Fatal(err)
	}
	wil, err := NewWilson(WilsonParams{Z: 2.58, Up: 4}, items, 9)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(stars []int64) float64 {
		var s float64
		for _, x := range stars {
			s += float64(x)
		}
		return s
	}
	return []struct {
		name    string
		d       strategies.Rating
		formula func(stars []int64) float64
		x       func(stars []int64) (lo, hi int64)
	}{
		{"naive-average", NewNaiveAverage(items, 9), func(s []int64) float64 { return sum(s) / float64(len(s)) }, nil},
		{"bayesian-average", bayes, func(s []int64) float64 { return (7*3.5 + sum(s)) / (7 + float64(len(s))) }, nil},
		{"wilson", wil, func(s []int64) float64 {
			// Wilson's interval as the worked example writes it:
			// (p̂ + z²/(2n) − z·√((p̂(1−p̂) + z²/(4n))/n)) / (1 + z²/n).
			n, z := float64(len(s)), 2.58
			var up float64
			for _, x := range s {
				if x >= 4 {
					up++
				}
			}
			p := up / n
			return (p + z*z/(2*n) - z*math.Sqrt((p*(1-p)+z*z/(4*n))/n)) / (1 + z*z/n)
		}, nil},
	}
}

// Every design's score of every item is its formula over the item's exact
// ratings, and its top k is the brute-force sort of those scores (score
// descending, key ascending), after each batch of small random streams.
func TestRatingScoresMatchFormula(t *testing.T) {
	for seed := range uint64(5) {
		ev := ratingEvents(seed, 3000, 700)
		for _, c := range ratingDesigns(t, 100) { // sized for fewer items than come: the tally grows
			t.Run(fmt.Sprintf("%s/seed=%d", c.name, seed), func(t *testing.T) {
				stars := map[uint64][]int64{}
				for lo := 0; lo < len(ev); lo += 500 {
					batch := ev[lo:min(lo+500, len(ev))]
					c.d.Observe(batch)
					for _, e := range batch {
						if e.Op == workload.Write {
							stars[e.Key] = append(stars[e.Key], e.Delta)
						}
					}
					checkRatingDesign(t, c.d)
					want := make([]strategies.Rated, 0, len(stars))
					for key, s := range stars {
						got, n := c.d.Score(key)
						f := c.formula(s)
						if n != int64(len(s)) || math.Abs(got-f) > 1e-12 {
							t.Fatalf("item %#x: got score %v of %d ratings, want %v of %d", key, got, n, f, len(s))
						}
						want = append(want, strategies.Rated{Key: key, Score: got, Ratings: n})
					}
					slices.SortFunc(want, func(a, b strategies.Rated) int {
						if a.Score != b.Score {
							if a.Score > b.Score {
								return -1
							}
							return 1
						}
						if a.Key < b.Key {
							return -1
						}
						return 1
					})
					for _, k := range []int{0, 1, 10, 50, len(want), len(want) + 5} {
						got := c.d.Top(k)
						if w := want[:min(k, len(want))]; !slices.Equal(got, w) {
							t.Fatalf("Top(%d) after %d events: got %v…, want %v…", k, lo+len(batch), got[:min(3, len(got))], w[:min(3, len(w))])
						}
					}
				}
				if got, n := c.d.Score(12345); n != 0 {
					t.Errorf("an item never rated: got %v of %d ratings", got, n)
				}
			})
		}
	}
}

// checkRatingDesign validates a design's tally: its table, n ≥ 1, and the
// sum or up votes within what n ratings of 1..5 stars allow.
func checkRatingDesign(t *testing.T, d strategies.Rating) {
	t.Helper()
	var err error
	switch x := d.(type) {
	case *NaiveAverage:
		err = x.t.check(1, 5)
	case *BayesianAverage:
		err = x.t.check(1, 5)
	case *Wilson:
		err = x.t.check(0, 1)
	default:
		t.Fatalf("no check for %T", d)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// The seed's example: m = 4.0, C = 20 and one 5-star review make
// (20·4 + 5)/21 = 4.0476, printed 4.05, both by the plan and by the
// design's own score; the naive average says 5 and Wilson 1/(1 + z²).
func TestRatingOneFiveStar(t *testing.T) {
	one := []workload.Event{{Key: 42, Delta: 5, Op: workload.Write}}
	for _, c := range []struct {
		typ  string
		want float64
	}{
		{"naive-average", 5},
		{"bayesian-average", 85.0 / 21},
		{"wilson", 1 / (1 + 1.96*1.96)},
	} {
		typ, err := strategies.Lookup(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		if !typ.Answers(strategies.FamilyRating) {
			t.Errorf("%s does not declare the rating family", c.typ)
		}
		p, err := designtest.DecodeParams(typ, nil)
		if err != nil {
			t.Fatal(err)
		}
		env := strategies.Env{Seed: 1, Keys: 10}
		var plan *strategies.PlanLine
		for _, l := range typ.Plan(p, env) {
			if l.Metric == metrics.OneFiveStar {
				plan = &l
			}
		}
		if plan == nil || math.Abs(plan.Value-c.want) > 1e-15 {
			t.Fatalf("%s: plan %+v, want one_five_star_score %v", c.typ, plan, c.want)
		}
		s, err := typ.Build(p, env)
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(one)
		got, n := s.(strategies.Rating).Score(42)
		if n != 1 || math.Abs(got-plan.Value) > 1e-15 {
			t.Errorf("%s: one 5-star review scores %v (%d ratings), plan %v", c.typ, got, n, plan.Value)
		}
		if c.typ == "bayesian-average" {
			if got != plan.Value {
				t.Errorf("bayesian-average: score %v and plan %v differ in the last bits", got, plan.Value)
			}
			if !strings.Contains(plan.Note, "(20·4 + 5)/21") || !strings.Contains(plan.Note, "≈ 4.05") || fmt.Sprintf("%.2f", got) != "4.05" {
				t.Errorf("bayesian-average: plan note %q does not print the seed's example", plan.Note)
			}
		}
	}
	// The plan uses the design's own m and C.
	typ, _ := strategies.Lookup("bayesian-average")
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "prior_mean", Value: 3.0}, {Key: "weight", Value: int64(4)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range typ.Plan(p, strategies.Env{}) {
		if l.Metric == metrics.OneFiveStar && (l.Value != 17.0/5 || !strings.Contains(l.Note, "(4·3 + 5)/5")) {
			t.Errorf("m = 3, C = 4: plan %v %q, want 3.4 from (4·3 + 5)/5", l.Value, l.Note)
		}
	}
}

// Parameters out of range are refused with the key and what is allowed.
func TestRatingParamsRefused(t *testing.T) {
	for _, c := range []struct {
		typ    string
		params []scenarios.Param
		key    string
		msg    string
	}{
		{"bayesian-average", []scenarios.Param{{Key: "prior_mean", Value: int64(7), Pos: scenarios.Pos{Line: 5}}}, "prior_mean", "params.prior_mean: 7 is out of range (allowed: a number from 1 to 5)"},
		{"bayesian-average", []scenarios.Param{{Key: "prior_mean", Value: 0.5, Pos: scenarios.Pos{Line: 5}}}, "prior_mean", "0.5 is out of range"},
		{"bayesian-average", []scenarios.Param{{Key: "weight", Value: -1.0, Pos: scenarios.Pos{Line: 6}}}, "weight", "params.weight: -1 is out of range (allowed: a number >= 0)"},
		{"bayesian-average", []scenarios.Param{{Key: "weight", Value: "many", Pos: scenarios.Pos{Line: 6}}}, "weight", `"many" is not a number`},
		{"wilson", []scenarios.Param{{Key: "z", Value: 0.0, Pos: scenarios.Pos{Line: 3}}}, "z", "params.z: 0 is out of range (allowed: a number > 0)"},
		{"wilson", []scenarios.Param{{Key: "up", Value: int64(6), Pos: scenarios.Pos{Line: 3}}}, "up", "params.up: 6 is out of range (allowed: 2..5)"},
		{"wilson", []scenarios.Param{{Key: "up", Value: int64(1), Pos: scenarios.Pos{Line: 3}}}, "up", "1 is out of range"},
		{"naive-average", []scenarios.Param{{Key: "weight", Value: int64(1), Pos: scenarios.Pos{Line: 3}}}, "weight", `unknown key "weight" (allowed: none: the design takes no parameters)`},
	} {
		typ, err := strategies.Lookup(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		_, err = designtest.DecodeParams(typ, c.params)
		if designtest.FaultKey(err) != c.key || designtest.FaultLine(err, c.params) != c.params[0].Pos.Line || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s %v: got %v, want an error on %s at line %d containing %q", c.typ, c.params, err, c.key, c.params[0].Pos.Line, c.msg)
		}
	}
	if _, err := NewBayesianAverage(BayesianAverageParams{PriorMean: 7, Weight: 20}, 10, 1); err == nil ||
		!strings.HasPrefix(err.Error(), "bayesian-average: parameter prior_mean: 7 is out of range") {
		t.Errorf("NewBayesianAverage(m = 7): got %v", err)
	}
	if _, err := NewWilson(WilsonParams{Z: math.NaN(), Up: 4}, 10, 1); err == nil || !strings.HasPrefix(err.Error(), "wilson: parameter z: NaN is out of range") {
		t.Errorf("NewWilson(z = NaN): got %v", err)
	}
}

// Observe allocates nothing once the items announced have all been seen,
// and nothing at all for a tally sized for them.
func TestRatingObserveNoAlloc(t *testing.T) {
	ev := ratingEvents(3, 4096, 1000)
	for _, c := range ratingDesigns(t, 1003) {
		if allocs := testing.AllocsPerRun(20, func() { c.d.Observe(ev) }); allocs != 0 {
			t.Errorf("%s: %v allocs per Observe of a batch, want 0", c.name, allocs)
		}
		if b := c.d.Bytes(); b != ratingTallyBytes(1003) {
			t.Errorf("%s: %d bytes, planned %d", c.name, b, ratingTallyBytes(1003))
		}
	}
}

// BenchmarkRatingObserve: each design's Observe beside two floors doing
// the same work — per item a count and a sum — in a Go map, and in arrays
// indexed by the item's popularity rank (keys not scrambled: the fastest
// any design can be). A Zipf s = 1 stream of 10^5 items.
func BenchmarkRatingObserve(b *testing.B) {
	const items = 100_000
	for _, scramble := range []bool{true, false} {
		rs, err := workload.NewRatings(workload.RatingsConfig{Seed: 1, Ratings: 1 << 20, Items: items, S: 1, Scramble: scramble,
			ScaleMin: 1, ScaleMax: 5, QualityMin: 2, QualityMax: 4.8})
		if err != nil {
			b.Fatal(err)
		}
		var ev, buf []workload.Event
		for i := range rs.Chunks() {
			buf = rs.Chunk(i, buf)
			ev = append(ev, buf...)
		}
		run := func(name string, observe func([]workload.Event)) {
			b.Run(name, func(b *testing.B) {
				observe(ev) // every item seen: the steady state
				b.ReportAllocs()
				var events int
				for b.Loop() {
					for lo := 0; lo < len(ev); lo += 4096 {
						observe(ev[lo : lo+4096])
					}
					events += len(ev)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
			})
		}
		if !scramble {
			n, sum := make([]int64, items+1), make([]int64, items+1)
			run("impl=floor", func(batch []workload.Event) {
				for i := range batch {
					if e := &batch[i]; e.Op == workload.Write {
						n[e.Key]++
						sum[e.Key] += e.Delta
					}
				}
			})
			continue
		}
		m := map[uint64]*ratingCounts{}
		run("impl=map", func(batch []workload.Event) {
			for i := range batch {
				if e := &batch[i]; e.Op == workload.Write {
					c := m[e.Key]
					if c == nil {
						c = &ratingCounts{}
						m[e.Key] = c
					}
					c.n++
					c.x += e.Delta
				}
			}
		})
		bayes, _ := NewBayesianAverage(BayesianAverageParams{PriorMean: 4, Weight: 20}, items, 1)
		wil, _ := NewWilson(WilsonParams{Z: 1.96, Up: 4}, items, 1)
		for _, d := range []struct {
			name string
			r    strategies.Rating
		}{{"naive-average", NewNaiveAverage(items, 1)}, {"bayesian-average", bayes}, {"wilson", wil}} {
			run("impl="+d.name, d.r.Observe)
		}
	}
}
