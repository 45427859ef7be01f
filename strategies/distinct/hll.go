package distinct

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// HyperLogLog: P. Flajolet, É. Fusy, O. Gandouet and F. Meunier,
// "HyperLogLog: the analysis of a near-optimal cardinality estimation
// algorithm", AofA 2007, DMTCS Proceedings AH, pp. 127–146.
//
// Each id is hashed to 64 bits. The top p bits choose one of m = 2^p
// registers; the rank of the remaining q = 64 − p bits is the number of
// leading zeros plus one (1 with probability 1/2, k with probability 2^-k,
// q+1 when all are zero), and the register keeps the largest rank it has
// seen. A register of a stream of n ids thus holds the maximum of about n/m
// geometric variables, about log2(n/m), and m registers average out the
// noise: the relative standard error of the estimate is 1.04/√m
// (√(3 ln 2 − 1)/√m = 1.03896/√m asymptotically, Flajolet et al. Theorem 1),
// 0.8125% at p = 14. Registers only grow and the union of two streams has
// the register-wise maximum of their registers, so two sketches merge into
// exactly the sketch of the union.
//
// The estimate is Ertl's improved estimator (O. Ertl, "New cardinality
// estimation algorithms for HyperLogLog sketches", arXiv:1702.01284, 2017;
// the estimator Redis uses since 5.0). From the register histogram C_k (the
// number of registers equal to k, 0 ≤ k ≤ q+1):
//
//	n̂ = α∞ m² / ( m·σ(C_0/m) + Σ_{k=1..q} C_k 2^-k + m·τ(1 − C_{q+1}/m) 2^-q )
//	σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k−1)
//	τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^-k))² 2^-k) / 3
//	α∞   = 1 / (2 ln 2)
//
// σ accounts for the registers still at 0 and τ for those at the top rank,
// so the one formula covers the whole range: for n ≪ m it behaves like
// linear counting (m ln(m/C_0)) and for large n like the harmonic mean of
// the original paper, with no switch, no empirical bias table and no jump.
//
// Sparse form (the idea of S. Heule, M. Nunkesser and A. Hall, "HyperLogLog
// in practice", EDBT 2013, and of Redis's sparse encoding): while few
// registers are non-zero, only the (index, rank) pairs of the non-zero
// registers are kept, in a small hash table (hll_sparse.go). It holds the
// exact registers, so the estimate is the same number whichever form holds
// them; the sketch turns dense when the table would outgrow the dense array.

// HLLParams are the parameters of a HyperLogLog sketch.
type HLLParams struct {
	// Precision is p, 4..18: m = 2^p registers of 6 bits, m·6/8 bytes when
	// packed, a relative standard error of 1.04/√m.
	Precision int `key:"p" range:"4..18" default:"14" doc:"precision p: m = 2^p registers of 6 bits, m·6/8 bytes (12,288 at p = 14), standard error 1.04/√m (0.81% at p = 14)"`
	// Dense skips the sparse form: the sketch holds its m registers from
	// the start. The registers, and so the estimates, are the same either way.
	Dense bool `key:"dense" default:"false" doc:"start with the dense registers instead of the sparse list of non-zero registers (same estimates)"`
}

const (
	hllMinP = 4
	hllMaxP = 18
	// hllAlphaInf is α∞ = 1/(2 ln 2), the constant of Ertl's estimator.
	hllAlphaInf = 0.72134752044448170368
)

// hllDenseBytes is the size of the dense registers at precision p packed
// at 6 bits, four registers in three bytes: m·6/8.
func hllDenseBytes(p int) int { return (1 << p) * 6 / 8 }

// HLL is a HyperLogLog sketch of m = 2^p 6-bit registers, sparse (a table of
// the non-zero registers) while few are set, then dense. A register needs 6
// bits (its value is at most q+1 ≤ 61), and a real deployment packs them:
// Redis holds m·6/8 bytes, 12,288 at p = 14, and so does the binary encoding
// (hll_encoding.go). While inserting, this sketch holds each dense register
// in a byte of its own, m bytes (16,384 at p = 14): an insert is then a
// byte load, compare and store, in about half the time of unpacking a
// 6-bit field from a 3-byte group and packing it back (BenchmarkHLLInsert
// puts it beside the floor loop). The registers are packed only to encode.
// Bytes reports the packed m·6/8, the memory the design costs where it is
// deployed, not the m bytes the simulating process holds.
//
// Insert costs one hash and O(1) work; Estimate O(m); Merge O(m). The zero
// HLL is only a target for UnmarshalBinary; build one with NewHLL. An HLL is
// not safe for concurrent use.
type HLL struct {
	p     uint8
	seed  uint64
	state uint64    // RowState of the hash seed derived from seed
	dense []uint8   // the m registers, one a byte, when dense; nil while sparse
	sp    hllSparse // the non-zero registers while sparse
}

// NewHLL returns an empty sketch of precision p.Precision (validated),
// hashing with seed: an id's hash is XXH64 of the 16 bytes s‖id (both
// little-endian) where s is derived from seed by SplitMix64. Sketches merge
// only when built with the same precision and seed.
func NewHLL(p HLLParams, seed uint64) (*HLL, error) {
	if err := strategies.ValidateWith("hll", &p); err != nil {
		return nil, err
	}
	return emptyHLL(p, seed), nil
}

// emptyHLL is NewHLL of parameters already checked.
func emptyHLL(p HLLParams, seed uint64) *HLL {
	s := newHLL(uint8(p.Precision), seed)
	if p.Dense || !hllSparseAllowed(s.p) {
		s.dense = make([]uint8, 1<<s.p)
	} else {
		s.sp.init(hllSparseMinSlots)
	}
	return s
}

// newHLL returns a sketch with neither form allocated.
func newHLL(p uint8, seed uint64) *HLL {
	return &HLL{p: p, seed: seed, state: hllState(seed)}
}

// hllState is the XXH64 state after the first lane, the hash seed derived
// from the sketch's seed (see hash.go).
func hllState(seed uint64) uint64 {
	st := workload.SplitMix(seed ^ 0x68797065726c6f67) // "hyperlog"
	return ds.RowState(st.Uint64())
}

// hllSplit cuts a hash into the register index (the top p bits) and the rank
// of the other q = 64 − p bits: their leading zeros plus one, capped at q+1.
// With the index bits masked off, h has p more leading zeros than its q
// bits, and 64 when they are all zero: the rank is that count − p + 1, q+1
// at most, with no shift of h.
func hllSplit(h uint64, p uint8) (idx uint32, rank uint8) {
	return uint32(h >> (64 - p)), uint8(bits.LeadingZeros64(h&(^uint64(0)>>p))) - p + 1
}

// sparse reports whether the sketch is in its sparse form.
func (s *HLL) sparse() bool { return s.dense == nil }

// Bytes returns the memory of the registers: once dense, m·6/8 bytes, the
// registers packed at 6 bits as Redis and the binary encoding hold them
// (this process holds m bytes, one a register, to insert faster; see HLL);
// while sparse, the table's capacity, 4 bytes a slot.
func (s *HLL) Bytes() int64 {
	if s.dense != nil {
		return int64(hllDenseBytes(int(s.p)))
	}
	return s.sp.bytes()
}

// Insert adds id to the sketch. O(1); in the sparse form it may grow the
// table or turn the sketch dense (an allocation); once dense it allocates
// nothing.
func (s *HLL) Insert(id uint64) {
	idx, r := hllSplit(ds.RowHash(s.state, ds.KeyLane(id)), s.p)
	s.setMax(idx, r)
}

// setMax raises register idx to r if it is lower.
func (s *HLL) setMax(idx uint32, r uint8) {
	if s.dense != nil {
		s.dense[idx] = max(s.dense[idx], r)
		return
	}
	s.sparseSetMax(idx, r)
}

// register returns the value of register idx.
func (s *HLL) register(idx uint32) uint8 {
	if s.dense != nil {
		return s.dense[idx]
	}
	return s.sp.get(idx)
}

// Observe inserts the Actor of every Write event, whatever its Delta; Read
// events are ignored. It allocates nothing once the sketch is dense; while
// sparse it may grow the table (32 bytes doubling up to m/2) and then
// allocate the dense array, once.
func (s *HLL) Observe(batch []workload.Event) {
	i := 0
	for ; i < len(batch) && s.dense == nil; i++ {
		if batch[i].Op == workload.Write {
			s.Insert(batch[i].Actor)
		}
	}
	// The dense steady state, the floor loop of BenchmarkHLLInsert:
	// hllSplit written out with its mask hoisted and its shift masked to
	// 0..63, so that the compiler emits a plain shift (a Go shift by a
	// variable ≥ 64 gives 0, which costs a compare and a mask per shift
	// unless the amount is known to be smaller).
	d, st, p, rest := s.dense, s.state, s.p, batch[i:]
	idxShift, low := (64-p)&63, ^uint64(0)>>p
	for j := range rest {
		if rest[j].Op != workload.Write {
			continue
		}
		h := ds.RowHash(st, ds.KeyLane(rest[j].Actor))
		r := uint8(bits.LeadingZeros64(h&low)) - p + 1
		if idx := h >> idxShift; d[idx] < r {
			d[idx] = r
		}
	}
}

// histogram sets c[k] to the number of registers equal to k.
func (s *HLL) histogram(c *[64]int) {
	*c = [64]int{}
	if s.dense == nil {
		s.sp.histogram(c, 1<<s.p)
		return
	}
	hllDenseHistogram(s.dense, c)
}

// hllDenseHistogram adds to c the count of each value of d, whose length is
// a multiple of 8 (m ≥ 16) and whose values are below 64. It reads 8
// registers at a time, counts a word of zeros at once (most of the array
// while n ≪ m), and spreads the counts over four tables so that runs of
// equal registers (most of the array once n ≫ m) do not queue on one
// counter.
func hllDenseHistogram(d []uint8, c *[64]int) {
	var h [4][64]int32
	zeros := 0
	for j := 0; j+8 <= len(d); j += 8 {
		w := binary.LittleEndian.Uint64(d[j:])
		if w == 0 {
			zeros += 8
			continue
		}
		h[0][w&63]++
		h[1][w>>8&63]++
		h[2][w>>16&63]++
		h[3][w>>24&63]++
		h[0][w>>32&63]++
		h[1][w>>40&63]++
		h[2][w>>48&63]++
		h[3][w>>56&63]++
	}
	c[0] += zeros
	for k := range c {
		c[k] += int(h[0][k]) + int(h[1][k]) + int(h[2][k]) + int(h[3][k])
	}
}

// Estimate returns Ertl's estimate of the number of distinct ids inserted:
// 0 for an empty sketch, +Inf only when every register holds the top rank
// q+1 (not reachable by inserting fewer than about 2^64 ids). O(m).
func (s *HLL) Estimate() float64 {
	var c [64]int
	s.histogram(&c)
	return ertlEstimate(&c, int(s.p), hllAlphaInf)
}

// Distinct returns Estimate.
func (s *HLL) Distinct() float64 { return s.Estimate() }

// ertlEstimate is Ertl's improved estimator over the register histogram c
// at precision p, with the constant alpha (α∞ except in tests that show a
// wrong constant is caught). It evaluates the denominator by Horner's rule
// from the top rank down, as Ertl's paper and Redis's hllCount do.
func ertlEstimate(c *[64]int, p int, alpha float64) float64 {
	q := 64 - p
	m := float64(int(1) << p)
	z := m * ertlTau(1-float64(c[q+1])/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * ertlSigma(float64(c[0])/m)
	return alpha * m * m / z
}

// ertlSigma is σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k−1) for x in [0,1], summed until
// the sum stops changing; σ(1) = +Inf.
func ertlSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// ertlTau is τ(x) = (1 − x − Σ_{k≥1} (1 − x^(2^-k))² 2^-k) / 3 for x in
// [0,1], summed until the sum stops changing; τ(0) = τ(1) = 0.
func ertlTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// Merge makes s the sketch of the union of both streams: every register
// becomes the larger of the two, so s ends exactly as if it had seen the
// ids of both (a sparse s turns dense when other is dense or when the union
// needs it). It refuses, leaving s unchanged, a sketch of another precision
// (ErrMergeParams; no fold-down) or another seed (ErrMergeSeed). O(m).
func (s *HLL) Merge(other *HLL) error {
	if other.p != s.p {
		return fmt.Errorf("hll: %w: precision %d and %d", strategies.ErrMergeParams, s.p, other.p)
	}
	if other.seed != s.seed {
		return fmt.Errorf("hll: %w: %d and %d", strategies.ErrMergeSeed, s.seed, other.seed)
	}
	if other == s {
		return nil
	}
	if other.dense == nil {
		for _, e := range other.sp.slots {
			if e != 0 {
				s.setMax(e>>6, uint8(e&63))
			}
		}
		return nil
	}
	if s.dense == nil {
		s.toDense()
	}
	d, o := s.dense, other.dense[:len(s.dense)]
	for i := range d {
		d[i] = max(d[i], o[i])
	}
	return nil
}

// clone returns an independent copy of s.
func (s *HLL) clone() *HLL {
	c := *s
	if s.dense != nil {
		c.dense = slices.Clone(s.dense)
	}
	c.sp = s.sp.clone()
	return &c
}

// check validates the invariants: p in range; the hash state derives from
// the seed; exactly one form is held; the dense array holds m registers,
// each ≤ q+1; the sparse table's invariants (hll_sparse.go).
func (s *HLL) check() error {
	if s.p < hllMinP || s.p > hllMaxP {
		return fmt.Errorf("hll: precision %d not in %d..%d", s.p, hllMinP, hllMaxP)
	}
	if s.state != hllState(s.seed) {
		return fmt.Errorf("hll: hash state %#x does not derive from seed %d", s.state, s.seed)
	}
	top := uint8(64 - s.p + 1)
	if s.dense == nil {
		return s.sp.check(s.p)
	}
	if s.sp.slots != nil {
		return fmt.Errorf("hll: both dense registers and a sparse table")
	}
	if len(s.dense) != 1<<s.p {
		return fmt.Errorf("hll: %d dense registers, want m = %d at p = %d", len(s.dense), 1<<s.p, s.p)
	}
	for i, r := range s.dense {
		if r > top {
			return fmt.Errorf("hll: register %d holds %d, more than q+1 = %d", i, r, top)
		}
	}
	return nil
}

var _ strategies.Distinct = (*HLL)(nil)

func init() {
	strategies.Define("hll", "HyperLogLog (Flajolet et al.) with Ertl's estimator: distinct actors within 1.04/√m in m·6/8 bytes; merge = union",
		func(p *HLLParams, env strategies.Env) (strategies.Strategy, error) {
			s, err := NewHLL(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		hllPlan, strategies.Answers(strategies.FamilyDistinct))
}

// hllIDBytes is the size of one id in an exact set: a uint64.
const hllIDBytes = 8

// hllPlan: the registers, their memory, the standard error and what it means
// in ids, and the memory of an exact set of the ids at full scale. The
// audience is env.Keys at the simulated scale and Full.Keys at full scale.
func hllPlan(p *HLLParams, env strategies.Env) []strategies.PlanLine {
	m := float64(int(1) << p.Precision)
	bytes := float64(hllDenseBytes(p.Precision))
	rse := 1.04 / math.Sqrt(m)
	lines := []strategies.PlanLine{
		{Metric: metrics.Registers, Value: m, Unit: "registers", Note: "m = 2^p"},
		{Metric: metrics.Bytes, Value: bytes, Unit: "B", Note: "m·6/8: 6-bit registers; the same at any scale (the sparse form holds less while few registers are set)"},
		{Metric: metrics.StandardError, Value: strategies.Tidy(104 / math.Sqrt(m)), Unit: "%", Note: "1.04/√m, relative"},
	}
	const countNote = "1.04/√m × distinct ids"
	if env.Keys > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.ErrorCount, Value: strategies.Tidy(rse * float64(env.Keys)), Unit: "ids", Note: countNote + " (env keys)"})
	}
	if n := env.Full.Keys; n > 0 {
		exact := n * hllIDBytes
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.ErrorCount, Value: strategies.Tidy(rse * n), Unit: "ids", Full: true,
				Note: countNote + " at full scale (1.04/√m rounded to 0.81% gives the seed's 324,000 for 40 M)"},
			strategies.PlanLine{Metric: metrics.ExactBytes, Value: exact, Unit: "B", Full: true, Note: "distinct ids × 8 B: an exact set"},
			strategies.PlanLine{Metric: metrics.BytesRatio, Value: exact / bytes, Unit: "×", Full: true, Note: "exact_bytes / bytes"})
	}
	return lines
}

// UnionWith merges other, which must be an *HLL of the same precision and
// seed, into s (DistinctUnion).
func (s *HLL) UnionWith(other strategies.Distinct) error {
	o, ok := other.(*HLL)
	if !ok {
		return fmt.Errorf("hll: %w: cannot merge a %T", strategies.ErrMergeParams, other)
	}
	return s.Merge(o)
}
