package hot

import (
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// hotBenchDesigns are the hot-counter designs benchmarked and checked for
// allocations, built through the registry as sim builds them.
var hotBenchDesigns = []struct {
	name   string
	typ    string
	params []scenarios.Param
}{
	{"single-key", "single-key", nil},
	{"single-key/cache=1s", "single-key", []scenarios.Param{{Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}}},
	{"striped/k=32/random", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}}},
	{"striped/k=32/round-robin", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "select", Value: "round-robin"}}},
	{"striped/k=32/hash", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "select", Value: "hash"}}},
	{"striped/k=32/least-loaded", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "select", Value: "least-loaded"}}},
	{"striped/k=32/cache=1s", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}}},
	{"striped/k=32/dedup=1s", "striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "dedup", Value: "1s"}}},
	{"striped/adaptive", "striped", []scenarios.Param{{Key: "stripes", Value: int64(1)}, {Key: "grow_above", Value: int64(7000)}, {Key: "shrink_below", Value: int64(2000)}}},
	{"batched/a=200/t=1s", "batched", []scenarios.Param{{Key: "servers", Value: int64(200)}}},
	{"batched/a=200/t=1s/jitter", "batched", []scenarios.Param{{Key: "servers", Value: int64(200)}, {Key: "jitter", Value: true}}},
	{"batched/a=200/t=1s/cache=1s/dedup=1s", "batched", []scenarios.Param{{Key: "servers", Value: int64(200)}, {Key: "read", Value: "cache"},
		{Key: "ttl", Value: "1s"}, {Key: "dedup", Value: "1s"}}},
}

// resetShown forgets what a hot-counter design showed readers, so that a
// measurement does not count the growth of that record.
func resetShown(s strategies.Strategy) {
	switch d := s.(type) {
	case *SingleKey:
		d.s.io.resetShown()
	case *Striped:
		d.io.resetShown()
	case *Batched:
		d.io.resetShown()
	}
}

// Observe allocates nothing once warmed up: writes, reads (sum and cached),
// resends through the dedup window, adaptive K and flushes.
func TestHotObserveAllocs(t *testing.T) {
	sp := designtest.HotSpec{Seed: 21, PerSec: []int{20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000, 20000},
		Keys: 5, Reads: 200, Resend: 0.05, Delay: 10e6}
	ev := sp.Gen()
	warm := len(ev) / 2
	for _, d := range hotBenchDesigns {
		t.Run(d.name, func(t *testing.T) {
			st := designtest.NewMemStore(t)
			st.Load = nil
			s := designtest.BuildDesign(t, d.typ, d.params, strategies.Env{Seed: 1, Store: st, Reads: int64(len(ev))})
			s.Observe(ev[:warm])
			lo := warm
			allocs := testing.AllocsPerRun(20, func() {
				hi := min(lo+1000, len(ev))
				s.Observe(ev[lo:hi])
				lo = hi
			})
			if lo >= len(ev) {
				t.Fatal("ran out of events")
			}
			if allocs != 0 {
				t.Errorf("Observe of a batch: got %v allocations, want 0", allocs)
			}
		})
	}
}

// countStore counts the ops it is sent and keeps nothing: the benchmarks
// measure the design's own cost.
type countStore struct{ ops int64 }

func (c *countStore) Do(ops []strategies.StoreOp, vals []int64) {
	c.ops += int64(len(ops))
	for i := range ops {
		if ops[i].Kind == strategies.Get {
			vals[i] = 0
		}
	}
}

func (c *countStore) Final(uint64) int64 { return 0 }

// Observe on the cricket final's hot key: 200,000 writes a second and 5,000
// reads, 2 s of simulated time a loop (each loop moves the stream on in
// time, so windows expire and servers flush as in a long run). ns/event is
// the design's own cost, store ops/event what it sends.
func BenchmarkHotObserve(b *testing.B) {
	const secs = 2
	sp := designtest.HotSpec{Seed: 22, PerSec: []int{200000, 200000}, Keys: 1, Reads: 5000}
	base := sp.Gen()
	var maxID uint64
	for _, e := range base {
		maxID = max(maxID, e.ID)
	}
	for _, d := range hotBenchDesigns {
		b.Run(d.name, func(b *testing.B) {
			ev := make([]workload.Event, len(base))
			copy(ev, base)
			cs := &countStore{}
			s := designtest.BuildDesign(b, d.typ, d.params, strategies.Env{Seed: 1, Store: cs})
			shift := func() {
				for i := range ev {
					ev[i].At += secs * 1e9
					if ev[i].Op == workload.Write {
						ev[i].ID += maxID
					}
				}
				resetShown(s)
			}
			s.Observe(ev)
			shift()
			cs.ops = 0
			b.ReportAllocs()
			loops := 0
			for b.Loop() {
				s.Observe(ev)
				b.StopTimer()
				shift()
				loops++
				b.StartTimer()
			}
			events := float64(loops) * float64(len(ev))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
			b.ReportMetric(float64(cs.ops)/events, "storeops/event")
			b.ReportMetric(float64(s.Bytes()), "bytes")
		})
	}
}
