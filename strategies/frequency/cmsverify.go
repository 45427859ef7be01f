package frequency

import (
	"slices"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Count-min with verification (seeds/002_aa28a8d9e3b54cd9.txt: "treat a high
// estimate as worth checking, not as a billable fact"; "the merge service
// … fetches exact counts for that candidate set before publishing"): a
// first pass over the stream runs count-min with a heap of the C keys of
// highest estimate (count-min + heap, countmin_topk.go); those C keys are
// the candidates. A second pass over the same stream (or its log) counts
// the candidates exactly. The top K is the K candidates of highest exact
// count, so every count it shows is exact (Err 0).
//
// What it can miss: a key of the true top K whose estimate did not make
// the C candidates. Count-min only overestimates, so every true top-K key
// has an estimate at least its count; it misses one only when C keys
// estimate above it, which takes collisions of εN at the sketch's size:
// with C a few times K it is rare, and the run measures it. The price is
// the second pass: the stream read twice (the runner feeds a TwoPass
// design again), and C exact counters.

// CMSVerifyParams are the parameters of count-min with verification.
type CMSVerifyParams struct {
	Epsilon    float64 `key:"epsilon" range:"(0,1)" doc:"count-min's error bound ε as a share of all counts N, with delta"`
	Delta      float64 `key:"delta" range:"(0,1)" doc:"count-min's failure probability δ per key, with epsilon"`
	Width      int     `key:"width" range:"1..268435456" doc:"count-min's counters per row w, with depth instead of epsilon and delta"`
	Depth      int     `key:"depth" range:"1..32" doc:"count-min's rows d, with width"`
	Candidates int     `key:"candidates" range:"1..100000" defaultdoc:"4 × the top-K question's K" doc:"C: keys of highest estimate counted exactly in the second pass"`
}

// sketch is the count-min part's parameters.
func (p CMSVerifyParams) sketch() CountMinParams {
	return CountMinParams{Epsilon: p.Epsilon, Delta: p.Delta, Width: p.Width, Depth: p.Depth}
}

// Validate checks the sketch's shape: epsilon and delta, or width and depth.
func (p CMSVerifyParams) Validate() error { return p.sketch().Validate() }

// candidates resolves C from the top-K question.
func (p CMSVerifyParams) candidates(env strategies.Env) (int, error) {
	if p.Candidates > 0 {
		return p.Candidates, nil
	}
	if env.Top < 1 {
		return 0, &strategies.ParamError{Key: "candidates", Msg: "required: the scenario asks no top-K question (allowed: 1..100000)"}
	}
	return min(4*env.Top, 100_000), nil
}

// CMSVerify is count-min with a verified candidate set: a TopK whose counts
// are exact, and a TwoPass design. Not safe for concurrent use.
type CMSVerify struct {
	first  *CountMinTopK
	second bool     // in the second pass
	exact  []uint64 // by the heap's slot: the candidate's exact count
}

var (
	_ strategies.TopK    = (*CMSVerify)(nil)
	_ strategies.TwoPass = (*CMSVerify)(nil)
)

// NewCMSVerify returns the design with c candidates, hashing with seed.
func NewCMSVerify(p CMSVerifyParams, c int, seed uint64) (*CMSVerify, error) {
	if err := strategies.ValidateWith("cms-verify", &p); err != nil {
		return nil, err
	}
	if c < 1 {
		return nil, strategies.WithType("cms-verify", strategies.ParamErrorf("candidates", "%d: at least 1", c))
	}
	cp := p.sketch()
	cp.Top = c
	first, err := NewCountMinTopK(cp, seed)
	if err != nil {
		return nil, err
	}
	return &CMSVerify{first: first, exact: make([]uint64, c)}, nil
}

func init() {
	strategies.Define("cms-verify", "count-min + heap picks C candidates in a first pass; a second pass counts them exactly: a top K whose counts are exact (seed 002)",
		func(p *CMSVerifyParams, env strategies.Env) (strategies.Strategy, error) {
			c, err := p.candidates(env)
			if err != nil {
				return nil, strategies.WithType("cms-verify", err)
			}
			return NewCMSVerify(*p, c, env.Seed)
		},
		cmsVerifyPlan, strategies.Answers(strategies.FamilyTopK),
		strategies.CheckedBy(func(p *CMSVerifyParams, env strategies.Env) error { _, err := p.candidates(env); return err }))
}

// cmsVerifyPlan: the sketch's plan, the candidates and the second pass.
func cmsVerifyPlan(p *CMSVerifyParams, env strategies.Env) []strategies.PlanLine {
	c, err := p.candidates(env)
	if err != nil {
		return nil
	}
	var lines []strategies.PlanLine
	cp := p.sketch()
	for _, l := range countMinPlan(&cp, env) {
		if l.Metric != metrics.Undercounts { // it counts no key outside its answer
			lines = append(lines, l)
		}
	}
	return append(lines,
		strategies.PlanLine{Metric: metrics.Candidates, Value: float64(c), Unit: "keys", Note: "C: counted exactly in the second pass"},
		strategies.PlanLine{Metric: metrics.HeapBytes, Value: float64(ds.TopHeapBytes(c) + int64(c)*8), Unit: "B", Note: "the candidates' heap, index and exact counts"},
		strategies.PlanLine{Metric: metrics.Passes, Value: 2, Unit: "passes", Note: "the stream read twice: estimate, then verify"})
}

// SecondPass freezes the candidates: Observe now counts them exactly.
func (v *CMSVerify) SecondPass() { v.second = true }

// Observe runs count-min + heap in the first pass; in the second it adds
// each candidate's writes to its exact count.
func (v *CMSVerify) Observe(batch []workload.Event) {
	if !v.second {
		v.first.Observe(batch)
		return
	}
	h := &v.first.heap
	s1 := v.first.sketch.rows.S1
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		if pos, ok := h.FindAt(workload.Mix64(e.Key^s1), e.Key); ok {
			v.exact[h.Heap[pos].Slot] += uint64(e.Delta)
		}
	}
}

// Top returns the k candidates of highest exact count, after the second
// pass (before it, the first pass's estimates, as count-min + heap).
func (v *CMSVerify) Top(k int) []strategies.Item {
	if !v.second {
		return v.first.Top(k)
	}
	if k <= 0 {
		return nil
	}
	h := &v.first.heap
	items := make([]strategies.Item, 0, h.Len())
	for i := range h.Len() {
		e := h.Heap[i]
		items = append(items, strategies.Item{Key: e.Key, Count: v.exact[e.Slot]})
	}
	ds.SortItems(items)
	return slices.Clip(items[:min(k, len(items))])
}

// Bytes is the sketch, the heap and the exact counts.
func (v *CMSVerify) Bytes() int64 {
	return v.first.Bytes() + int64(len(v.exact))*int64(unsafe.Sizeof(uint64(0)))
}

// Parts: the sketch, and the candidates (heap, index, exact counts).
func (v *CMSVerify) Parts() []strategies.Part {
	return []strategies.Part{{Metric: metrics.Bytes, Bytes: v.first.sketch.Bytes()},
		{Metric: metrics.HeapBytes, Bytes: v.first.heap.Bytes() + int64(len(v.exact))*8}}
}
