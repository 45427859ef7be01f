package frequency

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// ssFloor is the floor of Space-Saving: the same summary kept the simplest
// way, m counters (key, count, error) in arrays, a Go map from key to
// counter, and a binary min-heap of the counters by count whose root is the
// counter to evict. A raised counter sifts down the heap: O(log m) where
// the stream-summary takes O(1). Its ties break another way than
// SpaceSaving's (it evicts whichever minimum counter the heap holds at its
// root), so its answers may differ; its guarantees are the same.
type ssFloor struct {
	keys   []uint64
	counts []uint64
	errs   []uint64
	heap   []int32 // counter ids, a min-heap by count
	pos    []int32 // pos[c] is counter c's place in heap
	index  map[uint64]int32
	m      int
	n      uint64
}

func newSSFloor(m int) *ssFloor {
	return &ssFloor{keys: make([]uint64, 0, m), counts: make([]uint64, 0, m), errs: make([]uint64, 0, m),
		heap: make([]int32, 0, m), pos: make([]int32, 0, m), index: make(map[uint64]int32, m), m: m}
}

func (f *ssFloor) observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		d := uint64(e.Delta)
		f.n += d
		if c, ok := f.index[e.Key]; ok {
			f.counts[c] += d
			f.down(f.pos[c])
			continue
		}
		if len(f.keys) < f.m {
			c := int32(len(f.keys))
			f.keys, f.counts, f.errs = append(f.keys, e.Key), append(f.counts, d), append(f.errs, 0)
			f.heap, f.pos = append(f.heap, c), append(f.pos, c)
			f.index[e.Key] = c
			f.up(c)
			continue
		}
		c := f.heap[0]
		delete(f.index, f.keys[c])
		f.index[e.Key] = c
		f.keys[c], f.errs[c] = e.Key, f.counts[c]
		f.counts[c] += d
		f.down(0)
	}
}

func (f *ssFloor) swap(i, j int32) {
	f.heap[i], f.heap[j] = f.heap[j], f.heap[i]
	f.pos[f.heap[i]], f.pos[f.heap[j]] = i, j
}

func (f *ssFloor) up(i int32) {
	for i > 0 {
		p := (i - 1) / 2
		if f.counts[f.heap[p]] <= f.counts[f.heap[i]] {
			return
		}
		f.swap(i, p)
		i = p
	}
}

func (f *ssFloor) down(i int32) {
	n := int32(len(f.heap))
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && f.counts[f.heap[r]] < f.counts[f.heap[c]] {
			c = r
		}
		if f.counts[f.heap[c]] >= f.counts[f.heap[i]] {
			return
		}
		f.swap(i, c)
		i = c
	}
}

// The floor is a correct Space-Saving (the guarantees of Metwally et al.
// hold against the truth, and its counts sum to N), so that its speed is
// the speed of the same work.
func TestSpaceSavingFloor(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 56, Keys: 20000, S: 1, Events: 100000, Scramble: true}.Gen()
	truth, n := designtest.ExactCounts(ev)
	const m = 100
	f := newSSFloor(m)
	f.observe(ev)
	var sum uint64
	for c, key := range f.keys {
		sum += f.counts[c]
		if tr := truth[key]; f.counts[c] < tr || f.counts[c]-f.errs[c] > tr {
			t.Fatalf("key %d: true count %d not in [count − err, count] = [%d, %d]", key, tr, f.counts[c]-f.errs[c], f.counts[c])
		}
		if f.index[key] != int32(c) || f.heap[f.pos[c]] != int32(c) {
			t.Fatalf("counter %d badly indexed", c)
		}
	}
	if sum != n || f.n != n {
		t.Fatalf("counts sum to %d, N = %d, want %d", sum, f.n, n)
	}
	for k, tr := range truth {
		if _, ok := f.index[k]; tr > n/m && !ok {
			t.Fatalf("key %d of true count %d > N/m = %d is not monitored", k, tr, n/m)
		}
	}
	for i := 1; i < len(f.heap); i++ {
		if f.counts[f.heap[(i-1)/2]] > f.counts[f.heap[i]] {
			t.Fatalf("heap order broken at %d", i)
		}
	}
}

// SpaceSaving.Observe on the search stream (1e6 keys) against its floor;
// ns/event is the cost of one event.
func BenchmarkSpaceSavingObserve(b *testing.B) {
	ev := designtest.SearchEvents(b, 1e6)
	for _, m := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("impl=floor/m=%d", m), func(b *testing.B) {
			f := newSSFloor(m)
			designtest.BenchObserve(b, ev, f.observe)
		})
		b.Run(fmt.Sprintf("impl=countsim/m=%d", m), func(b *testing.B) {
			s, err := NewSpaceSaving(SpaceSavingParams{Counters: m}, 1)
			if err != nil {
				b.Fatal(err)
			}
			designtest.BenchObserve(b, ev, s.Observe)
			b.ReportMetric(float64(s.Bytes()), "bytes")
		})
	}
}

// The full day's stream (search-full-day.yaml): Zipf s = 1 over 400,000,000
// scrambled phrases, 2^22 events of it, fed in batches of 4,096.
const ssDayEvents = 1 << 22

var ssDayStream = sync.OnceValue(func() []workload.Event {
	st, err := workload.NewStream(workload.StreamConfig{Seed: 1, Label: "bench", Events: ssDayEvents,
		Keys: 400_000_000, S: 1, Scramble: true, Rate: 1e6})
	if err != nil {
		panic(err)
	}
	ev := make([]workload.Event, 0, ssDayEvents)
	var buf []workload.Event
	for i := range st.Chunks() {
		buf = st.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	return ev
})

// SpaceSaving.Observe with the full day's 1,000 counters on its stream,
// after a first pass over the 2^22 events, against the floor and the
// reference (spacesaving_ref_test.go: the design before its hot loop); ns/event is
// the wall an event, cpu-ns/event the thread's CPU (less noisy on a busy
// machine).
func BenchmarkSpaceSavingDay(b *testing.B) {
	ev := ssDayStream()
	const m = 1000
	run := func(b *testing.B, observe func([]workload.Event)) {
		for lo := 0; lo < len(ev); lo += designtest.BenchBatch {
			observe(ev[lo:min(lo+designtest.BenchBatch, len(ev))])
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		b.ReportAllocs()
		lo, events := 0, 0
		cpu := designtest.ThreadCPU()
		for b.Loop() {
			hi := min(lo+designtest.BenchBatch, len(ev))
			observe(ev[lo:hi])
			events += hi - lo
			if lo = hi; lo == len(ev) {
				lo = 0
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		if cpu := designtest.ThreadCPU() - cpu; cpu > 0 {
			b.ReportMetric(float64(cpu)/float64(events), "cpu-ns/event")
		}
	}
	b.Run("impl=floor", func(b *testing.B) { run(b, newSSFloor(m).observe) })
	b.Run("impl=reference", func(b *testing.B) { run(b, newSSReference(m, 1).observe) })
	b.Run("impl=countsim", func(b *testing.B) {
		s, err := NewSpaceSaving(SpaceSavingParams{Counters: m}, 1)
		if err != nil {
			b.Fatal(err)
		}
		run(b, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
}
