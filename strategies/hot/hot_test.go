package hot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// Tests of the hot-counter designs (single-key, striped, batched), their
// read path and dedup window, on the stores of memstore_test.go.

func asStrategy[T strategies.Strategy](s T, err error) (strategies.Strategy, error) {
	if err != nil {
		return nil, err
	}
	return s, nil
}

type hotDesign struct {
	name  string
	build func(st strategies.Store) (strategies.Strategy, error)
}

// hotDesigns are every design and option, all with the given dedup window.
func hotDesigns(dedup time.Duration) []hotDesign {
	striped := func(k int, sel StripeSelect, read ReadPath, ttl time.Duration) func(strategies.Store) (strategies.Strategy, error) {
		return func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewStriped(StripedParams{Stripes: k, Select: sel, Read: read, TTL: ttl, Dedup: dedup}, st, 7))
		}
	}
	batched := func(a int, flush time.Duration, jitter bool, k int, read ReadPath, ttl time.Duration) func(strategies.Store) (strategies.Strategy, error) {
		return func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewBatched(BatchedParams{Servers: a, Flush: flush, Jitter: jitter, Stripes: k, Read: read, TTL: ttl, Dedup: dedup}, st, 7))
		}
	}
	return []hotDesign{
		{"single-key", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewSingleKey(SingleKeyParams{Dedup: dedup}, st, 7))
		}},
		{"single-key/cache", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewSingleKey(SingleKeyParams{Read: ReadCache, TTL: 150 * time.Millisecond, Dedup: dedup}, st, 7))
		}},
		{"striped/k=8/random", striped(8, SelectRandom, ReadSum, 0)},
		{"striped/k=8/round-robin", striped(8, SelectRoundRobin, ReadSum, 0)},
		{"striped/k=8/hash", striped(8, SelectHash, ReadSum, 0)},
		{"striped/k=8/least-loaded", striped(8, SelectLeastLoaded, ReadSum, 0)},
		{"striped/k=5/random/cache", striped(5, SelectRandom, ReadCache, 200*time.Millisecond)},
		{"striped/adaptive", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewStriped(StripedParams{Stripes: 1, Select: SelectRandom, GrowAbove: 2000, ShrinkBelow: 500, MaxStripes: 64, Dedup: dedup}, st, 7))
		}},
		{"striped/adaptive/least-loaded/cache", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewStriped(StripedParams{Stripes: 2, Select: SelectLeastLoaded, GrowAbove: 1000, ShrinkBelow: 400, MaxStripes: 20,
				Read: ReadCache, TTL: 100 * time.Millisecond, Dedup: dedup}, st, 7))
		}},
		{"batched/a=16/t=250ms", batched(16, 250*time.Millisecond, false, 1, ReadSum, 0)},
		{"batched/a=16/t=250ms/jitter", batched(16, 250*time.Millisecond, true, 1, ReadSum, 0)},
		{"batched/a=7/t=1s/k=3/cache", batched(7, time.Second, false, 3, ReadCache, 300*time.Millisecond)},
	}
}

// Every design's count equals the single-key count, and the truth, once
// flushed; readers are shown no more than the truth at the moment of the
// read, and exactly the truth where the path promises it.
func TestHotTotalsAgree(t *testing.T) {
	sp := designtest.HotSpec{Seed: 1, PerSec: []int{20000, 30000, 10000, 40000, 5000, 0, 100}, Keys: 20, MaxDelta: 3, Reads: 300}
	ev := sp.Gen()
	truth, _ := designtest.HotTruth(ev)
	var reads int
	var atRead []int64 // the truth of the read's key at each read
	running := map[uint64]int64{}
	for _, e := range ev {
		if e.Op == workload.Read {
			reads++
			atRead = append(atRead, running[e.Key])
		} else {
			running[e.Key] += e.Delta
		}
	}
	end := int64(len(sp.PerSec)) * 1e9
	for _, d := range hotDesigns(0) {
		t.Run(d.name, func(t *testing.T) {
			st := designtest.NewMemStore(t)
			s, err := d.build(st)
			if err != nil {
				t.Fatal(err)
			}
			designtest.ObserveInBatches(t, s, ev, 1000)
			if f, ok := s.(strategies.Flusher); ok {
				f.Flush(end)
				designtest.CheckInvariants(t, s)
			}
			pc := s.(strategies.PointCounter)
			for key, want := range truth {
				if got := pc.Count(key); got != uint64(want) {
					t.Errorf("key %d: got %d, want %d", key, got, want)
				}
			}
			if got := pc.Count(12345); got != 0 {
				t.Errorf("key never written: got %d, want 0", got)
			}
			shown := s.(strategies.Reader).Shown()
			if len(shown) != reads {
				t.Fatalf("got %d values shown, want one per read: %d", len(shown), reads)
			}
			exact := !strings.Contains(d.name, "cache") && !strings.HasPrefix(d.name, "batched")
			for j, v := range shown {
				if v > atRead[j] || (exact && v != atRead[j]) {
					t.Fatalf("read %d: shown %d, truth %d (exact: %v)", j, v, atRead[j], exact)
				}
			}
			// One Do a batch, and one more for each fold of an adaptive K.
			calls := int64((len(ev) + 999) / 1000)
			if sd, ok := s.(*Striped); ok {
				calls += sd.shrinks
			}
			if f, ok := s.(strategies.Flusher); ok && f != nil {
				calls++
			}
			if int64(st.Calls) > calls {
				t.Errorf("%d Do calls for %d batches and folds: want one each at most", st.Calls, calls)
			}
		})
	}
}

// With resends, dedup makes every design exactly-once; without it the
// resends are counted twice.
func TestHotDedupAllDesigns(t *testing.T) {
	sp := designtest.HotSpec{Seed: 2, PerSec: []int{8000, 8000, 8000}, Keys: 3, Resend: 0.1, Delay: 50e6, Reads: 20}
	ev := sp.Gen()
	truth, resent := designtest.HotTruth(ev)
	var total int64
	for _, c := range truth {
		total += c
	}
	for _, dedup := range []time.Duration{0, time.Second} {
		for _, d := range hotDesigns(dedup) {
			t.Run(fmt.Sprintf("dedup=%v/%s", dedup, d.name), func(t *testing.T) {
				s, err := d.build(designtest.NewMemStore(t))
				if err != nil {
					t.Fatal(err)
				}
				designtest.ObserveInBatches(t, s, ev, 4096)
				if f, ok := s.(strategies.Flusher); ok {
					f.Flush(3e9)
				}
				var got int64
				for key := range truth {
					got += int64(s.(strategies.PointCounter).Count(key))
				}
				want, wantDropped := total, resent
				if dedup == 0 {
					want, wantDropped = total+resent, 0
				}
				if got != want {
					t.Errorf("total: got %d, want %d (truth %d, %d resends)", got, want, total, resent)
				}
				if dr := s.(strategies.Deduper).Dropped(); dr != wantDropped {
					t.Errorf("dropped: got %d, want %d", dr, wantDropped)
				}
			})
		}
	}
}

// The dedup window drops exactly the resends delayed by less than the
// window, on every design, and grows past its initial capacity.
func TestDedupWindow(t *testing.T) {
	const window = int64(1e9)
	delays := []int64{window / 2, window - 1, window, 2 * window}
	var ev []workload.Event
	var want, wantDropped int64
	for i := range 6000 {
		id := uint64(i + 1)
		e := workload.Event{At: int64(i) * 5e5, Key: 42, Delta: 1 + int64(i%3), ID: id, Op: workload.Write}
		ev = append(ev, e)
		want += e.Delta
		if i%2 == 0 {
			d := delays[(i/2)%len(delays)]
			e.At += d
			ev = append(ev, e)
			if d < window {
				wantDropped++
			} else {
				want += e.Delta
			}
		}
	}
	slices.SortStableFunc(ev, func(a, b workload.Event) int { return int(a.At - b.At) })
	for _, d := range []hotDesign{
		{"single-key", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewSingleKey(SingleKeyParams{Dedup: time.Second}, st, 3))
		}},
		{"striped", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewStriped(StripedParams{Stripes: 4, Select: SelectHash, Dedup: time.Second}, st, 3))
		}},
		{"batched", func(st strategies.Store) (strategies.Strategy, error) {
			return asStrategy(NewBatched(BatchedParams{Servers: 3, Flush: 100 * time.Millisecond, Stripes: 1, Dedup: 1000 * time.Millisecond}, st, 3))
		}},
	} {
		t.Run(d.name, func(t *testing.T) {
			s, err := d.build(designtest.NewMemStore(t))
			if err != nil {
				t.Fatal(err)
			}
			designtest.ObserveInBatches(t, s, ev, 777)
			if f, ok := s.(strategies.Flusher); ok {
				f.Flush(ev[len(ev)-1].At + 1)
			}
			if got := s.(strategies.PointCounter).Count(42); got != uint64(want) {
				t.Errorf("count: got %d, want %d", got, want)
			}
			if got := s.(strategies.Deduper).Dropped(); got != wantDropped {
				t.Errorf("dropped: got %d, want %d", got, wantDropped)
			}
		})
	}
	// The window held about 2,000 IDs (one every 0.5 ms for 1 s): it grew
	// from its first 1,024.
	d := newDedupWindow(window, 1)
	for _, e := range ev {
		d.seen(e.ID, e.At)
	}
	if len(d.ring) <= dedupInitialIDs {
		t.Errorf("ring of %d: want growth past %d", len(d.ring), dedupInitialIDs)
	}
	if err := d.check(); err != nil {
		t.Error(err)
	}
}

// stripeLoads returns the increments each stripe of key took, in total.
func stripeLoads(st *designtest.MemStore, key uint64, k int) []int64 {
	loads := make([]int64, k)
	for ks, n := range st.Load {
		for j := range k {
			if ks.Key == stripeKey(key, j) {
				loads[j] += n
			}
		}
	}
	return loads
}

// Every selection policy spreads a hot key's writes: round-robin and
// least-loaded exactly evenly, random and hash within the binomial spread.
func TestStripedSelectionSpread(t *testing.T) {
	const k = 32
	sp := designtest.HotSpec{Seed: 3, PerSec: []int{64000, 64000, 64000}, Keys: 1}
	ev := sp.Gen()
	n := float64(len(ev))
	mean := n / k
	// A stripe's share is Binomial(n, 1/K); z = 5.33 is the two-sided 1e-7
	// normal quantile: a correct build fails less than once in 3·10^5 runs
	// (K stripes, union bound), a selection that skips a stripe or favours
	// one by 3% (6,000 ± 400 here) does not pass.
	tol := 5.33 * math.Sqrt(n*(1.0/k)*(1-1.0/k))
	for _, sel := range []StripeSelect{SelectRandom, SelectRoundRobin, SelectHash, SelectLeastLoaded} {
		t.Run(sel.String(), func(t *testing.T) {
			st := designtest.NewMemStore(t)
			s, err := NewStriped(StripedParams{Stripes: k, Select: sel}, st, 11)
			if err != nil {
				t.Fatal(err)
			}
			designtest.ObserveInBatches(t, s, ev, 5000)
			loads := stripeLoads(st, 0, k)
			for j, l := range loads {
				switch sel {
				case SelectRoundRobin, SelectLeastLoaded:
					if float64(l) != mean {
						t.Errorf("stripe %d: %d increments, want exactly %v", j, l, mean)
					}
				default:
					if math.Abs(float64(l)-mean) > tol {
						t.Errorf("stripe %d: %d increments, want %v ± %.0f", j, l, mean, tol)
					}
				}
			}
			if sel == SelectLeastLoaded {
				// Per second too: every stripe-second holds 64,000/32.
				var keys []uint64
				for j := range k {
					keys = append(keys, stripeKey(0, j))
				}
				if got := st.Busiest(keys); got != 2000 {
					t.Errorf("busiest stripe-second: got %d, want 2000", got)
				}
			}
		})
	}
}

// A resend hits the stripe of the original under hash selection.
func TestStripedHashFollowsID(t *testing.T) {
	s, err := NewStriped(StripedParams{Stripes: 32, Select: SelectHash}, designtest.NewMemStore(t), 5)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewStriped(StripedParams{Stripes: 32, Select: SelectHash, GrowAbove: 1e9}, designtest.NewMemStore(t), 5)
	if err != nil {
		t.Fatal(err)
	}
	for id := range uint64(1000) {
		e := workload.Event{Key: 9, ID: id, Delta: 1}
		if x, y := s.pick(&e), s.pick(&e); x != y {
			t.Fatalf("id %d: stripes %d then %d", id, x, y)
		}
		if x, y := a.pick(&e), a.pick(&e); x != y {
			t.Fatalf("adaptive, id %d: stripes %d then %d", id, x, y)
		}
	}
}

// Least-loaded's busiest stripe-second is no worse than random's on the
// same stream, and here strictly better by more than one standard deviation
// of a stripe-second's count.
func TestLeastLoadedBeatsRandom(t *testing.T) {
	const k = 32
	perSec := slices.Repeat([]int{6400}, 10)
	ev := designtest.HotSpec{Seed: 4, PerSec: perSec, Keys: 1}.Gen()
	var keys []uint64
	for j := range k {
		keys = append(keys, stripeKey(0, j))
	}
	busiest := map[string]int64{}
	for _, sel := range []StripeSelect{SelectRandom, SelectLeastLoaded} {
		st := designtest.NewMemStore(t)
		s, err := NewStriped(StripedParams{Stripes: k, Select: sel}, st, 12)
		if err != nil {
			t.Fatal(err)
		}
		designtest.ObserveInBatches(t, s, ev, 4096)
		busiest[sel.String()] = st.Busiest(keys)
	}
	// A random stripe-second is Binomial(6400, 1/32): mean 200, σ ≈ 13.9.
	// Least-loaded gives every stripe-second exactly 200. Random's busiest
	// of 320 stripe-seconds is about mean + 2.7σ; that it stays below
	// mean + σ has probability about 0.84^320 ≈ 10^-24.
	sigma := math.Sqrt(6400 * (1.0 / k) * (1 - 1.0/k))
	if busiest["least-loaded"] != 200 {
		t.Errorf("least-loaded busiest stripe-second: got %d, want 200", busiest["least-loaded"])
	}
	if float64(busiest["random"]) < float64(busiest["least-loaded"])+sigma {
		t.Errorf("random busiest %d, least-loaded %d: want random worse by at least σ = %.1f", busiest["random"], busiest["least-loaded"], sigma)
	}
}

// Adaptive K grows with a ramp and shrinks after it, one step a second, and
// folding the removed stripes loses nothing.
func TestStripedAdaptive(t *testing.T) {
	perSec := []int{1000, 2000, 4000, 8000, 16000, 32000, 64000, 64000, 32000, 16000, 8000, 4000, 2000, 1000, 1000}
	// The K in force during each second: the busiest stripe of the second
	// before above 5,000 doubles it, every stripe below 2,000 halves it.
	wantK := []int{1, 1, 1, 1, 2, 4, 8, 16, 16, 16, 8, 4, 2, 1, 1}
	ev := designtest.HotSpec{Seed: 5, PerSec: perSec, Keys: 1, MaxDelta: 2}.Gen()
	truth, _ := designtest.HotTruth(ev)
	st := designtest.NewMemStore(t)
	s, err := NewStriped(StripedParams{Stripes: 1, Select: SelectRoundRobin, GrowAbove: 5000, ShrinkBelow: 2000, MaxStripes: 64}, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	var gotK []int
	lo := 0
	for sec := range perSec {
		hi := lo
		for hi < len(ev) && ev[hi].At < int64(sec+1)*1e9 {
			hi++
		}
		designtest.ObserveInBatches(t, s, ev[lo:hi], 3000)
		gotK = append(gotK, s.stripesOf(0))
		lo = hi
	}
	if !slices.Equal(gotK, wantK) {
		t.Errorf("K by second: got %v, want %v", gotK, wantK)
	}
	if g, sh := s.grows, s.shrinks; g != 4 || sh != 4 {
		t.Errorf("resizes: got %d grows, %d shrinks, want 4 and 4", g, sh)
	}
	if got := s.Count(0); got != uint64(truth[0]) {
		t.Errorf("count: got %d, want %d", got, truth[0])
	}
	for j := 1; j < 16; j++ {
		if v := st.Final(stripeKey(0, j)); v != 0 {
			t.Errorf("removed stripe %d holds %d", j, v)
		}
	}

	t.Run("idle seconds shrink", func(t *testing.T) {
		ev := designtest.HotSpec{Seed: 6, PerSec: []int{4000, 4000, 4000, 4000, 0, 0, 0, 0, 0, 0, 1}, Keys: 1}.Gen()
		s, err := NewStriped(StripedParams{Stripes: 1, Select: SelectRandom, GrowAbove: 500, ShrinkBelow: 100}, designtest.NewMemStore(t), 1)
		if err != nil {
			t.Fatal(err)
		}
		designtest.ObserveInBatches(t, s, ev[:len(ev)-1], 4096)
		if got := s.stripesOf(0); got != 8 {
			t.Fatalf("K after 4 s at 4,000/s: got %d, want 8", got)
		}
		designtest.ObserveInBatches(t, s, ev[len(ev)-1:], 1)
		if got := s.stripesOf(0); got != 1 {
			t.Errorf("K after 6 idle seconds: got %d, want 1", got)
		}
		if got := s.Count(0); got != 16001 {
			t.Errorf("count: got %d, want 16001", got)
		}
	})

	t.Run("queued writes", func(t *testing.T) {
		// Stripes serve 3,000 increments a second: the ramp's peak queues
		// on every stripe, and stripes are folded while writes still wait.
		// Readers are never shown more than the truth, nothing is lost, and
		// once the queues drain a reader is shown the exact count.
		sp := designtest.HotSpec{Seed: 7, PerSec: perSec, Keys: 1, Reads: 50}
		ev := sp.Gen()
		ev = append(ev, workload.Event{At: 200e9, Key: 0, Op: workload.Read})
		truth, _ := designtest.HotTruth(ev)
		q := designtest.NewQueueStore(t, 3000)
		s, err := NewStriped(StripedParams{Stripes: 1, Select: SelectRandom, GrowAbove: 2500, ShrinkBelow: 1000, MaxStripes: 32, Read: ReadSum}, q, 2)
		if err != nil {
			t.Fatal(err)
		}
		designtest.ObserveInBatches(t, s, ev, 2000)
		if g, sh := s.grows, s.shrinks; g == 0 || sh == 0 {
			t.Fatalf("resizes: %d grows, %d shrinks: want both", g, sh)
		}
		if got := s.Count(0); got != uint64(truth[0]) {
			t.Errorf("count: got %d, want %d", got, truth[0])
		}
		var running int64
		var lagged bool
		j := 0
		shown := s.Shown()
		for _, e := range ev {
			if e.Op == workload.Write {
				running += e.Delta
				continue
			}
			if shown[j] > running {
				t.Fatalf("read %d at %d: shown %d, more than the truth %d", j, e.At, shown[j], running)
			}
			lagged = lagged || shown[j] < running-1000
			j++
		}
		if !lagged {
			t.Error("no read lagged the truth by 1,000: the queue store did not queue")
		}
		if last := shown[len(shown)-1]; last != truth[0] {
			t.Errorf("read after the queues drained: shown %d, want %d", last, truth[0])
		}
	})
}

// runBatched feeds ev to b, delivering each crash as the runner does:
// after the events before its time, before those at or after it.
func runBatched(t *testing.T, b *Batched, ev []workload.Event, crashes []strategies.Fault, end int64) {
	t.Helper()
	for _, f := range crashes {
		cut := 0
		for cut < len(ev) && ev[cut].At < f.At {
			cut++
		}
		designtest.ObserveInBatches(t, b, ev[:cut], 500)
		ev = ev[cut:]
		b.Fault(f)
		if err := b.check(); err != nil {
			t.Fatal(err)
		}
	}
	designtest.ObserveInBatches(t, b, ev, 500)
	b.Flush(end)
	if err := b.check(); err != nil {
		t.Fatal(err)
	}
}

// A crash loses exactly what the crashed server held: hand-computed cases.
func TestBatchedCrash(t *testing.T) {
	// The cases are written with small ids whose server is id mod 4; idOn
	// turns each into a real id that appServer sends to that server.
	w := func(ms int64, id uint64, d int64) workload.Event {
		return workload.Event{At: ms * 1e6, Key: 7, ID: idOn(int(id%4), 4, int(id/4)), Delta: d, Op: workload.Write}
	}
	r := func(ms int64) workload.Event { return workload.Event{At: ms * 1e6, Key: 7, Op: workload.Read} }

	t.Run("aligned", func(t *testing.T) {
		// A = 4, T = 1 s: server ID mod 4. First second: 1+2+1+5+4 = 13,
		// flushed at 1 s. Then server 2 receives ID 10 (+3) and ID 14 (+7)
		// and crashes at 1.5 s: 10 lost. ID 18 (+6) after the crash is
		// kept. Total sent 33, final 23.
		ev := []workload.Event{
			w(100, 1, 1), w(200, 2, 2), w(300, 3, 1), w(400, 4, 5), w(500, 6, 4),
			w(1100, 10, 3), w(1200, 11, 1), w(1300, 14, 7), w(1400, 12, 2),
			w(1600, 18, 6), w(1700, 9, 1), r(1800), r(2500),
		}
		b, err := NewBatched(BatchedParams{Servers: 4, Flush: time.Second, Stripes: 1}, designtest.NewMemStore(t), 1)
		if err != nil {
			t.Fatal(err)
		}
		designtest.ObserveInBatches(t, b, ev[:9], 100) // the events before the crash
		if got := b.unflushed(); got != 13 {
			t.Errorf("held before the crash: got %d, want 3+1+7+2 = 13", got)
		}
		b.Fault(strategies.Fault{At: 1500e6, Kind: strategies.AppCrash, Target: 2})
		if got := b.unflushed(); got != 3 {
			t.Errorf("held after the crash: got %d, want 1+2 = 3", got)
		}
		designtest.ObserveInBatches(t, b, ev[9:], 100)
		b.Flush(3e9)
		if got := b.Lost(); got != 10 {
			t.Errorf("lost: got %d, want 10", got)
		}
		if got := b.Count(7); got != 23 {
			t.Errorf("count: got %d, want 23", got)
		}
		if got := b.Shown(); !slices.Equal(got, []int64{13, 23}) {
			t.Errorf("shown: got %v, want [13 23] (flushed at 1 s, then at 2 s)", got)
		}
	})

	t.Run("jitter", func(t *testing.T) {
		// A = 4, T = 1 s, jitter: server 2 flushes at 0.5, 1.5, 2.5 s. ID 6
		// at exactly 0.5 s comes after that flush and waits for 1.5 s. A
		// crash at exactly 1.5 s comes after the flush due then: nothing
		// lost. ID 22 (+9) at 1.55 s is lost in the crash at 1.6 s.
		ev := []workload.Event{
			w(200, 2, 2), w(500, 6, 4), w(1100, 10, 3), w(1300, 14, 7), w(1550, 22, 9), w(1700, 26, 1), w(1800, 1, 1),
		}
		b, err := NewBatched(BatchedParams{Servers: 4, Flush: time.Second, Jitter: true, Stripes: 1}, designtest.NewMemStore(t), 1)
		if err != nil {
			t.Fatal(err)
		}
		runBatched(t, b, ev, []strategies.Fault{{At: 1500e6, Kind: strategies.AppCrash, Target: 2}, {At: 1600e6, Kind: strategies.AppCrash, Target: 2}}, 3e9)
		if got := b.Lost(); got != 9 {
			t.Errorf("lost: got %d, want 9", got)
		}
		if got := b.Count(7); got != 2+4+3+7+1+1 {
			t.Errorf("count: got %d, want %d", got, 2+4+3+7+1+1)
		}
	})

	t.Run("other faults", func(t *testing.T) {
		b, err := NewBatched(BatchedParams{Servers: 4, Flush: time.Second, Stripes: 1}, designtest.NewMemStore(t), 1)
		if err != nil {
			t.Fatal(err)
		}
		ev := []workload.Event{w(100, 1, 1), w(200, 2, 2)}
		runBatched(t, b, ev, []strategies.Fault{{At: 300e6, Kind: strategies.NodeLoss, Target: 2}, {At: 400e6, Kind: strategies.AppCrash, Target: 9}}, 1e9)
		if b.Lost() != 0 || b.Count(7) != 3 {
			t.Errorf("lost %d, count %d: want 0 and 3", b.Lost(), b.Count(7))
		}
	})
}

// On a random stream with random crashes, the loss is what each crashed
// server received since its last flush (or last crash), computed here from
// the events alone.
func TestBatchedCrashRandom(t *testing.T) {
	for _, jitter := range []bool{false, true} {
		t.Run(fmt.Sprintf("jitter=%v", jitter), func(t *testing.T) {
			const a, tNs = 16, int64(250e6)
			ev := designtest.HotSpec{Seed: 8, PerSec: []int{20000, 20000, 20000, 20000}, Keys: 5, MaxDelta: 4}.Gen()
			r := rand.New(rand.NewPCG(9, 10))
			var crashes []strategies.Fault
			for range 12 {
				crashes = append(crashes, strategies.Fault{At: r.Int64N(4e9), Kind: strategies.AppCrash, Target: r.IntN(a)})
			}
			crashes = append(crashes, strategies.Fault{At: crashes[0].At, Kind: strategies.AppCrash, Target: crashes[0].Target}) // a second crash at once: loses 0 more
			slices.SortStableFunc(crashes, func(x, y strategies.Fault) int { return int(x.At - y.At) })

			var want int64
			prev := map[int]int64{}
			for _, c := range crashes {
				off := int64(0)
				if jitter {
					off = int64(c.Target) * tNs / a
				}
				last := off + int64(math.Floor(float64(c.At-off)/float64(tNs)))*tNs // last flush at or before the crash
				start := max(last, prev[c.Target])
				for _, e := range ev {
					if appServer(e.ID, a) == c.Target && e.At >= start && e.At < c.At {
						want += e.Delta
					}
				}
				prev[c.Target] = c.At
			}
			truth, _ := designtest.HotTruth(ev)
			var total int64
			for _, c := range truth {
				total += c
			}

			b, err := NewBatched(BatchedParams{Servers: a, Flush: 250 * time.Millisecond, Jitter: jitter, Stripes: 2}, designtest.NewMemStore(t), 3)
			if err != nil {
				t.Fatal(err)
			}
			runBatched(t, b, ev, crashes, 4e9)
			if got := b.Lost(); got != want {
				t.Errorf("lost: got %d, want %d", got, want)
			}
			var final int64
			for key := range truth {
				final += int64(b.Count(key))
			}
			if final != total-want {
				t.Errorf("final: got %d, want truth %d − lost %d = %d", final, total, want, total-want)
			}
			if want == 0 {
				t.Error("the crashes lost nothing: a weak test")
			}
		})
	}
}

// A flush sends one INCRBY per server and key held, at the server's flush
// times (or at the end, from Flush).
func TestBatchedFlushes(t *testing.T) {
	const a, tNs, end = 20, int64(1e9), int64(3e9)
	ev := designtest.HotSpec{Seed: 11, PerSec: []int{10000, 10000, 10000}, Keys: 1}.Gen()
	for _, jitter := range []bool{false, true} {
		off := func(s int) int64 {
			if jitter {
				return int64(s) * tNs / a
			}
			return 0
		}
		// One INCRBY per server and flush interval that holds a write.
		intervals := map[[2]int64]bool{}
		for _, e := range ev {
			s := appServer(e.ID, a)
			intervals[[2]int64{int64(s), int64(math.Floor(float64(e.At-off(s)) / float64(tNs)))}] = true
		}
		st := designtest.NewMemStore(t)
		st.LogOn = true
		b, err := NewBatched(BatchedParams{Servers: a, Flush: time.Second, Jitter: jitter, Stripes: 1}, st, 1)
		if err != nil {
			t.Fatal(err)
		}
		designtest.ObserveInBatches(t, b, ev, 4096)
		b.Flush(end)
		if st.Incrs != int64(len(intervals)) || b.flushes != int64(len(intervals)) {
			t.Errorf("jitter %v: %d INCRBYs, %d flushes, want %d", jitter, st.Incrs, b.flushes, len(intervals))
		}
		for _, op := range st.Log {
			ok := op.At == end
			for s := range a {
				ok = ok || (op.At-off(s))%tNs == 0
			}
			if !ok {
				t.Errorf("jitter %v: INCRBY at %d, not a flush time", jitter, op.At)
			}
		}
		if got := b.Count(0); got != 30000 {
			t.Errorf("jitter %v: count %d, want 30000", jitter, got)
		}
	}
}

// Cached reads refresh once per ttl (K GETs each) and show the total read at
// the refresh, less than ttl old; the sum path reads K stripes every time.
func TestCachedReads(t *testing.T) {
	sp := designtest.HotSpec{Seed: 12, PerSec: []int{1000, 1000, 1000, 1000, 1000}, Keys: 3, Reads: 50}
	ev := sp.Gen()
	for _, tc := range []struct {
		name   string
		params []scenarios.Param
		ttlNs  int64
	}{
		{"sum", nil, 0},
		{"cache/100ms", []scenarios.Param{{Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 1}}, {Key: "ttl", Value: "100ms", Pos: scenarios.Pos{Line: 2}}}, 100e6},
		{"cache/0.1-seconds", []scenarios.Param{{Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 1}}, {Key: "ttl", Value: 0.1, Pos: scenarios.Pos{Line: 2}}}, 100e6},
		{"cache/1-second", []scenarios.Param{{Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 1}}, {Key: "ttl", Value: int64(1), Pos: scenarios.Pos{Line: 2}}}, 1e9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const k = 4
			st := designtest.NewMemStore(t)
			params := append([]scenarios.Param{{Key: "stripes", Value: int64(k), Pos: scenarios.Pos{Line: 3}}, {Key: "select", Value: "round-robin", Pos: scenarios.Pos{Line: 4}}}, tc.params...)
			s := designtest.BuildDesign(t, "striped", params, strategies.Env{Seed: 1, Store: st}).(*Striped)
			designtest.ObserveInBatches(t, s, ev, 333)
			// The expected values, from the events alone.
			running := map[uint64]int64{}
			lastAt, lastVal := map[uint64]int64{}, map[uint64]int64{}
			var want []int64
			var refreshes int64
			for _, e := range ev {
				if e.Op == workload.Write {
					running[e.Key] += e.Delta
					continue
				}
				at, ok := lastAt[e.Key]
				if !ok || e.At-at >= tc.ttlNs {
					lastAt[e.Key], lastVal[e.Key] = e.At, running[e.Key]
					refreshes++
				}
				if age := e.At - lastAt[e.Key]; tc.ttlNs > 0 && age >= tc.ttlNs {
					t.Fatalf("value %d ns old, ttl %d", age, tc.ttlNs)
				}
				want = append(want, lastVal[e.Key])
			}
			if got := s.Shown(); !slices.Equal(got, want) {
				t.Errorf("shown values differ from a refresh every ttl: got %v…, want %v…", got[:min(10, len(got))], want[:min(10, len(want))])
			}
			gets, ref := s.io.gets, s.io.refreshed
			if ref != refreshes || gets != k*refreshes || st.Gets != gets {
				t.Errorf("got %d refreshes, %d GETs (store %d), want %d and %d", ref, gets, st.Gets, refreshes, k*refreshes)
			}
			if tc.ttlNs == 100e6 {
				// Reads of a key come about every 60 ms on average: a refresh
				// at most every other read.
				if reads := int64(len(want)); refreshes > reads/2+3 {
					t.Errorf("%d refreshes for %d reads", refreshes, reads)
				}
			}
		})
	}
}

// The plans reproduce the cricket final's step 1 and the practice question.
func TestHotPlans(t *testing.T) {
	figures := strategies.Assumptions{PeakRate: 200000, ReadRate: 5000, KeyCapacity: 10000, Headroom: 0.7, AppServers: 200}
	cricket := strategies.Env{Full: figures, Sim: figures}
	plan := func(typ string, params []scenarios.Param, env strategies.Env) []strategies.PlanLine {
		t.Helper()
		ty, err := strategies.Lookup(typ)
		if err != nil {
			t.Fatal(err)
		}
		p, err := designtest.DecodeParams(ty, params)
		if err != nil {
			t.Fatal(err)
		}
		return ty.Plan(p, env)
	}
	both := func(metric metrics.Metric, v float64, unit string) []strategies.PlanLine {
		return []strategies.PlanLine{{Metric: metric, Value: v, Full: true}, {Metric: metric, Value: v, Full: false}}
	}
	t.Run("single-key", func(t *testing.T) {
		got := plan("single-key", nil, cricket)
		want := slices.Concat([]strategies.PlanLine{{Metric: "stripes", Value: 1}, {Metric: "keys_used", Value: 1}}, both("max_key_ops_per_s", 200000, ""), both("utilisation", 20, ""),
			both("backlog_growth_per_s", 190000, ""), both("read_ops_per_s", 5000, ""))
		designtest.CheckPlan(t, got, want)
	})
	t.Run("striped/k=32", func(t *testing.T) {
		got := plan("striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}}, cricket)
		want := slices.Concat([]strategies.PlanLine{{Metric: "stripes", Value: 32}},
			both("stripes_at_limit", 20, ""), both("stripes_at_headroom", 200000.0/7000, ""), both("stripes_needed", 29, ""),
			both("stripes_pow2", 32, ""), []strategies.PlanLine{{Metric: "keys_used", Value: 32}}, both("max_key_ops_per_s", 6250, ""), both("utilisation", 0.625, ""),
			both("backlog_growth_per_s", 0, ""), both("read_ops_per_s", 160000, ""))
		designtest.CheckPlan(t, got, want)
		note := lineOf(t, got, "stripes_at_headroom", true).Note
		if !strings.Contains(note, "200,000 / 7,000 = 28.6") {
			t.Errorf("note %q: want it to say 200,000 / 7,000 = 28.6", note)
		}
		if note := lineOf(t, got, "utilisation", true).Note; !strings.Contains(note, "62.5%") {
			t.Errorf("note %q: want 62.5%%", note)
		}
	})
	t.Run("striped/k=32/cache", func(t *testing.T) {
		got := plan("striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}, {Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}}, cricket)
		designtest.CheckPlan(t, got, []strategies.PlanLine{{Metric: "read_ops_per_s", Value: 32, Full: true}, {Metric: "read_ops_per_s", Value: 32},
			{Metric: "staleness_max_s", Value: 1}})
	})
	t.Run("striped/k=4/backlog", func(t *testing.T) {
		got := plan("striped", []scenarios.Param{{Key: "stripes", Value: int64(4)}}, cricket)
		designtest.CheckPlan(t, got, both("backlog_growth_per_s", 160000, "")) // (50,000 − 10,000) × 4
	})
	t.Run("striped/adaptive", func(t *testing.T) {
		got := plan("striped", []scenarios.Param{{Key: "stripes", Value: int64(2)}, {Key: "grow_above", Value: int64(7000)}}, cricket)
		designtest.CheckPlan(t, got, slices.Concat(both("stripes_at_peak", 32, ""), both("keys_used", 32, ""), both("max_key_ops_per_s", 6250, "")))
	})
	t.Run("practice", func(t *testing.T) {
		practice := strategies.Assumptions{PeakRate: 120000, KeyCapacity: 8000, Headroom: 0.7}
		env := strategies.Env{Full: practice, Sim: practice}
		got := plan("striped", []scenarios.Param{{Key: "stripes", Value: int64(32)}}, env)
		designtest.CheckPlan(t, got, []strategies.PlanLine{
			{Metric: "stripes_at_limit", Value: 15, Full: true},
			{Metric: "stripes_at_headroom", Value: 120000.0 / 5600, Full: true},
			{Metric: "stripes_needed", Value: 22, Full: true},
			{Metric: "stripes_pow2", Value: 32, Full: true},
		})
		if note := lineOf(t, got, "stripes_at_headroom", true).Note; !strings.Contains(note, "120,000 / 5,600 = 21.4") {
			t.Errorf("note %q", note)
		}
	})
	t.Run("batched", func(t *testing.T) {
		got := plan("batched", nil, cricket)
		want := slices.Concat([]strategies.PlanLine{
			{Metric: "servers", Value: 200},
			{Metric: "keys_used", Value: 1},
			{Metric: "increments_per_s", Value: 200},
			{Metric: "max_key_ops_per_s", Value: 200},
		}, both("utilisation", 0.02, ""), both("lost_on_crash", 1000, ""), both("staleness_max_s", 1, ""))
		designtest.CheckPlan(t, got, want)
		if note := lineOf(t, got, "utilisation", true).Note; !strings.Contains(note, "2%") {
			t.Errorf("note %q: want 2%%", note)
		}
	})
	t.Run("batched/likes", func(t *testing.T) {
		// Likes: 20 servers flushing once a second, 20,000 likes/s → 20 updates/s.
		got := plan("batched", []scenarios.Param{{Key: "servers", Value: int64(20)}, {Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}},
			strategies.Env{Full: strategies.Assumptions{PeakRate: 20000, KeyCapacity: 2000, ReadRate: 1000}, Sim: strategies.Assumptions{PeakRate: 20000, KeyCapacity: 2000, ReadRate: 1000}})
		designtest.CheckPlan(t, got, slices.Concat([]strategies.PlanLine{{Metric: "increments_per_s", Value: 20}},
			both("utilisation", 0.01, ""), both("lost_on_crash", 1000, ""), both("staleness_max_s", 2, "")))
	})
	t.Run("simulated figures differ", func(t *testing.T) {
		// The cluster simulated keys of 8,000 a second where the assumptions
		// say 10,000: the simulated-scale lines, beside the measurements,
		// follow the simulation; the full-scale lines the assumptions.
		sim := figures
		sim.KeyCapacity = 8000
		got := plan("single-key", nil, strategies.Env{Full: figures, Sim: sim})
		if l := lineOf(t, got, "utilisation", false); l.Value != 25 {
			t.Errorf("simulated utilisation %v, want 200,000 / 8,000 = 25", l.Value)
		}
		if l := lineOf(t, got, "utilisation", true); l.Value != 20 {
			t.Errorf("full-scale utilisation %v, want 200,000 / 10,000 = 20", l.Value)
		}
		if l := lineOf(t, got, "backlog_growth_per_s", false); l.Value != 192000 {
			t.Errorf("simulated backlog growth %v, want 192,000", l.Value)
		}
	})
	t.Run("missing inputs", func(t *testing.T) {
		for _, typ := range []string{"single-key", "striped", "batched"} {
			params := []scenarios.Param{{Key: "stripes", Value: int64(8)}}
			if typ == "single-key" {
				params = nil
			}
			if typ == "batched" {
				params = append(params, scenarios.Param{Key: "servers", Value: int64(10)})
			}
			for _, l := range plan(typ, params, strategies.Env{}) {
				if l.Full {
					t.Errorf("%s: full-scale line %s without assumptions", typ, l.Metric)
				}
				if l.Unit == "" || l.Note == "" {
					t.Errorf("%s: line %s has unit %q, note %q", typ, l.Metric, l.Unit, l.Note)
				}
			}
		}
	})
}

func lineOf(t *testing.T, lines []strategies.PlanLine, metric metrics.Metric, full bool) strategies.PlanLine {
	t.Helper()
	for _, l := range lines {
		if l.Metric == metric && l.Full == full {
			return l
		}
	}
	t.Fatalf("no line %s (full %v)", metric, full)
	return strategies.PlanLine{}
}

// Strict decoding of the hot-counter parameters through the registry.
func TestHotDecodeRefuses(t *testing.T) {
	tests := []struct {
		typ     string
		params  []scenarios.Param
		key     string
		wantMsg string
	}{
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "select", Value: "randon", Pos: scenarios.Pos{Line: 4}}}, "select",
			`params.select: "randon" is not allowed (allowed: random, round-robin, hash, least-loaded)`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, "stripes", "params.stripes: 0 is out of range (allowed: 1..65536)"},
		{"striped", nil, "stripes", `params: missing required key "stripes" (allowed: 1..65536)`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(65537), Pos: scenarios.Pos{Line: 3}}}, "stripes", "65537 is out of range"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: 2.5, Pos: scenarios.Pos{Line: 3}}}, "stripes", "2.5 is not an integer"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: "1x", Pos: scenarios.Pos{Line: 5}}}, "ttl", `"1x" is not a duration`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: true, Pos: scenarios.Pos{Line: 5}}}, "ttl", "is not a duration"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}}, "read", "cache needs a ttl"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "ttl", Value: "1s", Pos: scenarios.Pos{Line: 4}}}, "ttl", "given with read: sum"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: int64(0), Pos: scenarios.Pos{Line: 5}}}, "ttl", "params.ttl: 0 is out of range"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: -0.5, Pos: scenarios.Pos{Line: 5}}}, "ttl", "-0.5 is out of range"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: "-1s", Pos: scenarios.Pos{Line: 5}}}, "ttl", `"-1s" is out of range`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: "25h", Pos: scenarios.Pos{Line: 5}}}, "ttl", `"25h" is out of range`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 4}}, {Key: "ttl", Value: "0.5", Pos: scenarios.Pos{Line: 5}}}, "ttl", `"0.5" is not a duration`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "read", Value: "mget", Pos: scenarios.Pos{Line: 4}}}, "read", `params.read: "mget" is not allowed (allowed: sum, cache)`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "dedup", Value: "soon", Pos: scenarios.Pos{Line: 4}}}, "dedup", "is not a duration"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "dedup", Value: "-1s", Pos: scenarios.Pos{Line: 4}}}, "dedup", `"-1s" is out of range`},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "shrink_below", Value: int64(10), Pos: scenarios.Pos{Line: 4}}}, "shrink_below", "given without grow_above"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "grow_above", Value: int64(100), Pos: scenarios.Pos{Line: 4}}, {Key: "shrink_below", Value: int64(60), Pos: scenarios.Pos{Line: 5}}}, "shrink_below",
			"60 more than grow_above/2 = 50"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "grow_above", Value: int64(-1), Pos: scenarios.Pos{Line: 4}}}, "grow_above", "-1 is out of range (allowed: a number >= 0)"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "grow_above", Value: int64(100), Pos: scenarios.Pos{Line: 4}}, {Key: "max_stripes", Value: int64(4), Pos: scenarios.Pos{Line: 5}}}, "max_stripes",
			"4 not in stripes..65536 = 8..65536"},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}, {Key: "stripe", Value: int64(8), Pos: scenarios.Pos{Line: 4}}}, "stripe",
			`unknown key "stripe" (allowed: stripes, select, grow_above, shrink_below, max_stripes, read, ttl, dedup, hashtag, predict, per_followers, protected_factor, timeout, retries, backoff, idempotent, partial, client, probe)`},
		{"single-key", []scenarios.Param{{Key: "stripes", Value: int64(8), Pos: scenarios.Pos{Line: 3}}}, "stripes", `unknown key "stripes" (allowed: read, ttl, dedup, timeout, retries, backoff, idempotent, partial, client)`},
		{"single-key", []scenarios.Param{{Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 3}}, {Key: "ttl", Value: "1x", Pos: scenarios.Pos{Line: 4}}}, "ttl", `params.ttl: "1x" is not a duration`},
		{"batched", []scenarios.Param{{Key: "servers", Value: int64(-1), Pos: scenarios.Pos{Line: 3}}}, "servers", "-1 is out of range (allowed: 1..100000)"},
		{"batched", []scenarios.Param{{Key: "servers", Value: int64(100001), Pos: scenarios.Pos{Line: 3}}}, "servers", "100001 is out of range"},
		{"batched", []scenarios.Param{{Key: "flush", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, "flush", "params.flush: 0 is out of range"},
		{"batched", []scenarios.Param{{Key: "flush", Value: "48h", Pos: scenarios.Pos{Line: 3}}}, "flush", `"48h" is out of range`},
		{"batched", []scenarios.Param{{Key: "flush", Value: "1x", Pos: scenarios.Pos{Line: 3}}}, "flush", "is not a duration"},
		{"batched", []scenarios.Param{{Key: "stripes", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, "stripes", "0 is out of range (allowed: 1..65536)"},
		{"batched", []scenarios.Param{{Key: "jitter", Value: "yes", Pos: scenarios.Pos{Line: 3}}}, "jitter", `"yes" is not a bool`},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.wantMsg, func(t *testing.T) {
			typ, err := strategies.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			_, err = designtest.DecodeParams(typ, tt.params)
			if err == nil || designtest.FaultKey(err) != tt.key {
				t.Fatalf("got %v, want an error on %s", err, tt.key)
			}
			for _, r := range tt.params {
				if r.Key == tt.key && designtest.FaultLine(err, tt.params) != r.Pos.Line {
					t.Errorf("got line %d, want %d", designtest.FaultLine(err, tt.params), r.Pos.Line)
				}
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// Durations are written as Go durations or numbers of seconds; dedup 0 is
// off.
func TestHotDurations(t *testing.T) {
	typ, _ := strategies.Lookup("batched")
	for _, tc := range []struct {
		val  any
		want time.Duration
	}{{"1s", time.Second}, {"250ms", 250 * time.Millisecond}, {"1m30s", 90 * time.Second}, {0.5, 500 * time.Millisecond},
		{int64(2), 2 * time.Second}, {"24h", 24 * time.Hour}} {
		p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "servers", Value: int64(4), Pos: scenarios.Pos{Line: 1}}, {Key: "flush", Value: tc.val, Pos: scenarios.Pos{Line: 2}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 3}}, {Key: "ttl", Value: tc.val, Pos: scenarios.Pos{Line: 4}}, {Key: "dedup", Value: tc.val, Pos: scenarios.Pos{Line: 5}}})
		if err != nil {
			t.Errorf("%v: %v", tc.val, err)
			continue
		}
		if bp := p.(*BatchedParams); bp.Flush != tc.want || bp.TTL != tc.want || bp.Dedup != tc.want {
			t.Errorf("%v: got flush %v, ttl %v, dedup %v, want %v", tc.val, bp.Flush, bp.TTL, bp.Dedup, tc.want)
		}
	}
	for _, dedup := range []any{int64(0), "0s", 0.0} {
		p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "servers", Value: int64(4), Pos: scenarios.Pos{Line: 1}}, {Key: "dedup", Value: dedup, Pos: scenarios.Pos{Line: 2}}})
		if err != nil {
			t.Fatal(err)
		}
		if o := newHotOpts(ReadSum, 0, p.(*BatchedParams).Dedup); o.dedup != 0 {
			t.Errorf("dedup %v: got %+v: want off", dedup, o)
		}
	}
}

// The decoded defaults and a full set of accepted parameters build.
func TestHotBuild(t *testing.T) {
	full := strategies.Assumptions{AppServers: 50}
	for _, tc := range []struct {
		typ    string
		params []scenarios.Param
	}{
		{"single-key", nil},
		{"single-key", []scenarios.Param{{Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 1}}, {Key: "ttl", Value: "1s", Pos: scenarios.Pos{Line: 2}}, {Key: "dedup", Value: "10s", Pos: scenarios.Pos{Line: 3}}}},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(32), Pos: scenarios.Pos{Line: 1}}}},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(4), Pos: scenarios.Pos{Line: 1}}, {Key: "select", Value: "least-loaded", Pos: scenarios.Pos{Line: 2}}, {Key: "grow_above", Value: int64(7000), Pos: scenarios.Pos{Line: 3}},
			{Key: "shrink_below", Value: int64(2000), Pos: scenarios.Pos{Line: 4}}, {Key: "max_stripes", Value: int64(64), Pos: scenarios.Pos{Line: 5}}, {Key: "read", Value: "cache", Pos: scenarios.Pos{Line: 6}}, {Key: "ttl", Value: 0.5, Pos: scenarios.Pos{Line: 7}}, {Key: "dedup", Value: "1m", Pos: scenarios.Pos{Line: 8}}}},
		{"batched", nil},
		{"batched", []scenarios.Param{{Key: "servers", Value: int64(200), Pos: scenarios.Pos{Line: 1}}, {Key: "flush", Value: "250ms", Pos: scenarios.Pos{Line: 2}}, {Key: "jitter", Value: true, Pos: scenarios.Pos{Line: 3}}, {Key: "stripes", Value: int64(4), Pos: scenarios.Pos{Line: 4}}}},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			s := designtest.BuildDesign(t, tc.typ, tc.params, strategies.Env{Seed: 1, Full: full, Store: designtest.NewMemStore(t)})
			designtest.CheckInvariants(t, s)
		})
	}
	if b := designtest.BuildDesign(t, "batched", nil, strategies.Env{Full: full, Store: designtest.NewMemStore(t)}).(*Batched); b.a != 50 || b.t != 1e9 || b.k != 1 {
		t.Errorf("batched defaults: A %d, T %d, K %d: want 50, 1s, 1", b.a, b.t, b.k)
	}
}

// Designs on servers refuse to build without a store, and batched without
// a number of servers.
func TestHotNeedsCluster(t *testing.T) {
	for _, tc := range []struct {
		typ    string
		params []scenarios.Param
	}{
		{"single-key", nil},
		{"striped", []scenarios.Param{{Key: "stripes", Value: int64(4)}}},
		{"batched", []scenarios.Param{{Key: "servers", Value: int64(4)}}},
	} {
		typ, _ := strategies.Lookup(tc.typ)
		p, err := designtest.DecodeParams(typ, tc.params)
		if err != nil {
			t.Fatal(err)
		}
		_, err = typ.Build(p, strategies.Env{Seed: 1})
		if !errors.Is(err, strategies.ErrNeedsCluster) || err.Error() != tc.typ+" needs a cluster (add cluster: to the scenario)" {
			t.Errorf("%s without a store: got %v", tc.typ, err)
		}
	}
	typ, _ := strategies.Lookup("batched")
	p, _ := designtest.DecodeParams(typ, nil)
	for _, servers := range []float64{0, 2.5, 1e6} {
		_, err := typ.Build(p, strategies.Env{Store: designtest.NewMemStore(t), Full: strategies.Assumptions{AppServers: servers}})
		var pe *strategies.ParamError
		if !errors.As(err, &pe) || pe.Key != "servers" {
			t.Errorf("app_servers %v: got %v, want a servers error", servers, err)
		}
	}
}

// A stripe's store key is XXH64 of le(stripe)‖le(key).
func TestStripeKeyIsXXH64(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 1000 {
		key, j := r.Uint64(), r.IntN(hotMaxStripes)
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], uint64(j))
		binary.LittleEndian.PutUint64(b[8:], key)
		if got, want := stripeKey(key, j), xxhash.Sum64(b[:]); got != want {
			t.Fatalf("stripeKey(%d, %d): got %#x, want %#x", key, j, got, want)
		}
	}
}

func TestHotNum(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{{200000, "200,000"}, {200000.0 / 7000, "28.6"}, {120000.0 / 5600, "21.4"}, {0.625, "0.625"}, {6250, "6,250"},
		{-190000, "-190,000"}, {0.02, "0.02"}, {1e-3, "0.001"}, {7, "7"}, {999, "999"}, {1000, "1,000"}} {
		if got := strategies.Num(tc.x); got != tc.want {
			t.Errorf("hotNum(%v): got %q, want %q", tc.x, got, tc.want)
		}
	}
	if got := strategies.Pct(0.625); got != "62.5%" {
		t.Errorf("hotPct(0.625): got %q", got)
	}
	if got := strategies.Pct(0.02); got != "2%" {
		t.Errorf("hotPct(0.02): got %q", got)
	}
}

// A batch whose reads fan out to more ops than the buffer holds is sent in
// several Do calls, and every reader is still shown the exact count.
func TestHotLargeFanOut(t *testing.T) {
	const k = 4096
	var ev []workload.Event
	var want []int64
	var n int64
	for i := range 100 {
		ev = append(ev, workload.Event{At: int64(2 * i), Key: 1, Delta: 1, ID: uint64(i + 1), Op: workload.Write},
			workload.Event{At: int64(2*i + 1), Key: 1, Op: workload.Read})
		n++
		want = append(want, n)
	}
	st := designtest.NewMemStore(t)
	s, err := NewStriped(StripedParams{Stripes: k, Select: SelectRoundRobin}, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	designtest.ObserveInBatches(t, s, ev, len(ev))
	if got := s.Shown(); !slices.Equal(got, want) {
		t.Errorf("shown %v…, want %v…", got[:5], want[:5])
	}
	if wantCalls := 100 * k / hotMaxBuffered; st.Calls < wantCalls {
		t.Errorf("%d Do calls for %d ops: want at least %d", st.Calls, 100*(k+1), wantCalls)
	}
	if c := cap(s.io.ops); c > 2*(hotMaxBuffered+k) {
		t.Errorf("op buffer of %d: want it bounded near %d", c, hotMaxBuffered+k)
	}
}

// idOn returns the k-th smallest id (from 0) that appServer sends to server
// s of a.
func idOn(s, a, k int) uint64 {
	for id := uint64(1); ; id++ {
		if appServer(id, a) == s {
			if k == 0 {
				return id
			}
			k--
		}
	}
}
