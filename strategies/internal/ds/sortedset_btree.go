package ds

import (
	"fmt"
	"unsafe"
)

// The counted B+tree under btset (sortedset_btset.go): nodes, search,
// insertion with splits, removal with borrowing and merging, the count of
// keys before a key, and the check of every invariant.

// btkey is a player's place in the order; a key of the distinct-score tree
// has stamp and id 0.
type btkey struct {
	score int64
	stamp uint64
	id    uint64
}

// before reports whether a ranks before b: higher score, or the same score
// with a lower stamp, or the same stamp with a lower id.
func (a btkey) before(b btkey) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.stamp != b.stamp {
		return a.stamp < b.stamp
	}
	return a.id < b.id
}

// The node sizes. A leaf is 24 + 24·btLeafCap = 1536 bytes, one of the
// allocator's size classes, so none of it is rounding; an inner node of 64
// children is 2544 bytes (2688 with rounding), and there is about one for
// every 45 leaves. Non-root nodes keep at least half: a leaf btLeafMin keys,
// an inner node btFanMin children.
const (
	btLeafCap   = 63
	btLeafMin   = btLeafCap / 2 // 31: two leaves below it merge into at most 61
	btFan       = 64
	btFanMin    = btFan / 2 // 32: two nodes below it merge into at most 63
	btMaxHeight = 16        // inner levels: a root of 2 and nodes of ≥ 32 over leaves of ≥ 31 exceed 2^63 keys at 13
)

// btleaf holds n keys in order, scores apart from ties, and the links to the
// leaves before and after it.
type btleaf struct {
	n          int
	prev, next *btleaf
	sc         [btLeafCap]int64
	tie        [btLeafCap]btie
}

// btie is the stamp and id of a key, which decide among equal scores: one
// array of scores is scanned, and one line of this one read at the end.
type btie struct{ st, id uint64 }

// btinner holds n children, laid out as a search reads them (scores,
// counts, children, then ties); sep i (scores apart from ties) is the
// lowest key child i+1 may hold and the bound above child i's, and cnt i is
// the number of keys under child i. A child is a *btinner one level above
// the leaves or higher, else a *btleaf (the tree's height says which).
type btinner struct {
	n    int
	sc   [btFan - 1]int64
	cnt  [btFan]int
	kids [btFan]unsafe.Pointer
	tie  [btFan - 1]btie
}

// bttree is a counted B+tree of distinct keys.
type bttree struct {
	root        unsafe.Pointer // a *btleaf if height is 0, else a *btinner
	height      int            // levels of inner nodes above the leaves
	length      int            // keys
	first, last *btleaf
	leaves      int // nodes of each kind, for bytes
	inners      int
}

// btstep is one inner node on a search path and the child taken.
type btstep struct {
	x *btinner
	c int
}

func (l *btleaf) key(j int) btkey { return btkey{l.sc[j], l.tie[j].st, l.tie[j].id} }

func (l *btleaf) setKey(j int, k btkey) { l.sc[j], l.tie[j] = k.score, btie{k.stamp, k.id} }

func (x *btinner) key(j int) btkey { return btkey{x.sc[j], x.tie[j].st, x.tie[j].id} }

func (x *btinner) setKey(j int, k btkey) { x.sc[j], x.tie[j] = k.score, btie{k.stamp, k.id} }

// lowerBound returns the number of keys of the leaf before k: the position
// of k, or where it would go. It scans the scores, contiguous, and reads
// stamps and ids only among keys of k's score.
func (l *btleaf) lowerBound(k btkey) int {
	j, n := 0, l.n
	for j < n && l.sc[j] > k.score {
		j++
	}
	for j < n && l.sc[j] == k.score && (l.tie[j].st < k.stamp || l.tie[j].st == k.stamp && l.tie[j].id < k.id) {
		j++
	}
	return j
}

// child returns the child of x whose range holds k: the number of
// separators at or before k.
func (x *btinner) child(k btkey) int {
	j, n := 0, x.n-1
	for j < n && x.sc[j] > k.score {
		j++
	}
	for j < n && x.sc[j] == k.score && (x.tie[j].st < k.stamp || x.tie[j].st == k.stamp && x.tie[j].id <= k.id) {
		j++
	}
	return j
}

// atLeast returns the number of keys of l with a score ≥ s: where a key of
// score s goes that comes after every key of its score (lowerBound of it),
// found from the scores alone.
func (l *btleaf) atLeast(s int64) int { return scoresAtLeast(l.sc[:l.n], s) }

// above returns the number of keys of l with a score > s.
func (l *btleaf) above(s int64) int { return scoresAtLeast(l.sc[:l.n], s+1) }

// childLast returns the child of x whose range holds a key of score s that
// comes after every key of its score: the number of separators of score ≥
// s (each such separator is at or before the key).
func (x *btinner) childLast(s int64) int { return scoresAtLeast(x.sc[:x.n-1], s) }

// childAbove returns a child of x that holds the boundary between the
// scores above s and the rest: the number of separators of score > s.
// The keys of the children before it all score above s, those of the
// children after it none.
func (x *btinner) childAbove(s int64) int { return scoresAtLeast(x.sc[:x.n-1], s+1) }

// scoresAtLeast returns the number of scores ≥ s in sc, sorted descending:
// a binary search without branches on the comparison (the compiler makes
// conditional moves), ⌈log₂ len(sc)⌉ + 1 reads.
func scoresAtLeast(sc []int64, s int64) int {
	n := len(sc)
	if n == 0 {
		return 0
	}
	base := 0
	for n > 1 {
		half := n >> 1
		if sc[base+half] >= s {
			base += half
		}
		n -= half
	}
	if sc[base] >= s {
		base++
	}
	return base
}

// scoreNear reports whether the key just before position j of l (in the
// leaf before it if j is 0), or the key at position after (in the next
// leaf if past l's end), has score s.
func (l *btleaf) scoreNear(j, after int, s int64) bool {
	if j > 0 {
		if l.sc[j-1] == s {
			return true
		}
	} else if p := l.prev; p != nil && p.n > 0 && p.sc[p.n-1] == s {
		return true
	}
	if after < l.n {
		return l.sc[after] == s
	}
	nx := l.next
	return nx != nil && nx.n > 0 && nx.sc[0] == s
}

// insertAt puts k at position j of l, which has room.
func (l *btleaf) insertAt(j int, k btkey) {
	n := l.n
	copy(l.sc[j+1:n+1], l.sc[j:n])
	copy(l.tie[j+1:n+1], l.tie[j:n])
	l.setKey(j, k)
	l.n++
}

// removeAt takes out the key at position j of l.
func (l *btleaf) removeAt(j int) {
	n := l.n
	copy(l.sc[j:n-1], l.sc[j+1:n])
	copy(l.tie[j:n-1], l.tie[j+1:n])
	l.n--
}

// moveKeys copies n keys of src from position from to dst at position to.
func (l *btleaf) moveKeys(to int, src *btleaf, from, n int) {
	copy(l.sc[to:to+n], src.sc[from:from+n])
	copy(l.tie[to:to+n], src.tie[from:from+n])
}

// init makes t an empty tree: one empty leaf as its root.
func (t *bttree) init() {
	l := new(btleaf)
	*t = bttree{root: unsafe.Pointer(l), first: l, last: l, leaves: 1}
}

// countBefore returns the number of keys of t before k. O(log n).
func (t *bttree) countBefore(k btkey) int {
	r, p := 0, t.root
	for h := t.height; h > 0; h-- {
		x := (*btinner)(p)
		c := x.child(k)
		for _, v := range x.cnt[:c] {
			r += v
		}
		p = x.kids[c]
	}
	return r + (*btleaf)(p).lowerBound(k)
}

// countAbove returns the number of keys of t with a score > s, found from
// the scores alone. O(log n).
func (t *bttree) countAbove(s int64) int {
	r, p := 0, t.root
	for h := t.height; h > 0; h-- {
		x := (*btinner)(p)
		c := x.childAbove(s)
		for _, v := range x.cnt[:c] {
			r += v
		}
		p = x.kids[c]
	}
	return r + (*btleaf)(p).above(s)
}

// insert adds k, which must be absent, and reports whether a key next to
// it in the order has its score (so the score was already held). The
// counts along the search path grow on the way down; a full leaf splits in
// two halves, and a split that fills the parent splits it in turn.
//
// last says that k comes after every key of its score in t and every
// separator of t of its score (its stamp is above theirs, or no key of t
// has its score): the search then reads the scores alone, which is where
// a board's updates go (a change is stamped above every stamp before it)
// and what the distinct scores' tree holds. Otherwise it compares whole
// keys.
func (t *bttree) insert(k btkey, last bool) bool {
	var path [btMaxHeight]btstep
	p := t.root
	for h := t.height; h > 0; h-- {
		x := (*btinner)(p)
		var c int
		if last {
			c = x.childLast(k.score)
		} else {
			c = x.child(k)
		}
		x.cnt[c]++
		path[h-1] = btstep{x, c}
		p = x.kids[c]
	}
	l := (*btleaf)(p)
	var j int
	if last {
		j = l.atLeast(k.score)
	} else {
		j = l.lowerBound(k)
	}
	if j < l.n && l.key(j) == k {
		panic(fmt.Sprintf("strategies: btset key %+v inserted twice", k)) // unreachable while check holds
	}
	held := l.scoreNear(j, j, k.score)
	t.length++
	if l.n < btLeafCap {
		l.insertAt(j, k)
		return held
	}
	r := t.splitLeaf(l, j, k)
	t.grow(path[:t.height], unsafe.Pointer(l), unsafe.Pointer(r), r.key(0), l.n, r.n)
	return held
}

// splitLeaf inserts k at position j of the full leaf l by moving its upper
// half to a new leaf linked after it, which it returns: 32 keys each.
func (t *bttree) splitLeaf(l *btleaf, j int, k btkey) *btleaf {
	const half = (btLeafCap + 1) / 2
	r := new(btleaf)
	t.leaves++
	if j < half {
		r.moveKeys(0, l, half-1, btLeafCap-half+1)
		r.n, l.n = btLeafCap-half+1, half-1
		l.insertAt(j, k)
	} else {
		r.moveKeys(0, l, half, btLeafCap-half)
		r.n, l.n = btLeafCap-half, half
		r.insertAt(j-half, k)
	}
	r.prev, r.next = l, l.next
	if l.next != nil {
		l.next.prev = r
	} else {
		t.last = r
	}
	l.next = r
	return r
}

// grow links right, split off left (a child on the path), into the
// parents along path, bottom up: sep is right's lowest key, lc and rc the
// keys under each half. A full parent splits too; a split root gets a new
// root above it.
func (t *bttree) grow(path []btstep, left, right unsafe.Pointer, sep btkey, lc, rc int) {
	for _, s := range path {
		x, c := s.x, s.c
		if x.n < btFan {
			x.insertKid(c, sep, right, lc, rc)
			return
		}
		y, up := t.splitInner(x, c, sep, right, lc, rc)
		left, right, sep = unsafe.Pointer(x), unsafe.Pointer(y), up
		lc, rc = x.sum(), y.sum()
	}
	nr := &btinner{n: 2}
	nr.kids[0], nr.kids[1] = left, right
	nr.cnt[0], nr.cnt[1] = lc, rc
	nr.setKey(0, sep)
	t.root = unsafe.Pointer(nr)
	t.height++
	t.inners++
}

// sum returns the keys under x.
func (x *btinner) sum() int {
	s := 0
	for _, v := range x.cnt[:x.n] {
		s += v
	}
	return s
}

// insertKid puts right after child c of x, which has room, separated from
// it by sep; c keeps lc keys and right has rc.
func (x *btinner) insertKid(c int, sep btkey, right unsafe.Pointer, lc, rc int) {
	n := x.n
	copy(x.sc[c+1:n], x.sc[c:n-1])
	copy(x.tie[c+1:n], x.tie[c:n-1])
	copy(x.kids[c+2:n+1], x.kids[c+1:n])
	copy(x.cnt[c+2:n+1], x.cnt[c+1:n])
	x.setKey(c, sep)
	x.kids[c+1] = right
	x.cnt[c], x.cnt[c+1] = lc, rc
	x.n++
}

// splitInner inserts right after child c of the full node x (as
// insertKid) by laying the btFan+1 children out in order, keeping the
// first half in x and moving the rest to a new node, which it returns with
// the separator between the two halves (lifted to the parent).
func (t *bttree) splitInner(x *btinner, c int, sep btkey, right unsafe.Pointer, lc, rc int) (*btinner, btkey) {
	var kids [btFan + 1]unsafe.Pointer
	var cnt [btFan + 1]int
	var seps [btFan]btkey
	copy(kids[:c+1], x.kids[:c+1])
	copy(cnt[:c+1], x.cnt[:c+1])
	kids[c+1], cnt[c], cnt[c+1] = right, lc, rc
	copy(kids[c+2:], x.kids[c+1:])
	copy(cnt[c+2:], x.cnt[c+1:])
	for i := range btFan - 1 {
		to := i
		if i >= c {
			to++
		}
		seps[to] = x.key(i)
	}
	seps[c] = sep
	const half = (btFan + 1) / 2 // 32 stay, 33 move
	y := new(btinner)
	t.inners++
	x.n, y.n = half, btFan+1-half
	for i := range btFan + 1 {
		z, j := x, i
		if i >= half {
			z, j = y, i-half
		}
		z.kids[j], z.cnt[j] = kids[i], cnt[i]
		if i < half-1 {
			x.setKey(i, seps[i])
		} else if i >= half && i < btFan {
			y.setKey(i-half, seps[i])
		}
	}
	clear(x.kids[half:])
	return y, seps[half-1]
}

// remove takes out k, which must be present, and reports whether a key
// next to it in the order has its score (so the score is still held). The
// counts along the search path shrink on the way down; a leaf below half
// full borrows a key from a sibling that can spare one, or else merges
// with it, and a merge that leaves the parent below half does the same one
// level up; a root left with one child gives way to it.
func (t *bttree) remove(k btkey) bool {
	var path [btMaxHeight]btstep
	p := t.root
	for h := t.height; h > 0; h-- {
		x := (*btinner)(p)
		c := x.child(k)
		x.cnt[c]--
		path[h-1] = btstep{x, c}
		p = x.kids[c]
	}
	l := (*btleaf)(p)
	j := l.lowerBound(k)
	if j == l.n || l.key(j) != k {
		panic(fmt.Sprintf("strategies: btset key %+v missing", k)) // unreachable while check holds
	}
	held := l.scoreNear(j, j+1, k.score)
	l.removeAt(j)
	t.length--
	if l.n < btLeafMin && t.height > 0 {
		t.fixLeaf(l, path[:t.height])
	}
	return held
}

// fixLeaf restores the leaf l, below half full, whose parent is path[0].
func (t *bttree) fixLeaf(l *btleaf, path []btstep) {
	x, c := path[0].x, path[0].c
	if c > 0 {
		if s := (*btleaf)(x.kids[c-1]); s.n > btLeafMin {
			l.insertAt(0, s.key(s.n-1))
			s.n--
			x.cnt[c-1]--
			x.cnt[c]++
			x.setKey(c-1, l.key(0))
			return
		}
	}
	if c < x.n-1 {
		if s := (*btleaf)(x.kids[c+1]); s.n > btLeafMin {
			l.insertAt(l.n, s.key(0))
			s.removeAt(0)
			x.cnt[c+1]--
			x.cnt[c]++
			x.setKey(c, s.key(0))
			return
		}
	}
	if c > 0 {
		t.mergeLeaves((*btleaf)(x.kids[c-1]), l)
		x.removeKid(c)
	} else {
		t.mergeLeaves(l, (*btleaf)(x.kids[c+1]))
		x.removeKid(c + 1)
	}
	t.fixInner(path)
}

// mergeLeaves moves the keys of b, the leaf after a, to a's end and unlinks b.
func (t *bttree) mergeLeaves(a, b *btleaf) {
	a.moveKeys(a.n, b, 0, b.n)
	a.n += b.n
	a.next = b.next
	if b.next != nil {
		b.next.prev = a
	} else {
		t.last = a
	}
	t.leaves--
}

// removeKid removes child i ≥ 1 of x after its keys were merged into child
// i−1, with the separator between them.
func (x *btinner) removeKid(i int) {
	n := x.n
	x.cnt[i-1] += x.cnt[i]
	copy(x.sc[i-1:n-2], x.sc[i:n-1])
	copy(x.tie[i-1:n-2], x.tie[i:n-1])
	copy(x.kids[i:n-1], x.kids[i+1:n])
	copy(x.cnt[i:n-1], x.cnt[i+1:n])
	x.kids[n-1] = nil
	x.n--
}

// fixInner restores the inner nodes of path, bottom up, after path[0]
// lost a child: a node below half borrows a child through its parent from
// a sibling that can spare one, or else merges with it and the parent is
// looked at next; a root with one child is replaced by it.
func (t *bttree) fixInner(path []btstep) {
	for i, s := range path {
		x := s.x
		if i == len(path)-1 { // the root
			if x.n == 1 {
				t.root = x.kids[0]
				t.height--
				t.inners--
			}
			return
		}
		if x.n >= btFanMin {
			return
		}
		p, c := path[i+1].x, path[i+1].c
		if c > 0 {
			if l := (*btinner)(p.kids[c-1]); l.n > btFanMin {
				// Rotate l's last child through the parent to x's front.
				m := l.cnt[l.n-1]
				x.insertKid0(p.key(c-1), l.kids[l.n-1], m)
				p.setKey(c-1, l.key(l.n-2))
				l.kids[l.n-1] = nil
				l.n--
				p.cnt[c-1] -= m
				p.cnt[c] += m
				return
			}
		}
		if c < p.n-1 {
			if r := (*btinner)(p.kids[c+1]); r.n > btFanMin {
				// Rotate r's first child through the parent to x's end.
				m := r.cnt[0]
				x.setKey(x.n-1, p.key(c))
				x.kids[x.n], x.cnt[x.n] = r.kids[0], m
				x.n++
				p.setKey(c, r.key(0))
				r.removeKid0()
				p.cnt[c+1] -= m
				p.cnt[c] += m
				return
			}
		}
		if c > 0 {
			mergeInner((*btinner)(p.kids[c-1]), x, p.key(c-1))
			p.removeKid(c)
		} else {
			mergeInner(x, (*btinner)(p.kids[c+1]), p.key(c))
			p.removeKid(c + 1)
		}
		t.inners--
	}
}

// insertKid0 puts kid, holding m keys, before the first child of x, which
// has room; sep separates it from the old first child.
func (x *btinner) insertKid0(sep btkey, kid unsafe.Pointer, m int) {
	n := x.n
	copy(x.sc[1:n], x.sc[:n-1])
	copy(x.tie[1:n], x.tie[:n-1])
	copy(x.kids[1:n+1], x.kids[:n])
	copy(x.cnt[1:n+1], x.cnt[:n])
	x.setKey(0, sep)
	x.kids[0], x.cnt[0] = kid, m
	x.n++
}

// removeKid0 removes the first child of x and the separator after it.
func (x *btinner) removeKid0() {
	n := x.n
	copy(x.sc[:n-2], x.sc[1:n-1])
	copy(x.tie[:n-2], x.tie[1:n-1])
	copy(x.kids[:n-1], x.kids[1:n])
	copy(x.cnt[:n-1], x.cnt[1:n])
	x.kids[n-1] = nil
	x.n--
}

// mergeInner moves the children of b, the node after a, to a's end, sep
// (the parent's separator between them) between the two runs.
func mergeInner(a, b *btinner, sep btkey) {
	n := a.n
	a.setKey(n-1, sep)
	copy(a.sc[n:], b.sc[:b.n-1])
	copy(a.tie[n:], b.tie[:b.n-1])
	copy(a.kids[n:], b.kids[:b.n])
	copy(a.cnt[n:], b.cnt[:b.n])
	a.n += b.n
}

// bytes returns the nodes' memory: leaves·Sizeof(btleaf) +
// inners·Sizeof(btinner).
func (t *bttree) bytes() int64 {
	return int64(t.leaves)*int64(unsafe.Sizeof(btleaf{})) + int64(t.inners)*int64(unsafe.Sizeof(btinner{}))
}
