package ds

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// BTSet is the sorted set of players of zset (sortedset.go) — the same
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
// scores. A BTSet is not safe for concurrent use.
type BTSet struct {
	t   bttree // the players, keyed (score, stamp, id)
	d   bttree // the distinct scores, keyed (score, 0, 0)
	seq uint64 // the update counter, the last stamp given
	top uint64 // the highest stamp given
	ids btids  // id → (score, stamp)
}

// NewBTSet returns an empty set. The seed is unused (a B-tree draws no
// random levels); it is there so the set is built as a zset is.
func NewBTSet(seed uint64) *BTSet {
	z := &BTSet{}
	z.ids.init()
	z.t.init()
	z.d.init()
	return z
}

// Len returns the number of players.
func (z *BTSet) Len() int { return z.t.length }

// score returns a player's score, and whether it is in the set. O(1).
func (z *BTSet) score(id uint64) (int64, bool) {
	p := z.ids.find(id)
	return p.score, p.stamp != 0
}

// Place returns a player's score and stamp (its key in the order), and
// whether it is in the set. O(1).
func (z *BTSet) Place(id uint64) (score int64, stamp uint64, ok bool) {
	p := z.ids.find(id)
	return p.score, p.stamp, p.stamp != 0
}

// Prefetch asks for the table slot where a lookup of id starts (see
// prefetch.go): a board calls it a few updates ahead of id's. It changes
// nothing. O(1).
func (z *BTSet) Prefetch(id uint64) { Prefetch(unsafe.Pointer(z.ids.home(id))) }

// add adds delta to a player's score; a new player starts at 0. It is
// addAt with the next stamp of the set's own counter.
func (z *BTSet) add(id uint64, delta int64) { z.AddAt(id, delta, z.seq+1) }

// set sets a player's score: setAt with the next stamp of the set's own
// counter.
func (z *BTSet) set(id uint64, s int64) { z.SetAt(id, s, z.seq+1) }

// AddAt adds delta to a player's score (a new player starts at 0) as the
// update stamped stamp, which must be above every stamp given before (see
// zset.addAt).
func (z *BTSet) AddAt(id uint64, delta int64, stamp uint64) {
	last := z.stampAt(stamp)
	if p := z.ids.find(id); p.stamp != 0 {
		z.move(p, p.score+delta, last)
	} else {
		z.join(p, id, delta, last)
	}
}

// stampAt makes stamp the current one and reports whether it is above
// every stamp given before, as it must be: then a key stamped with it comes
// after every key of its score (see bttree.insert).
func (z *BTSet) stampAt(stamp uint64) bool {
	z.seq = stamp
	if stamp > z.top {
		z.top = stamp
		return true
	}
	return false
}

// SetAt sets a player's score as the update stamped stamp (above every
// stamp given before). A new player, or a change of score, is stamped with
// it; an unchanged score keeps its stamp and place. O(log n).
func (z *BTSet) SetAt(id uint64, s int64, stamp uint64) {
	last := z.stampAt(stamp)
	if p := z.ids.find(id); p.stamp != 0 {
		z.move(p, s, last)
	} else {
		z.join(p, id, s, last)
	}
}

// join places the new player id at score s with the current stamp; p is
// the empty slot that a find of id gave, and last is stampAt's answer.
func (z *BTSet) join(p *btslot, id uint64, s int64, last bool) {
	*z.ids.addAt(p, id) = btslot{id, s, z.seq}
	z.place1(btkey{s, z.seq, id}, last)
}

// place1 inserts the key k of a player in the players' tree (k after every
// key of its score if last), and its score in the distinct scores' if it
// is new there (a score new there comes after every key of its score: it
// has none).
func (z *BTSet) place1(k btkey, last bool) {
	if !z.t.insert(k, last) {
		z.d.insert(btkey{score: k.score}, true)
	}
}

// move takes the player of slot p to score s with the current stamp,
// unless s is its score already; last is stampAt's answer.
func (z *BTSet) move(p *btslot, s int64, last bool) {
	if p.score == s {
		return
	}
	if !z.t.remove(btkey{p.score, p.stamp, p.id}) {
		z.d.remove(btkey{score: p.score})
	}
	p.score, p.stamp = s, z.seq
	z.place1(btkey{s, z.seq, p.id}, last)
}

// rankOrdinal returns a player's position in the order, 1 for the best, or
// 0 for a player not in the set.
func (z *BTSet) rankOrdinal(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.t.countBefore(btkey{p.score, p.stamp, id})
}

// rankCompetition returns 1 + the players with a strictly higher score, or
// 0 for a player not in the set.
func (z *BTSet) rankCompetition(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.CountAbove(p.score)
}

// rankDense returns 1 + the distinct scores strictly higher than the
// player's, or 0 for a player not in the set.
func (z *BTSet) rankDense(id uint64) int {
	p := z.ids.find(id)
	if p.stamp == 0 {
		return 0
	}
	return 1 + z.DistinctAbove(p.score)
}

// CountAbove returns the number of players with a score strictly higher
// than s: those before (s, 0, 0), the lowest place of score s. It sums over
// a board's shards. O(log n).
func (z *BTSet) CountAbove(s int64) int { return z.t.countAbove(s) }

// CountBefore returns the number of players ahead of the place (score,
// stamp, id) in the set's order (see zset.countBefore). O(log n).
func (z *BTSet) CountBefore(score int64, stamp, id uint64) int {
	return z.t.countBefore(btkey{score, stamp, id})
}

// Top returns the k best players in order (all of them if fewer). O(k).
func (z *BTSet) Top(k int) []zitem {
	k = max(0, min(k, z.t.length))
	out := make([]zitem, 0, k)
	for l := z.t.first; l != nil && len(out) < k; l = l.next {
		for j := 0; j < l.n && len(out) < k; j++ {
			out = append(out, zitem{ID: l.tie[j].id, Score: l.sc[j]})
		}
	}
	return out
}

// Bytes returns the memory of the set counted from its nodes:
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
func (z *BTSet) Bytes() int64 {
	return z.t.bytes() + z.d.bytes() + int64(len(z.ids.slot))*int64(unsafe.Sizeof(btslot{}))
}

// check validates every invariant: both trees' (see bttree.check) and the
// table's (see btids.check), the players' stamps in 1..seq, the table holding exactly the players with
// their score and stamp, and the distinct-score tree holding exactly the
// players' scores, each once, with stamp and id 0. O(n).
func (z *BTSet) check() error {
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

// home returns the slot where a lookup of id starts.
func (m *btids) home(id uint64) *btslot {
	i, _ := bits.Mul64(btmix(id), uint64(len(m.slot)))
	return &m.slot[i]
}

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
func (m *btids) add(id uint64) *btslot { return m.addAt(m.find(id), id) }

// addAt is add for the empty slot p that find(id) returned: p itself
// unless the table grows.
func (m *btids) addAt(p *btslot, id uint64) *btslot {
	if 4*(m.n+1) <= 3*len(m.slot) {
		m.n++
		return p
	}
	old := m.slot
	m.slot = make([]btslot, len(old)+len(old)/2)
	for _, s := range old {
		if s.stamp != 0 {
			*m.find(s.id) = s
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

// zitem is one (player, score) pair of a top-k answer.
type zitem struct {
	ID    uint64
	Score int64
}
