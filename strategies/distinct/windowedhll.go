package distinct

import (
	"fmt"
	"math"
	"time"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The windowed HyperLogLog (seeds/002_aa28a8d9e3b54cd9.txt: "Each shard can
// maintain an HLL per key and window, then merge those HLLs for the global
// estimate"): one HLL a bucket in a ring of W, so the distinct ids of the
// last W buckets are the union of W sketches, their registers' maximum
// (hll.go's Merge), estimated as one HLL's are, with its standard error
// 1.04/√m. A bucket leaving the window is emptied, never subtracted: an
// HLL cannot forget one id, but a whole bucket it can.
//
// What it counts. The ids are the events' keys (the phrases searched in the
// window) or their actors (of: actor: the users, where a stream's actor is
// its user); the window is TrendLaw's: the bucket of now and the W − 1
// before it.

// WindowedHLLParams are the parameters of the windowed HyperLogLog.
type WindowedHLLParams struct {
	Bucket time.Duration `key:"bucket" range:">0" default:"1m" doc:"a bucket's width"`
	Window time.Duration `key:"window" range:"(0,1572864h]" default:"60m" doc:"the window, a whole multiple of the bucket, 1..65536 buckets"`
	P      int           `key:"p" range:"4..18" default:"14" doc:"each bucket's HLL precision p: 2^p registers, a standard error of 1.04/√(2^p)"`
	Of     string        `key:"of" oneof:"key,actor" default:"key" doc:"the ids counted: key (the phrases) or actor (the users, where the stream's actor is its user)"`
}

// Validate checks the window, p and of.
func (p WindowedHLLParams) Validate() error { return ds.ValidateWindow(p.Bucket, p.Window) }

// WindowedHLL is the ring of HLLs. Not safe for concurrent use.
type WindowedHLL struct {
	clock ds.BucketClock
	ring  []*HLL
	p     HLLParams
	seed  uint64
	byKey bool
}

var _ strategies.WindowDistinct = (*WindowedHLL)(nil)

// NewWindowedHLL returns an empty ring, its HLLs hashing with seed.
func NewWindowedHLL(p WindowedHLLParams, seed uint64) (*WindowedHLL, error) {
	if err := strategies.ValidateWith("windowed-hll", &p); err != nil {
		return nil, err
	}
	// Dense sketches: a bucket leaving the window is emptied in place.
	w := &WindowedHLL{clock: ds.NewBucketClock(p.Bucket, p.Window), p: HLLParams{Precision: p.P, Dense: true}, seed: seed, byKey: p.Of == "key"}
	for range w.clock.W {
		h, err := NewHLL(w.p, seed)
		if err != nil {
			return nil, strategies.WithType("windowed-hll", err)
		}
		w.ring = append(w.ring, h)
	}
	return w, nil
}

func init() {
	strategies.Define("windowed-hll", "one HyperLogLog a bucket, merged over the window: the distinct ids of the last W buckets within 1.04/√m (seed 002)",
		func(p *WindowedHLLParams, env strategies.Env) (strategies.Strategy, error) {
			return NewWindowedHLL(*p, env.Seed)
		},
		windowedHLLPlan, strategies.Answers(strategies.FamilyWindowDistinct))
}

func windowedHLLPlan(p *WindowedHLLParams, env strategies.Env) []strategies.PlanLine {
	m := float64(int(1) << p.P)
	w := float64(p.Window / p.Bucket)
	return []strategies.PlanLine{
		{Metric: metrics.WindowBuckets, Value: w, Unit: "buckets", Note: "W = window / bucket: an HLL each"},
		{Metric: metrics.StandardError, Value: 1.04 / math.Sqrt(m), Unit: "share", Note: "1.04/√m of the merged sketch, m = 2^p"},
		{Metric: metrics.Bytes, Value: w * m * 6 / 8, Unit: "B", Note: "W × m six-bit registers, at most (a sparse sketch holds less)"},
	}
}

// rotate moves the ring to bucket b: the buckets that leave the window are
// emptied, their registers cleared in place (nothing is allocated).
func (w *WindowedHLL) rotate(b int64) {
	for n, x := int64(0), w.clock.Newest+1; x <= b && n < w.clock.W; n, x = n+1, x+1 {
		clear(w.ring[w.clock.Slot(x)].dense)
	}
	w.clock.Set(b)
}

// Observe adds each write's id to its bucket's HLL; a write from a bucket
// already out of the window is dropped.
func (w *WindowedHLL) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		b := w.clock.Of(e.At)
		if b > w.clock.Newest {
			w.rotate(b)
		} else if !w.clock.InWindow(b) {
			continue
		}
		id := e.Actor
		if w.byKey {
			id = e.Key
		}
		w.ring[w.clock.Slot(b)].Insert(id)
	}
}

// DistinctNow merges the W sketches of now's window and estimates the
// union. O(W·m).
func (w *WindowedHLL) DistinctNow(now int64) float64 {
	if b := w.clock.Of(now); b > w.clock.Newest {
		w.rotate(b)
	}
	u := emptyHLL(w.p, w.seed) // the ring's parameters, checked when it was built
	for _, h := range w.ring {
		if err := u.Merge(h); err != nil {
			panic(fmt.Sprintf("strategies: windowed-hll: sketches of one ring do not merge: %v", err)) // unreachable: one p, one seed
		}
	}
	return u.Estimate()
}

// Law is the window.
func (w *WindowedHLL) Law() strategies.TrendLaw {
	return strategies.TrendLaw{Window: w.clock.W * w.clock.Width, Bucket: w.clock.Width}
}

// Ids is what the ring counts: "key" or "actor".
func (w *WindowedHLL) Ids() string {
	if w.byKey {
		return "key"
	}
	return "actor"
}

// Bytes is the ring's sketches.
func (w *WindowedHLL) Bytes() int64 {
	var b int64
	for _, h := range w.ring {
		b += h.Bytes()
	}
	return b
}
