package strategies

import (
	"fmt"
	"testing"

	"countsim/workload"
)

// The floor counts what Exact counts, so that its speed is the speed of
// the same work.
func TestExactFloor(t *testing.T) {
	ev := streamSpec{seed: 63, keys: 5000, s: 1, events: 40000, scramble: true}.gen()
	ev[7].Op, ev[9].Delta = workload.Read, 0
	truth, n := exactCounts(ev)
	f := newExactFloor(5000, 3)
	f.observe(ev)
	if f.n != n {
		t.Errorf("floor N: got %d, want %d", f.n, n)
	}
	for k, c := range truth {
		if got := f.count(k); got != c {
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
			ev := searchEvents(b, keys)
			f := newExactFloor(keys, 1)
			benchObserve(b, ev, f.observe)
			b.ReportMetric(float64(len(f.slots)*16), "bytes")
		})
		for _, shards := range []int{1, 4} {
			b.Run(fmt.Sprintf("impl=countsim/shards=%d/%s", shards, name), func(b *testing.B) {
				ev := searchEvents(b, keys)
				x, err := NewExact(ExactParams{Shards: shards}, keys, 1)
				if err != nil {
					b.Fatal(err)
				}
				benchObserve(b, ev, x.Observe)
				b.ReportMetric(float64(x.Bytes()), "bytes")
			})
		}
	}
}
