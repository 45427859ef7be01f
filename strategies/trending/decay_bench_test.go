package trending

import (
	"testing"
	"time"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// decayBenchEvents is the timed search stream of BenchmarkDecayObserve:
// BenchEvents events, Zipf s = 1 over 10^6 scrambled keys, spread over four
// simulated hours (about 73 events a second), so that every event has a
// time of its own and pays its own 2^((At − L)/h).
func decayBenchEvents(tb testing.TB) []workload.Event {
	tb.Helper()
	st, err := workload.NewStream(workload.StreamConfig{Seed: 81, Label: "bench-decay", Events: designtest.BenchEvents,
		Keys: 1e6, S: 1, Scramble: true, Rate: designtest.BenchEvents / (4 * 3600)})
	if err != nil {
		tb.Fatal(err)
	}
	ev := make([]workload.Event, 0, designtest.BenchEvents)
	var buf []workload.Event
	for i := range st.Chunks() {
		buf = st.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	return ev
}

// BenchmarkDecayObserve: forward decay beside plain counting, its floor
// (exactFloor: one add into a {key, count} table an event, the same hash
// and probing), on the same timed stream in the same run. The exact variant
// does the floor's work plus one math.Exp2 and a float add an event; the
// Space-Saving variant keeps 1,000 counters in a min-heap.
func BenchmarkDecayObserve(b *testing.B) {
	ev := decayBenchEvents(b)
	b.Run("impl=floor/keys=1e6", func(b *testing.B) {
		f := designtest.NewExactFloor(1e6, 3)
		designtest.BenchObserve(b, ev, f.Observe)
	})
	b.Run("impl=decay/counters=0/keys=1e6", func(b *testing.B) {
		d, err := NewDecayExact(30*time.Minute, 1e6, 3)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, d.Observe)
	})
	b.Run("impl=decay/counters=1000/keys=1e6", func(b *testing.B) {
		s, err := NewDecaySpaceSaving(30*time.Minute, 1000, 3)
		if err != nil {
			b.Fatal(err)
		}
		designtest.BenchObserve(b, ev, s.Observe)
	})
}
