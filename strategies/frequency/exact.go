package frequency

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Exact counting, optionally sharded by key hash: the "exact sorted set" and
// "sharded exact" designs of a top-K review. Every key's count is kept; at
// full scale that is one sorted-set entry a key, which is what the plan
// models (keys × bytes per entry, against a server's data budget).
//
// Each shard is a CountTable of its own (below: key and count in one slot,
// linear probing, doubling when 3/4 full), so Bytes is measured from
// arrays, not guessed from a Go map. The table is pre-sized from the
// expected number of keys, so Observe allocates nothing unless the stream
// holds more keys than announced. A key lives on the shard chosen by
// the high bits of its hash (its slot comes from the low bits), so each
// shard's local top k holds every key of the global top k that lives there:
// merging the S local lists of k gives the exact global top k from S·k
// candidates.

// ExactParams are the parameters of exact counting.
type ExactParams struct {
	// Shards is S, the tables the keys are split over by hash, 1..1024.
	Shards int `key:"shards" range:"1..1024" default:"1" doc:"tables the keys are split over by a hash of the key; top-K merges S local top-K lists"`
}

const exactMaxShards = 1024

// Exact holds the exact count of every key, over S shard tables. It is a
// PointCounter and a TopK with Err = 0. Not safe for concurrent use.
type Exact struct {
	shards []ds.CountTable // key → count; a key lives on shard reduce(hash, S)
	seed   uint64
	n      uint64
}

// exactShardKeys is the keys one of S shards is sized for when the stream
// holds about keys keys: its share plus four standard deviations of the
// binomial spread of a hash split, so that a shard rarely has to grow.
func exactShardKeys(keys uint64, shards int) uint64 {
	if shards == 1 {
		return keys
	}
	share := float64(keys) / float64(shards)
	return uint64(math.Ceil(share + 4*math.Sqrt(share)))
}

// exactBytes is the memory of an Exact sized for keys keys over S shards.
func exactBytes(keys uint64, shards int) int64 {
	return int64(shards) * int64(ds.TableLen(exactShardKeys(keys, shards))) * ds.ExactSlotBytes
}

// NewExact returns an empty exact counter of p.Shards shards sized for about
// keysHint distinct keys (it grows past that); seed seeds the hash that
// places keys on shards and slots.
func NewExact(p ExactParams, keysHint uint64, seed uint64) (*Exact, error) {
	if err := strategies.ValidateWith("exact", &p); err != nil {
		return nil, err
	}
	st := workload.SplitMix(seed ^ 0x6578616374686173)
	x := &Exact{shards: make([]ds.CountTable, p.Shards), seed: st.Uint64()}
	size := ds.TableLen(exactShardKeys(keysHint, p.Shards))
	for i := range x.shards {
		x.shards[i].Init(size, x.seed)
		prefault(x.shards[i].Slots) // split_topk_nodes.go
	}
	return x, nil
}

// Len returns the number of distinct keys counted.
func (x *Exact) Len() int {
	n := 0
	for i := range x.shards {
		n += x.shards[i].Len()
	}
	return n
}

// Bytes returns the memory of all shard tables.
func (x *Exact) Bytes() int64 {
	var b int64
	for i := range x.shards {
		b += x.shards[i].Bytes()
	}
	return b
}

// shardBytes returns the memory of each shard's table.
func (x *Exact) shardBytes() []int64 {
	bs := make([]int64, len(x.shards))
	for i := range x.shards {
		bs[i] = x.shards[i].Bytes()
	}
	return bs
}

// hash places a key: the high bits of h = workload.Mix64(key ^ seed) choose the
// shard, and the shard's table, hashing with the same seed, takes its slot
// from the low bits of the same h: one hash an event.
func (x *Exact) hash(key uint64) (*ds.CountTable, uint64) {
	h := workload.Mix64(key ^ x.seed)
	return &x.shards[ds.Reduce(h, uint64(len(x.shards)))], h
}

// Observe counts every write event's positive Delta; other events are
// ignored. It is CountTable.Add written out over the batch, with what it
// reads of x and of the shard held in locals (measured faster,
// BenchmarkExactObserve), in runs of exactAhead events: the first pass
// hashes each and prefetches its home slot (ds.Prefetch), so that the
// cache misses overlap, the second counts them. Reading the slots in the
// first pass instead (a load, which holds up retirement until it arrives)
// was tried and measured slower than no first pass; the prefetch halves
// the time an event (BenchmarkExactObserve, 1e6 and 1e7 keys, 1 and 4
// shards: 57–90 → 33–46 ns).
func (x *Exact) Observe(batch []workload.Event) {
	var n uint64
	shards, seed := x.shards, x.seed
	var hs [exactAhead]uint64
	for len(batch) > 0 {
		run := batch[:min(len(batch), exactAhead)]
		batch = batch[len(run):]
		for i := range run { // the home slots' cache misses, side by side
			h := workload.Mix64(run[i].Key ^ seed) // as x.hash: the shard and the slot from one hash
			hs[i] = h
			shards[ds.Reduce(h, uint64(len(shards)))].Prefetch(h)
		}
		for i := range run {
			e := &run[i]
			if e.Op != workload.Write || e.Delta <= 0 {
				continue
			}
			d := uint64(e.Delta)
			n += d
			h := hs[i]
			t := &shards[ds.Reduce(h, uint64(len(shards)))]
			slots, mask := t.Slots, t.Mask
			for j := h & mask; ; j = (j + 1) & mask {
				s := &slots[j]
				if s.Count == 0 {
					t.Insert(s, h, e.Key, d)
					break
				}
				if s.Key == e.Key {
					s.Count += d
					break
				}
			}
		}
	}
	x.n += n
}

// exactAhead is the events whose home slots Observe prefetches before it
// counts them: a shard sized for millions of keys misses the cache on
// nearly every probe.
const exactAhead = 32

// add adds delta (> 0) to key's count. O(1) expected; the table doubles when
// 3/4 full.
func (x *Exact) add(key, delta uint64) {
	if delta == 0 {
		return
	}
	x.n += delta
	sh, h := x.hash(key)
	sh.Add(h, key, delta)
}

// Count returns key's exact count.
func (x *Exact) Count(key uint64) uint64 {
	sh, h := x.hash(key)
	return sh.GetAt(h, key)
}

// Top returns the k heaviest keys with their exact counts, count descending
// then key ascending: the merge of each shard's local top k, S·k candidates.
// O(n log k) for n keys.
func (x *Exact) Top(k int) []strategies.Item {
	if k <= 0 {
		return []strategies.Item{}
	}
	var cands []strategies.Item
	for i := range x.shards {
		cands = append(cands, ds.TopCounts(&x.shards[i], k)...)
	}
	ds.SortItems(cands)
	return cands[:min(k, len(cands))]
}

// check validates every shard: its table's invariants (shape, key count,
// load, every key reachable), that every key lives on its shard, and that
// the counts sum to N.
func (x *Exact) check() error {
	var sum uint64
	for s := range x.shards {
		sh := &x.shards[s]
		if err := sh.Check(); err != nil {
			return fmt.Errorf("exact: shard %d: %w", s, err)
		}
		if sh.Seed != x.seed {
			return fmt.Errorf("exact: shard %d hashes with seed %#x, want %#x", s, sh.Seed, x.seed)
		}
		for key, c := range sh.All() {
			sum += c
			if got, _ := x.hash(key); got != sh {
				return fmt.Errorf("exact: key %d on shard %d, its hash says another", key, s)
			}
		}
	}
	if sum != x.n {
		return fmt.Errorf("exact: counts sum to %d, want N = %d", sum, x.n)
	}
	return nil
}

func init() {
	strategies.Define("exact", "exact count of every key, optionally split over shards by key hash; top-K merges the shards' local top-K exactly",
		func(p *ExactParams, env strategies.Env) (strategies.Strategy, error) {
			x, err := NewExact(*p, env.Keys, env.Seed)
			if err != nil {
				return nil, err
			}
			return x, nil
		},
		exactPlan, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyTopK), strategies.Promises(strategies.PromiseAll))
}

// exactPlan models the exact design at full scale as a sorted set (keys ×
// bytes per entry) against one server's data budget, and gives the shards
// needed, the bytes per shard and the merge's candidates; at the simulated
// scale, the bytes of the hash tables.
func exactPlan(p *ExactParams, env strategies.Env) []strategies.PlanLine {
	s := float64(p.Shards)
	lines := []strategies.PlanLine{
		{Metric: metrics.Undercounts, Value: 0, Unit: "keys", Note: "exact: every key counted"},
		{Metric: metrics.Bytes, Value: float64(exactBytes(env.Keys, p.Shards)), Unit: "B",
			Note: "S tables of 16 B × the power of two ≥ 4/3 of the keys per shard (keys/S + 4√(keys/S))"},
		{Metric: metrics.Shards, Value: s, Unit: "shards", Note: "S, the same at any scale"},
	}
	if env.Top > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.MergeCandidates, Value: s * float64(env.Top), Unit: "keys",
			Note: "S × K local top-K entries; the merge is exact since a key lives on one shard"})
	}
	f := env.Full
	if f.Keys <= 0 || f.EntryBytes <= 0 {
		return lines
	}
	mem := f.Keys * f.EntryBytes
	lines = append(lines,
		strategies.PlanLine{Metric: metrics.BytesFull, Value: mem, Unit: "B", Full: true, Note: "keys × bytes per sorted-set entry"},
		strategies.PlanLine{Metric: metrics.BytesPerShard, Value: mem / s, Unit: "B", Full: true, Note: "keys × entry bytes / S"})
	if f.ServerBytes <= 0 {
		return lines
	}
	frac, fracNote := f.DataFraction, "server memory × data fraction"
	if frac <= 0 {
		frac, fracNote = 1, "server memory (data fraction not given: all of it)"
	}
	budget := f.ServerBytes * frac
	fits := 0.0
	if mem <= budget {
		fits = 1
	}
	return append(lines,
		strategies.PlanLine{Metric: metrics.ServerDataBytes, Value: budget, Unit: "B", Full: true, Note: fracNote},
		strategies.PlanLine{Metric: metrics.FitsOneServer, Value: fits, Unit: "bool", Full: true, Note: "1 if keys × entry bytes ≤ the data budget"},
		strategies.PlanLine{Metric: metrics.ShardsNeeded, Value: strategies.CeilTidy(mem / budget), Unit: "shards", Full: true, Note: "⌈keys × entry bytes / data budget⌉"})
}
