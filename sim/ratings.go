package sim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

// The ratings run: items rated on a star scale, their popularity Zipf (a
// few rated thousands of times, most a handful of times or once), each
// with a hidden true quality. Every design ranks them (the rating family:
// naive average, Bayesian average, Wilson lower bound) and its top K is
// held against an exact truth by item — the ratings and stars of each, and
// its hidden quality: how thinly rated its top K is, how it overlaps the
// other designs' and the true-quality top K, and how many of it are truly
// good. The seed's example (m = 4.0, C = 20, one 5-star review → 4.05) is
// measured from the design's own score of an item rated once, 5 stars.

// ratingsLabel names the ratings stream in its seeds.
const ratingsLabel = "ratings"

// bestShare is the share of the items, by the quality law, that count as
// good for precision at K: the top decile of the qualities' law.
const bestShare = 0.1

// ratingsKind runs with the designs, a feeder and the rows.
type ratingsKind struct {
	lineup *lineup
	feeder feeder
	rows   scoreRows
	spec   *scenarios.Ratings
	src    *workload.Ratings
}

func init() { defineKind("ratings", newRatingsKind) }

func newRatingsKind(h *harness) (kind, error) {
	spec := h.scn.Run.(*scenarios.Ratings)
	r := spec.Stream
	lo, hi := r.ScaleRange()
	src, err := workload.NewRatings(workload.RatingsConfig{
		Seed: h.scn.Seed, Label: ratingsLabel, Ratings: r.Ratings, Items: r.Items, S: r.S, Scramble: true,
		ScaleMin: lo, ScaleMax: hi, QualityMin: r.Quality.Min, QualityMax: r.Quality.Max,
	})
	if err != nil {
		return nil, scenarios.Errorf(r.Pos, "ratings: %v", err)
	}
	h.lineup.env.Keys = min(r.Items, uint64(r.Ratings))
	h.lineup.env.Events = r.Ratings
	return &ratingsKind{lineup: h.lineup, feeder: h.feeder, rows: h.rows, spec: spec, src: src}, nil
}

func (k *ratingsKind) describe() string {
	r := k.spec.Stream
	lo, hi := r.ScaleRange()
	return fmt.Sprintf("Ratings: %s ratings of %s items (Zipf s = %g), %d..%d stars, hidden qualities uniform on [%g, %g]; top %d, thin below %d ratings, the true-quality top among items rated %d times or more.",
		metrics.Format(float64(r.Ratings)), metrics.Format(float64(r.Items)), r.S, lo, hi, r.Quality.Min, r.Quality.Max,
		k.spec.Top, k.spec.Few, k.spec.Enough)
}

func (k *ratingsKind) accepts(t *strategies.Type) error {
	return onlyFamily(t, strategies.FamilyRating, "rank rated items", "ratings")
}

// memory: the truth holds two int64 a rank (ratings and stars).
func (k *ratingsKind) memory() (int64, int64) { return 16 * int64(k.spec.Stream.Items), 1 }

func (k *ratingsKind) reports(d *design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.DistinctKeys, metrics.ItemsFewRatings,
			metrics.ItemsEnough, metrics.OneFiveStarItems}
	}
	return []metrics.Metric{metrics.Bytes, metrics.NsPerEvent, metrics.TopFewShare,
		metrics.TopMeanRatings, metrics.TopMeanQuality, metrics.TopOverlap,
		metrics.TopOverlapQuality, metrics.PrecisionAtK, metrics.OneFiveStar}
}

// maxPlanWork bounds the work of the truth's plan, items × the binomial
// terms summed for each: past it the plan is left out.
const maxPlanWork = 1e8

// ratingsExpected is what the stream should hold, from its laws.
type ratingsExpected struct {
	rated, few, enough, onceTop float64
}

// expected works out the truth's plan: per item of rank r, with p = P(r)
// and N ratings, its count X ~ Binomial(N, p), summed over the items: the
// items rated (P(X ≥ 1)), rated fewer than few times (P(1 ≤ X < few)),
// rated enough (P(X ≥ enough)), and rated exactly once with 5 stars
// (P(X = 1)·P(5 stars | q_r), 0 on a scale that tops below 5). ok is false
// when the sums would cost more than maxPlanWork terms.
func (k *ratingsKind) expected() (e ratingsExpected, ok bool) {
	r := k.spec.Stream
	terms := max(k.spec.Few, k.spec.Enough, 2)
	if float64(r.Items)*float64(terms) > maxPlanWork {
		return e, false
	}
	n := float64(r.Ratings)
	for rank := uint64(1); rank <= r.Items; rank++ {
		p := k.src.Prob(rank)
		five := k.src.UpProb(k.src.Quality(rank), 5)
		if p >= 1 { // one item: X = N
			e.rated++
			e.few += b2f(r.Ratings < k.spec.Few)
			e.enough += b2f(r.Ratings >= k.spec.Enough)
			e.onceTop += b2f(r.Ratings == 1) * five
			continue
		}
		// pmf(0) = (1−p)^N, pmf(j+1) = pmf(j)·(N−j)/(j+1)·p/(1−p); cdf
		// after term j is P(X ≤ j).
		pmf := math.Exp(n * math.Log1p(-p))
		p0, cdf := pmf, 0.0
		var ltFew, ltEnough, p1 float64
		for j := range terms {
			if j == 1 {
				p1 = pmf
			}
			cdf += pmf
			if j+1 == k.spec.Few {
				ltFew = cdf
			}
			if j+1 == k.spec.Enough {
				ltEnough = cdf
			}
			pmf *= (n - float64(j)) / float64(j+1) * p / (1 - p)
		}
		e.rated += 1 - p0
		e.few += ltFew - p0
		e.enough += 1 - min(ltEnough, 1)
		e.onceTop += p1 * five
	}
	return e, true
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// plan is the truth's plan rows: what the stream should hold.
func (k *ratingsKind) plan() []metrics.Result {
	e, ok := k.expected()
	if !ok {
		return nil
	}
	row := func(m metrics.Metric, v float64, unit, note string) metrics.Result {
		return k.rows.plan(strategies.PlanLine{Metric: m, Value: math.Round(v), Unit: unit, Note: note})
	}
	return []metrics.Result{
		row(metrics.DistinctKeys, e.rated, "items", "Σ P(X_r ≥ 1), X_r ~ Binomial(N, P(r))"),
		row(metrics.ItemsFewRatings, e.few, "items", fmt.Sprintf("Σ P(1 ≤ X_r < %d)", k.spec.Few)),
		row(metrics.ItemsEnough, e.enough, "items", fmt.Sprintf("Σ P(X_r ≥ %d)", k.spec.Enough)),
		row(metrics.OneFiveStarItems, e.onceTop, "items", "Σ P(X_r = 1)·P(5 stars | q_r)"),
	}
}

// ratingTruth is the exact truth of a ratings run, by popularity rank:
// each item's ratings and stars, in arrays that share no code with the
// designs' tables.
type ratingTruth struct {
	src    *workload.Ratings
	n, sum []int64 // index rank − 1
}

func (t *ratingTruth) observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write {
			r := t.src.RankOf(e.Key) - 1
			t.n[r]++
			t.sum[r] += e.Delta
		}
	}
}

func (k *ratingsKind) run(ctx context.Context) (*Report, error) {
	sctx, release := scoring(ctx)
	defer release()
	items := k.spec.Stream.Items
	tr := &ratingTruth{src: k.src, n: make([]int64, items), sum: make([]int64, items)}
	r := &run{truth: tr}
	if err := k.lineup.build(r, k.lineup.sameEnv); err != nil {
		return nil, err
	}
	events, err := k.feeder.feed(ctx, r, k.src, k.spec.Batch)
	rep := &Report{Partial: err != nil}
	if rep.Partial { // every design's plan for the ratings fed
		k.lineup.replan(rep, fed{events: events, of: float64(k.spec.Stream.Ratings), writes: float64(events)})
	}
	k.score(sctx, rep, r, tr, events)
	return rep, stoppedScoring(ctx, rep, err)
}

// ratingsTop is one design's top K with what the truth knows of it.
type ratingsTop struct {
	items   []strategies.Rated
	ranks   []uint64 // popularity rank of each item
	few     int      // items rated fewer than Few times
	ratings float64  // mean ratings
	quality float64  // mean hidden quality
	keys    []uint64
}

// score adds the truth's rows, then every design's: its memory and speed,
// how thinly rated its top K is, its overlap with the others' and with the
// true-quality top K, its precision at K, its score of an item rated once
// with 5 stars; then a table of each top K and bars of the shares. Reading
// the truth stops when ctx ends (every stopEvery items, and in the sort):
// every row but the events' and the designs' memory and speed is then
// left out, and rep says so.
func (k *ratingsKind) score(ctx context.Context, rep *Report, r *run, tr *ratingTruth, events int64) {
	designs, spec, src := k.lineup.designs, k.spec, k.src
	K := spec.Top
	complete := events == spec.Stream.Ratings
	var exp ratingsExpected
	planned := false
	if complete {
		exp, planned = k.expected()
	}
	plan := func(v float64) *float64 {
		if !planned {
			return nil
		}
		return metrics.PlanOf(math.Round(v))
	}
	// The truth's own rows, and the items it picks out: the true-quality
	// top K among the items rated Enough times, and the first item (by
	// popularity) rated exactly once, with 5 stars.
	var rated, few, enough, onceTop int64
	var onceRank uint64
	var eligible []uint64 // ranks rated enough
	start := len(rep.Results)
	cut := func() {
		rep.cut("the truth's items and every design's top K against them")
		k.rows.truth(rep, metrics.Events, float64(events), "ratings", nil, "every rating fed")
		for i, built := range r.designs {
			s := k.rows.scorer(rep, designs[i])
			s.memory(built, "measured from the design's arrays")
			s.finish()
		}
	}
	for i, n := range tr.n {
		if stopped(ctx, i) {
			cut()
			return
		}
		switch {
		case n == 0:
			continue
		case n < spec.Few:
			few++
		}
		rated++
		if n >= spec.Enough {
			enough++
			eligible = append(eligible, uint64(i+1))
		}
		if n == 1 && tr.sum[i] == 5 {
			onceTop++
			if onceRank == 0 {
				onceRank = uint64(i + 1)
			}
		}
	}
	var evPlan *float64
	if complete {
		evPlan = metrics.PlanOf(float64(spec.Stream.Ratings))
	}
	k.rows.truth(rep, metrics.Events, float64(events), "ratings", evPlan, "every rating fed")
	k.rows.truth(rep, metrics.DistinctKeys, float64(rated), "items", plan(exp.rated),
		fmt.Sprintf("items rated, of %s; plan Σ P(X_r ≥ 1), X_r ~ Binomial(N, P(r))", metrics.Format(float64(spec.Stream.Items))))
	k.rows.truth(rep, metrics.ItemsFewRatings, float64(few), "items", plan(exp.few),
		fmt.Sprintf("items rated 1 to %d times; plan Σ P(1 ≤ X_r < %d)", spec.Few-1, spec.Few))
	k.rows.truth(rep, metrics.ItemsEnough, float64(enough), "items", plan(exp.enough),
		fmt.Sprintf("items rated %d times or more, among which the true-quality top %d is taken; plan Σ P(X_r ≥ %d)", spec.Enough, K, spec.Enough))
	k.rows.truth(rep, metrics.OneFiveStarItems, float64(onceTop), "items", plan(exp.onceTop),
		"items rated exactly once, with 5 stars; plan Σ P(X_r = 1)·P(5 stars | q_r)")

	if err := sortStop(ctx, eligible, func(a, b uint64) int { // quality descending, then rank: a total order
		qa, qb := src.Quality(a), src.Quality(b)
		switch {
		case qa > qb:
			return -1
		case qa < qb:
			return 1
		}
		return cmp.Compare(a, b)
	}); err != nil {
		rep.Results = rep.Results[:start] // the truth's rows, now without the rest
		cut()
		return
	}
	qualityTop := map[uint64]bool{}
	for _, rank := range eligible[:min(K, len(eligible))] {
		qualityTop[src.KeyOf(rank)] = true
	}
	q := spec.Stream.Quality
	good := q.Min + (1-bestShare)*(q.Max-q.Min) // the law's top decile

	tops := make([]ratingsTop, len(r.designs))
	for i, built := range r.designs {
		rd := built.(strategies.Rating) // accepts admits rating designs only
		t := ratingsTop{items: rd.Top(K)}
		for _, it := range t.items {
			rank := src.RankOf(it.Key)
			t.ranks = append(t.ranks, rank)
			t.keys = append(t.keys, it.Key)
			if it.Ratings < spec.Few {
				t.few++
			}
			t.ratings += float64(it.Ratings)
			t.quality += src.Quality(rank)
		}
		if len(t.items) > 0 {
			t.ratings /= float64(len(t.items))
			t.quality /= float64(len(t.items))
		}
		tops[i] = t
	}

	fewBars := metrics.Series{Scenario: k.rows.scenario, Step: k.rows.step, Name: "top-thin", Kind: metrics.Bars,
		Title:  fmt.Sprintf("share of each design's top %d rated fewer than %d times", K, spec.Few),
		XLabel: "design", YLabel: "share of the top " + fmt.Sprint(K)}
	precBars := metrics.Series{Scenario: k.rows.scenario, Step: k.rows.step, Name: "precision-at-k", Kind: metrics.Bars,
		Title:  fmt.Sprintf("precision at %d, the share of each design's top %d among the best 10%% by hidden quality", K, K),
		XLabel: "design", YLabel: "precision at " + fmt.Sprint(K)}
	for i, built := range r.designs {
		d := designs[i]
		s := k.rows.scorer(rep, d)
		t := tops[i]
		s.memory(built, "measured from the design's arrays")
		if events > 0 && r.elapsed[i] > 0 {
			s.timing(metrics.NsPerEvent, round(float64(r.elapsed[i])/float64(events), 2), "ns", laneClockNote)
		}
		if len(t.items) > 0 {
			n := float64(len(t.items))
			var counts []string
			for _, it := range t.items {
				counts = append(counts, fmt.Sprint(it.Ratings))
			}
			s.add(metrics.TopFewShare, round(float64(t.few)/n, 4), "share",
				nil, fmt.Sprintf("%d of its top %d rated fewer than %d times; their ratings: %s", t.few, len(t.items), spec.Few, strings.Join(counts, ", ")))
			s.add(metrics.TopMeanRatings, round(t.ratings, 2), "ratings", nil, fmt.Sprintf("mean ratings of its top %d", len(t.items)))
			s.add(metrics.TopMeanQuality, round(t.quality, 4), "stars", nil,
				fmt.Sprintf("mean hidden quality of its top %d; qualities uniform on [%g, %g]", len(t.items), q.Min, q.Max))
			for j, o := range tops {
				if j == i {
					continue
				}
				shared := overlap(t.keys, o.keys)
				s.add(metrics.TopOverlap, round(float64(shared)/n, 4), "share", nil,
					fmt.Sprintf("with %s: %d of its top %d are in %s's top %d", designs[j].name(), shared, len(t.items), designs[j].name(), len(o.items)))
			}
			var inQuality, isGood int
			for j, key := range t.keys {
				if qualityTop[key] {
					inQuality++
				}
				if src.Quality(t.ranks[j]) >= good {
					isGood++
				}
			}
			s.add(metrics.TopOverlapQuality, round(float64(inQuality)/n, 4), "share", nil,
				fmt.Sprintf("%d of its top %d are in the true-quality top %d: the %d items of highest hidden quality among the %s rated %d times or more",
					inQuality, len(t.items), K, min(K, len(eligible)), metrics.Format(float64(len(eligible))), spec.Enough))
			s.add(metrics.PrecisionAtK, round(float64(isGood)/n, 4), "share", nil,
				fmt.Sprintf("%d of its top %d have a hidden quality of %.4g or more: the best 10%% of the quality law", isGood, len(t.items), good))
			fewBars.Labels, fewBars.Y = append(fewBars.Labels, d.name()), append(fewBars.Y, float64(t.few)/n)
			precBars.Labels, precBars.Y = append(precBars.Labels, d.name()), append(precBars.Y, float64(isGood)/n)
		}
		if onceRank > 0 {
			score, n := built.(strategies.Rating).Score(src.KeyOf(onceRank))
			s.add(metrics.OneFiveStar, score, planUnit(d, metrics.OneFiveStar), s.plan(metrics.OneFiveStar),
				fmt.Sprintf("measured: the design's own score of item #%d by popularity, rated %s, 5 stars: %.2f to two places", onceRank, count(float64(n), "time"), score))
		}
		rep.Tables = append(rep.Tables, k.topTable(d.name(), t, tr))
		s.finish()
	}
	if len(eligible) > 0 {
		t := ratingsTop{}
		for _, rank := range eligible[:min(K, len(eligible))] {
			i := rank - 1
			t.ranks = append(t.ranks, rank)
			t.items = append(t.items, strategies.Rated{Key: src.KeyOf(rank), Score: src.Quality(rank), Ratings: tr.n[i]})
		}
		rep.Tables = append(rep.Tables, k.topTable("true-quality", t, tr))
	}
	if len(fewBars.Labels) > 0 {
		rep.Series = append(rep.Series, fewBars, precBars)
	}
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

// topTable is one top K as a table: place, the item's popularity rank,
// its ratings, mean stars and hidden quality (from the truth), and the
// design's score.
func (k *ratingsKind) topTable(name string, t ratingsTop, tr *ratingTruth) metrics.Table {
	tb := metrics.Table{Scenario: k.rows.scenario, Name: "top-" + name,
		Title:   fmt.Sprintf("%s: top %d (item = popularity rank; score: the design's, or the hidden quality for the true-quality top)", name, k.spec.Top),
		Columns: []string{"place", "item", "ratings", "mean stars", "hidden quality", "score"}}
	for j, it := range t.items {
		i := t.ranks[j] - 1
		mean := 0.0
		if tr.n[i] > 0 {
			mean = float64(tr.sum[i]) / float64(tr.n[i])
		}
		tb.Rows = append(tb.Rows, []float64{float64(j + 1), float64(t.ranks[j]), float64(tr.n[i]), round(mean, 4),
			round(k.src.Quality(t.ranks[j]), 4), round(it.Score, 4)})
	}
	return tb
}

// planUnit is the unit of the design's simulated-scale plan line for m:
// a score in stars or a share, as the design says.
func planUnit(d design, m metrics.Metric) string {
	for _, l := range d.plan {
		if l.Metric == m && !l.Full {
			return l.Unit
		}
	}
	return ""
}
