package sim

import (
	"context"
	"sort"
	"sync"
	"time"

	"countsim/strategies"
	"countsim/workload"
)

type chunk struct {
	index  int
	events []workload.Event
}

// run is what one simulation holds while the stream is fed.
type run struct {
	truth    *truth
	designs  []strategies.Strategy
	clusters []*Cluster // each design's own cluster; nil entries without one
	elapsed  []int64    // wall-clock ns each design spent in Observe
	faults   []strategies.Fault
	next     int // the next fault to deliver
}

// build builds every design of st for the Env envOf gives it.
func (r *run) build(st *Setup, envOf func(i int) strategies.Env) error {
	r.designs = make([]strategies.Strategy, len(st.designs))
	r.elapsed = make([]int64, len(st.designs))
	for i, d := range st.designs {
		s, err := d.build(envOf(i))
		if err != nil {
			return err
		}
		r.designs[i] = s
	}
	return nil
}

// observe hands one batch to the truth and every design, delivering each
// fault between the last event before its time and the first at or after.
func (r *run) observe(b []workload.Event) {
	for len(b) > 0 {
		cut := len(b)
		if r.next < len(r.faults) {
			at := r.faults[r.next].At
			cut = sort.Search(len(b), func(i int) bool { return b[i].At >= at })
		}
		if cut > 0 {
			part := b[:cut]
			if r.truth != nil {
				r.truth.observe(part)
			}
			for i, d := range r.designs {
				t0 := time.Now()
				d.Observe(part)
				r.elapsed[i] += time.Since(t0).Nanoseconds()
			}
		}
		if b = b[cut:]; len(b) > 0 {
			r.fault()
		}
	}
}

// fault delivers the next fault: a crash to the designs that hold counts in
// app servers, a node loss to every design's cluster.
func (r *run) fault() {
	f := r.faults[r.next]
	r.next++
	for i, d := range r.designs {
		switch f.Kind {
		case strategies.NodeLoss:
			if c := r.clusters[i]; c != nil {
				c.LoseNode(f.Target, f.At)
			}
		default:
			if fd, ok := d.(strategies.Faultable); ok {
				fd.Fault(f)
			}
		}
	}
}

// source is a chunked event stream: chunk i is a pure function of i, so
// chunks may be generated in any order by any number of goroutines.
type source interface {
	Chunks() int
	Chunk(i int, buf []workload.Event) []workload.Event
}

// feed generates the stream with several workers and hands its batches of
// at most batch events, in stream order, to r. It returns the number of
// events fed.
func (st *Setup) feed(ctx context.Context, r *run, src source, batch int) (int64, error) {
	workers := st.workers()
	nChunks := src.Chunks()
	// Buffers are handed out in chunk order before the chunk's job is sent,
	// so the chunk the consumer waits for always has a buffer: no deadlock
	// however the workers are scheduled.
	pool := make(chan []workload.Event, workers+2)
	for range cap(pool) {
		pool <- nil
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
				j.events = src.Chunk(j.index, j.events)
				done <- j
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range nChunks {
			select {
			case buf := <-pool:
				select {
				case jobs <- chunk{index: i, events: buf}:
				case <-stop:
					return
				}
			case <-stop:
				return
			}
		}
	}()
	defer func() {
		close(stop)
		go func() { // drain so workers can finish, then let them go
			wg.Wait()
			close(done)
		}()
		for range done {
		}
	}()

	pending := map[int][]workload.Event{}
	var fed int64
	for next := 0; next < nChunks; {
		if err := ctx.Err(); err != nil {
			return fed, err
		}
		c := <-done
		pending[c.index] = c.events
		for {
			evs, ok := pending[next]
			if !ok {
				break
			}
			if err := ctx.Err(); err != nil { // stop at the next chunk, generated or not
				return fed, err
			}
			delete(pending, next)
			for lo := 0; lo < len(evs); lo += batch {
				r.observe(evs[lo:min(lo+batch, len(evs))])
			}
			fed += int64(len(evs))
			pool <- evs
			next++
		}
	}
	return fed, nil
}
