package ds

import (
	"fmt"
	"iter"
	"unsafe"

	"countsim/workload"
)

// Table is the package's fixed-capacity open-addressing hash table from
// uint64 keys to non-zero values of type V: linear probing from
// workload.Mix64(key ^ seed) over a power-of-two array of keys with the
// values beside them (keys []uint64, vals []V), and deletion by backward
// shift (Knuth, TAOCP vol. 3, §6.4, Algorithm R), so no tombstones build up
// however many keys come and go. The zero V marks an empty slot, so every
// uint64, 0 included, is an ordinary key, and a value stored must not be
// the zero V: the key indexes store a slot number + 1.
//
// It serves the indexes of the package, whose keys come and go within a
// fixed capacity: table[int32] is the key → slot + 1 index of Misra-Gries
// (misragries.go), decayed Space-Saving (decay_spacesaving.go) and the
// count-min heap (topheap.go), and the ID set of
// the dedup window (dedup.go), which stores 1 for every ID (4 B a slot, as
// before). Space-Saving's index is a HashIndex (hashindex.go), the same
// shape holding the keys' hashes.
//
// Why the keys and the values are two arrays, and the emptiness is in the
// values. A probe reads the value first, so a miss ends at the first zero
// value without reading the key array, which is twice the size of an int32
// value array, and a slot costs 12 B where a {key, value} struct would be
// padded to 16. Marking emptiness in the keys instead (key 0, with the key 0
// itself kept beside the array), which would let exact distinct counting's
// set be a table[struct{}] too, was tried: it made Space-Saving's point
// query 12–17% slower at m = 10,000 (benchstat, p < 0.05 in four
// interleaved runs), most likely because its misses then read the larger
// array, which competes for the cache with the counters.
//
// Tables kept separate, because their shape differs:
//
//   - exact counting (exact.go) and exact decay (decay.go) grow to millions
//     of keys: their slotTable (slottable.go) keeps key and count side by
//     side in one 16 B slot, so that a probe of a table far larger than the
//     cache misses once, not once an array.
//   - exact distinct counting (exactdistinct.go) is a set: its slots hold ids
//     and nothing else (8 B a slot), so its emptiness can only be marked in
//     the ids (0, with a flag for the id 0); a table[struct{}] has no value
//     to mark it with, and one with a byte of value would change its Bytes.
//   - the hot-counter designs' keys and the batched servers' sums keep
//     their keys in dense arrays in order of first sight, behind an int32
//     index of 4 B a slot: per-key state is indexed by the dense number and
//     a flush walks arrival order. That is the package's other table shape,
//     dense[V] (dense.go); a table here would cost 12 B a slot.
//   - the HLL sparse form (hll_sparse.go) packs a 26-bit register index and
//     its 6-bit rank into one uint32 a slot with Fibonacci hashing: 4 B a
//     slot against at least 9 B here, and only at 4 B a slot is the sparse
//     form smaller than the dense array.
//
// Sizes. A table (NewFixedTable) has at least twice its capacity in slots,
// so its load stays ≤ 1/2, and adding a key beyond the capacity is a
// programming error that panics. bytes is 8 B of key and the size of V a
// slot.
//
// Cost. get, getAt, find, refAt and del take O(1) expected probes (at most
// about 1.5 for a key held and 2.5 for one absent at load 1/2, Knuth's
// estimates for linear probing); nothing is allocated after NewFixedTable.
// The per-event operations are plain code over concrete slices, with no
// call through V: get, getAt and find inline, refAt and del are one direct
// call, as in the hand-written tables they replace (check with go build
// -gcflags=-m). getAt, find, refAt and delAt take the key's hash (hash(key))
// for that reason — a wrapper that hashed and called it would be two calls —
// and so that a caller that needs the hash twice computes it once.
//
// The zero table is unusable; build one with NewFixedTable. Not safe for
// concurrent use.
type Table[V comparable] struct {
	keys []uint64 // key held in each slot; 0 in an empty slot
	vals []V      // vals[i] is the value of keys[i]; the zero V: empty
	mask uint64   // len(keys) − 1
	seed uint64
	n    int // keys held
	Room int // the capacity: a new key beyond it panics
}

// TableLen is the slots of a growing open-addressing table sized for keys
// keys (exact counting's CountTable, exact distinct counting's set): a power
// of two at least 4/3 of keys (and more than keys + keys/3), so that it
// holds them at a load ≤ 3/4 without doubling, and at least 8.
func TableLen(keys uint64) uint64 { return max(8, NextPow2(keys+keys/3+1)) }

// FixedTableLen is the slots of a fixed table of the capacity: a power of two
// ≥ 2·capacity, at least 8.
func FixedTableLen(capacity int) int { return int(max(8, NextPow2(2*uint64(capacity)))) }

// TableSlotBytes is the memory of one slot of a table[V]: the key and the value.
func TableSlotBytes[V any]() int64 {
	var v V
	return 8 + int64(unsafe.Sizeof(v))
}

// NewFixedTable returns an empty table that holds at most capacity keys,
// hashing with seed.
func NewFixedTable[V comparable](capacity int, seed uint64) Table[V] {
	size := FixedTableLen(capacity)
	return Table[V]{keys: make([]uint64, size), vals: make([]V, size), mask: uint64(size - 1), seed: seed, Room: capacity}
}

// Hash is the hash of key that the table probes from; refAt and getAt take
// it, so that a caller that needs it for something else too computes it once.
func (t *Table[V]) Hash(key uint64) uint64 { return workload.Mix64(key ^ t.seed) }

// Len returns the number of keys held.
func (t *Table[V]) Len() int { return t.n }

// reset empties the table, keeping its arrays.
func (t *Table[V]) reset() {
	clear(t.keys)
	clear(t.vals)
	t.n = 0
}

// slots returns the length of the arrays.
func (t *Table[V]) slots() int { return len(t.keys) }

// Bytes is the memory of the arrays: 8 B of key and the size of V a slot.
func (t *Table[V]) Bytes() int64 { return int64(len(t.keys)) * TableSlotBytes[V]() }

// Get returns the value of key, or the zero V if key is not held. (It is
// getAt with the hash written out, so that it inlines.)
func (t *Table[V]) Get(key uint64) V {
	var zero V
	for i := workload.Mix64(key^t.seed) & t.mask; ; i = (i + 1) & t.mask {
		v := t.vals[i]
		if v == zero || t.keys[i] == key {
			return v
		}
	}
}

// GetAt is get for a key whose hash is h = t.hash(key).
func (t *Table[V]) GetAt(h, key uint64) V {
	_, v := t.Find(h, key)
	return v
}

// Find returns the slot of key, whose hash is h = t.hash(key), and its
// value: the slot that holds it, or if it is not held the empty slot where
// it would be added, with the zero V.
func (t *Table[V]) Find(h, key uint64) (uint64, V) {
	var zero V
	keys, vals, mask := t.keys, t.vals, t.mask
	for i := h & mask; ; i = (i + 1) & mask {
		v := vals[i]
		if v == zero || keys[i] == key {
			return i, v
		}
	}
}

// Replace puts key with the value v (not the zero V) into the empty slot i
// that find gave for it, and deletes old, whose hash is hOld, in its place:
// the table holds as many keys as before. key must not be held and old must
// be; no other call may come between find and replace.
func (t *Table[V]) Replace(i, key uint64, v V, hOld, old uint64) {
	t.keys[i], t.vals[i] = key, v
	t.n++
	if !t.DelAt(hOld, old) {
		panic(fmt.Sprintf("strategies: table replaces the key %d, which it does not hold", old))
	}
}

// RefAt returns a pointer to the value of key, whose hash is h = t.hash(key),
// adding key if it is not held. A key added has the zero value, which marks
// its slot empty: the caller must store a non-zero value through the pointer
// before any other call on the table (the indexes store a slot + 1). The
// pointer is valid until the next key is
// added or deleted.
func (t *Table[V]) RefAt(h, key uint64) *V {
	var zero V
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		if t.vals[i] == zero {
			if t.n >= t.Room {
				panic(fmt.Sprintf("strategies: table over its capacity of %d keys", t.Room))
			}
			t.keys[i] = key
			t.n++
			return &t.vals[i]
		}
		if t.keys[i] == key {
			return &t.vals[i]
		}
	}
}

// Del removes key and reports whether it was held (Algorithm R): the keys
// after it in its run of occupied slots move back into the hole when it lies
// on their probe path, so that every key stays reachable from its home.
func (t *Table[V]) Del(key uint64) bool { return t.DelAt(t.Hash(key), key) }

// DelAt is del for a key whose hash is h = t.hash(key). Only h & mask
// matters: a caller that keeps the low 32 bits of h may pass those for a
// table of at most 2^32 slots.
func (t *Table[V]) DelAt(h, key uint64) bool {
	var zero V
	keys, vals, mask := t.keys, t.vals, t.mask
	i := h & mask
	for ; ; i = (i + 1) & mask {
		if vals[i] == zero {
			return false
		}
		if keys[i] == key {
			break
		}
	}
	for j := i; ; {
		j = (j + 1) & mask
		v := vals[j]
		if v == zero {
			break
		}
		// The key at j may fill the hole at i if i lies on its probe path
		// from its home h to j, that is if i is no nearer to j than h is.
		// Written without a branch (the compiler makes conditional moves):
		// the key is copied to to, which is i if it moves and j, itself,
		// if it stays.
		k := keys[j]
		to := j
		if h := workload.Mix64(k^t.seed) & mask; (j-h)&mask >= (j-i)&mask {
			to = i
		}
		keys[to], vals[to] = k, v
		if to == i {
			i = j
		}
	}
	keys[i], vals[i] = 0, zero
	t.n--
	return true
}

// all yields every key held with its value, in slot order (an order that
// depends on the seed and the size). The table must not change during the
// loop.
func (t *Table[V]) all() iter.Seq2[uint64, V] {
	return func(yield func(uint64, V) bool) {
		var zero V
		for i, v := range t.vals {
			if v != zero && !yield(t.keys[i], v) {
				return
			}
		}
	}
}

// Check validates the invariants: the arrays are a power of two ≥ 8 long
// with the mask to match; the capacity is at most half the slots and the
// keys held at most the capacity; n counts the keys held; every key is
// reachable from its home with no empty slot on the way, and appears once;
// an empty slot has key 0.
func (t *Table[V]) Check() error {
	l := len(t.keys)
	if l < 8 || l&(l-1) != 0 || len(t.vals) != l || uint64(l) != t.mask+1 {
		return fmt.Errorf("table: bad shape: %d keys, %d values, mask %#x", l, len(t.vals), t.mask)
	}
	if 2*t.Room > l {
		return fmt.Errorf("table: room for %d keys in %d slots", t.Room, l)
	}
	var zero V
	n := 0
	for i, v := range t.vals {
		k := t.keys[i]
		if v == zero {
			if k != 0 {
				return fmt.Errorf("table: empty slot %d has the key %d", i, k)
			}
			continue
		}
		n++
		for j := t.Hash(k) & t.mask; j != uint64(i); j = (j + 1) & t.mask {
			switch {
			case t.vals[j] == zero:
				return fmt.Errorf("table: key %d at slot %d unreachable: empty slot %d on its path", k, i, j)
			case t.keys[j] == k:
				return fmt.Errorf("table: key %d at slots %d and %d", k, j, i)
			}
		}
	}
	if n != t.n || n > t.Room {
		return fmt.Errorf("table: %d keys held, n = %d, room for %d", n, t.n, t.Room)
	}
	return nil
}
