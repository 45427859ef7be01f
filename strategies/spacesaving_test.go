package strategies

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"countsim/workload"
)

// checkSpaceSaving checks the guarantees of Metwally et al. against the
// truth: count − err ≤ true ≤ count for every monitored key; every key with
// a true count above N/m is monitored; Count of any key is ≥ its true count;
// and when Guaranteed(k) says so, Top(k) holds the true top k.
func checkSpaceSaving(t *testing.T, s *SpaceSaving, truth map[uint64]uint64, n uint64) {
	t.Helper()
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	if s.N() != n {
		t.Fatalf("N: got %d, want %d", s.N(), n)
	}
	monitored := map[uint64]bool{}
	for _, it := range s.Top(s.Counters()) {
		monitored[it.Key] = true
		if tr := truth[it.Key]; it.Count < tr || it.Count-it.Err > tr {
			t.Fatalf("key %d: true count %d not in [count − err, count] = [%d, %d]", it.Key, tr, it.Count-it.Err, it.Count)
		}
	}
	threshold := n / uint64(s.Counters())
	for k, tr := range truth {
		if tr > threshold && !monitored[k] {
			t.Fatalf("key %d of true count %d > N/m = %d is not monitored", k, tr, threshold)
		}
		if got := s.Count(k); got < tr {
			t.Fatalf("Count(%d): got %d, want ≥ %d", k, got, tr)
		}
	}
	for _, k := range []int{1, 5, 10} {
		if !s.Guaranteed(k) {
			continue
		}
		got, want := s.Top(k), trueTop(truth, k)
		for i := range want {
			if truth[got[i].Key] != want[i].Count {
				t.Fatalf("Guaranteed(%d) but rank %d has true count %d, want %d", k, i+1, truth[got[i].Key], want[i].Count)
			}
		}
	}
}

func TestSpaceSavingGuarantees(t *testing.T) {
	streams := []streamSpec{
		{seed: 51, keys: 100000, s: 1, events: 300000, scramble: true},
		{seed: 52, keys: 20000, s: 0.8, events: 200000},
		{seed: 53, keys: 5000, s: 1.5, events: 100000, scramble: true},
		{seed: 54, keys: 1000, s: 0, events: 50000},
	}
	for _, sp := range streams {
		ev := sp.gen()
		truth, n := exactCounts(ev)
		for _, m := range []int{1, 10, 100, 1000} {
			t.Run(fmt.Sprintf("s=%g/keys=%d/m=%d", sp.s, sp.keys, m), func(t *testing.T) {
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
	ev := streamSpec{seed: 55, keys: 3000, s: 1.1, events: 60000, scramble: true}.gen()
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
	if !s.Guaranteed(1) {
		t.Errorf("Guaranteed(1): got false on a skewed stream, want true")
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
	if !s.Guaranteed(2) {
		t.Errorf("Guaranteed(2): got false with exact counts, want true")
	}
	checkInvariants(t, s)
}

func TestSpaceSavingPlan(t *testing.T) {
	typ, err := Lookup("space-saving")
	if err != nil {
		t.Fatal(err)
	}
	p, err := typ.Decode([]Param{{Key: "counters", Value: int64(1000)}})
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Events: 1e7, Full: Assumptions{Events: 2e9}}
	plan := typ.Plan(p, env)
	checkPlan(t, plan, []PlanLine{
		{Metric: "counters", Value: 1000},
		{Metric: "bytes", Value: 1000*56 + 2048*12},
		{Metric: "guarantee_threshold", Value: 10000},
		{Metric: "guarantee_threshold", Value: 2e6, Full: true},
	})
	s, err := typ.Build(p, env)
	if err != nil {
		t.Fatal(err)
	}
	checkPlannedBytes(t, plan, s)
}

// check notices a broken summary.
func TestSpaceSavingCheckCatches(t *testing.T) {
	ev := streamSpec{seed: 57, keys: 2000, s: 1, events: 20000, scramble: true}.gen()
	for _, tt := range []struct {
		name    string
		corrupt func(s *SpaceSaving)
	}{
		{"n", func(s *SpaceSaving) { s.n++ }},
		{"hash", func(s *SpaceSaving) { s.ss.counters[7].hash ^= 1 }},
		{"index", func(s *SpaceSaving) { *s.index.refAt(s.index.hash(s.ss.counters[7].key), s.ss.counters[7].key) = 9 }},
		{"error", func(s *SpaceSaving) { s.ss.counters[7].err = s.ss.buckets[s.ss.counters[7].bucket].count }},
		{"bucket order", func(s *SpaceSaving) { s.ss.buckets[s.ss.head].count = s.ss.buckets[s.ss.buckets[s.ss.head].next].count }},
		{"ring", func(s *SpaceSaving) {
			s.ss.counters[s.ss.buckets[s.ss.head].first].bucket = s.ss.buckets[s.ss.head].next
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
