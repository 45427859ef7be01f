package strategies

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"countsim/workload"

	"gonum.org/v1/gonum/stat/distuv"
)

func newCM(t testing.TB, p CountMinParams, seed uint64) *CountMin {
	t.Helper()
	s, err := NewCountMin(p, seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCountMinDimensions(t *testing.T) {
	tests := []struct {
		name         string
		p            CountMinParams
		width, depth int
		bytes        int64
		eps, delta   float64
	}{
		// The search example: w = ⌈e/ε⌉ = 27,183, d = ⌈ln 100⌉ = 5, 543,660 B.
		{"eps=0.0001/delta=0.01", CountMinParams{Epsilon: 0.0001, Delta: 0.01}, 27183, 5, 543660, 0.0001, 0.01},
		{"eps=0.001/delta=0.01", CountMinParams{Epsilon: 0.001, Delta: 0.01}, 2719, 5, 54380, 0.001, 0.01},
		{"eps=0.01/delta=0.05", CountMinParams{Epsilon: 0.01, Delta: 0.05}, 272, 3, 3264, 0.01, 0.05},
		// Exact integers must not round up: e/(e/1000) = 1000, ln(1/e^-5) = 5.
		{"eps=e/1000/delta=e^-5", CountMinParams{Epsilon: math.E / 1000, Delta: math.Exp(-5)}, 1000, 5, 20000, math.E / 1000, math.Exp(-5)},
		{"eps=0.5/delta=0.5", CountMinParams{Epsilon: 0.5, Delta: 0.5}, 6, 1, 24, 0.5, 0.5},
		// The likes example: w = 100,000, d = 4 is 1.6 MB; ε = e/w, δ = e^-4.
		{"width=100000/depth=4", CountMinParams{Width: 100000, Depth: 4}, 100000, 4, 1600000, math.E / 100000, math.Exp(-4)},
		{"width=1/depth=1", CountMinParams{Width: 1, Depth: 1}, 1, 1, 4, math.E, math.Exp(-1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newCM(t, tt.p, 1)
			if s.Width() != tt.width || s.Depth() != tt.depth {
				t.Errorf("got %d×%d (w×d), want %d×%d", s.Width(), s.Depth(), tt.width, tt.depth)
			}
			if s.Bytes() != tt.bytes {
				t.Errorf("got %d bytes, want %d", s.Bytes(), tt.bytes)
			}
			if s.Epsilon() != tt.eps || s.Delta() != tt.delta {
				t.Errorf("got ε = %v, δ = %v, want %v, %v", s.Epsilon(), s.Delta(), tt.eps, tt.delta)
			}
		})
	}
}

// Estimates are never below the truth: every key, several seeds, both
// update rules. The conservative estimate is never above the plain one of
// the same seed (same hashes).
func TestCountMinNeverUndercounts(t *testing.T) {
	streams := []streamSpec{
		{seed: 11, keys: 50000, s: 1, events: 300000, scramble: true},
		{seed: 12, keys: 2000, s: 0.7, events: 100000},
	}
	for _, sp := range streams {
		ev := sp.gen()
		truth, n := exactCounts(ev)
		for _, eps := range []float64{0.01, 0.001} {
			for seed := range uint64(3) {
				t.Run(fmt.Sprintf("keys=%d/eps=%g/seed=%d", sp.keys, eps, seed), func(t *testing.T) {
					plain := newCM(t, CountMinParams{Epsilon: eps, Delta: 0.01}, seed)
					cons := newCM(t, CountMinParams{Epsilon: eps, Delta: 0.01, Conservative: true}, seed)
					plain.Observe(ev)
					cons.Observe(ev)
					checkInvariants(t, plain)
					checkInvariants(t, cons)
					if plain.N() != n || cons.N() != n {
						t.Errorf("got N = %d and %d, want %d", plain.N(), cons.N(), n)
					}
					for k := range uint64(sp.keys) {
						if sp.scramble {
							k = workload.Mix64(k)
						}
						p, c, tr := plain.Count(k), cons.Count(k), truth[k]
						if p < tr || c < tr {
							t.Fatalf("key %d: got %d (plain), %d (conservative), want ≥ %d", k, p, c, tr)
						}
						if c > p {
							t.Fatalf("key %d: conservative %d above plain %d", k, c, p)
						}
					}
				})
			}
		}
	}
}

// Counters saturate at 2^32−1 instead of wrapping to a small count.
func TestCountMinSaturates(t *testing.T) {
	for _, cons := range []bool{false, true} {
		t.Run(fmt.Sprintf("conservative=%v", cons), func(t *testing.T) {
			s := newCM(t, CountMinParams{Width: 8, Depth: 3, Conservative: cons}, 1)
			s.Add(1, math.MaxUint32-1)
			s.Add(1, 5)
			s.Add(2, 1<<40)
			if got := s.Count(1); got != math.MaxUint32 {
				t.Errorf("Count(1): got %d, want %d", got, uint64(math.MaxUint32))
			}
			if got := s.Count(2); got != math.MaxUint32 {
				t.Errorf("Count(2): got %d, want %d", got, uint64(math.MaxUint32))
			}
			checkInvariants(t, s)
		})
	}
}

// binomialQuantile returns the least c with P(X > c) ≤ alpha for X ~
// Binomial(n, p): a count of failures above it has probability at most
// alpha when each of the n trials fails with probability at most p.
func binomialQuantile(n int, p, alpha float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	for c := range n {
		if b.Survival(float64(c)) <= alpha {
			return c
		}
	}
	return n
}

// boundTrials builds a sketch per trial, feeds it the stream and counts the
// trials whose largest overestimate over keys exceeds bound, and for each
// key the trials where its own overestimate exceeds it.
func boundTrials(ev []workload.Event, keys []uint64, bound float64, trials int, build func(trial int) *CountMin) (maxFails int, keyFails []int) {
	truth, _ := exactCounts(ev)
	keyFails = make([]int, len(keys))
	for trial := range trials {
		s := build(trial)
		s.Observe(ev)
		failed := false
		for i, k := range keys {
			if float64(s.Count(k)-truth[k]) > bound {
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

// The count-min bound: an estimate exceeds the truth by more than εN with
// probability at most δ, over the choice of hash functions (the sketch's
// seed) for a fixed stream. The theorem is per key. Two checks:
//
//   - max: the largest overestimate over every key of the universe stays
//     within εN in at least 1 − δ of the trials. The theorem does not promise
//     this (it is a union over 10^4 keys), but at d = ⌈ln 100⌉ = 5 it holds
//     with room: measured over 1,000 trials on these Zipf s = 1 streams the
//     failure rate was 0.1% (ε = 0.01), 0.3% (ε = 0.002), 0.5% (scrambled
//     keys), against δ = 1%. At d = 3 (δ = 0.05) it fails in 63% of trials,
//     at d = 4 (δ = 0.02) in 4%: there the "max" reading of the bound is
//     wrong, and only the per-key check below applies.
//   - per key: for each key, the trials where it exceeds εN are at most the
//     Binomial(T, δ) quantile at 1 − 10^-6/keys (a union bound over keys).
//     Measured per-key rates are about 10^-4 at d = 3: Markov's 1/e per row
//     is loose.
//
// Failures counted are compared with the Binomial(T, δ) quantile at
// 1 − 10^-6, so a correct sketch fails this test less than once in a
// million runs; the subtest "catches" shows that a width of ⌈1/ε⌉ (the
// constant e forgotten) and one hash shared by the rows fail it.
func TestCountMinBound(t *testing.T) {
	const alpha = 1e-6
	type trialCase struct {
		name         string
		eps, delta   float64
		stream       streamSpec
		conservative bool
		perKey       bool
		trials       int
	}
	small := streamSpec{seed: 21, keys: 10000, s: 1, events: 100000}
	tests := []trialCase{
		{name: "eps=0.01/delta=0.01/max", eps: 0.01, delta: 0.01, stream: small, trials: 300},
		{name: "eps=0.01/delta=0.01/max/scrambled", eps: 0.01, delta: 0.01, trials: 200,
			stream: streamSpec{seed: 22, keys: 10000, s: 1, events: 100000, scramble: true}},
		{name: "eps=0.01/delta=0.01/max/conservative", eps: 0.01, delta: 0.01, stream: small, conservative: true, trials: 200},
		{name: "eps=0.002/delta=0.01/max", eps: 0.002, delta: 0.01, trials: 150,
			stream: streamSpec{seed: 23, keys: 20000, s: 1, events: 200000}},
		{name: "eps=0.01/delta=0.05/per-key", eps: 0.01, delta: 0.05, stream: small, perKey: true, trials: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trials := tt.trials
			if testing.Short() {
				trials /= 3
			}
			ev := tt.stream.gen()
			keys := universe(tt.stream)
			bound := tt.eps * float64(tt.stream.events)
			maxFails, keyFails := boundTrials(ev, keys, bound, trials, func(trial int) *CountMin {
				return newCM(t, CountMinParams{Epsilon: tt.eps, Delta: tt.delta, Conservative: tt.conservative}, uint64(trial)+1000)
			})
			if !tt.perKey {
				limit := binomialQuantile(trials, tt.delta, alpha)
				t.Logf("max overestimate > εN = %g in %d of %d trials (limit %d)", bound, maxFails, trials, limit)
				if maxFails > limit {
					t.Errorf("max overestimate > εN = %g in %d of %d trials, want ≤ %d (Binomial(%d, %g) at 1 − %g)",
						bound, maxFails, trials, limit, trials, tt.delta, alpha)
				}
				return
			}
			limit := binomialQuantile(trials, tt.delta, alpha/float64(len(keys)))
			worst := 0
			for i, f := range keyFails {
				if f > keyFails[worst] {
					worst = i
				}
			}
			t.Logf("per key: at most %d of %d trials over εN = %g (limit %d); the max over keys exceeded it in %d trials",
				keyFails[worst], trials, bound, limit, maxFails)
			if keyFails[worst] > limit {
				t.Errorf("key %d over εN = %g in %d of %d trials, want ≤ %d", keys[worst], bound, keyFails[worst], trials, limit)
			}
		})
	}

	t.Run("catches", func(t *testing.T) {
		const eps, delta, trials = 0.01, 0.01, 60
		ev := small.gen()
		keys := universe(small)
		limit := binomialQuantile(trials, delta, alpha)
		w := int(math.Ceil(1 / eps))
		bugs := map[string]func(trial int) *CountMin{
			"width=1/eps": func(trial int) *CountMin {
				return newCM(t, CountMinParams{Width: w, Depth: 5}, uint64(trial))
			},
			"shared-row-hash": func(trial int) *CountMin {
				s := newCM(t, CountMinParams{Epsilon: eps, Delta: delta}, uint64(trial))
				for i := range s.depth {
					s.rows[i] = s.rows[0]
				}
				return s
			},
		}
		for name, build := range bugs {
			fails, _ := boundTrials(ev, keys, eps*float64(small.events), trials, build)
			t.Logf("%s: max overestimate > εN in %d of %d trials (limit %d)", name, fails, trials, limit)
			if fails <= limit {
				t.Errorf("%s: max overestimate > εN in %d of %d trials, at most the limit %d: the test would not catch it", name, fails, trials, limit)
			}
		}
	})
}

// universe lists every key a stream may hold, seen or not.
func universe(sp streamSpec) []uint64 {
	keys := make([]uint64, sp.keys)
	for i := range keys {
		keys[i] = uint64(i)
		if sp.scramble {
			keys[i] = workload.Mix64(keys[i])
		}
	}
	return keys
}

// Merging the sketches of two halves gives the sketch of the whole stream,
// counter for counter; sketches of another shape or seed are refused and
// the receiver is left unchanged.
func TestCountMinMerge(t *testing.T) {
	ev := streamSpec{seed: 31, keys: 5000, s: 1, events: 50000, scramble: true}.gen()
	p := CountMinParams{Epsilon: 0.01, Delta: 0.01}
	whole, a, b := newCM(t, p, 7), newCM(t, p, 7), newCM(t, p, 7)
	whole.Observe(ev)
	a.Observe(ev[:20000])
	b.Observe(ev[20000:])
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, a)
	if a.N() != whole.N() {
		t.Errorf("merged N: got %d, want %d", a.N(), whole.N())
	}
	for i := range whole.cells {
		if a.cells[i] != whole.cells[i] {
			t.Fatalf("counter %d: got %d merged, want %d", i, a.cells[i], whole.cells[i])
		}
	}

	refused := []struct {
		name  string
		other *CountMin
		want  error
	}{
		{"width", newCM(t, CountMinParams{Width: whole.Width() + 1, Depth: whole.Depth()}, 7), ErrMergeParams},
		{"depth", newCM(t, CountMinParams{Width: whole.Width(), Depth: whole.Depth() + 1}, 7), ErrMergeParams},
		{"conservative", newCM(t, CountMinParams{Epsilon: 0.01, Delta: 0.01, Conservative: true}, 7), ErrMergeParams},
		{"seed", newCM(t, p, 8), ErrMergeSeed},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			tt.other.Observe(ev[:100])
			before := append([]uint32(nil), whole.cells...)
			err := whole.Merge(tt.other)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got error %v, want %v", err, tt.want)
			}
			for i := range before {
				if whole.cells[i] != before[i] {
					t.Fatalf("refused merge changed counter %d", i)
				}
			}
		})
	}
}

// The seed's own check at a tenth of its size: on Zipf s = 1 traffic of 10^6
// events over 10^5 keys, count-min (ε = 0.001, δ = 0.01) with a heap of 10
// finds the true top 10.
func TestCountMinTopKRecall(t *testing.T) {
	sp := streamSpec{seed: 41, keys: 100000, s: 1, events: 1000000, scramble: true}
	if testing.Short() {
		sp.events /= 4
		sp.keys /= 4
	}
	ev := sp.gen()
	truth, _ := exactCounts(ev)
	s, err := NewCountMinTopK(CountMinParams{Epsilon: 0.001, Delta: 0.01, Top: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ev); i += 4096 {
		s.Observe(ev[i:min(i+4096, len(ev))])
	}
	checkInvariants(t, s)
	got := s.Top(10)
	want := trueTop(truth, 10)
	inGot := map[uint64]bool{}
	for _, it := range got {
		inGot[it.Key] = true
	}
	hits := 0
	for _, it := range want {
		if inGot[it.Key] {
			hits++
		}
	}
	if hits != len(want) {
		t.Errorf("recall of the true top 10: got %d/10\ngot  %v\nwant %v", hits, got, want)
	}
	for _, it := range got {
		if it.Err != s.Sketch().Bound() {
			t.Errorf("item %+v: got Err %d, want the bound ⌈εN⌉ = %d", it, it.Err, s.Sketch().Bound())
		}
	}
}

// The plan of the search example (WORKED-EXAMPLES.md, step 3).
func TestCountMinPlan(t *testing.T) {
	env := Env{Events: 1e7, Top: 10, Full: Assumptions{Events: 2e9, Keys: 4e8, CounterBytes: 4, KthCount: 1.4e7}}
	tests := []struct {
		name   string
		params []Param
		want   []PlanLine // Metric, Value, Full compared
	}{
		{"eps=0.0001/delta=0.01", []Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}}, []PlanLine{
			{Metric: "width", Value: 27183}, {Metric: "depth", Value: 5}, {Metric: "counters", Value: 135915},
			{Metric: "bytes", Value: 543660}, {Metric: "overestimate_bound", Value: 1000},
			{Metric: "overestimate_bound", Value: 200000, Full: true},
			{Metric: "bound_share_of_kth", Value: 100 * 200000 / 1.4e7, Full: true},
			{Metric: "failure_probability", Value: 0.01},
		}},
		{"eps=0.0001/delta=0.01/top=10", []Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)}}, []PlanLine{
			{Metric: "bytes", Value: 543660},
			{Metric: "heap_bytes", Value: 10*36 + 32*12},
			{Metric: "total_bytes", Value: 543660 + 10*36 + 32*12},
		}},
		{"width=100000/depth=4", []Param{{Key: "width", Value: int64(100000)}, {Key: "depth", Value: int64(4)}}, []PlanLine{
			{Metric: "bytes", Value: 1.6e6},
			{Metric: "overestimate_bound", Value: math.Ceil(math.E * 2e9 / 1e5), Full: true}, // 54,366
			{Metric: "overestimate_bound_2n_w", Value: 2 * 2e9 / 1e5, Full: true},
			{Metric: "failure_probability", Value: math.Exp(-4)},
		}},
		// The likes seed's form of the bound: w = 100,000 and d = 4 over a
		// billion events an hour, 2N/w = 20,000 at 1 − 2^-4 = 93.75%;
		// the e·N/w form gives 27,183 at 1 − e^-4 = 98.168%.
		{"likes", []Param{{Key: "width", Value: int64(100000)}, {Key: "depth", Value: int64(4)}}, []PlanLine{
			{Metric: "bytes", Value: 1.6e6},
			{Metric: "overestimate_bound", Value: 27183, Full: true},
			{Metric: "bound_confidence", Value: 0.98168, Full: true},
			{Metric: "overestimate_bound_2n_w", Value: 20000, Full: true},
			{Metric: "bound_2n_w_confidence", Value: 0.9375, Full: true},
		}},
	}
	typ, err := Lookup("count-min")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := typ.Decode(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			env := env
			if tt.name == "likes" {
				env.Full.Events = 1e9
			}
			checkPlan(t, typ.Plan(p, env), tt.want)
			s, err := typ.Build(p, env)
			if err != nil {
				t.Fatal(err)
			}
			checkPlannedBytes(t, typ.Plan(p, env), s)
		})
	}
}

// checkPlan finds each wanted line (by Metric and Full) and compares values.
func checkPlan(t *testing.T, got, want []PlanLine) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, g := range got {
			if g.Metric == w.Metric && g.Full == w.Full {
				found = true
				if math.Abs(g.Value-w.Value) > 1e-9*math.Abs(w.Value) {
					t.Errorf("%s (full %v): got %v, want %v", w.Metric, w.Full, g.Value, w.Value)
				}
				if g.Unit == "" || g.Note == "" {
					t.Errorf("%s (full %v): unit %q, note %q: want both", w.Metric, w.Full, g.Unit, g.Note)
				}
			}
		}
		if !found {
			t.Errorf("no plan line %s (full %v) in %+v", w.Metric, w.Full, got)
		}
	}
}

// checkPlannedBytes: the sim-scale "total_bytes" plan line (or "bytes" for a
// design of one part) is what Bytes measures on the built design — sim uses
// it to refuse runs that would not fit — and each Part is planned too.
func checkPlannedBytes(t *testing.T, plan []PlanLine, s Strategy) {
	t.Helper()
	planned := func(metric Metric) (float64, bool) {
		for _, l := range plan {
			if l.Metric == metric && !l.Full {
				return l.Value, true
			}
		}
		return 0, false
	}
	total, ok := planned("total_bytes")
	if !ok {
		total, ok = planned("bytes")
	}
	if !ok {
		t.Fatalf("no sim-scale bytes line in the plan")
	}
	if int64(total) != s.Bytes() {
		t.Errorf("planned bytes %v, measured %d", total, s.Bytes())
	}
	if p, ok := s.(Parted); ok {
		var sum int64
		for _, part := range p.Parts() {
			sum += part.Bytes
			if v, ok := planned(part.Metric); !ok || int64(v) != part.Bytes {
				t.Errorf("part %s: planned %v (found %v), measured %d", part.Metric, v, ok, part.Bytes)
			}
		}
		if sum != s.Bytes() {
			t.Errorf("parts sum to %d, Bytes() is %d", sum, s.Bytes())
		}
	}
}
