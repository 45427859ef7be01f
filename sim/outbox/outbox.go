package outbox

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
)

// The rating-outbox run (issue 29): reviews of items are created, edited
// and deleted; each change is an outbox event, delivered after an
// exponential delay and, with probability p, a second time; every design
// is a consumer of the deliveries that keeps each item's rating sum and
// count. The truth is the review table (strategies.ReviewLedger): each
// item's exact sum and count after every committed change. Each design's
// aggregates are held against it — their drift in sum and count, the
// items drifted, the places of the top K (by the Bayesian average of the
// aggregates) that moved — beside the plans: no drift for a consumer keyed
// by review and version, p × Σ δ of excess for one that applies every
// delta, and for a recounting one, a bound on what is delivered after its
// last recount and the cost of its recounts.

// outboxLabel names the review stream in its seeds.
const outboxLabel = "reviews"

// hpLog is ln(1/δ) for δ = 10⁻⁶: a bound of the recount's drift planned
// with it is exceeded less than once in a million runs.
var hpLog = math.Log(1e6)

// outboxKind is a rating-outbox run: its spec, the stream drawn (Draw), the
// review table built from it, and the pieces of the harness it runs with.
type outboxKind struct {
	lineup *engine.Lineup
	feeder engine.Feeder
	rows   engine.ScoreRows
	spec   *scenarios.RatingOutbox
	cfg    workload.ReviewsConfig
	src    *workload.Reviews
	ledger *strategies.ReviewLedger
}

func init() { engine.DefineKind("rating-outbox", newOutboxKind) }

func newOutboxKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.RatingOutbox)
	r := spec.Stream
	lo, hi := r.ScaleRange()
	cfg := workload.ReviewsConfig{
		Seed: h.Scn.Seed, Label: outboxLabel, Events: r.Events, Items: r.Items, S: r.S, Scramble: true,
		ScaleMin: lo, ScaleMax: hi, QualityMin: r.Quality.Min, QualityMax: r.Quality.Max,
		EditShare: r.EditShare, DeleteShare: r.DeleteShare,
		Redeliver: spec.Outbox.Redeliver, DelayMean: spec.Outbox.Delay, RetryMean: spec.Outbox.Retry,
	}
	h.Lineup.Env.Keys = min(r.Items, uint64(r.Events))
	h.Lineup.Env.Events = r.Events
	h.Lineup.Env.Top = spec.Top
	return &outboxKind{lineup: h.Lineup, feeder: h.Feeder, rows: h.Rows, spec: spec, cfg: cfg}, nil
}

// Draw draws the lifecycle and its deliveries and builds the review table,
// once memory has said they fit.
func (k *outboxKind) Draw() error {
	src, err := workload.NewReviews(k.cfg)
	if err != nil {
		return scenarios.Errorf(k.spec.Stream.Pos, "reviews: %v", err)
	}
	l, err := strategies.NewReviewLedger(src.Committed())
	if err != nil {
		return scenarios.Errorf(k.spec.Stream.Pos, "reviews: %v", err)
	}
	k.src, k.ledger = src, l
	return nil
}

func (k *outboxKind) Describe() string {
	r, o := k.spec.Stream, k.spec.Outbox
	lo, hi := r.ScaleRange()
	return fmt.Sprintf("Rating outbox: %s review changes to %s items (Zipf s = %g), %d..%d stars, hidden qualities uniform on [%g, %g]; %g%% edits, %g%% deletes, the rest creates; each delivered after an exponential delay of mean %g ticks and a second time with probability %g, %g ticks later on average; top %d by (C·m + sum)/(C + count), m = %g, C = %g.",
		metrics.Format(float64(r.Events)), metrics.Format(float64(r.Items)), r.S, lo, hi, r.Quality.Min, r.Quality.Max,
		100*r.EditShare, 100*r.DeleteShare, o.Delay, o.Redeliver, o.Retry, k.spec.Top, k.spec.PriorMean, k.spec.Weight)
}

func (k *outboxKind) Accepts(t *strategies.Type) error {
	return engine.OnlyFamily(t, strategies.FamilyAggregate, "keep rating aggregates from an outbox", "rating-outbox")
}

// Memory: the stream and its deliveries (workload.ReviewBytes an event)
// and the review table (40 B an event, 20 B an item).
func (k *outboxKind) Memory() (int64, int64) {
	n := k.spec.Stream.Events
	items := int64(min(k.spec.Stream.Items, uint64(n)))
	return n*(workload.ReviewBytes+40) + 20*items, 1
}

func (k *outboxKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.ReviewCreates, metrics.ReviewEdits, metrics.ReviewDeletes,
			metrics.ReviewsLive, metrics.Redelivered, metrics.OutOfOrder}
	}
	ms := []metrics.Metric{metrics.Bytes, metrics.NsPerEvent, metrics.AggCountExcess, metrics.AggSumExcess,
		metrics.AggCountDrift, metrics.AggSumDrift, metrics.AggCountDriftMax, metrics.AggSumDriftMax,
		metrics.AggItemsDrifted, metrics.RankMoved, metrics.RankMissed}
	if d.Typ.Answers(strategies.FamilyRecount) {
		ms = append(ms, metrics.Recounts, metrics.RecountRows)
	}
	if d.Typ.Answers(strategies.FamilyReviewKeyed) {
		ms = append(ms, metrics.ReviewEntries, metrics.OutboxDropped)
	}
	return ms
}

// Plan: the redeliveries the outbox should make, N·p.
func (k *outboxKind) Plan() []metrics.Result {
	n, p := float64(k.spec.Stream.Events), k.spec.Outbox.Redeliver
	return []metrics.Result{k.rows.Plan(strategies.PlanLine{Metric: metrics.Redelivered, Value: math.Round(n * p), Unit: "events",
		Note: fmt.Sprintf("N·p = %s × %g", metrics.Format(n), p)})}
}

func (k *outboxKind) Run(ctx context.Context) (*engine.Report, error) {
	sctx, release := engine.Scoring(ctx)
	defer release()
	r := &engine.Run{}
	if err := k.lineup.Build(r, k.lineup.SameEnv); err != nil {
		return nil, err
	}
	for _, d := range r.Designs {
		if rc, ok := d.(strategies.Recounter); ok {
			rc.UseLedger(k.ledger)
		}
	}
	events, err := k.feeder.Feed(ctx, r, k.src, k.spec.Batch)
	rep := &engine.Report{Partial: err != nil}
	k.score(sctx, rep, r, events)
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// outboxTruth is what scoring reads of the review table: every item, its
// final sum and count, and the true top K.
type outboxTruth struct {
	items      []uint64
	sum, count []int64
	top        []uint64
}

// bayes is the ranking's score of an aggregate: (C·m + sum)/(C + count),
// and m where C + count ≤ 0 (no reviews, or a count drifted below −C).
func (k *outboxKind) bayes(sum, count int64) float64 {
	c, m := k.spec.Weight, k.spec.PriorMean
	if c+float64(count) <= 0 {
		return m
	}
	return (c*m + float64(sum)) / (c + float64(count))
}

// topOf returns the K items of highest score by the aggregates, highest
// first, ties by key ascending.
func (k *outboxKind) topOf(ctx context.Context, items []uint64, sum, count []int64) ([]uint64, error) {
	idx := make([]int, len(items))
	score := make([]float64, len(items))
	for i := range idx {
		idx[i] = i
		score[i] = k.bayes(sum[i], count[i])
	}
	if err := engine.SortStop(ctx, idx, func(a, b int) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		return cmp.Compare(items[a], items[b])
	}); err != nil {
		return nil, err
	}
	top := make([]uint64, 0, k.spec.Top)
	for _, i := range idx[:min(k.spec.Top, len(idx))] {
		top = append(top, items[i])
	}
	return top, nil
}

// score adds the truth's rows — the lifecycle's creates, edits and deletes,
// the reviews live, the redeliveries and the deliveries out of order —
// then every design's: its memory and speed, its drift against the review
// table, its top K against the truth's, and the recounts' cost or the
// review entries where it has them. A stopped run reports the events fed
// and each design's memory and speed alone.
func (k *outboxKind) score(ctx context.Context, rep *engine.Report, r *engine.Run, events int64) {
	designs := k.lineup.Members
	deliveries := int64(len(k.src.Delivered()))
	memory := func(tr *outboxTruth) {
		for i, built := range r.Designs {
			s := k.rows.Scorer(rep, designs[i])
			s.Memory(built, "measured from the design's arrays")
			if events > 0 && r.Elapsed[i] > 0 {
				s.Timing(metrics.NsPerEvent, engine.Round(float64(r.Elapsed[i])/float64(events), 2), "ns", engine.LaneClockNote)
			}
			if tr != nil {
				k.scoreDesign(ctx, rep, s, built, tr)
			}
			s.Finish()
		}
	}
	var evPlan *float64
	if events == deliveries {
		evPlan = metrics.PlanOf(float64(deliveries))
	}
	k.rows.Truth(rep, metrics.Events, float64(events), "deliveries", evPlan, "every delivery of the outbox fed, duplicates included")
	if rep.Partial {
		rep.Cut("the designs' aggregates against the review table")
		memory(nil)
		return
	}
	creates, edits, deletes := k.src.Counts()
	n := float64(k.cfg.Events)
	k.rows.Truth(rep, metrics.ReviewCreates, float64(creates), "events", nil,
		fmt.Sprintf("creates: the events neither an edit (share %g) nor a delete (share %g), and any while no review was live", k.cfg.EditShare, k.cfg.DeleteShare))
	k.rows.Truth(rep, metrics.ReviewEdits, float64(edits), "events", nil, "edits of a live review picked uniformly, old → new stars, the next version")
	k.rows.Truth(rep, metrics.ReviewDeletes, float64(deletes), "events", nil, "deletes of a live review picked uniformly")
	k.rows.Truth(rep, metrics.ReviewsLive, float64(creates-deletes), "reviews", nil, "reviews live after every event: creates − deletes, the true total count")
	k.rows.Truth(rep, metrics.Redelivered, float64(k.src.Twice()), "events", metrics.PlanOf(math.Round(n*k.cfg.Redeliver)),
		fmt.Sprintf("events delivered twice; plan N·p = %s × %g (expected)", metrics.Format(n), k.cfg.Redeliver))
	var late, seen int64 = 0, -1
	for i := range k.src.Delivered() {
		if c := k.src.CommitOf(i); c < seen {
			late++
		} else {
			seen = c
		}
	}
	k.rows.Truth(rep, metrics.OutOfOrder, float64(late), "deliveries", nil,
		"deliveries of a change committed before one already delivered: late, out of order (duplicates included)")
	tr, err := k.truth(ctx)
	if err != nil {
		rep.Cut("the designs' aggregates against the review table")
		memory(nil)
		return
	}
	memory(tr)
	k.driftBars(rep)
}

// The series of every design's drift, filled by scoreDesign and drawn by
// driftBars when one is not zero.
func (k *outboxKind) driftBars(rep *engine.Report) {
	bars := metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Name: "count-drift", Kind: metrics.Bars,
		Title:  fmt.Sprintf("%s: Σ |count − true count| over the items, each consumer of the outbox", k.rows.Scenario),
		XLabel: "design", YLabel: "reviews miscounted"}
	any := false
	for _, res := range rep.Results {
		if res.Metric == metrics.AggCountDrift && res.Value != nil && res.Strategy != k.rows.TruthName {
			bars.Labels, bars.Y = append(bars.Labels, res.Strategy), append(bars.Y, *res.Value)
			any = any || *res.Value != 0
		}
	}
	if any {
		rep.Series = append(rep.Series, bars)
	}
}

// truth reads the review table: every item's final sum and count, and the
// true top K.
func (k *outboxKind) truth(ctx context.Context) (*outboxTruth, error) {
	items := k.ledger.Items()
	t := &outboxTruth{items: items, sum: make([]int64, len(items)), count: make([]int64, len(items))}
	for i, item := range items {
		t.sum[i], t.count[i] = k.ledger.Final(item)
	}
	top, err := k.topOf(ctx, items, t.sum, t.count)
	t.top = top
	return t, err
}

// scoreDesign adds one design's rows against the review table.
func (k *outboxKind) scoreDesign(ctx context.Context, rep *engine.Report, s *engine.Scorer, built strategies.Strategy, tr *outboxTruth) {
	agg := built.(strategies.Aggregate) // Accepts admits aggregate designs only
	sum := make([]int64, len(tr.items))
	count := make([]int64, len(tr.items))
	var excessN, excessS, driftN, driftS, maxN, maxS, drifted int64
	for i, item := range tr.items {
		sum[i], count[i] = agg.Aggregate(item)
		dn, ds := count[i]-tr.count[i], sum[i]-tr.sum[i]
		excessN += dn
		excessS += ds
		an, as := abs64(dn), abs64(ds)
		driftN += an
		driftS += as
		maxN, maxS = max(maxN, an), max(maxS, as)
		if an != 0 || as != 0 {
			drifted++
		}
	}
	p := k.cfg.Redeliver
	creates, _, deletes := k.src.Counts()
	live := float64(creates - deletes)
	var totalStars int64
	for _, v := range tr.sum {
		totalStars += v
	}
	var planN, planS *float64
	noteN, noteS := "Σ over items of (count − true count)", "Σ over items of (sum − true sum), stars"
	if _, ok := built.(strategies.DeltaApplier); ok {
		planN, planS = metrics.PlanOf(engine.Round(p*live, 1)), metrics.PlanOf(engine.Round(p*float64(totalStars), 1))
		noteN += fmt.Sprintf("; plan p × the live reviews = %g × %s, the expected excess of applying every duplicate's delta (creates − deletes)", p, metrics.Format(live))
		noteS += fmt.Sprintf("; plan p × the live reviews' stars = %g × %s (expected)", p, metrics.Format(float64(totalStars)))
	}
	s.Add(metrics.AggCountExcess, float64(excessN), "reviews", planN, noteN)
	s.Add(metrics.AggSumExcess, float64(excessS), "stars", planS, noteS)
	driftPlan, driftNote := s.Plan(metrics.AggCountDrift), "Σ over items of |count − true count|"
	if rc, ok := built.(strategies.Recounter); ok {
		recounts, rows, last := rc.Recounts()
		bound, expect := k.recountBound(last)
		driftPlan = metrics.PlanOf(math.Ceil(bound))
		driftNote += fmt.Sprintf("; plan: at most the creates and deletes delivered at or after the last recount (at tick %s) that it already held or that are second deliveries, expected %.1f, + a Bernstein margin: exceeded with probability < 10⁻⁶", metrics.Format(float64(last/workload.ReviewTick)), expect)
		full := int64(0)
		every := rc.Period()
		for t := every; t <= last && every > 0; t += every {
			full += k.ledger.LiveBefore(t)
		}
		s.Add(metrics.Recounts, float64(recounts), "recounts", nil,
			fmt.Sprintf("one at every multiple of R up to the last delivery, the last at tick %s", metrics.Format(float64(last/workload.ReviewTick))))
		s.Add(metrics.RecountRows, float64(rows), "rows", metrics.PlanOf(float64(full)),
			fmt.Sprintf("the live review rows of the items recounted; plan: at most a full recount's rows each time, Σ live reviews at each recount = %s (%.1f a delivery)",
				metrics.Format(float64(full)), float64(rows)/float64(max(1, len(k.src.Delivered())))))
	}
	s.Add(metrics.AggCountDrift, float64(driftN), "reviews", driftPlan, driftNote)
	s.Add(metrics.AggSumDrift, float64(driftS), "stars", s.Plan(metrics.AggSumDrift), "Σ over items of |sum − true sum|")
	s.Add(metrics.AggCountDriftMax, float64(maxN), "reviews", nil, "the most |count − true count| of an item")
	s.Add(metrics.AggSumDriftMax, float64(maxS), "stars", nil, "the most |sum − true sum| of an item")
	s.Add(metrics.AggItemsDrifted, float64(drifted), "items", s.Plan(metrics.AggItemsDrifted),
		fmt.Sprintf("items whose sum or count is not the review table's, of %s", metrics.Format(float64(len(tr.items)))))
	if rk, ok := built.(strategies.ReviewKeeper); ok {
		s.Add(metrics.ReviewEntries, float64(rk.Reviews()), "entries", metrics.PlanOf(float64(creates)),
			"one entry per review ever seen, deleted ones kept as tombstones; plan: the reviews created, each delivered at least once")
		s.Add(metrics.OutboxDropped, float64(rk.Dropped()), "deliveries", nil,
			fmt.Sprintf("deliveries not newer than their review's last applied version: %s duplicates and the changes that came after a newer one", metrics.Format(float64(k.src.Twice()))))
	}
	top, err := k.topOf(ctx, tr.items, sum, count)
	if err != nil {
		rep.Cut("the designs' rankings against the truth's")
		return
	}
	var moved int64
	for i := range tr.top {
		if i >= len(top) || top[i] != tr.top[i] {
			moved++
		}
	}
	missed := int64(len(tr.top) - overlap(tr.top, top))
	K := len(tr.top)
	s.Add(metrics.RankMoved, float64(moved), "places", s.Plan(metrics.RankMoved),
		fmt.Sprintf("places 1..%d of the ranking by (C·m + sum)/(C + count), m = %g, C = %g, whose item is not the true ranking's", K, k.spec.PriorMean, k.spec.Weight))
	s.Add(metrics.RankMissed, float64(missed), "items", nil, fmt.Sprintf("items of the true top %d not in the design's top %d", K, K))
}

// recountBound plans the count drift a recounting consumer can hold after
// its last recount at t (ns): every change committed before t whose first
// or second delivery comes at or after t is applied on top of a table that
// held it, and every second delivery at or after t is a duplicate; only
// creates and deletes move a count. B, the number of those deliveries, is
// a sum over the changes of independent terms in {0, 1, 2}, of mean
//
//	E[B] = Σ_{c_j < t} (P(D1 > t − c_j) + p·P(D1 + D2 > t − c_j)) + Σ_{c_j ≥ t} p,
//
// and of variance at most 2·E[B]; Bernstein's inequality bounds it: B ≥
// E[B] + u with probability at most exp(−u²/(2(2E[B] + 2u/3))), which is
// 10⁻⁶ = e^−L at u = (4L/3 + √(16L²/9 + 16L·E[B]))/2. The drift is at
// most B. t is taken as given: the last multiple of R
// before the last delivery. It returns the bound and E[B].
func (k *outboxKind) recountBound(t int64) (bound, expect float64) {
	p := k.cfg.Redeliver
	for _, e := range k.src.Committed() {
		if workload.ReviewOf(&e).CountDelta() == 0 {
			continue
		}
		x := float64(t - e.At)
		if e.At < t {
			expect += k.src.LateAfter(x) + p*k.src.SecondAfter(x)
		} else {
			expect += p
		}
	}
	// u² = 2L(2E + 2u/3) ⇒ u² − (4L/3)u − 4LE = 0.
	b := 4 * hpLog / 3
	u := (b + math.Sqrt(b*b+16*hpLog*expect)) / 2
	return expect + u, expect
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// overlap counts the keys of a also in b.
func overlap(a, b []uint64) int {
	n := 0
	for _, k := range a {
		if slices.Contains(b, k) {
			n++
		}
	}
	return n
}
