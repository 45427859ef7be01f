package hot

import (
	"fmt"
	"unsafe"

	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Exactly-once counting by event ID over a window of simulated time, the
// likes seed's step 3: "give every event an ID and remember recent IDs in a
// set, so a replay is dropped". Every hot-counter design takes it as the
// `dedup` parameter.
//
// A write is dropped when its ID was first seen less than the window before
// it: a resend delayed by d < window is dropped, one delayed by d ≥ window is
// counted again. The IDs seen are an open-addressing set (a fixed
// table[int32], table.go, holding 1 for each ID, since the table marks an
// empty slot by the zero value: linear probing, deletion by backward shift,
// so expiry leaves no tombstones) and a FIFO ring of (first-seen time, ID),
// oldest first; before each write, the IDs at the head of the ring that are
// window old or older leave both. Set and ring have the same capacity and
// double together when full, so memory follows the IDs seen in one window
// (rate × window), not the stream: 16 B of ring and at least 24 B of table
// an ID. seen costs O(1) amortised and allocates only when the window holds
// more IDs than ever before.

// dedupInitialIDs is the capacity a dedup window starts with.
const dedupInitialIDs = 1024

type dedupWindow struct {
	window  int64           // ns, > 0
	set     ds.Table[int32] // the IDs in the ring, each → 1; capacity len(ring)
	ring    []dedupEntry    // power-of-two ring, oldest at head
	head, n int
	seed    uint64
	dropped int64 // writes dropped as resends
}

type dedupEntry struct {
	at int64
	id uint64
}

// newDedupWindow returns an empty window of the given length (ns, > 0).
func newDedupWindow(window int64, seed uint64) *dedupWindow {
	st := workload.SplitMix(seed ^ 0x6465647570696473) // "dedupids"
	d := &dedupWindow{window: window, seed: st.Uint64()}
	d.set = ds.NewFixedTable[int32](dedupInitialIDs, d.seed)
	d.ring = make([]dedupEntry, dedupInitialIDs)
	return d
}

// seen reports whether id was seen less than the window before at, and
// remembers it if not. Times never decrease from call to call.
func (d *dedupWindow) seen(id uint64, at int64) bool {
	mask := len(d.ring) - 1
	for d.n > 0 && d.ring[d.head].at <= at-d.window {
		d.set.Del(d.ring[d.head].id)
		d.head = (d.head + 1) & mask
		d.n--
	}
	if d.set.Get(id) != 0 {
		d.dropped++
		return true
	}
	if d.n == len(d.ring) {
		d.grow()
		mask = len(d.ring) - 1
	}
	*d.set.RefAt(d.set.Hash(id), id) = 1
	d.ring[(d.head+d.n)&mask] = dedupEntry{at: at, id: id}
	d.n++
	return false
}

// grow doubles the ring and the set.
func (d *dedupWindow) grow() {
	ring := make([]dedupEntry, 2*len(d.ring))
	set := ds.NewFixedTable[int32](len(ring), d.seed)
	for i := range d.n {
		e := d.ring[(d.head+i)&(len(d.ring)-1)]
		ring[i] = e
		*set.RefAt(set.Hash(e.id), e.id) = 1
	}
	d.ring, d.set, d.head = ring, set, 0
}

func (d *dedupWindow) bytes() int64 {
	return d.set.Bytes() + int64(len(d.ring))*int64(unsafe.Sizeof(dedupEntry{}))
}

// check: the ring is a power of two holding n IDs in time order, each once
// and each in the set, and the set holds nothing else.
func (d *dedupWindow) check() error {
	if len(d.ring)&(len(d.ring)-1) != 0 || d.n > len(d.ring) || d.set.Room != len(d.ring) {
		return fmt.Errorf("dedup: %d IDs in a ring of %d, set capacity %d", d.n, len(d.ring), d.set.Room)
	}
	if err := d.set.Check(); err != nil {
		return fmt.Errorf("dedup: %w", err)
	}
	if d.set.Len() != d.n {
		return fmt.Errorf("dedup: %d IDs in the set, %d in the ring", d.set.Len(), d.n)
	}
	mask := len(d.ring) - 1
	for i := range d.n {
		e := d.ring[(d.head+i)&mask]
		if d.set.Get(e.id) == 0 {
			return fmt.Errorf("dedup: ID %d in the ring, not in the set", e.id)
		}
		if i > 0 && e.at < d.ring[(d.head+i-1)&mask].at {
			return fmt.Errorf("dedup: ring out of time order at %d", i)
		}
	}
	return nil
}
