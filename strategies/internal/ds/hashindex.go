package ds

import (
	"fmt"

	"countsim/workload"
)

// HashIndex is Space-Saving's index from a monitored key to its counter
// (spacesaving.go): the fixed table's shape (table.go: linear probing over
// a power-of-two array ≥ 2·capacity, backward-shift deletion, 8 B of key
// and a 4 B value a slot) with one change, that a slot holds the key's
// hash h = workload.Mix64(key ^ seed) where the table holds the key.
// Mix64 is a bijection (workload's unmix64 inverts it), so h names the key
// as well as the key does, and a probe compares h; but a slot's home is
// then h & mask, read from the slot, where a backward shift of the table
// hashes every key of the run after the hole again. A value is a counter
// id + 1; 0 marks an empty slot, whose hash is 0.
//
// Why a type of its own. On the full day's stream (search-full-day.yaml,
// 1,000 counters over 400 M phrases) 72.5% of the events evict a counter,
// and each eviction adds a key and deletes one: the deletion's shift was
// the design's largest cost (about a quarter of its time with its Mix64s).
// The other users of Table (Misra-Gries, the count-min heap, decayed
// Space-Saving, the dedup window) keep it as it is.
//
// The fields are exported for the design's hot loop, which probes the
// slots written out (Space-Saving's observe); the methods are the same
// operations for everything else. Cost: as Table, O(1) expected probes at
// load ≤ 1/2, and Delete walks the run after the hole without hashing.
// Not safe for concurrent use; the zero value is unusable (NewHashIndex).
type HashIndex struct {
	Hashes []uint64 // the hash of the key held in each slot; 0 in an empty slot
	IDs    []int32  // counter id + 1 of the key in each slot; 0: empty
	Mask   uint64   // len(Hashes) − 1
	Seed   uint64
	N      int // keys held
	Room   int // the capacity: a new key beyond it panics
}

// NewHashIndex returns an empty index that holds at most capacity keys in
// FixedTableLen(capacity) slots, hashing with seed.
func NewHashIndex(capacity int, seed uint64) HashIndex {
	size := FixedTableLen(capacity)
	return HashIndex{Hashes: make([]uint64, size), IDs: make([]int32, size), Mask: uint64(size - 1), Seed: seed, Room: capacity}
}

// Hash is the hash of key that the index probes from and keeps.
func (t *HashIndex) Hash(key uint64) uint64 { return workload.Mix64(key ^ t.Seed) }

// Len returns the number of keys held.
func (t *HashIndex) Len() int { return t.N }

// Bytes is the memory of the arrays: 12 B a slot, as a Table[int32]'s.
func (t *HashIndex) Bytes() int64 { return int64(len(t.Hashes)) * TableSlotBytes[int32]() }

// Get returns the value (counter id + 1) of key, or 0 if it is not held.
func (t *HashIndex) Get(key uint64) int32 {
	_, v := t.Find(t.Hash(key))
	return v
}

// Find returns the slot of the key whose hash is h and its value: the slot
// that holds it, or if it is not held the empty slot where it would be
// added, with 0.
func (t *HashIndex) Find(h uint64) (uint64, int32) {
	hs, ids, mask := t.Hashes, t.IDs, t.Mask
	for i := h & mask; ; i = (i + 1) & mask {
		v := ids[i]
		if v == 0 || hs[i] == h {
			return i, v
		}
	}
}

// b2u is 1 for true and 0 for false (a SETcc, no branch).
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Insert puts the key of hash h, not held, with the value v (> 0) into the
// empty slot i that Find gave for it; no other call may come between.
func (t *HashIndex) Insert(i, h uint64, v int32) {
	if t.N >= t.Room {
		panic(fmt.Sprintf("strategies: index over its capacity of %d keys", t.Room))
	}
	t.Hashes[i], t.IDs[i] = h, v
	t.N++
}

// Delete removes the key held with the value v, whose hash's low bits are
// home (only home & mask matters: a caller may keep 32 bits of the hash),
// by backward shift (Knuth's Algorithm R, as Table.DelAt), and reports
// whether it was held. The slot is found by its value, which is unique.
func (t *HashIndex) Delete(home uint64, v int32) bool {
	ids, mask := t.IDs, t.Mask
	i := home & mask
	for ; ids[i] != v; i = (i + 1) & mask {
		if ids[i] == 0 {
			return false
		}
	}
	t.shift(i)
	return true
}

// Replace puts the key of hash h, not held, into the empty slot i that
// Find gave for it, with the value v of the key it replaces, and deletes
// that key, whose hash's low bits are home: the index holds as many keys as
// before. The old key is found by its value from its home (the slots from
// there to it were all held before i was taken, so i is not among them),
// and leaves by shift's backward shift, written out here: Space-Saving
// calls Replace for most events of a long-tailed stream.
func (t *HashIndex) Replace(i, h uint64, v int32, home uint64) {
	ids := t.IDs
	mask := uint64(len(ids) - 1) // = t.Mask; so written, no index below needs a bounds check
	hs := t.Hashes[:len(ids)]
	_ = ids[mask]
	i &= mask
	hs[i], ids[i] = h, v
	j := home & mask
	for ids[j] != v {
		j = (j + 1) & mask
	}
	if j == i {
		panic(fmt.Sprintf("strategies: index replaces the value %d, which it does not hold", v))
	}
	// The hole is at j; k walks the run after it (as shift).
	for k := j; ; {
		k = (k + 1) & mask
		w := ids[k]
		if w == 0 {
			break
		}
		g := hs[k]
		to := k
		if (k-g)&mask >= (k-j)&mask {
			to = j
		}
		hs[to], ids[to] = g, w
		if to == j {
			j = k
		}
	}
	hs[j], ids[j] = 0, 0
}

// shift empties slot i, which holds a key, moving back into the hole each
// key after it in its run whose probe path the hole is on (its home is
// read from its hash), until the run ends.
func (t *HashIndex) shift(i uint64) {
	hs, ids, mask := t.Hashes, t.IDs, t.Mask
	for j := i; ; {
		j = (j + 1) & mask
		v := ids[j]
		if v == 0 {
			break
		}
		// As Table.DelAt: the key at j moves to the hole at i when i is
		// no nearer to j than its home is; written without a branch.
		h := hs[j]
		to := j
		if (j-h)&mask >= (j-i)&mask {
			to = i
		}
		hs[to], ids[to] = h, v
		if to == i {
			i = j
		}
	}
	hs[i], ids[i] = 0, 0
	t.N--
}

// Check validates the invariants: the arrays are a power of two ≥ 8 long
// with the mask to match; the capacity is at most half the slots and the
// keys held at most the capacity; n counts the keys held; every hash is
// reachable from its home with no empty slot on the way and appears once,
// and every value once; an empty slot has hash 0.
func (t *HashIndex) Check() error {
	l := len(t.Hashes)
	if l < 8 || l&(l-1) != 0 || len(t.IDs) != l || uint64(l) != t.Mask+1 {
		return fmt.Errorf("index: bad shape: %d hashes, %d values, mask %#x", l, len(t.IDs), t.Mask)
	}
	if 2*t.Room > l {
		return fmt.Errorf("index: room for %d keys in %d slots", t.Room, l)
	}
	n := 0
	vals := make(map[int32]int, t.N)
	for i, v := range t.IDs {
		h := t.Hashes[i]
		if v == 0 {
			if h != 0 {
				return fmt.Errorf("index: empty slot %d has the hash %#x", i, h)
			}
			continue
		}
		if v < 0 {
			return fmt.Errorf("index: slot %d has the value %d", i, v)
		}
		if j, ok := vals[v]; ok {
			return fmt.Errorf("index: value %d at slots %d and %d", v, j, i)
		}
		vals[v] = i
		n++
		for j := h & t.Mask; j != uint64(i); j = (j + 1) & t.Mask {
			switch {
			case t.IDs[j] == 0:
				return fmt.Errorf("index: hash %#x at slot %d unreachable: empty slot %d on its path", h, i, j)
			case t.Hashes[j] == h:
				return fmt.Errorf("index: hash %#x at slots %d and %d", h, j, i)
			}
		}
	}
	if n != t.N || n > t.Room {
		return fmt.Errorf("index: %d keys held, n = %d, room for %d", n, t.N, t.Room)
	}
	return nil
}
