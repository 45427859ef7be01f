package boards

import (
	"runtime"
	"sync"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// The cricket final's leaderboard stream (scenarios/cricket-final.yaml,
// step leaderboard): 10⁶ score changes of +1..10 points over 20 s by
// players drawn Zipf(0.8) from 2·10⁷, scrambled, with 500 rank queries a
// second; about 712,000 players end on the board. Built once and shared.
var (
	cricketOnce   sync.Once
	cricketEvents []workload.Event
)

func cricketStream(b *testing.B) []workload.Event {
	cricketOnce.Do(func() {
		sc, err := workload.NewScores(workload.ScoreConfig{Timed: workload.TimedConfig{
			Seed: 1, Label: "leaderboard", Keys: 20_000_000, S: 0.8, Scramble: true, Arrivals: workload.Poisson,
			Phases: []workload.Phase{{Duration: 20e9, Rate: 50_000, To: 50_000}}, Reads: 500,
		}, DeltaMin: 1, DeltaMax: 10})
		if err != nil {
			b.Fatal(err)
		}
		var buf []workload.Event
		for i := range sc.Chunks() {
			buf = sc.Chunk(i, buf)
			cricketEvents = append(cricketEvents, buf...)
		}
	})
	return cricketEvents
}

// BenchmarkBoardObserve feeds the cricket final's leaderboard stream, in
// batches of 4,096 as a run does, to a fresh board of each design (no
// store: the simulated cluster's accounting is not the design's): an op is
// the whole stream, reported as ns/event, and as cpu-ns/event the CPU time
// of the benchmark's thread (the garbage collector's work on other threads
// left out), which a machine shared with other work inflates less.
func BenchmarkBoardObserve(b *testing.B) {
	designs := []struct {
		name string
		make func() strategies.Strategy
	}{
		{"sorted-set", func() strategies.Strategy {
			s, _ := NewSortedSet(SortedSetParams{Ties: strategies.TiesCompetition}, nil, 1)
			return s
		}},
		{"sharded-8", func() strategies.Strategy {
			s, _ := NewShardedBoard(ShardedBoardParams{Shards: 8, Ties: strategies.TiesDense}, nil, 1)
			return s
		}},
		{"sharded-8-sum", func() strategies.Strategy {
			s, _ := NewShardedBoard(ShardedBoardParams{Shards: 8, Ties: strategies.TiesDense, Dense: DenseSum}, nil, 1)
			return s
		}},
		{"histogram-1", func() strategies.Strategy {
			h, _ := NewScoreHistogram(ScoreHistogramParams{Width: 1}, 711_158)
			return h
		}},
		{"histogram-100", func() strategies.Strategy {
			h, _ := NewScoreHistogram(ScoreHistogramParams{Width: 100}, 711_158)
			return h
		}},
	}
	for _, d := range designs {
		b.Run("design="+d.name, func(b *testing.B) {
			ev := cricketStream(b)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			b.ReportAllocs()
			cpu := designtest.ThreadCPU()
			for b.Loop() {
				s := d.make()
				for lo := 0; lo < len(ev); lo += 4096 {
					s.Observe(ev[lo:min(lo+4096, len(ev))])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ev)), "ns/event")
			if cpu := designtest.ThreadCPU() - cpu; cpu > 0 {
				b.ReportMetric(float64(cpu)/float64(b.N*len(ev)), "cpu-ns/event")
			}
		})
	}
}
