package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	_ "countsim/sim/outbox" // the rating-outbox kind (issue 29), registered when its room loads
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
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

// ratingsKind runs with the designs, a feeder and the rows. Its ratings
// come from items: the generator's (ratingsGen), or a recorded log's
// (log_ratings.go).
type ratingsKind struct {
	lineup      *engine.Lineup
	feeder      engine.Feeder
	rows        engine.ScoreRows
	top         int
	few, enough int64
	batch       int
	lo, hi      int64 // the star scale
	items       ratingItems
}

// ratingItems is where a ratings run's ratings, its truth and its plans
// come from.
type ratingItems interface {
	// source is the ratings, each a Write of an item's key with its
	// stars as Delta.
	source() engine.Source
	// truth is an empty truth for a run.
	truth() *ratingTruth
	// ratings is the ratings the stream holds, once it is fed whole
	// (events: what was fed).
	ratings(events int64) int64
	// expected is the truth's plan, from the stream's laws; ok false
	// without one.
	expected(few, enough int64) (e ratingsExpected, ok bool)
	// hidden is the items' hidden qualities, nil where there are none (a
	// log's items have only their ratings).
	hidden() hiddenQuality
	// finish is called once the stream is fed whole or stopped, before
	// scoring: it returns bad input found in the stream, and may note in
	// rep (and plan again for) what the stream turned out to hold.
	finish(rep *engine.Report, events int64, stopped bool) error
	// names returns the strings of the items of the truth's indices idx
	// for the tables, or nil where an item is its popularity rank.
	names(ctx context.Context, tr *ratingTruth, idx []int) (map[int]string, error)
}

// hiddenQuality is the items' hidden qualities (their mean stars) by the
// truth's index, and the law they are drawn from.
type hiddenQuality interface {
	quality(i int) float64
	law() scenarios.Quality
}

// ratingsGen is the generator's ratings: items by popularity rank, each
// with its hidden quality; the truth's index of an item is its rank − 1.
type ratingsGen struct {
	spec *scenarios.Ratings
	src  *workload.Ratings
}

func (g ratingsGen) source() engine.Source { return g.src }
func (g ratingsGen) truth() *ratingTruth {
	lo, hi := g.spec.Stream.ScaleRange()
	return newRatingTruth(g.src, int(g.spec.Stream.Items), lo, hi)
}
func (g ratingsGen) ratings(int64) int64   { return g.spec.Stream.Ratings }
func (g ratingsGen) hidden() hiddenQuality { return g }
func (g ratingsGen) quality(i int) float64 { return g.src.Quality(uint64(i + 1)) }
func (g ratingsGen) law() scenarios.Quality {
	return g.spec.Stream.Quality
}
func (g ratingsGen) finish(*engine.Report, int64, bool) error { return nil }
func (g ratingsGen) names(context.Context, *ratingTruth, []int) (map[int]string, error) {
	return nil, nil
}

// ratingsSpec is the synthetic ratings run's kind: its spec, for describe
// and memory, beside the runner it shares with a log's.
type ratingsSpec struct {
	*ratingsKind
	spec *scenarios.Ratings
	src  *workload.Ratings
}

func init() { engine.DefineKind("ratings", newRatingsKind) }

func newRatingsKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Ratings)
	r := spec.Stream
	lo, hi := r.ScaleRange()
	src, err := workload.NewRatings(ratingsConfig(h.Scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(r.Pos, "ratings: %v", err)
	}
	h.Lineup.Env.Keys = min(r.Items, uint64(r.Ratings))
	h.Lineup.Env.Events = r.Ratings
	k := &ratingsKind{lineup: h.Lineup, feeder: h.Feeder, rows: h.Rows, top: spec.Top, few: spec.Few, enough: spec.Enough,
		batch: spec.Batch, lo: lo, hi: hi, items: ratingsGen{spec, src}}
	return &ratingsSpec{ratingsKind: k, spec: spec, src: src}, nil
}

// ratingsConfig is the generator's config of a ratings spec, for the run
// and its sampler (log_ratings.go).
func ratingsConfig(seed uint64, spec *scenarios.Ratings) workload.RatingsConfig {
	r := spec.Stream
	lo, hi := r.ScaleRange()
	return workload.RatingsConfig{
		Seed: seed, Label: ratingsLabel, Ratings: r.Ratings, Items: r.Items, S: r.S, Scramble: true,
		ScaleMin: lo, ScaleMax: hi, QualityMin: r.Quality.Min, QualityMax: r.Quality.Max,
	}
}

func (k *ratingsSpec) Describe() string {
	r := k.spec.Stream
	lo, hi := r.ScaleRange()
	return fmt.Sprintf("Ratings: %s ratings of %s items (Zipf s = %g), %d..%d stars, hidden qualities uniform on [%g, %g]; top %d, thin below %d ratings, the true-quality top among items rated %d times or more.",
		metrics.Format(float64(r.Ratings)), metrics.Format(float64(r.Items)), r.S, lo, hi, r.Quality.Min, r.Quality.Max,
		k.spec.Top, k.spec.Few, k.spec.Enough)
}

func (k *ratingsKind) Accepts(t *strategies.Type) error {
	return engine.OnlyFamily(t, strategies.FamilyRating, "rank rated items", "ratings")
}

// Memory: the truth's arrays by rank (ratingTruthBytes).
func (k *ratingsSpec) Memory() (int64, int64) {
	return ratingTruthBytes(k.lo, k.hi) * int64(k.spec.Stream.Items), 1
}

func (k *ratingsKind) Reports(d *engine.Design) []metrics.Metric {
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
func (g ratingsGen) expected(few, enough int64) (e ratingsExpected, ok bool) {
	r := g.spec.Stream
	terms := max(few, enough, 2)
	if float64(r.Items)*float64(terms) > maxPlanWork {
		return e, false
	}
	n := float64(r.Ratings)
	for rank := uint64(1); rank <= r.Items; rank++ {
		p := g.src.Prob(rank)
		five := g.src.UpProb(g.src.Quality(rank), 5)
		if p >= 1 { // one item: X = N
			e.rated++
			e.few += b2f(r.Ratings < few)
			e.enough += b2f(r.Ratings >= enough)
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
			if j+1 == few {
				ltFew = cdf
			}
			if j+1 == enough {
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

// Plan is the truth's plan rows: what the stream should hold.
func (k *ratingsKind) Plan() []metrics.Result {
	e, ok := k.items.expected(k.few, k.enough)
	if !ok {
		return nil
	}
	row := func(m metrics.Metric, v float64, unit, note string) metrics.Result {
		return k.rows.Plan(strategies.PlanLine{Metric: m, Value: math.Round(v), Unit: unit, Note: note})
	}
	return []metrics.Result{
		row(metrics.DistinctKeys, e.rated, "items", "Σ P(X_r ≥ 1), X_r ~ Binomial(N, P(r))"),
		row(metrics.ItemsFewRatings, e.few, "items", fmt.Sprintf("Σ P(1 ≤ X_r < %d)", k.few)),
		row(metrics.ItemsEnough, e.enough, "items", fmt.Sprintf("Σ P(X_r ≥ %d)", k.enough)),
		row(metrics.OneFiveStarItems, e.onceTop, "items", "Σ P(X_r = 1)·P(5 stars | q_r)"),
	}
}

func (k *ratingsKind) Run(ctx context.Context) (*engine.Report, error) {
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := k.items.truth()
	r := &engine.Run{Truth: tr}
	if err := k.lineup.Build(r, k.lineup.SameEnv); err != nil {
		return nil, err
	}
	events, err := k.feeder.Feed(ctx, r, k.items.source(), k.batch)
	rep := &engine.Report{Partial: err != nil}
	if ferr := k.items.finish(rep, events, rep.Partial); ferr != nil {
		return nil, ferr // bad input: nothing is reported
	}
	if rep.Partial { // every design's plan for the ratings fed
		k.lineup.Replan(rep, engine.Fed{Events: events, Of: float64(k.items.ratings(events)), Writes: float64(events)})
	}
	k.score(sctx, rep, r, tr, events)
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// ratingsTop is one design's top K with what the truth knows of it.
type ratingsTop struct {
	items   []strategies.Rated
	idx     []int   // the truth's index of each item
	few     int     // items rated fewer than Few times
	ratings float64 // mean ratings
	quality float64 // mean hidden quality
	keys    []uint64
}

// upVoter is a design that counts up votes (the Wilson bound): its
// threshold, for the tables' up votes.
type upVoter interface{ UpStars() int64 }

// score adds the truth's rows, then every design's: its memory and speed,
// how thinly rated its top K is, its overlap with the others' and with the
// true-quality top K, its precision at K, its score of an item rated once
// with 5 stars; then a table of each top K and bars of the shares. Items
// without hidden qualities (a log's) have no true-quality top K, no
// precision at K and no mean quality: the true top is then the true mean
// stars' among the items rated Enough times, and a note says so. Reading
// the truth stops when ctx ends (every stopEvery items, and in the sort):
// every row but the events' and the designs' memory and speed is then
// left out, and rep says so.
func (k *ratingsKind) score(ctx context.Context, rep *engine.Report, r *engine.Run, tr *ratingTruth, events int64) {
	designs := k.lineup.Members
	K := k.top
	hidden := k.items.hidden()
	complete := !rep.Partial && events == k.items.ratings(events)
	var exp ratingsExpected
	planned := false
	if complete {
		exp, planned = k.items.expected(k.few, k.enough)
	}
	plan := func(v float64) *float64 {
		if !planned {
			return nil
		}
		return metrics.PlanOf(math.Round(v))
	}
	// The truth's own rows, and the items it picks out: the true-quality
	// (or true-mean) top K among the items rated Enough times, and the
	// first item (by popularity, or as first rated) rated exactly once,
	// with 5 stars.
	var rated, few, enough, onceTop int64
	once := -1
	var eligible []int // indices rated enough
	start := len(rep.Results)
	cut := func() {
		rep.Cut("the truth's items and every design's top K against them")
		k.rows.Truth(rep, metrics.Events, float64(events), "ratings", nil, "every rating fed")
		for i, built := range r.Designs {
			s := k.rows.Scorer(rep, designs[i])
			s.Memory(built, "measured from the design's arrays")
			s.Finish()
		}
	}
	for i, n := range tr.n {
		if engine.Stopped(ctx, i) {
			cut()
			return
		}
		switch {
		case n == 0:
			continue
		case n < k.few:
			few++
		}
		rated++
		if n >= k.enough {
			enough++
			eligible = append(eligible, i)
		}
		if n == 1 && tr.sum[i] == 5 {
			onceTop++
			if once < 0 {
				once = i
			}
		}
	}
	var evPlan *float64
	if complete && planned {
		evPlan = metrics.PlanOf(float64(k.items.ratings(events)))
	}
	of := "items rated"
	if hidden != nil {
		of = fmt.Sprintf("items rated, of %s", metrics.Format(float64(len(tr.n))))
	}
	k.rows.Truth(rep, metrics.Events, float64(events), "ratings", evPlan, "every rating fed")
	k.rows.Truth(rep, metrics.DistinctKeys, float64(rated), "items", plan(exp.rated),
		of+planNote(planned, "; plan Σ P(X_r ≥ 1), X_r ~ Binomial(N, P(r))"))
	k.rows.Truth(rep, metrics.ItemsFewRatings, float64(few), "items", plan(exp.few),
		fmt.Sprintf("items rated 1 to %d times", k.few-1)+planNote(planned, fmt.Sprintf("; plan Σ P(1 ≤ X_r < %d)", k.few)))
	truthTop := "true-quality"
	if hidden == nil {
		truthTop = "true-mean"
	}
	k.rows.Truth(rep, metrics.ItemsEnough, float64(enough), "items", plan(exp.enough),
		fmt.Sprintf("items rated %d times or more, among which the %s top %d is taken", k.enough, truthTop, K)+planNote(planned, fmt.Sprintf("; plan Σ P(X_r ≥ %d)", k.enough)))
	k.rows.Truth(rep, metrics.OneFiveStarItems, float64(onceTop), "items", plan(exp.onceTop),
		"items rated exactly once, with 5 stars"+planNote(planned, "; plan Σ P(X_r = 1)·P(5 stars | q_r)"))

	// The true top: by hidden quality, or by the true mean stars where the
	// items have none; descending, then by index: a total order.
	trueScore := func(i int) float64 { return float64(tr.sum[i]) / float64(tr.n[i]) }
	if hidden != nil {
		trueScore = hidden.quality
	}
	if err := engine.SortStop(ctx, eligible, func(a, b int) int {
		qa, qb := trueScore(a), trueScore(b)
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
	for _, i := range eligible[:min(K, len(eligible))] {
		qualityTop[tr.keyOf(i)] = true
	}
	var good float64
	var q scenarios.Quality
	if hidden != nil {
		q = hidden.law()
		good = q.Min + (1-bestShare)*(q.Max-q.Min) // the law's top decile
	} else {
		rep.Note(fmt.Sprintf("The log's items have no hidden quality: the truth is each item's ratings and mean stars read from the log. The rows of the hidden quality (top_mean_quality, top_overlap_quality, precision_at_k) are left out; the true-mean top %d is the %d items of highest mean stars among those rated %d times or more.", K, K, k.enough))
	}

	tops := make([]ratingsTop, len(r.Designs))
	ups := map[int64]bool{}
	for i, built := range r.Designs {
		rd := built.(strategies.Rating) // accepts admits rating designs only
		if u, ok := built.(upVoter); ok {
			ups[u.UpStars()] = true
		}
		t := ratingsTop{items: rd.Top(K)}
		for _, it := range t.items {
			j := tr.indexOf(it.Key)
			t.idx = append(t.idx, j)
			t.keys = append(t.keys, it.Key)
			if it.Ratings < k.few {
				t.few++
			}
			t.ratings += float64(it.Ratings)
			if hidden != nil {
				t.quality += hidden.quality(j)
			}
		}
		if len(t.items) > 0 {
			t.ratings /= float64(len(t.items))
			t.quality /= float64(len(t.items))
		}
		tops[i] = t
	}
	if len(ups) == 0 { // the Wilson bound's default threshold, on the scale
		ups[min(max(4, k.lo+1), k.hi)] = true
	}
	var names map[int]string
	if complete {
		var idx []int
		for _, t := range tops {
			idx = append(idx, t.idx...)
		}
		idx = append(idx, eligible[:min(K, len(eligible))]...)
		if once >= 0 {
			idx = append(idx, once)
		}
		var err error
		if names, err = k.items.names(ctx, tr, idx); err != nil {
			rep.Cut("the items' strings in the tables")
			names = nil
		}
	}
	name := func(i int) string {
		if s, ok := names[i]; ok {
			return s
		}
		if hidden != nil {
			return fmt.Sprintf("#%d by popularity", i+1)
		}
		return fmt.Sprintf("#%d (as first rated)", i+1)
	}
	tables := ratingsTables{k: k, tr: tr, hidden: hidden, ups: slices.Sorted(maps.Keys(ups)), names: names}

	fewBars := metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Name: "top-thin", Kind: metrics.Bars,
		Title:  fmt.Sprintf("share of each design's top %d rated fewer than %d times", K, k.few),
		XLabel: "design", YLabel: "share of the top " + fmt.Sprint(K)}
	precBars := metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Name: "precision-at-k", Kind: metrics.Bars,
		Title:  fmt.Sprintf("precision at %d, the share of each design's top %d among the best 10%% by hidden quality", K, K),
		XLabel: "design", YLabel: "precision at " + fmt.Sprint(K)}
	for i, built := range r.Designs {
		d := designs[i]
		s := k.rows.Scorer(rep, d)
		t := tops[i]
		s.Memory(built, "measured from the design's arrays")
		if events > 0 && r.Elapsed[i] > 0 {
			s.Timing(metrics.NsPerEvent, engine.Round(float64(r.Elapsed[i])/float64(events), 2), "ns", engine.LaneClockNote)
		}
		if len(t.items) > 0 {
			n := float64(len(t.items))
			var counts []string
			for _, it := range t.items {
				counts = append(counts, fmt.Sprint(it.Ratings))
			}
			s.Add(metrics.TopFewShare, engine.Round(float64(t.few)/n, 4), "share",
				nil, fmt.Sprintf("%d of its top %d rated fewer than %d times; their ratings: %s", t.few, len(t.items), k.few, strings.Join(counts, ", ")))
			s.Add(metrics.TopMeanRatings, engine.Round(t.ratings, 2), "ratings", nil, fmt.Sprintf("mean ratings of its top %d", len(t.items)))
			if hidden != nil {
				s.Add(metrics.TopMeanQuality, engine.Round(t.quality, 4), "stars", nil,
					fmt.Sprintf("mean hidden quality of its top %d; qualities uniform on [%g, %g]", len(t.items), q.Min, q.Max))
			}
			for j, o := range tops {
				if j == i {
					continue
				}
				shared := overlap(t.keys, o.keys)
				s.Add(metrics.TopOverlap, engine.Round(float64(shared)/n, 4), "share", nil,
					fmt.Sprintf("with %s: %d of its top %d are in %s's top %d", designs[j].Name(), shared, len(t.items), designs[j].Name(), len(o.items)))
			}
			if hidden != nil {
				var inQuality, isGood int
				for j, key := range t.keys {
					if qualityTop[key] {
						inQuality++
					}
					if hidden.quality(t.idx[j]) >= good {
						isGood++
					}
				}
				s.Add(metrics.TopOverlapQuality, engine.Round(float64(inQuality)/n, 4), "share", nil,
					fmt.Sprintf("%d of its top %d are in the true-quality top %d: the %d items of highest hidden quality among the %s rated %d times or more",
						inQuality, len(t.items), K, min(K, len(eligible)), metrics.Format(float64(len(eligible))), k.enough))
				s.Add(metrics.PrecisionAtK, engine.Round(float64(isGood)/n, 4), "share", nil,
					fmt.Sprintf("%d of its top %d have a hidden quality of %.4g or more: the best 10%% of the quality law", isGood, len(t.items), good))
				precBars.Labels, precBars.Y = append(precBars.Labels, d.Name()), append(precBars.Y, float64(isGood)/n)
			}
			fewBars.Labels, fewBars.Y = append(fewBars.Labels, d.Name()), append(fewBars.Y, float64(t.few)/n)
		}
		if once >= 0 {
			score, n := built.(strategies.Rating).Score(tr.keyOf(once))
			s.Add(metrics.OneFiveStar, score, planUnit(d, metrics.OneFiveStar), s.Plan(metrics.OneFiveStar),
				fmt.Sprintf("measured: the design's own score of item %s, rated %s, 5 stars: %.2f to two places", name(once), engine.Count(float64(n), "time"), score))
		}
		rep.Tables = append(rep.Tables, tables.of(d.Name(), t))
		s.Finish()
	}
	if len(eligible) > 0 {
		t := ratingsTop{}
		for _, i := range eligible[:min(K, len(eligible))] {
			t.idx = append(t.idx, i)
			t.items = append(t.items, strategies.Rated{Key: tr.keyOf(i), Score: trueScore(i), Ratings: tr.n[i]})
		}
		rep.Tables = append(rep.Tables, tables.of(truthTop, t))
	}
	if len(fewBars.Labels) > 0 {
		rep.Series = append(rep.Series, fewBars)
	}
	if len(precBars.Labels) > 0 {
		rep.Series = append(rep.Series, precBars)
	}
}

// planNote is note where the truth has a plan, else "".
func planNote(planned bool, note string) string {
	if planned {
		return note
	}
	return ""
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

// planUnit is the unit of the design's simulated-scale plan line for m:
// a score in stars or a share, as the design says.
func planUnit(d engine.Design, m metrics.Metric) string {
	for _, l := range d.Plan {
		if l.Metric == m && !l.Full {
			return l.Unit
		}
	}
	return ""
}
