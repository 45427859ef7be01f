package trending

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

func newWindowedCM(t testing.TB, p WindowedCountMinParams, env strategies.Env) *WindowedCountMin {
	t.Helper()
	s, err := NewWindowedCountMin(p, env)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The window estimate is never below the window's count, for every key of
// the window and every key answered, at every checkpoint of random timed
// streams (as time-buckets' test: gaps past the window, events at bucket
// boundaries, now well after the last event), with sketches small enough
// that keys collide a lot.
func TestWindowedCMNeverBelow(t *testing.T) {
	shapes := []struct {
		bucket, buckets int64
		width, depth    int
	}{{10, 1, 8, 2}, {10, 3, 16, 3}, {7, 7, 64, 4}, {1000, 60, 5, 1}}
	for _, sh := range shapes {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("bucket=%d/W=%d/%dx%d/seed=%d", sh.bucket, sh.buckets, sh.depth, sh.width, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 0x77636d))
				window := sh.bucket * sh.buckets
				s := newWindowedCM(t, WindowedCountMinParams{Bucket: time.Duration(sh.bucket), Window: time.Duration(window),
					Width: sh.width, Depth: sh.depth, Top: 12}, strategies.Env{Seed: seed, Top: 3})
				if got, want := s.Law(), (strategies.TrendLaw{Window: window, Bucket: sh.bucket}); got != want {
					t.Fatalf("Law: got %+v, want %+v", got, want)
				}
				ev := timedStream(r, 3000, 40, sh.bucket, window)
				over := 0
				checkWindowAnswers(t, r, s, ev, window, sh.bucket, 60, func(now int64, got []strategies.Trend, truth map[uint64]uint64) {
					for key, c := range truth {
						if est := s.WindowCount(key); est < c {
							t.Fatalf("at now = %d: key %d estimated %d, window count %d", now, key, est, c)
						} else if est > c {
							over++
						}
					}
					for _, tr := range got {
						if tr.Score < float64(truth[tr.Key]) || tr.Score <= 0 {
							t.Fatalf("at now = %d: %+v, window count %d", now, tr, truth[tr.Key])
						}
					}
					if len(got) > 12 {
						t.Fatalf("%d answers from 12 candidates", len(got))
					}
				})
				t.Logf("%d overestimates", over)
			})
		}
	}
}

// Past 2^32 events in the window the sum's adds saturate: estimates stay
// upper bounds, and a saturated counter of the sum stays saturated when a
// bucket leaves.
func TestWindowedCMSaturates(t *testing.T) {
	s := newWindowedCM(t, WindowedCountMinParams{Bucket: 10, Window: 20, Width: 4, Depth: 2, Top: 2}, strategies.Env{Seed: 1})
	ev := []workload.Event{
		{At: 1, Key: 1, Delta: 3 << 30}, {At: 2, Key: 2, Delta: 3 << 30},
		{At: 11, Key: 1, Delta: 3 << 30}, {At: 25, Key: 2, Delta: 5},
	}
	for i := range ev {
		s.Observe(ev[i : i+1])
		if err := s.check(); err != nil {
			t.Fatal(err)
		}
		truth := bruteWindow(ev[:i+1], s.Law(), ev[i].At)
		for key, c := range truth {
			if est := s.WindowCount(key); est < c {
				t.Fatalf("after event %d: key %d estimated %d, window count %d", i, key, est, c)
			}
		}
		for _, tr := range s.Trending(2, ev[i].At) {
			if tr.Score < float64(truth[tr.Key]) {
				t.Fatalf("after event %d: %+v, window count %d", i, tr, truth[tr.Key])
			}
		}
	}
}

// windowedBoundTrials feeds a steady stream (event i at i ns) to a design
// of seed trial + 1 for each trial and counts, at now = the last event,
// the trials whose largest overestimate over keys passes bound, and per key
// the trials where its own does; truth is the window of law.
func windowedBoundTrials(ev []workload.Event, keys []uint64, law strategies.TrendLaw, bound float64, trials int,
	build func(trial int) *WindowedCountMin) (maxFails int, keyFails []int) {
	now := ev[len(ev)-1].At
	truth := bruteWindow(ev, law, now)
	keyFails = make([]int, len(keys))
	for trial := range trials {
		s := build(trial)
		for lo := 0; lo < len(ev); lo += 4096 {
			s.Observe(ev[lo:min(lo+4096, len(ev))])
		}
		s.Trending(1, now)
		failed := false
		for i, k := range keys {
			if float64(s.WindowCount(k))-float64(truth[k]) > bound {
				keyFails[i]++
				failed = true
			}
		}
		if failed {
			maxFails++
		}
	}
	return maxFails, keyFails
}

// The window bound: a key's score passes its window count by more than
// ε·N (N the window's events) with probability at most δ over the seed,
// since the score is at most the estimate of one count-min of the window's
// events. At d = 3 the rows' 3-wise independence is all Theorem 1's proof
// needs (CountMin), so the bound is proved as it stands. Read per key
// (each key's failures at most the Binomial(T, δ) quantile at 1 − α/keys)
// and pooled over (trial, key) pairs, at α = 10^-6. A design that keeps
// one bucket too many (W + 1: an expiring bucket not leaving) fails the
// per-key reading in every trial: the heaviest key's extra bucket is about
// 2.5·ε·N (the pooled share, a few heavy keys of 10,000, does not see it).
func TestWindowedCMBound(t *testing.T) {
	const alpha, eps, delta = 1e-6, 0.01, 0.05
	const bucket, w = 10000, 4
	sp := designtest.StreamSpec{Seed: 31, Keys: 10000, S: 1, Events: 100000, Scramble: true} // 10 buckets of 10,000
	ev := sp.Gen()
	keys := designtest.Universe(sp)
	law := strategies.TrendLaw{Window: bucket * w, Bucket: bucket}
	var n uint64
	for _, c := range bruteWindow(ev, law, ev[len(ev)-1].At) {
		n += c
	}
	if n != 40000 {
		t.Fatalf("the window holds %d events, want 40,000", n)
	}
	trials := 300
	if testing.Short() {
		trials = 100
	}
	build := func(window int64) func(int) *WindowedCountMin {
		return func(trial int) *WindowedCountMin {
			return newWindowedCM(t, WindowedCountMinParams{Bucket: bucket, Window: time.Duration(window), Epsilon: eps, Delta: delta, Top: 10},
				strategies.Env{Seed: uint64(trial) + 500})
		}
	}
	maxFails, keyFails := windowedBoundTrials(ev, keys, law, eps*float64(n), trials, build(bucket*w))
	for _, check := range []designtest.BoundCheck{designtest.CheckPerKey, designtest.CheckFraction} {
		failure, log := designtest.BoundFailure(check, delta, alpha, trials, len(keys), maxFails, keyFails)
		t.Log(log)
		if failure != "" {
			t.Error(failure)
		}
	}
	t.Run("catches/one-bucket-too-many", func(t *testing.T) {
		const trials = 30
		maxFails, keyFails := windowedBoundTrials(ev, keys, law, eps*float64(n), trials, build(bucket*(w+1)))
		failure, log := designtest.BoundFailure(designtest.CheckPerKey, delta, alpha, trials, len(keys), maxFails, keyFails)
		t.Log(log)
		if failure == "" {
			t.Errorf("W + 1 buckets passed the per-key check: it would not catch an expiring bucket kept")
		}
	})
}

// On skewed streams the answer's top K is the brute force's, rank by rank
// by true count, at every checkpoint, with scores equal to the window
// counts: the sketch is wide enough (w = 2^16, d = 6, 500 keys) that a key
// shares a counter with another in every row with probability about
// (500/2^16)^6 ≈ 2·10^-13 per key and checkpoint (keys are hashed
// independently; the rows of one key pair are 3-wise independent, so a
// single other key covering all rows has probability ≈ 0.07·500/2^48),
// under 10^-8 over the test's keys and checkpoints. The candidates (4 × K)
// then hold the true top K, since the top K keys have events every bucket.
func TestWindowedCMTopK(t *testing.T) {
	const k, bucket, w = 10, 1000, 10
	for _, sp := range []designtest.StreamSpec{
		{Seed: 41, Keys: 500, S: 1.2, Events: 60000, Scramble: true},
		{Seed: 42, Keys: 500, S: 1.5, Events: 60000},
	} {
		t.Run(fmt.Sprintf("s=%g", sp.S), func(t *testing.T) {
			r := rand.New(rand.NewPCG(sp.Seed, 1))
			ev := sp.Gen() // event i at i ns: 1,000 a bucket
			s := newWindowedCM(t, WindowedCountMinParams{Bucket: bucket, Window: bucket * w, Width: 1 << 16, Depth: 6}, strategies.Env{Seed: sp.Seed, Top: k})
			if got, want := s.cands.Bytes(), ds.TopHeapBytes(4*k); got != want {
				t.Fatalf("candidates' heap of %d bytes, want the %d of 4 × K = %d", got, want, 4*k)
			}
			checkWindowAnswers(t, r, s, ev, bucket*w, bucket, 1500, func(now int64, got []strategies.Trend, truth map[uint64]uint64) {
				want := bruteTop(truth)
				if len(got) < min(k, len(want)) {
					t.Fatalf("at now = %d: %d answers, want %d", now, len(got), min(k, len(want)))
				}
				for i := range min(k, len(want)) {
					if tc := float64(truth[got[i].Key]); tc != want[i].Score || got[i].Score != tc {
						t.Fatalf("at now = %d: rank %d is key %d scored %v, window count %v; want window count %v",
							now, i+1, got[i].Key, got[i].Score, tc, want[i].Score)
					}
				}
			})
		})
	}
}

// Observe allocates nothing in the steady state, across rotations.
func TestWindowedCMObserveAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const bucket, w = 1000, 12
	ev := timedStream(r, 20000, 3000, bucket, bucket*w)
	span := (ev[len(ev)-1].At/(bucket*w) + 2) * bucket * w
	s := newWindowedCM(t, WindowedCountMinParams{Bucket: bucket, Window: bucket * w, Width: 500, Depth: 4}, strategies.Env{Seed: 1, Top: 10})
	copies := shiftedCopies(ev, span, 7)
	s.Observe(ev)
	i := 0
	if allocs := testing.AllocsPerRun(5, func() { s.Observe(copies[i]); i++ }); allocs != 0 {
		t.Errorf("Observe across rotations: %v allocations, want 0", allocs)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
}

// Bad windows, shapes and tops are refused naming the key; with no shape
// the sketches take ε = 0.001, δ = 0.01, and top 4 × K.
func TestWindowedCMParams(t *testing.T) {
	checkWindowParams(t, "windowed-count-min", nil)
	typ, _ := strategies.Lookup("windowed-count-min")
	for _, c := range []struct {
		raw []scenarios.Param
		key string
	}{
		{[]scenarios.Param{{Key: "epsilon", Value: 0.01}}, "epsilon"},
		{[]scenarios.Param{{Key: "epsilon", Value: 0.0}, {Key: "delta", Value: 0.1}}, "epsilon"},
		{[]scenarios.Param{{Key: "width", Value: int64(100)}, {Key: "depth", Value: int64(3)}, {Key: "delta", Value: 0.1}}, "width"},
		{[]scenarios.Param{{Key: "depth", Value: int64(40)}, {Key: "width", Value: int64(3)}}, "depth"},
		{[]scenarios.Param{{Key: "top", Value: int64(-1)}}, "top"},
		{[]scenarios.Param{{Key: "bucket", Value: "1s"}, {Key: "window", Value: "18h"}, {Key: "width", Value: int64(1 << 20)}, {Key: "depth", Value: int64(16)}}, "window"},
	} {
		_, err := designtest.DecodeParams(typ, c.raw)
		if err == nil || designtest.FaultKey(err) != c.key {
			t.Errorf("%v: got %v, want a %s error", c.raw, err, c.key)
		}
	}
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "top", Value: int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	var pe *strategies.ParamError
	if err := typ.Check(p, strategies.Env{Top: 10}, false); !errors.As(err, &pe) || pe.Key != "top" || pe.Type != "windowed-count-min" {
		t.Errorf("top 5 for K = 10: got %v, want a top error", err)
	}
	if _, err := typ.Build(p, strategies.Env{Top: 10}); err == nil {
		t.Error("Build: top 5 for K = 10 accepted")
	}
	p, _ = designtest.DecodeParams(typ, nil)
	if err := typ.Check(p, strategies.Env{Top: 10}, false); err != nil {
		t.Fatal(err)
	}
	s, err := typ.Build(p, strategies.Env{Seed: 1, Top: 10})
	if err != nil {
		t.Fatal(err)
	}
	x := s.(*WindowedCountMin)
	if x.agg.Width != 2719 || x.agg.Depth != 5 || len(x.ring) != 60 || x.cands.Bytes() != ds.TopHeapBytes(40) {
		t.Errorf("defaults: %d × %d, W = %d, heap %d bytes; want 5 × 2719, 60, the %d of 40 candidates", x.agg.Depth, x.agg.Width, len(x.ring), x.cands.Bytes(), ds.TopHeapBytes(40))
	}
}

// The plan's bytes are the design's, part by part; the window bound is
// ε times the window's events at the mean rate; the exact buckets' bytes
// bound time-buckets' on the same stream.
func TestWindowedCMPlan(t *testing.T) {
	const w = 12
	ev := designtest.StreamSpec{Seed: 5, Keys: 3000, S: 1, Events: 20000, Scramble: true}.Gen() // event i at i ns
	env := strategies.Env{Seed: 1, Keys: 3000, Events: int64(len(ev)), Duration: int64(len(ev)), Top: 10}
	raw := []scenarios.Param{{Key: "bucket", Value: "1µs"}, {Key: "window", Value: "12µs"}, {Key: "epsilon", Value: 0.01}, {Key: "delta", Value: 0.01}}
	typ, _ := strategies.Lookup("windowed-count-min")
	p, err := designtest.DecodeParams(typ, raw)
	if err != nil {
		t.Fatal(err)
	}
	plan := map[metrics.Metric]float64{}
	for _, l := range typ.Plan(p, env) {
		plan[l.Metric] = l.Value
	}
	s := designtest.BuildDesign(t, "windowed-count-min", raw, env).(*WindowedCountMin)
	s.Observe(ev)
	for _, part := range s.Parts() {
		if plan[part.Metric] != float64(part.Bytes) {
			t.Errorf("%s: planned %v, measured %d", part.Metric, plan[part.Metric], part.Bytes)
		}
	}
	if plan[metrics.TotalBytes] != float64(s.Bytes()) || plan[metrics.WindowBuckets] != w {
		t.Errorf("plan: total %v (measured %d), W %v", plan[metrics.TotalBytes], s.Bytes(), plan[metrics.WindowBuckets])
	}
	if got, want := plan[metrics.OverestimateBound], math.Ceil(0.01*12000); got != want {
		t.Errorf("window bound %v, want ε·12,000 = %v", got, want)
	}
	tb := designtest.BuildDesign(t, "time-buckets", raw[:2], env)
	tb.Observe(ev)
	if exact := plan[metrics.ExactBytes]; float64(tb.Bytes()) > exact || plan[metrics.BytesRatio] != exact/plan[metrics.TotalBytes] {
		t.Errorf("exact_bytes %v (time-buckets holds %d), ratio %v", exact, tb.Bytes(), plan[metrics.BytesRatio])
	}
}
