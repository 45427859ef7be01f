package frequency

import (
	"fmt"
	"testing"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// The floor counts what Exact counts, so that its speed is the speed of
// the same work.
func TestExactFloor(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 63, Keys: 5000, S: 1, Events: 40000, Scramble: true}.Gen()
	ev[7].Op, ev[9].Delta = workload.Read, 0
	truth, n := designtest.ExactCounts(ev)
	f := designtest.NewExactFloor(5000, 3)
	f.Observe(ev)
	if f.N != n {
		t.Errorf("floor N: got %d, want %d", f.N, n)
	}
	for k, c := range truth {
		if got := f.Count(k); got != c {
			t.Fatalf("floor count of %d: got %d, want %d", k, got, c)
		}
	}
}

// Exact.Observe on the search stream against its floor; ns/event is the
// cost of one event.
func BenchmarkExactObserve(b *testing.B) {
	for _, keys := range []uint64{1e6, 1e7} {
		name := fmt.Sprintf("keys=1e%d", map[uint64]int{1e6: 6, 1e7: 7}[keys])
		b.Run("impl=floor/"+name, func(b *testing.B) {
			ev := designtest.SearchEvents(b, keys)
			f := designtest.NewExactFloor(keys, 1)
			designtest.BenchObserve(b, ev, f.Observe)
			b.ReportMetric(float64(len(f.Slots)*16), "bytes")
		})
		for _, shards := range []int{1, 4} {
			b.Run(fmt.Sprintf("impl=countsim/shards=%d/%s", shards, name), func(b *testing.B) {
				ev := designtest.SearchEvents(b, keys)
				x, err := NewExact(ExactParams{Shards: shards}, keys, 1)
				if err != nil {
					b.Fatal(err)
				}
				designtest.BenchObserve(b, ev, x.Observe)
				b.ReportMetric(float64(x.Bytes()), "bytes")
			})
		}
	}
}
