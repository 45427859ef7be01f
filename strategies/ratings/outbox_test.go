package ratings

import (
	"math"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// The outbox consumers against hand-computed aggregates, the review
// ledger, the naive consumer's drift against its plan, the recount's
// against its bound, and the hot path's allocations.

const itemA, itemB = 0xa11ce, 0xb0b

// rev builds a review event at tick at (ns = at·ReviewTick).
func rev(kind workload.ReviewKind, item, id uint64, old, new int64, version uint64, at int64) workload.Event {
	return workload.Review{Item: item, Review: id, Kind: kind, Old: old, New: new, Version: version}.Event(at * workload.ReviewTick)
}

func create(item, id uint64, stars, at int64) workload.Event {
	return rev(workload.ReviewCreate, item, id, 0, stars, 1, at)
}
func edit(item, id uint64, old, new int64, version uint64, at int64) workload.Event {
	return rev(workload.ReviewEdit, item, id, old, new, version, at)
}
func del(item, id uint64, old int64, version uint64, at int64) workload.Event {
	return rev(workload.ReviewDelete, item, id, old, 0, version, at)
}

// agg is an item's sum and count.
type agg struct{ sum, count int64 }

func TestOutboxHandComputed(t *testing.T) {
	c1 := create(itemA, 1, 4, 0)
	cases := []struct {
		name      string
		delivered []workload.Event
		truth     agg // item A after every change, once each
		naive     agg
	}{
		{"duplicate create", []workload.Event{c1, c1}, agg{4, 1}, agg{8, 2}},
		{"duplicate delete", []workload.Event{create(itemA, 1, 5, 0), create(itemA, 2, 3, 1), del(itemA, 1, 5, 2, 2), del(itemA, 1, 5, 2, 2)},
			agg{3, 1}, agg{5 + 3 - 5 - 5, 0}},
		{"duplicate edit", []workload.Event{create(itemA, 1, 2, 0), edit(itemA, 1, 2, 5, 2, 1), edit(itemA, 1, 2, 5, 2, 1)}, agg{5, 1}, agg{8, 1}},
		// Deltas commute: the naive consumer is exact under reordering; the
		// idempotent one applies v3's state and drops v2, older.
		{"reordered edits", []workload.Event{create(itemA, 1, 1, 0), edit(itemA, 1, 3, 5, 3, 2), edit(itemA, 1, 1, 3, 2, 1)}, agg{5, 1}, agg{5, 1}},
		{"edit before its create", []workload.Event{edit(itemA, 1, 2, 4, 2, 1), create(itemA, 1, 2, 0)}, agg{4, 1}, agg{4, 1}},
		{"delete before its create", []workload.Event{del(itemA, 1, 4, 2, 1), c1}, agg{0, 0}, agg{0, 0}},
		// The tombstone: a late duplicate of a deleted review's create must
		// not bring it back.
		{"late duplicate create after delete", []workload.Event{c1, del(itemA, 1, 4, 2, 1), c1}, agg{0, 0}, agg{4, 1}},
		{"edit, delete, duplicate edit", []workload.Event{c1, edit(itemA, 1, 4, 1, 2, 1), del(itemA, 1, 1, 3, 2), edit(itemA, 1, 4, 1, 2, 1)},
			agg{0, 0}, agg{4 - 3 - 1 - 3, 1 - 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			naive := NewOutboxNaive(4, 1)
			idem := NewOutboxIdempotent(4, 8, 1)
			for _, e := range c.delivered {
				naive.Observe([]workload.Event{e})
				idem.Observe([]workload.Event{e})
			}
			designtest.CheckInvariants(t, naive)
			designtest.CheckInvariants(t, idem)
			if s, n := naive.Aggregate(itemA); (agg{s, n}) != c.naive {
				t.Errorf("naive: got %d stars in %d, want %v", s, n, c.naive)
			}
			if s, n := idem.Aggregate(itemA); (agg{s, n}) != c.truth {
				t.Errorf("idempotent: got %d stars in %d, want %v", s, n, c.truth)
			}
			if s, n := idem.Aggregate(itemB); s != 0 || n != 0 {
				t.Errorf("idempotent: item never seen has %d stars in %d", s, n)
			}
			// Every delivery but the review's newest versions is dropped.
			newest := map[uint64]uint64{}
			for _, e := range c.delivered {
				r := workload.ReviewOf(&e)
				newest[r.Review] = max(newest[r.Review], r.Version)
			}
			applied := int64(0)
			seen := map[uint64]uint64{}
			for _, e := range c.delivered {
				r := workload.ReviewOf(&e)
				if r.Version > seen[r.Review] {
					applied++
					seen[r.Review] = r.Version
				}
			}
			if got, want := idem.Dropped(), int64(len(c.delivered))-applied; got != want {
				t.Errorf("idempotent dropped %d, want %d", got, want)
			}
			if idem.Reviews() != int64(len(newest)) {
				t.Errorf("idempotent holds %d reviews, want %d", idem.Reviews(), len(newest))
			}
		})
	}
}

// The recount by hand: commits at ticks 0..3, recounts every 2 ticks.
func TestOutboxRecountHandComputed(t *testing.T) {
	committed := []workload.Event{
		create(itemA, 1, 4, 0),
		create(itemA, 2, 2, 1),
		del(itemA, 1, 4, 2, 2),
		create(itemB, 3, 5, 3),
	}
	l, err := strategies.NewReviewLedger(committed)
	if err != nil {
		t.Fatal(err)
	}
	at := func(e workload.Event, tick float64) workload.Event {
		e.At = int64(tick * workload.ReviewTick)
		return e
	}
	delivered := []workload.Event{
		at(committed[0], 0.5), at(committed[0], 1.5), // r1's create, twice
		at(committed[1], 1.2),
		at(committed[2], 2.5), // after the recount at 2: A is 6 in 2 there, then 2 in 1
		at(committed[3], 3.1),
		at(committed[1], 4.5), // r2's create again, after the recount at 4
	}
	rc, err := NewOutboxRecount(OutboxRecountParams{Every: 2}, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	rc.UseLedger(l)
	for _, e := range delivered {
		rc.Observe([]workload.Event{e})
		designtest.CheckInvariants(t, rc)
	}
	// Recount at 2 ns·1000: A as of it (r1, r2) = 6 in 2, 2 rows read;
	// then the delete: 2 in 1; B 5 in 1; recount at 4: A 2 in 1, B 5 in
	// 1, 2 rows; then r2's duplicate: A 4 in 2.
	if n, rows, last := rc.Recounts(); n != 2 || rows != 4 || last != 4*workload.ReviewTick {
		t.Errorf("recounts %d, rows %d, last %d; want 2, 4, %d", n, rows, last, 4*workload.ReviewTick)
	}
	if s, n := rc.Aggregate(itemA); s != 4 || n != 2 {
		t.Errorf("A: got %d stars in %d, want 4 in 2 (2 in 1 and r2's duplicate)", s, n)
	}
	if s, n := rc.Aggregate(itemB); s != 5 || n != 1 {
		t.Errorf("B: got %d stars in %d, want 5 in 1", s, n)
	}
	// Without the duplicate after the last recount it is exact; the naive
	// consumer is off by r1's duplicate create and r2's.
	naive := NewOutboxNaive(4, 1)
	naive.Observe(delivered)
	if s, n := naive.Aggregate(itemA); s != 4+4+2-4+2 || n != 3 {
		t.Errorf("naive A: got %d stars in %d, want 8 in 3", s, n)
	}
	if rc.Period() != 2*workload.ReviewTick {
		t.Errorf("period %d, want %d", rc.Period(), 2*workload.ReviewTick)
	}
	// Without a ledger it never recounts.
	bare, _ := NewOutboxRecount(OutboxRecountParams{Every: 1}, 4, 1)
	bare.Observe(delivered)
	if n, _, last := bare.Recounts(); n != 0 || last != -1 {
		t.Errorf("without a ledger: %d recounts, last %d", n, last)
	}
}

func TestReviewLedger(t *testing.T) {
	committed := []workload.Event{
		create(itemA, 1, 4, 0),
		create(itemB, 2, 3, 1),
		edit(itemA, 1, 4, 1, 2, 2),
		create(itemA, 3, 5, 3),
		del(itemB, 2, 3, 2, 4),
	}
	l, err := strategies.NewReviewLedger(committed)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		item     uint64
		tick     int64
		sum, cnt int64
	}{
		{itemA, 0, 0, 0}, // before t: nothing committed at 0 counts
		{itemA, 1, 4, 1},
		{itemA, 3, 1, 1},
		{itemA, 4, 6, 2},
		{itemB, 2, 3, 1},
		{itemB, 5, 0, 0},
		{0x5eed, 5, 0, 0},
	} {
		if s, n := l.AsOf(c.item, c.tick*workload.ReviewTick); s != c.sum || n != c.cnt {
			t.Errorf("AsOf(%#x, %d): got %d in %d, want %d in %d", c.item, c.tick, s, n, c.sum, c.cnt)
		}
	}
	if s, n := l.Final(itemA); s != 6 || n != 2 {
		t.Errorf("Final(A): got %d in %d, want 6 in 2", s, n)
	}
	for tick, want := range []int64{0, 1, 2, 2, 3, 2} {
		if got := l.LiveBefore(int64(tick) * workload.ReviewTick); got != want {
			t.Errorf("LiveBefore(%d): got %d, want %d", tick, got, want)
		}
	}
	if items := l.Items(); len(items) != 2 || items[0] != itemA || items[1] != itemB {
		t.Errorf("Items: %x", items)
	}
	bad := append([]workload.Event(nil), committed...)
	bad[1], bad[2] = bad[2], bad[1]
	if _, err := strategies.NewReviewLedger(bad); err == nil {
		t.Error("a ledger out of commit order was built")
	}
	bad = append([]workload.Event(nil), committed...)
	bad[3].Delta++
	if _, err := strategies.NewReviewLedger(bad); err == nil {
		t.Error("a ledger of a malformed event was built")
	}
}

// reviewsStream draws a lifecycle of n events with redelivery p.
func reviewsStream(t testing.TB, seed uint64, n int64, p float64) *workload.Reviews {
	t.Helper()
	src, err := workload.NewReviews(workload.ReviewsConfig{Seed: seed, Label: "test", Events: n, Items: 2000, S: 1, Scramble: true,
		ScaleMin: 1, ScaleMax: 5, QualityMin: 2, QualityMax: 4.8, EditShare: 0.2, DeleteShare: 0.1,
		Redeliver: p, DelayMean: 30, RetryMean: 300})
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// feed gives the deliveries to s in batches of 1000.
func feed(s strategies.Strategy, ev []workload.Event) {
	for len(ev) > 0 {
		n := min(1000, len(ev))
		s.Observe(ev[:n])
		ev = ev[n:]
	}
}

// bernstein is the deviation t at which a sum of independent terms, each
// within M of its mean, of variance V, strays from its mean by t or more
// with probability at most 2·exp(−t²/(2(V + M·t/3))) = delta.
func bernstein(v, m, delta float64) float64 {
	l := math.Log(2 / delta)
	b := 2 * m * l / 3
	return (b + math.Sqrt(b*b+8*l*v)) / 2
}

// The naive consumer's excess over every item: each event is delivered a
// second time with probability p, independently of the lifecycle, so the
// excess is Σ_j δ_j·B_j with B_j ~ Bernoulli(p): of mean p·Σ δ (p × the
// live reviews in the count, p × their stars in the sum) and variance
// p(1−p)·Σ δ². The tolerance is Bernstein's at 10⁻⁶ (|δ| ≤ 1 in the count,
// ≤ 5 in the sum): a correct build fails less than once in a million
// seeds, while a consumer that ignored duplicate deletes (excess p·creates)
// is off by p·deletes ≈ 1,500 against a tolerance near 700.
func TestOutboxNaiveDriftPlan(t *testing.T) {
	const p = 0.05
	src := reviewsStream(t, 7, 500_000, p)
	l, err := strategies.NewReviewLedger(src.Committed())
	if err != nil {
		t.Fatal(err)
	}
	naive := NewOutboxNaive(2000, 3)
	feed(naive, src.Delivered())
	var excessN, excessS, liveN, liveS, varN, varS float64
	for _, item := range l.Items() {
		s, n := naive.Aggregate(item)
		ts, tn := l.Final(item)
		excessN += float64(n - tn)
		excessS += float64(s - ts)
		liveN += float64(tn)
		liveS += float64(ts)
	}
	for _, e := range src.Committed() {
		r := workload.ReviewOf(&e)
		varN += float64(r.CountDelta() * r.CountDelta())
		varS += float64(r.SumDelta() * r.SumDelta())
	}
	varN *= p * (1 - p)
	varS *= p * (1 - p)
	if tol := bernstein(varN, 1, 1e-6); math.Abs(excessN-p*liveN) > tol {
		t.Errorf("count excess %g, plan p × live = %g, tolerance %.0f", excessN, p*liveN, tol)
	}
	if tol := bernstein(varS, 5, 1e-6); math.Abs(excessS-p*liveS) > tol {
		t.Errorf("sum excess %g, plan p × stars = %g, tolerance %.0f", excessS, p*liveS, tol)
	}
	if excessN == 0 {
		t.Error("no drift at p = 0.05")
	}
}

// On a drawn stream the idempotent consumer is exact, and the recounting
// one's count drift is at most the creates and deletes delivered at or
// after its last recount that were committed before it or are second
// deliveries (outbox_recount.go), a bound that holds on every stream.
func TestOutboxStreamExactAndBounded(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		src := reviewsStream(t, seed, 100_000, 0.03)
		l, err := strategies.NewReviewLedger(src.Committed())
		if err != nil {
			t.Fatal(err)
		}
		idem := NewOutboxIdempotent(2000, 100_000, 5)
		rc, err := NewOutboxRecount(OutboxRecountParams{Every: 7000}, 2000, 5)
		if err != nil {
			t.Fatal(err)
		}
		rc.UseLedger(l)
		feed(idem, src.Delivered())
		feed(rc, src.Delivered())
		designtest.CheckInvariants(t, idem)
		designtest.CheckInvariants(t, rc)
		creates, _, _ := src.Counts()
		if idem.Reviews() != creates {
			t.Errorf("seed %d: %d review entries, want the %d created", seed, idem.Reviews(), creates)
		}
		var recountDrift int64
		for _, item := range l.Items() {
			ts, tn := l.Final(item)
			if s, n := idem.Aggregate(item); s != ts || n != tn {
				t.Fatalf("seed %d: idempotent item %#x has %d in %d, truth %d in %d", seed, item, s, n, ts, tn)
			}
			_, n := rc.Aggregate(item)
			recountDrift += max(n-tn, tn-n)
		}
		recounts, rows, last := rc.Recounts()
		if want := (src.Delivered()[len(src.Delivered())-1].At) / (7000 * workload.ReviewTick); recounts != want {
			t.Errorf("seed %d: %d recounts, want one every 7000 ticks up to the last delivery: %d", seed, recounts, want)
		}
		var full int64
		for t := int64(7000 * workload.ReviewTick); t <= last; t += 7000 * workload.ReviewTick {
			full += l.LiveBefore(t)
		}
		if rows <= 0 || rows > full {
			t.Errorf("seed %d: %d rows read, want in (0, %d], a full recount each time", seed, rows, full)
		}
		var bound int64
		seen := map[int64]bool{}
		for i, e := range src.Delivered() {
			c := src.CommitOf(i)
			second := seen[c]
			seen[c] = true
			if e.At >= last && workload.ReviewOf(&e).CountDelta() != 0 && (src.Committed()[c].At < last || second) {
				bound++
			}
		}
		if recountDrift > bound {
			t.Errorf("seed %d: recount count drift %d above its bound %d", seed, recountDrift, bound)
		}
		t.Logf("seed %d: recount drift %d, bound %d, %d recounts, %d rows of %d", seed, recountDrift, bound, recounts, rows, full)
	}
}

// Observe allocates nothing on a stream within the sizes announced.
func TestOutboxObserveAllocs(t *testing.T) {
	src := reviewsStream(t, 4, 50_000, 0.02)
	l, err := strategies.NewReviewLedger(src.Committed())
	if err != nil {
		t.Fatal(err)
	}
	rc, err := NewOutboxRecount(OutboxRecountParams{Every: 1000}, 2000, 1)
	if err != nil {
		t.Fatal(err)
	}
	rc.UseLedger(l)
	for _, s := range []strategies.Strategy{NewOutboxNaive(2000, 1), NewOutboxIdempotent(2000, 50_000, 1), rc} {
		if a := testing.AllocsPerRun(1, func() { feed(s, src.Delivered()) }); a != 0 {
			t.Errorf("%T: %g allocations feeding the stream", s, a)
		}
	}
}

// The registered types: their families, their parameters and plans.
func TestOutboxTypes(t *testing.T) {
	env := strategies.Env{Seed: 1, Keys: 500, Events: 1000}
	for _, c := range []struct {
		name   string
		params []scenarios.Param
		family strategies.Family
	}{
		{"outbox-naive", nil, strategies.FamilyAggregate},
		{"outbox-idempotent", nil, strategies.FamilyReviewKeyed},
		{"outbox-recount", []scenarios.Param{{Key: "every", Value: int64(50)}}, strategies.FamilyRecount},
	} {
		s := designtest.BuildDesign(t, c.name, c.params, env)
		typ, p, err := designtest.Decode(c.name, c.params)
		if err != nil {
			t.Fatal(err)
		}
		if !typ.Answers(strategies.FamilyAggregate) || !typ.Answers(c.family) {
			t.Errorf("%s does not answer %s", c.name, c.family)
		}
		designtest.CheckPlannedBytes(t, typ.Plan(p, env), s)
		_, rc := s.(strategies.Recounter)
		_, rk := s.(strategies.ReviewKeeper)
		_, da := s.(strategies.DeltaApplier)
		if rc != typ.Answers(strategies.FamilyRecount) || rk != typ.Answers(strategies.FamilyReviewKeyed) || da != (c.name == "outbox-naive") {
			t.Errorf("%s: Recounter %v, ReviewKeeper %v, DeltaApplier %v against its families", c.name, rc, rk, da)
		}
	}
	if _, _, err := designtest.Decode("outbox-recount", []scenarios.Param{{Key: "every", Value: int64(0)}}); err == nil {
		t.Error("outbox-recount took every: 0")
	}
}
