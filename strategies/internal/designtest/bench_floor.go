package designtest

import (
	"sync"
	"testing"

	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The search stream of the benchmarks: Zipf s = 1 over scrambled keys, as
// countsim run search feeds its designs, in batches of 4,096 events.
const (
	BenchBatch  = 4096
	BenchEvents = 1 << 20
)

var (
	benchStreamMu sync.Mutex
	benchStreams  = map[uint64][]workload.Event{}
)

// SearchEvents returns BenchEvents events of the search stream over keys
// keys (cached: the benchmarks of one run share them).
func SearchEvents(tb testing.TB, keys uint64) []workload.Event {
	tb.Helper()
	benchStreamMu.Lock()
	defer benchStreamMu.Unlock()
	if ev, ok := benchStreams[keys]; ok {
		return ev
	}
	st, err := workload.NewStream(workload.StreamConfig{Seed: 81, Label: "bench", Events: BenchEvents,
		Keys: keys, S: 1, Scramble: true, Rate: 1e6})
	if err != nil {
		tb.Fatal(err)
	}
	ev := make([]workload.Event, 0, BenchEvents)
	var buf []workload.Event
	for i := range st.Chunks() {
		buf = st.Chunk(i, buf)
		ev = append(ev, buf...)
	}
	benchStreams[keys] = ev
	return ev
}

// BenchObserve measures observe on the batches of ev, one batch a loop, after
// a first pass over all of them; it reports ns/event.
func BenchObserve(b *testing.B, ev []workload.Event, observe func([]workload.Event)) {
	for lo := 0; lo < len(ev); lo += BenchBatch {
		observe(ev[lo:min(lo+BenchBatch, len(ev))])
	}
	b.ReportAllocs()
	lo, events := 0, 0
	for b.Loop() {
		hi := min(lo+BenchBatch, len(ev))
		observe(ev[lo:hi])
		events += hi - lo
		if lo = hi; lo == len(ev) {
			lo = 0
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
}

// exactFloor is the floor of exact counting: the simplest correct
// open-addressing count table, {key, count} slots interleaved in one array,
// linear probing from the same hash, sized for every key of the stream so
// that it never grows. It does the work of Exact.Observe with one shard.
type exactFloor struct {
	Slots []struct{ key, count uint64 }
	mask  uint64
	seed  uint64
	N     uint64
}

func NewExactFloor(keys uint64, seed uint64) *exactFloor {
	l := ds.TableLen(keys)
	return &exactFloor{Slots: make([]struct{ key, count uint64 }, l), mask: l - 1, seed: seed}
}

func (f *exactFloor) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		d := uint64(e.Delta)
		f.N += d
		for j := workload.Mix64(e.Key^f.seed) & f.mask; ; j = (j + 1) & f.mask {
			s := &f.Slots[j]
			if s.count == 0 {
				s.key, s.count = e.Key, d
				break
			}
			if s.key == e.Key {
				s.count += d
				break
			}
		}
	}
}

func (f *exactFloor) Count(key uint64) uint64 {
	for j := workload.Mix64(key^f.seed) & f.mask; ; j = (j + 1) & f.mask {
		if s := &f.Slots[j]; s.count == 0 || s.key == key {
			return s.count
		}
	}
}
