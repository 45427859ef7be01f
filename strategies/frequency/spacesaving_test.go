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

// checkSpaceSaving checks the guarantees of Metwally et al. against the
// truth: count − err ≤ true ≤ count for every monitored key; every key with
// a true count above N/m is monitored; Count of any key is ≥ its true count;
// and when guaranteed(k) says so, Top(k) holds the true top k.
func checkSpaceSaving(t *testing.T, s *SpaceSaving, truth map[uint64]uint64, n uint64) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if s.n != n {
		t.Fatalf("N: got %d, want %d", s.n, n)
	}
	monitored := map[uint64]bool{}
	for _, it := range s.Top(s.m) {
		monitored[it.Key] = true
		if tr := truth[it.Key]; it.Count < tr || it.Count-it.Err > tr {
			t.Fatalf("key %d: true count %d not in [count − err, count] = [%d, %d]", it.Key, tr, it.Count-it.Err, it.Count)
		}
	}
	threshold := n / uint64(s.m)
	for k, tr := range truth {
		if tr > threshold && !monitored[k] {
			t.Fatalf("key %d of true count %d > N/m = %d is not monitored", k, tr, threshold)
		}
		if got := s.Count(k); got < tr {
			t.Fatalf("Count(%d): got %d, want ≥ %d", k, got, tr)
		}
	}
	for _, k := range []int{1, 5, 10} {
		if !s.guaranteed(k) {
			continue
		}
		got, want := s.Top(k), designtest.TrueTop(truth, k)
		for i := range want {
			if truth[got[i].Key] != want[i].Count {
				t.Fatalf("guaranteed(%d) but rank %d has true count %d, want %d", k, i+1, truth[got[i].Key], want[i].Count)
			}
		}
	}
}

func TestSpaceSavingGuarantees(t *testing.T) {
	streams := []designtest.StreamSpec{
		{Seed: 51, Keys: 100000, S: 1, Events: 300000, Scramble: true},
		{Seed: 52, Keys: 20000, S: 0.8, Events: 200000},
		{Seed: 53, Keys: 5000, S: 1.5, Events: 100000, Scramble: true},
		{Seed: 54, Keys: 1000, S: 0, Events: 50000},
	}
	for _, sp := range streams {
		ev := sp.Gen()
		truth, n := designtest.ExactCounts(ev)
		for _, m := range []int{1, 10, 100, 1000} {
			t.Run(fmt.Sprintf("s=%g/keys=%d/m=%d", sp.S, sp.Keys, m), func(t *testing.T) {
				s, err := NewSpaceSaving(SpaceSavingParams{Counters: m}, 1)
				if err != nil {
					t.Fatal(err)
				}
				s.Observe(ev)
				checkSpaceSaving(t, s, truth, n)
			})
		}
	}
}

// Weighted deltas, the guarantees and check after every batch.
func TestSpaceSavingEveryBatch(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 55, Keys: 3000, S: 1.1, Events: 60000, Scramble: true}.Gen()
	r := rand.New(rand.NewPCG(55, 1))
	for i := range ev {
		ev[i].Delta = 1 + r.Int64N(100)
	}
	s, err := NewSpaceSaving(SpaceSavingParams{Counters: 50}, 3)
	if err != nil {
		t.Fatal(err)
	}
	truth := map[uint64]uint64{}
	var n uint64
	for i := 0; i < len(ev); i += 997 {
		batch := ev[i:min(i+997, len(ev))]
		s.Observe(batch)
		for _, e := range batch {
			truth[e.Key] += uint64(e.Delta)
			n += uint64(e.Delta)
		}
		checkSpaceSaving(t, s, truth, n)
	}
	if !s.guaranteed(1) {
		t.Errorf("guaranteed(1): got false on a skewed stream, want true")
	}
}

// Before the counters are all taken every count is exact, Min is 0 and
// unseen keys count 0.
func TestSpaceSavingNotFull(t *testing.T) {
	s, err := NewSpaceSaving(SpaceSavingParams{Counters: 10}, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Observe([]workload.Event{{Key: 3, Delta: 2}, {Key: 4, Delta: 1}, {Key: 3, Delta: 1}, {Key: 9, Op: workload.Read, Delta: 1}})
	if got := s.Count(3); got != 3 {
		t.Errorf("Count(3): got %d, want 3", got)
	}
	if got := s.Count(9); got != 0 {
		t.Errorf("Count(9) (a read only): got %d, want 0", got)
	}
	if got := s.Min(); got != 0 {
		t.Errorf("Min: got %d, want 0", got)
	}
	if !s.guaranteed(2) {
		t.Errorf("guaranteed(2): got false with exact counts, want true")
	}
	designtest.CheckInvariants(t, s)
}

func TestSpaceSavingPlan(t *testing.T) {
	typ, err := strategies.Lookup("space-saving")
	if err != nil {
		t.Fatal(err)
	}
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "counters", Value: int64(1000)}})
	if err != nil {
		t.Fatal(err)
	}
	env := strategies.Env{Events: 1e7, Full: strategies.Assumptions{Events: 2e9}}
	plan := typ.Plan(p, env)
	designtest.CheckPlan(t, plan, []strategies.PlanLine{
		{Metric: "counters", Value: 1000},
		{Metric: "bytes", Value: 1000*56 + 2048*12},
		{Metric: "guarantee_threshold", Value: 10000},
		{Metric: "guarantee_threshold", Value: 2e6, Full: true},
	})
	s, err := typ.Build(p, env)
	if err != nil {
		t.Fatal(err)
	}
	designtest.CheckPlannedBytes(t, plan, s)
}

// check notices a broken summary.
func TestSpaceSavingCheckCatches(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 57, Keys: 2000, S: 1, Events: 20000, Scramble: true}.Gen()
	for _, tt := range []struct {
		name    string
		corrupt func(s *SpaceSaving)
	}{
		{"n", func(s *SpaceSaving) { s.n++ }},
		{"hash", func(s *SpaceSaving) { s.ss.Counters[7].Hash ^= 1 }},
		{"index", func(s *SpaceSaving) {
			i, _ := s.index.Find(s.index.Hash(s.ss.Counters[7].Key))
			s.index.IDs[i] = 9
		}},
		{"error", func(s *SpaceSaving) { s.ss.Counters[7].Err = s.ss.Buckets[s.ss.Counters[7].Bucket].Count }},
		{"bucket order", func(s *SpaceSaving) { s.ss.Buckets[s.ss.Head].Count = s.ss.Buckets[s.ss.Buckets[s.ss.Head].Next].Count }},
		{"ring", func(s *SpaceSaving) {
			s.ss.Counters[s.ss.Buckets[s.ss.Head].First].Bucket = s.ss.Buckets[s.ss.Head].Next
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewSpaceSaving(SpaceSavingParams{Counters: 50}, 4)
			if err != nil {
				t.Fatal(err)
			}
			s.Observe(ev)
			if err := s.check(); err != nil {
				t.Fatal(err)
			}
			tt.corrupt(s)
			if err := s.check(); err == nil {
				t.Error("check passed a broken summary")
			}
		})
	}
}
