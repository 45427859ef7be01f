package distinct

import (
	"fmt"
	"math"
	"slices"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// Redis's own HyperLogLog, used through the store: the design the cricket
// final's unique viewers get when they are counted where the view counter
// lives. Every viewer id is a PFADD to the day's key; the day's count is a
// PFCOUNT of it; the union of the days is found one of three ways (merge):
//
//   - server: a PFMERGE of one day's key into another's, then a PFCOUNT.
//     The day keys carry no hash tag, so on a Redis Cluster they hash to
//     different slots (and mostly to different nodes), and Redis refuses
//     the PFMERGE: "CROSSSLOT Keys in request don't hash to the same
//     slot". It works on one Redis server. The trap.
//   - tagged: the day keys share a hash tag, {tag}, so one slot and one
//     node hold them all, and a multi-key PFCOUNT of the day keys gives the
//     union at once, changing no key: one command, 8 bytes back, at the
//     price of every PFADD of every day landing on that one node.
//   - app: the day keys spread over the nodes as their names hash, and the
//     application GETs each day key's string (Redis's HLL encoding, 12,304
//     bytes dense) and merges the registers itself: a GET and a round
//     trip a day, 12 KB a day moved, and no command Redis could refuse.
//
// Redis's HLL (antirez, "Redis new data structure: the HyperLogLog", 2014;
// hyperloglog.c) is p = 14: 16,384 six-bit registers, 12,288 bytes dense
// plus a 16-byte header, hashed with MurmurHash64A, estimated since Redis 5
// with Ertl's improved estimator ("New cardinality estimation algorithms for
// HyperLogLog sketches", 2017). Its standard error is 1.04/√16384 = 0.81%,
// and a union merged in the application is estimated by the same
// estimator over the same registers as Redis's PFCOUNT of the keys.
// On the simulated cluster the keys are countsim's HLL at the same
// precision (sim's Cluster documents the difference of hash); on a real
// Redis they are Redis's own, so a run with a real store puts both beside
// the truth.
//
// The design holds its buffer of PFADDs and, merging in the application,
// the 16,384 registers of the union (a byte each) and the string last read:
// Bytes is those, and the sketch lives on the store (store_bytes in the
// plan). Observe costs one append a write and one Do call a batch (or
// every pfMaxBuffered writes).

// PFUnion is how redis-hll finds the union of its parts (merge).
type PFUnion uint8

const (
	// PFUnionTagged: day keys with one hash tag, a multi-key PFCOUNT.
	PFUnionTagged PFUnion = iota
	// PFUnionServer: untagged day keys, PFMERGE then PFCOUNT: refused
	// across slots on a Redis Cluster (the trap).
	PFUnionServer
	// PFUnionApp: untagged day keys, each one's registers read by a GET
	// and merged in the application.
	PFUnionApp
)

var pfUnionNames = []string{"tagged", "server", "app"}

// String returns "tagged", "server" or "app".
func (u PFUnion) String() string { return strategies.EnumString(u, "merge", pfUnionNames) }

// Names lists the ways' names.
func (PFUnion) Names() []string { return slices.Clone(pfUnionNames) }

// MarshalText returns the way's name.
func (u PFUnion) MarshalText() ([]byte, error) {
	return strategies.MarshalEnum(u, "merge", pfUnionNames)
}

// UnmarshalText reads a way by name.
func (u *PFUnion) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(u, "merge", pfUnionNames, text)
}

// PFHLLParams are the parameters of Redis's HLL through the store. Redis's
// precision is fixed at 14.
type PFHLLParams struct {
	Merge PFUnion `key:"merge" default:"tagged" doc:"how the union of the days is found: tagged (the day keys share a hash tag, one slot: a multi-key PFCOUNT), server (untagged day keys, PFMERGE: refused with CROSSSLOT on a Redis Cluster, the trap) or app (untagged day keys, each one's registers read by a GET and merged in the application)"`
}

// pfPrecision is Redis's HLL precision: HLL_P in hyperloglog.c.
const pfPrecision = 14

// pfStoreBytes is a dense Redis HLL: the 16-byte header and 16,384 six-bit
// registers.
const pfStoreBytes = 16 + (1<<pfPrecision)*6/8

// pfMaxBuffered bounds the buffer of PFADDs sent in one Do.
const pfMaxBuffered = 1 << 14

// PFHLL counts distinct actors with PFADD and PFCOUNT on a Store. It is a
// DistinctUnion: UnionWith folds another part of the same design in, by
// its merge. Not safe for concurrent use.
type PFHLL struct {
	store strategies.Store
	merge PFUnion
	base  uint64   // the design's keys derive from it: UnionWith takes only the same base
	key   uint64   // this part's HLL key
	tag   uint64   // tagged: every part's keys share it (one slot); else 0
	with  []uint64 // tagged, app: the keys of the parts folded in, the union's other keys
	ops   []strategies.StoreOp
	vals  [1]int64
	last  int64   // the latest At sent: the store's times never go back
	regs  []uint8 // app: the union's registers
	str   []byte  // app: the last string read
}

// NewPFHLL returns Redis's HLL through store, for part part of a run (a day
// of an audience), finding unions by merge; seed names its keys.
func NewPFHLL(store strategies.Store, seed uint64, part int, merge PFUnion) (*PFHLL, error) {
	if store == nil {
		return nil, strategies.NeedsCluster("redis-hll")
	}
	if merge > PFUnionApp {
		return nil, fmt.Errorf("redis-hll: merge %d unknown", merge)
	}
	base := workload.Mix64(seed^0x7066686c6c746167) | 1 // "pfhlltag"
	h := &PFHLL{store: store, merge: merge, base: base, key: workload.Mix64(base + uint64(part) + 1)}
	if merge == PFUnionTagged {
		h.tag = base
	}
	return h, nil
}

// Observe PFADDs the Actor of every Write event, as HLL.Observe inserts it.
// The buffer and the latest time are held in locals over the batch. Each
// op's fields are stored in its slot of the buffer, one by one: an append
// of a StoreOp literal builds it on the stack and copies it 16 bytes at a
// time, loads that its 8-byte stores cannot forward, a stall an op. When
// the batch fits in the buffer's room (every batch once the buffer has
// grown to it), the loop checks neither the capacity nor the bound of a
// send; otherwise (the first batches, and batches beyond pfMaxBuffered)
// the buffer grows as an append of one op at a time grew it, so that its
// capacity, in Bytes, is the same.
func (h *PFHLL) Observe(batch []workload.Event) {
	ops, last, key, tag := h.ops, h.last, h.key, h.tag
	if n := len(ops); len(batch) <= cap(ops)-n && n+len(batch) <= pfMaxBuffered {
		room := ops[n:cap(ops)]
		k := 0
		for i := range batch {
			e := &batch[i]
			if e.Op != workload.Write {
				continue
			}
			last = max(last, e.At)
			o := &room[k]
			o.At, o.Kind, o.Key, o.Delta, o.Member, o.Tag = last, strategies.PFAdd, key, 0, e.Actor, tag
			k++
		}
		h.ops, h.last = ops[:n+k], last
		h.send()
		return
	}
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write {
			continue
		}
		n := len(ops)
		if n == pfMaxBuffered {
			h.ops = ops
			h.send()
			ops, n = h.ops, 0
		}
		if n == cap(ops) {
			ops = append(ops, strategies.StoreOp{})
		}
		ops = ops[:n+1]
		last = max(last, e.At)
		o := &ops[n]
		o.At, o.Kind, o.Key, o.Delta, o.Member, o.Tag = last, strategies.PFAdd, key, 0, e.Actor, tag
	}
	h.ops, h.last = ops, last
	h.send()
}

func (h *PFHLL) send() {
	if len(h.ops) > 0 {
		h.store.Do(h.ops, nil)
		h.ops = h.ops[:0]
	}
}

// Distinct is PFCOUNT of the key; once other parts are folded in, the
// union's estimate: a multi-key PFCOUNT of every part's key (tagged), or
// Ertl's estimate over the registers of every part's key, read by GETs
// and merged here (app). A command the store refused reads 0, and so does
// a GET that failed (the store reports its failure to the run).
func (h *PFHLL) Distinct() float64 {
	h.send()
	if h.merge == PFUnionApp && len(h.with) > 0 {
		return h.appUnion()
	}
	h.ops = append(h.ops[:0], strategies.StoreOp{At: h.last, Kind: strategies.PFCount, Key: h.key, Tag: h.tag})
	for _, k := range h.with {
		h.ops = append(h.ops, strategies.StoreOp{At: h.last, Kind: strategies.KeyArg, Key: k, Tag: h.tag})
	}
	vals := make([]int64, len(h.ops))
	h.store.Do(h.ops, vals)
	h.ops = h.ops[:0]
	return float64(vals[0])
}

// appUnion reads the registers of every part's key and estimates their
// union.
func (h *PFHLL) appUnion() float64 {
	r := h.store.(strategies.ByteReader) // UnionWith took only such a store
	if h.regs == nil {
		h.regs = make([]uint8, 1<<pfPrecision)
	}
	clear(h.regs)
	for _, k := range append([]uint64{h.key}, h.with...) {
		var err error
		if h.str, err = r.GetBytes(h.last, k, 0, h.str[:0]); err != nil {
			return 0
		}
		if len(h.str) == 0 {
			continue // a day nobody watched: no key
		}
		if err := MergeRedisHLL(h.regs, h.str); err != nil {
			return 0
		}
	}
	return math.Round(estimateRegisters(h.regs))
}

// UnionWith folds other, a PFHLL of the same design (store, keys and
// merge) for another part, into h: with server a PFMERGE of other's key
// into h's, which a Redis Cluster refuses across slots (the error wraps
// strategies.ErrCrossSlot and h is unchanged); with tagged and app h
// notes other's keys, read with its own by Distinct. app needs a store
// whose values can be read whole (strategies.ByteReader).
func (h *PFHLL) UnionWith(other strategies.Distinct) error {
	o, ok := other.(*PFHLL)
	if !ok || o.store != h.store || o.base != h.base || o.merge != h.merge {
		return fmt.Errorf("redis-hll: %w: can merge only the same design's keys on one store, not a %T", strategies.ErrMergeParams, other)
	}
	h.send()
	o.send()
	h.last = max(h.last, o.last)
	switch h.merge {
	case PFUnionServer:
		ops := [2]strategies.StoreOp{{At: h.last, Kind: strategies.PFMerge, Key: h.key}, {At: h.last, Kind: strategies.KeyArg, Key: o.key}}
		h.store.Do(ops[:], nil)
		if r, ok := h.store.(strategies.Refuser); ok {
			if err := r.Refused(); err != nil {
				return fmt.Errorf("redis-hll: %w", err)
			}
		}
		return nil
	case PFUnionApp:
		if _, ok := h.store.(strategies.ByteReader); !ok {
			return fmt.Errorf("redis-hll: %w: merge app reads the keys' registers, which a %T cannot give", strategies.ErrMergeParams, h.store)
		}
	}
	for _, k := range append([]uint64{o.key}, o.with...) {
		if k != h.key && !slices.Contains(h.with, k) {
			h.with = append(h.with, k)
		}
	}
	return nil
}

// Bytes is the buffer of PFADDs and, merging in the application, the
// union's registers and the string last read: the sketch itself lives on
// the store.
func (h *PFHLL) Bytes() int64 {
	return int64(cap(h.ops))*int64(unsafe.Sizeof(strategies.StoreOp{})) + int64(cap(h.with))*8 + int64(cap(h.regs)) + int64(cap(h.str))
}

var _ strategies.DistinctUnion = (*PFHLL)(nil)

func init() {
	strategies.Define("redis-hll", "Redis's HyperLogLog through the store: PFADD each id, PFCOUNT a day; the union by a multi-key PFCOUNT of tagged keys, a PFMERGE, or registers merged in the app (p = 14, 0.81%)",
		func(p *PFHLLParams, env strategies.Env) (strategies.Strategy, error) {
			return NewPFHLL(env.Store, env.Seed, env.Part, p.Merge)
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
