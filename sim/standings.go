package sim

import (
	"context"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"sync/atomic"
	"time"
)

// A board's standings: the players on the board before the stream — every
// player of the key space at its start score (scores.start_max), or a log's
// second file (standings:, log_board.go) — loaded into the truth and every
// board first, with progress lines while they load.

// load gives the truth and every design the standings before the stream,
// each on a goroutine of its own, in the order the input gives them (best
// first, so that every insertion lands at the end of a board's order). It
// returns the players of the standings.
//
// It looks at ctx while the input orders them, and each loader before each
// piece of loadPiece players it takes: stopped, every loader stops within a
// piece and load returns ctx's error, the loaders then holding different
// parts of the standings (the run judges no design against them).
func (k *boardKind) load(ctx context.Context, r *engine.ClusterRun, tr *boardTruth) (int, error) {
	n, fill, err := k.in.order(ctx)
	if err != nil {
		return n, err
	}
	names := []string{"truth"}
	for i, d := range r.Designs {
		if _, ok := d.(strategies.Loader); ok {
			names = append(names, r.Names[i])
		}
	}
	done := make([]atomic.Int64, len(names))
	stop := loadProgress(k.progress, names, done, int64(n))
	defer stop()
	feed := func(j int, take func([]workload.Event)) {
		buf := make([]workload.Event, 0, loadPiece)
		for off := 0; off < n; off += loadPiece {
			if ctx.Err() != nil {
				return
			}
			buf = fill(buf[:0], off, min(off+loadPiece, n))
			take(buf)
			done[j].Add(int64(len(buf)))
		}
	}
	jobs := []func(){func() { feed(0, tr.load) }}
	for _, d := range r.Designs {
		if l, ok := d.(strategies.Loader); ok {
			j := len(jobs)
			jobs = append(jobs, func() { feed(j, l.Load) })
		}
	}
	k.workers.Parallel(jobs)
	for j := range done {
		if done[j].Load() < int64(n) {
			return n, ctx.Err() // a loader stopped
		}
	}
	return n, nil
}

// order is the generator's standings: every player of the key space at
// its start score, best first (score descending, then rank ascending), so
// that among equal scores the more active player reached it first. The
// order is a counting sort over the scores (at most 2^24 + 1 of them),
// looking at ctx every stopEvery players.
func (g *boardGen) order(ctx context.Context) (int, func([]workload.Event, int, int) []workload.Event, error) {
	n, top := g.spec.Keys, g.spec.Scores.StartMax
	at := make([]uint32, top+2) // at[top−s]: where the players of score s begin
	for rank := uint64(1); rank <= n; rank++ {
		if engine.Stopped(ctx, int(rank)) {
			return int(n), nil, ctx.Err()
		}
		at[top-g.scores.StartScore(rank)+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	order := make([]uint32, n) // rank − 1, best first
	for rank := uint64(1); rank <= n; rank++ {
		if engine.Stopped(ctx, int(rank)) {
			return int(n), nil, ctx.Err()
		}
		j := top - g.scores.StartScore(rank)
		order[at[j]] = uint32(rank - 1)
		at[j]++
	}
	src := g.scores.Timed()
	return len(order), func(buf []workload.Event, lo, hi int) []workload.Event {
		for _, r0 := range order[lo:hi] {
			rank := uint64(r0) + 1
			buf = append(buf, workload.Event{Op: workload.Set, Key: src.KeyOf(rank), Delta: g.scores.StartScore(rank)})
		}
		return buf
	}, nil
}

// loadPiece is the players a loader takes between two looks at the run's
// context: at 4.3 µs a player (a sorted set of 20 M), 35 ms.
const loadPiece = 8192

// loadProgress reports on p the progress of the standings while they
// load, until the function it returns is called: the players every loader
// has taken, and the loader furthest behind.
func loadProgress(p engine.StageProgress, names []string, done []atomic.Int64, total int64) (stop func()) {
	return p.Ticker(time.Now(), func(pr *engine.Progress) {
		pr.Stage, pr.Events = "standings", total
		for j := range done {
			if n := done[j].Load(); n < pr.Events || j == 0 {
				pr.Events, pr.Slowest = n, names[j]
			}
		}
		pr.Done = float64(pr.Events) / float64(max(total, 1))
	})
}
