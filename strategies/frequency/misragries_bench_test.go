package frequency

import (
	"slices"
	"testing"
	"time"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// mgHeap is Misra-Gries with the other structure the design could use: the
// same levels (count + D) and offset, in a Go map from key to counter and
// a binary min-heap of the counters by level, whose root is the next to
// reach 0. An increment sifts down, O(log k), where the stream-summary
// takes O(1); freeing pops the root. It is measured beside MisraGries in
// BenchmarkTopKObserve to justify the choice.
type mgHeap struct {
	keys   []uint64
	levels []uint64
	heap   []int32 // counter ids, a min-heap by level
	pos    []int32 // pos[c] is counter c's place in heap
	spare  []int32 // freed counter ids
	index  map[uint64]int32
	k      int
	offset uint64
}

func newMGHeap(k int) *mgHeap {
	return &mgHeap{keys: make([]uint64, 0, k), levels: make([]uint64, 0, k), heap: make([]int32, 0, k),
		pos: make([]int32, 0, k), spare: make([]int32, 0, k), index: make(map[uint64]int32, k), k: k}
}

func (f *mgHeap) observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
			f.add(e.Key, uint64(e.Delta))
		}
	}
}

func (f *mgHeap) add(key, d uint64) {
	if c, ok := f.index[key]; ok {
		f.levels[c] += d
		f.down(f.pos[c])
		return
	}
	if len(f.heap) == f.k {
		dec := min(d, f.levels[f.heap[0]]-f.offset)
		f.offset += dec
		for len(f.heap) > 0 && f.levels[f.heap[0]] <= f.offset {
			c := f.heap[0]
			delete(f.index, f.keys[c])
			f.spare = append(f.spare, c)
			last := len(f.heap) - 1
			f.swap(0, int32(last))
			f.heap = f.heap[:last]
			f.down(0)
		}
		if d -= dec; d == 0 {
			return
		}
	}
	var c int32
	if n := len(f.spare); n > 0 {
		c, f.spare = f.spare[n-1], f.spare[:n-1]
		f.keys[c], f.levels[c] = key, f.offset+d
	} else {
		c = int32(len(f.keys))
		f.keys, f.levels, f.pos = append(f.keys, key), append(f.levels, f.offset+d), append(f.pos, 0)
	}
	f.index[key] = c
	f.heap = append(f.heap, c)
	f.pos[c] = int32(len(f.heap) - 1)
	f.up(int32(len(f.heap) - 1))
}

func (f *mgHeap) swap(i, j int32) {
	f.heap[i], f.heap[j] = f.heap[j], f.heap[i]
	f.pos[f.heap[i]], f.pos[f.heap[j]] = i, j
}

func (f *mgHeap) up(i int32) {
	for i > 0 {
		p := (i - 1) / 2
		if f.levels[f.heap[p]] <= f.levels[f.heap[i]] {
			return
		}
		f.swap(i, p)
		i = p
	}
}

func (f *mgHeap) down(i int32) {
	n := int32(len(f.heap))
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && f.levels[f.heap[r]] < f.levels[f.heap[c]] {
			c = r
		}
		if f.levels[f.heap[c]] >= f.levels[f.heap[i]] {
			return
		}
		f.swap(i, c)
		i = c
	}
}

// The heap variant is the same Misra-Gries: after every batch it holds the
// keys and counts of the plain reference, so that its speed is the speed
// of the same work.
func TestMisraGriesHeapVariant(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 66, Keys: 20000, S: 1, Events: 100000, Scramble: true}.Gen()
	for i := range ev {
		ev[i].Delta = 1 + int64(i%7/6*40) // now and then 41
	}
	for _, k := range []int{1, 10, 300} {
		f, ref := newMGHeap(k), &mgRef{c: map[uint64]uint64{}, k: k}
		for lo := 0; lo < len(ev); lo += 5000 {
			f.observe(ev[lo : lo+5000])
			for _, e := range ev[lo : lo+5000] {
				ref.add(e.Key, uint64(e.Delta))
			}
			if len(f.index) != len(ref.c) || f.offset != ref.d {
				t.Fatalf("k = %d: %d keys, D = %d; the reference %d, %d", k, len(f.index), f.offset, len(ref.c), ref.d)
			}
			for key, c := range f.index {
				if f.levels[c]-f.offset != ref.c[key] || f.heap[f.pos[c]] != c {
					t.Fatalf("k = %d: key %d counts %d, the reference %d", k, key, f.levels[c]-f.offset, ref.c[key])
				}
			}
		}
	}
}

// The top-K designs on the search stream (2^20 events, Zipf s = 1 over 10^6
// scrambled keys, batches of 4,096), at comparable memory, about 80 KB:
//
//   - impl=floor: Space-Saving's floor (ssFloor, spacesaving_bench_test.go),
//     a Go map and a min-heap of 1,000 counters, the simplest loop doing
//     the work of a counter-based top-K;
//   - impl=space-saving: SpaceSaving, m = 1,000 (80,576 B);
//   - impl=count-min-heap: CountMinTopK, w = 4,000, d = 5 (80,000 B) and a
//     heap of the top 10;
//   - impl=misra-gries: MisraGries, k = 1,000 (80,576 B);
//   - impl=misra-gries-heap: mgHeap, the same counters in a map and a heap;
//   - impl=heavykeeper: HeavyKeeper, w = 2,000, d = 5, b = 0.9 (80,000 B
//     of buckets, a 3,384 B decay table) and a heap of the top 10.
//
// Each reports ns/event; tools/benchratio.awk divides by the floor.
func BenchmarkTopKObserve(b *testing.B) {
	ev := designtest.SearchEvents(b, 1e6)
	const m = 1000
	b.Run("impl=floor", func(b *testing.B) {
		f := newSSFloor(m)
		designtest.BenchObserve(b, ev, f.observe)
	})
	b.Run("impl=space-saving", func(b *testing.B) {
		s, err := NewSpaceSaving(SpaceSavingParams{Counters: m}, 1)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	b.Run("impl=count-min-heap", func(b *testing.B) {
		s, err := NewCountMinTopK(CountMinParams{Width: 4000, Depth: 5, Top: 10}, 1)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	b.Run("impl=misra-gries", func(b *testing.B) {
		s, err := NewMisraGries(MisraGriesParams{Counters: m}, 1)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	b.Run("impl=misra-gries-heap", func(b *testing.B) {
		f := newMGHeap(m)
		designtest.BenchObserve(b, ev, f.observe)
	})
	b.Run("impl=heavykeeper", func(b *testing.B) {
		s, err := NewHeavyKeeper(HeavyKeeperParams{Top: 10, Width: 2000, Depth: 5, Decay: 0.9}, 1)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	// Count-min with verification: its first pass is count-min + a heap of
	// its 40 candidates; its second reads every event again for the
	// candidates' exact counts. Each pass is measured apart.
	b.Run("impl=cms-verify-first", func(b *testing.B) {
		s, err := NewCMSVerify(CMSVerifyParams{Width: 4000, Depth: 5}, 40, 1)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	b.Run("impl=cms-verify-second", func(b *testing.B) {
		s, err := NewCMSVerify(CMSVerifyParams{Width: 4000, Depth: 5}, 40, 1)
		if err != nil {
			b.Fatal(err)
		}
		s.Observe(ev)
		s.SecondPass()
		designtest.BenchObserve(b, ev, s.Observe)
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
	// The node-local top-K of 16 app nodes (by event ID), k = 100, pushing
	// every 10 ms of the stream's time (about 10,000 events) to its central
	// set, without a store. The stream is a copy whose times move on by its
	// length each time the loop comes back to its start, so cycles keep
	// ending (a store per event of that costs the loop).
	b.Run("impl=node-local-topk", func(b *testing.B) {
		s, err := NewNodeLocalTopK(NodeLocalTopKParams{Nodes: 16, Top: 100, Cycle: 10 * time.Millisecond}, strategies.Env{Seed: 1, Keys: 1e6, Events: int64(len(ev))})
		if err != nil {
			b.Fatal(err)
		}
		cp := slices.Clone(ev)
		span := cp[len(cp)-1].At + 1
		designtest.BenchObserve(b, cp, func(batch []workload.Event) {
			if &batch[0] == &cp[0] && s.next > cp[0].At+s.cycle {
				for i := range cp {
					cp[i].At += span
				}
			}
			s.Observe(batch)
		})
		b.ReportMetric(float64(s.Bytes()), "bytes")
	})
}
