package ds

import (
	"cmp"
	"fmt"
	"slices"
	"unsafe"

	"countsim/strategies"
)

// TopHeap holds at most limit items in a binary min-heap (the layout of
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
type TopHeap struct {
	Heap  []heapEntry
	pos   []int32      // slot → heap position
	Index Table[int32] // key → slot + 1 (fixed capacity limit)
	limit int
}

// heapEntry is an item and the slot of its key.
type heapEntry struct {
	strategies.Item
	Slot int32
}

func NewTopHeap(limit int, seed uint64) TopHeap {
	return TopHeap{
		Heap:  make([]heapEntry, 0, limit),
		pos:   make([]int32, limit),
		Index: NewFixedTable[int32](limit, seed),
		limit: limit,
	}
}

// TopHeapBytes is the memory of a TopHeap of the limit: 32 B a heap entry
// (key, count, error, slot and padding), 4 B of position a slot, and the key
// index.
func TopHeapBytes(limit int) int64 {
	return int64(limit)*(int64(unsafe.Sizeof(heapEntry{}))+4) +
		int64(FixedTableLen(limit))*TableSlotBytes[int32]()
}

// Worse reports whether a ranks below b in answer order (count descending,
// key ascending).
func Worse(a, b *strategies.Item) bool {
	return a.Count < b.Count || (a.Count == b.Count && a.Key > b.Key)
}

func (h *TopHeap) Len() int   { return len(h.Heap) }
func (h *TopHeap) Full() bool { return len(h.Heap) >= h.limit }

// Min returns the root, the worst item held; the heap must not be empty.
func (h *TopHeap) Min() *strategies.Item { return &h.Heap[0].Item }

// At returns the item at heap position i.
func (h *TopHeap) At(i int) *strategies.Item { return &h.Heap[i].Item }

// FindAt returns the heap position of key, whose index hash
// h.index.hash(key) the caller already has (count-min's h1: the index
// hashes with the sketch's s1).
func (h *TopHeap) FindAt(hash, key uint64) (int, bool) {
	s := h.Index.GetAt(hash, key)
	if s == 0 {
		return 0, false
	}
	return int(h.pos[s-1]), true
}

// Reset empties the heap and its index, keeping their arrays.
func (h *TopHeap) Reset() {
	h.Heap = h.Heap[:0]
	h.Index.reset()
}

// Push adds an item whose key is not held; the heap must not be full.
func (h *TopHeap) Push(it strategies.Item) {
	s := int32(len(h.Heap))
	*h.Index.RefAt(h.Index.Hash(it.Key), it.Key) = s + 1
	h.Heap = append(h.Heap, heapEntry{it, s})
	h.up(len(h.Heap) - 1)
}

// ReplaceMin replaces the root with it (a key not held), which takes over
// the root's slot, and returns the item it evicted.
func (h *TopHeap) ReplaceMin(it strategies.Item) strategies.Item {
	old := h.Heap[0]
	h.Index.Del(old.Key)
	*h.Index.RefAt(h.Index.Hash(it.Key), it.Key) = old.Slot + 1
	h.Heap[0].Item = it
	h.Down(0)
	return old.Item
}

// Offer gives the heap key's estimate est (h1 its index hash, as findAt)
// and returns the floor, the count a key must reach to be offered: the
// minimum's count once the heap is full, 0 before. A key held gets est if
// it is higher; a key not held fills the heap while it is not full, and
// replaces the minimum if it ranks above it. The top-K designs over a
// sketch (count-min + heap, windowed count-min, HeavyKeeper) offer each
// key whose estimate reaches the floor.
func (h *TopHeap) Offer(h1, key, est uint64) (floor uint64) {
	if i, ok := h.FindAt(h1, key); ok {
		if est > h.At(i).Count {
			h.Raise(i, est)
		}
	} else if it := (strategies.Item{Key: key, Count: est}); !h.Full() {
		h.Push(it)
	} else if Worse(h.Min(), &it) {
		h.ReplaceMin(it)
	}
	if h.Full() {
		return h.Min().Count
	}
	return 0
}

// Raise sets the count of the item at position i to count, which must not be
// lower than its count now, and restores the heap order. A leaf (half the
// items, and where the largest counts sit) has nothing to move past.
func (h *TopHeap) Raise(i int, count uint64) {
	h.Heap[i].Count = count
	if 2*i+1 < len(h.Heap) {
		h.Down(i)
	}
}

// up moves the entry at i towards the root while it is better than its
// parent.
func (h *TopHeap) up(i int) {
	e := h.Heap[i]
	for i > 0 {
		p := (i - 1) / 2
		if !Worse(&e.Item, &h.Heap[p].Item) {
			break
		}
		h.Heap[i] = h.Heap[p]
		h.pos[h.Heap[i].Slot] = int32(i)
		i = p
	}
	h.Heap[i] = e
	h.pos[e.Slot] = int32(i)
}

// Down moves the entry at i away from the root while a child is worse.
func (h *TopHeap) Down(i int) {
	n := len(h.Heap)
	e := h.Heap[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if r := c + 1; r < n && Worse(&h.Heap[r].Item, &h.Heap[c].Item) {
			c = r
		}
		if !Worse(&h.Heap[c].Item, &e.Item) {
			break
		}
		h.Heap[i] = h.Heap[c]
		h.pos[h.Heap[i].Slot] = int32(i)
		i = c
	}
	h.Heap[i] = e
	h.pos[e.Slot] = int32(i)
}

// SortItems sorts items in answer order: count descending, key ascending.
func SortItems(items []strategies.Item) {
	slices.SortFunc(items, func(a, b strategies.Item) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
}

func (h *TopHeap) Bytes() int64 {
	return int64(cap(h.Heap))*int64(unsafe.Sizeof(heapEntry{})) + int64(len(h.pos))*4 + h.Index.Bytes()
}

// Check validates the heap order, the limit, the slots and the index.
func (h *TopHeap) Check() error {
	if len(h.Heap) > h.limit {
		return fmt.Errorf("heap: %d items over the limit %d", len(h.Heap), h.limit)
	}
	slots := make([]bool, h.limit)
	for i := range h.Heap {
		e := &h.Heap[i]
		if i > 0 {
			if p := (i - 1) / 2; Worse(&e.Item, &h.Heap[p].Item) {
				return fmt.Errorf("heap: item %d %+v worse than its parent %d %+v", i, e.Item, p, h.Heap[p].Item)
			}
		}
		if e.Slot < 0 || int(e.Slot) >= h.limit || slots[e.Slot] {
			return fmt.Errorf("heap: item %d has slot %d, out of range or shared", i, e.Slot)
		}
		slots[e.Slot] = true
		if h.pos[e.Slot] != int32(i) {
			return fmt.Errorf("heap: slot %d says position %d, item is at %d", e.Slot, h.pos[e.Slot], i)
		}
		if s := h.Index.Get(e.Key); s != e.Slot+1 {
			return fmt.Errorf("heap: index gives key %d slot %d (-1: absent), want %d", e.Key, s-1, e.Slot)
		}
	}
	if h.Index.Len() != len(h.Heap) {
		return fmt.Errorf("heap: index holds %d keys, heap %d", h.Index.Len(), len(h.Heap))
	}
	if err := h.Index.Check(); err != nil {
		return fmt.Errorf("heap: index: %w", err)
	}
	return nil
}
