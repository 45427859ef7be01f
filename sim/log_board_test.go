package sim

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/strategies"
)

// handBoard is a team's board log written by hand, and the test's own
// account of it: every player's score and the change that set it, ranked.
type handBoard struct {
	log, standings string
	scores         map[string]int64
	stamp          map[string]int
	writes, reads  int64
	busiest        int64 // changes in the busiest whole second
}

// writeHandBoard writes a CSV of player ids (strings), Unix times with a
// fraction, points, absolute scores (a few) and the op (a few rank reads,
// a few sets by op), and a standings file of 16 players, some tied, some
// never in the log; and works out the board they make, by its own rules:
// the standings first, best first and ties in the file's order, then each
// line in turn, a player's stamp the change that last moved its score.
func writeHandBoard(t *testing.T, dir string) *handBoard {
	t.Helper()
	hb := &handBoard{log: filepath.Join(dir, "board.csv"), standings: filepath.Join(dir, "season.csv"),
		scores: map[string]int64{}, stamp: map[string]int{}}
	seq := 0
	set := func(p string, s int64) {
		if old, ok := hb.scores[p]; !ok || old != s {
			seq++
			hb.scores[p], hb.stamp[p] = s, seq
		}
	}
	rng := rand.New(rand.NewPCG(25, 7))
	var st strings.Builder
	st.WriteString("user,season\n")
	type line struct {
		p string
		s int64
		i int
	}
	var stood []line
	for i := range 16 {
		p := fmt.Sprintf("u-%03x", i*37)
		if i%2 == 1 { // on the board for the season alone: its ties stay
			p = fmt.Sprintf("s-%d", i)
		}
		s := int64(10 * rng.IntN(4)) // 0, 10, 20, 30: ties
		fmt.Fprintf(&st, "%s,%d\n", p, s)
		stood = append(stood, line{p, s, i})
	}
	slices.SortFunc(stood, func(a, b line) int { return cmp.Or(cmp.Compare(b.s, a.s), cmp.Compare(a.i, b.i)) })
	for _, l := range stood {
		set(l.p, l.s)
	}
	var b strings.Builder
	b.WriteString("user,ts,points,score,kind\n")
	perSecond := map[int64]int64{}
	at := int64(1_767_225_600_250) // ms: 2026-01-01T00:00:00.25Z
	for range 3000 {
		at += int64(1 + rng.IntN(3))
		p := fmt.Sprintf("u-%03x", 37*rng.IntN(40))
		ts := fmt.Sprintf("%d.%03d", at/1000, at%1000)
		switch r := rng.IntN(100); {
		case r < 7:
			fmt.Fprintf(&b, "%s,%s,0,,read\n", p, ts)
			hb.reads++
			continue
		case r < 10: // a score set in the score column
			s := int64(rng.IntN(60))
			fmt.Fprintf(&b, "%s,%s,0,%d,write\n", p, ts, s)
			set(p, s)
		case r < 12: // a score set by op, the delta its score
			s := int64(rng.IntN(60))
			fmt.Fprintf(&b, "%s,%s,%d,,set\n", p, ts, s)
			set(p, s)
		default:
			d := int64(1 + rng.IntN(5))
			fmt.Fprintf(&b, "%s,%s,%d,,write\n", p, ts, d)
			set(p, hb.scores[p]+d)
		}
		hb.writes++
		perSecond[at/1000]++
	}
	for _, n := range perSecond {
		hb.busiest = max(hb.busiest, n)
	}
	for path, text := range map[string]string{hb.log: b.String(), hb.standings: st.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hb
}

// ranks is the test's ranking of the board: each player's competition,
// ordinal and dense rank (score descending, then the earlier stamp).
func (hb *handBoard) ranks() map[string][3]int64 {
	var ps []string
	for p := range hb.scores {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b string) int {
		return cmp.Or(cmp.Compare(hb.scores[b], hb.scores[a]), cmp.Compare(hb.stamp[a], hb.stamp[b]))
	})
	out := map[string][3]int64{}
	var comp, dense int64
	for i, p := range ps {
		if i == 0 || hb.scores[ps[i-1]] != hb.scores[p] {
			comp, dense = int64(i)+1, dense+1
		}
		out[p] = [3]int64{comp, int64(i) + 1, dense}
	}
	return out
}

const handBoardScenario = `name: hand
seed: 1
assumptions: {key_capacity: 10000}
workload:
  file: %s
  key: user
  time: ts
  delta: points
  score: score
  op: kind
  as: board
  standings: %s
  standings_score: season
  checked: 1000
questions: {top: 5}
cluster: {nodes: 2}
strategies:
  - {name: zset, type: sorted-set}
  - {name: sharded, type: sharded-board, params: {shards: 3, ties: dense}}
  - {name: hist, type: score-histogram, params: {width: 1}}
`

// TestLogBoardHandWritten: a hand-written log of string player ids, times,
// points, a few set scores (by a score column and by op) and rank reads,
// on standings from a second file, replayed as board: every design's rank
// of every player, under each tie policy it answers, is the test's own;
// the truth's ranks are too; and the run's rows say so (no rank wrong, the
// leaders exact, the players, changes and rank queries the test counted).
func TestLogBoardHandWritten(t *testing.T) {
	hb := writeHandBoard(t, t.TempDir())
	want := hb.ranks()
	scenario := fmt.Sprintf(handBoardScenario, hb.log, hb.standings)

	// The designs' own ranks, fed as the run feeds them.
	st := prepare(t, scenario, engine.Options{})
	k := st.Kind.(*boardKind)
	ctx := context.Background()
	tr := &boardTruth{players: map[uint64]boardEntry{}}
	r, err := k.newRun(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := k.load(ctx, r, tr); err != nil || n != 16 {
		t.Fatalf("standings: %d players, %v; want 16", n, err)
	}
	if _, err := k.feeder.Feed(ctx, r.Run, k.in.stream(), k.batch); err != nil || k.in.bad() != nil {
		t.Fatalf("feed: %v, %v", err, k.in.bad())
	}
	if tr.writes != uint64(hb.writes) || tr.reads != hb.reads || tr.busiest != hb.busiest {
		t.Errorf("truth: %d changes, %d reads, busiest second %d; the test counted %d, %d, %d", tr.writes, tr.reads, tr.busiest, hb.writes, hb.reads, hb.busiest)
	}
	for i, d := range r.Designs {
		rk := d.(strategies.Ranker)
		for p, w := range want {
			for _, tie := range rk.RankTies() {
				j := map[strategies.Ties]int{strategies.TiesCompetition: 0, strategies.TiesOrdinal: 1, strategies.TiesDense: 2}[tie]
				if got := rk.Rank(xxhash.Sum64String(p), tie); got != w[j] {
					t.Errorf("%s: %s rank of %s %d, the test's %d", r.Names[i], tie, p, got, w[j])
				}
			}
		}
	}
	tb, err := tr.ranked(ctx, 1000, 5)
	if err != nil || int(tb.players) != len(want) {
		t.Fatalf("truth: %d players, %v; the test has %d", tb.players, err, len(want))
	}
	for _, c := range tb.checks {
		for p, w := range want {
			if xxhash.Sum64String(p) == c.player && (c.competition != w[0] || c.ordinal != w[1] || c.dense != w[2]) {
				t.Errorf("truth: %s ranked %d/%d/%d, the test's %v", p, c.competition, c.ordinal, c.dense, w)
			}
		}
	}

	// The run's rows.
	rep, err := prepare(t, scenario, engine.Options{}).Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	value := func(design string, m metrics.Metric) float64 {
		t.Helper()
		for _, r := range rep.Results {
			if r.Strategy == design && r.Metric == m && r.Scale == metrics.Sim && r.Value != nil {
				return *r.Value
			}
		}
		t.Fatalf("no row %s %s", design, m)
		return 0
	}
	for _, c := range []struct {
		design string
		m      metrics.Metric
		want   float64
	}{
		{"truth", metrics.Players, float64(len(want))}, {"truth", metrics.Writes, float64(hb.writes)}, {"truth", metrics.RankQueries, float64(hb.reads)},
		{"zset", metrics.RanksWrongCompetition, 0}, {"zset", metrics.RanksWrongOrdinal, 0}, {"zset", metrics.RanksWrongDense, 0}, {"zset", metrics.TopExact, 1},
		{"sharded", metrics.RanksWrongDense, 0}, {"sharded", metrics.TopExact, 1}, {"sharded", metrics.RankFanout, 3},
		{"hist", metrics.RanksWrongCompetition, 0}, {"zset", metrics.Players, float64(len(want))},
	} {
		if got := value(c.design, c.m); got != c.want {
			t.Errorf("%s %s = %v, want %v", c.design, c.m, got, c.want)
		}
	}
}

// TestLogBoardPlansFromTheLog: once the log is read, the plans are worked
// out from its own figures — the load on the one sorted set's key at the
// log's busiest second, which the test counted, the shards' at a third of
// it — and a note gives them beside what Prepare estimated (before the
// read no load is planned: a log's rate is unknown until it is read).
func TestLogBoardPlansFromTheLog(t *testing.T) {
	hb := writeHandBoard(t, t.TempDir())
	st := prepare(t, fmt.Sprintf(handBoardScenario, hb.log, hb.standings), engine.Options{})
	for _, d := range st.Kind.(*boardKind).lineup.Members {
		for _, l := range d.Plan {
			if l.Metric == metrics.MaxKeyOps {
				t.Errorf("%s planned %v for max_key_ops_per_s before the log was read", d.Name(), l.Value)
			}
		}
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan := func(design string, m metrics.Metric) float64 { return mustPlan(t, rep, design, m) }
	if got := plan("zset", metrics.MaxKeyOps); got != float64(hb.busiest) {
		t.Errorf("the sorted set's key: plan %v, want the log's busiest second, %d", got, hb.busiest)
	}
	if got := plan("sharded", metrics.MaxKeyOps); got != float64(hb.busiest)/3 {
		t.Errorf("a shard's key: plan %v, want %v", got, float64(hb.busiest)/3)
	}
	note := fmt.Sprintf("The log held %s score changes and %s rank queries", metrics.Format(float64(hb.writes)), metrics.Format(float64(hb.reads)))
	if !slices.ContainsFunc(rep.Notes, func(s string) bool {
		return strings.HasPrefix(s, note) && strings.Contains(s, "read whole at Prepare: 3,000 events") && strings.Contains(s, "16 standing before it")
	}) {
		t.Errorf("notes %q, want one starting %q with the estimate", rep.Notes, note)
	}
}

// A log replayed as board and stopped part way is a partial report, judged
// on what was read: fewer changes than the log holds, the designs judged
// against the truth of those, and the notes saying that every plan is for
// what was fed.
func TestLogBoardStopped(t *testing.T) {
	const lines = 400_000
	log := filepath.Join(t.TempDir(), "long.csv")
	var b strings.Builder
	b.WriteString("user,points\n")
	for i := range lines {
		fmt.Fprintf(&b, "p%d,%d\n", (i*7919)%5000, 1+i%7)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCancelAt(cancel, func(p engine.Progress) bool { return p.Events > 0 })
	st := prepare(t, "name: stop\nseed: 1\nworkload: {file: "+log+", key: user, delta: points, as: board, rate: 100000, batch: 256}\n"+
		"strategies:\n  - {name: hist, type: score-histogram, params: {width: 1}}\n", engine.Options{Progress: c.progress, ProgressEvery: time.Millisecond})
	rep, err := st.Run(ctx)
	if !errors.Is(err, context.Canceled) || rep == nil || !rep.Partial {
		t.Fatalf("got %v and %+v, want context.Canceled and a partial report", err, rep)
	}
	if w := find(t, rep.Results, "truth", metrics.Writes).Number(); w <= 0 || w >= lines {
		t.Errorf("%v changes judged, want some of the %d", w, lines)
	}
	// Scoring what was fed has a grace after the stop (engine.ScoreGrace):
	// on a slow machine (the race detector) the ranks may be cut, and the
	// report then says so.
	switch rows := metrics.Select(rep.Results, "hist", metrics.RanksWrongCompetition, metrics.Sim); {
	case len(rows) > 0 && rows[0].Number() != 0:
		t.Errorf("the histogram of width 1 has %v competition ranks wrong against the truth of what was fed, want 0", rows[0].Number())
	case len(rows) == 0 && !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "Stopped while scoring: ") }):
		t.Errorf("no ranks for the histogram, and notes %q do not say they were cut", rep.Notes)
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.HasPrefix(n, "Stopped after ") }) {
		t.Errorf("notes %q do not say the plans are for what was fed", rep.Notes)
	}
}

// TestLogBoardDesignFails: a score a design cannot hold — a histogram of
// width 1 meeting a score of 4·10^12, beyond its 2^30 buckets — stops the
// run with the design's own words and its name, as an error, not a panic,
// while the other designs take every event; the report is partial.
func TestLogBoardDesignFails(t *testing.T) {
	log := filepath.Join(t.TempDir(), "huge.csv")
	var b strings.Builder
	b.WriteString("user,points,op\n")
	for i := range 20_000 {
		op, pts := "write", 1+i%7
		if i == 12_345 {
			op, pts = "set", 4_000_000_000_000
		}
		fmt.Fprintf(&b, "p%d,%d,%s\n", i%3000, pts, op)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := prepare(t, "name: huge\nseed: 1\nworkload: {file: "+log+", key: user, delta: points, op: op, as: board, rate: 100000, batch: 256}\n"+
		"strategies:\n  - {name: hist, type: score-histogram, params: {width: 1}}\n  - {name: wide, type: score-histogram, params: {width: 1_000_000_000_000}}\n", engine.Options{})
	rep, err := st.Run(context.Background())
	if err == nil || errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "hist failed after the first") || !strings.Contains(err.Error(), "widen the buckets") {
		t.Fatalf("got %v, want the histogram's failure by name", err)
	}
	if rep == nil || !rep.Partial {
		t.Fatalf("report %+v, want a partial one", rep)
	}
	if got := find(t, rep.Results, "wide", metrics.RanksWrongCompetition).Number(); got < 0 {
		t.Errorf("the wide histogram's ranks: %v", got)
	}
}
