package frequency

import (
	"fmt"
	"math"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// benchDesigns are the designs benchmarked and checked for allocations,
// built through the registry as sim builds them.
var benchDesigns = []struct {
	name   string
	typ    string
	params []scenarios.Param
}{
	{"count-min/eps=1e-3", "count-min", []scenarios.Param{{Key: "epsilon", Value: 1e-3}, {Key: "delta", Value: 0.01}}},
	{"count-min/eps=1e-4", "count-min", []scenarios.Param{{Key: "epsilon", Value: 1e-4}, {Key: "delta", Value: 0.01}}},
	{"count-min/eps=1e-4/conservative", "count-min", []scenarios.Param{{Key: "epsilon", Value: 1e-4}, {Key: "delta", Value: 0.01}, {Key: "conservative", Value: true}}},
	{"count-min/eps=1e-4/top=10", "count-min", []scenarios.Param{{Key: "epsilon", Value: 1e-4}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)}}},
	{"count-min/eps=1e-4/top=1000", "count-min", []scenarios.Param{{Key: "epsilon", Value: 1e-4}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(1000)}}},
	{"space-saving/m=100", "space-saving", []scenarios.Param{{Key: "counters", Value: int64(100)}}},
	{"space-saving/m=10000", "space-saving", []scenarios.Param{{Key: "counters", Value: int64(10000)}}},
	{"exact/shards=1", "exact", nil},
	{"exact/shards=16", "exact", []scenarios.Param{{Key: "shards", Value: int64(16)}}},
}

// Observe allocates nothing once warmed up, for every design: the hot path
// promise of the Strategy interface.
func TestObserveAllocs(t *testing.T) {
	sp := designtest.StreamSpec{Seed: 71, Keys: 50000, S: 1, Events: 1 << 16, Scramble: true}
	ev := sp.Gen()
	for _, d := range benchDesigns {
		t.Run(d.name, func(t *testing.T) {
			s := designtest.BuildDesign(t, d.typ, d.params, strategies.Env{Seed: 1, Keys: uint64(sp.Keys), Events: int64(sp.Events)})
			s.Observe(ev) // warm up: first sight of every key
			if allocs := testing.AllocsPerRun(5, func() { s.Observe(ev[:4096]) }); allocs != 0 {
				t.Errorf("Observe of a batch: got %v allocations, want 0", allocs)
			}
		})
	}
}

// Observe on a batch of Zipf s = 1 writes over scrambled keys; ns/event is
// the cost of one event.
func BenchmarkObserve(b *testing.B) {
	for _, keys := range []int{1e5, 1e6} {
		sp := designtest.StreamSpec{Seed: 72, Keys: keys, S: 1, Events: 1 << 18, Scramble: true}
		ev := sp.Gen()
		for _, d := range benchDesigns {
			b.Run(fmt.Sprintf("%s/keys=1e%d", d.name, int(math.Round(math.Log10(float64(keys))))), func(b *testing.B) {
				s := designtest.BuildDesign(b, d.typ, d.params, strategies.Env{Seed: 1, Keys: uint64(keys), Events: int64(len(ev))})
				s.Observe(ev)
				b.ReportAllocs()
				for b.Loop() {
					s.Observe(ev)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ev)), "ns/event")
				b.ReportMetric(float64(s.Bytes()), "bytes")
			})
		}
	}
}

// Count of one key, the point query.
func BenchmarkCount(b *testing.B) {
	ev := designtest.StreamSpec{Seed: 73, Keys: 1e6, S: 1, Events: 1 << 16, Scramble: true}.Gen()
	for _, d := range benchDesigns {
		b.Run(d.name, func(b *testing.B) {
			s := designtest.BuildDesign(b, d.typ, d.params, strategies.Env{Seed: 1, Keys: 1e6, Events: int64(len(ev))})
			s.Observe(ev)
			pc := s.(strategies.PointCounter)
			var sink uint64
			i := 0
			for b.Loop() {
				sink += pc.Count(ev[i&(len(ev)-1)].Key)
				i++
			}
			_ = sink
		})
	}
}
