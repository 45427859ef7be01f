package trending

import (
	"fmt"
	"math"
	"slices"
	"time"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/frequency"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Windowed count-min, the sliding-window design of
// seeds/001_5f0ce0684fc58c3b.txt: a ring of count-min sketches (Cormode &
// Muthukrishnan 2005, countmin.go), one per time bucket, summed over the
// window. It trades time-buckets' exact tables, whose memory grows with
// the keys of a bucket, for W fixed sketches of d × w counters.
//
// The W sketches share one seed, so a key takes the same d counters in
// each, and one hash an event serves every structure. An event adds to its
// bucket's sketch and to an aggregate sketch A, the counter-wise sum of
// the ring: A is the count-min sketch of the window's stream (sketches of
// one seed merge by adding counters). A rotation subtracts each expiring
// bucket's counters from A and clears them: O(d·w) a bucket, whatever the
// keys, never a rescan of keys.
//
// Estimates. A key's window estimate is the sum over the W buckets of its
// bucket estimates, Σ_b min_i C_b[i][h_i(x)]. Each term is at least the
// key's count in bucket b, so the sum is never below the window count a
// (ErrsOver). Bounds, with N_b a bucket's events and N = Σ N_b the
// window's:
//
//   - per bucket: est_b ≤ a_b + ε·N_b with probability 1 − δ (Theorem 1 of
//     the paper, with CountMin's caveat for its 3-wise independent rows);
//   - per window: Σ_b est_b ≤ min_i Σ_b C_b[i][h_i(x)] = A's estimate, and
//     A is one count-min of the window's N events, so Σ_b est_b ≤ a + ε·N
//     with probability 1 − δ: the sum of the per-bucket bounds, at the
//     confidence of one sketch (not 1 − W·δ, which a union over the buckets
//     would give).
//
// Candidates. A min-heap of `top` keys by A's estimate (TopHeap, as
// count-min + heap) answers the query: an event whose new A-estimate
// reaches the heap's least enters (or raises its key), as in CountMinTopK.
// A rotation refreshes the held keys' A-estimates and re-heapifies, O(top ·
// d). Trending(k, now) rotates to now, scores each candidate by its sum of
// bucket estimates (O(top · W · d)), and returns the k best with a
// non-zero score. What it can miss: a key enters only on one of its own
// events, so a key whose estimate was below the heap's least at its last
// event, and that rises only because rotations lowered the others, is
// missing until its next event; and a key whose A-estimate is inflated by
// collisions can hold a place a true one lacks (top defaults to 4 × K for
// that margin).
//
// Memory: (W + 1) sketches of 4·d·w bytes, and the heap (TopHeapBytes).

// WindowedCountMinParams are the parameters of windowed-count-min.
type WindowedCountMinParams struct {
	Bucket  time.Duration `key:"bucket" range:">0" default:"1m" doc:"a bucket's width"`
	Window  time.Duration `key:"window" range:"(0,1572864h]" default:"60m" doc:"the window, a whole multiple of the bucket, 1..65536 buckets"`
	Epsilon float64       `key:"epsilon" range:"(0,1)" defaultdoc:"0.001, with none of the four given" doc:"each bucket's count-min error ε as a share of its events, with delta; width = ⌈e/ε⌉"`
	Delta   float64       `key:"delta" range:"(0,1)" defaultdoc:"0.01, with none of the four given" doc:"each bucket's count-min failure probability δ per key, with epsilon; depth = ⌈ln 1/δ⌉ ≤ 32"`
	Width   int           `key:"width" range:"1..268435456" doc:"counters per row w of each bucket's sketch, with depth instead of epsilon and delta (ε = e/w)"`
	Depth   int           `key:"depth" range:"1..32" doc:"rows d of each bucket's sketch, with width (δ = e^-d)"`
	Top     int           `key:"top" range:"1..100000" defaultdoc:"4 × K, 40 without a K" doc:"candidates kept by windowed estimate for the answer, at least the scenario's K"`
}

// Defaults of windowed-count-min's sketches, when no shape is given.
const (
	windowedCMEpsilon = 0.001
	windowedCMDelta   = 0.01
	// windowedCMMaxCounters bounds the (W + 1)·d·w counters: 4 GiB.
	windowedCMMaxCounters = 1 << 30
)

// sketch returns the parameters of each bucket's count-min: the shape
// given, or ε = 0.001, δ = 0.01 when none of the four keys is.
func (p WindowedCountMinParams) sketch() frequency.CountMinParams {
	cm := frequency.CountMinParams{Epsilon: p.Epsilon, Delta: p.Delta, Width: p.Width, Depth: p.Depth}
	if p.Epsilon == 0 && p.Delta == 0 && p.Width == 0 && p.Depth == 0 {
		cm.Epsilon, cm.Delta = windowedCMEpsilon, windowedCMDelta
	}
	return cm
}

// Validate checks the window against the bucket, the sketch's shape and
// the memory.
func (p WindowedCountMinParams) Validate() error {
	if err := ds.ValidateWindow(p.Bucket, p.Window); err != nil {
		return err
	}
	cm := p.sketch()
	if err := cm.Validate(); err != nil {
		return err
	}
	w, d, _, _ := cm.Shape()
	if c := (float64(p.Window/p.Bucket) + 1) * float64(w) * float64(d); c > windowedCMMaxCounters {
		return strategies.ParamErrorf("window", "%d buckets of %d × %d counters: %.3g counters, more than %d (4 GiB)", p.Window/p.Bucket, d, w, c, windowedCMMaxCounters)
	}
	return nil
}

// resolve fills top from the scenario's K and refuses a top below it.
func (p WindowedCountMinParams) resolve(env strategies.Env) (WindowedCountMinParams, error) {
	if p.Top == 0 {
		p.Top = 40
		if env.Top > 0 {
			p.Top = min(4*env.Top, frequency.CountMinMaxTop)
		}
	}
	if p.Top < env.Top {
		return p, &strategies.ParamError{Key: "top", Msg: fmt.Sprintf("%d candidates for a top %d (allowed: at least K, 0 for 4 × K)", p.Top, env.Top)}
	}
	return p, nil
}

// WindowedCountMin is the ring of count-min sketches: a Trending design
// whose scores are never below the window's counts. Not safe for
// concurrent use.
type WindowedCountMin struct {
	clock ds.BucketClock
	ring  []*ds.CountRows // slot b mod W: bucket b's sketch; all of one seed
	cur   *ds.CountRows   // the newest bucket's
	agg   *ds.CountRows   // Σ of the ring, counter by counter: the window's sketch
	cands ds.TopHeap      // keys by agg's estimate at their last event or rotation
	floor uint64          // the heap's least count once it is full, 0 before
	// saturated: a counter of the sum is at 2^32−1 (it stays there when a
	// bucket leaves); then every add saturates, until no counter is.
	saturated bool
}

var (
	_ strategies.Trending = (*WindowedCountMin)(nil)
	_ strategies.Parted   = (*WindowedCountMin)(nil)
)

// NewWindowedCountMin returns an empty design for env (its K, if p.Top is
// 0), hashing with env.Seed.
func NewWindowedCountMin(p WindowedCountMinParams, env strategies.Env) (*WindowedCountMin, error) {
	if err := strategies.ValidateWith("windowed-count-min", &p); err != nil {
		return nil, err
	}
	p, err := p.resolve(env)
	if err != nil {
		return nil, strategies.WithType("windowed-count-min", err)
	}
	cm := p.sketch()
	seed := workload.SplitMix64(env.Seed ^ 0x77696e646f77636d) // "windowcm"
	s := &WindowedCountMin{clock: ds.NewBucketClock(p.Bucket, p.Window)}
	w, d, _, _ := cm.Shape()
	agg := ds.NewCountRows(w, d, seed)
	s.agg = &agg
	s.ring = make([]*ds.CountRows, s.clock.W)
	for i := range s.ring {
		r := ds.NewCountRows(w, d, seed)
		s.ring[i] = &r
	}
	s.cur = s.ring[s.clock.Slot(0)]
	s.cands = ds.NewTopHeap(p.Top, s.agg.S1) // indexed by the sketch's h1, as CountMinTopK
	return s, nil
}

func init() {
	strategies.Define("windowed-count-min", "trending by a sliding window: a ring of count-min sketches, one a bucket, summed over the window; never below the window's count (seed 001)",
		func(p *WindowedCountMinParams, env strategies.Env) (strategies.Strategy, error) {
			return NewWindowedCountMin(*p, env)
		},
		windowedCMPlan, strategies.Answers(strategies.FamilyTrending), strategies.Errs(strategies.ErrsOver),
		strategies.CheckedBy(func(p *WindowedCountMinParams, env strategies.Env) error { _, err := p.resolve(env); return err }))
}

// windowedCMPlan: W, the sketches' shape and memory against the exact
// buckets', and the per-bucket and window bounds at the mean rate.
func windowedCMPlan(p *WindowedCountMinParams, env strategies.Env) []strategies.PlanLine {
	q, err := p.resolve(env)
	if err != nil {
		return nil
	}
	w, d, eps, delta := q.sketch().Shape()
	buckets := float64(q.Window / q.Bucket)
	counters := float64(w) * float64(d)
	sketches := (buckets + 1) * counters * ds.CounterBytes
	heap := float64(ds.TopHeapBytes(q.Top))
	perBucket, perWindow, bk, wk := windowEvents(q.Bucket, q.Window, env)
	exact := timeBucketsBytes(int64(buckets), bk, wk)
	lines := []strategies.PlanLine{
		{Metric: metrics.WindowBuckets, Value: buckets, Unit: "buckets", Note: "W = window / bucket"},
		{Metric: metrics.Undercounts, Value: 0, Unit: "keys", Note: "never below the window's count: each bucket's estimate is at least its count"},
		{Metric: metrics.Width, Value: float64(w), Unit: "counters", Note: "w = ⌈e/ε⌉ a row of each bucket's sketch (given: ε = e/w)"},
		{Metric: metrics.Depth, Value: float64(d), Unit: "rows", Note: "d = ⌈ln 1/δ⌉ (given: δ = e^-d)"},
		{Metric: metrics.Counters, Value: (buckets + 1) * counters, Unit: "counters", Note: "(W + 1)·d·w: W buckets and their sum"},
		{Metric: metrics.Bytes, Value: sketches, Unit: "B", Note: "(W + 1)·d·w·4 B: the W bucket sketches and the window's sum, the same at any scale"},
		{Metric: metrics.HeapBytes, Value: heap, Unit: "B", Note: fmt.Sprintf("the %d candidates: top·36 B + key index of 12 B × the power of two ≥ 2·top", q.Top)},
		{Metric: metrics.TotalBytes, Value: sketches + heap, Unit: "B", Note: "sketches + candidates"},
		{Metric: metrics.KeysTracked, Value: float64(q.Top), Unit: "keys", Note: "the candidates"},
		{Metric: metrics.ExactBytes, Value: exact, Unit: "B", Note: "time-buckets on the same stream, at most: 16 B × (W × a bucket's slots + the window's slots)"},
		{Metric: metrics.BytesRatio, Value: exact / (sketches + heap), Unit: "×", Note: "exact_bytes / total_bytes"},
	}
	if perWindow > 0 {
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.OverestimateBound, Value: strategies.CeilTidy(eps * perWindow), Unit: "events",
				Note: fmt.Sprintf("ε·N of a window = Σ over its W buckets of ε·N_bucket (ε·N_bucket = %s at the mean rate); a key's score passes it with probability at most δ, as one count-min of the window's events bounds the sum", strategies.Num(strategies.Tidy(eps*perBucket)))},
			strategies.PlanLine{Metric: metrics.BoundConfidence, Value: strategies.Round5(1 - delta), Unit: "probability",
				Note: "1 − δ a key, for a bucket's estimate within ε·N_bucket and for the window's sum within ε·N (not 1 − W·δ)"})
	}
	return append(lines, strategies.PlanLine{Metric: metrics.Failure, Value: delta, Unit: "probability", Note: "δ per key"})
}

// Law returns the window: W buckets of the bucket's width.
func (s *WindowedCountMin) Law() strategies.TrendLaw { return s.clock.Law() }

// Bytes returns the memory of the W + 1 sketches and the candidates.
func (s *WindowedCountMin) Bytes() int64 { return s.sketchBytes() + s.cands.Bytes() }

func (s *WindowedCountMin) sketchBytes() int64 { return int64(len(s.ring)+1) * s.agg.Bytes() }

// Parts reports the sketches ("bytes") and the candidates ("heap_bytes").
func (s *WindowedCountMin) Parts() []strategies.Part {
	return []strategies.Part{{Metric: metrics.Bytes, Bytes: s.sketchBytes()}, {Metric: metrics.HeapBytes, Bytes: s.cands.Bytes()}}
}

// Observe adds every write event's positive Delta to its key in its
// bucket's sketch and in the window's sum, rotating first when the event
// is past the newest bucket, and offers the key's new window estimate (the
// sum's) to the candidates. Both sketches' rows are updated in one loop
// from one hash; while the window's N stays below 2^32 no counter can
// saturate and the adds are plain (past it, add saturates).
func (s *WindowedCountMin) Observe(batch []workload.Event) {
	agg := s.agg
	w := uint64(agg.Width)
	dw := w * uint64(agg.Depth)
	for i := range batch {
		e := &batch[i]
		if e.At >= s.clock.Next {
			s.rotate(s.clock.Of(e.At))
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		delta := uint64(e.Delta)
		if e.At < s.clock.Start || s.saturated || agg.N+delta > math.MaxUint32 {
			s.slowAdd(e.At, e.Key, delta)
			continue
		}
		cur := s.cur
		cur.N += delta
		agg.N += delta
		g, step, accel := agg.Hashes(e.Key)
		h1 := g
		cc, ac := cur.Cells[:dw], agg.Cells[:dw]
		est := uint32(math.MaxUint32)
		for off := uint64(0); off < dw; off += w {
			j := off + ds.Reduce(g, w)
			cc[j] += uint32(delta)
			c := ac[j] + uint32(delta)
			ac[j] = c
			est = min(est, c)
			g += step
			step += accel
		}
		if uint64(est) >= s.floor {
			s.floor = s.cands.Offer(h1, e.Key, uint64(est))
		}
	}
}

// slowAdd adds an event with saturating adds: a late event, to its bucket
// if that is in the window, or an event past 2^32 events a window or while
// a counter of the sum is saturated.
func (s *WindowedCountMin) slowAdd(at int64, key, delta uint64) {
	b := s.clock.Of(at)
	if !s.clock.InWindow(b) {
		return
	}
	s.ring[s.clock.Slot(b)].Add(key, delta)
	est := s.agg.Add(key, delta)
	s.saturated = s.saturated || est == math.MaxUint32 || s.agg.N > math.MaxUint32
	if est >= s.floor {
		s.floor = s.cands.Offer(s.cands.Index.Hash(key), key, est)
	}
}

// rotate makes b the newest bucket, if it is past the newest: each bucket
// leaving the window is subtracted from the sum (a saturated counter of
// the sum stays saturated: an upper bound still) and cleared, then the
// candidates take their estimates in the new window. When all W leave,
// everything is cleared.
func (s *WindowedCountMin) rotate(b int64) {
	c := &s.clock
	if b <= c.Newest {
		return
	}
	if b-c.Newest >= c.W {
		for _, sk := range s.ring {
			if sk.N > 0 {
				clear(sk.Cells)
				sk.N = 0
			}
		}
		if s.agg.N > 0 {
			clear(s.agg.Cells)
			s.agg.N = 0
		}
		s.cands.Reset()
		s.floor = 0
		s.saturated = false
	} else {
		expired := false
		for x := c.Newest + 1; x <= b; x++ {
			sk := s.ring[c.Slot(x)] // holds bucket x − W
			if sk.N == 0 {
				continue
			}
			ac := s.agg.Cells[:len(sk.Cells)]
			if s.saturated {
				for j, v := range sk.Cells {
					if ac[j] != math.MaxUint32 {
						ac[j] -= v
					}
				}
			} else {
				for j, v := range sk.Cells {
					ac[j] -= v
				}
			}
			s.agg.N -= sk.N
			clear(sk.Cells)
			sk.N = 0
			expired = true
		}
		if expired {
			if s.saturated {
				s.saturated = s.agg.N > math.MaxUint32 || slices.Contains(s.agg.Cells, math.MaxUint32)
			}
			s.refresh()
		}
	}
	c.Set(b)
	s.cur = s.ring[c.Slot(b)]
}

// refresh sets every candidate's count to its estimate in the window now
// and restores the heap order (Floyd's heapify, O(top)): O(top · d).
// Candidates whose estimate fell to 0 stay, at the bottom, until a key
// with events replaces them.
func (s *WindowedCountMin) refresh() {
	h := &s.cands
	for i := range h.Heap {
		h.Heap[i].Count = s.agg.Count(h.Heap[i].Key)
	}
	for i := len(h.Heap)/2 - 1; i >= 0; i-- {
		h.Down(i)
	}
	s.floor = 0
	if h.Full() {
		s.floor = h.Min().Count
	}
}

// WindowCount returns key's window estimate, the sum of its estimates in
// the W buckets: never below its count in the window of the newest bucket.
// O(W·d), skipping empty buckets.
func (s *WindowedCountMin) WindowCount(key uint64) uint64 {
	var sum uint64
	for _, sk := range s.ring {
		if sk.N > 0 {
			sum += sk.Count(key)
		}
	}
	return sum
}

// Trending rotates to now's bucket and returns up to k candidates of
// largest window estimate (WindowCount), score descending then key
// ascending, leaving out scores of 0. O(top · W · d).
func (s *WindowedCountMin) Trending(k int, now int64) []strategies.Trend {
	if now >= s.clock.Next {
		s.rotate(s.clock.Of(now))
	}
	if k <= 0 {
		return []strategies.Trend{}
	}
	items := make([]strategies.Item, 0, s.cands.Len())
	for i := range s.cands.Heap {
		key := s.cands.Heap[i].Key
		if c := s.WindowCount(key); c > 0 {
			items = append(items, strategies.Item{Key: key, Count: c})
		}
	}
	ds.SortItems(items)
	out := make([]strategies.Trend, min(k, len(items)))
	for i := range out {
		out[i] = strategies.Trend{Key: items[i].Key, Score: float64(items[i].Count)}
	}
	return out
}

// check validates each sketch, that the sum is the ring's sum counter by
// counter (where not saturated) with N the sum of the N's, that a
// saturated sum is marked so, the heap, and that no candidate's count is
// above its estimate now.
func (s *WindowedCountMin) check() error {
	if s.cur != s.ring[s.clock.Slot(s.clock.Newest)] {
		return fmt.Errorf("windowed-count-min: the newest sketch misplaced")
	}
	if !s.saturated && s.agg.N <= math.MaxUint32 {
		if slices.Contains(s.agg.Cells, math.MaxUint32) {
			return fmt.Errorf("windowed-count-min: a counter of the sum saturated, not marked")
		}
		if err := s.agg.Check(false); err != nil { // a saturated counter left by a leaving bucket may pass N
			return fmt.Errorf("windowed-count-min: sum: %w", err)
		}
	}
	sum := make([]uint64, len(s.agg.Cells))
	var n uint64
	for b, sk := range s.ring {
		if err := sk.Check(false); err != nil {
			return fmt.Errorf("windowed-count-min: bucket sketch %d: %w", b, err)
		}
		if sk.S1 != s.agg.S1 || sk.S2 != s.agg.S2 || sk.S3 != s.agg.S3 || len(sk.Cells) != len(s.agg.Cells) {
			return fmt.Errorf("windowed-count-min: bucket sketch %d hashes or sizes unlike the sum", b)
		}
		n += sk.N
		for j, v := range sk.Cells {
			sum[j] += uint64(v)
		}
	}
	if n != s.agg.N {
		return fmt.Errorf("windowed-count-min: buckets hold %d events, the sum %d", n, s.agg.N)
	}
	for j, v := range s.agg.Cells {
		if v != math.MaxUint32 && uint64(v) != sum[j] {
			return fmt.Errorf("windowed-count-min: sum counter %d is %d, the buckets' %d", j, v, sum[j])
		}
	}
	if err := s.cands.Check(); err != nil {
		return fmt.Errorf("windowed-count-min: candidates: %w", err)
	}
	for i := range s.cands.Heap {
		if it := &s.cands.Heap[i].Item; it.Count > s.agg.Count(it.Key) {
			return fmt.Errorf("windowed-count-min: candidate %d at %d, above its estimate %d", it.Key, it.Count, s.agg.Count(it.Key))
		}
	}
	return nil
}

// TrendScore is key's window estimate at now (rotating to now's bucket
// first).
func (s *WindowedCountMin) TrendScore(key uint64, now int64) float64 {
	if now >= s.clock.Next {
		s.rotate(s.clock.Of(now))
	}
	return float64(s.WindowCount(key))
}

var _ strategies.TrendScorer = (*WindowedCountMin)(nil)
