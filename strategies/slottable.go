package strategies

import (
	"fmt"
	"iter"
	"math"
	"unsafe"

	"countsim/workload"
)

// slotTable is the package's growing table of counts: key → count > 0,
// open addressing with linear probing from h = workload.Mix64(key ^ seed)
// over a power-of-two array of {key, count} slots, doubling before a new key
// would make more than 3/4 of its slots' worth of keys. A count of 0 marks
// an empty slot, so every uint64, 0 included, is an ordinary key. A key
// leaves by backward-shift deletion (Knuth, TAOCP vol. 3, §6.4, Algorithm
// R, for linear probing): no tombstones, so probes stay as short as if it
// had never been added.
//
// Two instances: countTable (uint64 counts) is one shard of exact counting
// (exact.go), a node's counts (split_topk_nodes.go, nodelocal_topk.go), a
// region's (regional.go) and the window totals of time-buckets, which
// delete a key whose total falls to 0 (sub); decayTable (float64 sums) is
// the forward-decayed sums of exact decay (decay.go), which drops the keys
// whose sum underflows at a landmark move (rescaleDecay). Each instance is
// compiled for its own count type (Go stencils uint64 and float64
// apart), and the hot loops (Exact.Observe, DecayExact.Observe, observe)
// probe the slots written out.
//
// Why not the package's table (table.go). That table keeps its keys and its
// values in two arrays, which suits the small int32 indexes it serves; a
// shard of exact counting is large (tens of MB at a million keys), so a
// probe there costs a cache miss an array touched: two with the arrays
// apart, one with key and count in one 16 B slot. Measured on the search
// stream (BenchmarkExactObserve, one shard, 1e6 and 1e7 keys), the time an
// event went from 1.8× the floor's, a table of such slots, to 1.0–1.1×.
//
// Cost: add and getAt take O(1) expected probes (about 2.5 for a key held
// and 8.5 for one absent at load 3/4, Knuth's estimates for linear
// probing); growth is O(slots), amortised O(1) a key, and is the only
// allocation; deletion is O(the run's length). bytes is 16 B a slot.
type slotTable[V uint64 | float64] struct {
	slots []slot[V]
	mask  uint64 // len(slots) − 1
	seed  uint64
	n     int // keys held
	room  int // 3/4 of len(slots): a new key beyond it doubles the table
}

// slot is one slot: a key and its count, 0 in an empty slot.
type slot[V uint64 | float64] struct {
	key   uint64
	count V
}

// countTable holds whole counts; decayTable forward-decayed sums.
type (
	countTable = slotTable[uint64]
	decayTable = slotTable[float64]
	countSlot  = slot[uint64]
)

// exactSlotBytes is one slot: a key and a count (or a sum), 16 B.
const exactSlotBytes = int64(unsafe.Sizeof(countSlot{}))

// init empties the table into size slots, a power of two ≥ 8, hashing with
// seed.
func (t *slotTable[V]) init(size, seed uint64) {
	if size < 8 || size&(size-1) != 0 {
		panic(fmt.Sprintf("strategies: count table of %d slots, not a power of two ≥ 8", size))
	}
	t.slots = make([]slot[V], size)
	t.mask = size - 1
	t.seed = seed
	t.n = 0
	t.room = int(size / 4 * 3)
}

// len returns the number of keys held.
func (t *slotTable[V]) len() int { return t.n }

// reset empties the table, keeping its slots.
func (t *slotTable[V]) reset() {
	clear(t.slots)
	t.n = 0
}

// bytes is the memory of the slots: 16 B each.
func (t *slotTable[V]) bytes() int64 { return int64(len(t.slots)) * exactSlotBytes }

// find returns the slot of key, whose hash is h = workload.Mix64(key ^
// seed): the slot that holds it, or the empty slot where its probe ends if
// it is not held.
func (t *slotTable[V]) find(h, key uint64) *slot[V] {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		if s := &t.slots[i]; s.count == 0 || s.key == key {
			return s
		}
	}
}

// add adds delta (> 0) to the count of key, whose hash is h, adding the key
// if it is not held. (The hot loops write it out: it does not inline.)
func (t *slotTable[V]) add(h, key uint64, delta V) {
	if s := t.find(h, key); s.count != 0 {
		s.count += delta
	} else {
		t.insert(s, h, key, delta)
	}
}

// insert adds key, not held, with the count delta (> 0) into s, the empty
// slot where its probe from its hash h ended; if the table is full it
// doubles first, and the key goes where its probe ends in the new slots.
func (t *slotTable[V]) insert(s *slot[V], h, key uint64, delta V) {
	if t.n >= t.room {
		t.grow()
		s = t.find(h, key)
	}
	s.key, s.count = key, delta
	t.n++
}

// observe counts every write event's positive Delta of the batch into the
// table, when it is the only shard, and returns their sum: add over the
// batch with the slots and the mask held in registers.
func (t *slotTable[V]) observe(batch []workload.Event) uint64 {
	var n uint64
	slots, mask, seed := t.slots, t.mask, t.seed
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		d := uint64(e.Delta)
		n += d
		h := workload.Mix64(e.Key ^ seed)
		for j := h & mask; ; j = (j + 1) & mask {
			s := &slots[j]
			if s.count == 0 {
				t.insert(s, h, e.Key, V(d))
				slots, mask = t.slots, t.mask // insert may have doubled the table
				break
			}
			if s.key == e.Key {
				s.count += V(d)
				break
			}
		}
	}
	return n
}

// getAt returns the count of key, whose hash is h, or 0 if it is not held.
func (t *slotTable[V]) getAt(h, key uint64) V { return t.find(h, key).count }

// sub subtracts delta from the count of key, whose hash is h, and reports
// whether the key was held; a key whose count reaches 0 (delta ≥ its
// count) is deleted. O(1) expected, as add.
func (t *slotTable[V]) sub(h, key uint64, delta V) bool {
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		switch {
		case s.count == 0:
			return false
		case s.key != key:
			continue
		case s.count > delta:
			s.count -= delta
		default:
			t.deleteAt(i)
		}
		return true
	}
}

// deleteAt empties slot i, which holds a key, by backward shift: each key
// of the run after i that may sit at the hole (its home is not cyclically
// within (hole, its slot]) moves back into it, and its slot becomes the
// hole, until the run ends at an empty slot.
func (t *slotTable[V]) deleteAt(i uint64) {
	mask := t.mask
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.slots[j]
		if s.count == 0 {
			break
		}
		home := workload.Mix64(s.key^t.seed) & mask
		if (j-home)&mask >= (j-i)&mask { // the hole is on s's probe path
			t.slots[i] = s
			i = j
		}
	}
	t.slots[i] = slot[V]{}
	t.n--
}

// grow doubles the table, rehashing every key: O(slots).
func (t *slotTable[V]) grow() {
	old := t.slots
	t.init(2*uint64(len(old)), t.seed)
	for _, s := range old {
		if s.count == 0 {
			continue
		}
		i := workload.Mix64(s.key^t.seed) & t.mask
		for t.slots[i].count != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
		t.n++
	}
}

// all yields every key held with its count, in slot order (an order that
// depends on the seed and the size). The table must not change during the
// loop.
func (t *slotTable[V]) all() iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		for _, s := range t.slots {
			if s.count != 0 && !yield(s.key, s.count) {
				return
			}
		}
	}
}

// check validates the invariants: the slots are a power of two ≥ 8 with the
// mask to match and room for 3/4 of them; n counts the keys held and is
// within the room; every count is finite and positive; every key is
// reachable from its home with no empty slot on the way, and appears once;
// an empty slot has key 0.
func (t *slotTable[V]) check() error {
	l := len(t.slots)
	if l < 8 || l&(l-1) != 0 || uint64(l) != t.mask+1 || t.room != l/4*3 {
		return fmt.Errorf("count table: bad shape: %d slots, mask %#x, room %d", l, t.mask, t.room)
	}
	n := 0
	for i, s := range t.slots {
		if s.count == 0 {
			if s.key != 0 {
				return fmt.Errorf("count table: empty slot %d has the key %d", i, s.key)
			}
			continue
		}
		if c := float64(s.count); !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("count table: key %d has the count %v", s.key, s.count)
		}
		n++
		for j := workload.Mix64(s.key^t.seed) & t.mask; j != uint64(i); j = (j + 1) & t.mask {
			switch {
			case t.slots[j].count == 0:
				return fmt.Errorf("count table: key %d at slot %d unreachable: empty slot %d on its path", s.key, i, j)
			case t.slots[j].key == s.key:
				return fmt.Errorf("count table: key %d at slots %d and %d", s.key, j, i)
			}
		}
	}
	if n != t.n || n > t.room {
		return fmt.Errorf("count table: %d keys held, n = %d, room for %d", n, t.n, t.room)
	}
	return nil
}
