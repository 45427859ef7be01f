package ds

import (
	"fmt"
	"unsafe"

	"countsim/workload"
)

// Dense numbers keys 0, 1, 2… in order of first sight and keeps a value of
// type V for each: an open-addressing index (tab holds a key's number + 1;
// linear probing from workload.Mix64(key ^ seed); load ≤ 1/2; doubling) over dense
// arrays of the keys and their values. Per-key state then lives in plain
// slices indexed by the number, and a walk over the keys goes in the order
// they came. It is the package's second table shape, beside table[V]
// (table.go), whose keys sit in the probe array itself.
//
// It serves the hot-counter designs: as DenseKeys (V empty, 0 B a key), the
// keys a striped or a batched counter keeps state or a cached total for
// (striped.go, batched.go); as dense[int64], each batching app server's sums
// between two flushes (batched.go), which go out in the order their keys
// first came and are forgotten at once (reset).
//
// The caller keeps the hash seed and passes it to every call, as one seed
// serves many tables (the servers of a batching design): a seed in a
// register rather than loaded from each table made the batched design's
// write 15% faster. find and slot take O(1) expected probes; slot
// allocates only to grow; ref is slot and an index, inlined, so a write
// costs one call; reset is one clear of the index. The zero value is an
// empty table; it allocates its 8 slots on the first key. Not safe for
// concurrent use.
type Dense[V any] struct {
	tab  []int32  // number + 1 of the key homed here; 0: empty
	Keys []uint64 // keys[n] is the key numbered n
	Vals []V      // vals[n] is its value
}

// DenseKeys is a dense table of keys alone.
type DenseKeys = Dense[struct{}]

// DenseMin is the slots a table starts with when none are given.
const DenseMin = 8

// NewDense returns an empty table of slots slots, a power of two ≥ 8.
func NewDense[V any](slots int) Dense[V] { return Dense[V]{tab: make([]int32, slots)} }

// Find returns key's number, or -1.
func (h *Dense[V]) Find(key, seed uint64) int32 {
	if h.tab == nil {
		return -1
	}
	mask := uint64(len(h.tab) - 1)
	for i := workload.Mix64(key^seed) & mask; ; i = (i + 1) & mask {
		s := h.tab[i]
		if s == 0 {
			return -1
		}
		if h.Keys[s-1] == key {
			return s - 1
		}
	}
}

// Slot returns key's number, giving it the next one, with the zero V, if
// it has none (added).
func (h *Dense[V]) Slot(key, seed uint64) (n int32, added bool) {
	if h.tab == nil {
		h.tab = make([]int32, DenseMin)
	}
	tab, keys := h.tab, h.Keys
	mask := uint64(len(tab) - 1)
	for i := workload.Mix64(key^seed) & mask; ; i = (i + 1) & mask {
		s := tab[i]
		if s == 0 {
			return h.add(key, seed, i)
		}
		if keys[s-1] == key {
			return s - 1, false
		}
	}
}

// add gives key, absent, the next number, with the zero V: at slot i of
// the index unless the index must grow first.
func (h *Dense[V]) add(key, seed, i uint64) (int32, bool) {
	if 2*(len(h.Keys)+1) > len(h.tab) {
		h.grow(seed)
		return h.Slot(key, seed)
	}
	var zero V
	h.Keys = append(h.Keys, key)
	h.Vals = append(h.Vals, zero)
	h.tab[i] = int32(len(h.Keys))
	return int32(len(h.Keys) - 1), true
}

// Ref returns the value of key, which it adds with the zero V if absent.
// The pointer holds until the next key is added.
func (h *Dense[V]) Ref(key, seed uint64) *V {
	n, _ := h.Slot(key, seed)
	return &h.Vals[n]
}

// grow doubles the index and rehashes every key.
func (h *Dense[V]) grow(seed uint64) {
	h.tab = make([]int32, 2*len(h.tab))
	mask := uint64(len(h.tab) - 1)
	for n, key := range h.Keys {
		i := workload.Mix64(key^seed) & mask
		for h.tab[i] != 0 {
			i = (i + 1) & mask
		}
		h.tab[i] = int32(n + 1)
	}
}

// Reset forgets every key, keeping the arrays for the next ones.
func (h *Dense[V]) Reset() {
	clear(h.tab)
	h.Keys, h.Vals = h.Keys[:0], h.Vals[:0]
}

func (h *Dense[V]) Len() int { return len(h.Keys) }

// Bytes is the memory of the arrays: 4 B an index slot, 8 B a key and the
// size of V a value.
func (h *Dense[V]) Bytes() int64 {
	var v V
	return int64(cap(h.tab))*4 + int64(cap(h.Keys))*8 + int64(cap(h.Vals))*int64(unsafe.Sizeof(v))
}

// Check validates the index: empty or a power of two ≥ 8 at most half
// full, every key has a value, and every key is found at its own number
// (hashing with seed).
func (h *Dense[V]) Check(seed uint64) error {
	if len(h.Keys) != len(h.Vals) {
		return fmt.Errorf("dense keys: %d keys, %d values", len(h.Keys), len(h.Vals))
	}
	if h.tab == nil {
		if len(h.Keys) != 0 {
			return fmt.Errorf("dense keys: %d keys without an index", len(h.Keys))
		}
		return nil
	}
	if len(h.tab) < DenseMin || len(h.tab)&(len(h.tab)-1) != 0 || 2*len(h.Keys) > len(h.tab) {
		return fmt.Errorf("dense keys: %d keys in an index of %d", len(h.Keys), len(h.tab))
	}
	used := 0
	for _, s := range h.tab {
		if s != 0 {
			used++
		}
	}
	if used != len(h.Keys) {
		return fmt.Errorf("dense keys: %d index entries for %d keys", used, len(h.Keys))
	}
	for n, key := range h.Keys {
		if got := h.Find(key, seed); got != int32(n) {
			return fmt.Errorf("dense keys: key %d has number %d, lookup gives %d", key, n, got)
		}
	}
	return nil
}
