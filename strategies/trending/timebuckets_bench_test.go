package trending

import (
	"slices"
	"testing"
	"time"

	"countsim/strategies"
	"countsim/strategies/distinct"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The trending stream of the benchmarks: the search stream's Zipf s = 1
// over 10^6 scrambled keys, 2^20 events spread evenly over trendingSpan
// (2 h: 120 one-minute buckets, so that a 60-minute window rotates all the
// way round), in batches of 4,096.
const trendingSpan = 2 * time.Hour

// trendingEvents returns a fresh copy of the trending stream: the
// benchmark moves its times on as it wraps round, so each run has its own.
func trendingEvents(tb testing.TB) []workload.Event {
	tb.Helper()
	st, err := workload.NewStream(workload.StreamConfig{Seed: 81, Label: "trending", Events: designtest.BenchEvents,
		Keys: 1e6, S: 1, Scramble: true, Rate: float64(designtest.BenchEvents) / trendingSpan.Seconds()})
	if err != nil {
		tb.Fatal(err)
	}
	ev := make([]workload.Event, 0, designtest.BenchEvents)
	var buf []workload.Event
	for i := range st.Chunks() {
		buf = st.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	if last := ev[len(ev)-1].At; last >= int64(trendingSpan) {
		tb.Fatalf("the stream lasts %d ns, past its span", last)
	}
	return ev
}

// benchTimedObserve is BenchObserve for designs that keep time: a first
// pass over the batches, then one batch a loop; when the stream wraps round
// its times move on by trendingSpan (a whole number of windows and
// buckets), with the timer stopped, so that time never runs backwards and
// the rotations go on. It reports ns/event and allocations.
func benchTimedObserve(b *testing.B, ev []workload.Event, observe func([]workload.Event)) {
	shift := func() {
		for i := range ev {
			ev[i].At += int64(trendingSpan)
		}
	}
	for lo := 0; lo < len(ev); lo += designtest.BenchBatch {
		observe(ev[lo:min(lo+designtest.BenchBatch, len(ev))])
	}
	shift()
	b.ReportAllocs()
	lo, events := 0, 0
	for b.Loop() {
		hi := min(lo+designtest.BenchBatch, len(ev))
		observe(ev[lo:hi])
		events += hi - lo
		if lo = hi; lo == len(ev) {
			lo = 0
			b.StopTimer()
			shift()
			b.StartTimer()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// trendingBenchImpls are the designs of BenchmarkTrendingObserve, each
// built fresh for a run: its Observe and its memory. The floor is plain
// counting, one exact count-table add an event and no window
// (exactFloor, exact_bench_test.go, sized for the stream's keys): the least
// any trending design must do. A design joins by adding a line.
var trendingBenchImpls = []struct {
	name  string
	build func(tb testing.TB) (observe func([]workload.Event), bytes func() int64)
}{
	{"floor", func(testing.TB) (func([]workload.Event), func() int64) {
		f := designtest.NewExactFloor(1e6, 1)
		return f.Observe, func() int64 { return int64(len(f.Slots)) * ds.ExactSlotBytes }
	}},
	{"time-buckets", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := NewTimeBuckets(TimeBucketsParams{Bucket: time.Minute, Window: time.Hour}, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
	{"windowed-count-min", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := NewWindowedCountMin(WindowedCountMinParams{Bucket: time.Minute, Window: time.Hour}, strategies.Env{Seed: 1, Top: 10})
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
	{"decay", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := NewDecayExact(30*time.Minute, 1e6, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
	{"windowed-hll", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := distinct.NewWindowedHLL(distinct.WindowedHLLParams{Bucket: time.Minute, Window: time.Hour, P: 14, Of: "key"}, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
	{"regional-4", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := NewRegional(RegionalParams{Regions: 4, Period: 10 * time.Second, Threshold: 10_000}, strategies.Env{Seed: 1, Duration: 1 << 62})
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
	{"decay-ss-1000", func(tb testing.TB) (func([]workload.Event), func() int64) {
		s, err := NewDecaySpaceSaving(30*time.Minute, 1000, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return s.Observe, s.Bytes
	}},
}

// The trending designs on the trending stream beside plain counting, in
// the same run: 1-minute buckets and a 60-minute window; windowed
// count-min at its defaults (ε = 0.001, δ = 0.01: 5 × 2,719 counters a
// bucket, 40 candidates for K = 10). Each reports ns/event and its bytes;
// tools/benchratio.awk divides by the floor.
func BenchmarkTrendingObserve(b *testing.B) {
	ev := trendingEvents(b)
	for _, impl := range trendingBenchImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			observe, bytes := impl.build(b)
			benchTimedObserve(b, slices.Clone(ev), observe)
			b.ReportMetric(float64(bytes()), "bytes")
		})
	}
}
