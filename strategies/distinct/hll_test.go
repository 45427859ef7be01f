package distinct

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"gonum.org/v1/gonum/stat/distuv"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

func newHLLT(t testing.TB, p int, seed uint64) *HLL {
	t.Helper()
	s, err := NewHLL(HLLParams{Precision: p}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// registers returns every register of s, whichever form holds them.
func (s *HLL) registers() []uint8 {
	r := make([]uint8, 1<<s.p)
	for i := range r {
		r[i] = s.register(uint32(i))
	}
	return r
}

// sameRegisters fails unless a and b hold the same registers.
func sameRegisters(t *testing.T, what string, a, b *HLL) {
	t.Helper()
	ra, rb := a.registers(), b.registers()
	for i := range ra {
		if ra[i] != rb[i] {
			t.Fatalf("%s: register %d: got %d, want %d", what, i, ra[i], rb[i])
		}
	}
}

func TestHLLParams(t *testing.T) {
	for _, tt := range []struct {
		p       int
		bytes   int64
		sparse  bool
		wantErr string
	}{
		{p: 3, wantErr: "hll: parameter p: 3 is out of range (allowed: 4..18)"},
		{p: 19, wantErr: "hll: parameter p: 19 is out of range (allowed: 4..18)"},
		{p: 4, bytes: 12},
		{p: 5, bytes: 24},
		{p: 6, bytes: 32, sparse: true}, // 8 slots of 4 B, under the 48 B dense
		{p: 14, bytes: 32, sparse: true},
		{p: 18, bytes: 32, sparse: true},
	} {
		t.Run(fmt.Sprintf("p=%d", tt.p), func(t *testing.T) {
			s, err := NewHLL(HLLParams{Precision: tt.p}, 1)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("got error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			designtest.CheckInvariants(t, s)
			if s.Bytes() != tt.bytes || s.sparse() != tt.sparse || int(s.p) != tt.p {
				t.Errorf("got %d bytes, sparse %v, p %d; want %d, %v, %d", s.Bytes(), s.sparse(), s.p, tt.bytes, tt.sparse, tt.p)
			}
			d, err := NewHLL(HLLParams{Precision: tt.p, Dense: true}, 1)
			if err != nil {
				t.Fatal(err)
			}
			designtest.CheckInvariants(t, d)
			if want := int64((1 << tt.p) * 6 / 8); d.Bytes() != want || d.sparse() {
				t.Errorf("dense: got %d bytes, sparse %v; want %d, false", d.Bytes(), d.sparse(), want)
			}
			if s.Estimate() != 0 || d.Distinct() != 0 {
				t.Errorf("empty sketch: got estimates %v and %v, want 0", s.Estimate(), d.Distinct())
			}
		})
	}
	typ, err := strategies.Lookup("hll")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		raw  []scenarios.Param
		want string
	}{
		{[]scenarios.Param{{Key: "p", Value: int64(3), Pos: scenarios.Pos{Line: 4}}}, ":4: params.p: 3 is out of range (allowed: 4..18)"},
		{[]scenarios.Param{{Key: "p", Value: 14.5}}, ": params.p: 14.5 is not an integer (allowed: 4..18)"},
		{[]scenarios.Param{{Key: "precision", Value: int64(14)}}, `: params: unknown key "precision" (allowed: p, dense)`},
	} {
		if _, err := designtest.DecodeParams(typ, tt.raw); err == nil || err.Error() != tt.want {
			t.Errorf("Decode(%v): got %v, want %q", tt.raw, err, tt.want)
		}
	}
}

// The hash is XXH64 (github.com/cespare/xxhash/v2) of s‖id; the top p bits
// pick the register and the rank is the leading zeros of the rest plus one.
func TestHLLHashIsXXH64(t *testing.T) {
	st := workload.SplitMix(uint64(42) ^ 0x68797065726c6f67)
	s0 := st.Uint64()
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 2000 {
		id := r.Uint64()
		if i%2 == 0 {
			id = uint64(i)
		}
		p := 4 + i%15
		s := newHLLT(t, p, 42)
		s.Insert(id)
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], s0)
		binary.LittleEndian.PutUint64(b[8:], id)
		h := xxhash.Sum64(b[:])
		idx := h >> (64 - p)
		rank := min(bits.LeadingZeros64(h<<p), 64-p) + 1
		var c [64]int
		s.histogram(&c)
		if got := s.register(uint32(idx)); int(got) != rank || c[0] != 1<<p-1 {
			t.Fatalf("p=%d id=%d: register %d = %d with %d registers at 0; want %d with %d (hash %#x)", p, id, idx, got, c[0], rank, 1<<p-1, h)
		}
	}
	// The cap: a hash whose q low bits are zero has rank q+1.
	for p := uint8(4); p <= 18; p++ {
		if idx, r := hllSplit(^uint64(0)<<(64-p), p); r != 64-p+1 || idx != 1<<p-1 {
			t.Errorf("p=%d: all-zero rest: got index %d rank %d, want %d, %d", p, idx, r, 1<<p-1, 64-p+1)
		}
		if _, r := hllSplit(1<<(63-p), p); r != 1 {
			t.Errorf("p=%d: leading rest bit set: got rank %d, want 1", p, r)
		}
	}
}

// σ and τ against their series summed directly, and the estimator against
// its definition: with no register at 0 or at q+1 it is the harmonic mean of
// Flajolet et al. with α∞; with only zeros and ones it is close to linear
// counting m ln(m/C_0).
func TestErtlEstimator(t *testing.T) {
	sigma := func(x float64) float64 {
		s := x
		for k := 1; k < 64; k++ {
			s += math.Pow(x, math.Pow(2, float64(k))) * math.Pow(2, float64(k-1))
		}
		return s
	}
	tau := func(x float64) float64 {
		s := 1 - x
		for k := 1; k < 80; k++ {
			d := 1 - math.Pow(x, math.Pow(2, -float64(k)))
			s -= d * d * math.Pow(2, -float64(k))
		}
		return s / 3
	}
	for _, x := range []float64{0, 1e-9, 0.001, 0.1, 0.5, 0.9, 0.99, 0.999, 1 - 1.0/(1<<18)} {
		if got, want := ertlSigma(x), sigma(x); math.Abs(got-want) > 1e-12*math.Max(1, want) {
			t.Errorf("σ(%v): got %v, want %v", x, got, want)
		}
		if got, want := ertlTau(x), tau(x); math.Abs(got-want) > 1e-12 {
			t.Errorf("τ(%v): got %v, want %v", x, got, want)
		}
	}
	if !math.IsInf(ertlSigma(1), 1) || ertlTau(1) != 0 || ertlTau(0) != 0 {
		t.Errorf("σ(1) = %v, τ(0) = %v, τ(1) = %v: want +Inf, 0, 0", ertlSigma(1), ertlTau(0), ertlTau(1))
	}

	r := rand.New(rand.NewPCG(7, 8))
	for _, p := range []int{4, 10, 14, 18} {
		m := 1 << p
		var c [64]int
		var harm float64
		for range m {
			k := 1 + r.IntN(20)
			c[k]++
			harm += math.Pow(2, -float64(k))
		}
		got, want := ertlEstimate(&c, p, hllAlphaInf), hllAlphaInf*float64(m)*float64(m)/harm
		if math.Abs(got/want-1) > 1e-12 {
			t.Errorf("p=%d: no zero or full register: got %v, want the harmonic mean %v", p, got, want)
		}
		for _, ones := range []int{1, m / 100, m / 10} {
			c = [64]int{0: m - ones, 1: ones}
			got, lc := ertlEstimate(&c, p, hllAlphaInf), float64(m)*math.Log(float64(m)/float64(m-ones))
			if math.Abs(got/lc-1) > 0.01 {
				t.Errorf("p=%d, %d registers at 1: got %v, want about linear counting %v", p, ones, got, lc)
			}
		}
		c = [64]int{}
		c[64-p+1] = m
		if e := ertlEstimate(&c, p, hllAlphaInf); !math.IsInf(e, 1) {
			t.Errorf("p=%d, every register at q+1: got %v, want +Inf", p, e)
		}
	}
}

// Accuracy over many seeded trials. Each trial builds a sketch with its own
// seed and inserts n sequential ids from a random base (sequential ids test
// the hash as much as the estimator). For the relative errors e = n̂/n − 1
// of T trials it checks
//
//   - the mean against the estimator's bias b, within z·σ/√T (σ widened by
//     3%, below) plus 0.5/m for the terms the model leaves out (the mean of
//     the registers for exactly n ids rather than a Poisson number shifts
//     the estimate by about 0.1/m; higher-order terms are smaller);
//   - the standard deviation s against σ, within the chi-square band of a
//     sample standard deviation: (T−1)s²/σ² ~ χ²(T−1) for normal errors. The
//     errors are not exactly normal (excess kurtosis κ up to 0.34 measured at
//     n = m/16, below 0.2 elsewhere): the band uses the chi-square of the
//     same variance, ν = 2/(2/(T−1) + κ/T) degrees of freedom with κ = 0.5,
//     and σ is widened by ±3% for the error of the model below.
//
// The model. For n ≥ 8m (registers rarely 0) Ertl's estimator is the
// harmonic-mean estimator with α∞; Flajolet et al. give its relative
// variance β∞²/m, β∞² = 3 ln 2 − 1 (so σ → 1.039/√m, the "1.04/√m"), for a
// Poisson number of ids. With exactly n ids the estimate does not carry the
// Poisson noise of n, whose relative variance is 1/n: σ² = (β∞² − m/n)/m —
// 0.990/√m at n = 10m, 1.034/√m at n = 100m, matched within 1% by
// simulations with random hashes. The bias of α∞·m²/Z is, by the delta
// method, the relative variance of Z: b = σ² (1.08/m in the limit, the
// 1 + 1.079/m that α_m of the original paper divides out). For n ≤ m/8 the
// estimator is linear counting to within 1% (Whang, Vander-Zanden and
// Taylor, "A linear-time probabilistic counting algorithm for database
// applications", TODS 1990): σ = √(m(e^t − t − 1))/n with t = n/m, and b =
// −m ln(1 − 1/m) − 1 + (e^t − t − 1)/(2n), the second-order delta method on
// n̂ = −m ln(C_0/m).
//
// There are ten checks; each fails a correct build with probability below
// 10^-7 (z = 5.33), so the test fails less than once in a million runs.
// The subtest "catches" shows that realistic bugs fail it.
func TestHLLAccuracy(t *testing.T) {
	cases := []hllAccCase{
		{p: 10, n: 10 << 10, trials: 2000, seed: 1},
		{p: 10, n: 100 << 10, trials: 1000, seed: 2},
		{p: 14, n: 10 << 14, trials: 1000, seed: 3},
		{p: 10, n: 1 << 10 / 16, trials: 4000, seed: 4},
		{p: 14, n: 1 << 14 / 16, trials: 2000, seed: 5}, // sparse all along
	}
	alpha := 1e-6 / float64(2*len(cases))
	for _, c := range cases {
		t.Run(fmt.Sprintf("p=%d/n=%d", c.p, c.n), func(t *testing.T) {
			t.Parallel()
			if testing.Short() {
				c.trials /= 10
			}
			errs := hllTrials(c, hllCorrect)
			r := c.judge(errs, alpha)
			t.Logf("p=%d n=%d T=%d: mean %+.5f (bias b %+.5f, tolerance ±%.5f); sd %.5f = %.4f/√m, σ = %.4f/√m, band [%.5f, %.5f]; 1.04/√m = %.5f",
				c.p, c.n, len(errs), r.mean, r.bias, r.meanTol, r.sd, r.sd*math.Sqrt(c.m()), r.sigma*math.Sqrt(c.m()), r.sdLo, r.sdHi, 1.04/math.Sqrt(c.m()))
			for _, f := range r.fails {
				t.Error(f)
			}
		})
	}

	t.Run("catches", func(t *testing.T) {
		big := hllAccCase{p: 10, n: 10 << 10, trials: 500, seed: 11}
		small := hllAccCase{p: 10, n: 1 << 10 / 16, trials: 1000, seed: 12}
		plain := func(s *HLL) float64 { return s.Estimate() }
		bugs := []struct {
			name string
			c    hllAccCase
			v    hllVariant
		}{
			{"rank-without-+1", big, hllVariant{func(s *HLL, id uint64) {
				idx, r := hllSplit(ds.RowHash(s.state, ds.KeyLane(id)), s.p)
				s.setMax(idx, r-1)
			}, plain}},
			{"rank+1", big, hllVariant{func(s *HLL, id uint64) {
				idx, r := hllSplit(ds.RowHash(s.state, ds.KeyLane(id)), s.p)
				s.setMax(idx, r+1)
			}, plain}},
			{"rank-over-index-bits", big, hllVariant{func(s *HLL, id uint64) {
				h := ds.RowHash(s.state, ds.KeyLane(id))
				idx, _ := hllSplit(h, s.p)
				s.setMax(idx, uint8(min(bits.LeadingZeros64(h), 64-int(s.p)))+1)
			}, plain}},
			{"identity-hash", big, hllVariant{func(s *HLL, id uint64) { s.setMax(hllSplit(id^s.seed, s.p)) }, plain}},
			{"multiplicative-hash", big, hllVariant{func(s *HLL, id uint64) {
				s.setMax(hllSplit((id^s.seed)*0x9e3779b97f4a7c15, s.p))
			}, plain}},
			{"alpha=0.673", big, hllVariant{hllCorrect.insert, func(s *HLL) float64 {
				var c [64]int
				s.histogram(&c)
				return ertlEstimate(&c, int(s.p), 0.673) // α_16 of the original paper, for every m
			}}},
			{"sigma=x", small, hllVariant{hllCorrect.insert, func(s *HLL) float64 {
				var c [64]int
				s.histogram(&c)
				m := float64(int(1) << s.p)
				z := 0.0
				for k := 64 - int(s.p); k >= 1; k-- {
					z = 0.5 * (z + float64(c[k]))
				}
				return hllAlphaInf * m * m / (z + float64(c[0])) // σ(x) cut to its first term
			}}},
		}
		for _, b := range bugs {
			c := b.c
			if testing.Short() {
				c.trials /= 5
			}
			r := c.judge(hllTrials(c, b.v), alpha)
			t.Logf("%s: mean %+.5f (tolerance ±%.5f), sd %.5f (band [%.5f, %.5f]): %d checks fail", b.name, r.mean, r.meanTol, r.sd, r.sdLo, r.sdHi, len(r.fails))
			if len(r.fails) == 0 {
				t.Errorf("%s passes the accuracy checks: the test would not catch it", b.name)
			}
		}
	})
}

type hllAccCase struct {
	p, n, trials int
	seed         uint64
}

func (c hllAccCase) m() float64 { return float64(int(1) << c.p) }

// model returns the bias b and the standard deviation σ of the relative
// error at n ids (see TestHLLAccuracy).
func (c hllAccCase) model() (b, sigma float64) {
	m, n := c.m(), float64(c.n)
	switch {
	case n >= 8*m:
		v := (3*math.Ln2 - 1 - m/n) / m
		return v, math.Sqrt(v)
	case n <= m/8:
		t := n / m
		g := math.Exp(t) - t - 1
		return -m*math.Log1p(-1/m) - 1 + g/(2*n), math.Sqrt(m*g) / n
	}
	panic("no model between m/8 and 8m")
}

type hllAccResult struct {
	mean, sd, bias, sigma, meanTol, sdLo, sdHi float64
	fails                                      []string
}

// judge applies the two checks of TestHLLAccuracy, each at level alpha.
func (c hllAccCase) judge(errs []float64, alpha float64) hllAccResult {
	const kurtosis, modelErr = 0.5, 0.03
	var r hllAccResult
	T := float64(len(errs))
	for _, e := range errs {
		r.mean += e
	}
	r.mean /= T
	for _, e := range errs {
		r.sd += (e - r.mean) * (e - r.mean)
	}
	r.sd = math.Sqrt(r.sd / (T - 1))
	r.bias, r.sigma = c.model()
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	r.meanTol = z*r.sigma*(1+modelErr)/math.Sqrt(T) + 0.5/c.m()
	nu := 2 / (2/(T-1) + kurtosis/T)
	chi := distuv.ChiSquared{K: nu}
	r.sdLo = r.sigma * (1 - modelErr) * math.Sqrt(chi.Quantile(alpha/2)/nu)
	r.sdHi = r.sigma * (1 + modelErr) * math.Sqrt(chi.Quantile(1-alpha/2)/nu)
	if math.Abs(r.mean-r.bias) > r.meanTol {
		r.fails = append(r.fails, fmt.Sprintf("mean relative error %+.5f, want %+.5f ± %.5f", r.mean, r.bias, r.meanTol))
	}
	if !(r.sd >= r.sdLo && r.sd <= r.sdHi) {
		r.fails = append(r.fails, fmt.Sprintf("standard deviation %.5f, want in [%.5f, %.5f] (σ = %.5f)", r.sd, r.sdLo, r.sdHi, r.sigma))
	}
	return r
}

// hllVariant is how a trial inserts and estimates: the sketch's own methods,
// or a deliberately broken version.
type hllVariant struct {
	insert   func(s *HLL, id uint64)
	estimate func(s *HLL) float64
}

var hllCorrect = hllVariant{(*HLL).Insert, (*HLL).Estimate}

// hllTrials returns the relative errors of c.trials seeded trials.
func hllTrials(c hllAccCase, v hllVariant) []float64 {
	r := rand.New(rand.NewPCG(c.seed, 0x686c6c74726961))
	errs := make([]float64, c.trials)
	for i := range errs {
		s, err := NewHLL(HLLParams{Precision: c.p}, r.Uint64())
		if err != nil {
			panic(err)
		}
		base := r.Uint64()
		for j := range uint64(c.n) {
			v.insert(s, base+j)
		}
		errs[i] = v.estimate(s)/float64(c.n) - 1
	}
	return errs
}

// A sparse sketch and a dense one of the same seed hold the same registers
// and give the same estimate, to the last bit, after every insertion,
// across the switch; converting a sparse sketch changes neither. Memory
// grows 32, 64, … up to m/2 bytes, then jumps to m·6/8.
func TestHLLSparseToDense(t *testing.T) {
	for _, p := range []int{6, 10, 14} {
		t.Run(fmt.Sprintf("p=%d", p), func(t *testing.T) {
			sp := newHLLT(t, p, 3)
			de, err := NewHLL(HLLParams{Precision: p, Dense: true}, 3)
			if err != nil {
				t.Fatal(err)
			}
			m := 1 << p
			maxPairs := 3 * m / 32
			switched := -1
			lastBytes := sp.Bytes()
			for id := uint64(1); switched < 0 || id < uint64(switched)+50; id++ {
				wasSparse := sp.sparse()
				if wasSparse && sp.sp.n == maxPairs {
					// Convert a copy at the brink: same registers, same estimate.
					c := sp.clone()
					c.toDense()
					designtest.CheckInvariants(t, c)
					sameRegisters(t, "converted", c, sp)
					if c.Estimate() != sp.Estimate() {
						t.Fatalf("estimate %v before the conversion, %v after", sp.Estimate(), c.Estimate())
					}
				}
				sp.Insert(id)
				de.Insert(id)
				if got, want := sp.Estimate(), de.Estimate(); got != want {
					t.Fatalf("after %d ids: sparse estimate %v, dense %v", id, got, want)
				}
				if sp.Bytes() < lastBytes {
					t.Fatalf("bytes fell from %d to %d", lastBytes, sp.Bytes())
				}
				lastBytes = sp.Bytes()
				if wasSparse && !sp.sparse() {
					switched = int(id)
					if sp.Bytes() != int64(m*6/8) {
						t.Errorf("after the switch: %d bytes, want %d", sp.Bytes(), m*6/8)
					}
				}
				if sp.sparse() {
					if sp.Bytes() > int64(m/2) || sp.sp.n > maxPairs {
						t.Fatalf("sparse: %d bytes, %d pairs; want ≤ %d, ≤ %d", sp.Bytes(), sp.sp.n, m/2, maxPairs)
					}
				}
				if id%97 == 0 {
					designtest.CheckInvariants(t, sp)
				}
			}
			designtest.CheckInvariants(t, sp)
			sameRegisters(t, "sparse-built vs dense-built", sp, de)
			t.Logf("switched to dense at id %d with %d registers set", switched, maxPairs+1)
		})
	}
}

// Merge laws: the merge of the sketches of A and B is, register for
// register, the sketch of A ∪ B, whatever form each holds; it does not
// depend on the order; merging a sketch with itself or a copy changes
// nothing; a different precision or seed is refused and leaves the receiver
// unchanged.
func TestHLLMerge(t *testing.T) {
	const p, seed = 12, 9
	build := func(lo, hi uint64, dense bool) *HLL {
		s, err := NewHLL(HLLParams{Precision: p, Dense: dense}, seed)
		if err != nil {
			t.Fatal(err)
		}
		for id := lo; id < hi; id++ {
			s.Insert(workload.Mix64(id))
		}
		return s
	}
	for _, tt := range []struct {
		name           string
		a0, a1, b0, b1 uint64
	}{
		{"sparse+sparse", 0, 100, 50, 200},
		{"sparse+sparse→dense", 0, 300, 150, 450}, // 300 ids set fewer than the 384 registers of the sparse form, 450 more
		{"sparse+dense", 0, 100, 50, 50000},
		{"dense+dense", 0, 30000, 20000, 60000},
		{"disjoint", 0, 5000, 5000, 10000},
		{"empty", 0, 0, 0, 1000},
	} {
		for _, dense := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dense=%v", tt.name, dense), func(t *testing.T) {
				union := build(min(tt.a0, tt.b0), max(tt.a1, tt.b1), false)
				if tt.a1 < tt.b0 || tt.b1 < tt.a0 {
					t.Fatal("ranges must overlap or touch")
				}
				for _, order := range []string{"ab", "ba"} {
					a, b := build(tt.a0, tt.a1, dense), build(tt.b0, tt.b1, false)
					if order == "ba" {
						a, b = b, a
					}
					bBefore, _ := b.MarshalBinary()
					if err := a.Merge(b); err != nil {
						t.Fatal(err)
					}
					designtest.CheckInvariants(t, a)
					sameRegisters(t, "merge "+order, a, union)
					if a.Estimate() != union.Estimate() {
						t.Errorf("merge %s: estimate %v, want the union's %v", order, a.Estimate(), union.Estimate())
					}
					if bAfter, _ := b.MarshalBinary(); !bytes.Equal(bBefore, bAfter) {
						t.Errorf("merge %s changed its argument", order)
					}
					if !dense && a.sparse() != union.sparse() {
						t.Errorf("merge %s: sparse %v, the union built directly %v", order, a.sparse(), union.sparse())
					}
				}
			})
		}
	}

	t.Run("idempotent", func(t *testing.T) {
		for _, hi := range []uint64{100, 50000} {
			a := build(0, hi, false)
			want := a.clone()
			if err := a.Merge(a); err != nil {
				t.Fatal(err)
			}
			if err := a.Merge(want.clone()); err != nil {
				t.Fatal(err)
			}
			designtest.CheckInvariants(t, a)
			sameRegisters(t, "merge(A, A)", a, want)
			if a.sparse() != want.sparse() || a.Bytes() != want.Bytes() {
				t.Errorf("merge(A, A): sparse %v, %d bytes; want %v, %d", a.sparse(), a.Bytes(), want.sparse(), want.Bytes())
			}
		}
	})

	t.Run("refused", func(t *testing.T) {
		for _, recvHi := range []uint64{100, 50000} {
			for _, tt := range []struct {
				name  string
				other *HLL
				want  error
			}{
				{"precision", newHLLT(t, p+1, seed), strategies.ErrMergeParams},
				{"precision-lower", newHLLT(t, p-1, seed), strategies.ErrMergeParams},
				{"seed", newHLLT(t, p, seed+1), strategies.ErrMergeSeed},
			} {
				for id := range uint64(60000) {
					tt.other.Insert(id)
				}
				a := build(0, recvHi, false)
				before, _ := a.MarshalBinary()
				err := a.Merge(tt.other)
				if !errors.Is(err, tt.want) {
					t.Errorf("%s: got error %v, want %v", tt.name, err, tt.want)
				}
				if after, _ := a.MarshalBinary(); !bytes.Equal(before, after) {
					t.Errorf("%s: refused merge changed the receiver", tt.name)
				}
			}
		}
	})
}

// Two days of viewers (WORKED-EXAMPLES.md step 2, at 1/1000 scale): 40,000
// on day 1, 38,000 on day 2 of whom 30,000 also watched day 1. Adding the
// two counts gives about 78,000; merging the sketches gives about 48,000.
func TestHLLTwoDays(t *testing.T) {
	day1, day2 := newHLLT(t, 14, 1), newHLLT(t, 14, 1)
	ids := func(lo, hi uint64) []workload.Event {
		ev := make([]workload.Event, 0, hi-lo)
		for i := lo; i < hi; i++ {
			ev = append(ev, workload.Event{Actor: workload.Mix64(i), Op: workload.Write, Delta: 1})
		}
		return ev
	}
	day1.Observe(ids(0, 40000))
	day2.Observe(ids(10000, 48000))
	sum := day1.Distinct() + day2.Distinct()
	both := day1.clone()
	if err := both.Merge(day2); err != nil {
		t.Fatal(err)
	}
	// One sketch each: tolerance z = 5.33 standard errors (1.04/√m, which
	// bounds σ at these n), so this fails less than once in 10^7 runs.
	tol := 5.33 * 1.04 / 128
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"day 1", day1.Distinct(), 40000}, {"day 2", day2.Distinct(), 38000}, {"merged", both.Distinct(), 48000}} {
		if math.Abs(c.got/c.want-1) > tol {
			t.Errorf("%s: estimate %.0f, want %.0f within %.1f%%", c.name, c.got, c.want, 100*tol)
		}
	}
	t.Logf("day 1 %.0f, day 2 %.0f, sum %.0f (%.1f%% too high), merged %.0f (true 48,000)", day1.Distinct(), day2.Distinct(), sum, 100*(sum/48000-1), both.Distinct())
}

// Observe counts the Actor of Write events, whatever the Delta, and ignores
// Read events; exact-distinct and hll see the same ids.
func TestDistinctObserve(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var ev []workload.Event
	truth := map[uint64]bool{}
	for i := range 200000 {
		e := workload.Event{Key: uint64(i % 7), Actor: uint64(r.IntN(60000)), Delta: int64(r.IntN(3) - 1), Op: workload.Write}
		if i%5 == 0 {
			e.Op = workload.Read
			e.Actor = 1<<40 + uint64(i) // never written
		} else {
			truth[e.Actor] = true
		}
		ev = append(ev, e)
	}
	for _, tt := range []struct {
		typ    string
		params []scenarios.Param
		tol    float64 // relative
	}{
		{"exact-distinct", nil, 0},
		{"hll", nil, 5.33 * 1.04 / 128},
		{"hll", []scenarios.Param{{Key: "p", Value: int64(10)}, {Key: "dense", Value: true}}, 5.33 * 1.04 / 32},
	} {
		t.Run(fmt.Sprintf("%s%v", tt.typ, tt.params), func(t *testing.T) {
			s := designtest.BuildDesign(t, tt.typ, tt.params, strategies.Env{Seed: 1, Keys: 1000})
			d, ok := s.(strategies.Distinct)
			if !ok {
				t.Fatalf("%T is not a Distinct", s)
			}
			for i := 0; i < len(ev); i += 4096 {
				s.Observe(ev[i:min(i+4096, len(ev))])
				designtest.CheckInvariants(t, s)
			}
			got, want := d.Distinct(), float64(len(truth))
			if math.Abs(got/want-1) > tt.tol {
				t.Errorf("Distinct: got %v, want %v within %.2f%%", got, want, 100*tt.tol)
			}
		})
	}
}

// Encoding round trips, sparse and dense, at every precision: the same
// registers, estimate, form and bytes, and the same encoding again.
func TestHLLEncodingRoundTrip(t *testing.T) {
	for p := hllMinP; p <= hllMaxP; p++ {
		for _, n := range []uint64{0, 1, 40, 5000} {
			s := newHLLT(t, p, uint64(p)*1000+n)
			for id := range n {
				s.Insert(id)
			}
			b, err := s.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			var got HLL
			if err := got.UnmarshalBinary(b); err != nil {
				t.Fatalf("p=%d n=%d: %v", p, n, err)
			}
			designtest.CheckInvariants(t, &got)
			sameRegisters(t, fmt.Sprintf("p=%d n=%d", p, n), &got, s)
			if got.Estimate() != s.Estimate() || got.sparse() != s.sparse() || got.Bytes() != s.Bytes() || got.seed != s.seed {
				t.Errorf("p=%d n=%d: decoded estimate %v sparse %v bytes %d seed %d; want %v %v %d %d", p, n,
					got.Estimate(), got.sparse(), got.Bytes(), got.seed, s.Estimate(), s.sparse(), s.Bytes(), s.seed)
			}
			again, _ := got.MarshalBinary()
			if !bytes.Equal(again, b) {
				t.Errorf("p=%d n=%d: re-encoding differs", p, n)
			}
			if want := hllEncodedLen(uint8(p), s.sparse(), s.sp.n); len(b) != want {
				t.Errorf("p=%d n=%d: %d bytes, want %d", p, n, len(b), want)
			}
			// The decoded sketch goes on: it accepts more ids like the original.
			s.Insert(1 << 50)
			got.Insert(1 << 50)
			sameRegisters(t, "after decode", &got, s)
		}
	}
	if _, err := new(HLL).MarshalBinary(); err == nil {
		t.Error("MarshalBinary of a zero HLL: got no error")
	}
}

// The binary form is pinned: these sketches encode to the same bytes (their
// SHA-256 here) and estimate the same numbers as they did when the dense
// registers were held packed at 6 bits in memory, the layout the format
// was written from. A change to either fails here, not in a stored file
// somewhere else.
func TestHLLEncodingGolden(t *testing.T) {
	for _, tt := range []struct {
		p      int
		n      uint64
		dense  bool
		sparse bool   // the form the sketch is in
		sha    string // of the encoding
		est    float64
	}{
		{4, 100, false, false, "6ec24e7aa14ea8d7c8d7c28893ff39f370dcacc7248a621e8b2325ee0140b1c4", 89.61939544995175},
		{6, 1000, false, false, "6da7606fe7db87535c7e77eabf30f9a73894ff62a0e4c801e4a5e6e9bc502abf", 992.9605482081954},
		{10, 50, true, false, "52fb8dbd3cd768cfd0b8949ca10b87296c103b3850911e527ab4d9ae6963f785", 51.262856213285396},
		{10, 5000, false, false, "4fd95b80cc876c93e01c91fc4d7c4f043633a0683a6284b07a8f4b7261a832b2", 5137.23112462604},
		{14, 1000, false, true, "ef50b47105f87f90812d52ac6147ff168f28019bc2d8902d62bc1c2336fd1619", 1008.407690284183},
		{14, 100000, false, false, "895497c679cf4a8c6d76fbca2d97d0066eb199f6a2825ff775f0d1d2c46a5517", 98828.04521689867},
		{18, 1000000, true, false, "d5f2e3ed9f521414116a0b9b4cab68148c560136fc7a64d02c8e7bc244cb13b5", 995318.2453950586},
	} {
		s, err := NewHLL(HLLParams{Precision: tt.p, Dense: tt.dense}, 42)
		if err != nil {
			t.Fatal(err)
		}
		for id := range tt.n {
			s.Insert(id * 0x9e3779b97f4a7c15)
		}
		b, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != tt.sha || s.sparse() != tt.sparse || s.Estimate() != tt.est {
			t.Errorf("p=%d n=%d dense=%v: sha256 %s, sparse %v, estimate %v; want %s, %v, %v",
				tt.p, tt.n, tt.dense, got, s.sparse(), s.Estimate(), tt.sha, tt.sparse, tt.est)
		}
	}
}

// Observe, whose dense loop writes hllSplit out, sets the registers Insert
// sets: at every precision, from the sparse and from the dense form, with
// Read events that must be skipped among the Writes.
func TestHLLObserveIsInsert(t *testing.T) {
	ev := hllBenchEvents(20000, 11)
	for i := range ev {
		if i%5 == 2 {
			ev[i].Op = workload.Read
		}
	}
	ev[3].Actor, ev[4].Actor = 0, ^uint64(0) // two edge ids among the random ones
	for p := hllMinP; p <= hllMaxP; p++ {
		for _, dense := range []bool{false, true} {
			obs, err := NewHLL(HLLParams{Precision: p, Dense: dense}, uint64(p))
			if err != nil {
				t.Fatal(err)
			}
			ins := obs.clone()
			for i := 0; i < len(ev); i += 1000 {
				obs.Observe(ev[i : i+1000])
			}
			for _, e := range ev {
				if e.Op == workload.Write {
					ins.Insert(e.Actor)
				}
			}
			designtest.CheckInvariants(t, obs)
			sameRegisters(t, fmt.Sprintf("p=%d dense=%v: Observe vs Insert", p, dense), obs, ins)
		}
	}
	// The rank at the edges: all q bits zero gives q+1, the top one set gives 1.
	for p := uint8(hllMinP); p <= hllMaxP; p++ {
		if _, r := hllSplit(0, p); r != 64-p+1 {
			t.Errorf("p=%d: rank of 0: got %d, want q+1 = %d", p, r, 64-p+1)
		}
		if _, r := hllSplit(^uint64(0), p); r != 1 {
			t.Errorf("p=%d: rank of all ones: got %d, want 1", p, r)
		}
	}
}

// hllFixCRC returns b with its last 4 bytes set to the CRC-32C of the rest,
// so a test (or the fuzzer) reaches the checks behind the checksum.
func hllFixCRC(b []byte) []byte {
	b = slices.Clone(b)
	if len(b) >= hllTrailerLen {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	}
	return b
}

// hllBadEncodings returns broken inputs, each with the reason the decoder
// must give, derived from the valid encodings of a sparse and a dense
// sketch.
func hllBadEncodings(t testing.TB) (sparse, dense []byte, bad map[string][]byte) {
	sp, de := newHLLT(t, 8, 5), newHLLT(t, 6, 5)
	for id := range uint64(10) {
		sp.Insert(id)
	}
	for id := range uint64(1000) {
		de.Insert(id)
	}
	if !sp.sparse() || de.sparse() {
		t.Fatal("want one sparse and one dense sketch")
	}
	sparse, _ = sp.MarshalBinary()
	dense, _ = de.MarshalBinary()
	edit := func(b []byte, fix bool, f func(b []byte)) []byte {
		b = slices.Clone(b)
		f(b)
		if fix {
			return hllFixCRC(b)
		}
		return b
	}
	last := int(binary.LittleEndian.Uint32(sparse[hllHeaderLen:])) - 1
	pair := func(i int) int { return hllHeaderLen + 4 + 4*i }
	setPair := func(b []byte, i int, idx uint32, r uint32) {
		binary.LittleEndian.PutUint32(b[pair(i):], idx<<6|r)
	}
	bad = map[string][]byte{
		"truncated: 0 bytes":        nil,
		"truncated: 19 bytes":       sparse[:19],
		"truncated: sparse count":   hllFixCRC(append(slices.Clone(sparse[:hllHeaderLen]), 0, 0, 0, 0)[:hllHeaderLen+4]),
		"truncated: last pair":      hllFixCRC(append(slices.Clone(sparse[:len(sparse)-8]), 0, 0, 0, 0)),
		"truncated: dense":          dense[:len(dense)-1],
		"oversize: trailing byte":   hllFixCRC(append(slices.Clone(sparse), 0)),
		"oversize: dense":           hllFixCRC(append(slices.Clone(dense), 0, 0, 0, 0)),
		"magic":                     edit(sparse, true, func(b []byte) { b[0] = 'X' }),
		"version 0":                 edit(sparse, true, func(b []byte) { b[4] = 0 }),
		"version 2":                 edit(sparse, true, func(b []byte) { b[4] = 2 }),
		"precision 3":               edit(dense, true, func(b []byte) { b[5] = 3 }),
		"precision 19":              edit(dense, true, func(b []byte) { b[5] = 19 }),
		"precision 255":             edit(dense, true, func(b []byte) { b[5] = 255 }),
		"precision 7 for 6's bytes": edit(dense, true, func(b []byte) { b[5] = 7 }),
		"unknown flag":              edit(sparse, true, func(b []byte) { b[6] |= 2 }),
		"reserved byte":             edit(sparse, true, func(b []byte) { b[7] = 1 }),
		"sparse at p=4":             edit(sparse, true, func(b []byte) { b[5] = 4 }),
		"dense flag on sparse data": edit(sparse, true, func(b []byte) { b[6] = 0 }),
		"sparse count 2^32-1":       edit(sparse, true, func(b []byte) { binary.LittleEndian.PutUint32(b[hllHeaderLen:], math.MaxUint32) }),
		"sparse count one more":     edit(sparse, true, func(b []byte) { b[hllHeaderLen]++ }),
		"sparse count one less":     edit(sparse, true, func(b []byte) { b[hllHeaderLen]-- }),
		"sparse count over 3m/32": edit(sparse, true, func(b []byte) {
			binary.LittleEndian.PutUint32(b[hllHeaderLen:], uint32(hllSparseMaxEntries(8)+1))
		}),
		"checksum":              edit(sparse, false, func(b []byte) { b[len(b)-1] ^= 1 }),
		"corrupt seed":          edit(sparse, false, func(b []byte) { b[9] ^= 0x10 }),
		"corrupt register":      edit(dense, false, func(b []byte) { b[hllHeaderLen+5] ^= 1 }),
		"pairs out of order":    edit(sparse, true, func(b []byte) { setPair(b, 0, 200, 1); setPair(b, 1, 100, 1) }),
		"pair index repeated":   edit(sparse, true, func(b []byte) { setPair(b, 0, 7, 1); setPair(b, 1, 7, 2) }),
		"pair rank 0":           edit(sparse, true, func(b []byte) { setPair(b, 0, 0, 0) }),
		"pair rank q+2":         edit(sparse, true, func(b []byte) { setPair(b, 0, 0, 64-8+2) }),
		"pair index m":          edit(sparse, true, func(b []byte) { setPair(b, last, 256, 1) }),
		"pair index 2^26-1":     edit(sparse, true, func(b []byte) { setPair(b, last, 1<<26-1, 1) }),
		"dense register q+2":    edit(dense, true, func(b []byte) { b[hllHeaderLen] = 64 - 6 + 2 }),
		"dense register 63":     edit(dense, true, func(b []byte) { b[len(b)-5] |= 0xfc }),
		"dense as 2^32 pairs":   edit(dense, true, func(b []byte) { b[6] = 1 }),
		"all zero header":       make([]byte, 100),
		"valid header, no body": hllFixCRC(append(slices.Clone(dense[:hllHeaderLen]), 0, 0, 0, 0)),
	}
	return sparse, dense, bad
}

// Broken input is refused with an error wrapping ErrEncoding, never a
// panic, and the receiver is left unchanged; so is every truncation and
// every single-bit flip of valid encodings.
func TestHLLDecodeRefuses(t *testing.T) {
	sparse, dense, bad := hllBadEncodings(t)
	for _, b := range [][]byte{sparse, dense} {
		for i := range b {
			bad[fmt.Sprintf("prefix of %d/%d bytes", i, len(b))] = b[:i]
			for bit := range 8 {
				f := slices.Clone(b)
				f[i] ^= 1 << bit
				bad[fmt.Sprintf("bit %d of byte %d/%d", bit, i, len(b))] = f
			}
		}
	}
	recv := newHLLT(t, 10, 77)
	for id := range uint64(50) {
		recv.Insert(id)
	}
	want, _ := recv.MarshalBinary()
	for name, b := range bad {
		err := recv.UnmarshalBinary(b)
		if !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: got error %v, want one wrapping ErrEncoding", name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), "hll: ") {
			t.Errorf("%s: error %q lacks the hll: prefix", name, err)
		}
		if got, _ := recv.MarshalBinary(); !bytes.Equal(got, want) {
			t.Fatalf("%s: refused input changed the receiver", name)
		}
	}
	designtest.CheckInvariants(t, recv)
	t.Logf("%d broken inputs refused; e.g. %v", len(bad), recv.UnmarshalBinary(bad["sparse count 2^32-1"]))
}

// clone is deep: changing the copy leaves the original as it was.
func TestHLLClone(t *testing.T) {
	for _, n := range []uint64{10, 10000} {
		s := newHLLT(t, 12, 1)
		for id := range n {
			s.Insert(id)
		}
		c := s.clone()
		designtest.CheckInvariants(t, c)
		sameRegisters(t, "clone", c, s)
		before, _ := s.MarshalBinary()
		for id := range uint64(20000) {
			c.Insert(id + 1<<40)
		}
		if after, _ := s.MarshalBinary(); !bytes.Equal(before, after) {
			t.Errorf("n=%d: inserting into the clone changed the original", n)
		}
	}
}

// The plan of the cricket final (WORKED-EXAMPLES.md, step 2): 16,384
// registers, 12,288 bytes, 1.04/√m = 0.8125%, 1.04/128 × 40,000,000 =
// 325,000 people (the seed rounds 1.04/√m to 0.81% and says 324,000), an
// exact set of 320,000,000 bytes, 26,041.67 times the sketch (the seed's
// 26,042×).
func TestHLLPlan(t *testing.T) {
	env := strategies.Env{Seed: 1, Keys: 1e6, Full: strategies.Assumptions{Keys: 4e7}}
	typ, err := strategies.Lookup("hll")
	if err != nil {
		t.Fatal(err)
	}
	p, err := designtest.DecodeParams(typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	designtest.CheckPlan(t, typ.Plan(p, env), []strategies.PlanLine{
		{Metric: "registers", Value: 16384},
		{Metric: "bytes", Value: 12288},
		{Metric: "standard_error", Value: 0.8125},
		{Metric: "error_count", Value: 8125},
		{Metric: "error_count", Value: 325000, Full: true},
		{Metric: "exact_bytes", Value: 320e6, Full: true},
		{Metric: "bytes_ratio", Value: 320e6 / 12288, Full: true},
	})
	for _, l := range typ.Plan(p, env) {
		if l.Metric == "bytes_ratio" && math.Round(l.Value) != 26042 {
			t.Errorf("bytes_ratio %v rounds to %v, want the seed's 26,042", l.Value, math.Round(l.Value))
		}
	}
	// The planned bytes are what the sketch holds once dense.
	s, err := typ.Build(p, env)
	if err != nil {
		t.Fatal(err)
	}
	for id := range uint64(5000) {
		s.(*HLL).Insert(id)
	}
	designtest.CheckPlannedBytes(t, typ.Plan(p, env), s)

	for _, tt := range []struct {
		p            int64
		regs, bytes  float64
		rse, errFull float64
	}{
		{4, 16, 12, 26, 10.4e6},
		{10, 1024, 768, 3.25, 1.3e6},
		{18, 262144, 196608, 0.203125, 81250},
	} {
		pp, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "p", Value: tt.p}})
		if err != nil {
			t.Fatal(err)
		}
		designtest.CheckPlan(t, typ.Plan(pp, env), []strategies.PlanLine{
			{Metric: "registers", Value: tt.regs}, {Metric: "bytes", Value: tt.bytes},
			{Metric: "standard_error", Value: tt.rse}, {Metric: "error_count", Value: tt.errFull, Full: true},
			{Metric: "bytes_ratio", Value: 320e6 / tt.bytes, Full: true},
		})
	}
	// Without full-scale keys there is no full-scale line.
	for _, l := range typ.Plan(p, strategies.Env{}) {
		if l.Full || l.Metric == "error_count" {
			t.Errorf("plan without keys has %+v", l)
		}
	}
}

// Observe allocates nothing once the sketch is dense.
func TestHLLObserveAllocs(t *testing.T) {
	ev := hllBenchEvents(1<<15, 1)
	for _, p := range []int64{4, 10, 14, 18} {
		s := designtest.BuildDesign(t, "hll", []scenarios.Param{{Key: "p", Value: p}}, strategies.Env{Seed: 1})
		s.Observe(ev) // the sparse phase may allocate: its table grows, then the dense array
		if s.(*HLL).sparse() {
			t.Fatalf("p=%d: still sparse after %d ids", p, len(ev))
		}
		if allocs := testing.AllocsPerRun(5, func() { s.Observe(ev[:4096]) }); allocs != 0 {
			t.Errorf("p=%d: Observe of a batch: got %v allocations, want 0", p, allocs)
		}
	}
}
