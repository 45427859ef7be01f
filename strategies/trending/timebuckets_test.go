package trending

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// bruteWindow is the TrendLaw's window score computed from the event list:
// for every key, the Delta > 0 writes at or before now whose bucket
// ⌊At/Bucket⌋ is one of the W up to now's.
func bruteWindow(ev []workload.Event, law strategies.TrendLaw, now int64) map[uint64]uint64 {
	floor := func(at int64) int64 { // ⌊at/Bucket⌋ for any sign
		b := at / law.Bucket
		if at < 0 && b*law.Bucket != at {
			b--
		}
		return b
	}
	w := law.Window / law.Bucket
	nb := floor(now)
	m := map[uint64]uint64{}
	for _, e := range ev {
		if e.Op != workload.Write || e.Delta <= 0 || e.At > now {
			continue
		}
		if b := floor(e.At); b > nb-w && b <= nb {
			m[e.Key] += uint64(e.Delta)
		}
	}
	return m
}

// bruteTop is the window's ranking: every key of non-zero score, score
// descending then key ascending.
func bruteTop(m map[uint64]uint64) []strategies.Trend {
	out := make([]strategies.Trend, 0, len(m))
	for k, c := range m {
		out = append(out, strategies.Trend{Key: k, Score: float64(c)})
	}
	slices.SortFunc(out, func(a, b strategies.Trend) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return out
}

// timedStream is a small random timed stream for the window tests: keys
// drawn from a Zipf over few ranks; times advancing by a fraction of a
// bucket, now and then to the next bucket boundary exactly, now and then
// by more than the window (every bucket expires at once); some reads,
// zero and negative deltas, and deltas above 1, which must be ignored or
// counted as the law says.
func timedStream(r *rand.Rand, n, keys int, bucket, window int64) []workload.Event {
	z := designtest.Zipf(keys, 1.1)
	ev := make([]workload.Event, n)
	at := r.Int64N(3 * window)
	for i := range ev {
		switch u := r.Float64(); {
		case u < 0.03:
			at += window + r.Int64N(3*window) // a gap longer than the window
		case u < 0.15:
			at = (at/bucket + 1) * bucket // exactly at the next bucket's start
		case u < 0.2:
			at += bucket * (1 + r.Int64N(3)) // whole buckets
		default:
			at += r.Int64N(bucket/3 + 1)
		}
		e := workload.Event{At: at, Key: uint64(z.Draw(r)) * 0x9e3779b97f4a7c15, Delta: 1, ID: uint64(i), Op: workload.Write}
		switch r.IntN(40) {
		case 0:
			e.Op = workload.Read
		case 1:
			e.Delta = 0
		case 2:
			e.Delta = -3
		case 3, 4:
			e.Delta = 1 + r.Int64N(9)
		}
		ev[i] = e
	}
	return ev
}

// trender is what the window tests drive.
type trender interface {
	strategies.Trending
	check() error
}

// The design's answer equals the brute force's at every checkpoint: after
// every batch of a random size, at now = the last event, a random time in
// or after its bucket, the next bucket's start exactly, or several windows
// later; the full ranking, and its first 3.
func TestTimeBucketsMatchesBruteForce(t *testing.T) {
	shapes := []struct{ bucket, buckets int64 }{{10, 1}, {10, 3}, {7, 7}, {1000, 60}}
	for _, sh := range shapes {
		for seed := range uint64(4) {
			t.Run(fmt.Sprintf("bucket=%d/W=%d/seed=%d", sh.bucket, sh.buckets, seed), func(t *testing.T) {
				r := rand.New(rand.NewPCG(seed, 0x7462))
				window := sh.bucket * sh.buckets
				tb, err := NewTimeBuckets(TimeBucketsParams{Bucket: time.Duration(sh.bucket), Window: time.Duration(window)}, seed)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := tb.Law(), (strategies.TrendLaw{Window: window, Bucket: sh.bucket}); got != want {
					t.Fatalf("Law: got %+v, want %+v", got, want)
				}
				ev := timedStream(r, 3000, 40, sh.bucket, window)
				checkWindowAnswers(t, r, tb, ev, window, sh.bucket, 60, func(now int64, got []strategies.Trend, truth map[uint64]uint64) {
					if want := bruteTop(truth); !slices.Equal(got, want) {
						t.Fatalf("at now = %d: got %v, want %v", now, got, want)
					}
				})
			})
		}
	}
}

// checkWindowAnswers feeds ev in random batches of 1..maxBatch events and,
// after some of them,
// asks the design for its whole ranking at a checkpoint now ≥ the last
// event and hands it to compare with the brute force's window counts;
// later events are moved to now if they would precede it (a stream is in
// time order). It also checks the invariants, Trending(0) and Trending(-1),
// and that the first 3 are the ranking's first 3.
func checkWindowAnswers(t *testing.T, r *rand.Rand, s trender, ev []workload.Event, window, bucket int64, maxBatch int,
	compare func(now int64, got []strategies.Trend, truth map[uint64]uint64)) {
	t.Helper()
	ev = slices.Clone(ev)
	checkpoints := 0
	for lo := 0; lo < len(ev); {
		hi := min(len(ev), lo+1+r.IntN(maxBatch))
		s.Observe(ev[lo:hi])
		lo = hi
		if r.IntN(3) != 0 && lo < len(ev) {
			continue
		}
		last := ev[hi-1].At
		now := last
		switch r.IntN(5) {
		case 1:
			now += r.Int64N(bucket)
		case 2:
			now = (last/bucket + 1) * bucket
		case 3:
			now += window*2 + r.Int64N(window)
		case 4:
			now = (last/bucket+1)*bucket - 1 // the last ns of its bucket
		}
		got := s.Trending(1<<30, now)
		if err := s.check(); err != nil {
			t.Fatalf("at now = %d: %v", now, err)
		}
		compare(now, got, bruteWindow(ev[:hi], s.Law(), now))
		if top3 := s.Trending(3, now); !slices.Equal(top3, got[:min(3, len(got))]) {
			t.Fatalf("at now = %d: Trending(3) = %v, the ranking begins %v", now, top3, got[:min(3, len(got))])
		}
		if len(s.Trending(0, now)) != 0 || len(s.Trending(-1, now)) != 0 {
			t.Fatalf("Trending(0) or (-1) gave keys")
		}
		checkpoints++
		for i := hi; i < len(ev) && ev[i].At < now; i++ {
			ev[i].At = now
		}
	}
	if checkpoints < 10 {
		t.Fatalf("only %d checkpoints", checkpoints)
	}
}

// An event older than the newest bucket counts in its own bucket while
// that is in the window, and not at all once it has left: as the law
// counts it for every now from then on.
func TestTimeBucketsLateEvents(t *testing.T) {
	const bucket, w = 10, 4
	tb, err := NewTimeBuckets(TimeBucketsParams{Bucket: bucket, Window: bucket * w}, 1)
	if err != nil {
		t.Fatal(err)
	}
	ev := []workload.Event{
		{At: 55, Key: 1, Delta: 1},
		{At: 31, Key: 2, Delta: 2}, // bucket 3: in the window of bucket 5 (2..5)
		{At: 19, Key: 3, Delta: 4}, // bucket 1: out
		{At: 20, Key: 2, Delta: 8}, // bucket 2: in
		{At: 57, Key: 3, Delta: 1},
	}
	tb.Observe(ev)
	for _, now := range []int64{57, 60, 69, 75, 80, 2000} {
		want := bruteTop(bruteWindow(ev, tb.Law(), now))
		if got := tb.Trending(10, now); !slices.Equal(got, want) {
			t.Errorf("at now = %d: got %v, want %v", now, got, want)
		}
		if err := tb.check(); err != nil {
			t.Fatal(err)
		}
	}
}

// CountTable.Sub against a Go map: random adds and subtractions (down to 0,
// deleting) over few keys in a small table, so that runs are long and the
// backward shift moves keys across the array's end; the invariants after
// every step, and a key not held is reported absent.
func TestCountTableSub(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	var tab ds.CountTable
	tab.Init(16, 77)
	m := map[uint64]uint64{}
	for step := range 20000 {
		key := uint64(r.IntN(14)) * 0x100000001b3
		h := workload.Mix64(key ^ tab.Seed)
		if r.IntN(2) == 0 || m[key] == 0 {
			d := 1 + uint64(r.IntN(3))
			tab.Add(h, key, d)
			m[key] += d
		} else {
			d := 1 + uint64(r.IntN(int(m[key])))
			if !tab.Sub(h, key, d) {
				t.Fatalf("step %d: sub of key %d held %d: absent", step, key, m[key])
			}
			if m[key] -= d; m[key] == 0 {
				delete(m, key)
			}
		}
		if err := tab.Check(); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if tab.Len() != len(m) {
			t.Fatalf("step %d: %d keys, want %d", step, tab.Len(), len(m))
		}
		for k, c := range m {
			if got := tab.GetAt(workload.Mix64(k^tab.Seed), k); got != c {
				t.Fatalf("step %d: key %d counts %d, want %d", step, k, got, c)
			}
		}
	}
	if tab.Sub(workload.Mix64(12345^tab.Seed), 12345, 1) {
		t.Error("sub of a key never added: reported held")
	}
}

// A rotation costs the expiring bucket's table, not the window's keys:
// with 50,000 keys in bucket 0 and one key in each later bucket, the
// rotations after bucket 0 has left read W small tables, not the totals.
func TestTimeBucketsRotationCost(t *testing.T) {
	const bucket, w = 100, 10
	tb, err := NewTimeBuckets(TimeBucketsParams{Bucket: bucket, Window: bucket * w}, 1)
	if err != nil {
		t.Fatal(err)
	}
	var ev []workload.Event
	for k := range uint64(50000) {
		ev = append(ev, workload.Event{At: 5, Key: k, Delta: 1})
	}
	tb.Observe(ev)
	for b := int64(1); b < w; b++ {
		tb.Observe([]workload.Event{{At: b * bucket, Key: uint64(b), Delta: 1}})
	}
	if tb.scanned != 0 {
		t.Fatalf("rotations within the first window scanned %d slots, want 0", tb.scanned)
	}
	big := int64(len(tb.ring[0].Slots))
	tb.Observe([]workload.Event{{At: w * bucket, Key: 1, Delta: 1}}) // bucket 0 leaves
	if tb.scanned != big {
		t.Fatalf("bucket 0 leaving scanned %d slots, want its %d", tb.scanned, big)
	}
	before := tb.scanned
	for b := int64(w + 1); b < 2*w; b++ {
		tb.Observe([]workload.Event{{At: b * bucket, Key: 1, Delta: 1}})
	}
	if got := tb.scanned - before; got > (w-1)*timeBucketsStartSlots {
		t.Errorf("%d rotations of one-key buckets scanned %d slots, want ≤ %d (the totals hold %d)",
			w-1, got, (w-1)*timeBucketsStartSlots, len(tb.totals.Slots))
	}
	if err := tb.check(); err != nil {
		t.Fatal(err)
	}
}

// shiftedCopies returns copies of ev moved later by 1, 2, … times span.
func shiftedCopies(ev []workload.Event, span int64, n int) [][]workload.Event {
	out := make([][]workload.Event, n)
	for c := range out {
		out[c] = slices.Clone(ev)
		for i := range out[c] {
			out[c][i].At += int64(c+1) * span
		}
	}
	return out
}

// Observe allocates nothing in the steady state, across rotations (one
// bucket at a time and all at once): once the stream has been seen twice,
// copies of it later by whole windows allocate nothing.
func TestTimeBucketsObserveAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const bucket, w = 1000, 12
	ev := timedStream(r, 20000, 3000, bucket, bucket*w)
	span := (ev[len(ev)-1].At/(bucket*w) + 2) * bucket * w
	tb, err := NewTimeBuckets(TimeBucketsParams{Bucket: bucket, Window: bucket * w}, 1)
	if err != nil {
		t.Fatal(err)
	}
	copies := shiftedCopies(ev, span, 8)
	tb.Observe(ev)
	tb.Observe(copies[0])
	i := 1
	if allocs := testing.AllocsPerRun(5, func() { tb.Observe(copies[i]); i++ }); allocs != 0 {
		t.Errorf("Observe across rotations: %v allocations, want 0", allocs)
	}
	if err := tb.check(); err != nil {
		t.Fatal(err)
	}
}

// windowParamCases are bad windows, each refused naming its key.
var windowParamCases = []struct {
	raw     []scenarios.Param
	key, in string
}{
	{[]scenarios.Param{{Key: "window", Value: "30s", Pos: scenarios.Pos{Line: 7}}}, "window", "shorter than a bucket"},
	{[]scenarios.Param{{Key: "bucket", Value: "1m"}, {Key: "window", Value: "90s", Pos: scenarios.Pos{Line: 8}}}, "window", "whole multiple"},
	{[]scenarios.Param{{Key: "bucket", Value: "1s"}, {Key: "window", Value: "24h", Pos: scenarios.Pos{Line: 9}}}, "window", "more than 65536"},
	{[]scenarios.Param{{Key: "bucket", Value: int64(0), Pos: scenarios.Pos{Line: 10}}}, "bucket", "0 is out of range (allowed: a duration above 0 and at most 24h"},
	{[]scenarios.Param{{Key: "bucket", Value: "-1m", Pos: scenarios.Pos{Line: 11}}}, "bucket", `"-1m" is out of range`},
	{[]scenarios.Param{{Key: "bucket", Value: "25h", Pos: scenarios.Pos{Line: 12}}, {Key: "window", Value: "50h"}}, "bucket", `"25h" is out of range`},
}

// Bad windows are refused by Decode with the key, its line and what is
// allowed; the defaults are a minute and an hour.
func TestTimeBucketsParams(t *testing.T) {
	checkWindowParams(t, "time-buckets", nil)
	typ, _ := strategies.Lookup("time-buckets")
	p, err := designtest.DecodeParams(typ, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := typ.Build(p, strategies.Env{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tb := s.(*TimeBuckets)
	if len(tb.ring) != 60 || tb.Law() != (strategies.TrendLaw{Window: int64(time.Hour), Bucket: int64(time.Minute)}) {
		t.Errorf("defaults: W = %d, law %+v; want 60 buckets of a minute", len(tb.ring), tb.Law())
	}
	if _, err := NewTimeBuckets(TimeBucketsParams{Bucket: time.Minute, Window: time.Second}, 1); err == nil ||
		!strings.Contains(err.Error(), "time-buckets: parameter window") {
		t.Errorf("NewTimeBuckets with a window shorter than a bucket: %v", err)
	}
}

// checkWindowParams decodes each bad window (with extra, the other
// parameters the type needs) and wants an error naming its key and line:
// the decoder's for a value out of its range, the type's for a window
// against its bucket.
func checkWindowParams(t *testing.T, typName string, extra []scenarios.Param) {
	t.Helper()
	typ, err := strategies.Lookup(typName)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range windowParamCases {
		_, err := designtest.DecodeParams(typ, append(slices.Clone(extra), c.raw...))
		if designtest.FaultKey(err) != c.key || !strings.Contains(err.Error(), c.in) {
			t.Errorf("%s %v: got %v, want a %s error saying %q", typName, c.raw, err, c.key, c.in)
			continue
		}
		var pe *strategies.ParamError
		if errors.As(err, &pe) && pe.Type != typName {
			t.Errorf("%s %v: the error names the type %q", typName, c.raw, pe.Type)
		}
		for _, r := range c.raw {
			if got := designtest.FaultLine(err, append(slices.Clone(extra), c.raw...)); r.Key == c.key && got != r.Pos.Line {
				t.Errorf("%s %v: line %d, want %d", typName, c.raw, got, r.Pos.Line)
			}
		}
	}
}

// The plan gives W, and bytes and keys that bound what the design holds on
// a stream of the sizes the Env states, at a steady rate, after every batch.
func TestTimeBucketsPlan(t *testing.T) {
	const w = 12
	ev := designtest.StreamSpec{Seed: 5, Keys: 3000, S: 1, Events: 20000, Scramble: true}.Gen() // event i at i ns: 1,000 a bucket
	env := strategies.Env{Seed: 1, Keys: 3000, Events: int64(len(ev)), Duration: int64(len(ev))}
	raw := []scenarios.Param{{Key: "bucket", Value: "1µs"}, {Key: "window", Value: "12µs"}}
	typ, _ := strategies.Lookup("time-buckets")
	p, err := designtest.DecodeParams(typ, raw)
	if err != nil {
		t.Fatal(err)
	}
	plan := map[metrics.Metric]float64{}
	for _, l := range typ.Plan(p, env) {
		plan[l.Metric] = l.Value
	}
	if plan[metrics.WindowBuckets] != w || plan[metrics.KeysTracked] != 3000 {
		t.Errorf("plan: %v buckets, %v keys tracked; want %d, 3000", plan[metrics.WindowBuckets], plan[metrics.KeysTracked], w)
	}
	tb := designtest.BuildDesign(t, "time-buckets", raw, env).(*TimeBuckets)
	for lo := 0; lo < len(ev); lo += 500 {
		tb.Observe(ev[lo : lo+500])
		if got := float64(tb.Bytes()); got > plan[metrics.Bytes] {
			t.Fatalf("after %d events: bytes %v above the plan's bound %v", lo+500, got, plan[metrics.Bytes])
		}
	}
}
