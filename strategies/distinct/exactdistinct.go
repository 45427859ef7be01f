package distinct

import (
	"fmt"
	"unsafe"

	"countsim/internal/hugepages"
	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Exact distinct counting: the set of every id seen, the design a
// HyperLogLog is measured against ("an exact set of 40,000,000 ids of 8
// bytes needs at least 320 MB"). The set is an open-addressing hash table
// of uint64 ids — linear probing from workload.Mix64(id ^ seed), doubling when 3/4
// full — with 0 marking an empty slot and a separate flag for the id 0, so
// Bytes is measured from the array rather than guessed from a Go map. It is
// pre-sized from the expected number of ids (Env.Keys), so Observe allocates
// nothing unless the stream holds more ids than announced. It is sized like
// the package's table (table.go) but is not one: a set's slots hold ids and
// nothing else, so only the ids can mark a slot empty, where the table marks
// it with the zero value.

// ExactDistinctParams are the parameters of the exact set: none.
type ExactDistinctParams struct{}

// ExactDistinct is the exact set of the ids observed. Insert and contains
// take O(1) expected probes. Not safe for concurrent use.
type ExactDistinct struct {
	ids     []uint64 // 0 marks an empty slot
	mask    uint64
	n       int  // non-zero ids held
	grow    int  // n at which the table doubles: 3/4 of its length
	hasZero bool // the id 0 was seen
	seed    uint64
}

// exactDistinctSlotBytes is one table slot: an id.
const exactDistinctSlotBytes = 8

// exactPageSlots is the slots in a page of 4 KB.
const exactPageSlots = 4096 / exactDistinctSlotBytes

// exactDistinctBytes is the memory of a set sized for ids ids: the table of
// TableLen(ids) slots of 8 bytes (a power of two ≥ 4/3 of the ids).
func exactDistinctBytes(ids uint64) int64 {
	return int64(ds.TableLen(ids)) * exactDistinctSlotBytes
}

// NewExactDistinct returns an empty set sized for about idsHint ids (it
// grows past that), hashing with seed.
func NewExactDistinct(idsHint, seed uint64) *ExactDistinct {
	st := workload.SplitMix(seed ^ 0x64697374696e6374) // "distinct"
	x := &ExactDistinct{seed: st.Uint64()}
	x.init(ds.TableLen(idsHint))
	return x
}

func (x *ExactDistinct) init(size uint64) {
	x.ids = hugepages.Make[uint64](int(size))
	// The table comes in huge pages where the kernel gives them
	// (hugepages.Make: the cricket final's 512 MB in 256 pages of 2 MiB,
	// not 131,072 of 4 KB), so that its inserts at random miss the TLB far
	// less. Write a word of every page of the table now: the kernel maps a
	// page read before it is written to its shared zero page, and then
	// copies it at the first write, two faults where one does. Inserts fill
	// the table at random, so its every page is soon written anyway, and
	// the memory the set holds is the same.
	for i := 0; i < len(x.ids); i += exactPageSlots {
		x.ids[i] = 0
	}
	x.mask = size - 1
	x.n = 0
	x.grow = int(size / 4 * 3)
}

// Bytes returns the memory of the table: 8 bytes a slot.
func (x *ExactDistinct) Bytes() int64 { return int64(len(x.ids)) * exactDistinctSlotBytes }

// Len returns the number of distinct ids.
func (x *ExactDistinct) Len() int {
	if x.hasZero {
		return x.n + 1
	}
	return x.n
}

// Distinct returns the exact number of distinct ids.
func (x *ExactDistinct) Distinct() float64 { return float64(x.Len()) }

// Observe inserts the Actor of every Write event, whatever its Delta; Read
// events are ignored. The batch is taken exactAhead events at a time:
// first each id's hash is computed and its home slot prefetched
// (ds.Prefetch), then the ids are inserted (insertHashed), so that the
// cache misses of a table larger than the caches (the cricket final's
// 512 MB) overlap, where the core alone, retiring in order, ran ahead of
// a miss by a few ids at most. The ids go in in the same order as one by
// one: the table is the same.
func (x *ExactDistinct) Observe(batch []workload.Event) {
	var hs, vs [exactAhead]uint64
	for len(batch) > 0 {
		c := batch[:min(exactAhead, len(batch))]
		batch = batch[len(c):]
		ids, mask, seed := x.ids, x.mask, x.seed
		k := 0
		for i := range c {
			e := &c[i]
			if e.Op != workload.Write {
				continue
			}
			if e.Actor == 0 {
				x.hasZero = true
				continue
			}
			h := workload.Mix64(e.Actor ^ seed)
			ds.Prefetch(unsafe.Pointer(&ids[h&mask]))
			hs[k], vs[k] = h, e.Actor
			k++
		}
		x.insertHashed(vs[:k], hs[:k])
	}
}

// exactAhead is how many ids Observe hashes and prefetches before it
// inserts them (BenchmarkExactDistinctObserve: 32 beat 16 by a fifth at
// 256 MB).
const exactAhead = 32

// insertHashed inserts the non-zero ids vs, hs[i] being Mix64(vs[i] ^
// seed): Insert's probe, with the table, its mask and the count in locals.
func (x *ExactDistinct) insertHashed(vs, hs []uint64) {
	ids, mask, n := x.ids, x.mask, x.n
	for i, id := range vs {
		for j := hs[i] & mask; ; j = (j + 1) & mask {
			v := ids[j]
			if v == id {
				break
			}
			if v == 0 {
				if n >= x.grow {
					x.n = n
					x.resize()
					x.place(id)
					ids, mask, n = x.ids, x.mask, x.n
					break
				}
				ids[j] = id
				n++
				break
			}
		}
	}
	x.n = n
}

// Insert adds id to the set. O(1) expected; the table doubles when 3/4 full.
func (x *ExactDistinct) Insert(id uint64) {
	if id == 0 {
		x.hasZero = true
		return
	}
	for i := workload.Mix64(id^x.seed) & x.mask; ; i = (i + 1) & x.mask {
		v := x.ids[i]
		if v == id {
			return
		}
		if v == 0 {
			if x.n >= x.grow {
				x.resize()
				x.place(id)
				return
			}
			x.ids[i] = id
			x.n++
			return
		}
	}
}

// contains reports whether id was inserted.
func (x *ExactDistinct) contains(id uint64) bool {
	if id == 0 {
		return x.hasZero
	}
	for i := workload.Mix64(id^x.seed) & x.mask; ; i = (i + 1) & x.mask {
		switch x.ids[i] {
		case id:
			return true
		case 0:
			return false
		}
	}
}

// resize doubles the table, rehashing every id.
func (x *ExactDistinct) resize() {
	old := x.ids
	x.init(2 * uint64(len(old)))
	for _, id := range old {
		if id != 0 {
			x.place(id)
		}
	}
}

// place inserts a non-zero id known to be absent into a table with room.
func (x *ExactDistinct) place(id uint64) {
	for i := workload.Mix64(id^x.seed) & x.mask; ; i = (i + 1) & x.mask {
		if x.ids[i] == 0 {
			x.ids[i] = id
			x.n++
			return
		}
	}
}

// Merge makes x the union of x and other. The sets may have been built with
// different seeds or sizes: ids are rehashed. It never fails; the error is
// there for the signature all merging designs share. O(other's table).
func (x *ExactDistinct) Merge(other *ExactDistinct) error {
	if other == x {
		return nil
	}
	if other.hasZero {
		x.hasZero = true
	}
	var hs, vs [exactAhead]uint64
	k := 0
	for _, id := range other.ids { // Observe's prefetch and probe
		if id == 0 {
			continue
		}
		h := workload.Mix64(id ^ x.seed)
		ds.Prefetch(unsafe.Pointer(&x.ids[h&x.mask]))
		hs[k], vs[k] = h, id
		if k++; k == exactAhead {
			x.insertHashed(vs[:k], hs[:k])
			k = 0
		}
	}
	x.insertHashed(vs[:k], hs[:k])
	return nil
}

// check validates the invariants: the table shape, the count of ids, the
// load, and that every id is reachable from its home slot, once.
func (x *ExactDistinct) check() error {
	l := len(x.ids)
	if l < 8 || l&(l-1) != 0 || uint64(l) != x.mask+1 || x.grow != l/4*3 {
		return fmt.Errorf("exact-distinct: bad table shape %d/%#x/%d", l, x.mask, x.grow)
	}
	n := 0
	for i, id := range x.ids {
		if id == 0 {
			continue
		}
		n++
		for j := workload.Mix64(id^x.seed) & x.mask; j != uint64(i); j = (j + 1) & x.mask {
			switch x.ids[j] {
			case 0:
				return fmt.Errorf("exact-distinct: id %d at slot %d unreachable: empty slot %d on its path", id, i, j)
			case id:
				return fmt.Errorf("exact-distinct: id %d at slots %d and %d", id, j, i)
			}
		}
	}
	if n != x.n || n > x.grow {
		return fmt.Errorf("exact-distinct: %d ids in the table, n = %d, grows at %d", n, x.n, x.grow)
	}
	return nil
}

var _ strategies.Distinct = (*ExactDistinct)(nil)

func init() {
	strategies.Define("exact-distinct", "exact set of the actors seen: distinct count without error, 8 B an id",
		func(_ *ExactDistinctParams, env strategies.Env) (strategies.Strategy, error) {
			return NewExactDistinct(env.Keys, env.Seed), nil
		},
		exactDistinctPlan, strategies.Answers(strategies.FamilyDistinct))
}

// exactDistinctPlan: the table for env.Keys ids at the simulated scale, and
// 8 B an id for Full.Keys ids at full scale.
func exactDistinctPlan(_ *ExactDistinctParams, env strategies.Env) []strategies.PlanLine {
	lines := []strategies.PlanLine{{Metric: metrics.Bytes, Value: float64(exactDistinctBytes(env.Keys)), Unit: "B",
		Note: "8 B × the power of two ≥ 4/3 of the ids (env keys)"}}
	if n := env.Full.Keys; n > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.Bytes, Value: n * exactDistinctSlotBytes, Unit: "B", Full: true,
			Note: "distinct ids × 8 B (at least: a table adds its empty slots)"})
	}
	return lines
}

// UnionWith adds every id of other, which must be an *ExactDistinct, to x
// (DistinctUnion).
func (x *ExactDistinct) UnionWith(other strategies.Distinct) error {
	o, ok := other.(*ExactDistinct)
	if !ok {
		return fmt.Errorf("exact-distinct: %w: cannot merge a %T", strategies.ErrMergeParams, other)
	}
	return x.Merge(o)
}
