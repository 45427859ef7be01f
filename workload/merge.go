package workload

// Events sorted by (At, ID), as a Timed chunk holds them: appending one
// event, merging sorted sequences, and restoring the order after rounding.

import "slices"

// put appends the event (at, key, delta, id, op) with Actor 0 to out. It
// stores the fields one by one into their slot: appending an Event built
// on the stack copies it back in 16-byte moves that wait on its 8-byte
// stores (a store-forwarding stall), a third of a chunk's time without key
// draws.
func put(out []Event, at int64, key uint64, delta int64, id uint64, op Op) []Event {
	if len(out) == cap(out) {
		out = slices.Grow(out, 1)
	}
	out = out[:len(out)+1]
	e := &out[len(out)-1]
	e.At, e.Key, e.Actor, e.Delta, e.ID, e.Op = at, key, 0, delta, id, op
	return out
}

// before reports whether e comes before the event (at, id) in (At, ID)
// order.
func before(e *Event, at int64, id uint64) bool { return e.At < at || e.At == at && e.ID < id }

// flush appends to out the events of others that come before (at, id) and
// returns out and the rest of others.
func flush(out, others []Event, at int64, id uint64) ([]Event, []Event) {
	for len(others) > 0 && before(&others[0], at, id) {
		out = append(out, others[0])
		others = others[1:]
	}
	return out, others
}

func clampTime(x, lo, hi int64) int64 { return min(max(x, lo), hi) }

// timedLess orders events by (At, ID).
func timedLess(a, b *Event) bool { return a.At < b.At || a.At == b.At && a.ID < b.ID }

// timedMerge appends to out the merge of a and b, each sorted by (At, ID).
func timedMerge(out, a, b []Event) []Event {
	for len(a) > 0 && len(b) > 0 {
		if timedLess(&b[0], &a[0]) {
			out = append(out, b[0])
			b = b[1:]
		} else {
			out = append(out, a[0])
			a = a[1:]
		}
	}
	return append(append(out, a...), b...)
}

// timedSort sorts events by (At, ID) by insertion. Chunk's sequences come
// sorted up to a float rounding that could in principle swap two events a
// ns apart, so this is a single comparison per event when nothing is out
// of place, and restores the order whatever happened.
func timedSort(events []Event) {
	for x := 1; x < len(events); x++ {
		if timedLess(&events[x], &events[x-1]) {
			v, y := events[x], x
			for ; y > 0 && timedLess(&v, &events[y-1]); y-- {
				events[y] = events[y-1]
			}
			events[y] = v
		}
	}
}
