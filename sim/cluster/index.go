// The index of the cluster's keys: a key's number to its place in
// Cluster.keys.

package cluster

import "math/bits"

// keyIndex maps a key to its index in Cluster.keys: an open-addressing
// table of {key, index + 1} slots of 16 bytes, linear probing from
// indexHash(key), doubling when half full, 0 marking an empty slot.
// A lookup reads one slot, a cache line, where a Go map reads a group's
// control word and then its slot: on a cluster of 168,000 keys hit at
// random (the viral posts' fixed-32) the one miss saved is a fifth of an
// op's cost.
type keyIndex struct {
	slots []indexSlot
	mask  uint64
	n     int // keys held
}

type indexSlot struct {
	key uint64
	at  uint32 // the key's index in Cluster.keys + 1; 0: an empty slot
}

const indexMinSlots = 16

// find returns the index of key, and false for a key not held.
func (x *keyIndex) find(key uint64) (int32, bool) {
	if x.n == 0 {
		return 0, false
	}
	for j := indexHash(key) & x.mask; ; j = (j + 1) & x.mask {
		s := &x.slots[j]
		if s.at == 0 {
			return 0, false
		}
		if s.key == key {
			return int32(s.at - 1), true
		}
	}
}

// add holds key, not held yet, at index i.
func (x *keyIndex) add(key uint64, i int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	}
	x.put(key, uint32(i)+1)
	x.n++
}

// put writes {key, at} into the first empty slot of key's probe.
func (x *keyIndex) put(key uint64, at uint32) {
	j := indexHash(key) & x.mask
	for x.slots[j].at != 0 {
		j = (j + 1) & x.mask
	}
	x.slots[j] = indexSlot{key: key, at: at}
}

// grow doubles the table (or makes its first), placing every key again.
func (x *keyIndex) grow() {
	old := x.slots
	x.slots = make([]indexSlot, max(indexMinSlots, 2*len(old)))
	x.mask = uint64(len(x.slots) - 1)
	for _, s := range old {
		if s.at != 0 {
			x.put(s.key, s.at)
		}
	}
}

// indexHash spreads a key over the table: the two halves of its 128-bit
// product with 2^64/φ folded by xor (as wyhash and rapidhash mix), one
// multiply where workload.Mix64 chains two: the keys are mostly hashes
// already (stripe names, HLL keys), and the product's high half carries
// every bit of a small or patterned key into the low bits the mask keeps.
func indexHash(key uint64) uint64 {
	hi, lo := bits.Mul64(key, 0x9e3779b97f4a7c15)
	return hi ^ lo
}
