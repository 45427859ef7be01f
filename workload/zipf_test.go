package workload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// Statistical tolerances.
//
// Every sampler test below is seeded, so a given build passes or fails
// deterministically; the tolerances are sized so that, over the choice of
// seed, a correct sampler fails each check with probability pFail = 1e-7
// (about 5·10^−6 summed over the ~50 checks of the package), while the
// realistic bugs of TestZipfFitDetectsBugs fail by a wide margin.
//
//   - A rank's count in N draws is Binomial(N, p), so its frequency f̂ has
//     standard deviation sqrt(p(1−p)/N) and is normal to within far better
//     than the tail we need at N ≥ 10^5 and p ≥ 10^−4. A two-sided tail of
//     1e-7 is z = Φ^−1(1 − 0.5e-7) ≈ 5.33 standard deviations.
//   - Over the head (ranks 1..K and one bin for the rest) Pearson's X² is
//     χ²(K) under the null when every expected count is large. The textbook
//     rule is ≥ 5; this far into the tail we ask ≥ 50 (checkFit enforces it;
//     the cases here expect ≥ 60 with -short, ≥ 240 without). The critical
//     value is the χ²(K) quantile at 1 − 1e-7.
const pFail = 1e-7

var zTail = distuv.UnitNormal.Quantile(1 - pFail/2)

// headBins is K, the number of leading ranks with a bin of their own.
const headBins = 100

// drawHead draws N ranks from z and counts them into min(K, n) bins for the
// leading ranks plus, when n > K, one bin for the rest. It also checks that
// every rank is in 1..n.
func drawHead(t *testing.T, z *Zipf, r *rand.Rand, draws int) []int64 {
	t.Helper()
	bins := int(min(uint64(headBins), z.N()))
	counts := make([]int64, bins, bins+1)
	if z.N() > uint64(bins) {
		counts = counts[:bins+1]
	}
	for range draws {
		k := z.Rank(r)
		if k < 1 || k > z.N() {
			t.Fatalf("Rank() = %d: got a rank outside [1, %d]", k, z.N())
		}
		counts[min(k, uint64(bins)+1)-1]++
	}
	return counts
}

// headProbs returns the bin probabilities that match drawHead's bins for a
// pmf prob over 1..n: prob(1..K) and 1 − their sum for the rest bin.
func headProbs(n uint64, prob func(k uint64) float64) []float64 {
	bins := int(min(uint64(headBins), n))
	p := make([]float64, bins, bins+1)
	var head float64
	for k := range p {
		p[k] = prob(uint64(k) + 1)
		head += p[k]
	}
	if n > uint64(bins) {
		p = append(p, 1-head)
	}
	return p
}

// chiSquare returns Pearson's X² of counts against bin probabilities p.
func chiSquare(counts []int64, p []float64) float64 {
	var total int64
	for _, c := range counts {
		total += c
	}
	var x2 float64
	for i, c := range counts {
		e := float64(total) * p[i]
		d := float64(c) - e
		x2 += d * d / e
	}
	return x2
}

// chiCritical returns the χ²(df) quantile at 1 − pFail.
func chiCritical(df int) float64 {
	return distuv.ChiSquared{K: float64(df)}.Quantile(1 - pFail)
}

// freqZ returns how many binomial standard deviations the frequency
// count/draws lies from p.
func freqZ(count int64, draws int, p float64) float64 {
	f := float64(count) / float64(draws)
	return math.Abs(f-p) / math.Sqrt(p*(1-p)/float64(draws))
}

// fitDraws is the sample size of the goodness-of-fit tests: 4·10^6 draws,
// 10^6 with -short.
func fitDraws() int {
	if testing.Short() {
		return 1_000_000
	}
	return 4_000_000
}

// checkFit runs the frequency checks at ranks 1, 2 and 10 and the χ² check
// over the head, reporting failures on t.
func checkFit(t *testing.T, z *Zipf, counts []int64, draws int) {
	t.Helper()
	for _, k := range []uint64{1, 2, 10} {
		if k > z.N() {
			continue
		}
		p := z.Prob(k)
		if d := freqZ(counts[k-1], draws, p); d > zTail {
			t.Errorf("rank %d: got frequency %.6f, want %.6f ± %.2g (%.1f sd off, limit %.2f)",
				k, float64(counts[k-1])/float64(draws), p, zTail*math.Sqrt(p*(1-p)/float64(draws)), d, zTail)
		}
	}
	p := headProbs(z.N(), z.Prob)
	if e := float64(draws) * slices.Min(p); e < 50 {
		t.Fatalf("χ² over the head: smallest expected count %.2g < 50, too few for the χ² approximation at p = 1e-7: test with more draws", e)
	}
	x2, crit := chiSquare(counts, p), chiCritical(len(p)-1)
	t.Logf("χ² over %d bins: %.1f (critical %.1f); rank 1 off by %.2f sd", len(p), x2, crit, freqZ(counts[0], draws, p[0]))
	if x2 > crit {
		t.Errorf("χ² over %d bins: got %.1f, want <= %.1f (p = 1e-7)", len(p), x2, crit)
	}
}

var fitCases = []struct {
	n uint64
	s float64
}{
	{n: 1000, s: 0},
	{n: 7, s: 0},
	{n: 1_000_000, s: 0.7},
	{n: 1_000_000, s: 1.0},
	{n: 1_000_000, s: 1.3},
	{n: 1_000_000, s: 2.0},
	{n: 50, s: 1.0},
	{n: 1_000_000_000, s: 1.0},
	{n: 1_000_000_000, s: 1.3},
}

func TestZipfFit(t *testing.T) {
	draws := fitDraws()
	for i, c := range fitCases {
		t.Run(fmt.Sprintf("s=%g/n=%d", c.s, c.n), func(t *testing.T) {
			t.Parallel()
			z, err := NewZipf(c.n, c.s)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(i), 0x5eed))
			counts := drawHead(t, z, r, draws)
			checkFit(t, z, counts, draws)
		})
	}
}

// dyadicProbs returns the probabilities of the rank bins [1], [2,3], [4,7],
// …, [2^j, min(2^(j+1)−1, n)], from differences of Harmonic, with
// neighbouring bins merged until each expects at least minExpected of the
// draws (for uniform ranks over 10^9, the first bins are the rare ones; for
// steep exponents, the last). bin maps a rank to its merged bin. These bins
// cover the whole range, so they test the body and tail of the
// distribution, which the head checks do not see.
func dyadicProbs(n uint64, s float64, draws int) (p []float64, bin func(k uint64) int) {
	const minExpected = 50
	norm := Harmonic(n, s)
	var merged [64]int // dyadic bin j → merged bin
	var acc float64
	for j, lo := 0, uint64(1); lo <= n; j, lo = j+1, lo*2 {
		hi := min(2*lo-1, n)
		acc += (Harmonic(hi, s) - Harmonic(lo-1, s)) / norm
		merged[j] = len(p)
		if acc*float64(draws) >= minExpected || hi == n {
			p = append(p, acc)
			acc = 0
		}
	}
	// A last bin short of minExpected joins the one before it.
	if last := len(p) - 1; last > 0 && p[last]*float64(draws) < minExpected {
		p[last-1] += p[last]
		p = p[:last]
		for j := range merged {
			merged[j] = min(merged[j], last-1)
		}
	}
	return p, func(k uint64) int { return merged[bits.Len64(k)-1] }
}

// TestZipfFitDyadic is a χ² test over rank bins that double in width, so it
// reaches the tail up to n = 10^9 and the low exponents whose head ranks are
// too rare for TestZipfFit (at s = 0.3 and n = 10^9, P(1) ≈ 4·10^−7).
func TestZipfFitDyadic(t *testing.T) {
	draws := fitDraws()
	cases := []struct {
		n uint64
		s float64
	}{
		{n: 1000, s: 0},
		{n: MaxZipfN, s: 0},
		{n: MaxZipfN, s: 0.3},
		{n: MaxZipfN, s: 0.7},
		{n: 1_000_000, s: 1.0},
		{n: MaxZipfN, s: 1.0},
		{n: MaxZipfN, s: 1.3},
		{n: 1_000_000, s: 2.5},
		{n: 3, s: 0.5},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("s=%g/n=%d", c.s, c.n), func(t *testing.T) {
			t.Parallel()
			z, err := NewZipf(c.n, c.s)
			if err != nil {
				t.Fatal(err)
			}
			p, bin := dyadicProbs(c.n, c.s, draws)
			counts := make([]int64, len(p))
			r := rand.New(rand.NewPCG(uint64(i), 0xd1ad))
			for range draws {
				k := z.Rank(r)
				if k < 1 || k > c.n {
					t.Fatalf("Rank() = %d: got a rank outside [1, %d]", k, c.n)
				}
				counts[bin(k)]++
			}
			x2, crit := chiSquare(counts, p), chiCritical(len(p)-1)
			t.Logf("χ² over %d dyadic bins: %.1f (critical %.1f)", len(p), x2, crit)
			if x2 > crit {
				t.Errorf("χ² over %d dyadic bins: got %.1f, want <= %.1f (p = 1e-7)", len(p), x2, crit)
			}
		})
	}
}

// TestZipfFitDetectsBugs shows that the checks of TestZipfFit have the power
// to catch realistic bugs at the same sample size: an exponent off by 0.02,
// and a pmf shifted by one rank (P(k) computed as P(k+1), say an index bug).
// Each must push the χ² statistic past the critical value.
func TestZipfFitDetectsBugs(t *testing.T) {
	draws := fitDraws()
	for i, s := range []float64{0.7, 1.0, 1.3} {
		const n = 1_000_000
		t.Run(fmt.Sprintf("s=%g/n=%d", s, n), func(t *testing.T) {
			t.Parallel()
			z, err := NewZipf(n, s)
			if err != nil {
				t.Fatal(err)
			}
			crit := chiCritical(headBins)
			r := rand.New(rand.NewPCG(uint64(i), 0xb06))

			// A sampler whose exponent is 0.02 too large, judged against the
			// pmf it should have had.
			bad, err := NewZipf(n, s+0.02)
			if err != nil {
				t.Fatal(err)
			}
			counts := drawHead(t, bad, r, draws)
			x2 := chiSquare(counts, headProbs(n, z.Prob))
			t.Logf("exponent %g judged as %g: χ² %.0f (critical %.1f), rank 1 off by %.1f sd",
				s+0.02, s, x2, crit, freqZ(counts[0], draws, z.Prob(1)))
			if x2 <= crit {
				t.Errorf("exponent %g judged as %g: got χ² %.1f, want > %.1f", s+0.02, s, x2, crit)
			}
			if d := freqZ(counts[0], draws, z.Prob(1)); d <= zTail {
				t.Errorf("exponent %g judged as %g: got rank 1 %.1f sd off, want > %.2f", s+0.02, s, d, zTail)
			}

			// A correct sampler judged against a pmf off by one rank.
			counts = drawHead(t, z, r, draws)
			shifted := func(k uint64) float64 { return z.Prob(k + 1) }
			x2 = chiSquare(counts, headProbs(n, shifted))
			t.Logf("pmf off by one rank: χ² %.0f (critical %.1f)", x2, crit)
			if x2 <= crit {
				t.Errorf("pmf off by one rank: got χ² %.1f, want > %.1f", x2, crit)
			}
		})
	}
}

func TestNewZipfErrors(t *testing.T) {
	tests := []struct {
		n    uint64
		s    float64
		want string
	}{
		{n: 0, s: 1, want: "workload: zipf n 0 not in [1, 1e9]"},
		{n: 1_000_000_001, s: 1, want: "workload: zipf n 1000000001 not in [1, 1e9]"},
		{n: 10, s: -0.5, want: "workload: zipf exponent s -0.5 not a finite number >= 0"},
		{n: 10, s: math.NaN(), want: "workload: zipf exponent s NaN not a finite number >= 0"},
		{n: 10, s: math.Inf(1), want: "workload: zipf exponent s +Inf not a finite number >= 0"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("n=%d/s=%g", tt.n, tt.s), func(t *testing.T) {
			z, err := NewZipf(tt.n, tt.s)
			if err == nil {
				t.Fatalf("got %+v, nil; want error %q", z, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
			if z != nil {
				t.Errorf("got %+v with the error, want nil", z)
			}
		})
	}
}

// TestZipfRange draws from the extremes of the parameter space: every rank
// must be in 1..n, a heavy tail must be reached, and a steep head must be hit.
func TestZipfRange(t *testing.T) {
	const draws = 20_000
	tests := []struct {
		n        uint64
		s        float64
		wantOnly uint64 // if not 0, every draw must be this rank
		wantHi   uint64 // the largest draw must reach this rank
		wantOne  bool   // some draw must be rank 1
	}{
		{n: 1, s: 0, wantOnly: 1},
		{n: 1, s: 1, wantOnly: 1},
		{n: 1, s: 7, wantOnly: 1},
		{n: 2, s: 1, wantHi: 2, wantOne: true},
		// P(k ≥ n/2) ≈ 0.5, 0.5 and 0.29: missing it 20,000 times is impossible.
		{n: MaxZipfN, s: 0, wantHi: MaxZipfN / 2},
		{n: MaxZipfN, s: 1e-12, wantHi: MaxZipfN / 2},
		{n: MaxZipfN, s: 0.5, wantHi: MaxZipfN / 2},
		// P(k ≥ 10^8) ≈ ln 10 / H(10^9, 1) ≈ 0.11; P(1) ≈ 0.047.
		{n: MaxZipfN, s: 1, wantHi: 1e8, wantOne: true},
		{n: MaxZipfN, s: 1 + 1e-12, wantHi: 1e8, wantOne: true},
		// P(k ≥ 10^5) ≈ 2·10^−2.5 / ζ(1.5) ≈ 0.0024: about 48 of 20,000.
		{n: MaxZipfN, s: 1.5, wantHi: 1e5, wantOne: true},
		{n: MaxZipfN, s: 10, wantHi: 2, wantOne: true},
		{n: MaxZipfN, s: 200, wantOnly: 1}, // P(2) = 2^−200
	}
	for i, tt := range tests {
		t.Run(fmt.Sprintf("n=%d/s=%g", tt.n, tt.s), func(t *testing.T) {
			z, err := NewZipf(tt.n, tt.s)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(uint64(i), 1))
			var lo, hi uint64 = math.MaxUint64, 0
			for range draws {
				k := z.Rank(r)
				if k < 1 || k > tt.n {
					t.Fatalf("Rank() = %d: got a rank outside [1, %d]", k, tt.n)
				}
				if tt.wantOnly != 0 && k != tt.wantOnly {
					t.Fatalf("Rank() = %d, want %d", k, tt.wantOnly)
				}
				lo, hi = min(lo, k), max(hi, k)
			}
			if hi < tt.wantHi {
				t.Errorf("largest of %d ranks: got %d, want >= %d", draws, hi, tt.wantHi)
			}
			if tt.wantOne && lo != 1 {
				t.Errorf("smallest of %d ranks: got %d, want 1", draws, lo)
			}
		})
	}
}

// TestZipfSetupConstant shows that set-up does not grow with n: a sampler of
// about 10^9 ranks is built in microseconds (summing the n terms would take
// seconds). The 1 ms limit is loose for -race and a loaded CI machine.
func TestZipfSetupConstant(t *testing.T) {
	const reps = 1000
	start := time.Now()
	for i := range reps {
		if _, err := NewZipf(MaxZipfN-uint64(i), 1.1); err != nil {
			t.Fatal(err)
		}
	}
	if per := time.Since(start) / reps; per > time.Millisecond {
		t.Errorf("NewZipf(1e9, 1.1): got %v per call, want <= 1ms (O(1) set-up)", per)
	}
}

func TestZipfProb(t *testing.T) {
	for _, n := range []uint64{1, 2, 10, 1000, 1024, 1025, 5000} {
		for _, s := range []float64{0, 0.3, 1, 1.7, 40} {
			z, err := NewZipf(n, s)
			if err != nil {
				t.Fatal(err)
			}
			var sum float64
			for k := uint64(1); k <= n; k++ {
				sum += z.Prob(k)
				if k > 1 && z.Prob(k) > z.Prob(k-1) {
					t.Fatalf("n=%d s=%g: got Prob(%d) = %g > Prob(%d) = %g, want non-increasing",
						n, s, k, z.Prob(k), k-1, z.Prob(k-1))
				}
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("n=%d s=%g: got Σ Prob = %.15f, want 1", n, s, sum)
			}
			if p := z.Prob(0); p != 0 {
				t.Errorf("n=%d s=%g: got Prob(0) = %g, want 0", n, s, p)
			}
			if p := z.Prob(n + 1); p != 0 {
				t.Errorf("n=%d s=%g: got Prob(n+1) = %g, want 0", n, s, p)
			}
		}
	}
	// At large n, Prob uses the O(1) Euler–Maclaurin normaliser; it must
	// agree with Harmonic (exact below 10^6) to rounding.
	for _, n := range []uint64{5000, 1_000_000, MaxZipfN} {
		for _, s := range []float64{0.7, 1, 1.3} {
			z, _ := NewZipf(n, s)
			for _, k := range []uint64{1, 2, 10, n} {
				want := math.Pow(float64(k), -s) / Harmonic(n, s)
				if got := z.Prob(k); math.Abs(got-want) > 1e-13*want {
					t.Errorf("n=%d s=%g: got Prob(%d) = %.17g, want %.17g", n, s, k, got, want)
				}
			}
		}
	}
	z, _ := NewZipf(100, 0)
	if got := z.Prob(37); got != 0.01 {
		t.Errorf("uniform n=100: got Prob(37) = %v, want 0.01", got)
	}
	if z.N() != 100 || z.S() != 0 {
		t.Errorf("got N() = %d, S() = %g; want 100, 0", z.N(), z.S())
	}
}

func TestZipfRankNoAlloc(t *testing.T) {
	for _, s := range []float64{0, 0.7, 1, 1.3} {
		z, _ := NewZipf(1_000_000, s)
		r := rand.New(rand.NewPCG(1, 2))
		if a := testing.AllocsPerRun(1000, func() { z.Rank(r) }); a != 0 {
			t.Errorf("s=%g: got %v allocs per Rank, want 0", s, a)
		}
	}
}

// TestZipfAcceptance checks that rejection is rare: the mean number of
// uniforms per rank stays near 1, so Rank costs O(1) whatever n and s.
func TestZipfAcceptance(t *testing.T) {
	for _, s := range []float64{0.01, 0.5, 1, 1.3, 2, 5, 20, 200} {
		for _, n := range []uint64{2, 10, 1_000_000, MaxZipfN} {
			z, _ := NewZipf(n, s)
			src := &countingSource{src: rand.NewPCG(3, 4)}
			r := rand.New(src)
			const draws = 20_000
			for range draws {
				z.Rank(r)
			}
			per := float64(src.calls) / draws
			t.Logf("s=%g n=%d: %.4f uniforms per rank", s, n, per)
			if per > 1.05 {
				t.Errorf("s=%g n=%d: got %.3f uniforms per rank, want <= 1.05", s, n, per)
			}
		}
	}
}

type countingSource struct {
	src   rand.Source
	calls int
}

func (c *countingSource) Uint64() uint64 { c.calls++; return c.src.Uint64() }

func TestHarmonicReference(t *testing.T) {
	// Reference values from mpmath at 40 digits: H(n,s) = ζ(s) − ζ(s, n+1),
	// harmonic(n) at s = 1.
	tests := []struct {
		s    float64
		n    uint64
		want float64
	}{
		{0.1, 10, 8.6193341861062071774},
		{0.1, 1000000, 279098.01494675297167},
		{0.1, 1000001, 279098.26613537100378},
		{0.1, 1000000000, 139880600.77037177411},
		{0.5, 1000, 61.801008765243232338},
		{0.5, 1000001, 1998.5411454906487469},
		{0.5, 1000000000, 63244.092864670165353},
		{0.7, 1000000, 207.54075792904093052},
		{0.7, 1000001, 207.54082102473121156},
		{0.7, 10000000, 416.86342178046235962},
		{0.7, 1000000000, 1667.8457238959475374},
		{1, 10, 2.9289682539682539683},
		{1, 1000, 7.4854708605503449127},
		{1, 1000000, 14.392726722865723631},
		{1, 1000001, 14.392727722864723632},
		{1, 10000000, 16.695311365859851815},
		{1, 1000000000, 21.300481502347944017},
		{1.3, 1000000, 3.8791194466519713561},
		{1.3, 1000001, 3.8791194625008826772},
		{1.3, 1000000000, 3.9252983374273122595},
		{2, 10, 1.5497677311665406904},
		{2, 1000001, 1.6449330668497264343},
		{2, 1000000000, 1.644934065848226437},
		{3, 1000001, 1.2020569031590942869},
		{3, 1000000000, 1.2020569031595942849},
		{0.999999, 1000000, 14.39282208466226181},
		{0.999999, 1000000000, 21.300696157888866803},
		{1.000000000001, 1000000, 14.392726722770362274},
		{1.000000000001, 1000000000, 21.300481502133289959},
	}
	for _, tt := range tests {
		if got := Harmonic(tt.n, tt.s); math.Abs(got-tt.want) > 1e-13*tt.want {
			t.Errorf("Harmonic(%d, %g): got %.17g, want %.17g (rel err %.2g)",
				tt.n, tt.s, got, tt.want, math.Abs(got-tt.want)/tt.want)
		}
	}
}

// TestHarmonicSwitch checks that the two branches of Harmonic agree where
// they meet and below. A wrong Bernoulli coefficient beyond the first shows
// up at about 10^−11 relative, so the bound is 10^−13, tighter than the
// 10^−10 the exact branch needs.
func TestHarmonicSwitch(t *testing.T) {
	for _, s := range []float64{1e-6, 0.3, 0.7, 1, 1.3, 2, 3, 7, 20, 25} {
		for _, n := range []uint64{emHead + 1, 1000, 65_537, harmonicExactMax} {
			exact, em := harmonicSum(n, s), harmonicEM(n, s)
			if math.Abs(exact-em) > 1e-13*exact {
				t.Errorf("s=%g n=%d: got Euler–Maclaurin %.17g, want exact %.17g (rel err %.2g)",
					s, n, em, exact, math.Abs(exact-em)/exact)
			}
		}
		// Across the switch: one more term.
		below, above := Harmonic(harmonicExactMax, s), Harmonic(harmonicExactMax+1, s)
		want := below + math.Pow(harmonicExactMax+1, -s)
		if math.Abs(above-want) > 1e-13*want {
			t.Errorf("s=%g: got H(10^6+1) = %.17g, want H(10^6) + (10^6+1)^−s = %.17g", s, above, want)
		}
	}
}

// TestHarmonicAsymptotic checks H(n,1) against ln n + γ + 1/(2n) − 1/(12n²),
// whose error is about 1/(120 n⁴).
func TestHarmonicAsymptotic(t *testing.T) {
	const eulerGamma = 0.57721566490153286060651209008240243
	for _, n := range []uint64{1_000_000, 1_000_001, 12_345_678, MaxZipfN} {
		x := float64(n)
		want := math.Log(x) + eulerGamma + 1/(2*x) - 1/(12*x*x)
		if got := Harmonic(n, 1); math.Abs(got-want) > 1e-14*want {
			t.Errorf("Harmonic(%d, 1): got %.17g, want %.17g", n, got, want)
		}
	}
}

// TestHarmonicPlan pins the theory of worked example 3 (WORKED-EXAMPLES.md):
// 10^7 searches over 10^6 phrases at s = 1 give the 10th phrase an expected
// 10^7 · P(10) = 10^7 / (10 · H(10^6, 1)) ≈ 69,480 searches.
func TestHarmonicPlan(t *testing.T) {
	if got := 1e7 / (10 * Harmonic(1_000_000, 1)); math.Abs(got-69480) > 1 {
		t.Errorf("1e7 / (10 · H(1e6, 1)): got %.3f, want 69480 ± 1", got)
	}
	z, err := NewZipf(1_000_000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := 1e7 * z.Prob(10); math.Abs(got-69480) > 1 {
		t.Errorf("1e7 · Prob(10): got %.3f, want 69480 ± 1", got)
	}
}

func TestHarmonicEdges(t *testing.T) {
	tests := []struct {
		n    uint64
		s    float64
		want float64
	}{
		{0, 1, 0},
		{1, 0.5, 1},
		{2, 1, 1.5},
		{3, 2, 1 + 0.25 + 1.0/9},
		{MaxZipfN, 0, MaxZipfN},
		{MaxZipfN, math.Inf(1), 1},
		{MaxZipfN, 300, 1},
	}
	for _, tt := range tests {
		if got := Harmonic(tt.n, tt.s); got != tt.want {
			t.Errorf("Harmonic(%d, %g): got %v, want %v", tt.n, tt.s, got, tt.want)
		}
	}
	for _, s := range []float64{-1, math.NaN()} {
		if got := Harmonic(10, s); !math.IsNaN(got) {
			t.Errorf("Harmonic(10, %g): got %v, want NaN", s, got)
		}
	}
}

func BenchmarkNewZipf(b *testing.B) {
	for _, n := range []uint64{1_000_000, MaxZipfN} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := NewZipf(n, 1.1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestZipfHarmonicIdentical checks that the s = 1 loop draws bit for bit
// what the general rejection-inversion path draws at s = 1: every try on
// the same word gives the same rank, or is rejected by both. The words are
// a PCG's, plus words aimed at the squeeze's miss (the rare path where h is
// evaluated) and at the ends of the hat's area.
func TestZipfHarmonicIdentical(t *testing.T) {
	tries := 2_000_000
	if testing.Short() {
		tries = 200_000
	}
	for _, n := range []uint64{1, 2, 3, 50, 1_000_000, 400_000_000, MaxZipfN} {
		z, err := NewZipf(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		if z.kind != zipfHarmonic {
			t.Fatalf("n=%d: NewZipf(n, 1) did not pick the s = 1 loop", n)
		}
		general := *z
		general.kind = zipfGeneral
		words := rand.NewPCG(n, 0x4a7)
		var rejected, missed int
		check := func(w uint64) {
			k1, ok1 := z.tryHarmonic(w)
			k2, ok2 := general.tryGeneral(w)
			if k1 != k2 || ok1 != ok2 {
				t.Fatalf("n=%d word %#x: got %d, %v at s = 1, want %d, %v as the general path draws", n, w, k1, ok1, k2, ok2)
			}
			if !ok1 {
				rejected++
			}
		}
		for range tries {
			check(words.Uint64())
		}
		// Words with uniform v just above each rank's squeeze boundary:
		// v ∈ [0, 1) maps to u = hN + v·(hX1 − hN) (unit takes the low 53 bits),
		// and below k − squeeze the try evaluates h.
		for k := 2.0; k <= min(z.nf, 5000); k++ {
			u := z.hIntegral(k - z.squeeze)
			v := (u - z.hN) / (z.hX1 - z.hN)
			m := uint64(v * (1 << 53))
			for d := uint64(0); d < 64 && m+d < 1<<53; d++ {
				w := (m + d) | words.Uint64()<<53
				check(w)
				missed++
			}
		}
		for _, m := range []uint64{0, 1, 1<<53 - 2, 1<<53 - 1} {
			check(m)
		}
		t.Logf("n=%d: %d tries and %d near the squeeze, %d rejected by both", n, tries, missed, rejected)
		if n >= 50 && rejected == 0 {
			t.Errorf("n=%d: no try was rejected: the rejection path went untested", n)
		}
	}
}

// TestZipfRankFromSource checks that rankPCG and rankSplitMix draw exactly
// the ranks Rank draws from rand.New of the same source, and leave the
// source in the same state, for every kind of exponent: the uniform (with
// n a power of two, where Uint64N masks, and not), s = 1, and the general
// form, near 1 and far from it.
func TestZipfRankFromSource(t *testing.T) {
	draws := 100_000
	if testing.Short() {
		draws = 10_000
	}
	for _, s := range []float64{0, 1, 0.7, 1 - 1e-12, 1 + 1e-12, 1.2, 3, 200} {
		for _, n := range []uint64{1, 2, 3, 1 << 20, 1_000_000, MaxZipfN} {
			z, err := NewZipf(n, s)
			if err != nil {
				t.Fatal(err)
			}
			seed := uint64(n) ^ math.Float64bits(s)
			p1, p2 := rand.NewPCG(seed, 9), rand.NewPCG(seed, 9)
			r := rand.New(p1)
			g1, g2 := SplitMix(seed), SplitMix(seed)
			rg := rand.New(&g1)
			for i := range draws {
				if got, want := z.rankPCG(p2), z.Rank(r); got != want {
					t.Fatalf("s=%g n=%d draw %d: rankPCG got %d, Rank want %d", s, n, i, got, want)
				}
				if got, want := z.rankSplitMix(&g2), z.Rank(rg); got != want {
					t.Fatalf("s=%g n=%d draw %d: rankSplitMix got %d, Rank want %d", s, n, i, got, want)
				}
			}
			if *p1 != *p2 || g1 != g2 {
				t.Errorf("s=%g n=%d: the sources' states differ after %d draws", s, n, draws)
			}
		}
	}
}

// TestZipfTryUniform checks tryUniform against rand.Rand.Uint64N on words
// that reach its rejection: with n = 2^63 + 1, -n % n is 2^63 − 1, so about
// half the words are rejected, and Uint64N must have drawn again on exactly
// those.
func TestZipfTryUniform(t *testing.T) {
	for _, n := range []uint64{1<<63 + 1, 3, 1<<64 - 1, 1 << 40, 1_000_000} {
		z := &Zipf{n: n, kind: zipfUniform}
		p1, p2 := rand.NewPCG(n, 1), rand.NewPCG(n, 1)
		r := rand.New(p1)
		var rejected int
		for range 10_000 {
			want := 1 + r.Uint64N(n)
			var got uint64
			for {
				k, ok := z.tryUniform(p2.Uint64())
				if ok {
					got = k
					break
				}
				rejected++
			}
			if got != want {
				t.Fatalf("n=%d: got %d, want %d as Uint64N draws", n, got, want)
			}
		}
		if *p1 != *p2 {
			t.Errorf("n=%d: tryUniform and Uint64N took different numbers of words", n)
		}
		if n == 1<<63+1 && rejected < 4000 {
			t.Errorf("n=2^63+1: got %d rejections in 10,000 draws, want about 5,000", rejected)
		}
	}
}

// TestZipfHotTable checks that the hot table decides every try it is sure
// of exactly as the computation does. For each exponent and n it compares
// the two on random words (tryGeneral with the table against tryGeneral
// without), then on every float64 u within 256 ulps of each of the table's
// thresholds, where the table is sure closest to a decision point of the
// computation: a margin too thin, or a threshold on the wrong side, shows
// up there first. It also checks that the table is built where it should
// be, and covers the share of draws the design promises.
func TestZipfHotTable(t *testing.T) {
	words := 1_000_000
	if testing.Short() {
		words = 100_000
	}
	cases := []struct {
		s         float64
		n         uint64
		wantShare float64 // the least share of u the table must cover; 0: no table
	}{
		{0.3, 1000, 0.3},
		{0.3, 1_000_000, 0},
		{0.7, 1000, 0.5},
		{0.7, 1_000_000, 0},
		{1, 1000, 0}, // s = 1 goes without
		{1 - 1e-9, 1_000_000, 0.4},
		{1 + 1e-12, MaxZipfN, 0.25},
		{1.1, MaxZipfN, 0.5},
		{1.2, 1_000_000, 0.7},
		{1.2, 400_000_000, 0.7},
		{1.5, 1, 0.99},
		{1.5, 2, 0.99},
		{1.5, 3, 0.95},
		{1.5, 400_000_000, 0.9},
		{2, 50, 0.95},
		{2, MaxZipfN, 0.95},
		{3, 1_000_000, 0.99},
		{5, MaxZipfN, 0.99},
		{7.3, 1000, 0.99},
		{20, MaxZipfN, 0.99},
		{200, MaxZipfN, 0}, // u cannot tell rank 2 from rank 1: κ at 1.5 is 1.5^199/199
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("s=%g/n=%d", c.s, c.n), func(t *testing.T) {
			z, err := NewZipf(c.n, c.s)
			if err != nil {
				t.Fatal(err)
			}
			plain := *z
			plain.hot = hotTable{end: math.Inf(-1)}
			share := 0.0
			if rows := len(z.hot.ranks) - 1; rows > 0 {
				share = (z.hot.end - z.hX1) / (z.hN - z.hX1)
				t.Logf("%d ranks, %d buckets, %.3f of the draws", rows, len(z.hot.guide), share)
			}
			if c.wantShare == 0 {
				if !math.IsInf(z.hot.end, -1) {
					t.Fatalf("got a table covering %.3f of the draws, want none", share)
				}
				return
			}
			if share < c.wantShare {
				t.Fatalf("the table covers %.3f of the draws, want >= %.2f", share, c.wantShare)
			}
			p := rand.NewPCG(uint64(i), 0x407)
			sure := 0
			for range words {
				w := p.Uint64()
				k1, ok1 := z.tryGeneral(w)
				k2, ok2 := plain.tryGeneral(w)
				if k1 != k2 || ok1 != ok2 {
					t.Fatalf("word %#x: got %d, %v with the table, want %d, %v", w, k1, ok1, k2, ok2)
				}
				u := z.hN + float64(unit(w)*(z.hX1-z.hN))
				if u < z.hot.end {
					if _, _, s := z.hot.decide(u, z.hX1); s {
						sure++
					}
				}
			}
			// The table must be sure of nearly all it covers.
			if got := float64(sure) / float64(words); got < 0.99*share-0.01 {
				t.Errorf("the table was sure of %.3f of the words, want about its share %.3f", got, share)
			}
			checked := 0
			for _, r := range z.hot.ranks[:len(z.hot.ranks)-1] {
				for _, th := range []float64{r.lo, r.hi, r.acc, r.rej} {
					u := th
					for range 256 {
						u = math.Nextafter(u, math.Inf(-1))
					}
					for range 513 {
						if u < z.hot.end {
							if k, ok, s := z.hot.decide(u, z.hX1); s {
								checked++
								if wk, wok := z.tryAt(u); k != wk || ok != wok {
									t.Fatalf("u = %.17g (rank row %+v): the table says %d, %v, the computation %d, %v", u, r, k, ok, wk, wok)
								}
							}
						}
						u = math.Nextafter(u, math.Inf(1))
					}
				}
			}
			t.Logf("%d u next to the thresholds decided by the table, all as computed", checked)
		})
	}
}
