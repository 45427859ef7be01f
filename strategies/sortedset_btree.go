package strategies

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// btset is the sorted set of players of zset (sortedset.go) — the same
// methods, order, stamping rules and answers — built as an order-statistic
// counted B+tree instead of a skip list, so that an update at 2·10⁷ players
// takes a handful of cache misses instead of the skip list's ~25 dependent
// ones (issue 10: an update under 1 µs at 20 M players, as Redis's ZADD).
//
// The tree is a B+tree (R. Bayer & E. McCreight, "Organization and
// maintenance of large ordered indexes", Acta Informatica 1, 1972; the
// leaves chained, as D. Comer, "The ubiquitous B-tree", ACM Computing
// Surveys 11(2), 1979) whose inner nodes hold, beside each child, the
// number of keys under it (a counted B-tree: S. Tatham's "counted B-trees",
// or the order-statistic trees of Cormen et al., ch. 14). The keys, in the
// leaves' flat arrays (the scores contiguous, so a search scans one array
// of scores and reads a line of (stamp, id) pairs only among ties), are the
// players' places (score, stamp, id) in zset's order: score descending, then
// stamp ascending (the update that last changed the score), then id. A rank
// is the sum of the counts left of the search path plus the position in
// the leaf. With at most btLeafCap keys a leaf and btFan children an inner
// node, every node but the root at least half full, a search, an insertion
// and a removal are O(log n) and touch h = O(log_32 n) nodes: h = 4 at
// 2·10⁷ players, of which only the leaf and its parent are usually out of
// cache.
//
// An open-addressing table from id to (score, stamp) (btids, at the end)
// finds a player's key in one cache miss; it measured 2–4× faster than a
// Go map. The distinct
// scores are a second tree of the same kind keyed (score, 0, 0), so the
// dense rank is a count too, O(log d) for d distinct scores; it changes only
// when a score gains its first player or loses its last, which the removal
// and insertion in the players' tree detect from the neighbours of the key
// (players of one score are contiguous) at no extra search.
//
// Costs: add, set, every rank, countAbove, countBefore, distinctAbove
// O(log n) worst case (amortised over splits and merges; no randomness, so
// the seed is unused and the structure depends on the operations alone);
// score, place and len O(1); top(k) O(k); distinctScoresAbove O(r) for r
// scores. A btset is not safe for concurrent use.
type btset struct {
	t   bttree // the players, keyed (score, stamp, id)
	d   bttree // the distinct scores, keyed (score, 0, 0)
	seq uint64 // the update counter, the last stamp given
	ids btids  // id → (score, stamp)
}

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

// insert adds k, which must be absent, and reports whether a key next to
// it in the order has its score (so the score was already held). The
// counts along the search path grow on the way down; a full leaf splits in
// two halves, and a split that fills the parent splits it in turn.
func (t *bttree) insert(k btkey) bool {
	var path [btMaxHeight]btstep
	p := t.root
	for h := t.height; h > 0; h-- {
		x := (*btinner)(p)
		c := x.child(k)
		x.cnt[c]++
		path[h-1] = btstep{x, c}
		p = x.kids[c]
	}
	l := (*btleaf)(p)
	j := l.lowerBound(k)
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

// newBtset returns an empty set. The seed is unused (a B-tree draws no
// random levels); it is there so the set is built as a zset is.
func newBtset(seed uint64) *btset {
	z := &btset{}
	z.ids.init()
	z.t.init()
	z.d.init()
	return z
}

// len returns the number of players.
func (z *btset) len() int { return z.t.length }

// score returns a player's score, and whether it is in the set. O(1).
func (z *btset) score(id uint64) (int64, bool) {
	p := z.ids.find(id)
	return p.score, p.stamp != 0
}

// place returns a player's score and stamp (its key in the order), and
// whether it is in the set. O(1).
func (z *btset) place(id uint64) (score int64, stamp uint64, ok bool) {
	p := z.ids.find(id)
	return p.score, p.stamp, p.stamp != 0
}

// add adds delta to a player's score; a new player starts at 0. It is
// addAt with the next stamp of the set's own counter.
func (z *btset) add(id uint64, delta int64) { z.addAt(id, delta, z.seq+1) }

// set sets a player's score: setAt with the next stamp of the set's own
// counter.
func (z *btset) set(id uint64, s int64) { z.setAt(id, s, z.seq+1) }

// addAt adds delta to a player's score (a new player starts at 0) as the
// update stamped stamp, which must be above every stamp given before (see
// zset.addAt).
func (z *btset) addAt(id uint64, delta int64, stamp uint64) {
	z.seq = stamp
	if p := z.ids.find(id); p.stamp != 0 {
		z.move(p, p.score+delta)
		return
	}
	z.join(id, delta)
}

// setAt sets a player's score as the update stamped stamp (above every
// stamp given before). A new player, or a change of score, is stamped with
// it; an unchanged score keeps its stamp and place. O(log n).
func (z *btset) setAt(id uint64, s int64, stamp uint64) {
	z.seq = stamp
	if p := z.ids.find(id); p.stamp != 0 {
		z.move(p, s)
		return
	}
	z.join(id, s)
}

// join places the new player id at score s with the current stamp.
func (z *btset) join(id uint64, s int64) {
	*z.ids.add(id) = btslot{id, s, z.seq}
	z.place1(btkey{s, z.seq, id})
}

// place1 inserts the key k of a player in the players' tree, and its score
// in the distinct scores' if it is new there.
func (z *btset) place1(k btkey) {
	if !z.t.insert(k) {
		z.d.insert(btkey{score: k.score})
	}
}

// move takes the player of slot p to score s with the current stamp,
// unless s is its score already.
func (z *btset) move(p *btslot, s int64) {
	if p.score == s {
		return
	}
	if !z.t.remove(btkey{p.score, p.stamp, p.id}) {
		z.d.remove(btkey{score: p.score})
	}
	p.score, p.stamp = s, z.seq
	z.place1(btkey{s, z.seq, p.id})
}

// rankOrdinal returns a player's position in the order, 1 for the best, or
// 0 for a player not in the set.
func (z *btset) rankOrdinal(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.t.countBefore(btkey{p.score, p.stamp, id})
}

// rankCompetition returns 1 + the players with a strictly higher score, or
// 0 for a player not in the set.
func (z *btset) rankCompetition(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.countAbove(p.score)
}

// rankDense returns 1 + the distinct scores strictly higher than the
// player's, or 0 for a player not in the set.
func (z *btset) rankDense(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.distinctAbove(p.score)
}

// countAbove returns the number of players with a score strictly higher
// than s: those before (s, 0, 0), the lowest place of score s. It sums over
// a board's shards. O(log n).
func (z *btset) countAbove(s int64) int { return z.t.countBefore(btkey{score: s}) }

// countBefore returns the number of players ahead of the place (score,
// stamp, id) in the set's order (see zset.countBefore). O(log n).
func (z *btset) countBefore(score int64, stamp, id uint64) int {
	return z.t.countBefore(btkey{score, stamp, id})
}

// top returns the k best players in order (all of them if fewer). O(k).
func (z *btset) top(k int) []zitem {
	k = max(0, min(k, z.t.length))
	out := make([]zitem, 0, k)
	for l := z.t.first; l != nil && len(out) < k; l = l.next {
		for j := 0; j < l.n && len(out) < k; j++ {
			out = append(out, zitem{id: l.tie[j].id, score: l.sc[j]})
		}
	}
	return out
}

// bytes returns the memory of the set counted from its nodes:
//
//	(leaves of both trees)      · Sizeof(btleaf)   (1536 B on 64-bit)
//	+ (inner nodes of both)     · Sizeof(btinner)  (2544 B)
//	+ the id table              slots · Sizeof(btslot) (24 B)
//
// A leaf is between half and completely full, so the players' tree costs
// 24–49 B a player (about 35 B at the ln 2 of random insertions) and its
// inner nodes about 1/45 of that; the table 32–48 B (its load between 1/2
// and 3/4). It leaves out the allocator's rounding of an inner node (2544
// to 2688 B): the benchmarks report the heap in use beside it. O(1).
func (z *btset) bytes() int64 {
	return z.t.bytes() + z.d.bytes() + int64(len(z.ids.slot))*int64(unsafe.Sizeof(btslot{}))
}

// check validates every invariant: both trees' (see bttree.check) and the
// table's (see btids.check), the players' stamps in 1..seq, the table holding exactly the players with
// their score and stamp, and the distinct-score tree holding exactly the
// players' scores, each once, with stamp and id 0. O(n).
func (z *btset) check() error {
	if err := z.t.check("players"); err != nil {
		return err
	}
	if err := z.d.check("distinct scores"); err != nil {
		return err
	}
	if err := z.ids.check(); err != nil {
		return err
	}
	if z.ids.n != z.t.length {
		return fmt.Errorf("btset: %d players in the tree, %d in the table", z.t.length, z.ids.n)
	}
	dl, dj, distinct := z.d.first, 0, 0
	for l := z.t.first; l != nil; l = l.next {
		for j := range l.n {
			k := l.key(j)
			if k.stamp == 0 || k.stamp > z.seq {
				return fmt.Errorf("btset: player %d stamp %d not in 1..%d", k.id, k.stamp, z.seq)
			}
			if p := z.ids.find(k.id); *p != (btslot{k.id, k.score, k.stamp}) {
				return fmt.Errorf("btset: player %d at (%d, %d) in the tree, in the table %+v", k.id, k.score, k.stamp, *p)
			}
			if distinct > 0 && (j > 0 && l.sc[j-1] == k.score || j == 0 && l.prev.sc[l.prev.n-1] == k.score) {
				continue
			}
			// k is the first player of its score: the next distinct score.
			for dl != nil && dj == dl.n {
				dl, dj = dl.next, 0
			}
			if dl == nil || dl.key(dj) != (btkey{score: k.score}) {
				return fmt.Errorf("btset: score %d of player %d not the next distinct score", k.score, k.id)
			}
			dj++
			distinct++
		}
	}
	if distinct != z.d.length {
		return fmt.Errorf("btset: players hold %d distinct scores, the tree %d", distinct, z.d.length)
	}
	return nil
}

// btids maps a player's id to its place (score, stamp): open addressing
// with linear probing (D. E. Knuth, TAOCP vol. 3, 6.4, algorithm L; the
// slot from the top bits of a mixed id times the size, D. Lemire's
// multiply-shift range reduction, so the size need not be a power of two)
// in one flat array, so that a lookup is one cache miss, where a Go map's
// directory, table and control word are up to three. Players never leave
// a set, so there are no deletions and no tombstones. The table is at most
// 3/4 full (a hit probes 2.5 slots on average, a miss 8.5: Knuth's
// formulas) and grows by half when it would go past that, by rehashing
// every player: O(1) amortised, O(n) for that one update.
type btids struct {
	slot []btslot
	n    int // players
}

// btslot is one player's place; a stamp of 0 marks an empty slot (a
// player's stamp is at least 1: stamps rise above the set's counter, which
// starts at 0).
type btslot struct {
	id    uint64
	score int64
	stamp uint64
}

// btmix spreads ids that differ only in their high bits, or share low
// ones, over the slots (the finaliser of MurmurHash3, A. Appleby).
func btmix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	return x ^ x>>33
}

func (m *btids) init() { m.slot, m.n = make([]btslot, 16), 0 }

// find returns id's slot, or the empty slot where it would go.
func (m *btids) find(id uint64) *btslot {
	i, _ := bits.Mul64(btmix(id), uint64(len(m.slot)))
	for {
		s := &m.slot[i]
		if s.stamp == 0 || s.id == id {
			return s
		}
		if i++; i == uint64(len(m.slot)) {
			i = 0
		}
	}
}

// add returns the empty slot for the absent id, growing the table first if
// it would be over 3/4 full; the caller fills it. A slot pointer held
// across an add may be stale.
func (m *btids) add(id uint64) *btslot {
	if 4*(m.n+1) > 3*len(m.slot) {
		old := m.slot
		m.slot = make([]btslot, len(old)+len(old)/2)
		for _, s := range old {
			if s.stamp != 0 {
				*m.find(s.id) = s
			}
		}
	}
	m.n++
	return m.find(id)
}

// check validates the table: n slots in use, at most 3/4 of them, and
// each player found at its own slot (its probe run unbroken). O(n).
func (m *btids) check() error {
	used := 0
	for i := range m.slot {
		s := &m.slot[i]
		if s.stamp == 0 {
			continue
		}
		used++
		if m.find(s.id) != s {
			return fmt.Errorf("btset: player %d at slot %d not found there", s.id, i)
		}
	}
	if used != m.n || 4*used > 3*len(m.slot) {
		return fmt.Errorf("btset: %d table slots in use of %d, counted %d", used, len(m.slot), m.n)
	}
	return nil
}
