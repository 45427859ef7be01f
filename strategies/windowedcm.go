package strategies

import (
	"fmt"
	"math"
	"slices"
	"time"

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
// Candidates. A min-heap of `top` keys by A's estimate (topHeap, as
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
// Memory: (W + 1) sketches of 4·d·w bytes, and the heap (topHeapBytes).

// WindowedCountMinParams are the parameters of windowed-count-min.
type WindowedCountMinParams struct {
	Bucket  time.Duration `param:"bucket" doc:"a bucket's width, in (0, 24h]: a duration (1m) or seconds (default 1m)"`
	Window  time.Duration `param:"window" doc:"the window, a whole multiple of the bucket, 1..65536 buckets (default 60m)"`
	Epsilon float64       `param:"epsilon" doc:"each bucket's count-min error ε as a share of its events, in (0,1), with delta; width = ⌈e/ε⌉ (default, with none of the four given: ε = 0.001, δ = 0.01)"`
	Delta   float64       `param:"delta" doc:"each bucket's count-min failure probability δ per key, in (0,1), with epsilon; depth = ⌈ln 1/δ⌉ ≤ 32"`
	Width   int           `param:"width" doc:"counters per row w of each bucket's sketch, 1..268435456, with depth instead of epsilon and delta (ε = e/w)"`
	Depth   int           `param:"depth" doc:"rows d of each bucket's sketch, 1..32, with width (δ = e^-d)"`
	Top     int           `param:"top" doc:"candidates kept by windowed estimate for the answer, 1..100000, at least the scenario's K (default 0: 4 × K, 40 without a K)"`

	written uint8 // which of epsilon, delta, width, depth a scenario wrote (cmEpsilon…)
}

// wrote records a key given (decodeParams calls it), as CountMinParams.
func (p *WindowedCountMinParams) wrote(key string) {
	cm := CountMinParams{written: p.written}
	cm.wrote(key)
	p.written = cm.written
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
func (p WindowedCountMinParams) sketch() CountMinParams {
	cm := CountMinParams{Epsilon: p.Epsilon, Delta: p.Delta, Width: p.Width, Depth: p.Depth, written: p.written}
	if p.written == 0 && p.Epsilon == 0 && p.Delta == 0 && p.Width == 0 && p.Depth == 0 {
		cm.Epsilon, cm.Delta = windowedCMEpsilon, windowedCMDelta
	}
	return cm
}

// Validate checks the window, the sketch's shape, top, and the memory.
func (p WindowedCountMinParams) Validate() error {
	if err := validateWindow(p.Bucket, p.Window); err != nil {
		return err
	}
	cm := p.sketch()
	if err := cm.Validate(); err != nil {
		return err
	}
	if p.Top < 0 || p.Top > countMinMaxTop {
		return paramErr("top", "%d not in 1..%d (0: 4 × K)", p.Top, countMinMaxTop)
	}
	w, d, _, _ := cm.shape()
	if c := (float64(p.Window/p.Bucket) + 1) * float64(w) * float64(d); c > windowedCMMaxCounters {
		return paramErr("window", "%d buckets of %d × %d counters: %.3g counters, more than %d (4 GiB)", p.Window/p.Bucket, d, w, c, windowedCMMaxCounters)
	}
	return nil
}

// resolve fills top from the scenario's K and refuses a top below it.
func (p WindowedCountMinParams) resolve(env Env) (WindowedCountMinParams, error) {
	if p.Top == 0 {
		p.Top = 40
		if env.Top > 0 {
			p.Top = min(4*env.Top, countMinMaxTop)
		}
	}
	if p.Top < env.Top {
		return p, &ParamError{Key: "top", Msg: fmt.Sprintf("%d candidates for a top %d (allowed: at least K, 0 for 4 × K)", p.Top, env.Top)}
	}
	return p, nil
}

// WindowedCountMin is the ring of count-min sketches: a Trending design
// whose scores are never below the window's counts. Not safe for
// concurrent use.
type WindowedCountMin struct {
	clock bucketClock
	ring  []*countRows // slot b mod W: bucket b's sketch; all of one seed
	cur   *countRows   // the newest bucket's
	agg   *countRows   // Σ of the ring, counter by counter: the window's sketch
	cands topHeap      // keys by agg's estimate at their last event or rotation
	floor uint64       // the heap's least count once it is full, 0 before
	// saturated: a counter of the sum is at 2^32−1 (it stays there when a
	// bucket leaves); then every add saturates, until no counter is.
	saturated bool
}

var (
	_ Trending = (*WindowedCountMin)(nil)
	_ Parted   = (*WindowedCountMin)(nil)
)

// NewWindowedCountMin returns an empty design for env (its K, if p.Top is
// 0), hashing with env.Seed.
func NewWindowedCountMin(p WindowedCountMinParams, env Env) (*WindowedCountMin, error) {
	if err := p.Validate(); err != nil {
		return nil, typed("windowed-count-min", err)
	}
	p, err := p.resolve(env)
	if err != nil {
		return nil, typed("windowed-count-min", err)
	}
	cm := p.sketch()
	seed := workload.SplitMix64(env.Seed ^ 0x77696e646f77636d) // "windowcm"
	s := &WindowedCountMin{clock: newBucketClock(p.Bucket, p.Window)}
	w, d, _, _ := cm.shape()
	agg := newCountRows(w, d, seed)
	s.agg = &agg
	s.ring = make([]*countRows, s.clock.w)
	for i := range s.ring {
		r := newCountRows(w, d, seed)
		s.ring[i] = &r
	}
	s.cur = s.ring[s.clock.slot(0)]
	s.cands = newTopHeap(p.Top, s.agg.s1) // indexed by the sketch's h1, as CountMinTopK
	return s, nil
}

func init() {
	define("windowed-count-min", "trending by a sliding window: a ring of count-min sketches, one a bucket, summed over the window; never below the window's count (seed 001)",
		func() *WindowedCountMinParams {
			return &WindowedCountMinParams{Bucket: time.Minute, Window: time.Hour}
		},
		func(p *WindowedCountMinParams, env Env) (Strategy, error) { return NewWindowedCountMin(*p, env) },
		windowedCMPlan, answers(FamilyTrending), errs(ErrsOver),
		checkedBy(func(p *WindowedCountMinParams, env Env) error { _, err := p.resolve(env); return err }))
}

// windowedCMPlan: W, the sketches' shape and memory against the exact
// buckets', and the per-bucket and window bounds at the mean rate.
func windowedCMPlan(p *WindowedCountMinParams, env Env) []PlanLine {
	q, err := p.resolve(env)
	if err != nil {
		return nil
	}
	w, d, eps, delta := q.sketch().shape()
	buckets := float64(q.Window / q.Bucket)
	counters := float64(w) * float64(d)
	sketches := (buckets + 1) * counters * countRowsCounterBytes
	heap := float64(topHeapBytes(q.Top))
	perBucket, perWindow, bk, wk := windowEvents(q.Bucket, q.Window, env)
	exact := timeBucketsBytes(int64(buckets), bk, wk)
	lines := []PlanLine{
		{Metric: MetricWindowBuckets, Value: buckets, Unit: "buckets", Note: "W = window / bucket"},
		{Metric: MetricUndercounts, Value: 0, Unit: "keys", Note: "never below the window's count: each bucket's estimate is at least its count"},
		{Metric: MetricWidth, Value: float64(w), Unit: "counters", Note: "w = ⌈e/ε⌉ a row of each bucket's sketch (given: ε = e/w)"},
		{Metric: MetricDepth, Value: float64(d), Unit: "rows", Note: "d = ⌈ln 1/δ⌉ (given: δ = e^-d)"},
		{Metric: MetricCounters, Value: (buckets + 1) * counters, Unit: "counters", Note: "(W + 1)·d·w: W buckets and their sum"},
		{Metric: MetricBytes, Value: sketches, Unit: "B", Note: "(W + 1)·d·w·4 B: the W bucket sketches and the window's sum, the same at any scale"},
		{Metric: MetricHeapBytes, Value: heap, Unit: "B", Note: fmt.Sprintf("the %d candidates: top·36 B + key index of 12 B × the power of two ≥ 2·top", q.Top)},
		{Metric: MetricTotalBytes, Value: sketches + heap, Unit: "B", Note: "sketches + candidates"},
		{Metric: MetricKeysTracked, Value: float64(q.Top), Unit: "keys", Note: "the candidates"},
		{Metric: MetricExactBytes, Value: exact, Unit: "B", Note: "time-buckets on the same stream, at most: 16 B × (W × a bucket's slots + the window's slots)"},
		{Metric: MetricBytesRatio, Value: exact / (sketches + heap), Unit: "×", Note: "exact_bytes / total_bytes"},
	}
	if perWindow > 0 {
		lines = append(lines,
			PlanLine{Metric: MetricOverestimateBound, Value: ceilTidy(eps * perWindow), Unit: "events",
				Note: fmt.Sprintf("ε·N of a window = Σ over its W buckets of ε·N_bucket (ε·N_bucket = %s at the mean rate); a key's score passes it with probability at most δ, as one count-min of the window's events bounds the sum", hotNum(tidy(eps*perBucket)))},
			PlanLine{Metric: MetricBoundConfidence, Value: round5(1 - delta), Unit: "probability",
				Note: "1 − δ a key, for a bucket's estimate within ε·N_bucket and for the window's sum within ε·N (not 1 − W·δ)"})
	}
	return append(lines, PlanLine{Metric: MetricFailure, Value: delta, Unit: "probability", Note: "δ per key"})
}

// Law returns the window: W buckets of the bucket's width.
func (s *WindowedCountMin) Law() TrendLaw { return s.clock.law() }

// Buckets returns W.
func (s *WindowedCountMin) Buckets() int { return len(s.ring) }

// Bytes returns the memory of the W + 1 sketches and the candidates.
func (s *WindowedCountMin) Bytes() int64 { return s.sketchBytes() + s.cands.bytes() }

func (s *WindowedCountMin) sketchBytes() int64 { return int64(len(s.ring)+1) * s.agg.bytes() }

// Parts reports the sketches ("bytes") and the candidates ("heap_bytes").
func (s *WindowedCountMin) Parts() []Part {
	return []Part{{Metric: MetricBytes, Bytes: s.sketchBytes()}, {Metric: MetricHeapBytes, Bytes: s.cands.bytes()}}
}

// Observe adds every write event's positive Delta to its key in its
// bucket's sketch and in the window's sum, rotating first when the event
// is past the newest bucket, and offers the key's new window estimate (the
// sum's) to the candidates. Both sketches' rows are updated in one loop
// from one hash; while the window's N stays below 2^32 no counter can
// saturate and the adds are plain (past it, add saturates).
func (s *WindowedCountMin) Observe(batch []workload.Event) {
	agg := s.agg
	w := uint64(agg.width)
	dw := w * uint64(agg.depth)
	for i := range batch {
		e := &batch[i]
		if e.At >= s.clock.next {
			s.rotate(s.clock.of(e.At))
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		delta := uint64(e.Delta)
		if e.At < s.clock.start || s.saturated || agg.n+delta > math.MaxUint32 {
			s.slowAdd(e.At, e.Key, delta)
			continue
		}
		cur := s.cur
		cur.n += delta
		agg.n += delta
		g, step, accel := agg.hashes(e.Key)
		h1 := g
		cc, ac := cur.cells[:dw], agg.cells[:dw]
		est := uint32(math.MaxUint32)
		for off := uint64(0); off < dw; off += w {
			j := off + reduce(g, w)
			cc[j] += uint32(delta)
			c := ac[j] + uint32(delta)
			ac[j] = c
			est = min(est, c)
			g += step
			step += accel
		}
		if uint64(est) >= s.floor {
			s.floor = s.cands.offer(h1, e.Key, uint64(est))
		}
	}
}

// slowAdd adds an event with saturating adds: a late event, to its bucket
// if that is in the window, or an event past 2^32 events a window or while
// a counter of the sum is saturated.
func (s *WindowedCountMin) slowAdd(at int64, key, delta uint64) {
	b := s.clock.of(at)
	if !s.clock.inWindow(b) {
		return
	}
	s.ring[s.clock.slot(b)].add(key, delta)
	est := s.agg.add(key, delta)
	s.saturated = s.saturated || est == math.MaxUint32 || s.agg.n > math.MaxUint32
	if est >= s.floor {
		s.floor = s.cands.offer(s.cands.index.hash(key), key, est)
	}
}

// rotate makes b the newest bucket, if it is past the newest: each bucket
// leaving the window is subtracted from the sum (a saturated counter of
// the sum stays saturated: an upper bound still) and cleared, then the
// candidates take their estimates in the new window. When all W leave,
// everything is cleared.
func (s *WindowedCountMin) rotate(b int64) {
	c := &s.clock
	if b <= c.newest {
		return
	}
	if b-c.newest >= c.w {
		for _, sk := range s.ring {
			if sk.n > 0 {
				clear(sk.cells)
				sk.n = 0
			}
		}
		if s.agg.n > 0 {
			clear(s.agg.cells)
			s.agg.n = 0
		}
		s.cands.reset()
		s.floor = 0
		s.saturated = false
	} else {
		expired := false
		for x := c.newest + 1; x <= b; x++ {
			sk := s.ring[c.slot(x)] // holds bucket x − W
			if sk.n == 0 {
				continue
			}
			ac := s.agg.cells[:len(sk.cells)]
			if s.saturated {
				for j, v := range sk.cells {
					if ac[j] != math.MaxUint32 {
						ac[j] -= v
					}
				}
			} else {
				for j, v := range sk.cells {
					ac[j] -= v
				}
			}
			s.agg.n -= sk.n
			clear(sk.cells)
			sk.n = 0
			expired = true
		}
		if expired {
			if s.saturated {
				s.saturated = s.agg.n > math.MaxUint32 || slices.Contains(s.agg.cells, math.MaxUint32)
			}
			s.refresh()
		}
	}
	c.set(b)
	s.cur = s.ring[c.slot(b)]
}

// refresh sets every candidate's count to its estimate in the window now
// and restores the heap order (Floyd's heapify, O(top)): O(top · d).
// Candidates whose estimate fell to 0 stay, at the bottom, until a key
// with events replaces them.
func (s *WindowedCountMin) refresh() {
	h := &s.cands
	for i := range h.heap {
		h.heap[i].Count = s.agg.count(h.heap[i].Key)
	}
	for i := len(h.heap)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	s.floor = 0
	if h.full() {
		s.floor = h.min().Count
	}
}

// WindowCount returns key's window estimate, the sum of its estimates in
// the W buckets: never below its count in the window of the newest bucket.
// O(W·d), skipping empty buckets.
func (s *WindowedCountMin) WindowCount(key uint64) uint64 {
	var sum uint64
	for _, sk := range s.ring {
		if sk.n > 0 {
			sum += sk.count(key)
		}
	}
	return sum
}

// Trending rotates to now's bucket and returns up to k candidates of
// largest window estimate (WindowCount), score descending then key
// ascending, leaving out scores of 0. O(top · W · d).
func (s *WindowedCountMin) Trending(k int, now int64) []Trend {
	if now >= s.clock.next {
		s.rotate(s.clock.of(now))
	}
	if k <= 0 {
		return []Trend{}
	}
	items := make([]Item, 0, s.cands.len())
	for i := range s.cands.heap {
		key := s.cands.heap[i].Key
		if c := s.WindowCount(key); c > 0 {
			items = append(items, Item{Key: key, Count: c})
		}
	}
	sortItems(items)
	out := make([]Trend, min(k, len(items)))
	for i := range out {
		out[i] = Trend{Key: items[i].Key, Score: float64(items[i].Count)}
	}
	return out
}

// check validates each sketch, that the sum is the ring's sum counter by
// counter (where not saturated) with N the sum of the N's, that a
// saturated sum is marked so, the heap, and that no candidate's count is
// above its estimate now.
func (s *WindowedCountMin) check() error {
	if s.cur != s.ring[s.clock.slot(s.clock.newest)] {
		return fmt.Errorf("windowed-count-min: the newest sketch misplaced")
	}
	if !s.saturated && s.agg.n <= math.MaxUint32 {
		if slices.Contains(s.agg.cells, math.MaxUint32) {
			return fmt.Errorf("windowed-count-min: a counter of the sum saturated, not marked")
		}
		if err := s.agg.check(false); err != nil { // a saturated counter left by a leaving bucket may pass N
			return fmt.Errorf("windowed-count-min: sum: %w", err)
		}
	}
	sum := make([]uint64, len(s.agg.cells))
	var n uint64
	for b, sk := range s.ring {
		if err := sk.check(false); err != nil {
			return fmt.Errorf("windowed-count-min: bucket sketch %d: %w", b, err)
		}
		if sk.s1 != s.agg.s1 || sk.s2 != s.agg.s2 || sk.s3 != s.agg.s3 || len(sk.cells) != len(s.agg.cells) {
			return fmt.Errorf("windowed-count-min: bucket sketch %d hashes or sizes unlike the sum", b)
		}
		n += sk.n
		for j, v := range sk.cells {
			sum[j] += uint64(v)
		}
	}
	if n != s.agg.n {
		return fmt.Errorf("windowed-count-min: buckets hold %d events, the sum %d", n, s.agg.n)
	}
	for j, v := range s.agg.cells {
		if v != math.MaxUint32 && uint64(v) != sum[j] {
			return fmt.Errorf("windowed-count-min: sum counter %d is %d, the buckets' %d", j, v, sum[j])
		}
	}
	if err := s.cands.check(); err != nil {
		return fmt.Errorf("windowed-count-min: candidates: %w", err)
	}
	for i := range s.cands.heap {
		if it := &s.cands.heap[i].Item; it.Count > s.agg.count(it.Key) {
			return fmt.Errorf("windowed-count-min: candidate %d at %d, above its estimate %d", it.Key, it.Count, s.agg.count(it.Key))
		}
	}
	return nil
}

// TrendScore is key's window estimate at now (rotating to now's bucket
// first).
func (s *WindowedCountMin) TrendScore(key uint64, now int64) float64 {
	if now >= s.clock.next {
		s.rotate(s.clock.of(now))
	}
	return float64(s.WindowCount(key))
}

var _ TrendScorer = (*WindowedCountMin)(nil)
