package ds

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
// Two instances: CountTable (uint64 counts) is one shard of exact counting
// (exact.go), a node's counts (split_topk_nodes.go, nodelocal_topk.go), a
// region's (regional.go) and the window totals of time-buckets, which
// delete a key whose total falls to 0 (sub); DecayTable (float64 sums) is
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
	Slots []slot[V]
	Mask  uint64 // len(slots) − 1
	Seed  uint64
	N     int // keys held
	room  int // 3/4 of len(slots): a new key beyond it doubles the table
}

// slot is one slot: a key and its count, 0 in an empty slot.
type slot[V uint64 | float64] struct {
	Key   uint64
	Count V
}

// CountTable holds whole counts; DecayTable forward-decayed sums.
type (
	CountTable = slotTable[uint64]
	DecayTable = slotTable[float64]
	CountSlot  = slot[uint64]
)

// ExactSlotBytes is one slot: a key and a count (or a sum), 16 B.
const ExactSlotBytes = int64(unsafe.Sizeof(CountSlot{}))

// Init empties the table into size slots, a power of two ≥ 8, hashing with
// seed.
func (t *slotTable[V]) Init(size, seed uint64) {
	if size < 8 || size&(size-1) != 0 {
		panic(fmt.Sprintf("strategies: count table of %d slots, not a power of two ≥ 8", size))
	}
	t.Slots = make([]slot[V], size)
	t.Mask = size - 1
	t.Seed = seed
	t.N = 0
	t.room = int(size / 4 * 3)
}

// Len returns the number of keys held.
func (t *slotTable[V]) Len() int { return t.N }

// Reset empties the table, keeping its slots.
func (t *slotTable[V]) Reset() {
	clear(t.Slots)
	t.N = 0
}

// Bytes is the memory of the slots: 16 B each.
func (t *slotTable[V]) Bytes() int64 { return int64(len(t.Slots)) * ExactSlotBytes }

// Find returns the slot of key, whose hash is h = workload.Mix64(key ^
// seed): the slot that holds it, or the empty slot where its probe ends if
// it is not held.
func (t *slotTable[V]) Find(h, key uint64) *slot[V] {
	for i := h & t.Mask; ; i = (i + 1) & t.Mask {
		if s := &t.Slots[i]; s.Count == 0 || s.Key == key {
			return s
		}
	}
}

// Add adds delta (> 0) to the count of key, whose hash is h, adding the key
// if it is not held. (The hot loops write it out: it does not inline.)
func (t *slotTable[V]) Add(h, key uint64, delta V) {
	if s := t.Find(h, key); s.Count != 0 {
		s.Count += delta
	} else {
		t.Insert(s, h, key, delta)
	}
}

// Insert adds key, not held, with the count delta (> 0) into s, the empty
// slot where its probe from its hash h ended; if the table is full it
// doubles first, and the key goes where its probe ends in the new slots.
func (t *slotTable[V]) Insert(s *slot[V], h, key uint64, delta V) {
	if t.N >= t.room {
		t.grow()
		s = t.Find(h, key)
	}
	s.Key, s.Count = key, delta
	t.N++
}

// Prefetch asks for the slot where a probe from the hash h starts (see
// prefetch.go), for a loop that knows its keys a few events ahead. It
// changes nothing.
func (t *slotTable[V]) Prefetch(h uint64) { Prefetch(unsafe.Pointer(&t.Slots[h&t.Mask])) }

// GetAt returns the count of key, whose hash is h, or 0 if it is not held.
func (t *slotTable[V]) GetAt(h, key uint64) V { return t.Find(h, key).Count }

// Sub subtracts delta from the count of key, whose hash is h, and reports
// whether the key was held; a key whose count reaches 0 (delta ≥ its
// count) is deleted. O(1) expected, as add.
func (t *slotTable[V]) Sub(h, key uint64, delta V) bool {
	for i := h & t.Mask; ; i = (i + 1) & t.Mask {
		s := &t.Slots[i]
		switch {
		case s.Count == 0:
			return false
		case s.Key != key:
			continue
		case s.Count > delta:
			s.Count -= delta
		default:
			t.DeleteAt(i)
		}
		return true
	}
}

// DeleteAt empties slot i, which holds a key, by backward shift: each key
// of the run after i that may sit at the hole (its home is not cyclically
// within (hole, its slot]) moves back into it, and its slot becomes the
// hole, until the run ends at an empty slot.
func (t *slotTable[V]) DeleteAt(i uint64) {
	mask := t.Mask
	for j := (i + 1) & mask; ; j = (j + 1) & mask {
		s := t.Slots[j]
		if s.Count == 0 {
			break
		}
		home := workload.Mix64(s.Key^t.Seed) & mask
		if (j-home)&mask >= (j-i)&mask { // the hole is on s's probe path
			t.Slots[i] = s
			i = j
		}
	}
	t.Slots[i] = slot[V]{}
	t.N--
}

// grow doubles the table, rehashing every key: O(slots).
func (t *slotTable[V]) grow() {
	old := t.Slots
	t.Init(2*uint64(len(old)), t.Seed)
	for _, s := range old {
		if s.Count == 0 {
			continue
		}
		i := workload.Mix64(s.Key^t.Seed) & t.Mask
		for t.Slots[i].Count != 0 {
			i = (i + 1) & t.Mask
		}
		t.Slots[i] = s
		t.N++
	}
}

// All yields every key held with its count, in slot order (an order that
// depends on the seed and the size). The table must not change during the
// loop.
func (t *slotTable[V]) All() iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		for _, s := range t.Slots {
			if s.Count != 0 && !yield(s.Key, s.Count) {
				return
			}
		}
	}
}

// Check validates the invariants: the slots are a power of two ≥ 8 with the
// mask to match and room for 3/4 of them; n counts the keys held and is
// within the room; every count is finite and positive; every key is
// reachable from its home with no empty slot on the way, and appears once;
// an empty slot has key 0.
func (t *slotTable[V]) Check() error {
	l := len(t.Slots)
	if l < 8 || l&(l-1) != 0 || uint64(l) != t.Mask+1 || t.room != l/4*3 {
		return fmt.Errorf("count table: bad shape: %d slots, mask %#x, room %d", l, t.Mask, t.room)
	}
	n := 0
	for i, s := range t.Slots {
		if s.Count == 0 {
			if s.Key != 0 {
				return fmt.Errorf("count table: empty slot %d has the key %d", i, s.Key)
			}
			continue
		}
		if c := float64(s.Count); !(c > 0) || math.IsInf(c, 0) {
			return fmt.Errorf("count table: key %d has the count %v", s.Key, s.Count)
		}
		n++
		for j := workload.Mix64(s.Key^t.Seed) & t.Mask; j != uint64(i); j = (j + 1) & t.Mask {
			switch {
			case t.Slots[j].Count == 0:
				return fmt.Errorf("count table: key %d at slot %d unreachable: empty slot %d on its path", s.Key, i, j)
			case t.Slots[j].Key == s.Key:
				return fmt.Errorf("count table: key %d at slots %d and %d", s.Key, j, i)
			}
		}
	}
	if n != t.N || n > t.room {
		return fmt.Errorf("count table: %d keys held, n = %d, room for %d", n, t.N, t.room)
	}
	return nil
}
