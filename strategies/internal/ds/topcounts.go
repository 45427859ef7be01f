package ds

import "countsim/strategies"

// TopCounts is ExactTop (the k heaviest keys of a count table, as a
// min-heap by Worse) with Worse called by name: KeepBest's comparison is a
// function value, through which every item offered escaped to the heap,
// an allocation a key of the table at every query (a time-buckets top 10
// of now: 40% of its answer's time). The same offers in the same order
// give the same heap, item for item.
func TopCounts(sh *CountTable, k int) []strategies.Item {
	h := make([]strategies.Item, 0, min(k, sh.Len()))
	for i := range sh.Slots {
		if s := &sh.Slots[i]; s.Count != 0 {
			h = KeepBestItem(h, k, strategies.Item{Key: s.Key, Count: s.Count})
		}
	}
	return h
}

// KeepBestItem is KeepBest of an item by Worse, written out: x goes in
// while h has room, or in the root's place when the root is worse. O(log
// k), no allocation once h is at its capacity.
func KeepBestItem(h []strategies.Item, k int, x strategies.Item) []strategies.Item {
	switch {
	case len(h) < k:
		h = append(h, x)
		for j := len(h) - 1; j > 0; {
			p := (j - 1) / 2
			if !Worse(&h[j], &h[p]) {
				break
			}
			h[j], h[p] = h[p], h[j]
			j = p
		}
	case len(h) > 0 && Worse(&h[0], &x):
		h[0] = x
		for j := 0; ; {
			c := 2*j + 1
			if c >= len(h) {
				break
			}
			if r := c + 1; r < len(h) && Worse(&h[r], &h[c]) {
				c = r
			}
			if !Worse(&h[c], &h[j]) {
				break
			}
			h[j], h[c] = h[c], h[j]
			j = c
		}
	}
	return h
}
