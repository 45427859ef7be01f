package distinct

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// The exact set against a Go map: random ids, sequential ids, the id 0 and
// ids repeated, with a small size hint so that the table doubles, and its
// invariants after every batch.
func TestExactDistinct(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, tt := range []struct {
		name string
		hint uint64
		id   func(i int) uint64
		n    int
	}{
		{"random/hint=0", 0, func(int) uint64 { return r.Uint64() }, 50000},
		{"repeats/hint=1000", 1000, func(int) uint64 { return uint64(r.IntN(30000)) }, 100000},
		{"sequential/hint=exact", 60000, func(i int) uint64 { return uint64(i / 2) }, 120000},
		{"high-bits", 10, func(i int) uint64 { return uint64(i%5000) << 40 }, 20000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := NewExactDistinct(tt.hint, 7)
			truth := map[uint64]bool{}
			var batch []workload.Event
			for i := range tt.n {
				id := tt.id(i)
				if i%1000 == 0 {
					id = 0
				}
				truth[id] = true
				batch = append(batch, workload.Event{Actor: id, Op: workload.Write}, workload.Event{Actor: ^id, Op: workload.Read})
				if len(batch) == 8192 || i == tt.n-1 {
					x.Observe(batch)
					batch = batch[:0]
					designtest.CheckInvariants(t, x)
				}
			}
			if got, want := x.Distinct(), float64(len(truth)); got != want {
				t.Errorf("Distinct: got %v, want %v", got, want)
			}
			for id := range truth {
				if !x.contains(id) {
					t.Fatalf("contains(%d): false for an id inserted", id)
				}
			}
			for range 1000 {
				if id := r.Uint64() | 1; !truth[id] && x.contains(id) {
					t.Fatalf("contains(%d): true for an id never inserted", id)
				}
			}
			if want := int64(len(x.ids)) * 8; x.Bytes() != want || x.n > len(x.ids)*3/4 {
				t.Errorf("Bytes %d, want %d (table %d, n %d)", x.Bytes(), want, len(x.ids), x.n)
			}
		})
	}
}

// Merge is the union, whatever the seeds and sizes; merging a set with
// itself changes nothing.
func TestExactDistinctMerge(t *testing.T) {
	a, b := NewExactDistinct(10, 1), NewExactDistinct(100000, 2)
	truth := map[uint64]bool{}
	for i := range uint64(30000) {
		a.Insert(i)
		truth[i] = true
	}
	for i := uint64(20000); i < 60000; i++ {
		b.Insert(i)
		truth[i] = true
	}
	b.Insert(0)
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	designtest.CheckInvariants(t, a)
	if got, want := a.Len(), len(truth); got != want {
		t.Errorf("union: got %d ids, want %d", got, want)
	}
	for id := range truth {
		if !a.contains(id) {
			t.Fatalf("union lacks %d", id)
		}
	}
	if err := a.Merge(a); err != nil || a.Len() != len(truth) {
		t.Errorf("merge(A, A): %v, %d ids, want %d", err, a.Len(), len(truth))
	}
	designtest.CheckInvariants(t, a)
}

// The plan: 8 B an id for 40,000,000 viewers is 320,000,000 B at full scale;
// at the simulated scale, the table that env.Keys ids fill, which is what
// Bytes measures once they have been seen.
func TestExactDistinctPlan(t *testing.T) {
	typ, err := strategies.Lookup("exact-distinct")
	if err != nil {
		t.Fatal(err)
	}
	p, err := designtest.DecodeParams(typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "p", Value: int64(14)}}); err == nil || err.Error() != `: params: unknown key "p" (allowed: none: the design takes no parameters)` {
		t.Errorf("Decode(p): got %v", err)
	}
	for _, keys := range []uint64{0, 1000, 100000} {
		t.Run(fmt.Sprintf("keys=%d", keys), func(t *testing.T) {
			env := strategies.Env{Seed: 1, Keys: keys, Full: strategies.Assumptions{Keys: 4e7}}
			plan := typ.Plan(p, env)
			designtest.CheckPlan(t, plan, []strategies.PlanLine{
				{Metric: "bytes", Value: float64(exactDistinctBytes(keys))},
				{Metric: "bytes", Value: 320e6, Full: true},
			})
			s, err := typ.Build(p, env)
			if err != nil {
				t.Fatal(err)
			}
			x := s.(*ExactDistinct)
			for id := range keys {
				x.Insert(id + 1)
			}
			designtest.CheckPlannedBytes(t, plan, s)
		})
	}
}

// Observe allocates nothing when the set was sized for the ids it sees.
func TestExactDistinctObserveAllocs(t *testing.T) {
	ev := hllBenchEvents(1<<15, 8)
	x := NewExactDistinct(1<<15, 1)
	x.Observe(ev)
	if allocs := testing.AllocsPerRun(5, func() { x.Observe(ev[:4096]) }); allocs != 0 {
		t.Errorf("Observe: got %v allocations, want 0", allocs)
	}
}

// exactFloorInsert is the floor of the exact set: for each Write event,
// the simplest insert into an open-addressing table of ids, linear probing
// from the same hash (Mix64 of the id ^ seed), one id after the other.
func exactFloorInsert(ids []uint64, seed uint64, ev []workload.Event) {
	mask := uint64(len(ids) - 1)
	for i := range ev {
		if ev[i].Op != workload.Write {
			continue
		}
		id := ev[i].Actor
		for j := workload.Mix64(id^seed) & mask; ; j = (j + 1) & mask {
			if ids[j] == id {
				break
			}
			if ids[j] == 0 {
				ids[j] = id
				break
			}
		}
	}
}

// BenchmarkExactDistinctObserve: a batch of n random ids, every one already
// in the set (the table of TableLen(n) slots, 8 B each: 1 MB; 16 MB,
// beyond the L2 cache; 256 MB, as the cricket final's 512 MB, beyond the
// last level and the TLB's reach), so that each insert is a probe at a
// random slot:
//
//   - impl=floor: exactFloorInsert, one id after the other, each probe's
//     cache miss after the last;
//   - impl=countsim: ExactDistinct.Observe, the same probe with the id 0
//     apart, the count kept and the table doubling when 3/4 full, each
//     slot prefetched exactAhead ids ahead (at 256 MB 21 ns an id against
//     the floor's 29.5; 26.5 when 16 ahead).
func BenchmarkExactDistinctObserve(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 20, 1 << 24} {
		ev := hllBenchEvents(n, 9)
		b.Run(fmt.Sprintf("ids=%d/impl=floor", n), func(b *testing.B) {
			x := NewExactDistinct(uint64(n), 1)
			ids := make([]uint64, len(x.ids))
			exactFloorInsert(ids, x.seed, ev)
			cpu := startCPU(b)
			b.ReportAllocs()
			for b.Loop() {
				exactFloorInsert(ids, x.seed, ev)
			}
			reportPerEvent(b, len(ev), cpu)
		})
		b.Run(fmt.Sprintf("ids=%d/impl=countsim", n), func(b *testing.B) {
			x := NewExactDistinct(uint64(n), 1)
			x.Observe(ev)
			cpu := startCPU(b)
			b.ReportAllocs()
			for b.Loop() {
				x.Observe(ev)
			}
			reportPerEvent(b, len(ev), cpu)
			b.ReportMetric(float64(x.Bytes()), "bytes")
		})
	}
}
