package ds

import (
	"fmt"
	"math/bits"
	"unsafe"

	"countsim/workload"
)

// zset is an order-statistic sorted set of players (uint64 ids) by score
// (int64), built as Redis's ZSET is: a skip list with spans (W. Pugh, "Skip
// lists: a probabilistic alternative to balanced trees", CACM 33(6), 1990;
// the span of each forward link, as in Redis's t_zset.c, is the number of
// level-0 steps it jumps, so summing spans along a search path gives a rank)
// plus a hash map id → node for O(1) lookup of a player's score and place.
// A first building block for leaderboards (issue 10).
//
// The order, best first: score descending; among equal scores the player
// who reached that score first (the lower stamp: every update advances a
// counter, and a change of score stamps the entry with it); then id
// ascending. A player's place is unique, so rankOrdinal is its position.
//
// A second, smaller skip list keeps the distinct scores, descending, each
// with its count of players; its spans count distinct scores, so the dense
// rank is O(log d) too (d distinct scores).
//
// Node levels come from a SplitMix64 generator started at the seed,
// P(level > k) = 4^-k (p = 1/4), at most 32: the same seed and the same
// operations build the same structure. Costs are expected ones, over the
// levels: add, set, every rank, countAbove, distinctAbove O(log n); score
// and len O(1); top(k) O(k). A zset is not safe for concurrent use.
type zset struct {
	head   *znode // a sentinel of zMaxLevel levels, before every player
	level  int    // levels in use, 1..zMaxLevel
	length int    // players
	seq    uint64 // the update counter, the last stamp given
	rng    workload.SplitMix
	nodes  map[uint64]*znode
	d      zdist
}

// zMaxLevel is the most levels a node has: with p = 1/4 it is reached with
// probability 4^-31 a node, enough for any count of players.
const zMaxLevel = 32

// zlevel is one forward link of a node: next is the following node on that
// level (nil past the last one) and span the number of level-0 steps from
// the node to next (to the end of the list when next is nil), so the spans
// along any level sum to the length.
type zlevel struct {
	next *znode
	span int
}

// znode is one player: its key (score, stamp, id) and its nlv links, one a
// level. The links lie in the node's own allocation, lv0 followed by the
// others (newZnode allocates a struct with room for them), so a step of a
// search touches one object, not a node and a separate array of links.
type znode struct {
	id    uint64
	score int64
	meta  uint64  // stamp<<zlvBits | levels−1; the stamp is the update that last changed the score
	dn    *zdnode // the player's score in the distinct-score list
	lv0   zlevel
}

// zlvBits is the low bits of znode.meta that hold the levels less one.
const zlvBits = 5

func (x *znode) stamp() uint64 { return x.meta >> zlvBits }
func (x *znode) levels() int   { return int(x.meta&(1<<zlvBits-1)) + 1 }

// restamp gives x a new stamp, keeping its levels.
func (x *znode) restamp(stamp uint64) { x.meta = stamp<<zlvBits | x.meta&(1<<zlvBits-1) }

// at returns the node's link on level i < nlv: lv0 and the levels that
// follow it in the node's allocation (unsafe.Add within one object).
func (x *znode) at(i int) *zlevel {
	return (*zlevel)(unsafe.Add(unsafe.Pointer(&x.lv0), uintptr(i)*unsafe.Sizeof(zlevel{})))
}

// zallocLevels is the room for links newZnode allocates for lvl levels:
// exactly lvl up to 8, and zMaxLevel above (a node in 4^8 = 65,536).
func zallocLevels(lvl int) int {
	if lvl <= 8 {
		return lvl
	}
	return zMaxLevel
}

// newZnode allocates a node with room for lvl links after its header.
func newZnode(lvl int) *znode {
	var x *znode
	switch zallocLevels(lvl) {
	case 1:
		x = new(znode)
	case 2:
		x = &new(struct {
			n    znode
			more [1]zlevel
		}).n
	case 3:
		x = &new(struct {
			n    znode
			more [2]zlevel
		}).n
	case 4:
		x = &new(struct {
			n    znode
			more [3]zlevel
		}).n
	case 5:
		x = &new(struct {
			n    znode
			more [4]zlevel
		}).n
	case 6:
		x = &new(struct {
			n    znode
			more [5]zlevel
		}).n
	case 7:
		x = &new(struct {
			n    znode
			more [6]zlevel
		}).n
	case 8:
		x = &new(struct {
			n    znode
			more [7]zlevel
		}).n
	default:
		x = &new(struct {
			n    znode
			more [zMaxLevel - 1]zlevel
		}).n
	}
	x.meta = uint64(lvl - 1)
	return x
}

// newZset returns an empty set whose node levels are drawn from seed.
func newZset(seed uint64) *zset {
	z := &zset{
		head:  newZnode(zMaxLevel),
		level: 1,
		rng:   workload.SplitMix(seed),
		nodes: make(map[uint64]*znode),
	}
	z.d.head = &zdnode{lv: make([]zdlevel, zMaxLevel)}
	z.d.level = 1
	return z
}

// randomLevel draws a node level: 1 + half the trailing zeros of a uniform
// word, so P(level > k) = 4^-k, capped at zMaxLevel.
func (z *zset) randomLevel() int {
	return min(1+bits.TrailingZeros64(z.rng.Uint64())/2, zMaxLevel)
}

// zbefore reports whether a ranks before b in the set's order.
func zbefore(a, b *znode) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.meta != b.meta { // different stamps: the stamp's bits decide
		return a.meta < b.meta
	}
	return a.id < b.id
}

// Len returns the number of players.
func (z *zset) Len() int { return z.length }

// score returns a player's score, and whether it is in the set. O(1).
func (z *zset) score(id uint64) (int64, bool) {
	if x, ok := z.nodes[id]; ok {
		return x.score, true
	}
	return 0, false
}

// Place returns a player's score and stamp (its key in the order), and
// whether it is in the set. O(1).
func (z *zset) Place(id uint64) (score int64, stamp uint64, ok bool) {
	if x, ok := z.nodes[id]; ok {
		return x.score, x.stamp(), true
	}
	return 0, 0, false
}

// add adds delta to a player's score; a new player starts at 0. It is
// addAt with the next stamp of the set's own counter.
func (z *zset) add(id uint64, delta int64) { z.AddAt(id, delta, z.seq+1) }

// set sets a player's score: setAt with the next stamp of the set's own
// counter.
func (z *zset) set(id uint64, s int64) { z.SetAt(id, s, z.seq+1) }

// AddAt adds delta to a player's score (a new player starts at 0) as the
// update stamped stamp, which must be above every stamp given before: a
// board sharded by player stamps each shard's updates from one counter of
// its own, so that "reached the score first" compares across shards.
func (z *zset) AddAt(id uint64, delta int64, stamp uint64) {
	x, ok := z.nodes[id]
	if !ok {
		z.SetAt(id, delta, stamp)
		return
	}
	z.seq = stamp
	z.update(x, x.score+delta)
}

// SetAt sets a player's score as the update stamped stamp (above every
// stamp given before). A new player, or a change of score, is stamped with
// it (the player reached that score now, after everyone already there); an
// unchanged score keeps its stamp and place. O(log n) expected.
func (z *zset) SetAt(id uint64, s int64, stamp uint64) {
	z.seq = stamp
	x, ok := z.nodes[id]
	if !ok {
		x = newZnode(z.randomLevel())
		x.id, x.score = id, s
		x.restamp(z.seq)
		z.nodes[id] = x
		z.joinScore(x, z.insert(x))
		return
	}
	z.update(x, s)
}

// update moves the player x to score s, stamped with the current update.
func (z *zset) update(x *znode, s int64) {
	if x.score == s {
		return
	}
	var update [zMaxLevel]*znode
	z.predecessors(x, &update)
	z.leaveScore(x)
	x.score = s
	x.restamp(z.seq)
	// As Redis's zslUpdateScore: when the new key still falls between the
	// neighbours, the node stays where it is; else it moves (keeping its
	// level, which is independent of its key).
	prev, next := update[0], x.at(0).next
	if (prev != z.head && !zbefore(prev, x)) || (next != nil && !zbefore(x, next)) {
		z.unlink(x, &update)
		prev = z.insert(x)
	}
	z.joinScore(x, prev)
}

// leaveScore takes x off the count of its score, removing the score from
// the distinct list when x was its last player: O(1), or O(log d) then.
func (z *zset) leaveScore(x *znode) {
	if x.dn.count--; x.dn.count == 0 {
		z.d.dec(x.score, z)
	}
	x.dn = nil
}

// joinScore counts x on its score. x was just placed after prev, with the
// newest stamp, so at the end of its score's players: if the score has
// players, prev is one of them and shares its distinct node (O(1)); else
// the score is new to the distinct list (O(log d)).
func (z *zset) joinScore(x, prev *znode) {
	if prev != z.head && prev.score == x.score {
		x.dn = prev.dn
		x.dn.count++
		return
	}
	x.dn = z.d.insert(x.score, z)
}

// predecessors fills update[i] with the last node before x on level i, for
// the levels in use; x's key must be the one it is linked under.
func (z *zset) predecessors(x *znode, update *[zMaxLevel]*znode) {
	p := z.head
	for i := z.level - 1; i >= 0; i-- {
		for y := p.at(i).next; y != nil && zbefore(y, x); y = p.at(i).next {
			p = y
		}
		update[i] = p
	}
}

// insert links x, allocated and unlinked, at its place and returns its
// predecessor on level 0 (the head if x is first).
func (z *zset) insert(x *znode) *znode {
	var update [zMaxLevel]*znode
	var rank [zMaxLevel]int // rank[i]: position of update[i] (head = 0)
	p := z.head
	for i := z.level - 1; i >= 0; i-- {
		if i < z.level-1 {
			rank[i] = rank[i+1]
		}
		for y := p.at(i).next; y != nil && zbefore(y, x); y = p.at(i).next {
			rank[i] += p.at(i).span
			p = y
		}
		update[i] = p
	}
	lvl := x.levels()
	for i := z.level; i < lvl; i++ {
		rank[i] = 0
		update[i] = z.head
		*z.head.at(i) = zlevel{next: nil, span: z.length}
	}
	z.level = max(z.level, lvl)
	for i := range lvl {
		u := update[i].at(i)
		x.at(i).next = u.next
		x.at(i).span = u.span - (rank[0] - rank[i])
		u.next = x
		u.span = rank[0] - rank[i] + 1
	}
	for i := lvl; i < z.level; i++ {
		update[i].at(i).span++
	}
	z.length++
	return update[0]
}

// unlink removes x given its predecessors on every level in use.
func (z *zset) unlink(x *znode, update *[zMaxLevel]*znode) {
	for i := 0; i < z.level; i++ {
		u := update[i].at(i)
		if u.next == x {
			u.span += x.at(i).span - 1
			u.next = x.at(i).next
		} else {
			u.span--
		}
	}
	for z.level > 1 && z.head.at(z.level-1).next == nil {
		z.level--
	}
	z.length--
}

// rankOrdinal returns a player's position in the order, 1 for the best: 1 +
// the players with a higher score, or the same score reached earlier (or at
// the same update with a lower id). It is 0 for a player not in the set.
func (z *zset) rankOrdinal(id uint64) int {
	x, ok := z.nodes[id]
	if !ok {
		return 0
	}
	rank, p := 0, z.head
	for i := z.level - 1; i >= 0; i-- {
		for y := p.at(i).next; y != nil && !zbefore(x, y); y = p.at(i).next {
			rank += p.at(i).span
			p = y
		}
		if p == x {
			return rank
		}
	}
	panic("strategies: zset node not in its list") // unreachable while check holds
}

// rankCompetition returns 1 + the players with a strictly higher score
// (ties share the best rank: 1, 2, 2, 4), or 0 for a player not in the set.
func (z *zset) rankCompetition(id uint64) int {
	x, ok := z.nodes[id]
	if !ok {
		return 0
	}
	return 1 + z.CountAbove(x.score)
}

// rankDense returns 1 + the distinct scores strictly higher than the
// player's (ties share a rank and no rank is skipped: 1, 2, 2, 3), or 0 for
// a player not in the set.
func (z *zset) rankDense(id uint64) int {
	x, ok := z.nodes[id]
	if !ok {
		return 0
	}
	return 1 + z.DistinctAbove(x.score)
}

// CountAbove returns the number of players with a score strictly higher
// than s. Over a board sharded by player it sums: the global count above s
// is the sum of the shards' counts. O(log n).
func (z *zset) CountAbove(s int64) int {
	rank, p := 0, z.head
	for i := z.level - 1; i >= 0; i-- {
		for y := p.at(i).next; y != nil && y.score > s; y = p.at(i).next {
			rank += p.at(i).span
			p = y
		}
	}
	return rank
}

// CountBefore returns the number of players ahead of the place (score,
// stamp, id) in the set's order: a higher score, or the same score reached
// at an earlier update, or at the same one with a lower id. On a board
// sharded by player, whose shards share one stamp counter, a player's
// ordinal rank is 1 + the sum over the shards of CountBefore of its place.
// O(log n).
func (z *zset) CountBefore(score int64, stamp, id uint64) int {
	rank, p := 0, z.head
	for i := z.level - 1; i >= 0; i-- {
		for y := p.at(i).next; y != nil && zahead(y, score, stamp, id); y = p.at(i).next {
			rank += p.at(i).span
			p = y
		}
	}
	return rank
}

// zahead reports whether y ranks before the place (score, stamp, id).
func zahead(y *znode, score int64, stamp, id uint64) bool {
	if y.score != score {
		return y.score > score
	}
	if st := y.stamp(); st != stamp {
		return st < stamp
	}
	return y.id < id
}

// DistinctAbove returns the number of distinct scores strictly higher than
// s. Unlike countAbove it does NOT sum over shards: two shards may hold the
// same score, so a sharded board needs the union of the shards' distinct
// scores above s, not the sum of their counts. O(log d).
func (z *zset) DistinctAbove(s int64) int {
	rank, p := 0, z.d.head
	for i := z.d.level - 1; i >= 0; i-- {
		for y := p.lv[i].next; y != nil && y.score > s; y = p.lv[i].next {
			rank += p.lv[i].span
			p = y
		}
	}
	return rank
}

// Top returns the k best players in order (all of them if fewer). O(k).
func (z *zset) Top(k int) []zitem {
	k = max(0, min(k, z.length))
	out := make([]zitem, 0, k)
	for x := z.head.at(0).next; x != nil && len(out) < k; x = x.at(0).next {
		out = append(out, zitem{ID: x.id, Score: x.score})
	}
	return out
}

// Bytes returns the memory of the set counted from its nodes:
//
//	Σ over player nodes        (Sizeof(znode) + (links−1)·Sizeof(zlevel))
//	+ Σ over distinct scores   (Sizeof(zdnode) + levels·Sizeof(zdlevel))
//	+ the two heads            (each with zMaxLevel levels)
//	+ the map                  len · (8 key + 8 pointer + 1 control byte) · 8/7
//
// where links is the room allocated (zallocLevels). On amd64 that is
// 32 + 16·levels a player (mean levels 4/3: 53 B) plus the map's ≈ 19 B
// at its maximum load of 7/8. It leaves out the allocator's
// rounding to size classes and a map's slack after it grows (up to twice
// the slots), so the heap in use is somewhat higher: the benchmarks report
// both. O(n).
func (z *zset) Bytes() int64 {
	var b int64
	for x := z.head; x != nil; x = x.at(0).next {
		b += int64(unsafe.Sizeof(znode{})) + int64(zallocLevels(x.levels())-1)*int64(unsafe.Sizeof(zlevel{}))
	}
	for x := z.d.head; x != nil; x = x.lv[0].next {
		b += int64(unsafe.Sizeof(zdnode{})) + int64(len(x.lv))*int64(unsafe.Sizeof(zdlevel{}))
	}
	b += int64(len(z.nodes)) * (8 + 8 + 1) * 8 / 7
	return b
}

// check validates every invariant of the set: the players' list strictly in
// order, every link's span equal to the level-0 distance it jumps (so the
// spans along each level sum to the length), no node above the levels in
// use, stamps no later than the update counter, the map holding exactly the
// listed nodes, and the distinct-score list strictly descending with spans
// likewise exact, counts equal to the players on each score, and every
// player pointing at its score's node. O(n).
func (z *zset) check() error {
	if z.level < 1 || z.level > zMaxLevel {
		return fmt.Errorf("zset: level %d not in 1..%d", z.level, zMaxLevel)
	}
	pos := make(map[*znode]int, z.length)
	counts := make(map[int64]int)
	n := 0
	var prev *znode
	for x := z.head.at(0).next; x != nil; x = x.at(0).next {
		n++
		pos[x] = n
		if prev != nil && !zbefore(prev, x) {
			return fmt.Errorf("zset: player %d (score %d, stamp %d) at %d not after player %d (score %d, stamp %d)",
				x.id, x.score, x.stamp(), n, prev.id, prev.score, prev.stamp())
		}
		if x.levels() < 1 || x.levels() > z.level {
			return fmt.Errorf("zset: player %d has %d levels, %d in use", x.id, x.levels(), z.level)
		}
		if x.stamp() == 0 || x.stamp() > z.seq {
			return fmt.Errorf("zset: player %d stamp %d not in 1..%d", x.id, x.stamp(), z.seq)
		}
		if m, ok := z.nodes[x.id]; !ok || m != x {
			return fmt.Errorf("zset: player %d in the list but not mapped to its node", x.id)
		}
		counts[x.score]++
		prev = x
	}
	if n != z.length || len(z.nodes) != n || len(pos) != n {
		return fmt.Errorf("zset: %d players listed, length %d, %d mapped", n, z.length, len(z.nodes))
	}
	for i := 0; i < z.level; i++ {
		at, sum := 0, 0
		for x := z.head; ; {
			l := *x.at(i)
			to := n
			if l.next != nil {
				to = pos[l.next]
			}
			if l.span != to-at {
				return fmt.Errorf("zset: level %d link from position %d has span %d, jumps %d", i, at, l.span, to-at)
			}
			sum += l.span
			if l.next == nil {
				break
			}
			x, at = l.next, to
		}
		if sum != n {
			return fmt.Errorf("zset: level %d spans sum to %d, length %d", i, sum, n)
		}
	}
	if z.level > 1 && z.head.at(z.level-1).next == nil {
		return fmt.Errorf("zset: top level %d in use is empty", z.level)
	}
	// The distinct scores.
	d := &z.d
	dpos := make(map[*zdnode]int, len(counts))
	k := 0
	for x := d.head.lv[0].next; x != nil; x = x.lv[0].next {
		k++
		dpos[x] = k
		if x.count != counts[x.score] || x.count < 1 {
			return fmt.Errorf("zset: distinct score %d counts %d players, %d hold it", x.score, x.count, counts[x.score])
		}
		if n := x.lv[0].next; n != nil && n.score >= x.score {
			return fmt.Errorf("zset: distinct score %d followed by %d", x.score, n.score)
		}
		if len(x.lv) < 1 || len(x.lv) > d.level {
			return fmt.Errorf("zset: distinct score %d has %d levels, %d in use", x.score, len(x.lv), d.level)
		}
	}
	for x := z.head.at(0).next; x != nil; x = x.at(0).next {
		if x.dn == nil || dpos[x.dn] == 0 || x.dn.score != x.score {
			return fmt.Errorf("zset: player %d of score %d not linked to its distinct score", x.id, x.score)
		}
	}
	if k != len(counts) || k != d.length {
		return fmt.Errorf("zset: %d distinct scores listed, length %d, players hold %d", k, d.length, len(counts))
	}
	for i := 0; i < d.level; i++ {
		at := 0
		for x := d.head; ; {
			l := x.lv[i]
			to := k
			if l.next != nil {
				to = dpos[l.next]
			}
			if l.span != to-at {
				return fmt.Errorf("zset: distinct level %d link from position %d has span %d, jumps %d", i, at, l.span, to-at)
			}
			if l.next == nil {
				break
			}
			x, at = l.next, to
		}
	}
	if d.level < 1 || (d.level > 1 && d.head.lv[d.level-1].next == nil) {
		return fmt.Errorf("zset: distinct level %d in use is empty", d.level)
	}
	return nil
}
