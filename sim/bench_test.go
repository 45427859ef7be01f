package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/workload"
	"fmt"
	"slices"
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
		st, err := engine.Prepare(scn, engine.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*events), "ns/event")
}

// BenchmarkTruth is the ground truth's cost an event beside its floor, the
// simplest loop doing the same counting (counts[rank−1]++ over ranks drawn
// beforehand), and the map it replaced, in one run: issue 8 holds the rank
// truth to 2× the floor. At 10^6 keys the counters fit the cache and the
// cost is reading the events (48 bytes each, against the floor's 8): the
// floor-events line reads them too. At 4·10^8 keys it is the array's
// cache misses, which the rank truth's two passes overlap as the floor's
// loop does. In a run the stream gives the ranks beside the events
// (rank-given), and the truth is the floor's loop over 4 bytes an event.
func BenchmarkTruth(b *testing.B) {
	for _, keys := range []uint64{1e6, 4e8} {
		src, err := workload.NewStream(workload.StreamConfig{Seed: 1, Label: "events", Events: 1 << 20, Keys: keys, S: 1, Scramble: true, Rate: 1e6})
		if err != nil {
			b.Fatal(err)
		}
		var events []workload.Event
		for i := range src.Chunks() {
			events = append(events, src.Chunk(i, nil)...)
		}
		ranks := make([]uint64, len(events))
		for i, e := range events {
			ranks[i] = src.RankOf(e.Key)
		}
		run := func(b *testing.B, observe func()) {
			b.ReportAllocs()
			for b.Loop() {
				observe()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(int64(b.N)*int64(len(events))), "ns/event")
		}
		name := fmt.Sprintf("keys=%s/impl=", metrics.Format(float64(keys)))
		b.Run(name+"floor", func(b *testing.B) {
			counts := make([]uint32, keys)
			run(b, func() {
				for _, r := range ranks {
					counts[r-1]++
				}
			})
		})
		// The same floor reading the rank from each 48-byte event (kept in
		// Actor for the benchmark's sake), as the truth reads its keys.
		b.Run(name+"floor-events", func(b *testing.B) {
			counts := make([]uint32, keys)
			withRank := slices.Clone(events)
			for i := range withRank {
				withRank[i].Actor = ranks[i]
			}
			run(b, func() {
				for i := range withRank {
					counts[withRank[i].Actor-1]++
				}
			})
		})
		b.Run(name+"rank-given", func(b *testing.B) {
			tr := engine.NewRankTruth(src).(engine.RankObserver)
			given := make([]uint32, len(ranks))
			for i, r := range ranks {
				given[i] = uint32(r)
			}
			run(b, func() { tr.ObserveRanks(given) })
		})
		b.Run(name+"rank", func(b *testing.B) {
			tr := engine.NewRankTruth(src)
			run(b, func() { tr.Observe(events) })
		})
		if keys <= 1e6 {
			b.Run(name+"map", func(b *testing.B) {
				tr := engine.NewTruth(int(keys), false, false)
				run(b, func() { tr.Observe(events) })
			})
		}
	}
}

// BenchmarkStripedPopulation is a striped counter that predicts K from the
// followers and grows it, on its simulated cluster, per event: over the
// posts run's population (thousands of counters created as the run goes,
// a few going viral) beside a single hot key at the same rate, in one run
// (issue 16: the population stays at the speed of the other timed runs).
// ns/event is the design's lane alone, by its own clock (the design and
// its cluster); the one hot key is the floor the population's ratio is
// taken to (tools/benchratio.awk). The run's whole cost (generation, truth,
// design, cluster, scoring) is wall-ns/event.
func BenchmarkStripedPopulation(b *testing.B) {
	const design = `cluster: {nodes: 8}
assumptions: {key_capacity: 1000, headroom: 0.7}
strategies:
  - {name: grow, type: striped, params: {stripes: 1, predict: "0:1,700000:2,1400000:4,2800000:8,5600000:16,11200000:32", grow_above: 700, shrink_below: 300}}
`
	posts := `name: posts
seed: 1
workload:
  posts:
    rate: 5
    duration: 10m
    followers: {law: lognormal, median: 300, sigma: 2.5, max: 20_000_000}
    like_rate: 0.001
    noise: 0.5
    half_life: 2m
    viral: {share: 0.002, factor: 50, floor: 90, within: 2m}
` + design
	for _, c := range []struct{ name, yaml string }{{"impl=population", posts}, {"impl=floor", ""}} {
		b.Run(c.name, func(b *testing.B) {
			yaml := c.yaml
			if yaml == "" { // one key at the posts' mean rate, over as long
				scn, err := scenarios.Parse("posts.yaml", []byte(posts))
				if err != nil {
					b.Fatal(err)
				}
				st, err := engine.Prepare(scn, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rate := float64(st.Env.Events) / 600
				yaml = fmt.Sprintf("name: one\nseed: 1\nworkload:\n  keys: 1\n  arrivals: poisson\n  phases: [{duration: 10m, rate: %.0f}]\n%s", rate, design)
			}
			scn, err := scenarios.Parse("bench.yaml", []byte(yaml))
			if err != nil {
				b.Fatal(err)
			}
			var events, lane float64
			b.ReportAllocs()
			for b.Loop() {
				st, err := engine.Prepare(scn, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				rep, err := st.Run(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				for _, r := range rep.Results {
					switch {
					case r.Strategy == engine.TruthName(st.Scenario) && r.Metric == "events":
						events = *r.Value
					case r.Strategy == "grow" && r.Metric == "ns_per_event":
						lane = *r.Value
					}
				}
			}
			b.ReportMetric(lane, "ns/event")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/(float64(b.N)*events), "wall-ns/event")
			b.ReportMetric(events, "events")
		})
	}
}
