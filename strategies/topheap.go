package strategies

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"
)

// topHeap holds at most limit items in a binary min-heap (the layout of
// container/heap, without its interface calls). The root is the worst item
// in answer order: the lowest count, and among equal counts the largest key.
// It is the monitored set of count-min + heap.
//
// A key keeps one slot, 0..limit−1, while it is held: the index (a fixed
// table[int32], table.go) maps the key to its slot, and pos maps the slot to
// the item's heap position. Moving an item in the heap rewrites pos, not the
// hash table, so a sift costs no hashing; find is one index lookup.
//
// Invariants (check): len(heap) ≤ limit; no item is better than its parent;
// the index maps each held key to a slot s with heap[pos[s]] holding the key
// and slot s, and holds nothing else. find is O(1) expected; push,
// replaceMin and raise are O(log limit). Nothing is allocated after
// construction.
type topHeap struct {
	heap  []heapEntry
	pos   []int32      // slot → heap position
	index table[int32] // key → slot + 1 (fixed capacity limit)
	limit int
}

// heapEntry is an item and the slot of its key.
type heapEntry struct {
	Item
	slot int32
}

func newTopHeap(limit int, seed uint64) topHeap {
	return topHeap{
		heap:  make([]heapEntry, 0, limit),
		pos:   make([]int32, limit),
		index: newFixedTable[int32](limit, seed),
		limit: limit,
	}
}

// topHeapBytes is the memory of a topHeap of the limit: 32 B a heap entry
// (key, count, error, slot and padding), 4 B of position a slot, and the key
// index.
func topHeapBytes(limit int) int64 {
	return int64(limit)*(int64(unsafe.Sizeof(heapEntry{}))+4) +
		int64(fixedTableLen(limit))*tableSlotBytes[int32]()
}

// worse reports whether a ranks below b in answer order (count descending,
// key ascending).
func worse(a, b *Item) bool {
	return a.Count < b.Count || (a.Count == b.Count && a.Key > b.Key)
}

func (h *topHeap) len() int   { return len(h.heap) }
func (h *topHeap) full() bool { return len(h.heap) >= h.limit }

// min returns the root, the worst item held; the heap must not be empty.
func (h *topHeap) min() *Item { return &h.heap[0].Item }

// at returns the item at heap position i.
func (h *topHeap) at(i int) *Item { return &h.heap[i].Item }

// findAt returns the heap position of key, whose index hash
// h.index.hash(key) the caller already has (count-min's h1: the index
// hashes with the sketch's s1).
func (h *topHeap) findAt(hash, key uint64) (int, bool) {
	s := h.index.getAt(hash, key)
	if s == 0 {
		return 0, false
	}
	return int(h.pos[s-1]), true
}

// reset empties the heap and its index, keeping their arrays.
func (h *topHeap) reset() {
	h.heap = h.heap[:0]
	h.index.reset()
}

// push adds an item whose key is not held; the heap must not be full.
func (h *topHeap) push(it Item) {
	s := int32(len(h.heap))
	*h.index.refAt(h.index.hash(it.Key), it.Key) = s + 1
	h.heap = append(h.heap, heapEntry{it, s})
	h.up(len(h.heap) - 1)
}

// replaceMin replaces the root with it (a key not held), which takes over
// the root's slot, and returns the item it evicted.
func (h *topHeap) replaceMin(it Item) Item {
	old := h.heap[0]
	h.index.del(old.Key)
	*h.index.refAt(h.index.hash(it.Key), it.Key) = old.slot + 1
	h.heap[0].Item = it
	h.down(0)
	return old.Item
}

// offer gives the heap key's estimate est (h1 its index hash, as findAt)
// and returns the floor, the count a key must reach to be offered: the
// minimum's count once the heap is full, 0 before. A key held gets est if
// it is higher; a key not held fills the heap while it is not full, and
// replaces the minimum if it ranks above it. The top-K designs over a
// sketch (count-min + heap, windowed count-min, HeavyKeeper) offer each
// key whose estimate reaches the floor.
func (h *topHeap) offer(h1, key, est uint64) (floor uint64) {
	if i, ok := h.findAt(h1, key); ok {
		if est > h.at(i).Count {
			h.raise(i, est)
		}
	} else if it := (Item{Key: key, Count: est}); !h.full() {
		h.push(it)
	} else if worse(h.min(), &it) {
		h.replaceMin(it)
	}
	if h.full() {
		return h.min().Count
	}
	return 0
}

// raise sets the count of the item at position i to count, which must not be
// lower than its count now, and restores the heap order. A leaf (half the
// items, and where the largest counts sit) has nothing to move past.
func (h *topHeap) raise(i int, count uint64) {
	h.heap[i].Count = count
	if 2*i+1 < len(h.heap) {
		h.down(i)
	}
}

// up moves the entry at i towards the root while it is better than its
// parent.
func (h *topHeap) up(i int) {
	e := h.heap[i]
	for i > 0 {
		p := (i - 1) / 2
		if !worse(&e.Item, &h.heap[p].Item) {
			break
		}
		h.heap[i] = h.heap[p]
		h.pos[h.heap[i].slot] = int32(i)
		i = p
	}
	h.heap[i] = e
	h.pos[e.slot] = int32(i)
}

// down moves the entry at i away from the root while a child is worse.
func (h *topHeap) down(i int) {
	n := len(h.heap)
	e := h.heap[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && worse(&h.heap[r].Item, &h.heap[c].Item) {
			c = r
		}
		if !worse(&h.heap[c].Item, &e.Item) {
			break
		}
		h.heap[i] = h.heap[c]
		h.pos[h.heap[i].slot] = int32(i)
		i = c
	}
	h.heap[i] = e
	h.pos[e.slot] = int32(i)
}

// sortItems sorts items in answer order: count descending, key ascending.
func sortItems(items []Item) {
	slices.SortFunc(items, func(a, b Item) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

func (h *topHeap) bytes() int64 {
	return int64(cap(h.heap))*int64(unsafe.Sizeof(heapEntry{})) + int64(len(h.pos))*4 + h.index.bytes()
}

// check validates the heap order, the limit, the slots and the index.
func (h *topHeap) check() error {
	if len(h.heap) > h.limit {
		return fmt.Errorf("heap: %d items over the limit %d", len(h.heap), h.limit)
	}
	slots := make([]bool, h.limit)
	for i := range h.heap {
		e := &h.heap[i]
		if i > 0 {
			if p := (i - 1) / 2; worse(&e.Item, &h.heap[p].Item) {
				return fmt.Errorf("heap: item %d %+v worse than its parent %d %+v", i, e.Item, p, h.heap[p].Item)
			}
		}
		if e.slot < 0 || int(e.slot) >= h.limit || slots[e.slot] {
			return fmt.Errorf("heap: item %d has slot %d, out of range or shared", i, e.slot)
		}
		slots[e.slot] = true
		if h.pos[e.slot] != int32(i) {
			return fmt.Errorf("heap: slot %d says position %d, item is at %d", e.slot, h.pos[e.slot], i)
		}
		if s := h.index.get(e.Key); s != e.slot+1 {
			return fmt.Errorf("heap: index gives key %d slot %d (-1: absent), want %d", e.Key, s-1, e.slot)
		}
	}
	if h.index.len() != len(h.heap) {
		return fmt.Errorf("heap: index holds %d keys, heap %d", h.index.len(), len(h.heap))
	}
	if err := h.index.check(); err != nil {
		return fmt.Errorf("heap: index: %w", err)
	}
	return nil
}
