package sim

import (
	"cmp"
	"context"
	"countsim/sim/engine"
	"countsim/workload"
)

// The board's ground truth: every player's exact score, and the true
// board it ranks them into for the designs to be judged against.

// boardTruth is every player's exact score and the stamp of the change that
// set it: the changes counted from 1 in stream order, an unchanged score
// keeping its stamp, as every board stamps them.
type boardTruth struct {
	players map[uint64]boardEntry
	seq     uint64
	writes  uint64
	reads   int64
	// last is the time of the last event taken; second the simulated
	// second of the last change, inSecond the changes in it so far, and
	// busiest the most of any second: a log's own figures (its span, its
	// peak). Times never go back, in a generator's stream as in a log's.
	last, second      int64
	inSecond, busiest int64
}

type boardEntry struct {
	score int64
	stamp uint64
}

// load takes the standings: Set events stamped in order, not counted as
// changes of the stream.
func (t *boardTruth) load(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Set {
			t.seq++
			t.players[e.Key] = boardEntry{score: e.Delta, stamp: t.seq}
		}
	}
}

func (t *boardTruth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		t.last = e.At
		switch e.Op {
		case workload.Write, workload.Set:
			t.seq++
			t.writes++
			if sec := e.At / 1e9; sec != t.second {
				t.second, t.inSecond = sec, 0
			}
			t.inSecond++
			t.busiest = max(t.busiest, t.inSecond)
			old, ok := t.players[e.Key]
			s := e.Delta
			if e.Op == workload.Write {
				s = old.score + e.Delta
			}
			if !ok || s != old.score {
				t.players[e.Key] = boardEntry{score: s, stamp: t.seq}
			}
		case workload.Read:
			t.reads++
		}
	}
}

// standing is one player of the true board, with its three true ranks.
type standing struct {
	player uint64
	boardEntry
	competition, ordinal, dense int64
}

// trueBoard is what scoring needs of the truth: the leaders, the players
// whose ranks are checked, and the board's counts.
type trueBoard struct {
	leaders  []standing // the top K, in order
	checks   []standing // the top 100, then evenly spaced over the rest of the order
	players  int64
	distinct int64 // distinct scores
	tied     int64 // players who share their score with another
}

// ranked sorts every player into the true order (score descending, stamp
// ascending, id ascending) and works out the ranks under each tie policy
// of the top K and of the players checked: the first min(100, checked),
// then checked − 100 evenly spaced over the rest. It keeps the ranks of
// those only, so that a board of 20,000,000 players costs 24 B a player
// while it is sorted. It stops with ctx's error when ctx ends first
// (every stopEvery players, and in the sort: sortStop).
func (t *boardTruth) ranked(ctx context.Context, checked, top int) (trueBoard, error) {
	type entry struct {
		player uint64
		boardEntry
	}
	all := make([]entry, 0, len(t.players))
	for p, e := range t.players {
		if engine.Stopped(ctx, len(all)) {
			return trueBoard{}, ctx.Err()
		}
		all = append(all, entry{p, e})
	}
	// Every stamp is unique (one a change): the order is total.
	err := engine.SortStop(ctx, all, func(a, b entry) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		if c := cmp.Compare(a.stamp, b.stamp); c != 0 {
			return c
		}
		return cmp.Compare(a.player, b.player)
	})
	if err != nil {
		return trueBoard{}, err
	}
	n := len(all)
	picks := make([]int, 0, checked) // indices into all, ascending
	if n <= checked {
		for i := range n {
			picks = append(picks, i)
		}
	} else {
		head := min(100, checked)
		for i := range head {
			picks = append(picks, i)
		}
		rest, m := n-head, checked-head
		for j := range m {
			picks = append(picks, head+j*rest/m)
		}
	}
	tb := trueBoard{players: int64(n)}
	var competition int64
	next := 0
	for i := range all {
		if engine.Stopped(ctx, i) {
			return trueBoard{}, ctx.Err()
		}
		e := &all[i]
		if i > 0 && all[i-1].score == e.score {
			tb.tied++
			if i == 1 || all[i-2].score != e.score {
				tb.tied++ // the first of the group
			}
		} else {
			competition = int64(i) + 1
			tb.distinct++
		}
		s := standing{player: e.player, boardEntry: e.boardEntry, competition: competition, ordinal: int64(i) + 1, dense: tb.distinct}
		if i < top {
			tb.leaders = append(tb.leaders, s)
		}
		if next < len(picks) && picks[next] == i {
			tb.checks = append(tb.checks, s)
			next++
		}
	}
	return tb, nil
}
