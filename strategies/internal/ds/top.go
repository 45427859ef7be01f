package ds

import (
	"countsim/strategies"
)

// ExactTop returns the shard's k heaviest keys, unordered: a bounded min-heap
// (KeepBest) whose root is the worst item kept.
func ExactTop(sh *CountTable, k int) []strategies.Item {
	h := make([]strategies.Item, 0, min(k, sh.Len()))
	for key, c := range sh.All() {
		h = KeepBest(h, k, strategies.Item{Key: key, Count: c}, Worse)
	}
	return h
}

// KeepBest offers x to h, a min-heap of at most k values by worse (its
// root the worst kept), and returns it: x goes in while h has room, or in
// the root's place when the root is worse than x. O(log k). Answers are
// selected with it (ExactTop, the decayed designs' top K), not events
// counted: the comparison is a function value.
func KeepBest[T any](h []T, k int, x T, worse func(a, b *T) bool) []T {
	switch {
	case len(h) < k:
		h = append(h, x)
		for j := len(h) - 1; j > 0; {
			p := (j - 1) / 2
			if !worse(&h[j], &h[p]) {
				break
			}
			h[j], h[p] = h[p], h[j]
			j = p
		}
	case len(h) > 0 && worse(&h[0], &x):
		h[0] = x
		for j := 0; ; {
			c := 2*j + 1
			if c >= len(h) {
				break
			}
			if r := c + 1; r < len(h) && worse(&h[r], &h[c]) {
				c = r
			}
			if !worse(&h[c], &h[j]) {
				break
			}
			h[j], h[c] = h[c], h[j]
			j = c
		}
	}
	return h
}
