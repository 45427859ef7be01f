package engine

import (
	"context"
	"math/bits"
	"slices"
	"time"
)

// Stopping a run (issue 24). Every long loop of a run — a board's
// standings, the feed, the truth's sort and sums, the comparison of every
// design with the truth — looks at its context once every stopEvery items,
// so that Ctrl-C stops the run within a second whatever step it is in, at
// a cost nothing beside the loop's own work (never once an event in a
// design's hot path).
//
// A stopped run still scores what was fed, for a report marked partial,
// under the context scoring gives: live for scoreGrace after the run's
// context ends. A small run is scored whole in that time; a large one's
// long scoring steps stop there, and the rows they would have given are
// left out, with a note that says so (Report.Notes).

// StopEvery is how many items a long loop handles between two looks at its
// context.
const StopEvery = 1 << 16

// Stopped reports whether ctx has ended, looking only when i is a multiple
// of stopEvery: call it with a loop's index.
func Stopped(ctx context.Context, i int) bool {
	return i&(StopEvery-1) == 0 && ctx.Err() != nil
}

// ScoreGrace is how long the scoring of a stopped run may go on after its
// context ended: the stop, the scoring, the report and the process's exit
// must fit in a second. Measured on leaderboard-full stopped mid-stream
// (10 GB resident): the lanes take what they were handed in 0.2 s, the
// report is written in 0.15 s, and the kernel frees the process's memory
// in 0.3 s. A variable: a test on a busy machine gives its scoring more.
var ScoreGrace = 150 * time.Millisecond

// Scoring returns the context the Scoring of a run looks at: not ended
// while ctx is live, and ended scoreGrace after ctx ends (with ctx's
// cause). The function it returns releases it.
func Scoring(ctx context.Context) (context.Context, context.CancelFunc) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		t := time.NewTimer(ScoreGrace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel(context.Cause(ctx))
		case <-sctx.Done(): // released first
		}
	})
	return sctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// SortStop sorts s by cmp as slices.SortFunc does, looking at ctx as it
// goes: a quicksort whose partitions of more than stopEvery elements look
// at ctx every few thousand swaps and between partitions, and whose
// smaller parts slices.SortFunc sorts (a few milliseconds each). It
// returns ctx's error when ctx ends first, s then in no particular order.
// cmp must be a strict total order (no two elements equal), so that the
// result is the one order whatever the algorithm: every caller breaks its
// ties by a unique field. In place; O(n log n) expected, and a part that
// recurses past 2·log₂ n levels is handed to slices.SortFunc whole.
func SortStop[E any](ctx context.Context, s []E, cmp func(a, b E) int) error {
	return quickStop(ctx, s, cmp, 2*bits.Len(uint(len(s))))
}

func quickStop[E any](ctx context.Context, s []E, cmp func(a, b E) int, depth int) error {
	for len(s) > StopEvery {
		if err := ctx.Err(); err != nil {
			return err
		}
		if depth == 0 {
			slices.SortFunc(s, cmp)
			return nil
		}
		depth--
		p, err := partitionStop(ctx, s, cmp)
		if err != nil {
			return err
		}
		// The smaller side recursively, the larger in the loop: the stack
		// stays O(log n).
		lo, hi := s[:p], s[p:]
		if len(lo) > len(hi) {
			lo, hi = hi, lo
		}
		if err := quickStop(ctx, lo, cmp, depth); err != nil {
			return err
		}
		s = hi
	}
	slices.SortFunc(s, cmp)
	return ctx.Err()
}

// partitionStop splits s (len(s) ≥ 3) around the median of three of its
// elements, Hoare's way with the pivot moved to s[0]: it returns p in
// [1, len(s)−1] with s[:p] ≤ pivot ≤ s[p:].
func partitionStop[E any](ctx context.Context, s []E, cmp func(a, b E) int) (int, error) {
	n := len(s)
	a, b, c := 0, n/2, n-1
	if cmp(s[b], s[a]) < 0 {
		a, b = b, a
	}
	if cmp(s[c], s[b]) < 0 {
		b = c
		if cmp(s[b], s[a]) < 0 {
			b = a
		}
	}
	s[0], s[b] = s[b], s[0]
	pivot := s[0]
	i, j := -1, n
	for swaps := 1; ; swaps++ {
		for i++; cmp(s[i], pivot) < 0; i++ {
		}
		for j--; cmp(s[j], pivot) > 0; j-- {
		}
		if i >= j {
			return j + 1, nil
		}
		s[i], s[j] = s[j], s[i]
		if swaps&(1<<12-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
	}
}
