package sim

import (
	"context"
	"testing"

	"countsim/scenarios"
)

// BenchmarkRunSearch runs the built-in search scenario end to end (10 M
// events over 1 M keys: generation, the truth, every design on its own
// lane, scoring) and reports the wall time per event, the figure issue 8
// holds to 120 ns on 2 cores.
func BenchmarkRunSearch(b *testing.B) {
	scn, err := scenarios.Builtin("search")
	if err != nil {
		b.Fatal(err)
	}
	events := scn.Run.(*scenarios.Stream).Events
	b.ReportAllocs()
	for b.Loop() {
		st, err := Prepare(scn, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*events), "ns/event")
}
