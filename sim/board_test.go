package sim

import (
	"context"
	"math"
	"testing"

	"countsim/workload"
)

// TestBoardTruthRanked: the truth's three ranks on a board built so that
// each tie policy gives a different answer, the top K in order, and the
// counts of distinct scores and tied players.
func TestBoardTruthRanked(t *testing.T) {
	tr := &boardTruth{players: map[uint64]boardEntry{}}
	tr.Observe([]workload.Event{
		{Op: workload.Write, Key: 9, Delta: 30}, // alone at the top
		{Op: workload.Set, Key: 4, Delta: 20},   // reaches 20 first
		{Op: workload.Write, Key: 2, Delta: 20}, // second at 20
		{Op: workload.Write, Key: 7, Delta: 5},
		{Op: workload.Write, Key: 7, Delta: 15}, // third at 20
		{Op: workload.Set, Key: 4, Delta: 20},   // unchanged: keeps its place
		{Op: workload.Write, Key: 1, Delta: 10},
		{Op: workload.Read, Key: 1},
	})
	tb, err := tr.ranked(context.Background(), 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []standing{ // player, then competition, ordinal, dense
		{player: 9, competition: 1, ordinal: 1, dense: 1},
		{player: 4, competition: 2, ordinal: 2, dense: 2},
		{player: 2, competition: 2, ordinal: 3, dense: 2},
		{player: 7, competition: 2, ordinal: 4, dense: 2},
		{player: 1, competition: 5, ordinal: 5, dense: 3},
	}
	if len(tb.checks) != len(want) {
		t.Fatalf("%d players checked, want %d", len(tb.checks), len(want))
	}
	for i, w := range want {
		g := tb.checks[i]
		if g.player != w.player || g.competition != w.competition || g.ordinal != w.ordinal || g.dense != w.dense {
			t.Errorf("place %d: got player %d ranks %d/%d/%d, want %d ranks %d/%d/%d", i+1,
				g.player, g.competition, g.ordinal, g.dense, w.player, w.competition, w.ordinal, w.dense)
		}
	}
	if len(tb.leaders) != 2 || tb.leaders[0].player != 9 || tb.leaders[1].player != 4 {
		t.Errorf("leaders %+v, want players 9 then 4", tb.leaders)
	}
	if tb.players != 5 || tb.distinct != 3 || tb.tied != 3 || tr.writes != 7 || tr.reads != 1 {
		t.Errorf("players %d, distinct %d, tied %d, writes %d, reads %d; want 5, 3, 3, 7, 1", tb.players, tb.distinct, tb.tied, tr.writes, tr.reads)
	}
	// The sample: the top 100, then evenly over the rest.
	big := &boardTruth{players: map[uint64]boardEntry{}}
	for p := range uint64(10_000) {
		big.Observe([]workload.Event{{Op: workload.Set, Key: p, Delta: int64(p % 97)}})
	}
	if tb, err = big.ranked(context.Background(), 1000, 10); err != nil {
		t.Fatal(err)
	}
	if len(tb.checks) != 1000 || tb.checks[99].ordinal != 100 || tb.checks[100].ordinal != 101 || tb.checks[999].ordinal < 9900 {
		t.Errorf("sample: %d checks, ordinals %d, %d … %d", len(tb.checks), tb.checks[99].ordinal, tb.checks[100].ordinal, tb.checks[999].ordinal)
	}
	for i := 1; i < len(tb.checks); i++ {
		if tb.checks[i].ordinal <= tb.checks[i-1].ordinal {
			t.Fatalf("sample not in order at %d", i)
		}
	}
}

// TestExpectedDistinct: the players expected on a board, by the grid
// integral past the first 4,096 ranks, within 0.1% of the exact sum over
// every rank.
func TestExpectedDistinct(t *testing.T) {
	for _, c := range []struct {
		keys uint64
		s, n float64
	}{{1_000_000, 0.8, 1e6}, {2_000_000, 1, 3e5}, {3000, 1, 1e4}, {500_000, 0, 2e5}} {
		z, err := workload.NewZipf(c.keys, c.s)
		if err != nil {
			t.Fatal(err)
		}
		var exact float64
		for r := uint64(1); r <= c.keys; r++ {
			exact += -math.Expm1(-c.n * z.Prob(r))
		}
		got := expectedDistinct(c.n, c.keys, z.Prob)
		if math.Abs(got-exact) > 1e-3*exact {
			t.Errorf("keys %d s %g n %g: got %.1f, exact %.1f", c.keys, c.s, c.n, got, exact)
		}
	}
}
