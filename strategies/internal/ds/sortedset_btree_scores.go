package ds

// The distinct scores of a btset (sortedset_btree.go): a second counted
// B+tree keyed (score, 0, 0), descending like the players', holding each
// score some player has once. It makes the dense rank and distinctAbove a
// count before a key, O(log d) for d distinct scores. The players' tree
// tells when a score comes or goes (bttree.insert and remove report a
// neighbour of the same score), so an update that keeps both scores held
// does not touch this tree.

// DistinctAbove returns the number of distinct scores strictly higher than
// s: the keys before (s, 0, 0). Unlike countAbove it does not sum over a
// board's shards (see zset.distinctAbove). O(log d).
func (z *BTSet) DistinctAbove(s int64) int { return z.d.countBefore(btkey{score: s}) }

// DistinctScoresAbove appends to buf the distinct scores strictly higher
// than s, highest first, and returns it (see zset.distinctScoresAbove).
// O(r) for r of them.
func (z *BTSet) DistinctScoresAbove(s int64, buf []int64) []int64 {
	for l := z.d.first; l != nil; l = l.next {
		for j := range l.n {
			if l.sc[j] <= s {
				return buf
			}
			buf = append(buf, l.sc[j])
		}
	}
	return buf
}
