package frequency

import (
	"fmt"
	"math"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// HeavyKeeper: J. Gong, T. Yang, H. Zhang, H. Li, S. Uhlig, S. Chen, L. Uden
// and X. Li, "HeavyKeeper: An Accurate Algorithm for Finding Top-k Elephant
// Flows", USENIX ATC 2018; the design behind RedisBloom's TOPK (whose
// TOPK.RESERVE defaults are width 8, depth 7, decay 0.9).
//
// d rows of w buckets, each a (fingerprint, count) pair, and a min-heap of
// the k keys with the largest counts seen. A write of key x visits one
// bucket a row, h_i(x):
//
//   - an empty bucket (count 0) takes x's fingerprint with count = delta;
//   - a bucket holding x's fingerprint adds delta;
//   - a bucket holding another fingerprint decays: with probability b^count
//     its count loses 1 ("count-with-exponential-decay"); a bucket that
//     reaches 0 takes x's fingerprint with count 1. A delta d > 1 is d such
//     unit trials, as RedisBloom's TOPK.INCRBY does (a bucket taken on the
//     j-th trial starts at the d − j + 1 units left); here the failures
//     before each decay are drawn at once from their geometric law, so that
//     a large delta costs O(decays), not O(d), with the same distribution.
//
// The key's estimate is the largest count among the buckets that hold its
// fingerprint after the update. It is offered to the heap: a key held keeps
// the larger of its heap count and the estimate (RedisBloom takes the
// estimate even when lower; both are ≤ the truth, the larger is nearer), a
// key not held replaces the heap's minimum if its estimate is larger.
//
// What holds. A bucket's count only grows by deltas of the key whose
// fingerprint it holds, since it took it, and otherwise only falls; so a
// count is never above the true count of a key with that fingerprint, and
// an estimate and a heap count never exceed the key's truth — unless two
// keys of the same 32-bit fingerprint meet in one bucket, when the
// bucket's count is theirs together. That is the one way HeavyKeeper
// overcounts: for a given key and row it takes another key of the same
// fingerprint (probability 2^-32 each) in the same bucket, so with K keys
// about d·K/w·2^-32 per key, 1.6e-9 for the search scenario's d = 5, w =
// 2,000 over 10^6 keys. The type declares ErrsUnder with that exception;
// the suite's streams hold no such pair. There is no deterministic bound on
// how far below the truth a count falls, nor on which keys the heap holds:
// it promises none (the paper's guarantee is probabilistic, for a key whose
// count dominates its buckets). Item.Err is the bound that is known: the
// other held keys' counts are below their truths, so a key's true count is
// at most N − Σ heap counts + its own count, and Err = N − Σ heap counts.
//
// The decay draws come from a SplitMix64 generator seeded from the design's
// seed: the same seed and stream give the same counts. Cost per event: d
// bucket visits and at most d random draws, one heap lookup only for an
// estimate at or above the heap's minimum, O(log k) heap work when it
// changes; nothing is allocated.

// HeavyKeeperParams are the parameters of HeavyKeeper.
type HeavyKeeperParams struct {
	// Top is k, the keys kept in the heap, 1..100,000.
	Top int `key:"top" range:"1..100000" required:"true" doc:"keys kept in the min-heap k"`
	// Width is the buckets a row, 1..2^26.
	Width int `key:"width" range:"1..67108864" default:"8" doc:"buckets per row w (RedisBloom's default 8); width·depth ≤ 268435456"`
	// Depth is the rows, 1..32.
	Depth int `key:"depth" range:"1..32" default:"7" doc:"rows d (RedisBloom's default 7)"`
	// Decay is b, in (0,1): a foreign key decays a bucket of count c with
	// probability b^c.
	Decay float64 `key:"decay" range:"(0,1)" default:"0.9" doc:"decay base b: another key lowers a bucket of count c by 1 with probability b^c (RedisBloom's default 0.9)"`
}

const (
	heavyKeeperMaxTop     = 100_000
	heavyKeeperMaxWidth   = 1 << 26
	heavyKeeperMaxDepth   = 32
	heavyKeeperMaxBuckets = 1 << 28 // 2 GiB of buckets
	// heavyKeeperTable is the longest table of decay thresholds: counts
	// beyond it compute b^c (only where b is so near 1 that b^c·2^64 ≥ 1
	// there).
	heavyKeeperTable = 1024
)

// Validate checks width·depth: at most 2^28 buckets.
func (p HeavyKeeperParams) Validate() error {
	if int64(p.Width)*int64(p.Depth) > heavyKeeperMaxBuckets {
		return strategies.ParamErrorf("width", "width·depth = %d·%d is over %d buckets", p.Width, p.Depth, heavyKeeperMaxBuckets)
	}
	return nil
}

// HeavyKeeper is the sketch and its heap. It is a TopK and a PointCounter
// (Count: the heap count of a key held, or its largest bucket count), both
// lower bounds but for a fingerprint collision. Not safe for concurrent use.
type HeavyKeeper struct {
	buckets []hkBucket // d rows of w
	heap    ds.TopHeap // its index hashes a key as h1
	decay   []uint64   // decay[c] = ⌊b^c·2^64⌋, the chance to decay count c, as a threshold
	zeroAt  uint64     // b^c·2^64 < 1 from here on (math.MaxUint64: not reached by the table)
	b       float64
	rng     workload.SplitMix
	s1, s2  uint64
	width   uint64
	depth   int
	floor   uint64 // the heap's least count once it is full, 0 before
	n       uint64
}

// hkBucket is one bucket: a key's fingerprint and its count.
type hkBucket struct {
	fp    uint32
	count uint32
}

// NewHeavyKeeper returns an empty HeavyKeeper; seed seeds its hashes and its
// decay draws.
func NewHeavyKeeper(p HeavyKeeperParams, seed uint64) (*HeavyKeeper, error) {
	if err := strategies.ValidateWith("heavykeeper", &p); err != nil {
		return nil, err
	}
	st := workload.SplitMix(seed ^ 0x68656176796b6565)
	s1, s2 := st.Uint64(), st.Uint64()
	decay, zeroAt := heavyKeeperThresholds(p.Decay)
	return &HeavyKeeper{
		buckets: make([]hkBucket, p.Width*p.Depth),
		heap:    ds.NewTopHeap(p.Top, s1),
		decay:   decay,
		zeroAt:  zeroAt,
		b:       p.Decay,
		rng:     workload.SplitMix(st.Uint64()),
		s1:      s1, s2: s2,
		width: uint64(p.Width),
		depth: p.Depth,
	}, nil
}

// heavyKeeperThresholds is the table of decay thresholds ⌊b^c·2^64⌋ for c
// = 0, 1, …, up to the first that is 0 (then zeroAt is that c) or
// heavyKeeperTable entries (then zeroAt is math.MaxUint64).
func heavyKeeperThresholds(b float64) ([]uint64, uint64) {
	t := []uint64{math.MaxUint64} // b^0 = 1: certain
	for c := 1; c < heavyKeeperTable; c++ {
		v := math.Pow(b, float64(c)) * 0x1p64
		if v < 1 {
			return t, uint64(c)
		}
		t = append(t, uint64(v))
	}
	return t, math.MaxUint64
}

// heavyKeeperBytes is the memory of the sketch: 8 B a bucket and the decay
// table, 8 B an entry.
func heavyKeeperBytes(p HeavyKeeperParams) int64 {
	t, _ := heavyKeeperThresholds(p.Decay)
	return int64(p.Width)*int64(p.Depth)*int64(unsafe.Sizeof(hkBucket{})) + 8*int64(len(t))
}

// Bytes returns the buckets, the decay table and the heap with its index.
func (s *HeavyKeeper) Bytes() int64 { return s.sketchBytes() + s.heap.Bytes() }

func (s *HeavyKeeper) sketchBytes() int64 {
	return int64(len(s.buckets))*int64(unsafe.Sizeof(hkBucket{})) + 8*int64(len(s.decay))
}

// Parts reports the sketch ("bytes") and the heap ("heap_bytes") apart.
func (s *HeavyKeeper) Parts() []strategies.Part {
	return []strategies.Part{{Metric: metrics.Bytes, Bytes: s.sketchBytes()}, {Metric: metrics.HeapBytes, Bytes: s.heap.Bytes()}}
}

// hashes returns the key's h1 (also the heap index's hash), its row step
// h2 (odd) and its fingerprint: row i's bucket is reduce(h1 + i·h2, w).
func (s *HeavyKeeper) hashes(key uint64) (h1, h2 uint64, fp uint32) {
	h1 = workload.Mix64(key ^ s.s1)
	g := workload.Mix64(key ^ s.s2)
	return h1, g | 1, uint32(g >> 32)
}

// Observe counts every write event's positive Delta; other events are
// ignored.
func (s *HeavyKeeper) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op == workload.Write && e.Delta > 0 {
			s.add(e.Key, uint64(e.Delta))
		}
	}
}

func (s *HeavyKeeper) add(key, delta uint64) {
	s.n += delta
	h1, h2, fp := s.hashes(key)
	d32 := uint32(min(delta, math.MaxUint32))
	var est uint32
	g, w := h1, s.width
	for off := uint64(0); off < uint64(len(s.buckets)); off += w {
		bk := &s.buckets[off+ds.Reduce(g, w)]
		g += h2
		switch {
		case bk.count == 0:
			bk.fp, bk.count = fp, d32
		case bk.fp == fp:
			bk.count = uint32(min(uint64(bk.count)+delta, math.MaxUint32)) // saturate: still ≤ the truth
		case delta == 1:
			if s.rng.Uint64() < s.threshold(bk.count) {
				if bk.count--; bk.count == 0 {
					bk.fp, bk.count = fp, 1
				}
			}
			if bk.fp != fp {
				continue
			}
		default:
			if !s.decayBy(bk, fp, delta) {
				continue
			}
		}
		est = max(est, bk.count)
	}
	if est == 0 || uint64(est) < s.floor {
		return
	}
	s.floor = s.heap.Offer(h1, key, uint64(est))
}

// threshold is ⌊b^c·2^64⌋: a uniform uint64 below it decays count c.
func (s *HeavyKeeper) threshold(c uint32) uint64 {
	if uint64(c) < uint64(len(s.decay)) {
		return s.decay[c]
	}
	if uint64(c) >= s.zeroAt {
		return 0
	}
	return uint64(math.Pow(s.b, float64(c)) * 0x1p64) // b near 1: beyond the table
}

// decayBy applies delta unit trials of another key to bucket bk: each
// decays its count c with probability b^c, and the trial that takes it to
// 0 gives the bucket to fp with the units left, that one included. The
// failures before a decay are drawn at once: Geometric(p) by inversion,
// ⌊ln u / ln(1 − p)⌋. It reports whether fp holds the bucket after.
func (s *HeavyKeeper) decayBy(bk *hkBucket, fp uint32, delta uint64) bool {
	left := delta
	for {
		t := s.threshold(bk.count)
		if t == 0 {
			return false
		}
		p := float64(t) * 0x1p-64
		u := float64(s.rng.Uint64()>>11+1) * 0x1p-53 // in (0, 1]
		fails := math.Floor(math.Log(u) / math.Log1p(-p))
		if p == 1 {
			fails = 0
		}
		if fails >= float64(left) {
			return false
		}
		left -= uint64(fails) // the trial that decays is one of these
		if bk.count--; bk.count == 0 {
			bk.fp, bk.count = fp, uint32(min(left, math.MaxUint32))
			return true
		}
		left--
	}
}

// Count returns a lower bound of key's true count (but for a fingerprint
// collision): its heap count if it is held, or the largest count of a
// bucket holding its fingerprint, whichever is larger; 0 if neither.
func (s *HeavyKeeper) Count(key uint64) uint64 {
	h1, h2, fp := s.hashes(key)
	var c uint64
	if i, ok := s.heap.FindAt(h1, key); ok {
		c = s.heap.At(i).Count
	}
	g, w := h1, s.width
	for off := uint64(0); off < uint64(len(s.buckets)); off += w {
		if bk := s.buckets[off+ds.Reduce(g, w)]; bk.fp == fp {
			c = max(c, uint64(bk.count))
		}
		g += h2
	}
	return c
}

// Top returns up to k keys of the heap, count descending then key
// ascending; Err is N − Σ heap counts for each. O(top log top).
func (s *HeavyKeeper) Top(k int) []strategies.Item {
	items := make([]strategies.Item, s.heap.Len())
	var sum uint64
	for i := range items {
		items[i] = *s.heap.At(i)
		sum += items[i].Count
	}
	for i := range items {
		items[i].Err = s.n - sum
	}
	ds.SortItems(items)
	return items[:min(max(k, 0), len(items))]
}

// check validates the heap and its index, the floor, and the buckets: an
// empty bucket holds fingerprint 0, and a row's counts sum to at most N
// (each unit counted is a distinct unit of the stream). The heap's counts
// sum to at most N too.
func (s *HeavyKeeper) check() error {
	if err := s.heap.Check(); err != nil {
		return fmt.Errorf("heavykeeper: %w", err)
	}
	var sum uint64
	for i := range s.heap.Len() {
		sum += s.heap.At(i).Count
	}
	if sum > s.n {
		return fmt.Errorf("heavykeeper: heap counts sum to %d, over N = %d", sum, s.n)
	}
	want := uint64(0)
	if s.heap.Full() {
		want = s.heap.Min().Count
	}
	if s.floor != want {
		return fmt.Errorf("heavykeeper: floor %d, want %d (the heap's minimum once full)", s.floor, want)
	}
	for r := range s.depth {
		row := s.buckets[uint64(r)*s.width : uint64(r+1)*s.width]
		var rs uint64
		for j, bk := range row {
			if bk.count == 0 && bk.fp != 0 {
				return fmt.Errorf("heavykeeper: row %d bucket %d empty with fingerprint %#x", r, j, bk.fp)
			}
			rs += uint64(bk.count)
		}
		if rs > s.n {
			return fmt.Errorf("heavykeeper: row %d sums to %d, over N = %d", r, rs, s.n)
		}
	}
	return nil
}

func init() {
	strategies.Define("heavykeeper", "HeavyKeeper (Gong et al. 2018, RedisBloom's TOPK): d×w buckets of (fingerprint, count) with probabilistic decay b^count and a min-heap of the top k; counts never high but for a fingerprint collision",
		func(p *HeavyKeeperParams, env strategies.Env) (strategies.Strategy, error) {
			s, err := NewHeavyKeeper(*p, env.Seed)
			if err != nil {
				return nil, err
			}
			return s, nil
		},
		heavyKeeperPlan, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyTopK), strategies.Errs(strategies.ErrsUnder), strategies.Promises(strategies.PromiseNone))
}

// heavyKeeperPlan: the shape and the memory; HeavyKeeper has no closed-form
// error bound.
func heavyKeeperPlan(p *HeavyKeeperParams, _ strategies.Env) []strategies.PlanLine {
	sketch := float64(heavyKeeperBytes(*p))
	heap := float64(ds.TopHeapBytes(p.Top))
	return []strategies.PlanLine{
		{Metric: metrics.Width, Value: float64(p.Width), Unit: "buckets", Note: "w, given"},
		{Metric: metrics.Depth, Value: float64(p.Depth), Unit: "rows", Note: "d, given"},
		{Metric: metrics.Counters, Value: float64(p.Width) * float64(p.Depth), Unit: "buckets", Note: "d·w"},
		{Metric: metrics.Bytes, Value: sketch, Unit: "B", Note: "d·w·8 B (32-bit fingerprint, 32-bit count) + the decay table ⌊b^c·2^64⌋, 8 B an entry"},
		{Metric: metrics.HeapBytes, Value: heap, Unit: "B", Note: "top·36 B (key, count, slot, heap position) + key index of 12 B × the power of two ≥ 2·top"},
		{Metric: metrics.TotalBytes, Value: sketch + heap, Unit: "B", Note: "sketch + heap"},
	}
}
