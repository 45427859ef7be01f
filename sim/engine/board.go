package engine

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"countsim/workload"
)

// The board: how the pieces of a fed stream reach the lanes (the truth and
// every design), each lane taking its pieces in order, on as many lane
// workers as cores.

// laneDepth is how many pieces of the stream (lanePiece) the feed hands
// out ahead of the slowest lane: enough that a lane that is briefly slower
// does not stall the others, few enough that no lane runs far ahead of
// the slowest. A stopped feed waits for every lane to take what was handed
// out, so that all took the same events: the slowest lane's lag, at most
// laneDepth pieces, bounds the stop (pieceNs).
const laneDepth = 4

// laneRun is the most pieces a lane worker takes for one lane before it
// picks again.
const laneRun = 8

// lanePiece is the fewest events a lane is handed at a time: the whole
// batches of a chunk that make at least this many (one batch where a batch
// is larger, the whole chunk where the chunk is smaller). A chunk of
// 65,536 events is 3 MB; a piece, the part of it a lane takes in one go.
// Once the lanes have taken some, a piece is as many whole batches as the
// slowest lane takes in about pieceNs (pieceSpan), up to the chunk: a lane
// that waits for its next piece gives up its core, and at 4,096 events of
// a search stream (200 µs) the waits and wake-ups between pieces kept a
// fifth of two cores idle. Which events a lane takes in one Observe call
// (a batch) does not depend on it, so neither do the results.
const lanePiece = 4096

// pieceNs is the CPU time of the slowest lane a piece is cut to: long
// beside a lane's wake-up (tens of µs), short beside a stop's wait (the
// slowest lane's laneDepth pieces, 8 ms).
const pieceNs = 2_000_000

// pieceSpan is the events of a piece for batches of batch events, chunks
// of chunk events, the slowest lane having taken taken events in ns:
// pieceNs of it in whole batches, at least pieceLen(batch), at most the
// chunk's whole batches.
func pieceSpan(batch, chunk int, ns, taken int64) int {
	span := pieceLen(batch)
	if ns <= 0 || taken <= 0 || chunk <= span {
		return span
	}
	want := int64(float64(pieceNs) / (float64(ns) / float64(taken)))
	most := (chunk + batch - 1) / batch * batch
	if want <= int64(span) {
		return span
	}
	if want >= int64(most) {
		return most
	}
	return (int(want) + batch - 1) / batch * batch
}

// slowest is the ns and events taken of the lane that spent the most time
// an event so far.
func slowest(lanes []*lane) (ns, taken int64) {
	for _, l := range lanes {
		n, t := l.ns.Load(), l.taken.Load()
		if t > 0 && (taken == 0 || float64(n)/float64(t) > float64(ns)/float64(taken)) {
			ns, taken = n, t
		}
	}
	return ns, taken
}

// fedChunk is a chunk handed to every lane, piece by piece; the last lane
// done with its last piece gives its buffer back.
type fedChunk struct {
	chunk
	left atomic.Int32 // pieces × lanes not taken yet
}

// piece is the events lo..hi of a chunk handed to a lane: whole batches
// of it.
type piece struct {
	c      *fedChunk
	lo, hi int
}

// pieceLen is the events of a piece for batches of batch events: whole
// batches, at least lanePiece events or one batch.
func pieceLen(batch int) int { return max(batch, (lanePiece+batch-1)/batch*batch) }

// lane is one consumer of the stream: the truth, or one design. Lanes
// share nothing but the chunks they read, so a run's wall time approaches
// its slowest lane's, or the sum of all over the cores, rather than the
// sum of all. A lane takes its pieces in order, on one lane worker at a
// time (board).
type lane struct {
	name  string
	take  func(b []workload.Event, ranks []uint32) int64 // observes a batch (ranks nil but from a rankedSource), returns ns spent
	ns    atomic.Int64                                   // time spent taking batches
	taken atomic.Int64                                   // events taken
	// failed is why the lane stopped taking: a design that panicked on
	// what it was fed (a histogram's bucket beyond its reach, on a log's
	// score). The lane then drains what it is handed, untaken, and the
	// feed returns the failure once every lane is done. Written by the
	// worker that holds the lane, read after the workers end.
	failed error
	// next is the number of the next piece the lane takes; busy, whether
	// a worker holds it. Both under the board's lock.
	next int
	busy bool
}

// board is the pieces handed out that some lane has still to take, and
// the lane workers that take them: as many workers as cores, each taking
// the lane furthest behind that no other worker holds, for up to laneRun
// of its pieces. Where every lane had a goroutine and a thread, 26 lanes
// on 2 cores (topk-memory's) were preempted and handed between threads
// every few milliseconds; now a worker runs while it has work. A worker
// holds its thread only while it takes a piece (the lanes' clocks are
// their threads', lockLane): a worker locked to its thread for the whole
// feed was woken on that thread alone, each wake-up a hand-off of the
// core between threads, and the search day's workers waited for their
// threads 40% of the time while a core sat idle (1.35 cores busy, where
// 1.9 are now).
type board struct {
	mu     sync.Mutex
	cond   sync.Cond
	lanes  []*lane
	pieces []piece // pieces[i] is piece number base + i
	base   int
	closed bool // no piece is handed out any more
}

func newBoard(lanes []*lane) *board {
	b := &board{lanes: lanes}
	b.cond.L = &b.mu
	return b
}

// handed is the number of pieces handed out so far.
func (b *board) handed() int { return b.base + len(b.pieces) }

// slowest is the number of the next piece of the lane furthest behind.
func (b *board) slowest() int {
	least := b.handed()
	for _, l := range b.lanes {
		least = min(least, l.next)
	}
	return least
}

// hand hands p to every lane, once the slowest lane is fewer than
// laneDepth pieces behind.
func (b *board) hand(p piece) {
	b.mu.Lock()
	for b.handed()-b.slowest() >= laneDepth {
		b.cond.Wait()
	}
	b.pieces = append(b.pieces, p)
	b.mu.Unlock()
	b.cond.Broadcast()
}

// close says that no piece is handed out any more: the workers end once
// every lane has taken every piece.
func (b *board) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

// work is one lane worker: until the board is closed and every piece
// taken, it takes the lane furthest behind (the first such) that no
// worker holds and has pieces to take, and takes up to laneRun of them.
// The last lane done with a chunk gives its buffer back to the pool.
func (b *board) work(batch int, pool chan chunk) {
	var waiting runnable
	b.mu.Lock()
	for {
		var l *lane
		for _, c := range b.lanes {
			if !c.busy && c.next < b.handed() && (l == nil || c.next < l.next) {
				l = c
			}
		}
		if l == nil {
			if b.closed {
				b.mu.Unlock()
				return
			}
			b.cond.Wait()
			continue
		}
		// Hold the lane for up to laneRun pieces, handed out before or
		// while it takes them, marking each taken as it goes: the slowest
		// lane's progress is what lets the feed hand out more, and a lane
		// held for a run of pieces, its progress seen only at the run's
		// end, left the other worker idle once the rest were laneDepth
		// ahead (run search's cores 84% busy).
		l.busy = true
		for taken := 0; taken < laneRun && l.next < b.handed(); taken++ {
			p := b.pieces[l.next-b.base]
			b.mu.Unlock()
			lockLane()
			l.takePiece(p.c, p.lo, p.hi, batch)
			unlockLane()
			l.taken.Add(int64(p.hi - p.lo))
			if p.c.left.Add(-1) == 0 {
				pool <- p.c.chunk
			}
			// The feed (the goroutine that hands pieces out) and the
			// stream's generators have no thread of their own: they run
			// where a worker gives its core up. Without this the feed,
			// woken by the broadcast, waited for a core while both workers
			// ran until they ran dry: in run search it waited 1.08 s for a
			// core and ran 0.13 s, against 0.15–0.24 s waiting with it.
			// The core is given up only when a goroutine waits for one
			// (a read of the runtime's count, 80 ns).
			if waiting.others() {
				runtime.Gosched()
			}
			b.mu.Lock()
			l.next++
			if drop := b.slowest() - b.base; drop > 0 {
				n := copy(b.pieces, b.pieces[drop:])
				clear(b.pieces[n:])
				b.pieces = b.pieces[:n]
				b.base += drop
			}
			b.cond.Broadcast() // the feed may hand out more
		}
		l.busy = false
		b.cond.Broadcast() // another worker may take the lane
	}
}

// runnable reads the runtime's count of goroutines waiting for a core
// (about 80 ns a read); each worker holds its own.
type runnable [1]metrics.Sample

// others reports whether some goroutine waits for a core.
func (r *runnable) others() bool {
	if r[0].Name == "" {
		r[0].Name = "/sched/goroutines/runnable:goroutines"
	}
	metrics.Read(r[:])
	return r[0].Value.Kind() != metrics.KindUint64 || r[0].Value.Uint64() > 0
}

// takePiece observes events lo..hi of chunk c, batch by batch, unless the
// lane has failed; a panic of its design is its failure.
func (l *lane) takePiece(c *fedChunk, lo, hi, batch int) {
	if l.failed != nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			l.failed = fmt.Errorf("%s failed after the first %d events it took: %v", l.name, l.taken.Load(), v)
		}
	}()
	for ; lo < hi; lo += batch {
		end := min(lo+batch, hi)
		var ranks []uint32
		if c.ranks != nil {
			ranks = c.ranks[lo:end]
		}
		l.ns.Add(l.take(c.events[lo:end], ranks))
	}
}
