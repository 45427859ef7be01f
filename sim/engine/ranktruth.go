package engine

import (
	"context"
	"iter"
	"math"

	"countsim/internal/hugepages"
	"countsim/workload"
)

// Tally is the exact count of every key, as scoring reads it: the map
// truth of a timed stream and the rank truth of a count stream both are.
//
// The methods that read every key stop, with ctx's error, when ctx ends
// first: they look at it every stopEvery keys (stop.go).
type Tally interface {
	Count(key uint64) uint64
	Distinct(ctx context.Context) (int, error)
	Top(ctx context.Context, k int) ([]KeyCount, error)
	// Ready makes the truth ready to be read by several goroutines at once
	// (a truth by key sorts its keys); all calls it itself, without a
	// context, when it was not called.
	Ready(ctx context.Context) error
	// All yields every key written with its count, in an order fixed by
	// the run (never by map iteration).
	All() iter.Seq2[uint64, uint64]
}

// Observer takes the stream batch by batch, as the truth does.
type Observer interface {
	Observe(batch []workload.Event)
}

// RankObserver is a truth that can take a batch as the ranks of its keys,
// from a source that gives them (rankedSource): a stream of writes of 1.
type RankObserver interface {
	ObserveRanks(ranks []uint32)
}

// RankTruth is the ground truth of a count stream, whose keys are a
// bijection of Zipf ranks: the count of the key of rank r is at[r−1], an
// array of C, 4 bytes a key when no count can pass 2^32−1 (the stream has
// fewer events than that), else 8. An event costs one inverse of the
// stream's scrambler and one increment; the array shares no code with the
// designs it judges. 400,000,000 keys take 1.6 GB, in huge pages where
// the system gives them (hugepages.Make).
type RankTruth[C uint32 | uint64] struct {
	src      *workload.Stream
	scr      workload.Scrambler // the stream's: KeyOf(r) = scr.Key(r) when it scrambles
	scramble bool
	At       []C
	N        uint64 // sum of the deltas counted
}

// rankTruthMaxBytesPerKey is what a rank truth costs a key at most.
const rankTruthMaxBytesPerKey = 8

// NewRankTruth returns the rank truth of src: 4 bytes a key when its events
// fit a uint32 count, else 8.
func NewRankTruth(src *workload.Stream) TallyObserver {
	if src.Config().Events <= math.MaxUint32 {
		return newRankTruth[uint32](src)
	}
	return newRankTruth[uint64](src)
}

func newRankTruth[C uint32 | uint64](src *workload.Stream) *RankTruth[C] {
	cfg := src.Config()
	t := &RankTruth[C]{src: src, scr: workload.NewScrambler(cfg.Seed), scramble: cfg.Scramble}
	t.At = hugepages.Make[C](int(cfg.Keys))
	return t
}

// RankTruthBytes is the memory of the rank truth of a stream.
func RankTruthBytes(events int64, keys uint64) int64 {
	if events <= math.MaxUint32 {
		return 4 * int64(keys)
	}
	return rankTruthMaxBytesPerKey * int64(keys)
}

// TallyObserver is a truth that is fed and then read.
type TallyObserver interface {
	Tally
	Observer
	Total() uint64
}

// Observe counts every write in two passes over each block of events:
// first the rank of each key (the scrambler's inverse: arithmetic only),
// into a small array; then one increment a rank. Apart, the second pass is
// the floor's loop, whose cache misses the processor overlaps; together
// with the arithmetic they overlap far less.
func (t *RankTruth[C]) Observe(batch []workload.Event) {
	const block = 256
	var ranks [block]uint64
	var deltas [block]C
	at, scr, scramble, n := t.At, t.scr, t.scramble, t.N
	for len(batch) > 0 {
		part := batch[:min(block, len(batch))]
		batch = batch[len(part):]
		m := 0
		for i := range part {
			e := &part[i]
			if e.Op != workload.Write || e.Delta <= 0 {
				continue
			}
			rank := e.Key
			if scramble {
				rank = scr.Rank(e.Key)
			}
			ranks[m], deltas[m] = rank-1, C(e.Delta)
			n += uint64(e.Delta)
			m++
		}
		for i, r := range ranks[:m] {
			at[r] += deltas[i]
		}
	}
	t.N = n
}

// ObserveRanks counts a batch given as the ranks of its keys: a Stream's
// events are all writes of delta 1 (workload.Stream), so this is the
// floor's loop itself, one increment a rank.
func (t *RankTruth[C]) ObserveRanks(ranks []uint32) {
	at := t.At
	for _, r := range ranks {
		at[r-1]++
	}
	t.N += uint64(len(ranks))
}

func (t *RankTruth[C]) Total() uint64 { return t.N }

func (t *RankTruth[C]) Count(key uint64) uint64 {
	r := t.src.RankOf(key)
	if r < 1 || r > uint64(len(t.At)) {
		return 0
	}
	return uint64(t.At[r-1])
}

func (t *RankTruth[C]) Distinct(ctx context.Context) (int, error) {
	n := 0
	for i, c := range t.At {
		if Stopped(ctx, i) {
			return 0, ctx.Err()
		}
		if c != 0 {
			n++
		}
	}
	return n, nil
}

// Ready: an array by rank is read as it is.
func (t *RankTruth[C]) Ready(context.Context) error { return nil }

// All yields the keys written by rank, hottest first.
func (t *RankTruth[C]) All() iter.Seq2[uint64, uint64] {
	return func(yield func(uint64, uint64) bool) {
		for i, c := range t.At {
			if c != 0 && !yield(t.src.KeyOf(uint64(i)+1), uint64(c)) {
				return
			}
		}
	}
}

// Top selects the k heaviest keys in one pass over the array, without
// sorting it: a rank's key is worked out only when its count could enter
// the answer.
func (t *RankTruth[C]) Top(ctx context.Context, k int) ([]KeyCount, error) {
	sel := selection{k: k}
	for i, c := range t.At {
		if Stopped(ctx, i) {
			return nil, ctx.Err()
		}
		if c == 0 || sel.full() && uint64(c) < sel.last().Count {
			continue
		}
		sel.offer(KeyCount{t.src.KeyOf(uint64(i) + 1), uint64(c)})
	}
	return sel.best, nil
}
