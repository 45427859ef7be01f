package ds

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"unsafe"

	"countsim/workload"
)

// zsorted is the method set a board's sorted set has: zset (the skip list,
// sortedset.go) and btset (the counted B+tree, sortedset_btree.go). The
// tests below run against both through it.
type zsorted interface {
	Len() int
	score(id uint64) (int64, bool)
	Place(id uint64) (score int64, stamp uint64, ok bool)
	add(id uint64, delta int64)
	set(id uint64, s int64)
	AddAt(id uint64, delta int64, stamp uint64)
	SetAt(id uint64, s int64, stamp uint64)
	rankOrdinal(id uint64) int
	rankCompetition(id uint64) int
	rankDense(id uint64) int
	CountAbove(s int64) int
	CountBefore(score int64, stamp, id uint64) int
	DistinctAbove(s int64) int
	DistinctScoresAbove(s int64, buf []int64) []int64
	Top(k int) []zitem
	Bytes() int64
	check() error
}

var (
	_ zsorted = (*zset)(nil)
	_ zsorted = (*BTSet)(nil)
)

// zimpls are the sorted sets under test, by name and constructor.
var zimpls = []struct {
	name string
	new  func(seed uint64) zsorted
}{
	{"skiplist", func(seed uint64) zsorted { return newZset(seed) }},
	{"btree", func(seed uint64) zsorted { return NewBTSet(seed) }},
}

// forZimpls runs f as a subtest for each sorted set.
func forZimpls(t *testing.T, f func(t *testing.T, newSet func(seed uint64) zsorted)) {
	for _, im := range zimpls {
		t.Run("impl="+im.name, func(t *testing.T) { f(t, im.new) })
	}
}

// zref is the brute-force reference for zset: every player with its score
// and stamp, the same update counter, and ranks computed by sorting.
type zref struct {
	seq   uint64
	score map[uint64]int64
	stamp map[uint64]uint64
}

func newZref() *zref {
	return &zref{score: map[uint64]int64{}, stamp: map[uint64]uint64{}}
}

func (r *zref) set(id uint64, s int64) {
	r.seq++
	if old, ok := r.score[id]; ok && old == s {
		return
	}
	r.score[id], r.stamp[id] = s, r.seq
}

func (r *zref) add(id uint64, delta int64) { r.set(id, r.score[id]+delta) }

// sorted returns the players best first: score descending, stamp
// ascending, id ascending.
func (r *zref) sorted() []uint64 {
	ids := make([]uint64, 0, len(r.score))
	for id := range r.score {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, func(a, b uint64) int {
		switch {
		case r.score[a] != r.score[b]:
			if r.score[a] > r.score[b] {
				return -1
			}
			return 1
		case r.stamp[a] != r.stamp[b]:
			if r.stamp[a] < r.stamp[b] {
				return -1
			}
			return 1
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	return ids
}

func (r *zref) countAbove(s int64) int {
	n := 0
	for _, v := range r.score {
		if v > s {
			n++
		}
	}
	return n
}

func (r *zref) distinctAbove(s int64) int {
	seen := map[int64]bool{}
	for _, v := range r.score {
		if v > s {
			seen[v] = true
		}
	}
	return len(seen)
}

// zcompare fails t unless z agrees with r on everything: check, len, every
// player's score and three ranks, countAbove and distinctAbove over the
// whole score range and past it, and top(k) for every k.
func zcompare(t *testing.T, z zsorted, r *zref, lo, hi int64, what string) {
	t.Helper()
	if err := z.check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if z.Len() != len(r.score) {
		t.Fatalf("%s: len %d, want %d", what, z.Len(), len(r.score))
	}
	order := r.sorted()
	// The brute-force counts above every score of interest, once.
	above, dabove := map[int64]int{}, map[int64]int{}
	for s := lo - 2; s <= hi+2; s++ {
		above[s], dabove[s] = r.countAbove(s), r.distinctAbove(s)
	}
	for i, id := range order {
		s := r.score[id]
		if got, ok := z.score(id); !ok || got != s {
			t.Fatalf("%s: score(%d) = %d %v, want %d", what, id, got, ok, s)
		}
		if got := z.rankOrdinal(id); got != i+1 {
			t.Fatalf("%s: rankOrdinal(%d) = %d, want %d", what, id, got, i+1)
		}
		if got, want := z.rankCompetition(id), 1+above[s]; got != want {
			t.Fatalf("%s: rankCompetition(%d) = %d, want %d", what, id, got, want)
		}
		if got, want := z.rankDense(id), 1+dabove[s]; got != want {
			t.Fatalf("%s: rankDense(%d) = %d, want %d", what, id, got, want)
		}
	}
	for s := lo - 2; s <= hi+2; s++ {
		if got, want := z.CountAbove(s), above[s]; got != want {
			t.Fatalf("%s: countAbove(%d) = %d, want %d", what, s, got, want)
		}
		if got, want := z.DistinctAbove(s), dabove[s]; got != want {
			t.Fatalf("%s: distinctAbove(%d) = %d, want %d", what, s, got, want)
		}
	}
	ks := []int{-1, 0, 1, 2, len(order) / 2, len(order) - 1, len(order), len(order) + 1}
	if len(order) <= 20 {
		ks = ks[:0]
		for k := -1; k <= len(order)+1; k++ {
			ks = append(ks, k)
		}
	}
	for _, k := range ks {
		top := z.Top(k)
		want := order[:max(0, min(k, len(order)))]
		if len(top) != len(want) {
			t.Fatalf("%s: top(%d) has %d items, want %d", what, k, len(top), len(want))
		}
		for i, it := range top {
			if it.ID != want[i] || it.Score != r.score[want[i]] {
				t.Fatalf("%s: top(%d)[%d] = %+v, want {%d %d}", what, k, i, it, want[i], r.score[want[i]])
			}
		}
	}
}

// TestZsetRandom runs seeded random streams with heavy ties (scores in a
// small range, mixed add and set, players leaving a score and coming back)
// and compares everything with the brute force after every operation.
func TestZsetRandom(t *testing.T) { forZimpls(t, testZsetRandom) }

func testZsetRandom(t *testing.T, newSet func(uint64) zsorted) {
	cases := []struct {
		players, ops, seeds int
		hi                  int64
	}{
		{players: 3, ops: 200, seeds: 50, hi: 3},
		{players: 12, ops: 400, seeds: 50, hi: 20},
		{players: 200, ops: 3000, seeds: 2, hi: 20}, // several levels of spans
	}
	if testing.Short() {
		cases[2].ops = 600
	}
	for _, c := range cases {
		for seed := range uint64(c.seeds) {
			g := workload.SplitMix(seed*1000 + uint64(c.players))
			z, r := newSet(seed), newZref()
			for op := range c.ops {
				id := g.Uint64() % uint64(c.players)
				cur := r.score[id]
				switch g.Uint64() % 4 {
				case 0: // set anywhere in the range, often the same score
					s := int64(g.Uint64() % uint64(c.hi+1))
					z.set(id, s)
					r.set(id, s)
				case 1: // set to the current score: no change, no re-stamp
					z.set(id, cur)
					r.set(id, cur)
				default: // add a small delta, zero included, kept in range
					d := int64(g.Uint64()%7) - 3
					if cur+d < 0 || cur+d > c.hi {
						d = -d
					}
					if cur+d < 0 || cur+d > c.hi {
						d = 0
					}
					z.add(id, d)
					r.add(id, d)
				}
				zcompare(t, z, r, 0, c.hi, "")
				if t.Failed() {
					t.Fatalf("players %d seed %d op %d", c.players, seed, op)
				}
			}
		}
	}
}

// TestZsetFirstReached checks the ordinal tie-break: among equal scores the
// player who reached the score first ranks higher, whatever the order of
// their earlier moves, and an update that keeps the score keeps the place.
func TestZsetFirstReached(t *testing.T) { forZimpls(t, testZsetFirstReached) }

func testZsetFirstReached(t *testing.T, newSet func(uint64) zsorted) {
	const a, b, c = 7, 3, 5 // ids out of order, so the id tie-break cannot explain the ranks
	z := newSet(1)
	steps := []struct {
		id           uint64
		set          int64
		wantA, wantB int // rankOrdinal of a and b after the step
	}{
		{a, 5, 1, 0},
		{b, 5, 1, 2}, // a reached 5 first
		{a, 6, 1, 2}, // a higher
		{a, 5, 2, 1}, // a back at 5, now after b
		{b, 5, 2, 1}, // b unchanged: keeps its stamp and place
		{b, 4, 1, 2}, // b lower
		{b, 5, 1, 2}, // b back at 5, now after a
		{c, 5, 1, 2}, // a third player joins at 5 after both
		{a, 5, 1, 2}, // a unchanged
	}
	for i, s := range steps {
		z.set(s.id, s.set)
		if err := z.check(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if ga, gb := z.rankOrdinal(a), z.rankOrdinal(b); ga != s.wantA || gb != s.wantB {
			t.Fatalf("step %d (set %d to %d): ordinal ranks a=%d b=%d, want %d %d", i, s.id, s.set, ga, gb, s.wantA, s.wantB)
		}
	}
	if got := z.rankOrdinal(c); got != 3 {
		t.Fatalf("rankOrdinal(c) = %d, want 3", got)
	}
	// All three at 5: competition and dense ranks tie.
	for _, id := range []uint64{a, b, c} {
		if got := z.rankCompetition(id); got != 1 {
			t.Fatalf("rankCompetition(%d) = %d, want 1", id, got)
		}
		if got := z.rankDense(id); got != 1 {
			t.Fatalf("rankDense(%d) = %d, want 1", id, got)
		}
	}
	// add re-stamps too: c gains and loses 1 and is still last; a does the
	// same and falls behind b and c.
	z.add(a, 1)
	z.add(a, -1)
	if got := []int{z.rankOrdinal(b), z.rankOrdinal(c), z.rankOrdinal(a)}; !slices.Equal(got, []int{1, 2, 3}) {
		t.Fatalf("after a's round trip ordinal ranks b, c, a = %v, want [1 2 3]", got)
	}
	if z.rankOrdinal(99) != 0 || z.rankCompetition(99) != 0 || z.rankDense(99) != 0 {
		t.Fatalf("an absent player has a rank")
	}
	if _, ok := z.score(99); ok {
		t.Fatalf("an absent player has a score")
	}
}

// TestZsetDenseRanks pins the three policies on one board where they all
// differ: scores 9, 7, 7, 7, 4, 4, 1.
func TestZsetDenseRanks(t *testing.T) { forZimpls(t, testZsetDenseRanks) }

func testZsetDenseRanks(t *testing.T, newSet func(uint64) zsorted) {
	z := newSet(2)
	scores := []int64{9, 7, 7, 7, 4, 4, 1}
	for i, s := range scores {
		z.set(uint64(100-i), s)
	}
	if err := z.check(); err != nil {
		t.Fatal(err)
	}
	var comp, dense, ord []int
	for i := range scores {
		id := uint64(100 - i)
		comp = append(comp, z.rankCompetition(id))
		dense = append(dense, z.rankDense(id))
		ord = append(ord, z.rankOrdinal(id))
	}
	if want := []int{1, 2, 2, 2, 5, 5, 7}; !slices.Equal(comp, want) {
		t.Errorf("competition ranks %v, want %v", comp, want)
	}
	if want := []int{1, 2, 2, 2, 3, 3, 4}; !slices.Equal(dense, want) {
		t.Errorf("dense ranks %v, want %v", dense, want)
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7}; !slices.Equal(ord, want) {
		t.Errorf("ordinal ranks %v, want %v", ord, want)
	}
	if got := z.DistinctAbove(0); got != 4 {
		t.Errorf("distinctAbove(0) = %d, want 4", got)
	}
	if got := z.CountAbove(0); got != 7 {
		t.Errorf("countAbove(0) = %d, want 7", got)
	}
}

// TestZsetDeterministic: the same seed and operations give the same levels
// node for node; another seed gives other levels.
func TestZsetDeterministic(t *testing.T) {
	build := func(seed uint64) []int {
		z := newZset(seed)
		g := workload.SplitMix(42)
		for range 2000 {
			z.add(g.Uint64()%500, int64(g.Uint64()%100))
		}
		if err := z.check(); err != nil {
			t.Fatal(err)
		}
		var lv []int
		for x := z.head.at(0).next; x != nil; x = x.at(0).next {
			lv = append(lv, int(x.id), x.levels())
		}
		return lv
	}
	if a, b := build(1), build(1); !slices.Equal(a, b) {
		t.Fatal("same seed, different structure")
	}
	if a, b := build(1), build(2); slices.Equal(a, b) {
		t.Fatal("seeds 1 and 2 give the same levels")
	}
}

// TestZsetBytes checks bytes against its formula counted independently: a
// node and its levels per player, the same per distinct score, two heads,
// and the map estimate; and that the mean level is near 4/3 (p = 1/4).
func TestZsetBytes(t *testing.T) {
	z := newZset(3)
	const n = 20000
	for i := range uint64(n) {
		z.set(i, int64(i%1000))
	}
	levels, alloc, dlevels := 0, 0, 0
	for x := z.head.at(0).next; x != nil; x = x.at(0).next {
		levels += x.levels()
		alloc += zallocLevels(x.levels())
	}
	for x := z.d.head.lv[0].next; x != nil; x = x.lv[0].next {
		dlevels += len(x.lv)
	}
	// amd64 sizes: a player node 32 + 16 a link (its first link inline),
	// zdnode 40, zdlevel 16.
	want := int64(n*32+alloc*16) + int64(1000*40+dlevels*16) + 2*zMaxLevel*16 + 32 + 40 + n*17*8/7
	if got := z.Bytes(); got != want {
		t.Fatalf("bytes = %d, want %d", got, want)
	}
	// Mean level 4/3 with standard deviation of the mean ≈ 0.67/√n = 0.0047:
	// ±0.03 is over 6 sigma.
	if m := float64(levels) / n; m < 4.0/3-0.03 || m > 4.0/3+0.03 {
		t.Fatalf("mean level %.4f, want 4/3", m)
	}
}

// TestZsetCountBefore checks countBefore against a count over the sorted
// reference, at every player's own place (where it is rankOrdinal − 1) and
// at places no player holds: scores between and beyond theirs, stamps
// before, between and after theirs, ids on both sides.
func TestZsetCountBefore(t *testing.T) { forZimpls(t, testZsetCountBefore) }

func testZsetCountBefore(t *testing.T, newSet func(uint64) zsorted) {
	for seed := range uint64(20) {
		g := workload.SplitMix(seed + 77)
		z, r := newSet(seed), newZref()
		for range 300 {
			id := g.Uint64() % 40
			if g.Uint64()%3 == 0 {
				s := int64(g.Uint64() % 12)
				z.set(id, s)
				r.set(id, s)
			} else {
				d := int64(g.Uint64() % 3)
				z.add(id, d)
				r.add(id, d)
			}
		}
		sorted := r.sorted()
		ahead := func(score int64, stamp, id uint64) int {
			n := 0
			for _, p := range sorted {
				ps, pt := r.score[p], r.stamp[p]
				if ps > score || ps == score && (pt < stamp || pt == stamp && p < id) {
					n++
				}
			}
			return n
		}
		for i, id := range sorted {
			s, st, ok := z.Place(id)
			if !ok || s != r.score[id] || st != r.stamp[id] {
				t.Fatalf("seed %d: place(%d) = %d, %d, %v; want %d, %d", seed, id, s, st, ok, r.score[id], r.stamp[id])
			}
			if got := z.CountBefore(s, st, id); got != i {
				t.Fatalf("seed %d: countBefore at player %d's place = %d, want %d", seed, id, got, i)
			}
		}
		for range 200 {
			score := int64(g.Uint64()%16) - 2
			stamp := g.Uint64() % (r.seq + 2)
			id := g.Uint64() % 50
			if got, want := z.CountBefore(score, stamp, id), ahead(score, stamp, id); got != want {
				t.Fatalf("seed %d: countBefore(%d, %d, %d) = %d, want %d", seed, score, stamp, id, got, want)
			}
		}
	}
}

// TestZsetDistinctScoresAbove checks the list a shard sends for a dense
// rank: its distinct scores above s, highest first, as many as distinctAbove.
func TestZsetDistinctScoresAbove(t *testing.T) { forZimpls(t, testZsetDistinctScoresAbove) }

func testZsetDistinctScoresAbove(t *testing.T, newSet func(uint64) zsorted) {
	z := newSet(3)
	for i := range uint64(60) {
		z.set(i, int64(i%7)*3) // scores 0, 3, …, 18, each held by several players
	}
	for s := int64(-1); s <= 19; s++ {
		got := z.DistinctScoresAbove(s, nil)
		var want []int64
		for v := int64(18); v > s && v >= 0; v -= 3 {
			want = append(want, v)
		}
		if !slices.Equal(got, want) || len(got) != z.DistinctAbove(s) {
			t.Fatalf("distinctScoresAbove(%d) = %v, want %v (distinctAbove %d)", s, got, want, z.DistinctAbove(s))
		}
	}
}

// zbrute fails t unless z ranks every player as the sorted reference does:
// the three ranks, countBefore at each place, countAbove and distinctAbove
// at each score, and top(len). O(n log n), for boards too big for zcompare.
func zbrute(t *testing.T, z zsorted, r *zref, what string) {
	t.Helper()
	if err := z.check(); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	order := r.sorted()
	if z.Len() != len(order) {
		t.Fatalf("%s: len %d, want %d", what, z.Len(), len(order))
	}
	top := z.Top(len(order))
	comp, dense := 0, 0 // the competition and dense rank less one of the current score
	for i, id := range order {
		s := r.score[id]
		if i == 0 || s != r.score[order[i-1]] {
			comp, dense = i, dense+1
		}
		if top[i].ID != id || top[i].Score != s {
			t.Fatalf("%s: top[%d] = %+v, want {%d %d}", what, i, top[i], id, s)
		}
		if got := z.rankOrdinal(id); got != i+1 {
			t.Fatalf("%s: rankOrdinal(%d) = %d, want %d", what, id, got, i+1)
		}
		if got := z.CountBefore(s, r.stamp[id], id); got != i {
			t.Fatalf("%s: countBefore at player %d = %d, want %d", what, id, got, i)
		}
		if got := z.rankCompetition(id); got != comp+1 {
			t.Fatalf("%s: rankCompetition(%d) = %d, want %d", what, id, got, comp+1)
		}
		if got := z.rankDense(id); got != dense {
			t.Fatalf("%s: rankDense(%d) = %d, want %d", what, id, got, dense)
		}
		if got := z.CountAbove(s); got != comp {
			t.Fatalf("%s: countAbove(%d) = %d, want %d", what, s, got, comp)
		}
		if got := z.DistinctAbove(s); got != dense-1 {
			t.Fatalf("%s: distinctAbove(%d) = %d, want %d", what, s, got, dense-1)
		}
	}
}

// TestZsetLarge runs boards big enough for a tree of three levels and for
// merges and rotations of inner nodes: players pour in, then move in waves
// (the low scores drain to the top, emptying one end of the tree and
// filling the other) and at random, with stamps from an outside counter
// that skips values (addAt, setAt), checked in full against the reference
// after every wave.
func TestZsetLarge(t *testing.T) { forZimpls(t, testZsetLarge) }

func testZsetLarge(t *testing.T, newSet func(uint64) zsorted) {
	players, waves := uint64(12000), 6
	if testing.Short() {
		players, waves = 5000, 3
	}
	g := workload.SplitMix(11)
	z, r := newSet(4), newZref()
	stamp := uint64(0)
	next := func() uint64 { stamp += 1 + g.Uint64()%3; r.seq = stamp - 1; return stamp }
	for id := range players {
		s := int64(g.Uint64() % 500)
		z.SetAt(id, s, next())
		r.set(id, s)
	}
	zbrute(t, z, r, "after joining")
	for w := range waves {
		// The lowest half of the players, best first, jump above everyone.
		order := r.sorted()
		for i, id := range order[len(order)/2:] {
			s := int64(1000*(w+1)) + int64(i%50)
			z.SetAt(id, s, next())
			r.set(id, s)
		}
		// Then random moves, small and large, and unchanged scores.
		for range players {
			id := g.Uint64() % players
			switch g.Uint64() % 3 {
			case 0:
				d := int64(g.Uint64()%9) - 4
				z.AddAt(id, d, next())
				r.add(id, d)
			case 1:
				s := int64(g.Uint64() % uint64(1000*(w+2)))
				z.SetAt(id, s, next())
				r.set(id, s)
			default:
				s := r.score[id]
				z.SetAt(id, s, next())
				r.set(id, s)
			}
		}
		zbrute(t, z, r, fmt.Sprintf("wave %d", w))
	}
}

// TestBttreeRandom drives the bare tree through growth to several levels
// and back to empty, in orders that stress each repair (ascending,
// descending and random insertions; removals from the front, the back and
// at random), checking the tree after every operation, countBefore at
// probes against a sorted slice, and each insert's and remove's report of
// a neighbour of the same score against a count of keys by score.
func TestBttreeRandom(t *testing.T) {
	n := 9000 // over 64 leaves: three levels
	every := 1
	if testing.Short() {
		every = 61
	}
	orders := []string{"random", "ascending", "descending"}
	for _, ins := range orders {
		for _, del := range orders {
			t.Run("insert="+ins+"/remove="+del, func(t *testing.T) {
				g := workload.SplitMix(uint64(len(ins)*7 + len(del)))
				keys := make([]btkey, n)
				for i := range keys {
					keys[i] = btkey{score: int64(g.Uint64() % 300), stamp: uint64(i + 1), id: g.Uint64() % 1000}
				}
				arrange := func(how string) []btkey {
					ks := slices.Clone(keys)
					switch how {
					case "random":
						for i := len(ks) - 1; i > 0; i-- {
							j := int(g.Uint64() % uint64(i+1))
							ks[i], ks[j] = ks[j], ks[i]
						}
					case "ascending", "descending":
						slices.SortFunc(ks, func(a, b btkey) int {
							if a.before(b) == (how == "ascending") {
								return -1
							}
							return 1
						})
					}
					return ks
				}
				var tr bttree
				tr.init()
				var ref []btkey // sorted
				held := map[int64]int{}
				maxHeight := 0
				step := func(op int, what string) {
					if op%every == 0 || len(ref) == 0 {
						if err := tr.check("test"); err != nil {
							t.Fatalf("%s %d: %v", what, op, err)
						}
					}
					for range 3 {
						p := btkey{score: int64(g.Uint64()%302) - 1, stamp: g.Uint64() % uint64(n+2), id: g.Uint64() % 1001}
						want, _ := slices.BinarySearchFunc(ref, p, btcmp)
						if got := tr.countBefore(p); got != want {
							t.Fatalf("%s %d: countBefore(%+v) = %d, want %d", what, op, p, got, want)
						}
						above, _ := slices.BinarySearchFunc(ref, btkey{score: p.score + 1, stamp: math.MaxUint64, id: math.MaxUint64}, btcmp)
						if got := tr.countAbove(p.score); got != above {
							t.Fatalf("%s %d: countAbove(%d) = %d, want %d", what, op, p.score, got, above)
						}
					}
					maxHeight = max(maxHeight, tr.height)
				}
				for op, k := range arrange(ins) {
					// A key after every key of its score (no key has been
					// removed yet, so the separators are keys held) takes
					// the search by scores alone.
					i, _ := slices.BinarySearchFunc(ref, k, btcmp)
					last := i == len(ref) || ref[i].score != k.score
					if got, want := tr.insert(k, last), held[k.score] > 0; got != want {
						t.Fatalf("insert %d (%+v, last %v): reported the score held %v, want %v", op, k, last, got, want)
					}
					held[k.score]++
					ref = slices.Insert(ref, i, k)
					step(op, "insert")
				}
				if maxHeight < 2 {
					t.Fatalf("the tree grew to %d inner levels, want 2 or more", maxHeight)
				}
				for op, k := range arrange(del) {
					if got, want := tr.remove(k), held[k.score] > 1; got != want {
						t.Fatalf("remove %d (%+v): reported the score still held %v, want %v", op, k, got, want)
					}
					held[k.score]--
					i, _ := slices.BinarySearchFunc(ref, k, btcmp)
					ref = slices.Delete(ref, i, i+1)
					step(op, "remove")
				}
				if tr.length != 0 || tr.height != 0 || tr.leaves != 1 || tr.inners != 0 {
					t.Fatalf("emptied tree: %d keys, height %d, %d leaves, %d inner nodes", tr.length, tr.height, tr.leaves, tr.inners)
				}
			})
		}
	}
}

// btcmp orders keys as the tree does, for slices.BinarySearchFunc.
func btcmp(a, b btkey) int {
	switch {
	case a == b:
		return 0
	case a.before(b):
		return -1
	}
	return 1
}

// TestBtsetCheckCatches corrupts a checked set in one place at a time — a
// count moved between two children (the sum stays right), two keys of a
// leaf swapped, a separator moved past its child's keys, a map entry, a
// distinct score, a leaf link — and wants check to fail each time.
func TestBtsetCheckCatches(t *testing.T) {
	build := func() *BTSet {
		z := NewBTSet(1)
		g := workload.SplitMix(5)
		for id := range uint64(5000) {
			z.set(id, int64(g.Uint64()%400))
		}
		if err := z.check(); err != nil {
			t.Fatal(err)
		}
		if z.t.height < 1 {
			t.Fatalf("height %d, want inner nodes", z.t.height)
		}
		return z
	}
	root := func(z *BTSet) *btinner { return (*btinner)(z.t.root) }
	corruptions := []struct {
		name string
		f    func(z *BTSet)
	}{
		{"count moved", func(z *BTSet) { root(z).cnt[0]++; root(z).cnt[1]-- }},
		{"count off by one", func(z *BTSet) { root(z).cnt[root(z).n-1]-- }},
		{"length", func(z *BTSet) { z.t.length++ }},
		{"keys swapped", func(z *BTSet) {
			l := z.t.first.next
			a, b := l.key(3), l.key(4)
			l.setKey(3, b)
			l.setKey(4, a)
		}},
		{"separator", func(z *BTSet) { x := root(z); k := x.key(0); k.score += 50; x.setKey(0, k) }},
		{"table score", func(z *BTSet) { z.ids.find(7).score++ }},
		{"table extra", func(z *BTSet) { *z.ids.add(1 << 40) = btslot{1 << 40, 1, 1} }},
		{"table slot moved", func(z *BTSet) {
			for i, s := range z.ids.slot { // move a player to the slot after it
				if j := (i + 1) % len(z.ids.slot); s.stamp != 0 && z.ids.slot[j].stamp == 0 {
					z.ids.slot[i], z.ids.slot[j] = btslot{}, s
					return
				}
			}
		}},
		{"distinct score", func(z *BTSet) { z.d.first.sc[2]-- }},
		{"stamp past seq", func(z *BTSet) { z.seq = 10 }},
		{"leaf link", func(z *BTSet) { z.t.first.next.prev = nil }},
		{"leaf under half", func(z *BTSet) {
			l := z.t.first
			for l.n >= btLeafMin {
				l.removeAt(l.n - 1)
			}
		}},
	}
	for _, c := range corruptions {
		z := build()
		c.f(z)
		if err := z.check(); err == nil {
			t.Errorf("%s: check found nothing wrong", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
}

// TestBtsetBytes checks bytes against its formula counted independently:
// the leaves of both trees walked along their chains, the inner nodes
// walked from the roots, the map estimate. A board built best first fills
// each leaf to half (every split is at the end): 32 keys a leaf.
func TestBtsetBytes(t *testing.T) {
	z := NewBTSet(3)
	const n = 20000
	for i := range uint64(n) {
		z.set(i, int64(n-i)/20) // best last: each player joins at the end
	}
	leaves, keys := 0, 0
	for _, tr := range []*bttree{&z.t, &z.d} {
		for l := tr.first; l != nil; l = l.next {
			leaves++
			keys += l.n
		}
	}
	var inners func(p unsafe.Pointer, h int) int
	inners = func(p unsafe.Pointer, h int) int {
		if h == 0 {
			return 0
		}
		x, c := (*btinner)(p), 1
		for _, k := range x.kids[:x.n] {
			c += inners(k, h-1)
		}
		return c
	}
	in := inners(z.t.root, z.t.height) + inners(z.d.root, z.d.height)
	if keys != n+n/20+1 {
		t.Fatalf("%d keys in the leaves, want %d players and %d scores", keys, n, n/20+1)
	}
	// amd64 sizes: a leaf 24 + 63·24 = 1536, an inner node 8 + 63·24 + 64·16 = 2544.
	want := int64(leaves*1536+in*2544) + int64(len(z.ids.slot))*24
	if got := z.Bytes(); got != want {
		t.Fatalf("bytes = %d, want %d", got, want)
	}
	if want := (n + 31) / 32; z.t.leaves != want {
		t.Fatalf("%d leaves for %d players joining at the end, want %d (32 each)", z.t.leaves, n, want)
	}
}
