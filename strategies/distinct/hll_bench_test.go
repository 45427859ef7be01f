package distinct

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/axiomhq/hyperloglog"

	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// hllBenchEvents returns n Write events with random actors.
func hllBenchEvents(n int, seed uint64) []workload.Event {
	r := rand.New(rand.NewPCG(seed, 0x62656e6368))
	ev := make([]workload.Event, n)
	for i := range ev {
		ev[i] = workload.Event{Key: 1, Actor: r.Uint64(), Delta: 1, Op: workload.Write}
	}
	return ev
}

// startCPU locks the benchmark's goroutine to its thread and returns the
// thread's CPU time, for reportPerEvent: call it just before the loop.
func startCPU(b *testing.B) int64 {
	runtime.LockOSThread()
	b.Cleanup(runtime.UnlockOSThread)
	return designtest.ThreadCPU()
}

// reportPerEvent reports the benchmark's time per event of a batch of n:
// the wall time (ns/event) and, where the thread's clock is read, the CPU
// time of the thread since cpu0 (startCPU), which the waits for a core on
// a shared machine do not inflate (cpu-ns/event).
func reportPerEvent(b *testing.B, n int, cpu0 int64) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
	if cpu0 > 0 {
		b.ReportMetric(float64(designtest.ThreadCPU()-cpu0)/float64(b.N)/float64(n), "cpu-ns/event")
	}
}

// hllFloorP is the precision of the floor loop, a constant.
const hllFloorP = 14

// hllFloorInsert is the floor of a dense insert at p = 14: for each Write
// event, hash the Actor, index by the top p bits, rank the other q bits
// (leading zeros + 1, capped at q+1 by a guard bit), keep the larger rank in
// a []uint8 of m registers.
func hllFloorInsert(regs []uint8, st uint64, ev []workload.Event) {
	for i := range ev {
		if ev[i].Op != workload.Write {
			continue
		}
		h := ds.RowHash(st, ds.KeyLane(ev[i].Actor))
		idx := h >> (64 - hllFloorP)
		r := uint8(bits.LeadingZeros64(h<<hllFloorP|1<<(hllFloorP-1))) + 1
		if regs[idx] < r {
			regs[idx] = r
		}
	}
}

// BenchmarkHLLInsert: inserting a batch of 4,096 events (the profile's
// batch; the batch stays in L2, the registers in L1) into a dense sketch at
// p = 14, side by side:
//
//   - impl=floor: the simplest correct loop over the same events, written
//     here: skip Reads, hash the Actor (the same seeded XXH64), index by the
//     top p bits, rank the rest, keep the larger in a []uint8;
//   - impl=countsim: HLL.Observe;
//   - impl=axiomhq: github.com/axiomhq/hyperloglog's dense Sketch (uint8
//     registers too), InsertHash of the same XXH64 hash computed in the
//     loop, so that all three pay for the same hash and differ only in the
//     register work;
//   - impl=axiomhq-insert: the same Sketch as its users call it, Insert of
//     the Actor's 8-byte little-endian encoding, hashed by its MetroHash64.
//
// The registers are warm: after the first pass they hold the maximum of the
// 4,096 ids and no insert raises one, the steady state of a large stream.
func BenchmarkHLLInsert(b *testing.B) {
	const p = hllFloorP
	ev := hllBenchEvents(4096, 7)
	st := hllState(1)
	b.Run("impl=floor", func(b *testing.B) {
		regs := make([]uint8, 1<<hllFloorP)
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			hllFloorInsert(regs, st, ev)
		}
		reportPerEvent(b, len(ev), cpu)
	})
	b.Run("impl=countsim", func(b *testing.B) {
		s, err := NewHLL(HLLParams{Precision: p, Dense: true}, 1)
		if err != nil {
			b.Fatal(err)
		}
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			s.Observe(ev)
		}
		reportPerEvent(b, len(ev), cpu)
	})
	b.Run("impl=axiomhq", func(b *testing.B) {
		sk, err := hyperloglog.NewSketch(p, false)
		if err != nil {
			b.Fatal(err)
		}
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			for i := range ev {
				if ev[i].Op == workload.Write {
					sk.InsertHash(ds.RowHash(st, ds.KeyLane(ev[i].Actor)))
				}
			}
		}
		reportPerEvent(b, len(ev), cpu)
	})
	b.Run("impl=axiomhq-insert", func(b *testing.B) {
		sk, err := hyperloglog.NewSketch(p, false)
		if err != nil {
			b.Fatal(err)
		}
		var buf [8]byte
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			for i := range ev {
				if ev[i].Op == workload.Write {
					binary.LittleEndian.PutUint64(buf[:], ev[i].Actor)
					sk.Insert(buf[:])
				}
			}
		}
		reportPerEvent(b, len(ev), cpu)
	})
}

// Observe of a batch of 2^16 distinct actors, dense (the steady state) at
// other precisions than BenchmarkHLLInsert's, and from an empty sparse
// sketch (the sparse phase and the switch).
func BenchmarkHLLObserve(b *testing.B) {
	ev := hllBenchEvents(1<<16, 2)
	for _, p := range []int{10, 18} {
		b.Run(fmt.Sprintf("p=%d/dense", p), func(b *testing.B) {
			s, _ := NewHLL(HLLParams{Precision: p, Dense: true}, 1)
			cpu := startCPU(b)
			b.ReportAllocs()
			for b.Loop() {
				s.Observe(ev)
			}
			reportPerEvent(b, len(ev), cpu)
			b.ReportMetric(float64(s.Bytes()), "bytes")
		})
	}
	b.Run("p=14/sparse-n=1000", func(b *testing.B) {
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			s, _ := NewHLL(HLLParams{Precision: 14}, 1)
			s.Observe(ev[:1000])
		}
		reportPerEvent(b, 1000, cpu)
	})
	b.Run("p=14/sparse-to-dense-n=4000", func(b *testing.B) {
		cpu := startCPU(b)
		b.ReportAllocs()
		for b.Loop() {
			s, _ := NewHLL(HLLParams{Precision: 14}, 1)
			s.Observe(ev[:4000])
		}
		reportPerEvent(b, 4000, cpu)
	})
}

func BenchmarkHLLEstimate(b *testing.B) {
	ev := hllBenchEvents(1<<16, 3)
	for _, tt := range []struct {
		p int
		n int
	}{{10, 1 << 16}, {14, 1 << 16}, {14, 1000}, {18, 1 << 16}} {
		s, _ := NewHLL(HLLParams{Precision: tt.p}, 1)
		s.Observe(ev[:tt.n])
		form := "dense"
		if s.sparse() {
			form = "sparse"
		}
		b.Run(fmt.Sprintf("p=%d/%s", tt.p, form), func(b *testing.B) {
			b.ReportAllocs()
			var sink float64
			for b.Loop() {
				sink += s.Estimate()
			}
			_ = sink
		})
	}
}

func BenchmarkHLLMerge(b *testing.B) {
	x, y := newHLLT(b, 14, 1), newHLLT(b, 14, 1)
	x.Observe(hllBenchEvents(1<<16, 4))
	y.Observe(hllBenchEvents(1<<16, 5))
	b.ReportAllocs()
	for b.Loop() {
		if err := x.Merge(y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHLLEncoding(b *testing.B) {
	s := newHLLT(b, 14, 1)
	s.Observe(hllBenchEvents(1<<16, 6))
	enc, _ := s.MarshalBinary()
	b.Run("marshal/p=14/dense", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.MarshalBinary(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(enc)), "bytes")
	})
	b.Run("unmarshal/p=14/dense", func(b *testing.B) {
		b.ReportAllocs()
		var d HLL
		for b.Loop() {
			if err := d.UnmarshalBinary(enc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
