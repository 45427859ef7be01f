package workload

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Tolerances of the timed tests are sized as in zipf_test.go, from theory
// and over the choice of seed, but tighter: each of the 32 statistical
// checks of this file fails a correct build with probability pTimed =
// 2·10^−8, so all of them together less than once in a million runs
// (zTimed ≈ 5.6 sd for normal statistics, χ² quantiles for sums of
// squares, the Dvoretzky–Kiefer–Wolfowitz–Massart bound for
// Kolmogorov–Smirnov). The Even checks are exact.
const pTimed = 2e-8

var zTimed = distuv.UnitNormal.Quantile(1 - pTimed/2)

const msNs = int64(1_000_000) // a millisecond in ns

// matchPhases is a small match day: a ramp before the start, a steady
// phase, a spike when a wicket falls, a fall back to a trickle, a silence
// and a tail. Its integral is 143,650 writes over 3.5 s.
func matchPhases() []Phase {
	return []Phase{
		{Duration: 800 * msNs, Rate: 0, To: 40_000},
		{Duration: 1000 * msNs, Rate: 40_000, To: 40_000},
		{Duration: 200 * msNs, Rate: 40_000, To: 120_000},
		{Duration: 300 * msNs, Rate: 120_000, To: 120_000},
		{Duration: 500 * msNs, Rate: 120_000, To: 10_000},
		{Duration: 250 * msNs, Rate: 0, To: 0},
		{Duration: 450 * msNs, Rate: 7_000, To: 7_000},
	}
}

func matchConfig() TimedConfig {
	return TimedConfig{
		Seed:     2024,
		Label:    "views",
		Keys:     1_000_000,
		S:        1,
		Scramble: true,
		Arrivals: Even,
		Phases:   matchPhases(),
		Reads:    3_000,
		Window:   37 * msNs,
	}
}

// mustTimed builds a stream and checks the invariants of its intensities.
func mustTimed(t testing.TB, cfg TimedConfig) *Timed {
	t.Helper()
	tm, err := NewTimed(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []*intensity{&tm.writes, &tm.reads} {
		if err := in.check(); err != nil {
			t.Fatal(err)
		}
	}
	return tm
}

// timedAll returns the whole stream built by one goroutine in order, and
// checks on the way that every chunk's events lie in its window.
func timedAll(t testing.TB, tm *Timed) []Event {
	t.Helper()
	var all, buf []Event
	w := tm.Config().Window
	for i := range tm.Chunks() {
		buf = tm.Chunk(i, buf)
		start, end := int64(i)*w, min(int64(i+1)*w, tm.Duration())
		for j, e := range buf {
			if e.At < start || e.At >= end {
				t.Fatalf("chunk %d event %d: got At %d, want in its window [%d, %d)", i, j, e.At, start, end)
			}
		}
		all = append(all, buf...)
	}
	return all
}

// checkOrder checks that events are sorted by (At, ID), equal pairs only
// for a write and its resend at delay 0.
func checkOrder(t *testing.T, events []Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		a, b := events[i-1], events[i]
		if a.At > b.At || a.At == b.At && a.ID > b.ID || a.At == b.At && a.ID == b.ID && a != b {
			t.Fatalf("events %d, %d: got (At %d, ID %#x) before (At %d, ID %#x), want sorted by (At, ID)", i-1, i, a.At, a.ID, b.At, b.ID)
		}
	}
}

// splitOps returns the writes and the reads of a stream.
func splitOps(events []Event) (writes, reads []Event) {
	for _, e := range events {
		if e.Op == Write {
			writes = append(writes, e)
		} else {
			reads = append(reads, e)
		}
	}
	return writes, reads
}

// testCum is Λ(x) computed afresh from the phases: the trapezoids of the
// phases before x and the part of the one holding it.
func testCum(phases []Phase, x float64) float64 {
	var sum, start float64
	for _, ph := range phases {
		d := float64(ph.Duration)
		u := min(max(x-start, 0), d)
		sum += (ph.Rate*u + (ph.To-ph.Rate)*u*u/(2*d)) / 1e9
		start += d
	}
	return sum
}

// timedCount returns how many events have At in [a, b).
func timedCount(events []Event, a, b int64) int {
	lo, _ := slices.BinarySearchFunc(events, a, func(e Event, at int64) int { return cmp.Compare(e.At, at) })
	hi, _ := slices.BinarySearchFunc(events, b, func(e Event, at int64) int { return cmp.Compare(e.At, at) })
	return hi - lo
}

func TestNewTimedErrors(t *testing.T) {
	checkRefused(t, matchConfig, NewTimed, []refusal[TimedConfig]{
		{"keys=0", func(c *TimedConfig) { c.Keys = 0 }, "workload: timed keys 0 not in [1, 1e9]"},
		{"keys>1e9", func(c *TimedConfig) { c.Keys = 2e9 }, "workload: timed keys 2000000000 not in [1, 1e9]"},
		{"s<0", func(c *TimedConfig) { c.S = -1 }, "workload: timed exponent s -1 not a finite number >= 0"},
		{"s=NaN", func(c *TimedConfig) { c.S = math.NaN() }, "workload: timed exponent s NaN not a finite number >= 0"},
		{"arrivals", func(c *TimedConfig) { c.Arrivals = 2 }, "workload: timed arrivals 2 not Even (0) or Poisson (1)"},
		{"no phases", func(c *TimedConfig) { c.Phases = nil }, "workload: timed stream has no phases, want at least 1"},
		{"duration=0", func(c *TimedConfig) { c.Phases[2].Duration = 0 }, "workload: timed phase 2: duration 0 ns not > 0"},
		{"duration<0", func(c *TimedConfig) { c.Phases[0].Duration = -5 }, "workload: timed phase 0: duration -5 ns not > 0"},
		{"rate<0", func(c *TimedConfig) { c.Phases[1].Rate = -1 }, "workload: timed phase 1: rate -1 writes/s not a finite number >= 0"},
		{"rate=Inf", func(c *TimedConfig) { c.Phases[1].Rate = math.Inf(1) }, "workload: timed phase 1: rate +Inf writes/s not a finite number >= 0"},
		{"to=NaN", func(c *TimedConfig) { c.Phases[3].To = math.NaN() }, "workload: timed phase 3: to NaN writes/s not a finite number >= 0"},
		{"too long", func(c *TimedConfig) { c.Phases[4].Duration = math.MaxInt64 - 1000 },
			"workload: timed phases 0..4 last more than 9223372036854775807 ns (int64 time)"},
		{"reads<0", func(c *TimedConfig) { c.Reads = -2 }, "workload: timed reads -2 reads/s not a finite number >= 0"},
		{"reads=Inf", func(c *TimedConfig) { c.Reads = math.Inf(1) }, "workload: timed reads +Inf reads/s not a finite number >= 0"},
		{"resend<0", func(c *TimedConfig) { c.Resend = -0.1 }, "workload: timed resend -0.1 not in [0, 1)"},
		{"resend=1", func(c *TimedConfig) { c.Resend = 1 }, "workload: timed resend 1 not in [0, 1)"},
		{"resend=NaN", func(c *TimedConfig) { c.Resend = math.NaN() }, "workload: timed resend NaN not in [0, 1)"},
		{"delay<0", func(c *TimedConfig) { c.ResendDelay = -1 }, "workload: timed resend delay -1 ns not >= 0"},
		{"window<0", func(c *TimedConfig) { c.Window = -3 }, "workload: timed window -3 ns not >= 0 (0 means 100000000)"},
		{"chunks", func(c *TimedConfig) { c.Window = 1 },
			"workload: timed stream of 3500000000 ns in windows of 1 ns has 3500000000 chunks, more than 2^31-1"},
		{"window writes", func(c *TimedConfig) { c.Phases[3].To = 1e11 },
			"workload: timed peak of 1e+11 writes/s expects 3.7e+09 writes in a window of 37000000 ns, more than 2^30"},
		{"window reads", func(c *TimedConfig) { c.Reads = 1e11 },
			"workload: timed peak of 1e+11 reads/s expects 3.7e+09 reads in a window of 37000000 ns, more than 2^30"},
		{"writes", func(c *TimedConfig) {
			c.Phases = []Phase{{Duration: 1 << 62, Rate: 1000, To: 1000}}
			c.Window = 1 << 40
		},
			"workload: timed phases expect 4.612e+12 writes, more than 2^40"},
		{"reads", func(c *TimedConfig) {
			c.Phases = []Phase{{Duration: 1 << 62, Rate: 0, To: 0}}
			c.Reads = 1000
			c.Window = 1 << 40
		},
			"workload: timed stream expects 4.612e+12 reads, more than 2^40"},
	})
}

func TestTimedConfig(t *testing.T) {
	cfg := matchConfig()
	cfg.Window = 0
	tm := mustTimed(t, cfg)
	want := matchConfig()
	want.Window = DefaultWindow
	if got := tm.Config(); !reflect.DeepEqual(got, want) {
		t.Errorf("Config(): got %+v, want %+v", got, want)
	}
	// The stream keeps its own phases.
	cfg.Phases[0].To = 1
	tm.Config().Phases[1].Rate = 2
	if got := tm.Config(); !reflect.DeepEqual(got, want) {
		t.Errorf("Config() after editing the caller's and Config's phases: got %+v, want %+v", got, want)
	}
	if got := tm.Duration(); got != 3500*msNs {
		t.Errorf("Duration(): got %d, want %d", got, 3500*msNs)
	}
	for _, tt := range []struct {
		durations []int64
		window    int64
		want      int
	}{
		{[]int64{1}, 0, 1},
		{[]int64{100 * msNs}, 0, 1},
		{[]int64{100*msNs + 1}, 0, 2},
		{[]int64{60_000 * msNs, 15_000 * msNs}, 0, 750},
		{[]int64{3500 * msNs}, 37 * msNs, 95},
		{[]int64{5, 5}, 3, 4},
		{[]int64{4, 5}, 3, 3},
	} {
		cfg := matchConfig()
		cfg.Window = tt.window
		cfg.Phases = nil
		for _, d := range tt.durations {
			cfg.Phases = append(cfg.Phases, Phase{Duration: d, Rate: 10, To: 10})
		}
		if got := mustTimed(t, cfg).Chunks(); got != tt.want {
			t.Errorf("durations %v, window %d: got %d chunks, want %d", tt.durations, tt.window, got, tt.want)
		}
	}
	if Even.String() != "even" || Poisson.String() != "poisson" || Arrivals(7).String() != "arrivals(7)" {
		t.Errorf("Arrivals.String: got %q %q %q", Even, Poisson, Arrivals(7))
	}
}

func TestTimedRateAt(t *testing.T) {
	cfg := matchConfig()
	cfg.Phases = []Phase{
		{Duration: 1000 * msNs, Rate: 0, To: 100},
		{Duration: 2000 * msNs, Rate: 50, To: 50},
		{Duration: 1000 * msNs, Rate: 80, To: 0},
	}
	cfg.Reads = 7
	tm := mustTimed(t, cfg)
	for _, tt := range []struct {
		at   int64
		want float64
	}{
		{-1, 0}, {0, 0}, {500 * msNs, 50}, {1000*msNs - 1, 100 - 1e-7}, {1000 * msNs, 50}, {2999 * msNs, 50},
		{3000 * msNs, 80}, {3500 * msNs, 40}, {3750 * msNs, 20}, {4000*msNs - 1, 8e-8}, {4000 * msNs, 0},
	} {
		if got := tm.RateAt(tt.at); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("RateAt(%d): got %v, want %v", tt.at, got, tt.want)
		}
	}
	if got, want := tm.ExpectedWrites(), 50.0+100+40; math.Abs(got-want) > 1e-12*want {
		t.Errorf("ExpectedWrites(): got %v, want %v", got, want)
	}
	if got, want := tm.ExpectedReads(), 28.0; math.Abs(got-want) > 1e-12*want {
		t.Errorf("ExpectedReads(): got %v, want %v", got, want)
	}
	if got, want := mustTimed(t, matchConfig()).ExpectedWrites(), 143_650.0; math.Abs(got-want) > 1e-9*want {
		t.Errorf("ExpectedWrites() of the match: got %v, want %v", got, want)
	}
}

// TestTimedEven checks every write and read of an Even stream against the
// definition: the k-th write at ⌊Λ⁻¹(k − ½)⌋, with Λ recomputed here.
// Counts over any interval are then within 1 of the integral of the rate.
func TestTimedEven(t *testing.T) {
	cfg := matchConfig()
	tm := mustTimed(t, cfg)
	all := timedAll(t, tm)
	checkOrder(t, all)
	writes, reads := splitOps(all)

	if got, want := float64(len(writes)), tm.ExpectedWrites(); math.Abs(got-want) > 0.5 {
		t.Errorf("got %v writes, want ExpectedWrites() = %v rounded", got, want)
	}
	for k, e := range writes {
		id := uint64(k) + 1
		if e.ID != id || e.Op != Write || e.Delta != 1 || e.Actor != 0 {
			t.Fatalf("write %d: got ID %d op %v delta %d actor %d, want ID %d write 1 0", k, e.ID, e.Op, e.Delta, e.Actor, id)
		}
		// At = ⌊τ⌋ with Λ(τ) = k − ½: Λ(At) ≤ k − ½ < Λ(At + 1), to
		// within the rounding of the two computations of Λ.
		y := float64(id) - 0.5
		if lo, hi := testCum(cfg.Phases, float64(e.At)), testCum(cfg.Phases, float64(e.At+1)); lo > y+1e-6 || hi <= y-1e-6 {
			t.Fatalf("write %d at %d: Λ(At) = %.9f, Λ(At+1) = %.9f, want them around k − ½ = %v", k, e.At, lo, hi, y)
		}
	}
	// Over every phase, every 10 ms bin (through the ramps, where the
	// counts follow the line) and random intervals, the count is within 1
	// of ∫ rate.
	type interval struct{ a, b int64 }
	var intervals []interval
	var start int64
	for _, ph := range cfg.Phases {
		intervals = append(intervals, interval{start, start + ph.Duration})
		start += ph.Duration
	}
	for a := int64(0); a < tm.Duration(); a += 10 * msNs {
		intervals = append(intervals, interval{a, a + 10*msNs})
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 1000 {
		a, b := r.Int64N(tm.Duration()), r.Int64N(tm.Duration())
		intervals = append(intervals, interval{min(a, b), max(a, b)})
	}
	for _, iv := range intervals {
		want := testCum(cfg.Phases, float64(iv.b)) - testCum(cfg.Phases, float64(iv.a))
		if got := timedCount(writes, iv.a, iv.b); math.Abs(float64(got)-want) > 1+1e-9 {
			t.Errorf("writes in [%d, %d) ns: got %d, want %.3f ± 1", iv.a, iv.b, got, want)
		}
	}
	// The silence holds nothing; the ramps' counts follow the rate.
	if n := timedCount(writes, 2800*msNs, 3050*msNs); n != 0 {
		t.Errorf("writes in the silent phase: got %d, want 0", n)
	}

	if got, want := float64(len(reads)), tm.ExpectedReads(); math.Abs(got-want) > 0.5 {
		t.Errorf("got %v reads, want ExpectedReads() = %v rounded", got, want)
	}
	for k, e := range reads {
		id := readID | (uint64(k) + 1)
		tau := (float64(k) + 0.5) * 1e9 / cfg.Reads
		if e.ID != id || e.Op != Read || e.Delta != 0 || e.Actor != 0 {
			t.Fatalf("read %d: got ID %#x op %v delta %d actor %d, want ID %#x read 0 0", k, e.ID, e.Op, e.Delta, e.Actor, id)
		}
		if math.Abs(float64(e.At)-math.Floor(tau)) > 1 {
			t.Fatalf("read %d: got At %d, want ⌊%.3f⌋", k, e.At, tau)
		}
	}
}

// TestTimedWindowInvariance builds one Even stream, with resends and reads,
// in windows of many sizes: the events must be the same, byte for byte.
func TestTimedWindowInvariance(t *testing.T) {
	for _, delay := range []int64{0, 20 * msNs, 150 * msNs} {
		base := matchConfig()
		base.Resend = 0.1
		base.ResendDelay = delay
		base.Window = 100 * msNs
		want := timedAll(t, mustTimed(t, base))
		windows := []int64{37 * msNs, 1000 * msNs, 3 * msNs, 3500 * msNs, 1 << 40}
		if testing.Short() {
			windows = []int64{37 * msNs, 3 * msNs, 1 << 40}
		}
		for _, w := range windows {
			cfg := base
			cfg.Window = w
			if got := timedAll(t, mustTimed(t, cfg)); !slices.Equal(got, want) {
				t.Errorf("delay %d ms: window %d ns gives another stream (%d events) than 100 ms (%d events)", delay/msNs, w, len(got), len(want))
			}
		}
	}
}

// poissonConfig is a Poisson stream at a constant rate.
func poissonConfig(rate float64, d int64) TimedConfig {
	return TimedConfig{
		Seed:     7,
		Label:    "poisson",
		Keys:     1_000_000,
		S:        1,
		Scramble: true,
		Arrivals: Poisson,
		Phases:   []Phase{{Duration: d, Rate: rate, To: rate}},
		Window:   100 * msNs,
	}
}

// ksDistance returns the Kolmogorov–Smirnov distance between the sample and the
// CDF cdf. It sorts the sample.
func ksDistance(sample []float64, cdf func(float64) float64) float64 {
	slices.Sort(sample)
	n := float64(len(sample))
	var d float64
	for i, x := range sample {
		f := cdf(x)
		d = max(d, float64(i+1)/n-f, f-float64(i)/n)
	}
	return d
}

// dkw is the Dvoretzky–Kiefer–Wolfowitz–Massart bound: P(KS > ε) ≤
// 2·exp(−2nε²) = pTimed.
func dkw(n int) float64 { return math.Sqrt(math.Log(2/pTimed) / (2 * float64(n))) }

// TestTimedPoissonConstant checks a constant-rate Poisson stream: its count
// is Poisson(λT), its counts over 10 ms bins are as dispersed as Poisson
// counts are, and its gaps are exponential.
func TestTimedPoissonConstant(t *testing.T) {
	const rate = 100_000.0
	secs := int64(8)
	if testing.Short() {
		secs = 2
	}
	tm := mustTimed(t, poissonConfig(rate, secs*1000*msNs))
	all := timedAll(t, tm)
	checkOrder(t, all)
	writes, reads := splitOps(all)
	if len(reads) != 0 {
		t.Errorf("got %d reads, want 0", len(reads))
	}

	// Per second: the mean of the counts is within z·sqrt(λ/secs) of λ.
	var sum float64
	for s := range secs {
		sum += float64(timedCount(writes, s*1000*msNs, (s+1)*1000*msNs))
	}
	mean := sum / float64(secs)
	if tol := zTimed * math.Sqrt(rate/float64(secs)); math.Abs(mean-rate) > tol {
		t.Errorf("writes a second over %d s: got a mean of %.1f, want %.0f ± %.1f", secs, mean, rate, tol)
	}

	// Dispersion over 10 ms bins: Σ(c − c̄)²/c̄ is χ²(B−1) for Poisson
	// counts (mean 1000: the normal approximation is far inside the tail
	// we test). Evenly spaced events would give about 0, clumped ones far
	// more than B.
	bins := int(secs * 100)
	counts := make([]float64, bins)
	for _, e := range writes {
		counts[e.At/(10*msNs)]++
	}
	var cbar, disp float64
	for _, c := range counts {
		cbar += c / float64(bins)
	}
	for _, c := range counts {
		disp += (c - cbar) * (c - cbar) / cbar
	}
	chi := distuv.ChiSquared{K: float64(bins - 1)}
	if lo, hi := chi.Quantile(pTimed/2), chi.Quantile(1-pTimed/2); disp < lo || disp > hi {
		t.Errorf("dispersion over %d bins of 10 ms: got %.1f, want in [%.1f, %.1f] (χ²(%d) at p = 2e-8)", bins, disp, lo, hi, bins-1)
	}

	// Every chunk draws its own gaps: no two windows start with the same
	// three offsets (for independent windows the chance is about
	// (#windows)²/2 · (λ·1 ns / 2)³ < 10^−9).
	seen := map[[3]int64]int64{}
	for s := int64(0); s < secs*1000*msNs; s += 100 * msNs {
		i := timedCount(writes, 0, s)
		key := [3]int64{writes[i].At - s, writes[i+1].At - s, writes[i+2].At - s}
		if prev, ok := seen[key]; ok {
			t.Fatalf("windows at %d and %d ms start with the same offsets %v: the chunks share a generator", prev/msNs, s/msNs, key)
		}
		seen[key] = s
	}

	// Gaps are Exp(λ). At is floored to whole ns, which moves each gap by
	// less than 1 ns, so the CDF by less than λ·1 ns = 10^−4.
	gaps := make([]float64, len(writes)-1)
	for i := range gaps {
		gaps[i] = float64(writes[i+1].At - writes[i].At)
	}
	lambda := rate / 1e9
	ks := ksDistance(gaps, func(x float64) float64 { return -math.Expm1(-lambda * x) })
	if tol := dkw(len(gaps)) + lambda; ks > tol {
		t.Errorf("gaps vs Exp(%g/s): got KS distance %.5f over %d gaps, want <= %.5f", rate, ks, len(gaps), tol)
	}
	t.Logf("%d writes; mean %.1f/s; dispersion %.1f over %d bins; KS %.5f (limit %.5f)", len(writes), mean, disp, bins, ks, dkw(len(gaps))+lambda)
}

// TestTimedPoissonPhases checks a Poisson stream through ramps and spikes:
// the counts over 10 ms bins against ∫ rate (Pearson's χ², the bins being
// independent Poisson counts), and the time-rescaled gaps Λ(t_{j+1}) −
// Λ(t_j), which are Exp(1) for exactly this intensity and no other.
func TestTimedPoissonPhases(t *testing.T) {
	cfg := matchConfig()
	cfg.Arrivals = Poisson
	cfg.Reads = 0
	if !testing.Short() {
		for i := range cfg.Phases {
			cfg.Phases[i].Duration *= 3
		}
	}
	tm := mustTimed(t, cfg)
	writes, _ := splitOps(timedAll(t, tm))

	// Pearson's χ² over the bins expecting ≥ 50 writes, the others pooled
	// into one bin (the silence expects none and must get none).
	var x2, restWant float64
	var restGot, df int
	for a := int64(0); a < tm.Duration(); a += 10 * msNs {
		b := min(a+10*msNs, tm.Duration())
		want := testCum(cfg.Phases, float64(b)) - testCum(cfg.Phases, float64(a))
		got := timedCount(writes, a, b)
		if want == 0 && got != 0 {
			t.Errorf("writes in [%d, %d) ms, where the rate is 0: got %d, want 0", a/msNs, b/msNs, got)
		}
		if want < 50 {
			restWant += want
			restGot += got
			continue
		}
		x2 += (float64(got) - want) * (float64(got) - want) / want
		df++
	}
	if restWant >= 50 {
		x2 += (float64(restGot) - restWant) * (float64(restGot) - restWant) / restWant
		df++
	}
	chi := distuv.ChiSquared{K: float64(df)}
	if lo, hi := chi.Quantile(pTimed/2), chi.Quantile(1-pTimed/2); x2 < lo || x2 > hi {
		t.Errorf("χ² of counts over %d bins: got %.1f, want in [%.1f, %.1f]", df, x2, lo, hi)
	}

	// The floor moves Λ(At) by at most the peak rate times 1 ns, 1.2·10^−4,
	// so each rescaled gap by 2.4·10^−4 and the Exp(1) CDF by as much.
	gaps := make([]float64, len(writes)-1)
	prev := testCum(cfg.Phases, float64(writes[0].At))
	for i := range gaps {
		next := testCum(cfg.Phases, float64(writes[i+1].At))
		gaps[i] = next - prev
		prev = next
	}
	ks := ksDistance(gaps, func(x float64) float64 { return -math.Expm1(-x) })
	if tol := dkw(len(gaps)) + 2.4e-4; ks > tol {
		t.Errorf("rescaled gaps vs Exp(1): got KS distance %.5f over %d gaps, want <= %.5f", ks, len(gaps), tol)
	}
	t.Logf("%d writes (expected %.0f); χ² %.1f over %d bins; KS %.5f (limit %.5f)", len(writes), tm.ExpectedWrites(), x2, df, ks, dkw(len(gaps))+2.4e-4)
}

// TestTimedReads checks reads at their own rate among writes, for both
// arrivals: their number, their fields, and their keys, drawn as the
// writes' are (the hot key is the same).
func TestTimedReads(t *testing.T) {
	for _, arr := range []Arrivals{Even, Poisson} {
		t.Run(arr.String(), func(t *testing.T) {
			cfg := poissonConfig(50_000, 4000*msNs)
			cfg.Arrivals = arr
			cfg.Reads = 20_000
			cfg.Window = 30 * msNs
			tm := mustTimed(t, cfg)
			all := timedAll(t, tm)
			checkOrder(t, all)
			writes, reads := splitOps(all)
			want := tm.ExpectedReads()
			tol := 0.5
			if arr == Poisson {
				tol = zTimed * math.Sqrt(want)
			}
			if got := float64(len(reads)); math.Abs(got-want) > tol {
				t.Errorf("got %v reads, want %v ± %.1f", got, want, tol)
			}
			ids := map[uint64]bool{}
			hot := [2]int{}
			for _, e := range all {
				if e.Op == Read {
					if e.Delta != 0 || e.Actor != 0 || e.ID&readID == 0 || ids[e.ID] {
						t.Fatalf("read %+v: want delta 0, actor 0, a fresh ID with the top bit", e)
					}
					ids[e.ID] = true
				}
				if e.Key == tm.KeyOf(1) {
					hot[e.Op]++
				}
			}
			// Each kind's share of the hot key is P(1), binomial.
			for op, n := range [2]int{len(writes), len(reads)} {
				if d := freqZ(int64(hot[op]), n, tm.Prob(1)); d > zTimed {
					t.Errorf("%v: got %d of %d on the hot key, want %.0f (%.1f sd off)", Op(op), hot[op], n, float64(n)*tm.Prob(1), d)
				}
			}
			// Interleaved by time, not bunched (say at chunk ends): a read
			// is followed by a write always when both are even (a read
			// every 50 µs, a write every 20 µs), 5/7 of the time when both
			// are Poisson; bunched reads would give about 0.
			var readWrite int
			for i := 1; i < len(all); i++ {
				if all[i-1].Op == Read && all[i].Op == Write {
					readWrite++
				}
			}
			if f := float64(readWrite) / float64(len(reads)); f < 0.6 {
				t.Errorf("got %d of %d reads followed by a write (%.3f), want 1 (even) or 5/7 (poisson)", readWrite, len(reads), f)
			}
		})
	}
}

// TestTimedKeys checks the pmf of a Timed stream's keys (unscrambled, so
// keys are ranks) as the Zipf tests do, since each event's key comes from
// its own generator, seeded from a hash of its ID: the frequency of rank 1,
// Pearson's χ² over ranks 1..100 and the rest, and over dyadic bins of
// ranks that reach the tail.
func TestTimedKeys(t *testing.T) {
	for _, arr := range []Arrivals{Even, Poisson} {
		t.Run(arr.String(), func(t *testing.T) {
			cfg := poissonConfig(200_000, 5000*msNs)
			if testing.Short() {
				cfg.Phases[0].Duration = 1250 * msNs
			}
			cfg.Arrivals = arr
			cfg.Scramble = false
			cfg.Reads = 20_000
			tm := mustTimed(t, cfg)
			all := timedAll(t, tm)
			n := len(all)
			pd, bin := dyadicProbs(cfg.Keys, cfg.S, n)
			head, dyadic := make([]int64, headBins+1), make([]int64, len(pd))
			for _, e := range all {
				if e.Key < 1 || e.Key > cfg.Keys {
					t.Fatalf("got key %d, want a rank in [1, %d]", e.Key, cfg.Keys)
				}
				head[min(e.Key, headBins+1)-1]++
				dyadic[bin(e.Key)]++
			}
			if d := freqZ(head[0], n, tm.Prob(1)); d > zTimed {
				t.Errorf("rank 1: got %d of %d keys, want %.0f (%.1f sd off)", head[0], n, tm.Prob(1)*float64(n), d)
			}
			// Every head bin expects ≥ 190 keys (rank 100 with -short),
			// every dyadic bin ≥ 50 (dyadicProbs merges them so).
			for _, c := range []struct {
				name   string
				counts []int64
				p      []float64
			}{{"ranks 1..100 and the rest", head, headProbs(cfg.Keys, tm.Prob)}, {"dyadic bins", dyadic, pd}} {
				x2 := chiSquare(c.counts, c.p)
				crit := distuv.ChiSquared{K: float64(len(c.p) - 1)}.Quantile(1 - pTimed)
				t.Logf("%s: χ² %.1f over %d bins (critical %.1f)", c.name, x2, len(c.p), crit)
				if x2 > crit {
					t.Errorf("%s: got χ² %.1f over %d bins, want <= %.1f", c.name, x2, len(c.p), crit)
				}
			}
		})
	}
	cfg := matchConfig()
	cfg.Keys = 1
	cfg.Resend = 0.5
	tm := mustTimed(t, cfg)
	for _, e := range timedAll(t, tm) {
		if e.Key != tm.KeyOf(1) {
			t.Fatalf("one key: got key %#x, want %#x", e.Key, tm.KeyOf(1))
		}
	}
}

// TestTimedResends checks every resend against the definition, for both
// arrivals and delays below, at and above the window and past the end: a
// write is resent iff isResent(ID) and its At + delay is inside the
// stream, exactly once, equal but for At (isResent is the hash with Even
// arrivals, the ID's parity with Poisson ones). Independently of how it is
// decided, the number of resent writes is Binomial(N, Resend).
func TestTimedResends(t *testing.T) {
	const share = 0.2
	scale := 1.0 // 160,000 writes; 40,000 with -short
	if testing.Short() {
		scale = 0.25
	}
	for _, arr := range []Arrivals{Even, Poisson} {
		for _, delay := range []int64{0, 1, 13 * msNs, 100 * msNs, 250 * msNs, 1700 * msNs, 4000*msNs - 1, 4000 * msNs} {
			t.Run(fmt.Sprintf("%v/delay=%dns", arr, delay), func(t *testing.T) {
				cfg := TimedConfig{
					Seed: 99, Label: "resends", Keys: 1000, S: 0.8, Scramble: true, Arrivals: arr,
					Phases: []Phase{
						{Duration: 1000 * msNs, Rate: 20_000 * scale, To: 60_000 * scale},
						{Duration: 1000 * msNs, Rate: 60_000 * scale, To: 60_000 * scale},
						{Duration: 2000 * msNs, Rate: 60_000 * scale, To: 0},
					},
					Reads: 2000, Resend: share, ResendDelay: delay, Window: 100 * msNs,
				}
				tm := mustTimed(t, cfg)
				all := timedAll(t, tm)
				checkOrder(t, all)
				first := map[uint64]int{} // ID → index of its first event
				times := map[uint64]int{}
				var originals, eligible, resent int
				for i, e := range all {
					times[e.ID]++
					j, seen := first[e.ID]
					if !seen {
						first[e.ID] = i
						if e.Op == Write {
							originals++
						}
						continue
					}
					o := all[j]
					if e.Op != Write || times[e.ID] > 2 {
						t.Fatalf("ID %#x: got %d events (op %v), want a write at most twice", e.ID, times[e.ID], e.Op)
					}
					if want := o.At + delay; e.At != want {
						t.Fatalf("ID %#x: resend at %d, want the original's %d + %d", e.ID, e.At, o.At, delay)
					}
					if o.At = e.At; o != e {
						t.Fatalf("ID %#x: resend %+v, want the original %+v but for At", e.ID, e, all[j])
					}
				}
				for id, i := range first {
					e := all[i]
					if e.Op != Write {
						continue
					}
					inside := e.At+delay < tm.Duration()
					want := 1
					if inside && tm.isResent(id) {
						want = 2
					}
					if times[id] != want {
						t.Fatalf("write %#x at %d (resent(ID) = %v): got %d events, want %d", id, e.At, tm.isResent(id), times[id], want)
					}
					if inside {
						eligible++
						if times[id] == 2 {
							resent++
						}
					}
				}
				if eligible > 0 {
					if d := freqZ(int64(resent), eligible, share); d > zTimed {
						t.Errorf("got %d of %d writes resent, want %.0f (%.1f sd off)", resent, eligible, share*float64(eligible), d)
					}
				}
				if delay >= tm.Duration() && resent != 0 {
					t.Errorf("delay past the end: got %d resends, want 0", resent)
				}
				t.Logf("%d originals, %d could be resent, %d were", originals, eligible, resent)
			})
		}
	}
	for _, arr := range []Arrivals{Even, Poisson} {
		cfg := matchConfig()
		cfg.Arrivals = arr
		cfg.ResendDelay = 10 * msNs
		ids := map[uint64]bool{}
		for _, e := range timedAll(t, mustTimed(t, cfg)) {
			if ids[e.ID] {
				t.Fatalf("%v, Resend 0: got ID %#x twice, want every ID once", arr, e.ID)
			}
			ids[e.ID] = true
		}
	}
}

// busyConfig has everything on: phases, reads, resends from earlier windows.
func busyConfig(arr Arrivals) TimedConfig {
	cfg := matchConfig()
	cfg.Arrivals = arr
	cfg.Resend = 0.05
	cfg.ResendDelay = 60 * msNs
	return cfg
}

// TestTimedDeterminism builds the same stream by one goroutine in order
// and by four goroutines taking chunks in a shuffled order: the events must
// be identical. The same config built twice must agree too; another label
// or seed must not.
func TestTimedDeterminism(t *testing.T) {
	for _, arr := range []Arrivals{Even, Poisson} {
		t.Run(arr.String(), func(t *testing.T) {
			cfg := busyConfig(arr)
			tm := mustTimed(t, cfg)
			want := timedAll(t, tm)

			chunks := make([][]Event, tm.Chunks())
			order := rand.New(rand.NewPCG(5, 5)).Perm(tm.Chunks())
			next := make(chan int)
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					var buf []Event
					for i := range next {
						buf = tm.Chunk(i, buf)
						chunks[i] = slices.Clone(buf)
					}
				})
			}
			for _, i := range order {
				next <- i
			}
			close(next)
			wg.Wait()
			if got := slices.Concat(chunks...); !slices.Equal(got, want) {
				t.Errorf("4 goroutines in shuffled order: got a different stream than 1 goroutine in order")
			}
			if again := timedAll(t, mustTimed(t, cfg)); !slices.Equal(again, want) {
				t.Errorf("same config twice: got different streams")
			}
			// Another label or seed: keys agree by chance only
			// (Σ P(k)² ≈ 0.008 at s = 1 over 10^6 keys; for the seed the
			// scrambler changes too, so they almost never agree).
			for _, other := range []TimedConfig{{Label: "views2"}, {Seed: cfg.Seed + 1}} {
				c := cfg
				if other.Label != "" {
					c.Label = other.Label
				} else {
					c.Seed = other.Seed
				}
				got := timedAll(t, mustTimed(t, c))
				n, same := min(len(got), len(want)), 0
				for i := range n {
					if got[i].Key == want[i].Key {
						same++
					}
				}
				if limit := 0.008*float64(n) + zTimed*math.Sqrt(0.008*float64(n)); float64(same) > limit {
					t.Errorf("label %q seed %d: got %d of %d keys equal to the base stream's, want <= %.0f", c.Label, c.Seed, same, n, limit)
				}
			}
		})
	}
}

// TestTimedGolden pins digests of whole streams: they change only when the
// stream's definition changes on purpose (then update the constants and
// say so in the commit).
func TestTimedGolden(t *testing.T) {
	for _, tt := range []struct {
		arr  Arrivals
		want uint64
	}{{Even, 0x618775621567aba4}, {Poisson, 0x8737df4c9e341436}} {
		if got := digest(timedAll(t, mustTimed(t, busyConfig(tt.arr)))); got != tt.want {
			t.Errorf("%v: digest of busyConfig's stream: got %#x, want %#x", tt.arr, got, tt.want)
		}
	}
}

func TestTimedChunkBuffer(t *testing.T) {
	tm := mustTimed(t, busyConfig(Poisson))
	want := tm.Chunk(3, nil)
	buf := make([]Event, 7, len(want)+10)
	got := tm.Chunk(3, buf)
	if !slices.Equal(got, want) || &got[0] != &buf[:1][0] {
		t.Errorf("chunk 3 into a big buf: got %d events (same array %v), want %d in buf", len(got), &got[0] == &buf[:1][0], len(want))
	}
	if got = tm.Chunk(3, make([]Event, 0, 10)); !slices.Equal(got, want) {
		t.Errorf("chunk 3 into cap 10: got %d events, want %d", len(got), len(want))
	}
	for _, i := range []int{-1, tm.Chunks()} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, fmt.Sprintf("chunk %d not in [0, %d)", i, tm.Chunks())) {
					t.Errorf("Chunk(%d): got panic %q, want one naming the range", i, msg)
				}
			}()
			tm.Chunk(i, nil)
		}()
	}
}

func TestTimedChunkNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops generators at random under -race")
	}
	for _, arr := range []Arrivals{Even, Poisson} {
		tm := mustTimed(t, busyConfig(arr))
		var buf []Event
		for i := range tm.Chunks() { // size buf and the pool's scratch
			buf = tm.Chunk(i, buf)
		}
		i := 0
		allocs := testing.AllocsPerRun(100, func() {
			buf = tm.Chunk(i%tm.Chunks(), buf)
			i++
		})
		if allocs != 0 {
			t.Errorf("%v: got %v allocs per Chunk with a big enough buffer, want 0", arr, allocs)
		}
	}
}

// The cricket final at bench scale: 200,000 views/s and 5,000 page reads/s
// for 75 s, on one hot key (step 1) or over 10^6 videos at s = 1; resends
// 100 ms later.
func BenchmarkTimedChunk(b *testing.B) {
	for _, arr := range []Arrivals{Even, Poisson} {
		for _, keys := range []uint64{1, 1_000_000} {
			for _, resend := range []float64{0, 0.01} {
				b.Run(fmt.Sprintf("%v/keys=%d/resend=%g", arr, keys, resend), func(b *testing.B) {
					tm := mustTimed(b, TimedConfig{
						Seed: 1, Label: "bench", Keys: keys, S: 1, Scramble: true, Arrivals: arr,
						Phases: []Phase{{Duration: 75_000 * msNs, Rate: 200_000, To: 200_000}},
						Reads:  5_000, Resend: resend, ResendDelay: 100 * msNs,
					})
					buf := make([]Event, 0, 25_000)
					var events, i int
					b.ReportAllocs()
					for b.Loop() {
						buf = tm.Chunk(i%tm.Chunks(), buf)
						events += len(buf)
						i++
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
					b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
				})
			}
		}
	}
}

// A ramp from 0 to 8 writes/s over a second, then 8/s, with 2 reads/s and
// one hot key. With Even arrivals the k-th write is at Λ⁻¹(k − ½): in the
// ramp Λ(t) = 4t², so the first write comes at √(0.5/4) s = 353.6 ms; in the
// steady phase they are 125 ms apart, half a period after Λ crosses a
// whole number.
func ExampleTimed() {
	tm, err := NewTimed(TimedConfig{
		Seed:   1,
		Label:  "views",
		Keys:   1,
		Phases: []Phase{{Duration: 1e9, Rate: 0, To: 8}, {Duration: 1e9, Rate: 8, To: 8}},
		Reads:  2,
		Window: 1e9,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d ns in %d chunks; %v writes and %v reads expected\n",
		tm.Duration(), tm.Chunks(), tm.ExpectedWrites(), tm.ExpectedReads())
	for i := range tm.Chunks() {
		for _, e := range tm.Chunk(i, nil) {
			fmt.Printf("chunk %d: %4d ms %-5v id %#x\n", i, e.At/1e6, e.Op, e.ID)
		}
	}
	// Output:
	// 2000000000 ns in 2 chunks; 12 writes and 4 reads expected
	// chunk 0:  250 ms read  id 0x8000000000000001
	// chunk 0:  353 ms write id 0x1
	// chunk 0:  612 ms write id 0x2
	// chunk 0:  750 ms read  id 0x8000000000000002
	// chunk 0:  790 ms write id 0x3
	// chunk 0:  935 ms write id 0x4
	// chunk 1: 1062 ms write id 0x5
	// chunk 1: 1187 ms write id 0x6
	// chunk 1: 1250 ms read  id 0x8000000000000003
	// chunk 1: 1312 ms write id 0x7
	// chunk 1: 1437 ms write id 0x8
	// chunk 1: 1562 ms write id 0x9
	// chunk 1: 1687 ms write id 0xa
	// chunk 1: 1750 ms read  id 0x8000000000000004
	// chunk 1: 1812 ms write id 0xb
	// chunk 1: 1937 ms write id 0xc
}
