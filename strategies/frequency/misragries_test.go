package frequency

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// mgRef is Misra-Gries the plain way: a Go map of at most k counts, and a
// decrement that walks every one of them, O(k). It applies the same
// weighted rule as MisraGries (δ = min(delta, smallest count)), so the two
// must hold the same keys with the same counts after every event.
type mgRef struct {
	c map[uint64]uint64
	k int
	d uint64 // total decrement
}

func (r *mgRef) add(key, delta uint64) {
	if _, ok := r.c[key]; ok || len(r.c) < r.k {
		r.c[key] += delta
		return
	}
	dec := delta
	for _, v := range r.c {
		dec = min(dec, v)
	}
	r.d += dec
	for k := range r.c {
		if r.c[k] -= dec; r.c[k] == 0 {
			delete(r.c, k)
		}
	}
	if delta > dec {
		r.c[key] = delta - dec
	}
}

// checkMisraGries checks the summary against the plain reference (the same
// keys, counts and D) and the guarantees against the truth: count ≤ true ≤
// count + D for every key, D ≤ N/(k+1), every key above N/(k+1) held.
func checkMisraGries(t *testing.T, s *MisraGries, ref *mgRef, truth map[uint64]uint64, n uint64) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	k := uint64(s.k)
	if s.n != n || s.offset != ref.d {
		t.Fatalf("N = %d, D = %d: want N = %d, D = %d", s.n, s.offset, n, ref.d)
	}
	if (k+1)*s.offset > n {
		t.Fatalf("D = %d over N/(k+1) = %d/%d", s.offset, n, k+1)
	}
	top := s.Top(s.k)
	if len(top) != len(ref.c) {
		t.Fatalf("holds %d keys, the reference %d", len(top), len(ref.c))
	}
	for _, it := range top {
		if c, ok := ref.c[it.Key]; !ok || c != it.Count || it.Err != s.offset {
			t.Fatalf("item %+v: the reference has count %d (held %v), D = %d", it, c, ok, ref.d)
		}
	}
	for key, tr := range truth {
		c := s.Count(key)
		if c > tr || tr-c > s.offset {
			t.Fatalf("Count(%d) = %d, true %d: not in [true − D, true], D = %d", key, c, tr, s.offset)
		}
		if tr*(k+1) > n && c == 0 {
			t.Fatalf("key %d of true count %d > N/(k+1) = %d/%d is not held", key, tr, n, k+1)
		}
	}
}

func TestMisraGriesGuarantees(t *testing.T) {
	streams := []designtest.StreamSpec{
		{Seed: 61, Keys: 100000, S: 1, Events: 200000, Scramble: true},
		{Seed: 62, Keys: 20000, S: 0.8, Events: 100000},
		{Seed: 63, Keys: 5000, S: 1.5, Events: 100000, Scramble: true},
		{Seed: 64, Keys: 1000, S: 0, Events: 50000},
	}
	for _, sp := range streams {
		for _, weighted := range []bool{false, true} {
			ev := sp.Gen()
			if weighted {
				r := rand.New(rand.NewPCG(sp.Seed, 2))
				for i := range ev {
					ev[i].Delta = 1 + r.Int64N(20)
					if r.IntN(50) == 0 {
						ev[i].Delta = 1 + r.Int64N(5000) // now and then a large one
					}
				}
			}
			for _, k := range []int{1, 2, 10, 100, 1000} {
				t.Run(fmt.Sprintf("s=%g/keys=%d/weighted=%v/k=%d", sp.S, sp.Keys, weighted, k), func(t *testing.T) {
					s, err := NewMisraGries(MisraGriesParams{Counters: k}, 1)
					if err != nil {
						t.Fatal(err)
					}
					ref := &mgRef{c: map[uint64]uint64{}, k: k}
					truth := map[uint64]uint64{}
					var n uint64
					const batch = 9973
					for lo := 0; lo < len(ev); lo += batch {
						b := ev[lo:min(lo+batch, len(ev))]
						s.Observe(b)
						for _, e := range b {
							ref.add(e.Key, uint64(e.Delta))
							truth[e.Key] += uint64(e.Delta)
							n += uint64(e.Delta)
						}
						checkMisraGries(t, s, ref, truth, n)
					}
					if s.offset == 0 && k < 1000 {
						t.Errorf("D = 0: the stream never filled %d counters", k)
					}
				})
			}
		}
	}
}

// A small worked example: k = 2 over a b c a (unit deltas), then a
// weighted key that frees a counter and takes it.
func TestMisraGriesByHand(t *testing.T) {
	s, err := NewMisraGries(MisraGriesParams{Counters: 2}, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []uint64{1, 2, 3, 1} { // c decrements a and b to 0, 1: a takes a counter again
		s.add(k, 1)
	}
	if got := s.Top(5); len(got) != 1 || got[0] != (strategies.Item{Key: 1, Count: 1, Err: 1}) {
		t.Fatalf("after a b c a: got %+v, want [{1 1 1}]", got)
	}
	s.add(4, 1) // a free counter: held as is
	s.add(1, 4) // a: 5
	s.add(9, 3) // full: δ = min(3, 1) = 1, key 4 leaves, 9 takes it with 2
	want := []strategies.Item{{Key: 1, Count: 4, Err: 2}, {Key: 9, Count: 2, Err: 2}}
	if got := s.Top(5); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if s.Count(4) != 0 || s.Count(2) != 0 {
		t.Errorf("keys dropped: Count(4) = %d, Count(2) = %d, want 0", s.Count(4), s.Count(2))
	}
}

// Reads, zero and negative deltas are ignored.
func TestMisraGriesIgnores(t *testing.T) {
	s, _ := NewMisraGries(MisraGriesParams{Counters: 3}, 1)
	s.Observe([]workload.Event{{Key: 1, Delta: 2}, {Key: 2, Op: workload.Read, Delta: 1}, {Key: 3, Delta: 0}, {Key: 4, Delta: -3}})
	if got := s.Top(10); len(got) != 1 || got[0].Key != 1 || got[0].Count != 2 || s.n != 2 {
		t.Fatalf("got %+v (N = %d), want only key 1 counted 2", got, s.n)
	}
}

func TestMisraGriesParams(t *testing.T) {
	typ, err := strategies.Lookup("misra-gries")
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range [][]scenarios.Param{nil, {{Key: "counters", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, {{Key: "counters", Value: int64(1<<24 + 1), Pos: scenarios.Pos{Line: 3}}}} {
		if _, err := designtest.DecodeParams(typ, raw); err == nil || designtest.FaultKey(err) != "counters" || !designtest.ContainsAll(err.Error(), "1..16777216") {
			t.Errorf("%v: got %v, want a counters error", raw, err)
		}
	}
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "counters", Value: int64(1000)}})
	if err != nil {
		t.Fatal(err)
	}
	env := strategies.Env{Seed: 1, Events: 10_000_000, Full: strategies.Assumptions{Events: 2e9}}
	s, err := typ.Build(p, env)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, l := range typ.Plan(p, env) {
		got[fmt.Sprintf("%s %v", l.Metric, l.Full)] = l.Value
	}
	for key, want := range map[string]float64{
		"bytes false":               float64(s.Bytes()),
		"guarantee_threshold false": 1e7 / 1001,
		"error_bound_n_k1 false":    1e7 / 1001,
		"error_bound_n_k1 true":     2e9 / 1001,
		"counters false":            1000,
	} {
		if got[key] != want {
			t.Errorf("plan %s: got %v, want %v", key, got[key], want)
		}
	}
	if s.Bytes() != 1000*56+2048*12 { // a 32 B counter and a 24 B bucket each, a 12 B index slot
		t.Errorf("Bytes: got %d, want %d", s.Bytes(), 1000*56+2048*12)
	}
}

// Observe allocates nothing once the counters exist.
func TestMisraGriesObserveAllocs(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 65, Keys: 50000, S: 1, Events: 1 << 16, Scramble: true}.Gen()
	s, _ := NewMisraGries(MisraGriesParams{Counters: 1000}, 1)
	s.Observe(ev)
	if allocs := testing.AllocsPerRun(5, func() { s.Observe(ev[:4096]) }); allocs != 0 {
		t.Errorf("Observe of a batch: got %v allocations, want 0", allocs)
	}
}
