package ds

import (
	"fmt"
	"unsafe"
)

// The invariants of the counted B+tree (sortedset_btree.go), checked in O(n).

// check validates the tree: every leaf at the same depth (by construction:
// a node's kind is its height), every node but the root at least half
// full and none over full, the root inner node with two children or more,
// keys strictly increasing within each node and inside the bounds its
// ancestors' separators set, every count equal to the keys under its
// child, the leaves chained in order from first to last, and the length
// and node tallies right. O(n).
func (t *bttree) check(what string) error {
	var leaves []*btleaf
	inners := 0
	n, err := t.checkNode(t.root, t.height, nil, nil, true, &leaves, &inners)
	if err != nil {
		return fmt.Errorf("btset: %s: %w", what, err)
	}
	if n != t.length || len(leaves) != t.leaves || inners != t.inners {
		return fmt.Errorf("btset: %s: %d keys, %d leaves, %d inner nodes; tallied %d, %d, %d",
			what, n, len(leaves), inners, t.length, t.leaves, t.inners)
	}
	if t.first != leaves[0] || t.last != leaves[len(leaves)-1] || t.first.prev != nil || t.last.next != nil {
		return fmt.Errorf("btset: %s: first or last leaf wrong", what)
	}
	for i := 1; i < len(leaves); i++ {
		a, b := leaves[i-1], leaves[i]
		if a.next != b || b.prev != a {
			return fmt.Errorf("btset: %s: leaves %d and %d not chained", what, i-1, i)
		}
		if !a.key(a.n - 1).before(b.key(0)) {
			return fmt.Errorf("btset: %s: leaf %d ends at %+v, leaf %d starts at %+v", what, i-1, a.key(a.n-1), i, b.key(0))
		}
	}
	return nil
}

// checkNode checks the subtree at p, h levels above the leaves, whose keys
// must lie in [lo, hi) (nil: no bound), and returns its keys.
func (t *bttree) checkNode(p unsafe.Pointer, h int, lo, hi *btkey, root bool, leaves *[]*btleaf, inners *int) (int, error) {
	if p == nil {
		return 0, fmt.Errorf("nil child %d levels above the leaves", h)
	}
	inside := func(k btkey) bool { return (lo == nil || !k.before(*lo)) && (hi == nil || k.before(*hi)) }
	if h == 0 {
		l := (*btleaf)(p)
		*leaves = append(*leaves, l)
		if l.n > btLeafCap || l.n < 0 || !root && l.n < btLeafMin {
			return 0, fmt.Errorf("leaf %d holds %d keys, not in %d..%d", len(*leaves)-1, l.n, btLeafMin, btLeafCap)
		}
		for j := range l.n {
			if j > 0 && !l.key(j-1).before(l.key(j)) {
				return 0, fmt.Errorf("leaf %d: key %d %+v not after %+v", len(*leaves)-1, j, l.key(j), l.key(j-1))
			}
			if !inside(l.key(j)) {
				return 0, fmt.Errorf("leaf %d: key %+v outside its parents' separators", len(*leaves)-1, l.key(j))
			}
		}
		return l.n, nil
	}
	x := (*btinner)(p)
	*inners++
	lowest := btFanMin
	if root {
		lowest = 2
	}
	if x.n < lowest || x.n > btFan {
		return 0, fmt.Errorf("inner node %d levels up has %d children, not in %d..%d", h, x.n, lowest, btFan)
	}
	total := 0
	for i := range x.n {
		if i > 0 && i < x.n-1 && !x.key(i-1).before(x.key(i)) {
			return 0, fmt.Errorf("inner node %d levels up: separator %d %+v not after %+v", h, i, x.key(i), x.key(i-1))
		}
		clo, chi := lo, hi
		if i > 0 {
			k := x.key(i - 1)
			if !inside(k) {
				return 0, fmt.Errorf("inner node %d levels up: separator %+v outside its parents'", h, k)
			}
			clo = &k
		}
		if i < x.n-1 {
			k := x.key(i)
			chi = &k
		}
		n, err := t.checkNode(x.kids[i], h-1, clo, chi, false, leaves, inners)
		if err != nil {
			return 0, err
		}
		if n != x.cnt[i] {
			return 0, fmt.Errorf("inner node %d levels up: child %d counted %d keys, holds %d", h, i, x.cnt[i], n)
		}
		total += n
	}
	for i := x.n; i < btFan; i++ {
		if x.kids[i] != nil {
			return 0, fmt.Errorf("inner node %d levels up: child slot %d past %d in use is not nil", h, i, x.n)
		}
	}
	return total, nil
}
