package engine

import (
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"countsim/strategies"
	"countsim/workload"
)

// bruteTrend is the trending truth worked out the plain way, a map a key
// and a law, from the definitions of trendtruth.go: a window law's oldest
// bucket held is the most b − W + 1 over the buckets of the events and the
// checkpoints so far; an event counts in the window while its bucket is
// held, or for good when its bucket was already below the oldest when it
// came; a decayed score is d·2^(−(At − at)/h) + Delta at each of the key's
// events, in stream order.
type bruteTrend struct {
	laws   []strategies.TrendLaw
	k      int
	plants []uint64
	th     []int64
	// by law: the events counted (bucket, key, delta, actor, for good),
	// the oldest bucket held, the decayed scores
	evs    [][]bruteEvent
	oldest []int64
	dec    []map[uint64][2]float64 // key → {score, at}
	keys   map[uint64]bool
	count  []int64
	region [][]int64
	cross  map[[3]int]int64
	// by law, at each checkpoint
	top            [][][]strategies.Trend
	plantScore     [][][]float64
	distinctKeys   [][]float64
	distinctActors [][]float64
}

type bruteEvent struct {
	b, delta   int64
	key, actor uint64
	stuck      bool
}

func newBruteTrend(laws []strategies.TrendLaw, k int, plants []uint64, th []int64, regions int) *bruteTrend {
	n := len(laws)
	bt := &bruteTrend{laws: laws, k: k, plants: plants, th: th, evs: make([][]bruteEvent, n), oldest: make([]int64, n),
		dec: make([]map[uint64][2]float64, n), keys: map[uint64]bool{}, count: make([]int64, len(plants)), cross: map[[3]int]int64{},
		top: make([][][]strategies.Trend, n), plantScore: make([][][]float64, n), distinctKeys: make([][]float64, n), distinctActors: make([][]float64, n)}
	for j := range laws {
		bt.dec[j] = map[uint64][2]float64{}
	}
	if len(th) > 0 {
		bt.region = make([][]int64, len(plants))
		for p := range plants {
			bt.region[p] = make([]int64, regions)
		}
	}
	return bt
}

func (bt *bruteTrend) event(e workload.Event) {
	if e.Op != workload.Write || e.Delta <= 0 {
		return
	}
	bt.keys[e.Key] = true
	for p, key := range bt.plants {
		if key != e.Key {
			continue
		}
		bt.count[p] += e.Delta
		if bt.region == nil {
			continue
		}
		g := int(e.Actor % uint64(len(bt.region[p])))
		before := bt.region[p][g]
		bt.region[p][g] += e.Delta
		for j, th := range bt.th {
			if before < th && before+e.Delta >= th {
				bt.cross[[3]int{j, p, g}] = e.At
			}
		}
	}
	for j, l := range bt.laws {
		if l.Window > 0 {
			b := e.At / l.Bucket
			bt.oldest[j] = max(bt.oldest[j], b-l.Window/l.Bucket+1)
			bt.evs[j] = append(bt.evs[j], bruteEvent{b: b, delta: e.Delta, key: e.Key, actor: e.Actor, stuck: b < bt.oldest[j]})
			continue
		}
		d := bt.dec[j][e.Key]
		bt.dec[j][e.Key] = [2]float64{d[0]*math.Exp2(-float64(e.At-int64(d[1]))/float64(l.HalfLife)) + float64(e.Delta), float64(e.At)}
	}
}

func (bt *bruteTrend) checkpoint(c int64) {
	now := c - 1
	for j, l := range bt.laws {
		scores := map[uint64]float64{}
		if l.Window > 0 {
			bt.oldest[j] = max(bt.oldest[j], now/l.Bucket-l.Window/l.Bucket+1)
			totals, actors := map[uint64]int64{}, map[uint64]bool{}
			for _, x := range bt.evs[j] {
				if x.stuck || x.b >= bt.oldest[j] {
					totals[x.key] += x.delta
					actors[x.actor] = true
				}
			}
			for key, n := range totals {
				scores[key] = float64(n)
			}
			bt.distinctKeys[j] = append(bt.distinctKeys[j], float64(len(totals)))
			bt.distinctActors[j] = append(bt.distinctActors[j], float64(len(actors)))
		} else {
			for key, d := range bt.dec[j] {
				scores[key] = d[0] * math.Exp2(-float64(now-int64(d[1]))/float64(l.HalfLife))
			}
		}
		var all []strategies.Trend
		for _, key := range slices.Sorted(maps.Keys(bt.keys)) {
			if s, ok := scores[key]; ok && (l.Window == 0 || s != 0) {
				all = append(all, strategies.Trend{Key: key, Score: s})
			}
		}
		slices.SortFunc(all, func(a, b strategies.Trend) int {
			if TrendBefore(a, b) {
				return -1
			}
			return 1
		})
		bt.top[j] = append(bt.top[j], all[:min(bt.k, len(all))])
		ps := make([]float64, len(bt.plants))
		for p, key := range bt.plants {
			if l.Window > 0 {
				ps[p] = scores[key]
			} else {
				d := bt.dec[j][key]
				ps[p] = d[0] * math.Exp2(-float64(now-int64(d[1]))/float64(l.HalfLife))
			}
		}
		bt.plantScore[j] = append(bt.plantScore[j], ps)
	}
}

// TestTrendTruthAgainstBruteForce: on streams in and out of time order,
// with reads and non-positive deltas among the writes, small keys and
// large, every answer of the truth at every checkpoint — each law's top K
// (scores to the bit), each plant's score, a window's distinct keys and
// actors — and each plant's counts and threshold crossings by region are
// the brute force's.
func TestTrendTruthAgainstBruteForce(t *testing.T) {
	laws := []strategies.TrendLaw{{Window: 600, Bucket: 100}, {Window: 200, Bucket: 100}, {HalfLife: 150},
		{Window: 5000, Bucket: 5000}, {Window: 70, Bucket: 7}, {HalfLife: 1000}}
	for _, c := range []struct {
		name     string
		shuffle  float64 // the share of events moved back in time
		bigKeys  bool
		regional bool
	}{
		{"in-order", 0, false, true},
		{"in-order/big-keys", 0, true, false},
		{"out-of-order", 0.05, false, true},
		{"out-of-order/big-keys", 0.2, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(c.name))))
			var ev []workload.Event
			at := int64(0)
			for range 6000 {
				at += r.Int64N(3)
				e := workload.Event{At: at, Key: uint64(r.IntN(300)), Actor: uint64(r.IntN(9)), Op: workload.Write, Delta: 1 + r.Int64N(3)}
				if r.Float64() < c.shuffle {
					e.At = max(0, at-r.Int64N(1500))
				}
				if c.bigKeys && e.Key%3 != 0 {
					e.Key = workload.Mix64(e.Key) | 1<<62
				}
				if c.bigKeys && e.Actor%2 == 0 {
					e.Actor = workload.Mix64(e.Actor) | 1<<62
				}
				switch r.IntN(40) {
				case 0:
					e.Op = workload.Read
				case 1:
					e.Delta = -e.Delta
				case 2:
					e.Delta = 0
				}
				ev = append(ev, e)
			}
			plants := []uint64{ev[0].Key, ev[1].Key, ev[2].Key, 1 << 63}
			var checks []int64
			for x := int64(250); x <= at+400; x += 250 {
				checks = append(checks, x)
			}
			var th []int64
			regions := 4
			if c.regional {
				th = []int64{20, 60}
			}
			tr := NewTrendTruth(laws, checks, 7, plants)
			bt := newBruteTrend(laws, 7, plants, th, regions)
			if c.regional {
				tr.Thresholds = th
				tr.Crossed = map[[3]int]int64{}
				tr.RegionCount = make([][]int64, len(plants))
				for p := range plants {
					tr.RegionCount[p] = make([]int64, regions)
				}
			}
			next := 0
			for lo := 0; lo < len(ev); {
				hi := min(len(ev), lo+1+r.IntN(700))
				tr.Observe(ev[lo:hi])
				for _, e := range ev[lo:hi] {
					for ; next < len(checks) && e.At >= checks[next]; next++ {
						bt.checkpoint(checks[next])
					}
					bt.event(e)
				}
				lo = hi
			}
			tr.Finish()
			for ; next < len(checks); next++ {
				bt.checkpoint(checks[next])
			}
			if tr.DistinctKeys() != len(bt.keys) {
				t.Fatalf("%d keys, want %d", tr.DistinctKeys(), len(bt.keys))
			}
			if !slices.Equal(tr.PlantCount, bt.count) {
				t.Fatalf("plant counts %v, want %v", tr.PlantCount, bt.count)
			}
			for p := range tr.RegionCount {
				if !slices.Equal(tr.RegionCount[p], bt.region[p]) {
					t.Fatalf("plant %d's counts by region %v, want %v", p, tr.RegionCount[p], bt.region[p])
				}
			}
			if !maps.Equal(tr.Crossed, bt.cross) {
				t.Fatalf("crossings %v, want %v", tr.Crossed, bt.cross)
			}
			for j, l := range tr.Laws {
				if len(l.Top) != len(checks) {
					t.Fatalf("law %d: %d answers for %d checkpoints", j, len(l.Top), len(checks))
				}
				for ci := range checks {
					if !slices.Equal(l.Top[ci], bt.top[j][ci]) {
						t.Fatalf("law %d (%+v), checkpoint %d: top %v, want %v", j, l.Law, checks[ci], l.Top[ci], bt.top[j][ci])
					}
					if !slices.Equal(l.Plants[ci], bt.plantScore[j][ci]) {
						t.Fatalf("law %d (%+v), checkpoint %d: plants %v, want %v", j, l.Law, checks[ci], l.Plants[ci], bt.plantScore[j][ci])
					}
				}
				if !slices.Equal(l.DistinctKeys, bt.distinctKeys[j]) || !slices.Equal(l.DistinctActors, bt.distinctActors[j]) {
					t.Fatalf("law %d (%+v): distinct keys %v, actors %v; want %v, %v", j, l.Law, l.DistinctKeys, l.DistinctActors, bt.distinctKeys[j], bt.distinctActors[j])
				}
			}
		})
	}
}

// BenchmarkTrendTruthObserve: the truth of the trending scenario (its
// stream, 1,000 phrases a second over 100,000 in 4 regions, for 30
// minutes; its laws, 60- and 10-minute windows of 1-minute buckets, the
// regional counters' one bucket of the stream, a half-life of 30 minutes;
// its checkpoints every minute, 4 plants, one threshold), fed in batches
// of 4,096: ns an event, checkpoints included, and the CPU ns an event of
// the benchmark's thread (laneClock: what the run's truth lane reports,
// steadier than the wall on a busy machine).
func BenchmarkTrendTruthObserve(b *testing.B) {
	lockLane()
	defer runtime.UnlockOSThread()
	const span = 30 * time.Minute
	src, err := workload.NewTrending(workload.TrendConfig{Seed: 1, Label: "stream", Rate: 1000, Duration: int64(span),
		Keys: 100_000, S: 1, Scramble: true, Regions: 4})
	if err != nil {
		b.Fatal(err)
	}
	var ev, buf []workload.Event
	for i := range src.Chunks() {
		buf = src.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	laws := []strategies.TrendLaw{{Window: int64(time.Hour), Bucket: int64(time.Minute)}, {Window: int64(10 * time.Minute), Bucket: int64(time.Minute)},
		{Window: int64(span), Bucket: int64(span)}, {HalfLife: int64(30 * time.Minute)}}
	var checks []int64
	for c := int64(time.Minute); c <= int64(span); c += int64(time.Minute) {
		checks = append(checks, c)
	}
	plants := []uint64{src.KeyOf(5000), src.KeyOf(3000), src.KeyOf(8000), src.KeyOf(9000)}
	b.ReportAllocs()
	cpu, n := laneClock(), 0
	for b.Loop() {
		n++
		tr := NewTrendTruth(laws, checks, 10, plants)
		tr.Thresholds, tr.Crossed = []int64{10_000}, map[[3]int]int64{}
		tr.RegionCount = make([][]int64, len(plants))
		for p := range plants {
			tr.RegionCount[p] = make([]int64, 4)
		}
		for lo := 0; lo < len(ev); lo += 4096 {
			tr.Observe(ev[lo:min(lo+4096, len(ev))])
		}
		tr.Finish()
	}
	cpu = laneClock() - cpu
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ev)), "ns/event")
	b.ReportMetric(float64(cpu)/float64(n)/float64(len(ev)), "cpu-ns/event")
}
