package strategies

import "countsim/workload"

// Deletion from a countTable, for the window totals of time-buckets: a
// key whose window total falls to 0 leaves the table, so that the table
// holds the keys of the window and no more.

// sub subtracts delta from the count of key, whose hash is h, and reports
// whether the key was held; a key whose count reaches 0 (delta ≥ its
// count) is deleted. O(1) expected, as add.
func (t *countTable) sub(h, key, delta uint64) bool {
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

// deleteAt empties slot i by backward-shift deletion (Knuth, TAOCP vol. 3,
// §6.4, Algorithm R, for linear probing): each key of the run after i that
// may sit at the hole (its home is not cyclically within (hole, its slot])
// moves back into it, and its slot becomes the hole, until the run ends at
// an empty slot. No tombstones: probes stay as short as if the key had
// never been added. O(the run's length).
func (t *countTable) deleteAt(i uint64) {
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
	t.slots[i] = countSlot{}
	t.n--
}
