package frequency

import (
	"slices"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// splitFloor is the floor of the split designs: the simplest correct loop
// doing the same work, one Go map of counts a node (the event's Actor mod
// S); its top is the exact global top k computed centrally, every node's
// map summed into one and sorted, which is what TPUT's answer equals.
type splitFloor struct {
	nodes []map[uint64]uint64
}

func newSplitFloor(nodes, keys int) *splitFloor {
	f := &splitFloor{nodes: make([]map[uint64]uint64, nodes)}
	for i := range f.nodes {
		f.nodes[i] = make(map[uint64]uint64, keys)
	}
	return f
}

func (f *splitFloor) observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op == workload.Write && e.Delta > 0 {
			f.nodes[e.Actor%uint64(len(f.nodes))][e.Key] += uint64(e.Delta)
		}
	}
}

func (f *splitFloor) top(k int) []strategies.Item {
	sum := map[uint64]uint64{}
	for _, m := range f.nodes {
		for key, c := range m {
			sum[key] += c
		}
	}
	return designtest.TrueTop(sum, k)
}

// The floor's answer is the brute-force top k: threshold-topk's answer on
// the benchmark's stream, and split-topk's counts fall short of it within
// their Err.
func TestSplitFloor(t *testing.T) {
	ev := splitEvents(designtest.StreamSpec{Seed: 92, Keys: 20000, S: 1, Events: 200000, Scramble: true}, 8)
	f := newSplitFloor(8, 0)
	f.observe(ev)
	truth, _ := designtest.ExactCounts(ev)
	want := designtest.TrueTop(truth, 10)
	if got := f.top(10); !slices.Equal(got, want) {
		t.Fatalf("floor top 10 %+v, want %+v", got, want)
	}
	x, _ := NewThresholdTopK(ThresholdTopKParams{Nodes: 8}, 1000, 1)
	x.Observe(ev)
	if got := x.Top(10); !slices.Equal(got, want) {
		t.Fatalf("threshold-topk top 10 %+v, want %+v", got, want)
	}
}

// BenchmarkSplitTopK: Observe on the search stream (Zipf s = 1, 1e6
// scrambled keys) split over 8 nodes by a hash of the event, ns/event,
// beside the floor of one Go map a node; and the cost of one Top(10), the
// protocol on the full state (the floor: every map summed centrally and
// sorted), in ns/op with the items the nodes sent.
func BenchmarkSplitTopK(b *testing.B) {
	const nodes = 8
	base := designtest.SearchEvents(b, 1e6)
	ev := slices.Clone(base)
	for i := range ev {
		ev[i].Actor = workload.Mix64(ev[i].ID^0x6e6f6465) % nodes
	}
	env := strategies.Env{Seed: 1, Keys: 1e6, Events: int64(len(ev)), Top: 10, Nodes: nodes}
	build := map[string]func() (func([]workload.Event), func(int) []strategies.Item, strategies.Strategy){
		"floor": func() (func([]workload.Event), func(int) []strategies.Item, strategies.Strategy) {
			f := newSplitFloor(nodes, len(ev)/nodes)
			return f.observe, f.top, nil
		},
	}
	for _, typ := range []string{"split-topk", "threshold-topk"} {
		build[typ] = func() (func([]workload.Event), func(int) []strategies.Item, strategies.Strategy) {
			s := designtest.BuildDesign(b, typ, nil, env)
			return s.Observe, s.(strategies.TopK).Top, s
		}
	}
	for _, impl := range []string{"floor", "split-topk", "threshold-topk"} {
		b.Run("op=observe/impl="+impl, func(b *testing.B) {
			observe, _, s := build[impl]()
			designtest.BenchObserve(b, ev, observe)
			if s != nil {
				b.ReportMetric(float64(s.Bytes()), "bytes")
			}
		})
	}
	for _, impl := range []string{"floor", "split-topk", "threshold-topk"} {
		b.Run("op=top10/impl="+impl, func(b *testing.B) {
			observe, top, s := build[impl]()
			observe(ev)
			b.ReportAllocs()
			for b.Loop() {
				top(10)
			}
			if d, ok := s.(strategies.Distributed); ok {
				m, items, _ := d.Coordination()
				b.ReportMetric(float64(m)/float64(b.N), "messages/op")
				b.ReportMetric(float64(items)/float64(b.N), "items/op")
			}
		})
	}
}
