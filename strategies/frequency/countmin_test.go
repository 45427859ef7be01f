package frequency

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
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
			if s.rows.Width != tt.width || s.rows.Depth != tt.depth {
				t.Errorf("got %d×%d (w×d), want %d×%d", s.rows.Width, s.rows.Depth, tt.width, tt.depth)
			}
			if s.Bytes() != tt.bytes {
				t.Errorf("got %d bytes, want %d", s.Bytes(), tt.bytes)
			}
			if s.eps != tt.eps || s.delta != tt.delta {
				t.Errorf("got ε = %v, δ = %v, want %v, %v", s.eps, s.delta, tt.eps, tt.delta)
			}
		})
	}
}

// Estimates are never below the truth: every key, several seeds, both
// update rules. The conservative estimate is never above the plain one of
// the same seed (same hashes).
func TestCountMinNeverUndercounts(t *testing.T) {
	streams := []designtest.StreamSpec{
		{Seed: 11, Keys: 50000, S: 1, Events: 300000, Scramble: true},
		{Seed: 12, Keys: 2000, S: 0.7, Events: 100000},
	}
	for _, sp := range streams {
		ev := sp.Gen()
		truth, n := designtest.ExactCounts(ev)
		for _, eps := range []float64{0.01, 0.001} {
			for seed := range uint64(3) {
				t.Run(fmt.Sprintf("keys=%d/eps=%g/seed=%d", sp.Keys, eps, seed), func(t *testing.T) {
					plain := newCM(t, CountMinParams{Epsilon: eps, Delta: 0.01}, seed)
					cons := newCM(t, CountMinParams{Epsilon: eps, Delta: 0.01, Conservative: true}, seed)
					plain.Observe(ev)
					cons.Observe(ev)
					designtest.CheckInvariants(t, plain)
					designtest.CheckInvariants(t, cons)
					if plain.rows.N != n || cons.rows.N != n {
						t.Errorf("got N = %d and %d, want %d", plain.rows.N, cons.rows.N, n)
					}
					for k := range uint64(sp.Keys) {
						if sp.Scramble {
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
			s.add(1, math.MaxUint32-1)
			s.add(1, 5)
			s.add(2, 1<<40)
			if got := s.Count(1); got != math.MaxUint32 {
				t.Errorf("Count(1): got %d, want %d", got, uint64(math.MaxUint32))
			}
			if got := s.Count(2); got != math.MaxUint32 {
				t.Errorf("Count(2): got %d, want %d", got, uint64(math.MaxUint32))
			}
			designtest.CheckInvariants(t, s)
		})
	}
}

// The count-min bound: an estimate exceeds the truth by more than εN with
// probability at most δ, over the choice of hash functions (the sketch's
// seed) for a fixed stream. The theorem is per key; three readings of it
// are checked, each with a tolerance at α = 10^-6, so that a correct sketch
// fails a subtest less than once in a million runs:
//
//   - fraction: of all (trial, key) pairs, at most a share δ passes εN;
//   - per key: no key passes εN in more trials than Binomial(T, δ) allows;
//   - max: the largest overestimate over every key of the universe stays
//     within εN in at least 1 − δ of the trials. The theorem does not
//     promise this (it is a union over 10^4 keys), but at d = ⌈ln 100⌉ = 5
//     it holds with room when the rows are independent enough: measured
//     over 3,000 trials on these Zipf s = 1 streams, it failed in 0.1%
//     (ε = 0.01), 0.27% (scrambled keys) and 0.2% (ε = 0.002) of trials with
//     the sketch's triple hashing, about as with d independent XXH64 rows
//     (0.1%, 0.2%, 0.27%: the earlier sketch), but in 17%, 17% and 6% with
//     plain double hashing, whose rows are only pairwise independent (see
//     CountMin). At d = 3 (δ = 0.05) the max fails in 63% of trials with
//     any rows, at d = 4 (δ = 0.02) in 4%: there only the per-key readings
//     apply. Measured per-key rates are about 10^-4 at d = 3: Markov's 1/e
//     per row is loose.
//
// The subtest "catches" shows that sketches built wrong fail the same
// checks.
func TestCountMinBound(t *testing.T) {
	const alpha = 1e-6
	type trialCase struct {
		name         string
		eps, delta   float64
		stream       designtest.StreamSpec
		conservative bool
		check        designtest.BoundCheck
		trials       int
	}
	small := designtest.StreamSpec{Seed: 21, Keys: 10000, S: 1, Events: 100000}
	uniform := designtest.StreamSpec{Seed: 24, Keys: 10000, S: 0, Events: 100000, Scramble: true}
	tests := []trialCase{
		{name: "eps=0.01/delta=0.01/max", eps: 0.01, delta: 0.01, stream: small, trials: 300},
		{name: "eps=0.01/delta=0.01/max/scrambled", eps: 0.01, delta: 0.01, trials: 200,
			stream: designtest.StreamSpec{Seed: 22, Keys: 10000, S: 1, Events: 100000, Scramble: true}},
		{name: "eps=0.01/delta=0.01/max/conservative", eps: 0.01, delta: 0.01, stream: small, conservative: true, trials: 200},
		{name: "eps=0.002/delta=0.01/max", eps: 0.002, delta: 0.01, trials: 150,
			stream: designtest.StreamSpec{Seed: 23, Keys: 20000, S: 1, Events: 200000}},
		{name: "eps=0.01/delta=0.01/fraction", eps: 0.01, delta: 0.01, stream: small, check: designtest.CheckFraction, trials: 200},
		{name: "eps=0.01/delta=0.01/fraction/uniform", eps: 0.01, delta: 0.01, stream: uniform, check: designtest.CheckFraction, trials: 100},
		{name: "eps=0.01/delta=0.05/fraction", eps: 0.01, delta: 0.05, stream: small, check: designtest.CheckFraction, trials: 200},
		{name: "eps=0.01/delta=0.05/per-key", eps: 0.01, delta: 0.05, stream: small, check: designtest.CheckPerKey, trials: 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			trials := tt.trials
			if testing.Short() {
				trials /= 3
			}
			ev := tt.stream.Gen()
			keys := designtest.Universe(tt.stream)
			maxFails, keyFails := designtest.BoundTrials(ev, keys, tt.eps*float64(tt.stream.Events), trials, func(trial int) designtest.PointSketch {
				return newCM(t, CountMinParams{Epsilon: tt.eps, Delta: tt.delta, Conservative: tt.conservative}, uint64(trial)+1000)
			})
			failure, log := designtest.BoundFailure(tt.check, tt.delta, alpha, trials, len(keys), maxFails, keyFails)
			t.Log(log)
			if failure != "" {
				t.Error(failure)
			}
		})
	}

	// The same checks reject sketches built wrong, so their passing above
	// means something:
	//
	//   - width=1/eps: w = ⌈1/ε⌉, the constant e forgotten;
	//   - h2=0: then h3 = 0 too and every row takes row 0's column, so
	//     every row holds row 0's counters and the estimate, their minimum,
	//     is row 0's counter: the sketch of depth 1, built as such (the
	//     earlier sketch's bug of one row hash shared by the rows is the
	//     same sketch);
	//   - double-hashing: rows h1 + i·h2 (the benchmark's floor, floorCM),
	//     only pairwise independent: it keeps the per-key readings but not
	//     the max (17% of trials against δ = 1%), with 300 trials for a
	//     miss below 10^-10.
	//
	// Each check must reject at least the bugs listed for it.
	t.Run("catches", func(t *testing.T) {
		const eps, delta = 0.01, 0.01
		ev := small.Gen()
		keys := designtest.Universe(small)
		p := CountMinParams{Epsilon: eps, Delta: delta}
		w, d, _, _ := p.Shape()
		bugs := []struct {
			name   string
			trials int
			build  func(trial int) designtest.PointSketch
			caught []designtest.BoundCheck
		}{
			{"width=1/eps", 60, func(trial int) designtest.PointSketch {
				return newCM(t, CountMinParams{Width: int(math.Ceil(1 / eps)), Depth: d}, uint64(trial))
			}, []designtest.BoundCheck{designtest.CheckMax}},
			{"h2=0", 500, func(trial int) designtest.PointSketch {
				return newCM(t, CountMinParams{Width: w, Depth: 1}, uint64(trial))
			}, []designtest.BoundCheck{designtest.CheckMax, designtest.CheckFraction, designtest.CheckPerKey}},
			{"double-hashing", 300, func(trial int) designtest.PointSketch {
				return newFloorCM(w, d, uint64(trial))
			}, []designtest.BoundCheck{designtest.CheckMax}},
		}
		names := map[designtest.BoundCheck]string{designtest.CheckMax: "max", designtest.CheckFraction: "fraction", designtest.CheckPerKey: "per-key"}
		for _, bug := range bugs {
			maxFails, keyFails := designtest.BoundTrials(ev, keys, eps*float64(small.Events), bug.trials, bug.build)
			for _, check := range bug.caught {
				failure, log := designtest.BoundFailure(check, delta, alpha, bug.trials, len(keys), maxFails, keyFails)
				t.Logf("%s, %s: %s", bug.name, names[check], log)
				if failure == "" {
					t.Errorf("%s passed the %s check: it would not catch it", bug.name, names[check])
				}
			}
		}
	})
}

// Every path of the sketch puts a key in the columns of the derivation,
// reduce(h1 + i·h2 + C(i,2)·h3, w) in row i (sketchIndex): Add, Observe
// (plain and conservative, below and past the saturation point), and the
// heap's Observe; and Count reads those counters.
func TestCountMinColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	p := CountMinParams{Width: 1000, Depth: 7}
	s := newCM(t, p, 9)
	idx := sketchIndex(s)
	for range 200 {
		key := r.Uint64()
		paths := map[string]func(*CountMin){
			"add":     func(c *CountMin) { c.add(key, 3) },
			"observe": func(c *CountMin) { c.Observe([]workload.Event{{Key: key, Delta: 3, Op: workload.Write}}) },
			"observe/saturating": func(c *CountMin) {
				c.rows.N = math.MaxUint32
				c.Observe([]workload.Event{{Key: key, Delta: 3, Op: workload.Write}})
			},
			"observe/conservative": func(c *CountMin) {
				c.conservative = true
				c.Observe([]workload.Event{{Key: key, Delta: 3, Op: workload.Write}})
			},
			"top": func(c *CountMin) {
				top := &CountMinTopK{sketch: c, heap: ds.NewTopHeap(1, c.rows.S1)}
				top.Observe([]workload.Event{{Key: key, Delta: 3, Op: workload.Write}})
			},
		}
		for name, add := range paths {
			c := newCM(t, p, 9)
			add(c)
			want := map[uint64]bool{}
			for row := range p.Depth {
				want[uint64(row*p.Width)+idx(row, key)] = true
			}
			for j, v := range c.rows.Cells {
				if (v == 3) != want[uint64(j)] || (v != 0 && v != 3) {
					t.Fatalf("%s of key %#x: counter %d (row %d, column %d) holds %d, want %d",
						name, key, j, j/p.Width, j%p.Width, v, map[bool]int{true: 3}[want[uint64(j)]])
				}
			}
			if got := c.Count(key); got != 3 {
				t.Fatalf("%s of key %#x: Count %d, want 3", name, key, got)
			}
		}
	}
}

// pairsSharing returns the number of pairs of keys that share a column in
// every row of rows: keys grouped by their columns there, C(size, 2) summed.
func pairsSharing(idx rowIndex, w int, keys []uint64, rows []int) float64 {
	codes := make([]uint64, len(keys))
	for i, k := range keys {
		var c uint64
		for _, row := range rows {
			c = c*uint64(w) + idx(row, k)
		}
		codes[i] = c
	}
	slices.Sort(codes)
	var pairs float64
	for i := 0; i < len(codes); {
		j := i
		for j < len(codes) && codes[j] == codes[i] {
			j++
		}
		pairs += float64(j-i) * float64(j-i-1) / 2
		i = j
	}
	return pairs
}

// The rows are 3-wise independent and no more, and this is what the choice
// of triple over double hashing buys (see CountMin). Over P pairs of random
// keys at w = 61, d = 5:
//
//   - pairs sharing a column in 3 given rows: P/w³, for each of the 10
//     triples of rows (a z-test at |z| ≤ 6.1; the pair indicators are
//     pairwise independent, so the count's variance is P·p·(1−p));
//   - pairs sharing a column in all 5 rows: c·P/w³ with c ≈ 0.0666 (the
//     volume of the 5 rows' collision region, by Monte Carlo integration),
//     not P/w^5 as with independent rows, and far fewer than the c'·P/w²,
//     c' ≈ 0.1145, of double hashing (the floor), which the same count
//     finds too.
func TestCountMinRowCollisions(t *testing.T) {
	const w, d = 61, 5
	r := rand.New(rand.NewPCG(7, 8))
	keys := make([]uint64, 512*w)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	pairs := float64(len(keys)) * float64(len(keys)-1) / 2
	s := newCM(t, CountMinParams{Width: w, Depth: d}, 42)
	idx := sketchIndex(s)

	p3 := 1 / float64(w*w*w)
	mean, sd := pairs*p3, math.Sqrt(pairs*p3*(1-p3))
	for i := range d {
		for j := i + 1; j < d; j++ {
			for k := j + 1; k < d; k++ {
				got := pairsSharing(idx, w, keys, []int{i, j, k})
				if z := (got - mean) / sd; math.Abs(z) > pairMaxZ {
					t.Errorf("rows %d, %d, %d: %v pairs share a column in all three, want about %.0f (z = %.1f)", i, j, k, got, mean, z)
				}
			}
		}
	}

	all := []int{0, 1, 2, 3, 4}
	got := pairsSharing(idx, w, keys, all)
	want := 0.0666 * pairs / float64(w*w*w)
	independent := pairs / math.Pow(w, d)
	f := newFloorCM(w, d, 42)
	double := pairsSharing(func(row int, key uint64) uint64 {
		h1, h2 := workload.Mix64(key^f.s1), workload.Mix64(key^f.s2)
		return ds.Reduce(h1+uint64(row)*h2, w)
	}, w, keys, all)
	t.Logf("pairs sharing a column in all %d rows: %v (expected %.1f; %.2f with independent rows, %.0f with double hashing, which had %v)",
		d, got, want, independent, 0.1145*pairs/(w*w), double)
	// The count is about Poisson of mean 143 (over 40 seeds of keys and
	// sketch: mean 0.99 of it, standard deviation 7%, Poisson's 8.4%): ±40%
	// is about 5 standard deviations.
	if got < 0.6*want || got > 1.4*want {
		t.Errorf("pairs sharing a column in all %d rows: got %v, want %.0f ± 40%%", d, got, want)
	}
	if double < 10*got {
		t.Errorf("double hashing: %v pairs share a column in all %d rows, want far more than triple hashing's %v", double, d, got)
	}
}

// Merging the sketches of two halves gives the sketch of the whole stream,
// counter for counter; sketches of another shape or seed are refused and
// the receiver is left unchanged.
func TestCountMinMerge(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 31, Keys: 5000, S: 1, Events: 50000, Scramble: true}.Gen()
	p := CountMinParams{Epsilon: 0.01, Delta: 0.01}
	whole, a, b := newCM(t, p, 7), newCM(t, p, 7), newCM(t, p, 7)
	whole.Observe(ev)
	a.Observe(ev[:20000])
	b.Observe(ev[20000:])
	if err := a.merge(b); err != nil {
		t.Fatal(err)
	}
	designtest.CheckInvariants(t, a)
	if a.rows.N != whole.rows.N {
		t.Errorf("merged N: got %d, want %d", a.rows.N, whole.rows.N)
	}
	for i := range whole.rows.Cells {
		if a.rows.Cells[i] != whole.rows.Cells[i] {
			t.Fatalf("counter %d: got %d merged, want %d", i, a.rows.Cells[i], whole.rows.Cells[i])
		}
	}

	refused := []struct {
		name  string
		other *CountMin
		want  error
	}{
		{"width", newCM(t, CountMinParams{Width: whole.rows.Width + 1, Depth: whole.rows.Depth}, 7), strategies.ErrMergeParams},
		{"depth", newCM(t, CountMinParams{Width: whole.rows.Width, Depth: whole.rows.Depth + 1}, 7), strategies.ErrMergeParams},
		{"conservative", newCM(t, CountMinParams{Epsilon: 0.01, Delta: 0.01, Conservative: true}, 7), strategies.ErrMergeParams},
		{"seed", newCM(t, p, 8), strategies.ErrMergeSeed},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			tt.other.Observe(ev[:100])
			before := append([]uint32(nil), whole.rows.Cells...)
			err := whole.merge(tt.other)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got error %v, want %v", err, tt.want)
			}
			for i := range before {
				if whole.rows.Cells[i] != before[i] {
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
	sp := designtest.StreamSpec{Seed: 41, Keys: 100000, S: 1, Events: 1000000, Scramble: true}
	if testing.Short() {
		sp.Events /= 4
		sp.Keys /= 4
	}
	ev := sp.Gen()
	truth, _ := designtest.ExactCounts(ev)
	s, err := NewCountMinTopK(CountMinParams{Epsilon: 0.001, Delta: 0.01, Top: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ev); i += 4096 {
		s.Observe(ev[i:min(i+4096, len(ev))])
	}
	designtest.CheckInvariants(t, s)
	got := s.Top(10)
	want := designtest.TrueTop(truth, 10)
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
		if it.Err != s.sketch.Bound() {
			t.Errorf("item %+v: got Err %d, want the bound ⌈εN⌉ = %d", it, it.Err, s.sketch.Bound())
		}
	}
}

// The plan of the search example (WORKED-EXAMPLES.md, step 3).
func TestCountMinPlan(t *testing.T) {
	env := strategies.Env{Events: 1e7, Top: 10, Full: strategies.Assumptions{Events: 2e9, Keys: 4e8, CounterBytes: 4, KthCount: 1.4e7}}
	tests := []struct {
		name   string
		params []scenarios.Param
		want   []strategies.PlanLine // Metric, Value, Full compared
	}{
		{"eps=0.0001/delta=0.01", []scenarios.Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}}, []strategies.PlanLine{
			{Metric: "width", Value: 27183}, {Metric: "depth", Value: 5}, {Metric: "counters", Value: 135915},
			{Metric: "bytes", Value: 543660}, {Metric: "overestimate_bound", Value: 1000},
			{Metric: "overestimate_bound", Value: 200000, Full: true},
			{Metric: "bound_share_of_kth", Value: 100 * 200000 / 1.4e7, Full: true},
			{Metric: "failure_probability", Value: 0.01},
		}},
		{"eps=0.0001/delta=0.01/top=10", []scenarios.Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)}}, []strategies.PlanLine{
			{Metric: "bytes", Value: 543660},
			{Metric: "heap_bytes", Value: 10*36 + 32*12},
			{Metric: "total_bytes", Value: 543660 + 10*36 + 32*12},
		}},
		{"width=100000/depth=4", []scenarios.Param{{Key: "width", Value: int64(100000)}, {Key: "depth", Value: int64(4)}}, []strategies.PlanLine{
			{Metric: "bytes", Value: 1.6e6},
			{Metric: "overestimate_bound", Value: math.Ceil(math.E * 2e9 / 1e5), Full: true}, // 54,366
			{Metric: "overestimate_bound_2n_w", Value: 2 * 2e9 / 1e5, Full: true},
			{Metric: "failure_probability", Value: math.Exp(-4)},
		}},
		// The likes seed's form of the bound: w = 100,000 and d = 4 over a
		// billion events an hour, 2N/w = 20,000 at 1 − 2^-4 = 93.75%;
		// the e·N/w form gives 27,183 at 1 − e^-4 = 98.168%.
		{"likes", []scenarios.Param{{Key: "width", Value: int64(100000)}, {Key: "depth", Value: int64(4)}}, []strategies.PlanLine{
			{Metric: "bytes", Value: 1.6e6},
			{Metric: "overestimate_bound", Value: 27183, Full: true},
			{Metric: "bound_confidence", Value: 0.98168, Full: true},
			{Metric: "overestimate_bound_2n_w", Value: 20000, Full: true},
			{Metric: "bound_2n_w_confidence", Value: 0.9375, Full: true},
		}},
	}
	typ, err := strategies.Lookup("count-min")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := designtest.DecodeParams(typ, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			env := env
			if tt.name == "likes" {
				env.Full.Events = 1e9
			}
			designtest.CheckPlan(t, typ.Plan(p, env), tt.want)
			s, err := typ.Build(p, env)
			if err != nil {
				t.Fatal(err)
			}
			designtest.CheckPlannedBytes(t, typ.Plan(p, env), s)
		})
	}
}

// The heap of a count-min top-K keeps its order while keys it holds keep
// rising: a held key raised past others moves, a key let in evicts the
// least, and the answer is the true top at every step (the sketch is wide
// enough for these few keys to share no counter). A raise that did not
// restore the heap's order would evict the wrong key.
func TestCountMinTopKHeldKeysRise(t *testing.T) {
	s, err := NewCountMinTopK(CountMinParams{Width: 1 << 20, Depth: 4, Top: 5}, 3)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[uint64]uint64{}
	add := func(key, n uint64) {
		for range n {
			s.Add(key, 1)
		}
		truth[key] += n
		if err := s.check(); err != nil {
			t.Fatalf("after %d × key %d: %v", n, key, err)
		}
	}
	want := func(keys ...uint64) {
		t.Helper()
		got := s.Top(5)
		if len(got) != len(keys) {
			t.Fatalf("Top(5) = %v, want keys %v", got, keys)
		}
		for i, k := range keys {
			if got[i].Key != k || got[i].Count != truth[k] {
				t.Fatalf("Top(5) = %v, want keys %v with their true counts", got, keys)
			}
		}
	}
	for k := uint64(1); k <= 10; k++ {
		add(k, k)
	}
	want(10, 9, 8, 7, 6)
	add(6, 100) // held: rises from the bottom to the top
	want(6, 10, 9, 8, 7)
	add(1, 50) // not held: evicts the least, 7
	want(6, 1, 10, 9, 8)
	add(8, 200) // held, in the middle: rises past all
	want(8, 6, 1, 10, 9)
	add(9, 1) // held: 10, tied with key 10
	add(7, 3) // evicted before, back at 10: of the three tied at 10 the larger keys go first, so 10 goes
	want(8, 6, 1, 7, 9)
}

// Bound is ⌈εN⌉: at N where εN is not a whole number the ceiling, not
// the floor; where it is one (up to rounding), that number.
func TestCountMinBoundFormula(t *testing.T) {
	for _, c := range []struct {
		p    CountMinParams
		n    uint64
		want uint64
	}{
		{CountMinParams{Width: 1000, Depth: 2}, 1000, 3},               // e/1000 · 1000 = 2.718…
		{CountMinParams{Width: 1000, Depth: 2}, 368, 2},                // 1.0003…: the ceiling, 2
		{CountMinParams{Width: 1000, Depth: 2}, 367, 1},                // 0.9976…
		{CountMinParams{Epsilon: 0.0001, Delta: 0.01}, 15_001, 2},      // 1.5001
		{CountMinParams{Epsilon: 0.0001, Delta: 0.01}, 10_000, 1},      // 1, though 0.0001 · 10,000 is 1.0000000000000002 in floats
		{CountMinParams{Epsilon: 0.0001, Delta: 0.01}, 1e7, 1000},      // the search check's bound
		{CountMinParams{Epsilon: 0.0001, Delta: 0.01}, 9_999, 1},       // 0.9999
		{CountMinParams{Epsilon: 0.001, Delta: 0.01}, 3_000_000, 3000}, // the practice question
	} {
		s, err := NewCountMin(c.p, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.add(42, c.n)
		if got := s.Bound(); got != c.want {
			t.Errorf("%+v after N = %d: Bound %d, want %d", c.p, c.n, got, c.want)
		}
	}
}
