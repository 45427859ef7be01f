package frequency

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// collidingKeys returns the keys of truth that share a bucket with another
// key of the same fingerprint in some row: the only keys HeavyKeeper may
// count above their truth.
func collidingKeys(s *HeavyKeeper, truth map[uint64]uint64) map[uint64]bool {
	type cell struct {
		off uint64
		fp  uint32
	}
	first := map[cell]uint64{}
	bad := map[uint64]bool{}
	for key := range truth {
		h1, h2, fp := s.hashes(key)
		g := h1
		for off := uint64(0); off < uint64(len(s.buckets)); off += s.width {
			c := cell{off + ds.Reduce(g, s.width), fp}
			if k, ok := first[c]; ok && k != key {
				bad[key], bad[k] = true, true
			} else {
				first[c] = key
			}
			g += h2
		}
	}
	return bad
}

// checkHeavyKeeper checks HeavyKeeper against the truth: no heap count and
// no Count above the true count, but for keys in a fingerprint collision;
// every item within its Err; the invariants.
func checkHeavyKeeper(t *testing.T, s *HeavyKeeper, truth map[uint64]uint64, n uint64) (colliding int) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if s.n != n {
		t.Fatalf("N: got %d, want %d", s.n, n)
	}
	bad := collidingKeys(s, truth)
	for _, it := range s.Top(1 << 20) {
		if tr := truth[it.Key]; !bad[it.Key] && !within(strategies.ErrsUnder, it.Count, it.Err, tr) {
			t.Fatalf("item %+v, true count %d: not under within Err", it, tr)
		}
	}
	for key, tr := range truth {
		if c := s.Count(key); c > tr && !bad[key] {
			t.Fatalf("Count(%d) = %d over the true count %d", key, c, tr)
		}
	}
	return len(bad)
}

// HeavyKeeper never counts a key above its truth, on unit and weighted
// streams, at RedisBloom's defaults and at larger shapes.
func TestHeavyKeeperNeverOver(t *testing.T) {
	streams := []designtest.StreamSpec{
		{Seed: 81, Keys: 100000, S: 1, Events: 200000, Scramble: true},
		{Seed: 82, Keys: 5000, S: 1.5, Events: 100000},
		{Seed: 83, Keys: 2000, S: 0, Events: 50000, Scramble: true},
	}
	shapes := []HeavyKeeperParams{
		{Top: 10, Width: 8, Depth: 7, Decay: 0.9}, // RedisBloom's defaults
		{Top: 50, Width: 1000, Depth: 4, Decay: 0.9},
		{Top: 5, Width: 64, Depth: 2, Decay: 0.5},
		{Top: 20, Width: 300, Depth: 3, Decay: 0.99},
	}
	for _, sp := range streams {
		for _, weighted := range []bool{false, true} {
			ev := sp.Gen()
			if weighted {
				r := rand.New(rand.NewPCG(sp.Seed, 3))
				for i := range ev {
					ev[i].Delta = 1 + r.Int64N(8)
					if r.IntN(100) == 0 {
						ev[i].Delta = 1 + r.Int64N(3000)
					}
				}
			}
			for _, p := range shapes {
				t.Run(fmt.Sprintf("s=%g/weighted=%v/top=%d/w=%d/d=%d/b=%g", sp.S, weighted, p.Top, p.Width, p.Depth, p.Decay), func(t *testing.T) {
					s, err := NewHeavyKeeper(p, 5)
					if err != nil {
						t.Fatal(err)
					}
					truth := map[uint64]uint64{}
					var n uint64
					const batch = 24989
					for lo := 0; lo < len(ev); lo += batch {
						b := ev[lo:min(lo+batch, len(ev))]
						s.Observe(b)
						for _, e := range b {
							truth[e.Key] += uint64(e.Delta)
							n += uint64(e.Delta)
						}
						if c := checkHeavyKeeper(t, s, truth, n); c > 2 {
							t.Errorf("%d keys in fingerprint collisions: expected about none", c)
						}
					}
				})
			}
		}
	}
}

// The decay law, sampled against its exact distribution. A bucket held by
// another fingerprint with count c gets m unit trials of key x: each
// decays it with probability b^c, and the one that takes it to 0 gives it
// to x with the trials left, itself included. decayOutcomes works the law
// out exactly; value maps an outcome to a number in [−m, c] (the count
// left, negative if x took the bucket). The mean of T samples is within
// Hoeffding's R·√(ln(2/α)/(2T)) of the exact mean, R = c + m, except with
// probability α; with α = 1e-6 / (2 × cases) a correct build fails less than
// once in a million runs (also testing P(x took it) the same way). A wrong
// law (1 − b^c, b^(c+1)), a takeover at the trials left ± 1, a decay by
// the whole delta, are each several bounds off in at least one case.
func TestHeavyKeeperDecayLaw(t *testing.T) {
	cases := []struct {
		b    float64
		c, m uint32
	}{
		{0.9, 1, 1}, {0.9, 3, 1}, {0.9, 3, 5}, {0.9, 2, 40}, {0.9, 10, 3}, {0.5, 2, 6}, {0.98, 30, 200}, {0.9, 60, 7},
	}
	const T = 200_000
	alpha := 1e-6 / float64(2*len(cases))
	for _, c := range cases {
		t.Run(fmt.Sprintf("b=%g/c=%d/m=%d", c.b, c.c, c.m), func(t *testing.T) {
			foreign, owned := decayOutcomes(c.b, int(c.c), int(c.m))
			var wantMean, wantOwned float64
			for v, p := range foreign {
				wantMean += float64(v) * p
			}
			for r, p := range owned {
				wantMean -= float64(r) * p
				wantOwned += p
			}
			s, err := NewHeavyKeeper(HeavyKeeperParams{Top: 1, Width: 1, Depth: 1, Decay: c.b}, 9)
			if err != nil {
				t.Fatal(err)
			}
			const key = 12345
			_, _, fp := s.hashes(key)
			var sum, nOwned float64
			for range T {
				s.buckets[0] = hkBucket{fp: fp ^ 1, count: c.c}
				s.add(key, uint64(c.m))
				bk := s.buckets[0]
				if bk.fp == fp {
					sum -= float64(bk.count)
					nOwned++
				} else {
					sum += float64(bk.count)
				}
			}
			tol := float64(c.c+c.m) * math.Sqrt(math.Log(2/alpha)/(2*T))
			if got := sum / T; math.Abs(got-wantMean) > tol {
				t.Errorf("mean outcome: got %.4f, exact %.4f (tolerance %.4f)", got, wantMean, tol)
			}
			tolP := math.Sqrt(math.Log(2/alpha) / (2 * T))
			if got := nOwned / T; math.Abs(got-wantOwned) > tolP {
				t.Errorf("P(taken): got %.4f, exact %.4f (tolerance %.4f)", got, wantOwned, tolP)
			}
		})
	}
}

// decayOutcomes is the exact law of a bucket of count c, held by another
// fingerprint, after m unit trials of key x: foreign[v] = P(still held by
// the other with count v), owned[r] = P(taken by x with count r).
func decayOutcomes(b float64, c, m int) (foreign, owned map[int]float64) {
	p := map[int]float64{c: 1}
	owned = map[int]float64{}
	for trial := 1; trial <= m; trial++ {
		next := map[int]float64{}
		for v, pv := range p {
			d := math.Pow(b, float64(v))
			next[v] += pv * (1 - d)
			if v == 1 {
				owned[m-trial+1] += pv * d
			} else {
				next[v-1] += pv * d
			}
		}
		p = next
	}
	return p, owned
}

// Top-k recall on skewed streams, sized from a bound this test proves
// rather than measures: if some row holds the bucket of a true top-10 key
// x for x alone (no other key of the stream maps there), that bucket counts
// x exactly, so x's last estimate is its true count; and then x ends in
// the heap, since a key with a larger heap count has at least as large a
// true count, and 10 keys other than x with true counts ≥ x's would put x
// outside the true top 10 (the counts are compared as multisets, so ties
// at the 10th place do not matter). A row is shared with probability
// 1 − (1 − 1/w)^(K−1) over K keys, so with d independent rows P(recall < 1)
// ≤ 10·(1 − (1 − 1/w)^(K−1))^d, plus a fingerprint collision among K keys
// in one of x's buckets, ≤ 10·d·K/(w·2^32). At w = 8,192, d = 12 and
// K ≤ 2,048 that is below 1.5e-7 a stream; the test sums it over its
// streams and requires the sum to be below 1e-6. The other 11 rows of each
// key are shared: the decays run, the heap turns over.
func TestHeavyKeeperRecall(t *testing.T) {
	const w, d, top = 8192, 12, 10
	var bound float64
	for i, sp := range []designtest.StreamSpec{
		{Seed: 91, Keys: 2048, S: 1.1, Events: 400000, Scramble: true},
		{Seed: 92, Keys: 2048, S: 1.3, Events: 300000},
		{Seed: 93, Keys: 2000, S: 1.0, Events: 400000, Scramble: true},
		{Seed: 94, Keys: 1500, S: 0.9, Events: 300000},
	} {
		ev := sp.Gen()
		truth, _ := designtest.ExactCounts(ev)
		k := float64(len(truth))
		shared := 1 - math.Pow(1-1.0/w, k-1)
		bound += top * (math.Pow(shared, d) + d*k/(w*0x1p32))
		s, err := NewHeavyKeeper(HeavyKeeperParams{Top: top, Width: w, Depth: d, Decay: 0.9}, uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(ev)
		var got, want []uint64
		for _, it := range s.Top(top) {
			got = append(got, truth[it.Key])
		}
		for _, it := range designtest.TrueTop(truth, top) {
			want = append(want, it.Count)
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%+v: the answer's true counts %v, the true top %d's %v", sp, got, top, want)
		}
	}
	if bound > 1e-6 {
		t.Fatalf("the test's failure bound is %g, want < 1e-6: resize it", bound)
	}
}

// The same seed gives the same sketch and answers; another seed, other buckets.
func TestHeavyKeeperDeterministic(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 95, Keys: 30000, S: 1, Events: 100000, Scramble: true}.Gen()
	p := HeavyKeeperParams{Top: 10, Width: 256, Depth: 3, Decay: 0.9}
	run := func(seed uint64) *HeavyKeeper {
		s, err := NewHeavyKeeper(p, seed)
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(ev)
		return s
	}
	a, b, c := run(3), run(3), run(4)
	if !slices.Equal(a.buckets, b.buckets) || fmt.Sprint(a.Top(10)) != fmt.Sprint(b.Top(10)) {
		t.Errorf("same seed, different results")
	}
	if slices.Equal(a.buckets, c.buckets) {
		t.Errorf("seeds 3 and 4 gave the same buckets")
	}
}

// Reads, zero and negative deltas are ignored.
func TestHeavyKeeperIgnores(t *testing.T) {
	s, _ := NewHeavyKeeper(HeavyKeeperParams{Top: 3, Width: 8, Depth: 7, Decay: 0.9}, 1)
	s.Observe([]workload.Event{{Key: 1, Delta: 2}, {Key: 2, Op: workload.Read, Delta: 1}, {Key: 3, Delta: 0}, {Key: 4, Delta: -3}})
	if got := s.Top(10); len(got) != 1 || got[0] != (strategies.Item{Key: 1, Count: 2, Err: 0}) || s.n != 2 {
		t.Fatalf("got %+v (N = %d), want only key 1 counted 2", got, s.n)
	}
}

func TestHeavyKeeperParams(t *testing.T) {
	typ, err := strategies.Lookup("heavykeeper")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		raw  []scenarios.Param
		key  string
		want string
	}{
		{nil, "top", `missing required key "top" (allowed: 1..100000)`},
		{[]scenarios.Param{{Key: "top", Value: int64(100001)}}, "top", "100001 is out of range (allowed: 1..100000)"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "width", Value: int64(0)}}, "width", "0 is out of range (allowed: 1..67108864)"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "depth", Value: int64(33)}}, "depth", "33 is out of range (allowed: 1..32)"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "width", Value: int64(1 << 26)}, {Key: "depth", Value: int64(8)}}, "width", "over 268435456 buckets"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "decay", Value: 0.0}}, "decay", "0 is out of range (allowed: a number in (0,1))"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "decay", Value: 1.0}}, "decay", "1 is out of range"},
		{[]scenarios.Param{{Key: "top", Value: int64(10)}, {Key: "decay", Value: math.NaN()}}, "decay", ".nan is out of range"},
	} {
		if _, err := designtest.DecodeParams(typ, c.raw); err == nil || !designtest.ContainsAll(err.Error(), c.key, c.want) {
			t.Errorf("%v: got %v, want a %s error with %q", c.raw, err, c.key, c.want)
		}
	}
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "top", Value: int64(10)}})
	if err != nil {
		t.Fatal(err)
	}
	if *p.(*HeavyKeeperParams) != (HeavyKeeperParams{Top: 10, Width: 8, Depth: 7, Decay: 0.9}) {
		t.Errorf("defaults: got %+v, want RedisBloom's width 8, depth 7, decay 0.9", p)
	}
	s, err := typ.Build(p, strategies.Env{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	plan := map[metrics.Metric]float64{}
	for _, l := range typ.Plan(p, strategies.Env{}) {
		plan[l.Metric] = l.Value
	}
	parts := s.(strategies.Parted).Parts()
	if plan[metrics.Bytes] != float64(parts[0].Bytes) || plan[metrics.HeapBytes] != float64(parts[1].Bytes) || plan[metrics.TotalBytes] != float64(s.Bytes()) {
		t.Errorf("plan bytes %v + %v = %v, measured %+v = %d", plan[metrics.Bytes], plan[metrics.HeapBytes], plan[metrics.TotalBytes], parts, s.Bytes())
	}
}

// Observe allocates nothing once the heap is full.
func TestHeavyKeeperObserveAllocs(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 96, Keys: 50000, S: 1, Events: 1 << 16, Scramble: true}.Gen()
	for i := range ev {
		if i%50 == 0 {
			ev[i].Delta = 7 // the weighted path too
		}
	}
	s, _ := NewHeavyKeeper(HeavyKeeperParams{Top: 10, Width: 2000, Depth: 5, Decay: 0.9}, 1)
	s.Observe(ev)
	if allocs := testing.AllocsPerRun(5, func() { s.Observe(ev[:4096]) }); allocs != 0 {
		t.Errorf("Observe of a batch: got %v allocations, want 0", allocs)
	}
}
