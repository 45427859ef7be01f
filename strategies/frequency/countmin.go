package frequency

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Count-Min sketch: G. Cormode and S. Muthukrishnan, "An improved data stream
// summary: the count-min sketch and its applications", J. Algorithms 55(1),
// 2005.
//
// d rows of w counters; row i maps a key to one of its counters, h_i(x).
// Adding c to key x adds c to the counter h_i(x) of every row; the estimate
// of x is the minimum of its d counters. (Here the d maps come from one hash
// of the key, by triple hashing: see CountMin.) With w = ⌈e/ε⌉ and d = ⌈ln 1/δ⌉ the estimate â of a key whose
// true count is a satisfies
//
//	a ≤ â   always (counts only grow), and
//	â ≤ a + εN   with probability at least 1 − δ,
//
// where N is the sum of all counts added (Theorem 1 of the paper: each row
// overcounts by more than εN with probability at most 1/e, by Markov's
// inequality, and the d rows are independent; CountMin says what its rows,
// 3-wise independent, keep of it). The bound is per key: over a stream of
// many keys some key may exceed it.
//
// Conservative update (C. Estan and G. Varghese, "New directions in traffic
// measurement and accounting", SIGCOMM 2002) raises each of the key's
// counters only as far as the new estimate min + c needs: estimates stay
// upper bounds and are never larger than with the plain update, but rows no
// longer sum to N and two sketches no longer merge into the sketch of the
// joined stream (their sum is still an upper bound).

// CountMinParams are the parameters of a count-min sketch: either Epsilon and
// Delta, or Width and Depth.
type CountMinParams struct {
	// Epsilon is the error bound as a share of N, in (0,1); width = ⌈e/ε⌉.
	Epsilon float64 `key:"epsilon" range:"(0,1)" doc:"error bound ε as a share of all counts N, with delta; width = ⌈e/ε⌉ ≤ 268435456"`
	// Delta is the probability that one key's estimate exceeds the bound,
	// in (0,1); depth = ⌈ln 1/δ⌉ must be ≤ 32.
	Delta float64 `key:"delta" range:"(0,1)" doc:"failure probability δ per key, with epsilon; depth = ⌈ln 1/δ⌉ ≤ 32 (δ ≥ 1.3e-14)"`
	// Width is the counters per row, 1..268435456, given with Depth instead
	// of Epsilon and Delta; then ε = e/w.
	Width int `key:"width" range:"1..268435456" doc:"counters per row w, with depth instead of epsilon and delta (ε = e/w)"`
	// Depth is the number of rows, 1..32, given with Width; then δ = e^-d.
	Depth int `key:"depth" range:"1..32" doc:"rows d, with width (δ = e^-d)"`
	// Conservative selects the conservative update of Estan & Varghese.
	Conservative bool `key:"conservative" doc:"conservative update (Estan & Varghese): raise a key's counters only up to its new estimate"`
	// Top is the number of keys kept in a min-heap for top-K answers,
	// 0..100000; 0 keeps none.
	Top int `key:"top" range:"0..100000" doc:"keys kept in a min-heap by estimate for top-K answers (0: no heap)"`
}

const (
	countMinMaxWidth = 1 << 28 // 1 GiB of counters a row
	countMinMaxDepth = ds.MaxDepth
	CountMinMaxTop   = 100_000
)

// Validate checks that exactly one of the pairs (epsilon, delta) and (width,
// depth) is given, both of it (each in range by its tags, so a pair given
// is a pair not zero), and that ε and δ ask for a width and a depth within
// the limits.
func (p CountMinParams) Validate() error {
	eps, delta := p.Epsilon != 0, p.Delta != 0
	width, depth := p.Width != 0, p.Depth != 0
	probs, dims := eps || delta, width || depth
	switch {
	case probs && dims:
		key := "width"
		if !width {
			key = "depth"
		}
		return strategies.ParamErrorf(key, "give either epsilon and delta or width and depth, not both")
	case probs:
		if !eps {
			return strategies.ParamErrorf("delta", "given without epsilon: give both")
		}
		if !delta {
			return strategies.ParamErrorf("epsilon", "given without delta: give both")
		}
		if w := strategies.CeilTidy(math.E / p.Epsilon); w > countMinMaxWidth {
			return strategies.ParamErrorf("epsilon", "%v needs width ⌈e/ε⌉ = %.0f, more than %d", p.Epsilon, w, countMinMaxWidth)
		}
		if d := strategies.CeilTidy(-math.Log(p.Delta)); d > countMinMaxDepth {
			return strategies.ParamErrorf("delta", "%v needs depth ⌈ln 1/δ⌉ = %.0f, more than %d", p.Delta, d, countMinMaxDepth)
		}
	case dims:
		if !width {
			return strategies.ParamErrorf("depth", "given without width: give both")
		}
		if !depth {
			return strategies.ParamErrorf("width", "given without depth: give both")
		}
	default:
		return strategies.ParamErrorf("", "give epsilon and delta, or width and depth")
	}
	return nil
}

// Shape returns the sketch's dimensions and the (ε, δ) it guarantees; p must
// be valid. For the width/depth form ε = e/w and δ = e^-d.
func (p CountMinParams) Shape() (width, depth int, eps, delta float64) {
	if p.Width != 0 {
		return p.Width, p.Depth, math.E / float64(p.Width), math.Exp(-float64(p.Depth))
	}
	return int(strategies.CeilTidy(math.E / p.Epsilon)), int(strategies.CeilTidy(-math.Log(p.Delta))), p.Epsilon, p.Delta
}

// CountMin is a count-min sketch of d rows of w uint32 counters in one flat
// array. Counters saturate at 2^32−1 rather than wrap, so an estimate is
// never below the truth. An update and Count cost O(d): one hash of the key
// (three Mix64) and d counters. A CountMin is not safe for concurrent use.
//
// # One hash an event; the rows by double hashing, with a third term
//
// The rows are not d hash functions. Each key is hashed once, to three
// 64-bit values
//
//	h_k = Mix64(key ⊕ s_k),  k = 1, 2, 3
//
// (workload.Mix64, SplitMix64's finaliser; s1, s2, s3 are the first three
// outputs of workload.SplitMix(seed)), and row i, 0 ≤ i < d, takes the
// counter
//
//	g_i = h1 + i·h2 + C(i,2)·h3 mod 2^64,  column_i = ⌊g_i·w / 2^64⌋
//
// (reduce, Lemire's range reduction: the high word of g_i·w), computed by
// forward differences, two adds a row. Without the h3 term this is the
// double hashing of A. Kirsch and M. Mitzenmacher, "Less hashing, same
// performance: building a better Bloom filter", ESA 2006 and Random
// Structures & Algorithms 33(2), 2008; with it, the triple hashing of P. C.
// Dillinger and P. Manolios, "Bloom filters in probabilistic verification",
// FMCAD 2004 (the paper of enhanced double hashing). Two choices, both about
// what keeps the rows independent enough:
//
// The arithmetic is modulo 2^64 on the full hashes, and only then is each
// g_i reduced to [0, w), which makes it right for every width. Kirsch and
// Mitzenmacher take h1 + i·h2 modulo the table size, which they assume
// prime; modulo a composite w (and w = ⌈e/ε⌉ is whatever it is: 27,183 =
// 3·13·17·41) two keys whose h2 differ by a multiple of w/g, g = gcd(j−i, w),
// collide in rows i and j as soon as they collide in row i, g times too
// often, and h2 ≡ 0 mod a factor of w makes a key's columns cycle (the
// enhanced variant's cubic term is a fix for that; a fixed offset a row
// changes nothing modulo 2^64). Modulo 2^64 each g_i is uniform (h1 is), so
// each column is uniform on [0, w) up to a bias below w/2^64; and for rows i
// < j < k the map (h1, h2, h3) ↦ (g_i, g_j, g_k) has the determinant
// (j−i)(k−i)(k−j)/2 ≠ 0 (a Vandermonde matrix in the basis 1, i, C(i,2)), so
// its image is a sublattice of (Z/2^64)³ of index 2^v, v ≤ 9 for d ≤ 32,
// which moves the probability of a triple of columns by a relative at most
// 3·2^v·w/2^64 < 2^-24 (pairs: 2^-32). Rows are 3-wise independent: two
// keys share a counter in rows i, j and k with probability 1/w³, whatever w.
// Forcing h2 odd or non-zero, needed when the modulus is the table size,
// buys nothing here: each row is its own array.
//
// The third term, one Mix64 and one add a row more than double hashing, is
// there because the rows of double hashing are only pairwise independent,
// and that costs. Two keys that share a counter in two rows have close (h1,
// h2), and then likely share it in the others too: they collide in all d
// rows with probability about c/w² (c ≈ 0.11 at d = 5; 1/w² exactly with a
// prime modulus), not w^-d. A key counted more than εN then lifts every
// other key it meets in all rows over the bound: over a universe of 10^4
// keys the largest overestimate passed εN in 17% of 3,000 seeds at 5 × 272
// and 6% at 5 × 1,360, against δ = 1%, where d independent rows (the XXH64
// rows this sketch had before) pass it in 0.1–0.3%; at the search scenario's
// 5 × 27,183 over 10^6 keys, about 0.1 keys a run would pass it (700 keys
// above εN, each sharing all 5 counters with a given key with probability
// 0.11/w²). With triple hashing that probability is about 0.07/w³
// (TestCountMinRowCollisions), and the largest overestimate passes εN in
// 0.1–0.3% of seeds, as with independent rows (TestCountMinBound).
//
// What remains of Theorem 1. Its proof multiplies the d rows' failure
// probabilities, so it needs the rows independent, and they are only 3-wise
// independent (for d ≤ 3 the proof holds as it stands). A coupling gives
// the bound with a little slack. Fix the key x, and model the hashes as
// random (as the theorem's analysis does with its hash family). For each
// other key y, the vector of the rows where y shares x's counter has, row
// by row and for any 3 rows, the same probabilities as with d independent
// rows; by the Bonferroni inequalities the two laws differ in total
// variation by at most 8·Σ over 4 rows T of (P(all of T) + w^-4) ≤
// 8·C(d,4)·(1+1/w)/w³ (the lattice biases above add terms smaller by a
// factor 2^-20). Coupling y by y, the sketch's excess in every row
// exceeds that of a sketch of independent rows by at most a weight D of
// expectation ≤ N·8·C(d,4)·(1+1/w)/w³, so by Markov and εw ≥ e
//
//	P(â − a > (1+η)·εN) ≤ e^-d + 8·C(d,4)·(1+1/w) / (e·η·w²)   for any η > 0:
//
// at 5 × 27,183 and η = 0.01, e^-5 + 2·10^-6. At exactly εN it is not
// proved, but the per-row bound of Markov (1/e) is loose for real streams,
// and TestCountMinBound measures it against exact counts over many seeds
// (and shows a sketch with h2 = 0, one with w = ⌈1/ε⌉, and one of plain
// double hashing failing its checks).
//
// Sketches merge only when built with the same seed (the same s1, s2, s3).
type CountMin struct {
	rows         ds.CountRows
	eps, delta   float64
	conservative bool
	seed         uint64
}

// NewCountMin returns an empty sketch with the parameters p (validated; Top is
// ignored: see NewCountMinTopK), hashing with seed: s1, s2 and s3 are the
// first three outputs of workload.SplitMix(seed), so sketches merge only
// when built with the same seed.
func NewCountMin(p CountMinParams, seed uint64) (*CountMin, error) {
	if err := strategies.ValidateWith("count-min", &p); err != nil {
		return nil, err
	}
	w, d, eps, delta := p.Shape()
	return &CountMin{
		rows:         ds.NewCountRows(w, d, seed),
		eps:          eps,
		delta:        delta,
		conservative: p.Conservative,
		seed:         seed,
	}, nil
}

// Bound returns ⌈εN⌉: with probability 1 − δ a key's estimate exceeds its
// true count by at most this.
func (s *CountMin) Bound() uint64 {
	return uint64(math.Ceil(strategies.Tidy(s.eps * float64(s.rows.N))))
}

// Bytes returns the memory of the counters: 4·d·w.
func (s *CountMin) Bytes() int64 { return s.rows.Bytes() }

// Observe adds every write event's Delta to its key; reads and writes with
// Delta ≤ 0 are ignored (a count-min sketch only counts up).
//
// The plain update's loop is written out: no interface, no allocation, no
// estimate; N is summed in a register; the row loop runs over the rows'
// offsets off = 0, w, …, (d−1)·w, one bounds check a row (that the column
// reduce(g, w) is below w is beyond the compiler's proof); and while N ≤
// 2^32−1 no counter can saturate (none exceeds N), so the counters take
// plain adds. Past that, events go through add, which saturates. The one
// call an event is hashes, which does not inline, and measured about 5%
// faster out of line than written in (it spares the loop registers).
func (s *CountMin) Observe(batch []workload.Event) {
	if s.conservative {
		for i := range batch {
			if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
				s.addConservative(e.Key, uint64(e.Delta))
			}
		}
		return
	}
	w, cells := uint64(s.rows.Width), s.rows.Cells
	dw := w * uint64(s.rows.Depth)
	n := s.rows.N
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		delta := uint64(e.Delta)
		if n += delta; n > math.MaxUint32 {
			s.rows.N = n - delta
			s.add(e.Key, delta)
			continue
		}
		g, step, accel := s.rows.Hashes(e.Key)
		for off := uint64(0); off < dw; off += w {
			cells[off+ds.Reduce(g, w)] += uint32(delta)
			g += step
			step += accel
		}
	}
	s.rows.N = n
}

// add adds delta to key and returns the key's estimate afterwards.
func (s *CountMin) add(key, delta uint64) uint64 {
	if s.conservative {
		return s.addConservative(key, delta)
	}
	return s.rows.Add(key, delta)
}

// addConservative is add with the conservative update: the key's d counters
// are read, their offsets kept in a fixed array, then each raised to at least
// min + delta.
func (s *CountMin) addConservative(key, delta uint64) uint64 {
	s.rows.N += delta
	g, step, accel := s.rows.Hashes(key)
	w, cells := uint64(s.rows.Width), s.rows.Cells
	var at [countMinMaxDepth]uint64
	rows := at[:s.rows.Depth]
	est := uint32(math.MaxUint32)
	var off uint64
	for r := range rows {
		j := off + ds.Reduce(g, w)
		rows[r] = j
		est = min(est, cells[j])
		g += step
		step += accel
		off += w
	}
	c := ds.SatAdd(est, delta)
	for _, j := range rows {
		cells[j] = max(cells[j], c)
	}
	return uint64(c)
}

// Count returns the estimate of key: the least of its d counters. It is never
// below the true count.
func (s *CountMin) Count(key uint64) uint64 { return s.rows.Count(key) }

// merge adds other's counters to s, so that s becomes the sketch of both
// streams (for the plain update, exactly the sketch of the concatenated
// stream). It refuses, leaving s unchanged, a sketch of another width, depth
// or update rule (ErrMergeParams) or another seed (ErrMergeSeed). O(d·w).
func (s *CountMin) merge(other *CountMin) error {
	if other.rows.Width != s.rows.Width || other.rows.Depth != s.rows.Depth {
		return fmt.Errorf("count-min: %w: %d×%d and %d×%d", strategies.ErrMergeParams, s.rows.Depth, s.rows.Width, other.rows.Depth, other.rows.Width)
	}
	if other.conservative != s.conservative {
		return fmt.Errorf("count-min: %w: conservative update %v and %v", strategies.ErrMergeParams, s.conservative, other.conservative)
	}
	if other.seed != s.seed {
		return fmt.Errorf("count-min: %w: %d and %d", strategies.ErrMergeSeed, s.seed, other.seed)
	}
	dst := s.rows.Cells[:len(other.rows.Cells)] // the same length: one bounds check, not one a counter
	for i, c := range other.rows.Cells {
		dst[i] = ds.SatAdd(dst[i], uint64(c))
	}
	s.rows.N += other.rows.N
	return nil
}

// check validates the invariants of the counters (CountRows.Check) under
// the sketch's update rule.
func (s *CountMin) check() error { return s.rows.Check(s.conservative) }

func init() {
	strategies.Define("count-min", "count-min sketch (Cormode & Muthukrishnan): estimates ≤ true + εN with probability 1 − δ; with top > 0 also a heap for top-K",
		func(p *CountMinParams, env strategies.Env) (strategies.Strategy, error) {
			if p.Top > 0 {
				s, err := NewCountMinTopK(*p, env.Seed)
				if err != nil {
					return nil, err
				}
				return s, nil
			}
			s, err := NewCountMin(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		countMinPlan, strategies.Answers(strategies.FamilyPointCounter), strategies.Errs(strategies.ErrsOver))
}

// countMinPlan: the dimensions, the memory, and the bound εN at the simulated
// and the full scale.
func countMinPlan(p *CountMinParams, env strategies.Env) []strategies.PlanLine {
	w, d, eps, delta := p.Shape()
	wNote, dNote, deltaNote := "w = ⌈e/ε⌉", "d = ⌈ln 1/δ⌉", "δ"
	if p.Width != 0 {
		wNote, dNote, deltaNote = "given; ε = e/w", "given", "δ = e^-d"
	}
	cb := env.Full.CounterBytes
	if cb == 0 {
		cb = ds.CounterBytes
	}
	counters := float64(w) * float64(d)
	sketch := counters * cb
	lines := []strategies.PlanLine{
		{Metric: metrics.Undercounts, Value: 0, Unit: "keys", Note: "never counts low: every counter a key hashes to holds at least its count"},
		{Metric: metrics.Width, Value: float64(w), Unit: "counters", Note: wNote},
		{Metric: metrics.Depth, Value: float64(d), Unit: "rows", Note: dNote},
		{Metric: metrics.Counters, Value: counters, Unit: "counters", Note: "d·w"},
	}
	bytesNote := fmt.Sprintf("d·w·%v B; the same at any scale", cb)
	if p.Top > 0 {
		heap := float64(ds.TopHeapBytes(p.Top))
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.Bytes, Value: sketch, Unit: "B", Note: bytesNote + " (the sketch)"},
			strategies.PlanLine{Metric: metrics.HeapBytes, Value: heap, Unit: "B", Note: "top·36 B (key, count, slot, heap position) + key index of 12 B × the power of two ≥ 2·top"},
			strategies.PlanLine{Metric: metrics.TotalBytes, Value: sketch + heap, Unit: "B", Note: "sketch + heap"})
	} else {
		lines = append(lines, strategies.PlanLine{Metric: metrics.Bytes, Value: sketch, Unit: "B", Note: bytesNote})
	}
	if env.Events > 0 {
		lines = append(lines, countMinBounds(w, d, eps, float64(env.Events), false)...)
	}
	if n := env.Full.Events; n > 0 {
		lines = append(lines, countMinBounds(w, d, eps, n, true)...)
		if k := env.Full.KthCount; k > 0 {
			lines = append(lines, strategies.PlanLine{Metric: metrics.BoundShareOfKth, Value: 100 * strategies.CeilTidy(eps*n) / k, Unit: "%", Full: true,
				Note: "εN / count of the K-th key"})
		}
	}
	lines = append(lines, strategies.PlanLine{Metric: metrics.Failure, Value: delta, Unit: "probability", Note: deltaNote + " per key"})
	return lines
}

// countMinBounds are the two forms of count-min's bound on a key's
// overestimate over n events, both from Markov's inequality on one row
// (its expected excess is at most n/w) and the independence of the d rows
// (which this sketch's rows have 3 at a time; CountMin bounds what that
// costs):
//
//   - εN = e·N/w, passed in a row with probability at most 1/e, so in every
//     row with probability at most e^-d (Cormode & Muthukrishnan 2005; the
//     form of ε and δ: w = ⌈e/ε⌉, d = ⌈ln 1/δ⌉);
//   - 2N/w, passed in a row with probability at most 1/2, so in every row
//     with probability at most 2^-d (the likes seed: w = 100,000, d = 4,
//     N = 10^9 an hour gives 20,000 at 1 − 1/16 = 93.75%).
//
// A bound is an integer count, the least one not below the real number.
func countMinBounds(w, d int, eps, n float64, full bool) []strategies.PlanLine {
	return []strategies.PlanLine{
		{Metric: metrics.OverestimateBound, Value: strategies.CeilTidy(eps * n), Unit: "events", Full: full,
			Note: "εN (ε = e/w when w is given): exceeded with probability at most e^-d per key"},
		{Metric: metrics.BoundConfidence, Value: strategies.Round5(1 - math.Exp(-float64(d))), Unit: "probability", Full: full,
			Note: fmt.Sprintf("1 − e^-d = 1 − e^-%d: a key's overestimate stays within εN", d)},
		{Metric: metrics.Bound2N, Value: strategies.CeilTidy(2 * n / float64(w)), Unit: "events", Full: full,
			Note: "2N/w: exceeded with probability at most 2^-d per key"},
		{Metric: metrics.Bound2NConfidence, Value: strategies.Round5(1 - math.Pow(2, -float64(d))), Unit: "probability", Full: full,
			Note: fmt.Sprintf("1 − 2^-d = 1 − 2^-%d: a key's overestimate stays within 2N/w", d)},
	}
}
