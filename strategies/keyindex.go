package strategies

import "fmt"

// keyIndex maps a key to a small non-negative int32 (a heap position) in a
// fixed-capacity open-addressing table: linear probing over a power-of-two
// array of at least twice the capacity, so the load stays ≤ 1/2, and
// deletion by backward shift (Knuth 6.4, Algorithm R), so no tombstones
// build up however many keys come and go. It is the key → slot lookup of
// count-min + heap and of Space-Saving, whose monitored keys change all the
// time: no Go map on the hot path and nothing allocated after construction.
//
// get, put and del take O(1) expected probes. The zero keyIndex is empty
// and unusable; build one with newKeyIndex.
type keyIndex struct {
	keys  []uint64
	vals  []int32 // value+1; 0 marks an empty slot, so key 0 is an ordinary key
	mask  uint64
	seed  uint64
	n     int // keys held
	limit int // the capacity: most keys it may hold
}

// newKeyIndex returns an index for up to capacity keys, hashing with seed.
func newKeyIndex(capacity int, seed uint64) keyIndex {
	size := keyIndexSize(capacity)
	return keyIndex{
		keys:  make([]uint64, size),
		vals:  make([]int32, size),
		mask:  uint64(size - 1),
		seed:  seed,
		limit: capacity,
	}
}

// keyIndexSize is the table length for a capacity: a power of two ≥ 2·capacity, at least 8.
func keyIndexSize(capacity int) int {
	return int(max(8, nextPow2(2*uint64(capacity))))
}

// keyIndexBytes is what an index of the capacity holds: 8 B of key and 4 B of
// value per table slot.
func keyIndexBytes(capacity int) int64 { return int64(keyIndexSize(capacity)) * 12 }

func (x *keyIndex) home(key uint64) uint64 { return mix64(key^x.seed) & x.mask }

// get returns the value of key, and whether it is present.
func (x *keyIndex) get(key uint64) (int32, bool) {
	for i := x.home(key); ; i = (i + 1) & x.mask {
		v := x.vals[i]
		if v == 0 {
			return 0, false
		}
		if x.keys[i] == key {
			return v - 1, true
		}
	}
}

// put sets the value of key, inserting it if absent. Inserting beyond the
// capacity is a programming error and panics.
func (x *keyIndex) put(key uint64, val int32) {
	for i := x.home(key); ; i = (i + 1) & x.mask {
		v := x.vals[i]
		if v == 0 {
			if x.n >= x.limit {
				panic("strategies: keyIndex over capacity")
			}
			x.keys[i] = key
			x.vals[i] = val + 1
			x.n++
			return
		}
		if x.keys[i] == key {
			x.vals[i] = val + 1
			return
		}
	}
}

// del removes key and reports whether it was present. The entries after it
// in its probe run move back so that every key stays reachable from its home.
func (x *keyIndex) del(key uint64) bool {
	i := x.home(key)
	for ; ; i = (i + 1) & x.mask {
		if x.vals[i] == 0 {
			return false
		}
		if x.keys[i] == key {
			break
		}
	}
	for j := i; ; {
		j = (j + 1) & x.mask
		if x.vals[j] == 0 {
			break
		}
		// The entry at j may fill the hole at i if i lies on its probe path
		// from its home h to j, that is if i is no nearer to j than h is.
		if h := x.home(x.keys[j]); (j-h)&x.mask >= (j-i)&x.mask {
			x.keys[i], x.vals[i] = x.keys[j], x.vals[j]
			i = j
		}
	}
	x.vals[i] = 0
	x.n--
	return true
}

// len returns the number of keys held.
func (x *keyIndex) len() int { return x.n }

// bytes is the memory of the table's arrays.
func (x *keyIndex) bytes() int64 { return int64(len(x.keys))*8 + int64(len(x.vals))*4 }

// check validates the invariants: the count of occupied slots is n ≤ limit,
// and every key is found from its home with no empty slot on the way.
func (x *keyIndex) check() error {
	if len(x.keys) != len(x.vals) || uint64(len(x.keys)) != x.mask+1 || len(x.keys)&(len(x.keys)-1) != 0 {
		return fmt.Errorf("keyindex: bad table shape %d/%d/%#x", len(x.keys), len(x.vals), x.mask)
	}
	n := 0
	for i, v := range x.vals {
		if v == 0 {
			continue
		}
		n++
		for j := x.home(x.keys[i]); j != uint64(i); j = (j + 1) & x.mask {
			if x.vals[j] == 0 {
				return fmt.Errorf("keyindex: key %d at slot %d unreachable: empty slot %d on its path", x.keys[i], i, j)
			}
			if x.keys[j] == x.keys[i] {
				return fmt.Errorf("keyindex: key %d at slots %d and %d", x.keys[i], j, i)
			}
		}
	}
	if n != x.n || n > x.limit {
		return fmt.Errorf("keyindex: %d occupied slots, n = %d, limit %d", n, x.n, x.limit)
	}
	return nil
}
