package ds

// The distinct scores of a zset (sortedset.go): a second, smaller skip list
// that makes the dense rank and distinct-above O(log d) for d distinct
// scores. Kept apart from the players' list, whose nodes it counts.

import "fmt"

// zdist is the skip list of distinct scores, descending, each node holding
// how many players have that score; a span counts distinct scores.
type zdist struct {
	head   *zdnode
	level  int
	length int     // distinct scores
	spare  *zdnode // the node dec last took out, for insert to reuse
}

type zdlevel struct {
	next *zdnode
	span int
}

type zdnode struct {
	score int64
	count int // players with this score, ≥ 1
	lv    []zdlevel
}

// search fills update with the last node of score > s on every level in use.
func (d *zdist) search(s int64, update *[zMaxLevel]*zdnode, rank *[zMaxLevel]int) {
	p := d.head
	for i := d.level - 1; i >= 0; i-- {
		if i < d.level-1 {
			rank[i] = rank[i+1]
		}
		for y := p.lv[i].next; y != nil && y.score > s; y = p.lv[i].next {
			rank[i] += p.lv[i].span
			p = y
		}
		update[i] = p
	}
}

// insert adds the score s, which must be absent, with a count of 1 and
// returns its node. The node is the spare dec left, with its level, or a
// new one whose level comes from z's generator: a node's level is drawn
// independently of its score, so reusing it keeps the list's law, and a
// player moving from a score held alone to a new one (the usual update)
// allocates nothing.
func (d *zdist) insert(s int64, z *zset) *zdnode {
	var update [zMaxLevel]*zdnode
	var rank [zMaxLevel]int
	d.search(s, &update, &rank)
	if y := update[0].lv[0].next; y != nil && y.score == s {
		panic(fmt.Sprintf("strategies: zset distinct score %d inserted twice", s)) // unreachable while check holds
	}
	x := d.spare
	if x != nil {
		d.spare = nil
		x.score, x.count = s, 1
	} else {
		x = &zdnode{score: s, count: 1, lv: make([]zdlevel, z.randomLevel())}
	}
	lvl := len(x.lv)
	for i := d.level; i < lvl; i++ {
		rank[i] = 0
		update[i] = d.head
		d.head.lv[i] = zdlevel{next: nil, span: d.length}
	}
	d.level = max(d.level, lvl)
	for i := range lvl {
		u := &update[i].lv[i]
		x.lv[i].next = u.next
		x.lv[i].span = u.span - (rank[0] - rank[i])
		u.next = x
		u.span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < d.level; i++ {
		update[i].lv[i].span++
	}
	d.length++
	return x
}

// dec removes the score s, which must be present with a count of 0.
func (d *zdist) dec(s int64, z *zset) {
	var update [zMaxLevel]*zdnode
	var rank [zMaxLevel]int
	d.search(s, &update, &rank)
	x := update[0].lv[0].next
	if x == nil || x.score != s {
		panic(fmt.Sprintf("strategies: zset distinct score %d missing", s)) // unreachable while check holds
	}
	if x.count != 0 {
		panic(fmt.Sprintf("strategies: zset distinct score %d removed with %d players", s, x.count)) // unreachable while check holds
	}
	for i := 0; i < d.level; i++ {
		u := &update[i].lv[i]
		if u.next == x {
			u.span += x.lv[i].span - 1
			u.next = x.lv[i].next
		} else {
			u.span--
		}
	}
	for d.level > 1 && d.head.lv[d.level-1].next == nil {
		d.level--
	}
	d.length--
	clear(x.lv)
	d.spare = x
}

// DistinctScoresAbove appends to buf the distinct scores of z strictly
// higher than s, highest first, and returns it: what a shard of a board
// sends its coordinator for a dense rank, where the shards' distinct
// scores must be united, not their counts added. O(r) for r of them.
func (z *zset) DistinctScoresAbove(s int64, buf []int64) []int64 {
	for y := z.d.head.lv[0].next; y != nil && y.score > s; y = y.lv[0].next {
		buf = append(buf, y.score)
	}
	return buf
}
