package ds

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"testing"

	"countsim/workload"
)

// The boards of the zset benchmarks: n players with ids 0..n-1 and scores
// uniform in [0, zbenchScores), so about n/10⁶ players share each score,
// in a skip list (zset) and in a counted B+tree (btset).
// An add draws a random player and a delta in 1..16; a rank draws a random
// player and asks its ordinal rank. Building a board of 2·10⁷ players takes
// a while, so each board is built once and shared by the sub-benchmarks
// and the -count repetitions (the adds keep n constant).
const (
	zbenchScores = 1 << 20
	zbenchMaxMem = 6 << 30   // skip a board that would need more heap than this
	zbenchEntry  = 130 + 110 // bytes an entry the two sets are budgeted at, above the measured ≈ 110 and ≈ 85
)

type zbenchBoard struct {
	z         *zset
	bt        *BTSet
	f         *zfloor
	heapZ     float64 // measured heap bytes an entry of z
	bytesEst  float64 // z.bytes() an entry
	heapBt    float64 // the same of bt
	bytesBtEs float64
}

var (
	zbenchBoards = map[int]*zbenchBoard{}
	zbenchName   = map[int]string{2e6: "2e6", 2e7: "2e7"}
)

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func zbenchGet(b *testing.B, n int) *zbenchBoard {
	if bd, ok := zbenchBoards[n]; ok {
		return bd
	}
	if int64(n)*zbenchEntry > zbenchMaxMem {
		b.Skipf("a board of %d players needs about %d MB, above %d MB", n, int64(n)*zbenchEntry>>20, zbenchMaxMem>>20)
	}
	bd := &zbenchBoard{f: newZfloor(n, 2*zbenchScores)}
	scores := make([]int32, n)
	g := workload.SplitMix(7)
	for id := range scores {
		scores[id] = int32(g.Uint64() % zbenchScores)
		bd.f.set(id, scores[id])
	}
	// Players join best first, so each insertion lands at the tail, along
	// a search path that stays in cache: a 2e7 board builds in seconds.
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(scores[b], scores[a]) })
	// Each set's heap is measured alone: the heap in use after building it
	// less the heap before.
	mid := heapInUse()
	bd.z = newZset(1)
	for _, id := range order {
		bd.z.set(uint64(id), int64(scores[id]))
	}
	after := heapInUse()
	bd.heapZ = float64(after-mid) / float64(n)
	bd.bytesEst = float64(bd.z.Bytes()) / float64(n)
	// The tree's players join by id, so at random places, as on a board
	// that has lived: its leaves fill to about ln 2 (A. C.-C. Yao, "On
	// random 2-3 trees", Acta Informatica 9, 1978), where joining best
	// first would leave every leaf half full.
	bd.bt = NewBTSet(1)
	for id, s := range scores {
		bd.bt.set(uint64(id), int64(s))
	}
	scores, order = nil, nil
	bd.heapBt = float64(heapInUse()-after) / float64(n)
	bd.bytesBtEs = float64(bd.bt.Bytes()) / float64(n)
	zbenchBoards[n] = bd
	return bd
}

// BenchmarkZset measures an update (add) and a rank query on boards of
// 2·10⁶ and 2·10⁷ players, for the zset (impl=countsim, the skip list), the
// btset (impl=btree, the counted B+tree) and a floor.
//
// The floor (zfloor) is the cheapest structure I know for the same stream
// when scores are small integers: the players' scores in an array indexed
// by id and a Fenwick tree (P. M. Fenwick, "A new data structure for
// cumulative frequency tables", Software: Practice and Experience 24(3),
// 1994) of players per score over the bounded score range. An add is two
// point updates, a rank a prefix sum, O(log R) each with no pointer
// chasing beyond the tree's array. It answers the competition rank only
// (no order among equal scores) and needs dense ids and a bounded range, so
// it is a floor for the work of a rank structure, not a substitute: a
// sorted slice would be simpler but costs O(n) an update, which is no floor.
// The ratio countsim/floor is the price of arbitrary ids and scores and of
// the ordinal tie-break.
func BenchmarkZset(b *testing.B) {
	for _, n := range []int{2e6, 2e7} {
		for _, op := range []string{"add", "rank"} {
			for _, impl := range []string{"floor", "countsim", "btree"} {
				b.Run(fmt.Sprintf("op=%s/n=%s/impl=%s", op, zbenchName[n], impl), func(b *testing.B) {
					if testing.Short() && n > 2e6 {
						b.Skip("a board of 2e7 players is skipped in -short")
					}
					bd := zbenchGet(b, n)
					zbenchRun(b, bd, op, impl, n)
				})
			}
		}
	}
}

func zbenchRun(b *testing.B, bd *zbenchBoard, op, impl string, n int) {
	g := workload.SplitMix(uint64(len(op)*31 + len(impl)))
	un := uint64(n)
	sink := 0
	b.ReportAllocs()
	switch op + "/" + impl {
	case "add/countsim":
		z := bd.z
		for b.Loop() {
			r := g.Uint64()
			z.add(r%un, int64(1+r>>60))
		}
	case "add/btree":
		z := bd.bt
		for b.Loop() {
			r := g.Uint64()
			z.add(r%un, int64(1+r>>60))
		}
	case "add/floor":
		f := bd.f
		for b.Loop() {
			r := g.Uint64()
			f.add(int(r%un), int32(1+r>>60))
		}
	case "rank/countsim":
		z := bd.z
		for b.Loop() {
			sink += z.rankOrdinal(g.Uint64() % un)
		}
	case "rank/btree":
		z := bd.bt
		for b.Loop() {
			sink += z.rankOrdinal(g.Uint64() % un)
		}
	case "rank/floor":
		f := bd.f
		for b.Loop() {
			sink += f.rankCompetition(int(g.Uint64() % un))
		}
	}
	if sink < 0 {
		b.Fatal("negative rank")
	}
	// One op is one update or one rank query: ns/event for make bench's
	// ratios to the floor (tools/benchratio.awk).
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
	switch impl {
	case "countsim":
		b.ReportMetric(bd.heapZ, "B/entry")
		b.ReportMetric(bd.bytesEst, "B/entry-est")
	case "btree":
		b.ReportMetric(bd.heapBt, "B/entry")
		b.ReportMetric(bd.bytesBtEs, "B/entry-est")
	default:
		b.ReportMetric(float64(bd.f.bytes())/float64(n), "B/entry")
	}
}

// zfloor is the benchmarks' floor: scores by dense id and a Fenwick tree of
// players per score in [0, r).
type zfloor struct {
	score []int32
	tree  []int32 // 1-based Fenwick tree over scores 0..r-1
	n     int32
}

func newZfloor(players, r int) *zfloor {
	sc := make([]int32, players)
	for i := range sc {
		sc[i] = -1
	}
	return &zfloor{score: sc, tree: make([]int32, r+1)}
}

func (f *zfloor) bytes() uint64 { return uint64(4*len(f.score) + 4*len(f.tree)) }

func (f *zfloor) bump(s int32, d int32) {
	for i := int(s) + 1; i < len(f.tree); i += i & -i {
		f.tree[i] += d
	}
}

// atMost returns the players with a score ≤ s.
func (f *zfloor) atMost(s int32) int32 {
	var c int32
	for i := int(s) + 1; i > 0; i -= i & -i {
		c += f.tree[i]
	}
	return c
}

func (f *zfloor) set(id int, s int32) {
	if int(s) >= len(f.tree)-1 {
		panic("zfloor: score past the range")
	}
	if old := f.score[id]; old >= 0 {
		f.bump(old, -1)
	} else {
		f.n++
	}
	f.score[id] = s
	f.bump(s, 1)
}

func (f *zfloor) add(id int, d int32) { f.set(id, f.score[id]+d) }

func (f *zfloor) rankCompetition(id int) int {
	return int(1 + f.n - f.atMost(f.score[id]))
}

// TestZfloor checks the benchmark floor against the zset on a small board,
// so the floor measures correct work.
func TestZfloor(t *testing.T) {
	const n = 500
	z, f := newZset(5), newZfloor(n, 64)
	g := workload.SplitMix(9)
	for i := range 5000 {
		id := g.Uint64() % n
		s := int32(g.Uint64() % 60)
		if i%2 == 0 {
			z.set(id, int64(s))
			f.set(int(id), s)
		} else if cur, ok := z.score(id); ok && cur+3 < 60 {
			z.add(id, 3)
			f.add(int(id), 3)
		}
		if i%97 == 0 {
			for id := range uint64(n) {
				if _, ok := z.score(id); ok && z.rankCompetition(id) != f.rankCompetition(int(id)) {
					t.Fatalf("op %d: player %d competition rank %d, floor %d", i, id, z.rankCompetition(id), f.rankCompetition(int(id)))
				}
			}
		}
	}
}
