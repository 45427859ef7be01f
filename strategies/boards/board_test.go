package boards

import (
	"math"
	"slices"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// boardRef is the brute-force board: every player's score and the stamp
// of the change that set it (the changes counted from 1, in stream order;
// an unchanged score keeps its stamp), ranks by counting.
type boardRef struct {
	seq   uint64
	score map[uint64]int64
	stamp map[uint64]uint64
}

func newBoardRef() *boardRef { return &boardRef{score: map[uint64]int64{}, stamp: map[uint64]uint64{}} }

func (r *boardRef) observe(batch []workload.Event) {
	for _, e := range batch {
		if e.Op != workload.Write && e.Op != workload.Set {
			continue
		}
		r.seq++
		old, ok := r.score[e.Key]
		s := e.Delta
		if e.Op == workload.Write {
			s = old + e.Delta
		}
		if !ok || s != old {
			r.score[e.Key], r.stamp[e.Key] = s, r.seq
		}
	}
}

// rank is the brute-force rank of a player under t.
func (r *boardRef) rank(p uint64, t strategies.Ties) int64 {
	s, ok := r.score[p]
	if !ok {
		return 0
	}
	var n int64
	above := map[int64]bool{}
	for q, qs := range r.score {
		switch t {
		case strategies.TiesCompetition:
			if qs > s {
				n++
			}
		case strategies.TiesOrdinal:
			if qs > s || qs == s && (r.stamp[q] < r.stamp[p] || r.stamp[q] == r.stamp[p] && q < p) {
				n++
			}
		case strategies.TiesDense:
			if qs > s {
				above[qs] = true
			}
		}
	}
	return 1 + n + int64(len(above))
}

func (r *boardRef) leaders(k int) []strategies.Standing {
	var all []strategies.Standing
	for p, s := range r.score {
		all = append(all, strategies.Standing{Player: p, Score: s})
	}
	slices.SortFunc(all, func(a, b strategies.Standing) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		if r.stamp[a.Player] != r.stamp[b.Player] {
			return cmpUint64(r.stamp[a.Player], r.stamp[b.Player])
		}
		return cmpUint64(a.Player, b.Player)
	})
	return all[:min(k, len(all))]
}

// boardStream is a small random score stream: players 0..players−1, deltas
// 1..maxDelta, a share of absolute scores in 0..setMax, and rank queries.
func boardStream(seed uint64, n, players int, maxDelta, setMax int64) []workload.Event {
	g := workload.SplitMix(seed)
	ev := make([]workload.Event, n)
	for i := range ev {
		e := workload.Event{At: int64(i) * 1000, Key: g.Uint64() % uint64(players), ID: uint64(i + 1)}
		switch g.Uint64() % 10 {
		case 0, 1:
			e.Op, e.Delta = workload.Set, int64(g.Uint64()%uint64(setMax+1))
		case 2:
			e.Op = workload.Read
		default:
			e.Op, e.Delta = workload.Write, 1+int64(g.Uint64()%uint64(maxDelta))
		}
		ev[i] = e
	}
	return ev
}

// TestBoardsMatchBruteForce: on small random streams, with scores coarse
// enough that most players tie, every exact board's every rank under all
// three tie policies, its leaders and its counts above equal the brute
// force, after every batch; the histogram of width 1 gives the exact
// competition rank, and a wider one errs by at most its bucket's players.
func TestBoardsMatchBruteForce(t *testing.T) {
	cases := []struct {
		players  int
		maxDelta int64
		setMax   int64
	}{{5, 2, 3}, {40, 3, 10}, {300, 5, 40}}
	for _, c := range cases {
		for seed := range uint64(8) {
			ev := boardStream(seed*31+uint64(c.players), 2000, c.players, c.maxDelta, c.setMax)
			ref := newBoardRef()
			boards := map[string]strategies.Board{}
			for _, s := range []int{1, 2, 3, 7} {
				b, err := NewShardedBoard(ShardedBoardParams{Shards: s, Ties: strategies.TiesOrdinal, Dense: DenseMerge}, designtest.NewMemStore(t), seed)
				if err != nil {
					t.Fatal(err)
				}
				boards["sharded-"+string(rune('0'+s))] = b
			}
			ss, _ := NewSortedSet(SortedSetParams{Ties: strategies.TiesDense}, designtest.NewMemStore(t), seed)
			boards["sorted-set"] = ss
			hist1, _ := NewScoreHistogram(ScoreHistogramParams{Width: 1}, 0)
			hist4, _ := NewScoreHistogram(ScoreHistogramParams{Width: 4}, 0)
			for start := 0; start < len(ev); start += 250 {
				batch := ev[start : start+250]
				ref.observe(batch)
				for _, b := range boards {
					b.Observe(batch)
				}
				hist1.Observe(batch)
				hist4.Observe(batch)
				for p := range uint64(c.players) {
					for _, tie := range strategies.AllTies {
						want := ref.rank(p, tie)
						for name, b := range boards {
							if got := b.Rank(p, tie); got != want {
								t.Fatalf("players %d seed %d after %d events: %s rank(%d, %s) = %d, want %d", c.players, seed, start+250, name, p, tie, got, want)
							}
						}
					}
					want := ref.rank(p, strategies.TiesCompetition)
					if got := hist1.Rank(p, strategies.TiesCompetition); got != want {
						t.Fatalf("histogram width 1: rank(%d) = %d, want %d", p, got, want)
					}
					if s, ok := ref.score[p]; ok {
						inBucket := int64(0)
						for _, qs := range ref.score {
							if qs/4 == s/4 {
								inBucket++
							}
						}
						if got := hist4.Rank(p, strategies.TiesCompetition); got < want-inBucket || got > want+inBucket {
							t.Fatalf("histogram width 4: rank(%d) = %d, true %d, off by more than its bucket's %d players", p, got, want, inBucket)
						}
					}
					if got := hist4.Rank(p, strategies.TiesOrdinal); got != 0 {
						t.Fatalf("histogram answers an ordinal rank: %d", got)
					}
				}
				want := ref.leaders(10)
				for name, b := range boards {
					if got := b.Leaders(10); !slices.Equal(got, want) {
						t.Fatalf("%s leaders = %v, want %v", name, got, want)
					}
					if got := b.Players(); got != int64(len(ref.score)) {
						t.Fatalf("%s players = %d, want %d", name, got, len(ref.score))
					}
					for s := int64(-1); s <= c.setMax+c.maxDelta*20; s += 3 {
						var n int64
						for _, qs := range ref.score {
							if qs > s {
								n++
							}
						}
						if got := b.CountAbove(s); got != n {
							t.Fatalf("%s CountAbove(%d) = %d, want %d", name, s, got, n)
						}
					}
				}
			}
		}
	}
}

// TestBoardTieOrder: three players reach the same score in different
// orders, by increments and by absolute scores, on one shard and on
// several: competition ranks tie, ordinal ranks follow who reached the
// score first, dense ranks count the distinct scores above.
func TestBoardTieOrder(t *testing.T) {
	const a, b, c, d = 9, 4, 6, 1 // ids out of order, so the id cannot explain the ordinal ranks
	ev := []workload.Event{
		{Op: workload.Write, Key: d, Delta: 20}, // d leads alone
		{Op: workload.Write, Key: a, Delta: 5},
		{Op: workload.Set, Key: b, Delta: 10},  // b reaches 10 first
		{Op: workload.Write, Key: a, Delta: 5}, // a reaches 10 second
		{Op: workload.Write, Key: c, Delta: 7},
		{Op: workload.Write, Key: c, Delta: 3}, // c third
		{Op: workload.Set, Key: b, Delta: 10},  // unchanged: b keeps its place
	}
	want := map[uint64][3]int64{ // competition, ordinal, dense
		d: {1, 1, 1}, b: {2, 2, 2}, a: {2, 3, 2}, c: {2, 4, 2},
	}
	for _, s := range []int{1, 2, 4} {
		bd, _ := NewShardedBoard(ShardedBoardParams{Shards: s, Ties: strategies.TiesCompetition, Dense: DenseMerge}, nil, 5)
		bd.Observe(ev)
		for p, w := range want {
			for i, tie := range strategies.AllTies {
				if got := bd.Rank(p, tie); got != w[i] {
					t.Errorf("%d shards: rank(%d, %s) = %d, want %d", s, p, tie, got, w[i])
				}
			}
		}
	}
}

// TestShardedDenseSumTrap: when two shards hold the same score, adding
// their distinct counts counts that score twice; uniting them does not.
func TestShardedDenseSumTrap(t *testing.T) {
	merge, _ := NewShardedBoard(ShardedBoardParams{Shards: 4, Ties: strategies.TiesDense, Dense: DenseMerge}, nil, 2)
	sum, _ := NewShardedBoard(ShardedBoardParams{Shards: 4, Ties: strategies.TiesDense, Dense: DenseSum}, nil, 2)
	var ev []workload.Event
	for p := range uint64(200) {
		ev = append(ev, workload.Event{Op: workload.Set, Key: p, Delta: int64(p % 10)}) // 10 scores, every shard holds most
	}
	merge.Observe(ev)
	sum.Observe(ev)
	ref := newBoardRef()
	ref.observe(ev)
	wrong := 0
	for p := range uint64(200) {
		want := ref.rank(p, strategies.TiesDense)
		if got := merge.Rank(p, strategies.TiesDense); got != want {
			t.Fatalf("merge: dense rank(%d) = %d, want %d", p, got, want)
		}
		got := sum.Rank(p, strategies.TiesDense)
		if got < want {
			t.Fatalf("sum: dense rank(%d) = %d below the truth %d: adding can only count a score twice", p, got, want)
		}
		if got != want {
			wrong++
		}
	}
	if wrong < 150 { // only the players on the top score escape
		t.Fatalf("the naive sum got %d of 200 dense ranks wrong; with 10 scores on 4 shards nearly all should be", wrong)
	}
	q, sent, most := merge.DenseScoresSent()
	if q != 200 || sent == 0 || most < 9 {
		t.Fatalf("merge sent %d scores over %d queries (most %d)", sent, q, most)
	}
}

// TestBoardStoreOps: a score change is one write to the player's shard key
// and a rank query reads every shard's key.
func TestBoardStoreOps(t *testing.T) {
	st := designtest.NewMemStore(t)
	b, _ := NewShardedBoard(ShardedBoardParams{Shards: 8, Ties: strategies.TiesCompetition, Dense: DenseMerge}, st, 1)
	ev := boardStream(3, 1000, 50, 3, 10)
	b.Observe(ev)
	var writes, reads int64
	for _, e := range ev {
		if e.Op == workload.Read {
			reads++
		} else {
			writes++
		}
	}
	if st.ZWrites != writes || st.ZReads != 8*reads {
		t.Fatalf("store took %d writes and %d reads, want %d and %d", st.ZWrites, st.ZReads, writes, 8*reads)
	}
	if st.Calls != 1 {
		t.Fatalf("%d Do calls for one batch", st.Calls)
	}
}

// TestBoardObserveAllocs: updates of players already on the board, and rank
// queries, allocate nothing.
func TestBoardObserveAllocs(t *testing.T) {
	b, _ := NewShardedBoard(ShardedBoardParams{Shards: 4, Ties: strategies.TiesOrdinal, Dense: DenseMerge}, nil, 1)
	h, _ := NewScoreHistogram(ScoreHistogramParams{Width: 1 << 20}, 100)
	ev := boardStream(4, 4096, 100, 1, 1<<20)
	b.Observe(ev) // every player joins, the buffers grow
	h.Observe(ev)
	for i := range ev {
		if ev[i].Op == workload.Set {
			ev[i].Op, ev[i].Delta = workload.Write, 1
		}
	}
	if n := testing.AllocsPerRun(5, func() { b.Observe(ev) }); n != 0 {
		t.Fatalf("sharded board: %v allocations a batch", n)
	}
	if n := testing.AllocsPerRun(5, func() { h.Observe(ev) }); n != 0 {
		t.Fatalf("histogram: %v allocations a batch", n)
	}
}

// TestBoardParams: bad tie policies, dense methods, shard counts and bucket
// widths are refused naming the key and what is allowed.
func TestBoardParams(t *testing.T) {
	for _, c := range []struct {
		typ, key string
		val      any
		want     string
	}{
		{"sorted-set", "ties", "fair", "allowed: competition, ordinal, dense"},
		{"sharded-board", "ties", "olympic", "allowed: competition, ordinal, dense"},
		{"sharded-board", "dense", "add", "allowed: merge, sum"},
		{"sharded-board", "shards", int64(0), "0 is out of range (allowed: 1..4096)"},
		{"score-histogram", "width", int64(0), "0 is out of range (allowed: 1..1099511627776)"},
		{"score-histogram", "width", int64(-5), "-5 is out of range"},
	} {
		typ, _ := strategies.Lookup(c.typ)
		raw := []scenarios.Param{{Key: c.key, Value: c.val, Pos: scenarios.Pos{Line: 7}}}
		if c.typ == "sharded-board" && c.key != "shards" {
			raw = append(raw, scenarios.Param{Key: "shards", Value: int64(2)})
		}
		_, err := designtest.DecodeParams(typ, raw)
		if err == nil || !designtest.ContainsAll(err.Error(), c.want, c.key) {
			t.Errorf("%s %s: %v: got %v, want an error with %q", c.typ, c.key, c.val, err, c.want)
		}
	}
}

// The histogram's rank error never exceeds its bucket's players, and the
// memory falls as the width grows: checked over widths on one stream.
func TestHistogramWidthTradeoff(t *testing.T) {
	ev := boardStream(9, 20000, 2000, 9, 500)
	ref := newBoardRef()
	ref.observe(ev)
	prevBytes := int64(math.MaxInt64)
	prevErr := -1.0
	for _, w := range []int64{1, 4, 16, 64} {
		h, _ := NewScoreHistogram(ScoreHistogramParams{Width: w}, 2000)
		h.Observe(ev)
		var sum float64
		for p := range ref.score {
			sum += math.Abs(float64(h.Rank(p, strategies.TiesCompetition) - ref.rank(p, strategies.TiesCompetition)))
		}
		mean := sum / float64(len(ref.score))
		if w == 1 && mean != 0 {
			t.Fatalf("width 1: mean rank error %v, want 0", mean)
		}
		if w > 1 && mean <= prevErr {
			t.Fatalf("width %d: mean rank error %v, not above the narrower %v", w, mean, prevErr)
		}
		if b := h.Parts()[0].Bytes; b >= prevBytes {
			t.Fatalf("width %d: %d B, not below the narrower %d B", w, b, prevBytes)
		}
		prevBytes, prevErr = h.Parts()[0].Bytes, mean
	}
}

// TestBoardLoad: standings loaded before a stream are stamped as changes
// are, send nothing to the store, and every rank after the stream matches
// the brute force that took them as Set events.
func TestBoardLoad(t *testing.T) {
	var standings []workload.Event
	for p := range uint64(300) {
		standings = append(standings, workload.Event{Op: workload.Set, Key: p, Delta: int64(p*7919) % 40})
	}
	ev := boardStream(11, 3000, 400, 4, 40)
	for _, s := range []int{1, 5} {
		st := designtest.NewMemStore(t)
		b, _ := NewShardedBoard(ShardedBoardParams{Shards: s, Ties: strategies.TiesOrdinal, Dense: DenseMerge}, st, 9)
		h, _ := NewScoreHistogram(ScoreHistogramParams{Width: 1}, 0)
		ref := newBoardRef()
		b.Load(standings)
		h.Load(standings)
		if st.ZWrites+st.ZReads != 0 || b.Players() != 300 || h.Players() != 300 {
			t.Fatalf("%d shards: loading sent %d ops; players %d and %d, want 300", s, st.ZWrites+st.ZReads, b.Players(), h.Players())
		}
		ref.observe(standings)
		b.Observe(ev)
		h.Observe(ev)
		ref.observe(ev)
		for p := range uint64(400) {
			for _, tie := range strategies.AllTies {
				if got, want := b.Rank(p, tie), ref.rank(p, tie); got != want {
					t.Fatalf("%d shards: rank(%d, %s) = %d, want %d", s, p, tie, got, want)
				}
			}
			if got, want := h.Rank(p, strategies.TiesCompetition), ref.rank(p, strategies.TiesCompetition); got != want {
				t.Fatalf("histogram: rank(%d) = %d, want %d", p, got, want)
			}
		}
	}
}

// TestUnionCount checks the dense merge's count of distinct scores over
// the shards' runs against sorting them and dropping repeats.
func TestUnionCount(t *testing.T) {
	g := workload.SplitMix(5)
	for trial := range 300 {
		shards := 1 + int(g.Uint64()%9)
		var buf []int64
		var ends []int
		for range shards {
			var run []int64
			for s := int64(40); s > 0; s-- { // distinct, highest first
				if g.Uint64()%3 == 0 {
					run = append(run, s*int64(1+trial%3)-20)
				}
			}
			buf = append(buf, run...)
			ends = append(ends, len(buf))
		}
		want := int64(len(slices.Compact(slices.Sorted(slices.Values(buf)))))
		if got := unionCount(buf, ends, make([]int, shards)); got != want {
			t.Fatalf("trial %d: %d distinct scores over %d runs, want %d", trial, got, shards, want)
		}
	}
}
