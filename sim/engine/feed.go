package engine

import (
	"context"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"countsim/sim/cluster"
	"countsim/strategies"
	"countsim/workload"
)

// chunk is the chunk numbered index of the stream, generated into events.
type chunk struct {
	index  int
	events []workload.Event
	ranks  []uint32 // the rank of each event's key, from a rankedSource; else nil
}

// Run is what one simulation holds while the stream is fed.
type Run struct {
	Truth    Observer
	Designs  []strategies.Strategy
	Clusters []*cluster.Cluster // each design's own cluster; nil entries without one
	Elapsed  []int64            // ns each design spent in Observe, by its lane's clock (laneClock)
	Faults   []strategies.Fault
	Next     []int // the next fault to deliver, for each design
	// faultsGiven: the store faults have been given to the clusters
	// (storeFaults).
	faultsGiven bool
	Names       []string // the designs' names, in order: their lanes'
	// FedUntil is the simulated time (At) of the last event the feed
	// handed out: where a stopped stream stopped.
	FedUntil int64

	// Ticks are times (ascending) at which tick is called for each design,
	// between its last event before the time and its first at or after;
	// nextTick is each design's next.
	Ticks    []int64
	Tick     func(i int, at int64)
	NextTick []int
}

// Observe hands one batch to design i, delivering each fault between the
// last event before its time and the first at or after, and calling the
// run's tick, if any, at each tick time the same way. It returns the ns
// spent in Observe by the lane's clock (laneClock).
func (r *Run) Observe(i int, b []workload.Event) int64 {
	var ns int64
	d := r.Designs[i]
	for len(b) > 0 {
		// The earliest of the next fault's time and the next tick's: the
		// events before it go to Observe, then it is delivered, if the batch
		// holds an event at or after it (else a later batch delivers it).
		at, fault := int64(math.MaxInt64), false
		if r.Next[i] < len(r.Faults) {
			at, fault = r.Faults[r.Next[i]].At, true
		}
		if r.Tick != nil && r.NextTick[i] < len(r.Ticks) && r.Ticks[r.NextTick[i]] < at {
			at, fault = r.Ticks[r.NextTick[i]], false
		}
		cut := sort.Search(len(b), func(j int) bool { return b[j].At >= at })
		if cut > 0 {
			t0 := laneClock()
			d.Observe(b[:cut])
			ns += laneClock() - t0
		}
		if b = b[cut:]; len(b) > 0 {
			if fault {
				r.fault(i)
			} else {
				r.Tick(i, at)
				r.NextTick[i]++
			}
		}
	}
	return ns
}

// fault delivers design i's next fault: a crash to a design that holds
// counts in app servers, a node loss to the design's cluster (Fault, which
// loses the node at once); the other store faults reached the cluster
// before the stream (storeFaults) and reach no design.
func (r *Run) fault(i int) {
	f := r.Faults[r.Next[i]]
	r.Next[i]++
	switch {
	case f.Kind == strategies.NodeLoss:
		if c := r.Clusters[i]; c != nil {
			c.Fault(f)
		}
	case f.Kind.StoreFault():
	default:
		if fd, ok := r.Designs[i].(strategies.Faultable); ok {
			fd.Fault(f)
		}
	}
}

// storeFaults gives each design's cluster, once, every store fault of the
// run but the node losses (delivered at their time by fault): a cluster
// applies a node down, a slow node, a partition or a failover by simulated
// time, and must know of a failover before its lag begins, to tell which
// writes its master serves in it (cluster.Fault).
func (r *Run) storeFaults() {
	if r.faultsGiven {
		return
	}
	r.faultsGiven = true
	for _, c := range r.Clusters {
		if c == nil {
			continue
		}
		for _, f := range r.Faults {
			if f.Kind.StoreFault() && f.Kind != strategies.NodeLoss {
				c.Fault(f)
			}
		}
	}
}

// rankedSource is a source that can give the rank of each event's key
// beside the events (workload.Stream.ChunkRanks): a truth by rank then
// reads 4 bytes an event instead of inverting the key.
type rankedSource interface {
	Source
	ChunkRanks(i int, buf []workload.Event, ranks []uint32) ([]workload.Event, []uint32)
}

// Source is a chunked event stream: chunk i is a pure function of i, so
// chunks may be generated in any order by any number of goroutines. A
// Source whose Chunks is negative is read once, in order (a recorded log):
// one goroutine asks for its chunks 0, 1, 2, … and an empty chunk ends it.
type Source interface {
	Chunks() int
	Chunk(i int, buf []workload.Event) []workload.Event
}

// doneSource is a source that tells the share of it read so far, for the
// progress of one whose chunks are not counted in advance.
type doneSource interface {
	Done() float64
}

// Progress is what a long run has done so far, for a caller that shows it.
type Progress struct {
	Scenario string
	Events   int64         // events every design and the truth have taken
	Done     float64       // the share of the stream's chunks handed to the lanes, 0..1
	Elapsed  time.Duration // since the stream began
	Slowest  string        // the design (or "truth") that has spent the most time so far
	// Stage names what is done before the stream, when it is not the
	// stream itself: "standings" while a board's standings are loaded
	// (Events then counts the players every board has taken).
	Stage string
}

// DefaultProgressEvery is how often a run reports its progress when
// Options.Progress is set and Options.ProgressEvery is 0.
const DefaultProgressEvery = 2 * time.Second

// feedBuffers is the most chunk buffers a feed holds at once: one per
// generating worker, the chunks the lanes' queues and hands span (as many
// as the pieces they hold, where a piece is a whole chunk), and the chunk
// being handed out.
func feedBuffers(workers int) int { return workers + laneDepth + 3 }

// Workers is how many goroutines generate the chunks of a stream, or run
// jobs side by side (parallel): Options.Workers, else GOMAXPROCS. The
// results do not depend on it.
type Workers int

// workersOf is the workers Options ask for.
func workersOf(opts Options) Workers {
	if opts.Workers > 0 {
		return Workers(opts.Workers)
	}
	return Workers(runtime.GOMAXPROCS(0))
}

// Parallel runs the jobs on at most w goroutines and returns when all are
// done.
func (w Workers) Parallel(jobs []func()) {
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for _, job := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			job()
		}()
	}
	wg.Wait()
}

// Feeder feeds a source of events to the lanes of a run — the truth, when
// the run has one, and every design, each a lane taken by the board's
// lane workers —
// generating the chunks on its workers and reporting progress while it
// does. A kind that streams events keeps one; it holds nothing of a run,
// so one Feeder feeds every run of a kind (an audience's days).
type Feeder struct {
	Workers  Workers
	progress StageProgress
}

// FeedCount feeds a count stream (a count, a split one, a log) to the
// truth and every design, then a second time to the designs that read it
// twice.
func (f Feeder) FeedCount(ctx context.Context, r *Run, src Source, batch int) (int64, error) {
	events, err := f.Feed(ctx, r, src, batch)
	if err == nil {
		err = f.SecondPass(ctx, r, src, batch)
	}
	return events, err
}

// SecondPass feeds the stream again, after their SecondPass, to the designs
// that read it twice (strategies.TwoPass), each on its lane as before; the
// time they take adds to their first pass's.
func (f Feeder) SecondPass(ctx context.Context, r *Run, src Source, batch int) error {
	sub := &Run{}
	var idx []int
	for i, d := range r.Designs {
		if tp, ok := d.(strategies.TwoPass); ok {
			tp.SecondPass()
			sub.Designs = append(sub.Designs, d)
			sub.Names = append(sub.Names, r.Names[i])
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return nil
	}
	_, err := f.Feed(ctx, sub, src, batch)
	for j, i := range idx {
		r.Elapsed[i] += sub.Elapsed[j]
	}
	return err
}

// Feed generates the stream with several workers and hands it in stream
// order, in batches of at most batch events, to the truth (when r has one)
// and to every design, each a lane of the board (a worker a core). It
// returns the number of
// events fed, which every lane has taken when it returns. Each design's
// lane is named by r.names.
func (f Feeder) Feed(ctx context.Context, r *Run, src Source, batch int) (fedOut int64, err error) {
	if len(r.Next) != len(r.Designs) {
		r.Next = make([]int, len(r.Designs))
	}
	if len(r.Elapsed) != len(r.Designs) {
		r.Elapsed = make([]int64, len(r.Designs))
	}
	r.storeFaults()
	var lanes []*lane
	if r.Truth != nil {
		byRank, _ := r.Truth.(RankObserver)
		lanes = append(lanes, &lane{name: "truth", take: func(b []workload.Event, ranks []uint32) int64 {
			t0 := laneClock()
			if ranks != nil && byRank != nil {
				byRank.ObserveRanks(ranks)
			} else {
				r.Truth.Observe(b)
			}
			return laneClock() - t0
		}})
	}
	for i := range r.Designs {
		lanes = append(lanes, &lane{name: r.Names[i], take: func(b []workload.Event, _ []uint32) int64 { return r.Observe(i, b) }})
	}
	workers := int(f.Workers)
	nChunks := src.Chunks()
	inOrder := nChunks < 0 // read once, in order, until an empty chunk
	if inOrder {
		workers = 1
	}
	// Buffers are handed out in chunk order before the chunk's job is sent,
	// so the chunk the dispatcher waits for always has a buffer: no
	// deadlock however the workers and lanes are scheduled.
	ranked, _ := src.(rankedSource)
	pool := make(chan chunk, feedBuffers(workers))
	for range cap(pool) {
		pool <- chunk{}
	}
	bd := newBoard(lanes)
	var lanesDone sync.WaitGroup
	for range min(len(lanes), runtime.GOMAXPROCS(0)) {
		lanesDone.Go(func() { bd.work(batch, pool) })
	}
	jobs := make(chan chunk)
	done := make(chan chunk, cap(pool))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ranked != nil {
					j.events, j.ranks = ranked.ChunkRanks(j.index, j.events, j.ranks)
				} else {
					j.events = src.Chunk(j.index, j.events)
				}
				done <- j
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := 0; inOrder || i < nChunks; i++ {
			select {
			case buf := <-pool:
				buf.index = i
				select {
				case jobs <- buf:
				case <-stop:
					return
				}
			case <-stop:
				return
			}
		}
	}()
	start := time.Now()
	var dispatched atomic.Int64 // chunks handed to the lanes
	stopProgress := f.reportProgress(lanes, &dispatched, nChunks, src, start)
	defer func() {
		bd.close()
		lanesDone.Wait() // every lane takes what it was handed
		for _, l := range lanes {
			if l.failed != nil && (err == nil || ctx.Err() != nil) {
				err = l.failed // a design that failed is the run's failure, not a stop
				break
			}
		}
		stopProgress()
		close(stop)
		go func() { // drain so workers can finish, then let them go
			wg.Wait()
			close(done)
		}()
		for range done {
		}
		for i := range r.Designs {
			r.Elapsed[i] = lanes[len(lanes)-len(r.Designs)+i].ns.Load()
		}
	}()

	pending := map[int]chunk{}
	var fed int64
	for next := 0; inOrder || next < nChunks; {
		var c chunk
		select {
		case c = <-done:
		case <-ctx.Done(): // stop at the next piece, generated or not
			return fed, ctx.Err()
		}
		if inOrder && len(c.events) == 0 {
			return fed, nil // the end of a source read in order
		}
		pending[c.index] = c
		for {
			c, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			ns, taken := slowest(lanes)
			n, err := f.handOut(ctx, r, lanes, bd, pool, c, pieceSpan(batch, len(c.events), ns, taken))
			fed += n
			if err != nil {
				return fed, err
			}
			dispatched.Add(1)
			next++
		}
	}
	return fed, nil
}

// handOut hands chunk c to every lane, piece by piece (span events each,
// whole batches), until ctx ends: a piece is handed to every lane or to
// none, so that every lane takes the same events. It returns the events
// handed out, and notes the time of the last in r.fedUntil.
func (f Feeder) handOut(ctx context.Context, r *Run, lanes []*lane, bd *board, pool chan chunk, c chunk, span int) (int64, error) {
	pieces := (len(c.events) + span - 1) / span
	if len(lanes) == 0 || pieces == 0 {
		n := len(c.events)
		if err := ctx.Err(); err != nil {
			pool <- c
			return 0, err
		}
		if n > 0 {
			r.FedUntil = c.events[n-1].At
		}
		pool <- c // from here on, a generator may write into it
		return int64(n), nil
	}
	fc := &fedChunk{chunk: c}
	fc.left.Store(int32(pieces * len(lanes)))
	var fed int64
	for j := range pieces {
		if err := ctx.Err(); err != nil {
			// The pieces not handed out are taken by no lane.
			if fc.left.Add(-int32((pieces-j)*len(lanes))) == 0 {
				pool <- c
			}
			return fed, err
		}
		p := piece{c: fc, lo: j * span, hi: min((j+1)*span, len(c.events))}
		// Read before the piece is handed: once the lanes have taken the
		// last piece, the chunk's buffer is back in the pool and a
		// generator writes into it.
		at := c.events[p.hi-1].At
		bd.hand(p)
		fed += int64(p.hi - p.lo)
		r.FedUntil = at
	}
	return fed, nil
}

// reportProgress calls Options.Progress every ProgressEvery until the
// function it returns is called; without Options.Progress it does nothing.
func (f Feeder) reportProgress(lanes []*lane, dispatched *atomic.Int64, chunks int, src Source, start time.Time) (stop func()) {
	if len(lanes) == 0 {
		return func() {}
	}
	return f.progress.Ticker(start, func(p *Progress) {
		p.Events = lanes[0].taken.Load()
		var most int64 = -1
		for _, l := range lanes {
			p.Events = min(p.Events, l.taken.Load())
			if ns := l.ns.Load(); ns > most {
				most, p.Slowest = ns, l.name
			}
		}
		if chunks > 0 {
			p.Done = float64(dispatched.Load()) / float64(chunks)
		} else if d, ok := src.(doneSource); ok {
			p.Done = d.Done()
		}
	})
}

// StageProgress is a scenario's StageProgress line: Options.Progress, called every
// Options.ProgressEvery from a goroutine of its own while a stage runs.
type StageProgress struct {
	scenario string
	report   func(Progress) // nil: nothing is reported
	every    time.Duration  // 0: DefaultProgressEvery
}

// Ticker calls the report every p.every (DefaultProgressEvery when 0) with
// what fill says, the scenario and the time since start filled in, until
// the function it returns is called; without a report it does nothing.
func (p StageProgress) Ticker(start time.Time, fill func(p *Progress)) (stop func()) {
	report := p.report
	if report == nil {
		return func() {}
	}
	every := p.every
	if every <= 0 {
		every = DefaultProgressEvery
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			pr := Progress{Scenario: p.scenario, Elapsed: time.Since(start)}
			fill(&pr)
			report(pr)
		}
	})
	return func() { close(quit); wg.Wait() }
}
