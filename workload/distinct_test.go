package workload

import (
	"fmt"
	"math"
	"slices"
	"testing"
)

// profileIDs is the generator that sim's accuracy profile wrote out before
// DistinctIDs: the events of ids n+1 … n+len(buf) from the SplitMix64 state
// *state, the formula copied as it stood.
func profileIDs(buf []Event, state *uint64, n uint64) {
	for e := range buf {
		*state += 0x9e3779b97f4a7c15
		z := *state
		z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
		z = (z ^ z>>27) * 0x94d049bb133111eb
		buf[e] = Event{Actor: z ^ z>>31, Delta: 1, Op: Write, ID: n + uint64(e) + 1}
	}
}

// TestDistinctIDsFormula checks DistinctIDs against the profile's formula,
// event for event, over batches of uneven sizes (0 included).
func TestDistinctIDsFormula(t *testing.T) {
	sizes := []int{1, 7, 0, 4096, 3, 1000, 4096}
	for _, seed := range []uint64{0, 1, 2024, 0x70726f66696c65, math.MaxUint64} {
		t.Run(fmt.Sprintf("seed=%#x", seed), func(t *testing.T) {
			d := NewDistinctIDs(seed)
			state, n := seed, uint64(0)
			for b, size := range sizes {
				got, want := make([]Event, size), make([]Event, size)
				d.Fill(got)
				profileIDs(want, &state, n)
				n += uint64(size)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("batch %d event %d: got %+v, want %+v", b, i, got[i], want[i])
					}
				}
				if d.Count() != n {
					t.Fatalf("batch %d: got Count %d, want %d", b, d.Count(), n)
				}
			}
		})
	}
	// The ids of seed 1234567 are SplitMix64's check values.
	d := NewDistinctIDs(1234567)
	got := make([]Event, len(splitMixCheck))
	d.Fill(got)
	for i, e := range got {
		if e.Actor != splitMixCheck[i] {
			t.Errorf("seed 1234567, id %d: got %d, want %d", i+1, e.Actor, splitMixCheck[i])
		}
	}
}

// TestDistinctIDsUnique draws 10^6 ids of a few seeds: none may repeat
// (guaranteed, not probable: see DistinctIDs).
func TestDistinctIDsUnique(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	for _, seed := range []uint64{0, 42, math.MaxUint64} {
		d := NewDistinctIDs(seed)
		batch := make([]Event, 4096)
		ids := make([]uint64, 0, n)
		for len(ids) < n {
			k := min(len(batch), n-len(ids))
			d.Fill(batch[:k])
			for _, e := range batch[:k] {
				ids = append(ids, e.Actor)
			}
		}
		slices.Sort(ids)
		for i := 1; i < len(ids); i++ {
			if ids[i] == ids[i-1] {
				t.Fatalf("seed %d: got id %#x twice in %d draws, want all distinct", seed, ids[i], n)
			}
		}
	}
}

func TestDistinctIDsNoAlloc(t *testing.T) {
	d := NewDistinctIDs(1)
	batch := make([]Event, 4096)
	if allocs := testing.AllocsPerRun(100, func() { d.Fill(batch) }); allocs != 0 {
		t.Errorf("got %v allocs per Fill, want 0", allocs)
	}
}

func BenchmarkDistinctIDs(b *testing.B) {
	d := NewDistinctIDs(1)
	batch := make([]Event, 4096)
	b.ReportAllocs()
	for b.Loop() {
		d.Fill(batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(batch)), "ns/event")
}
