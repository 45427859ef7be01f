package distinct

import (
	"fmt"
	"math"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// Redis's own HyperLogLog, used through the store: the design the cricket
// final's unique viewers get when they are counted where the view counter
// lives. Every viewer id is a PFADD to the day's key; the day's count is a
// PFCOUNT of it; the union of the days is a PFMERGE of one day's key into
// another's, then a PFCOUNT.
//
// Redis's HLL (antirez, "Redis new data structure: the HyperLogLog", 2014;
// hyperloglog.c) is p = 14: 16,384 six-bit registers, 12,288 bytes dense
// plus a 16-byte header, hashed with MurmurHash64A, estimated since Redis 5
// with Ertl's improved estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017). Its standard error is 1.04/√16384 = 0.81%.
// On the simulated cluster the keys are countsim's HLL at the same
// precision (sim's Cluster documents the difference of hash); on a real
// Redis they are Redis's own, so a run with a real store puts both beside
// the truth.
//
// The design holds only its buffer of PFADDs: Bytes is that buffer, and the
// sketch lives on the store (store_bytes in the plan). All the keys of one
// design share a Tag, so that on a Redis Cluster they share a slot and
// PFMERGE may join them. Observe costs one append a write and one Do call a
// batch (or every pfMaxBuffered writes).

// PFHLLParams are the parameters of Redis's HLL through the store: none; Redis's
// precision is fixed at 14.
type PFHLLParams struct{}

// pfPrecision is Redis's HLL precision: HLL_P in hyperloglog.c.
const pfPrecision = 14

// pfStoreBytes is a dense Redis HLL: the 16-byte header and 16,384 six-bit
// registers.
const pfStoreBytes = 16 + (1<<pfPrecision)*6/8

// pfMaxBuffered bounds the buffer of PFADDs sent in one Do.
const pfMaxBuffered = 1 << 14

// PFHLL counts distinct actors with PFADD and PFCOUNT on a Store. It is a
// DistinctUnion: UnionWith is a PFMERGE on the store the two share. Not
// safe for concurrent use.
type PFHLL struct {
	store strategies.Store
	key   uint64 // this part's HLL key
	tag   uint64 // every part's keys share it: one slot
	ops   []strategies.StoreOp
	vals  [1]int64
	last  int64 // the latest At sent: the store's times never go back
}

// NewPFHLL returns Redis's HLL through store, for part part of a run (a day
// of an audience); seed names its keys.
func NewPFHLL(store strategies.Store, seed uint64, part int) (*PFHLL, error) {
	if store == nil {
		return nil, strategies.NeedsCluster("redis-hll")
	}
	tag := workload.Mix64(seed^0x7066686c6c746167) | 1 // "pfhlltag"
	return &PFHLL{store: store, tag: tag, key: workload.Mix64(tag + uint64(part) + 1)}, nil
}

// Observe PFADDs the Actor of every Write event, as HLL.Observe inserts it.
func (h *PFHLL) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write {
			continue
		}
		if len(h.ops) == pfMaxBuffered {
			h.send()
		}
		h.last = max(h.last, e.At)
		h.ops = append(h.ops, strategies.StoreOp{At: h.last, Kind: strategies.PFAdd, Key: h.key, Member: e.Actor, Tag: h.tag})
	}
	h.send()
}

func (h *PFHLL) send() {
	if len(h.ops) > 0 {
		h.store.Do(h.ops, nil)
		h.ops = h.ops[:0]
	}
}

// Distinct is PFCOUNT of the key.
func (h *PFHLL) Distinct() float64 {
	h.send()
	op := [1]strategies.StoreOp{{At: h.last, Kind: strategies.PFCount, Key: h.key, Tag: h.tag}}
	h.store.Do(op[:], h.vals[:])
	return float64(h.vals[0])
}

// UnionWith PFMERGEs other's key into h's: other must be a PFHLL on the same
// store with the same keys' tag (the same design on another part).
func (h *PFHLL) UnionWith(other strategies.Distinct) error {
	o, ok := other.(*PFHLL)
	if !ok || o.store != h.store || o.tag != h.tag {
		return fmt.Errorf("redis-hll: %w: can merge only the same design's keys on one store, not a %T", strategies.ErrMergeParams, other)
	}
	h.send()
	o.send()
	h.last = max(h.last, o.last)
	op := [1]strategies.StoreOp{{At: h.last, Kind: strategies.PFMerge, Key: h.key, Member: o.key, Tag: h.tag}}
	h.store.Do(op[:], nil)
	return nil
}

// Bytes is the buffer of PFADDs: the sketch itself lives on the store.
func (h *PFHLL) Bytes() int64 { return int64(cap(h.ops)) * int64(unsafe.Sizeof(strategies.StoreOp{})) }

var _ strategies.DistinctUnion = (*PFHLL)(nil)

func init() {
	strategies.Define("redis-hll", "Redis's HyperLogLog through the store: PFADD each id, PFCOUNT a day, PFMERGE for the union (p = 14, 0.81%)",
		func(p *PFHLLParams, env strategies.Env) (strategies.Strategy, error) {
			return NewPFHLL(env.Store, env.Seed, env.Part)
		},
		pfPlan, strategies.OnServers, strategies.Answers(strategies.FamilyDistinct))
}

// pfPlan: Redis's fixed precision, the dense key's bytes and the standard
// error.
func pfPlan(_ *PFHLLParams, env strategies.Env) []strategies.PlanLine {
	m := float64(int(1) << pfPrecision)
	lines := []strategies.PlanLine{
		{Metric: metrics.Registers, Value: m, Unit: "registers", Note: "Redis's HLL_P = 14: m = 2^14"},
		{Metric: metrics.StoreBytes, Value: pfStoreBytes, Unit: "B", Note: "a dense Redis HLL: 16 B of header + m·6/8 of registers, on the store"},
		{Metric: metrics.StandardError, Value: strategies.Tidy(104 / math.Sqrt(m)), Unit: "%", Note: "1.04/√m, relative"},
	}
	if env.Keys > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.ErrorCount, Value: strategies.Tidy(1.04 / math.Sqrt(m) * float64(env.Keys)), Unit: "ids", Note: "1.04/√m × distinct ids (env keys)"})
	}
	return lines
}
