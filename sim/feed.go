package sim

import (
	"context"
	"runtime"
	"sync"
	"time"

	"countsim/strategies"
	"countsim/workload"
)

type chunk struct {
	index  int
	events []workload.Event
}

// feed generates the stream with several workers and hands its batches, in
// stream order, to the truth and to every design. elapsed[i] accumulates the
// wall-clock nanoseconds design i spent in Observe. It returns the number of
// events fed.
func (st *Setup) feed(ctx context.Context, tr *truth, designs []strategies.Strategy, elapsed []int64) (int64, error) {
	workers := st.opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	nChunks := st.stream.Chunks()
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
				j.events = st.stream.Chunk(j.index, j.events)
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

	batch := st.Scenario.Workload.Batch
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
			delete(pending, next)
			for lo := 0; lo < len(evs); lo += batch {
				b := evs[lo:min(lo+batch, len(evs))]
				tr.observe(b)
				for i, d := range designs {
					t0 := time.Now()
					d.Observe(b)
					elapsed[i] += time.Since(t0).Nanoseconds()
				}
			}
			fed += int64(len(evs))
			pool <- evs
			next++
		}
	}
	return fed, nil
}
