package sim

import (
	"math"
	"testing"

	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
)

// counter is a design that counts the events it observed.
type counter struct{ seen []int64 }

func (c *counter) Observe(b []workload.Event) {
	for _, e := range b {
		c.seen = append(c.seen, e.At)
	}
}
func (c *counter) Bytes() int64 { return 0 }

// TestObserveTicks: a design's tick at t comes after every event before t
// and before every event at or after it, batches cut wherever ticks fall,
// faults and ticks at the same time in order: the fault first.
func TestObserveTicks(t *testing.T) {
	c := &counter{}
	var got [][2]int64 // tick time, events seen by then
	r := &engine.Run{Designs: []strategies.Strategy{c}, Next: []int{0}, NextTick: []int{0},
		Ticks: []int64{5, 10, 10, 25}, Faults: []strategies.Fault{{At: 10, Kind: strategies.AppCrash}}}
	r.Tick = func(i int, at int64) { got = append(got, [2]int64{at, int64(len(c.seen))}) }
	var ev []workload.Event
	for at := int64(0); at < 30; at += 2 {
		ev = append(ev, workload.Event{At: at, Op: workload.Write, Delta: 1})
	}
	r.Observe(0, ev[:4]) // 0..6
	r.Observe(0, ev[4:]) // 8..28
	want := [][2]int64{{5, 3}, {10, 5}, {10, 5}, {25, 13}}
	if len(got) != len(want) {
		t.Fatalf("ticks %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("ticks %v, want %v", got, want)
		}
	}
	if r.Next[0] != 1 || len(c.seen) != len(ev) {
		t.Fatalf("fault delivered %d, events %d", r.Next[0], len(c.seen))
	}
}

// TestTrendTruth: the exact window count and decayed score at checkpoints,
// against a count from the event list.
func TestTrendTruth(t *testing.T) {
	laws := []strategies.TrendLaw{{Window: 30, Bucket: 10}, {HalfLife: 7}}
	checks := []int64{10, 20, 45, 90}
	tr := engine.NewTrendTruth(laws, checks, 3, []uint64{1})
	var ev []workload.Event
	for at := int64(0); at < 60; at++ {
		ev = append(ev, workload.Event{At: at, Key: uint64(at % 4), Op: workload.Write, Delta: 1 + at%3})
	}
	tr.Observe(ev[:25])
	tr.Observe(ev[25:])
	tr.Finish()
	for c, at := range checks {
		now := at - 1
		for j, l := range laws {
			var want [4]float64
			for _, e := range ev {
				if e.At > now {
					continue
				}
				if l.Window > 0 {
					if b, nb := e.At/l.Bucket, now/l.Bucket; b > nb-l.Window/l.Bucket {
						want[e.Key] += float64(e.Delta)
					}
				} else {
					want[e.Key] += float64(e.Delta) * math.Exp2(-float64(now-e.At)/float64(l.HalfLife))
				}
			}
			if got := tr.Laws[j].Plants[c][0]; math.Abs(got-want[1]) > 1e-9*max(1, want[1]) {
				t.Fatalf("law %d at %d: key 1 scores %v, want %v", j, at, got, want[1])
			}
			top := tr.Laws[j].Top[c]
			for i := 1; i < len(top); i++ {
				if !engine.TrendBefore(top[i-1], top[i]) {
					t.Fatalf("law %d at %d: top out of order: %v", j, at, top)
				}
			}
			for _, x := range top {
				if math.Abs(x.Score-want[x.Key]) > 1e-9*max(1, want[x.Key]) {
					t.Fatalf("law %d at %d: key %d scores %v, want %v", j, at, x.Key, x.Score, want[x.Key])
				}
			}
			for key, w := range want { // no key left out scores above the last kept
				if w > 0 && !holds(top, uint64(key)) && (len(top) < 3 || w > top[len(top)-1].Score) {
					t.Fatalf("law %d at %d: key %d (score %v) left out of %v", j, at, key, w, top)
				}
			}
		}
	}
}
