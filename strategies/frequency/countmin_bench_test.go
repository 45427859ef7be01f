package frequency

import (
	"encoding/binary"
	"math"
	"sync"
	"testing"

	boom "github.com/tylertreat/BoomFilters"

	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The count-min add path against its floor and against another library, on
// the same keys: 2^20 events of the search scenario's stream (Zipf s = 1 over
// 10^6 scrambled keys, workload.NewStream), at the search scenario's
// ε = 0.0001, δ = 0.01, that is 5 rows of 27,183 counters (543,660 B, which
// fits this machine's L2 of 2 MiB but not its L1).
//
//   - impl=floor: the least a correct count-min add can do (floorCM): one
//     hash of the key (two Mix64, as the sketch's h1 and h2), d row indexes
//     by double hashing, a plain uint32 increment in each row, reading each
//     Key of the same []workload.Event that Observe reads (48 B an event).
//   - impl=floor-keys: the same loop over a []uint64 of the keys (8 B an
//     event): what reading the events costs, on top of the floor.
//   - impl=countsim: CountMin.Observe on batches of 4,096 events, as sim
//     feeds it: the event filter, the delta, N, the third hash term.
//   - impl=countsim-top: CountMinTopK.Observe (the sketch and a heap of the
//     10 largest estimates), the search scenario's design.
//   - impl=boom: github.com/tylertreat/BoomFilters' CountMinSketch.Add of the
//     key's 8 little-endian bytes (FNV-64 through hash.Hash64, double
//     hashing mod w, uint64 counters), built by NewCountMinSketch(0.0001,
//     0.01), which gives the same 5 × 27,183.
//
// Each reports ns/event; ns/op is one pass over the 2^20 events. Measured on
// this project's 2-core AMD EPYC (medians of -count 10, other work on the
// machine): floor 10.9, floor-keys 8.6, countsim 12.4 (1.14× the floor,
// 0.52× boom), countsim-top 18.5, boom 24.0 ns/event, no allocation; with
// d XXH64 row hashes an event, as before, countsim took 23.6 and
// countsim-top 30.8.

const (
	cmBenchEvents = 1 << 20
	cmBenchBatch  = 4096
	cmBenchEps    = 0.0001
	cmBenchDelta  = 0.01
)

var cmBenchStream = sync.OnceValues(func() ([]workload.Event, []uint64) {
	st, err := workload.NewStream(workload.StreamConfig{
		Seed: 81, Events: cmBenchEvents, Keys: 1e6, S: 1, Scramble: true, Rate: 1e6,
	})
	if err != nil {
		panic(err)
	}
	ev := make([]workload.Event, 0, cmBenchEvents)
	var buf []workload.Event
	for i := range st.Chunks() {
		buf = st.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	keys := make([]uint64, len(ev))
	for i := range ev {
		keys[i] = ev[i].Key
	}
	return ev, keys
})

// floorCM is the floor: one hash of the key (the sketch's Mix64 pair),
// Kirsch–Mitzenmacher double hashing for the rows (row i at reduce(h1 +
// i·h2, w), modulo 2^64 as in CountMin), and a plain uint32 increment in each
// row: no event filter, no delta, no N, no saturation. CountMin does one add
// a row more (its rows take h1 + i·h2 + C(i,2)·h3). TestCountMinBound uses it
// too, as the double-hashed sketch whose rows are only pairwise independent.
type floorCM struct {
	cells  []uint32
	width  uint64
	depth  int
	s1, s2 uint64
}

func newFloorCM(width, depth int, seed uint64) *floorCM {
	st := workload.SplitMix(seed)
	return &floorCM{cells: make([]uint32, width*depth), width: uint64(width), depth: depth, s1: st.Uint64(), s2: st.Uint64()}
}

// Observe counts 1 for every event's key, whatever its Op and Delta.
func (f *floorCM) Observe(ev []workload.Event) {
	w, cells := f.width, f.cells
	for i := range ev {
		k := ev[i].Key
		g, h2 := workload.Mix64(k^f.s1), workload.Mix64(k^f.s2)
		var off uint64
		for range f.depth {
			cells[off+ds.Reduce(g, w)]++
			g += h2
			off += w
		}
	}
}

// addKeys is Observe over bare keys.
func (f *floorCM) addKeys(keys []uint64) {
	w, cells := f.width, f.cells
	for _, k := range keys {
		g, h2 := workload.Mix64(k^f.s1), workload.Mix64(k^f.s2)
		var off uint64
		for range f.depth {
			cells[off+ds.Reduce(g, w)]++
			g += h2
			off += w
		}
	}
}

// Count is the least of the key's counters.
func (f *floorCM) Count(k uint64) uint64 {
	g, h2 := workload.Mix64(k^f.s1), workload.Mix64(k^f.s2)
	est := uint32(math.MaxUint32)
	var off uint64
	for range f.depth {
		est = min(est, f.cells[off+ds.Reduce(g, f.width)])
		g += h2
		off += f.width
	}
	return uint64(est)
}

func BenchmarkCountMinAdd(b *testing.B) {
	ev, keys := cmBenchStream()
	perEvent := func(b *testing.B) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(keys)), "ns/event")
	}
	batches := func(f func([]workload.Event)) {
		for i := 0; i < len(ev); i += cmBenchBatch {
			f(ev[i:min(i+cmBenchBatch, len(ev))])
		}
	}
	params := CountMinParams{Epsilon: cmBenchEps, Delta: cmBenchDelta}

	b.Run("impl=floor", func(b *testing.B) {
		s := newCM(b, params, 1)
		f := newFloorCM(s.rows.Width, s.rows.Depth, 1)
		b.ReportAllocs()
		for b.Loop() {
			f.Observe(ev)
		}
		perEvent(b)
	})
	b.Run("impl=floor-keys", func(b *testing.B) {
		s := newCM(b, params, 1)
		f := newFloorCM(s.rows.Width, s.rows.Depth, 1)
		b.ReportAllocs()
		for b.Loop() {
			f.addKeys(keys)
		}
		perEvent(b)
	})
	b.Run("impl=countsim", func(b *testing.B) {
		s := newCM(b, params, 1)
		b.ReportAllocs()
		for b.Loop() {
			batches(s.Observe)
		}
		perEvent(b)
	})
	b.Run("impl=countsim-top", func(b *testing.B) {
		top := params
		top.Top = 10
		s, err := NewCountMinTopK(top, 1)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			batches(s.Observe)
		}
		perEvent(b)
	})
	b.Run("impl=boom", func(b *testing.B) {
		s := boom.NewCountMinSketch(cmBenchEps, cmBenchDelta)
		buf := make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			for _, k := range keys {
				binary.LittleEndian.PutUint64(buf, k)
				s.Add(buf)
			}
		}
		perEvent(b)
	})
}
