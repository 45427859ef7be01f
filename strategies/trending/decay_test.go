package trending

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// naiveDecay is decay the naive way, the ground truth of the tests: at
// every new event time every key's score is multiplied by 2^(−Δ/h), then
// the event's Delta is added.
type naiveDecay struct {
	h      float64
	scores map[uint64]float64
	last   int64
	total  float64 // the total decayed weight at last
	set    bool
}

func newNaiveDecay(h time.Duration) *naiveDecay {
	return &naiveDecay{h: float64(h), scores: map[uint64]float64{}}
}

func (nd *naiveDecay) observe(batch []workload.Event) {
	for _, e := range batch {
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		if nd.set && e.At != nd.last {
			f := math.Exp2(-float64(e.At-nd.last) / nd.h)
			for k, v := range nd.scores {
				nd.scores[k] = v * f
			}
			nd.total *= f
		}
		nd.last, nd.set = e.At, true
		nd.scores[e.Key] += float64(e.Delta)
		nd.total += float64(e.Delta)
	}
}

// at returns every key's score at now ≥ the last event, and their total.
func (nd *naiveDecay) at(now int64) (map[uint64]float64, float64) {
	f := math.Exp2(-float64(now-nd.last) / nd.h)
	out := make(map[uint64]float64, len(nd.scores))
	for k, v := range nd.scores {
		out[k] = v * f
	}
	return out, nd.total * f
}

// top returns the k best of scores in answer order.
func naiveTop(scores map[uint64]float64, k int) []strategies.Trend {
	all := make([]strategies.Trend, 0, len(scores))
	for key, s := range scores {
		all = append(all, strategies.Trend{Key: key, Score: s})
	}
	slices.SortFunc(all, func(a, b strategies.Trend) int {
		switch {
		case worseTrend(&b, &a):
			return -1
		case worseTrend(&a, &b):
			return 1
		}
		return 0
	})
	return all[:min(k, len(all))]
}

// decayTol is how far forward decay may be from naive decay: a relative
// 1e-9 (both carry rounding errors of order 1e-13: 512 half-lives of
// exponent at 2^−52, and one rounding a tick for naive decay over at most
// 1e5 ticks), and an absolute 1e-200 for scores that underflow on one side
// and not quite on the other (a key unseen for some 660 half-lives).
func decayClose(got, want float64) bool {
	return math.Abs(got-want) <= 1e-9*math.Abs(want)+1e-200
}

// batches cuts ev into batches of seeded random sizes 1..2·mean.
func batches(seed uint64, ev []workload.Event, mean int) [][]workload.Event {
	r := rand.New(rand.NewPCG(seed, 0x6261746368))
	var out [][]workload.Event
	for lo := 0; lo < len(ev); {
		hi := min(len(ev), lo+1+r.IntN(2*mean))
		out = append(out, ev[lo:hi])
		lo = hi
	}
	return out
}

// trendChecker compares a Trending answer with naive decay's scores.
func checkTrendsExact(t *testing.T, what string, got []strategies.Trend, truth map[uint64]float64, k int) {
	t.Helper()
	want := naiveTop(truth, k)
	if len(got) != len(want) {
		t.Fatalf("%s: %d trends, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !decayClose(got[i].Score, want[i].Score) || !decayClose(got[i].Score, truth[got[i].Key]) {
			t.Fatalf("%s: trend %d is key %d with %v; naive: %d with %v (key %d's naive score %v)",
				what, i, got[i].Key, got[i].Score, want[i].Key, want[i].Score, got[i].Key, truth[got[i].Key])
		}
		if i > 0 && worseTrend(&got[i-1], &got[i]) {
			t.Fatalf("%s: trends %d and %d out of order: %v, %v", what, i-1, i, got[i-1], got[i])
		}
	}
}

// Forward decay equals naive decay, every key's score at every checkpoint,
// including half-lives short enough that the landmark moves several times
// and idle keys underflow and are dropped.
func TestDecayExactMatchesNaive(t *testing.T) {
	for _, tc := range []struct {
		name      string
		h, gap    time.Duration
		minMoves  int
		keys      int
		hintKeys  uint64
		batchMean int
	}{
		{"h=30m/gap=10s", 30 * time.Minute, 10 * time.Second, 0, 300, 300, 64},
		{"h=1m/gap=30s/moves", time.Minute, 30 * time.Second, 2, 300, 8, 64},  // 1,500 half-lives: 2 moves; the table grows from 8 slots
		{"h=7s/gap=5s/moves", 7 * time.Second, 5 * time.Second, 4, 50, 50, 7}, // 2,140 half-lives: 4 moves
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := designtest.DecayStream(11, 4000, tc.keys, 1, tc.gap)
			d, err := NewDecayExact(tc.h, tc.hintKeys, 5)
			if err != nil {
				t.Fatal(err)
			}
			nd := newNaiveDecay(tc.h)
			r := rand.New(rand.NewPCG(3, 4))
			for bi, b := range batches(7, ev, tc.batchMean) {
				d.Observe(b)
				nd.observe(b)
				if err := d.check(); err != nil {
					t.Fatalf("batch %d: %v", bi, err)
				}
				if bi%5 != 0 || !nd.set {
					continue
				}
				now := nd.last + r.Int64N(int64(tc.h)*3)
				truth, _ := nd.at(now)
				for key, want := range truth {
					if got := d.Score(key, now); !decayClose(got, want) {
						t.Fatalf("batch %d: key %d scores %v, naive %v", bi, key, got, want)
					}
				}
				checkTrendsExact(t, "batch "+strconv.Itoa(bi), d.Trending(10, now), truth, 10)
			}
			// Each move leaves the landmark less than a half-life behind the event.
			span := float64(ev[len(ev)-1].At-ev[0].At) / float64(tc.h)
			if want := int(span / (decayMoveAt + 1)); d.clock.moves < max(want, tc.minMoves) || d.clock.moves > int(span/decayMoveAt) {
				t.Errorf("%d landmark moves over %.0f half-lives, want at least %d", d.clock.moves, span, max(want, tc.minMoves))
			}
			if got := d.Trending(0, nd.last); len(got) != 0 {
				t.Errorf("Trending(0): %v", got)
			}
		})
	}
}

// A landmark move that underflows idle keys' sums drops them by backward
// shift and keeps every other key reachable, with its score.
func TestDecayLandmarkMoveDrops(t *testing.T) {
	const h = time.Microsecond
	d, err := NewDecayExact(h, 1000, 9)
	if err != nil {
		t.Fatal(err)
	}
	nd := newNaiveDecay(h)
	var ev []workload.Event
	for k := range 1000 { // t0: keys 0..999
		ev = append(ev, workload.Event{At: 0, Key: uint64(k), Delta: 1, Op: workload.Write})
	}
	for k := range 500 { // 600 half-lives later: keys 0..499 again (the landmark moves)
		ev = append(ev, workload.Event{At: 600_000, Key: uint64(k), Delta: 1, Op: workload.Write})
	}
	// 600 more: a move by 600 underflows keys 500..999 (2^−1200) but not 0..499 (2^−600).
	ev = append(ev, workload.Event{At: 1_200_000, Key: 5000, Delta: 2, Op: workload.Write})
	for _, b := range batches(1, ev, 100) {
		d.Observe(b)
		nd.observe(b)
		if err := d.check(); err != nil {
			t.Fatal(err)
		}
	}
	if d.clock.moves != 2 || d.Len() != 501 {
		t.Fatalf("%d moves, %d keys held; want 2 and 501", d.clock.moves, d.Len())
	}
	truth, _ := nd.at(1_200_000)
	for key, want := range truth {
		if got := d.Score(key, 1_200_000); !decayClose(got, want) {
			t.Fatalf("key %d scores %v, naive %v", key, got, want)
		}
	}
	checkTrendsExact(t, "after the moves", d.Trending(600, 1_200_000), truth, 501)
}

// The Space-Saving of decayed weights against naive decay: a monitored
// key's score is never below its true score and at most its error above;
// the scores sum to the total decayed weight; every key above W/m is
// monitored; with m at least the keys it is exact.
func TestDecaySpaceSavingBounds(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    int
		h    time.Duration
		gap  time.Duration
	}{
		{"m=8/h=30m", 8, 30 * time.Minute, 10 * time.Second},
		{"m=32/h=30m", 32, 30 * time.Minute, 20 * time.Second},
		{"m=32/h=1m/moves", 32, time.Minute, 30 * time.Second},
		{"m=500/exact", 500, 30 * time.Minute, 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := designtest.DecayStream(21, 4000, 200, 0.8, tc.gap)
			s, err := NewDecaySpaceSaving(tc.h, tc.m, 3)
			if err != nil {
				t.Fatal(err)
			}
			nd := newNaiveDecay(tc.h)
			r := rand.New(rand.NewPCG(5, 6))
			for bi, b := range batches(8, ev, 50) {
				s.Observe(b)
				nd.observe(b)
				if err := s.check(); err != nil {
					t.Fatalf("batch %d: %v", bi, err)
				}
				if bi%4 != 0 || !nd.set {
					continue
				}
				now := nd.last + r.Int64N(int64(tc.h))
				truth, total := nd.at(now)
				held := map[uint64]bool{}
				sum := 0.0
				for _, c := range s.counters(now) {
					held[c.key] = true
					sum += c.score
					tr := truth[c.key]
					if c.score < tr-1e-9*tr-1e-200 || c.score-c.err > tr+1e-9*tr+1e-200 {
						t.Fatalf("batch %d: key %d scores %v with error %v, naive %v", bi, c.key, c.score, c.err, tr)
					}
					if tc.m >= 200 && !decayClose(c.score, tr) {
						t.Fatalf("batch %d: m ≥ keys, key %d scores %v, naive %v", bi, c.key, c.score, tr)
					}
				}
				if !decayClose(sum, total) {
					t.Fatalf("batch %d: scores sum to %v, naive total %v", bi, sum, total)
				}
				bar := total / float64(tc.m) * (1 + 1e-9)
				if mn := s.minScore(now); mn > bar {
					t.Fatalf("batch %d: min counter %v above W/m = %v", bi, mn, bar)
				}
				for key, tr := range truth {
					if tr > bar && !held[key] {
						t.Fatalf("batch %d: key %d with %v > W/m = %v not monitored", bi, key, tr, bar)
					}
				}
				// Trending is the top of the counters.
				cs := map[uint64]float64{}
				for _, c := range s.counters(now) {
					cs[c.key] = c.score
				}
				if got, want := s.Trending(10, now), naiveTop(cs, 10); !slices.Equal(got, want) {
					t.Fatalf("batch %d: Trending %v, counters' top %v", bi, got, want)
				}
			}
			if tc.h == time.Minute && s.clock.moves < 2 {
				t.Errorf("%d landmark moves, want at least 2", s.clock.moves)
			}
		})
	}
}

// A simulated week at h = 30 min (336 half-lives, no landmark move) and at
// h = 1 min (10,080 half-lives, 19 moves): no score is Inf or NaN and every
// key stays within 1e-9 of naive decay.
func TestDecayWeek(t *testing.T) {
	week := 7 * 24 * time.Hour
	n := 60480 // one event every 10 s on average
	if testing.Short() {
		n = 10080
	}
	for _, h := range []time.Duration{30 * time.Minute, time.Minute} {
		for _, m := range []int{0, 64} {
			t.Run("h="+h.String()+"/counters="+strconv.Itoa(m), func(t *testing.T) {
				ev := designtest.DecayStream(31, n, 300, 1, week/time.Duration(n)*4/3) // one in four shares a time
				var s interface {
					strategies.Trending
					check() error
				}
				var err error
				if m == 0 {
					s, err = NewDecayExact(h, 300, 1)
				} else {
					s, err = NewDecaySpaceSaving(h, m, 1)
				}
				if err != nil {
					t.Fatal(err)
				}
				nd := newNaiveDecay(h)
				day := ev[0].At + int64(24*time.Hour)
				for _, b := range batches(9, ev, 500) {
					s.Observe(b)
					nd.observe(b)
					if nd.last < day {
						continue
					}
					day += int64(6 * time.Hour)
					if err := s.check(); err != nil {
						t.Fatal(err)
					}
					truth, _ := nd.at(nd.last)
					got := s.Trending(20, nd.last)
					for _, tr := range got {
						if math.IsInf(tr.Score, 0) || math.IsNaN(tr.Score) {
							t.Fatalf("key %d scores %v", tr.Key, tr.Score)
						}
					}
					if m == 0 {
						checkTrendsExact(t, "week", got, truth, 20)
					}
				}
				if span := float64(ev[len(ev)-1].At-ev[0].At) / float64(week); span < 0.95 || span > 1.05 {
					t.Fatalf("the stream spans %.2f weeks", span)
				}
				moves := 0
				switch x := s.(type) {
				case *DecayExact:
					moves = x.clock.moves
				case *DecaySpaceSaving:
					moves = x.clock.moves
				}
				if want := int(week/h) / decayMoveAt; moves < want-1 || moves > want {
					t.Errorf("%d landmark moves, want about %d", moves, want)
				}
			})
		}
	}
}

// The plan gives the seed's example: A, 1,000 searches an hour ago, is 250
// at h = 30 min; B, 300 a minute ago, is 300 · 0.5^(1/30) ≈ 293.1.
func TestDecayPlan(t *testing.T) {
	typ, err := strategies.Lookup("decay")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		raw          []scenarios.Param
		a, b         float64
		keys, counts float64
	}{
		{nil, 250, 300 * math.Pow(0.5, 1.0/30), 1000, 0},
		{[]scenarios.Param{{Key: "half_life", Value: "1h"}}, 500, 300 * math.Pow(0.5, 1.0/60), 1000, 0},
		{[]scenarios.Param{{Key: "half_life", Value: int64(600)}, {Key: "counters", Value: int64(100)}}, 1000.0 / 64, 300 * math.Pow(0.5, 0.1), 100, 100},
	} {
		p, err := designtest.DecodeParams(typ, tc.raw)
		if err != nil {
			t.Fatal(err)
		}
		env := strategies.Env{Seed: 1, Keys: 1000}
		lines := map[metrics.Metric]float64{}
		for _, l := range typ.Plan(p, env) {
			lines[l.Metric] = l.Value
		}
		if got := lines[metrics.DecayExampleA]; math.Abs(got-tc.a) > 1e-12*tc.a {
			t.Errorf("%v: A = %v, want %v", tc.raw, got, tc.a)
		}
		if got := lines[metrics.DecayExampleB]; math.Abs(got-tc.b) > 1e-12*tc.b {
			t.Errorf("%v: B = %v, want %v", tc.raw, got, tc.b)
		}
		if lines[metrics.KeysTracked] != tc.keys {
			t.Errorf("%v: keys tracked %v, want %v", tc.raw, lines[metrics.KeysTracked], tc.keys)
		}
		s, err := typ.Build(p, env)
		if err != nil {
			t.Fatal(err)
		}
		if got := float64(s.Bytes()); lines[metrics.Bytes] != got {
			t.Errorf("%v: plans %v B, the built design holds %v", tc.raw, lines[metrics.Bytes], got)
		}
		law := s.(strategies.Trending).Law()
		if want := int64(p.(*DecayParams).HalfLife); law.HalfLife != want || law.Window != 0 {
			t.Errorf("%v: law %+v, want half-life %d", tc.raw, law, want)
		}
	}
	if b := 300 * math.Pow(0.5, 1.0/30); math.Round(b*10)/10 != 293.1 {
		t.Errorf("B = %v", b)
	}
}

// Bad parameters are refused naming the key, with the line they came from.
func TestDecayBadParams(t *testing.T) {
	typ, _ := strategies.Lookup("decay")
	for _, tc := range []struct {
		raw  scenarios.Param
		key  string
		says string
	}{
		{scenarios.Param{Key: "half_life", Value: "0s", Pos: scenarios.Pos{Line: 7}}, "half_life", `"0s" is out of range`},
		{scenarios.Param{Key: "half_life", Value: int64(-5), Pos: scenarios.Pos{Line: 7}}, "half_life", "-5 is out of range"},
		{scenarios.Param{Key: "half_life", Value: "1001h", Pos: scenarios.Pos{Line: 7}}, "half_life", "a duration above 0 and at most 1000h"},
		{scenarios.Param{Key: "counters", Value: int64(-1), Pos: scenarios.Pos{Line: 7}}, "counters", "0..10000000"},
		{scenarios.Param{Key: "counters", Value: int64(10_000_001), Pos: scenarios.Pos{Line: 7}}, "counters", "0..10000000"},
		{scenarios.Param{Key: "halflife", Value: "1m", Pos: scenarios.Pos{Line: 7}}, "halflife", "allowed: half_life, counters"},
	} {
		_, err := designtest.DecodeParams(typ, []scenarios.Param{tc.raw})
		if designtest.FaultKey(err) != tc.key || designtest.FaultLine(err, []scenarios.Param{tc.raw}) != 7 || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%v: got %v, want a %s error on line 7 saying %q", tc.raw, err, tc.key, tc.says)
		}
	}
	if _, err := NewDecayExact(0, 10, 1); err == nil || !strings.Contains(err.Error(), "decay: parameter half_life") {
		t.Errorf("NewDecayExact(0): %v", err)
	}
	if _, err := NewDecaySpaceSaving(time.Minute, 0, 1); err == nil || !strings.Contains(err.Error(), "counters") {
		t.Errorf("NewDecaySpaceSaving(m = 0): %v", err)
	}
}

// The same stream gives the same answers whatever the hash seed, byte for
// byte, and Observe allocates nothing once the keys are in.
func TestDecayDeterministicNoAlloc(t *testing.T) {
	ev := designtest.DecayStream(41, 20000, 2000, 1, time.Second)
	for _, m := range []int{0, 100} {
		build := func(seed uint64) interface {
			strategies.Trending
			check() error
		} {
			if m == 0 {
				d, err := NewDecayExact(30*time.Minute, 2000, seed)
				if err != nil {
					t.Fatal(err)
				}
				return d
			}
			s, err := NewDecaySpaceSaving(30*time.Minute, m, seed)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		a, b := build(1), build(2)
		for _, bt := range batches(3, ev, 1000) {
			a.Observe(bt)
			b.Observe(bt)
		}
		now := ev[len(ev)-1].At + int64(time.Minute)
		ta, tb := a.Trending(50, now), b.Trending(50, now)
		if len(ta) != 50 || !slices.Equal(ta, tb) {
			t.Errorf("counters=%d: seeds 1 and 2 answer %v and %v", m, ta[:3], tb[:3])
		}
		batch := ev[len(ev)-4096:]
		if allocs := testing.AllocsPerRun(20, func() { a.Observe(batch) }); allocs != 0 {
			t.Errorf("counters=%d: Observe allocates %v times a batch", m, allocs)
		}
		if err := a.check(); err != nil {
			t.Error(err)
		}
	}
}

// exp2 is math.Exp2 to a few ulps over the exponents forward decay uses,
// negative ones and the exact powers of two included.
func TestDecayExp2(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for i := range 200000 {
		x := -1000 + 1512*r.Float64()
		switch i % 4 {
		case 1:
			x = math.Round(x) // whole half-lives
		case 2:
			x = math.Round(x*1024) / 1024 // table points
		case 3:
			x = 512 * r.Float64() * r.Float64() // mostly small
		}
		got, want := exp2(x), math.Exp2(x)
		if rel := math.Abs(got-want) / want; rel > worst {
			worst = rel
		}
	}
	if worst > 8e-16 {
		t.Errorf("exp2 within %.3g of math.Exp2, want 8e-16 (a few ulps)", worst)
	}
	for _, x := range []float64{0, 1, -1, 511, -1000} {
		if got := exp2(x); got != math.Exp2(x) {
			t.Errorf("exp2(%v) = %v, want %v exactly", x, got, math.Exp2(x))
		}
	}
}
