package distinct

import (
	"fmt"
	"math/bits"
)

// The sparse form of an HLL: the non-zero registers as (index, rank) pairs
// in an open-addressing hash table of uint32 slots, one pair a slot packed
// as index<<6 | rank (rank ≥ 1, so 0 marks an empty slot), linear probing
// from the slot (index × 0x9E3779B1) >> shift (Fibonacci hashing, so that
// indexes that crowd together still spread). Registers only grow and are
// never removed, so no deletion is needed.
//
// The table starts at 8 slots and doubles when an insertion would fill it
// beyond 3/4. Its largest length is m/8 slots, 4·m/8 = m/2 bytes, under the
// m·6/8 bytes of the dense registers packed (and the m bytes they take
// while inserting, see HLL); the next doubling would make it larger than
// the packed form, so instead the sketch turns dense. The sparse form thus holds at most
// 3m/32 non-zero registers (1,536 at p = 14) and exists for p ≥ 6 (at p < 6
// the dense array is no larger than the smallest table). Because it holds
// the exact registers, the estimate computed from it is, bit for bit, the
// one the dense array would give: there is no jump at the switch.

const (
	hllSparseMinSlots = 8
	hllSparseMinP     = 6
	hllFib            = 0x9E3779B1 // ⌊2^32/φ⌋
)

// hllSparseAllowed reports whether precision p has a sparse form.
func hllSparseAllowed(p uint8) bool { return p >= hllSparseMinP }

// hllSparseMaxSlots is the largest sparse table at precision p: m/8 slots.
func hllSparseMaxSlots(p uint8) int { return 1 << (p - 3) }

// hllSparseMaxEntries is the most non-zero registers the sparse form holds
// at precision p: 3/4 of its largest table.
func hllSparseMaxEntries(p uint8) int { return hllSparseMaxSlots(p) / 4 * 3 }

// hllSparseSlotsFor is the table length that holds n pairs: the least power
// of two ≥ 8 of which n is at most 3/4, the length the doublings reach.
func hllSparseSlotsFor(n int) int {
	l := hllSparseMinSlots
	for n > l/4*3 {
		l *= 2
	}
	return l
}

type hllSparse struct {
	slots []uint32 // index<<6 | rank; 0 is empty
	shift uint8    // 32 − log2(len(slots))
	n     int      // pairs held
}

func (sp *hllSparse) init(size int) {
	sp.slots = make([]uint32, size)
	sp.shift = uint8(32 - bits.TrailingZeros(uint(size)))
	sp.n = 0
}

func (sp *hllSparse) home(idx uint32) uint32 { return idx * hllFib >> sp.shift }

func (sp *hllSparse) bytes() int64 { return 4 * int64(len(sp.slots)) }

func (sp *hllSparse) clone() hllSparse {
	c := *sp
	if sp.slots != nil {
		c.slots = append([]uint32(nil), sp.slots...)
	}
	return c
}

// get returns register idx: its rank, or 0 if absent.
func (sp *hllSparse) get(idx uint32) uint8 {
	mask := uint32(len(sp.slots) - 1)
	for i := sp.home(idx); ; i = (i + 1) & mask {
		e := sp.slots[i]
		if e == 0 {
			return 0
		}
		if e>>6 == idx {
			return uint8(e & 63)
		}
	}
}

// sparseSetMax raises register idx to r if it is lower; a new pair that
// would fill the table beyond 3/4 doubles it, or turns the sketch dense when
// the table is at its largest.
func (s *HLL) sparseSetMax(idx uint32, r uint8) {
	sp := &s.sp
	mask := uint32(len(sp.slots) - 1)
	for i := sp.home(idx); ; i = (i + 1) & mask {
		e := sp.slots[i]
		if e == 0 {
			if sp.n >= len(sp.slots)/4*3 {
				if len(sp.slots) >= hllSparseMaxSlots(s.p) {
					s.toDense()
					s.dense[idx] = r // absent from the table: 0 until now
					return
				}
				sp.grow()
				sp.place(idx<<6 | uint32(r))
				return
			}
			sp.slots[i] = idx<<6 | uint32(r)
			sp.n++
			return
		}
		if e>>6 == idx {
			if uint8(e&63) < r {
				sp.slots[i] = idx<<6 | uint32(r)
			}
			return
		}
	}
}

// grow doubles the table.
func (sp *hllSparse) grow() {
	old := sp.slots
	sp.init(2 * len(old))
	for _, e := range old {
		if e != 0 {
			sp.place(e)
		}
	}
}

// place inserts a pair whose index is absent into a table with room.
func (sp *hllSparse) place(e uint32) {
	mask := uint32(len(sp.slots) - 1)
	for i := sp.home(e >> 6); ; i = (i + 1) & mask {
		if sp.slots[i] == 0 {
			sp.slots[i] = e
			sp.n++
			return
		}
	}
}

// toDense writes the pairs into a fresh dense array and drops the table.
func (s *HLL) toDense() {
	d := make([]uint8, 1<<s.p)
	for _, e := range s.sp.slots {
		if e != 0 {
			d[e>>6] = uint8(e & 63)
		}
	}
	s.dense, s.sp = d, hllSparse{}
}

// histogram adds the pairs' ranks to c, and the m − n absent registers to c[0].
func (sp *hllSparse) histogram(c *[64]int, m int) {
	c[0] += m - sp.n
	for _, e := range sp.slots {
		if e != 0 {
			c[e&63]++
		}
	}
}

// check validates the table at precision p: the form is allowed; the length
// is the power of two that n pairs reach (8, or more than 3/4 of half of it,
// and at most m/8); the shift matches; every pair has an index < m and a rank
// in 1..q+1, appears once and is reachable from its home slot; n is the
// count of pairs.
func (sp *hllSparse) check(p uint8) error {
	if !hllSparseAllowed(p) {
		return fmt.Errorf("hll: sparse form at p = %d < %d", p, hllSparseMinP)
	}
	l := len(sp.slots)
	if l < hllSparseMinSlots || l&(l-1) != 0 || l > hllSparseMaxSlots(p) || int(sp.shift) != 32-bits.TrailingZeros(uint(l)) {
		return fmt.Errorf("hll: sparse table of %d slots, shift %d, at p = %d", l, sp.shift, p)
	}
	if sp.n > l/4*3 || hllSparseSlotsFor(sp.n) != l {
		return fmt.Errorf("hll: %d sparse pairs in %d slots, want %d slots", sp.n, l, hllSparseSlotsFor(sp.n))
	}
	mask := uint32(l - 1)
	top := uint32(64 - p + 1)
	n := 0
	for i, e := range sp.slots {
		if e == 0 {
			continue
		}
		n++
		idx, r := e>>6, e&63
		if idx >= 1<<p || r < 1 || r > top {
			return fmt.Errorf("hll: sparse slot %d holds index %d rank %d (p = %d)", i, idx, r, p)
		}
		for j := sp.home(idx); j != uint32(i); j = (j + 1) & mask {
			if sp.slots[j] == 0 {
				return fmt.Errorf("hll: index %d at slot %d unreachable: empty slot %d on its path", idx, i, j)
			}
			if sp.slots[j]>>6 == idx {
				return fmt.Errorf("hll: index %d at slots %d and %d", idx, j, i)
			}
		}
	}
	if n != sp.n {
		return fmt.Errorf("hll: %d sparse pairs, n = %d", n, sp.n)
	}
	return nil
}
