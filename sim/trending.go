package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
	"slices"
)

// The trending run (issue 12): phrases over simulated time with planted
// bursts. At every checkpoint each design is asked for its top K of "now"
// (between its last event before the checkpoint and its first after it),
// and the truth works out the exact top K of the same law — a sliding
// window's count or an exponentially decayed count — from every event
// before it. Scored: the recall of "now" and the share of the answer not
// in the true top K (false trending), averaged over the checkpoints; for
// each planted phrase, the time from its start to its first checkpoint in
// the design's top K (the detection latency) beside the same for the exact
// score; memory and speed. A chart for each plant draws its exact score
// over time under each law, with the moment each design took it in.

// trendingKind runs with the designs, a feeder, the rows, and each
// design's cluster where the scenario has one; what it is fed comes from
// the generator or from a log (trendInput).
type trendingKind struct {
	lineup   *engine.Lineup
	feeder   engine.Feeder
	rows     engine.ScoreRows
	clusters engine.Clusters
	in       *trendInput
	k        int     // the top K asked of "now"
	checks   []int64 // the checkpoints, ns: every period up to the stream's end
}

// trendInput is what a trending run is fed and knows of it before the
// run: the generator's stream with its law (newTrendingKind), or a log's
// events with the phrases its scenario watches (log_trending.go). The run
// itself, its truth and its scoring are the same for both.
type trendInput struct {
	src        engine.Source
	events     int64 // the events of the stream
	length     int64 // its span: the checkpoints go up to it
	checkpoint int64
	regions    int
	batch      int
	phrases    []trendPhrase
	// gen is the generator and its spec, whose law plans each phrase's
	// count and score; nil on a log, which has no law.
	gen *trendGen
	// what says the run in a line (describe); series prefixes the name of
	// each phrase's chart.
	what   func(k int) string
	series string
	// after is called once the stream is fed: a log's bad line, as bad
	// input (nil: nothing to check).
	after func() error
	// notes are said in the report (a log's figures, estimated and read).
	notes []string
}

// trendPhrase is a phrase whose rise is timed: a planted phrase of the
// generator, or a phrase a log's scenario watches.
type trendPhrase struct {
	name   string
	key    uint64
	start  int64 // when its rise begins: its latencies count from it
	region int   // the one region it rises in, −1 every region
}

// trendGen is the generator of a trending stream and the spec it is drawn
// from.
type trendGen struct {
	spec *scenarios.TrendStream
	src  *workload.Trending
}

func init() { engine.DefineKind("trending", newTrendingKind) }

// trendConfig is the generator's config of a trending stream.
func trendConfig(seed uint64, s *scenarios.TrendStream) workload.TrendConfig {
	cfg := workload.TrendConfig{Seed: seed, Label: streamLabel, Rate: s.Rate, Duration: s.Length, Keys: s.Keys,
		S: s.Exponent(), Scramble: s.Scramble, Regions: s.Regions}
	for _, p := range s.Plants {
		cfg.Plants = append(cfg.Plants, workload.Plant{Rank: p.Rank, Start: p.Start, End: p.End, From: p.Share, To: p.To, Region: plantRegion(p)})
	}
	return cfg
}

// plantRegion is a plant's one region, −1 for every region.
func plantRegion(p scenarios.TrendPlant) int {
	if p.AllRegions {
		return -1
	}
	return p.Region
}

func newTrendingKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Trending)
	s := &spec.Stream
	src, err := workload.NewTrending(trendConfig(h.Scn.Seed, s))
	if err != nil {
		return nil, scenarios.Errorf(s.Pos, "workload.trending: %v", err)
	}
	in := &trendInput{src: src, events: src.Events(), length: s.Length, checkpoint: s.Checkpoint, regions: s.Regions, batch: spec.Batch,
		gen: &trendGen{spec: s, src: src}, series: "plant-"}
	for _, p := range s.Plants {
		in.phrases = append(in.phrases, trendPhrase{name: p.Name, key: src.KeyOf(p.Rank), start: p.Start, region: plantRegion(p)})
	}
	in.what = func(k int) string {
		return fmt.Sprintf("Trending: %s events over %s (%s a second, %s phrases, Zipf s = %g, %s), %d planted, the top %d of now asked every %s.",
			metrics.Format(float64(src.Events())), durationOf(s.Length), metrics.Format(s.Rate), metrics.Format(float64(s.Keys)), s.Exponent(),
			engine.Count(float64(s.Regions), "region"), len(s.Plants), k, durationOf(s.Checkpoint))
	}
	return newTrendRunner(h, in, min(s.Keys, uint64(src.Events())))
}

// newTrendRunner sizes the designs' env for in (keys: the phrases they
// are sized for) and returns the run of it.
func newTrendRunner(h *engine.Harness, in *trendInput, keys uint64) (*trendingKind, error) {
	k := h.Scn.Questions.Top
	if k <= 0 {
		k = 10
	}
	env := &h.Lineup.Env
	env.Keys = keys
	env.Events = in.events
	env.Duration = in.length
	env.Top = k
	env.Nodes = in.regions // an event's actor is its region
	cl, err := h.Clusters()
	if err != nil {
		return nil, err
	}
	var checks []int64
	for c := in.checkpoint; c <= in.length; c += in.checkpoint {
		checks = append(checks, c)
	}
	return &trendingKind{lineup: h.Lineup, feeder: h.Feeder, rows: h.Rows, clusters: cl, in: in, k: k, checks: checks}, nil
}

func (k *trendingKind) Describe() string { return k.in.what(k.k) }

// durationOf writes ns as minutes or seconds for a sentence.
func durationOf(ns int64) string {
	if ns%60e9 == 0 {
		return fmt.Sprintf("%d min", ns/60e9)
	}
	return fmt.Sprintf("%g s", float64(ns)/1e9)
}

func (k *trendingKind) Accepts(t *strategies.Type) error {
	if t.Answers(strategies.FamilyWindowDistinct) {
		return nil
	}
	return engine.OnlyFamily(t, strategies.FamilyTrending, "answer the top K of now (or count a window's distinct ids)", "a trending run")
}

// Memory: each law's exact state — a window holds each key once a bucket
// and once in its totals, a decay once — and every answer kept.
func (k *trendingKind) Memory() (int64, int64) {
	keys, n := int64(k.lineup.Env.Keys), int64(len(k.lineup.Members))
	held := 2 * keys * truthBytesPerKey * max(1, n)
	held += int64(len(k.checks)) * int64(k.k) * 24 * (n + 1)
	if c := k.clusters.Cfg; c != nil { // each design's cluster: a key-second at most an event, and the node-seconds
		secs := k.in.length/1e9 + 1
		held += n * (min(k.in.events, secs*(1<<16))*12 + secs*8*int64(c.Nodes))
	}
	return held, 1
}

// Plan: each plant's expected count over the stream — its share of the
// events over its interval (a regional plant's of its region's), and its
// phrase's background traffic. A log has no law: no plan.
func (k *trendingKind) Plan() []metrics.Result {
	if k.in.gen == nil {
		return nil
	}
	var rows []metrics.Result
	for p := range k.in.phrases {
		rows = append(rows, k.rows.Plan(strategies.PlanLine{Metric: metrics.PlantedCount,
			Value: math.Round(k.in.gen.plantExpected(p)), Unit: "events", Note: k.in.gen.plantNote(p)}))
	}
	return rows
}

// plantExpected is plant p's expected count over the stream: rate ×
// ∫ share dt over its interval (÷ regions for one region's), plus the rest
// of the events × the background probability of its rank.
func (g *trendGen) plantExpected(p int) float64 {
	s := g.spec
	pl := s.Plants[p]
	secs := float64(pl.End-pl.Start) / 1e9
	planted := s.Rate * secs * (pl.Share + pl.To) / 2
	if !pl.AllRegions {
		planted /= float64(s.Regions)
	}
	return planted + (float64(g.src.Events())-planted)*g.src.Prob(pl.Rank)
}

func (g *trendGen) plantNote(p int) string {
	pl := g.spec.Plants[p]
	return fmt.Sprintf("%s: rate × its mean share (%g to %g) over %s of the stream, and its rank %d's background traffic", pl.Name, pl.Share, pl.To, durationOf(pl.End-pl.Start), pl.Rank)
}

// plantDecayed is plant p's expected decayed score at now under half-life
// h (ns): its planted events, rate × share(t) (÷ regions for one
// region's), each weighted 2^(−(now − t)/h), integrated over its interval
// up to now (the midpoint rule on 4,096 steps: the share is linear and
// the weight smooth, so the sum is within 10^−7 of the integral), and its
// rank's background traffic likewise over the whole stream up to now.
func (g *trendGen) plantDecayed(p int, h, now int64) float64 {
	s := g.spec
	pl := s.Plants[p]
	secs, hs := float64(now)/1e9, float64(h)/1e9
	weight := func(t float64) float64 { return math.Exp2(-(secs - t) / hs) }
	var planted float64
	if end := min(float64(pl.End)/1e9, secs); end > float64(pl.Start)/1e9 {
		a, b := float64(pl.Start)/1e9, end
		const steps = 4096
		dt := (b - a) / steps
		span := float64(pl.End-pl.Start) / 1e9
		for i := range steps {
			t := a + (float64(i)+0.5)*dt
			share := pl.Share + (pl.To-pl.Share)*(t-a)/span
			planted += s.Rate * share * weight(t) * dt
		}
		if !pl.AllRegions {
			planted /= float64(s.Regions)
		}
	}
	// All of the stream's events up to now, decayed: rate · h/ln 2 · (1 − 2^(−now/h)).
	all := s.Rate * hs / math.Ln2 * (1 - math.Exp2(-secs/hs))
	return planted + (all-planted)*g.src.Prob(pl.Rank)
}

func (k *trendingKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return []metrics.Metric{metrics.Events, metrics.DistinctKeys, metrics.PlantedCount}
	}
	return []metrics.Metric{metrics.Bytes, metrics.TotalBytes, metrics.HeapBytes, metrics.NsPerEvent, metrics.EventsPerSec,
		metrics.TrendRecall, metrics.FalseTrending, metrics.DetectLatency, metrics.TrueLatency, metrics.DecayedScore, metrics.TrueDecayedScore, metrics.DecayedErrMax,
		metrics.MissedBursts, metrics.RegionDetect, metrics.TrueRegionDetect, metrics.GlobalLagCount,
		metrics.Messages, metrics.ItemsSent, metrics.BytesSent, metrics.NodeBytesMax,
		metrics.DistinctErrMax, metrics.DistinctErrMean,
		metrics.KeysUsed, metrics.MaxKeyOps, metrics.IncrementsPerSec, metrics.MaxNodeOps}
}

func (k *trendingKind) Run(ctx context.Context) (*engine.Report, error) {
	designs := k.lineup.Members
	cr, err := k.clusters.NewRun(ctx, k.lineup, nil, nil)
	if err != nil {
		return nil, err
	}
	r := cr.Run
	// The laws the designs estimate, each once.
	var laws []strategies.TrendLaw
	lawOf := make([]int, len(r.Designs))
	for i, d := range r.Designs {
		var l strategies.TrendLaw
		switch x := d.(type) {
		case strategies.Trending:
			l = x.Law()
		case strategies.WindowDistinct:
			l = x.Law()
		}
		j := slices.Index(laws, l)
		if j < 0 {
			j = len(laws)
			laws = append(laws, l)
		}
		lawOf[i] = j
	}
	var plantKeys []uint64
	for _, p := range k.in.phrases {
		plantKeys = append(plantKeys, p.key)
	}
	tr := engine.NewTrendTruth(laws, k.checks, k.k, plantKeys)
	for _, d := range r.Designs {
		if f, ok := d.(strategies.RegionFlagger); ok && !slices.Contains(tr.Thresholds, f.Threshold()) {
			tr.Thresholds = append(tr.Thresholds, f.Threshold())
		}
	}
	if len(tr.Thresholds) > 0 {
		tr.Crossed = map[[3]int]int64{}
		tr.RegionCount = make([][]int64, len(plantKeys))
		for p := range tr.RegionCount {
			tr.RegionCount[p] = make([]int64, k.in.regions)
		}
	}
	r.Truth = tr
	answers := make([][][]strategies.Trend, len(r.Designs))
	own := make([][][]float64, len(r.Designs)) // [design][checkpoint][plant]: the design's own score of each plant
	r.Ticks, r.NextTick = k.checks, make([]int, len(r.Designs))
	counts := make([][]float64, len(r.Designs)) // a WindowDistinct's estimate at each checkpoint
	r.Tick = func(i int, at int64) {
		if wd, ok := r.Designs[i].(strategies.WindowDistinct); ok {
			counts[i] = append(counts[i], wd.DistinctNow(at-1))
			return
		}
		answers[i] = append(answers[i], r.Designs[i].(strategies.Trending).Trending(k.k, at-1))
		if ts, ok := r.Designs[i].(strategies.TrendScorer); ok {
			scores := make([]float64, len(plantKeys))
			for p, key := range plantKeys {
				scores[p] = ts.TrendScore(key, at-1)
			}
			own[i] = append(own[i], scores)
		}
	}
	events, err := k.feeder.Feed(ctx, r, k.in.src, k.in.batch)
	if k.in.after != nil {
		if bad := k.in.after(); bad != nil {
			return nil, bad // bad input: nothing is reported
		}
	}
	if err == nil { // the checkpoints after the last event
		tr.Finish()
		for i := range r.Designs {
			for ; r.NextTick[i] < len(r.Ticks); r.NextTick[i]++ {
				r.Tick(i, r.Ticks[r.NextTick[i]])
			}
		}
	}
	rep := &engine.Report{Partial: err != nil}
	for _, n := range k.in.notes {
		rep.Note(n)
	}
	if g := k.in.gen; g != nil {
		k.rows.Truth(rep, metrics.Events, float64(events), "events", metrics.PlanOf(float64(k.in.events)), "every event fed")
	} else {
		k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "events read from the log")
	}
	k.rows.Truth(rep, metrics.DistinctKeys, float64(tr.DistinctKeys()), "keys", nil, "phrases seen")
	for p, ph := range k.in.phrases {
		if g := k.in.gen; g != nil {
			k.rows.Truth(rep, metrics.PlantedCount, float64(tr.PlantCount[p]), "events", metrics.PlanOf(math.Round(g.plantExpected(p))), g.plantNote(p))
		} else {
			k.rows.Truth(rep, metrics.PlantedCount, float64(tr.PlantCount[p]), "events", nil, ph.name+": its events in the log")
		}
	}
	if err != nil {
		return rep, err
	}
	k.neverTrending(rep, tr)
	entered := make([][]float64, len(r.Designs)) // [design][plant]: seconds from the plant's start to its first checkpoint in the answer, NaN: never
	for i, built := range r.Designs {
		s := k.rows.Scorer(rep, designs[i])
		s.Memory(built, "measured from the design's arrays")
		s.Speed(r.Elapsed[i], events, engine.LaneClockNote)
		if wd, ok := built.(strategies.WindowDistinct); ok {
			k.Distinct(s, wd, counts[i], &tr.Laws[lawOf[i]])
			entered[i] = make([]float64, len(k.in.phrases))
			for p := range entered[i] {
				entered[i][p] = math.NaN()
			}
			s.Finish()
			continue
		}
		entered[i] = k.judge(s, answers[i], &tr.Laws[lawOf[i]])
		if _, ok := built.(strategies.TrendScorer); ok && len(own[i]) == len(k.checks) {
			k.decayed(s, own[i], &tr.Laws[lawOf[i]])
		}
		if f, ok := built.(strategies.RegionFlagger); ok {
			k.regions(s, f, tr, own[i], &tr.Laws[lawOf[i]])
		}
		if d, ok := built.(strategies.Distributed); ok {
			s.Coordination(d)
		}
		if c := r.Clusters[i]; c != nil {
			k.load(s, c.Stats(k.in.length))
		}
		s.Finish()
	}
	k.plots(rep, tr, own, entered)
	return rep, nil
}

// judge adds a design's rows against the truth of its law and returns, for
// each plant, the seconds to its detection (NaN: never).
func (k *trendingKind) judge(s *engine.Scorer, answers [][]strategies.Trend, truth *engine.TrendLaw) []float64 {
	var recall, falseShare float64
	var n int
	for c, ans := range answers {
		want := truth.Top[c]
		if len(want) < k.k || len(ans) == 0 {
			continue
		}
		in := map[uint64]bool{}
		for _, t := range want {
			in[t.Key] = true
		}
		hits := 0
		for _, t := range ans {
			if in[t.Key] {
				hits++
			}
		}
		recall += float64(hits) / float64(len(want))
		falseShare += float64(len(ans)-hits) / float64(len(ans))
		n++
	}
	if n > 0 {
		s.Add(metrics.TrendRecall, engine.Round(recall/float64(n), 4), "share", nil,
			fmt.Sprintf("the share of the true top %d of now in the answer, mean over %d checkpoints", k.k, n))
		s.Add(metrics.FalseTrending, engine.Round(falseShare/float64(n), 4), "share", nil,
			"the share of the answer not in the true top K of now (false trending), mean over the checkpoints")
	}
	detected := make([]float64, len(k.in.phrases))
	missed := 0
	for p, plant := range k.in.phrases {
		key := plant.key
		detected[p] = k.latency(plant.start, func(c int) bool { return holds(answers[c], key) })
		trueAt := k.latency(plant.start, func(c int) bool { return holds(truth.Top[c], key) })
		if math.IsNaN(detected[p]) {
			missed++
		} else {
			s.Add(metrics.DetectLatency, detected[p], "s", nil,
				fmt.Sprintf("%s: from its start at %s to its first checkpoint in the answer's top %d", plant.name, durationOf(plant.start), k.k))
		}
		if !math.IsNaN(trueAt) {
			s.Add(metrics.TrueLatency, trueAt, "s", nil,
				fmt.Sprintf("%s: the same for the exact score of the design's law", plant.name))
		}
	}
	if len(k.in.phrases) > 0 {
		s.Add(metrics.MissedBursts, float64(missed), "plants", nil, "planted phrases never in the answer's top K at a checkpoint from their start")
	}
	return detected
}

// neverTrending says in the report each phrase that the exact score of a
// law never puts in its top K of now from its start: no design can be
// late for it, and none that takes it in is right to.
func (k *trendingKind) neverTrending(rep *engine.Report, tr *engine.TrendTruth) {
	for j := range tr.Laws {
		l := &tr.Laws[j]
		for _, ph := range k.in.phrases {
			if math.IsNaN(k.latency(ph.start, func(c int) bool { return holds(l.Top[c], ph.key) })) {
				rep.Note(fmt.Sprintf("%s never entered the exact top %d of now from its start at %s (law: %s): no latency of it is measured under that law.",
					ph.name, k.k, durationOf(ph.start), lawName(l.Law)))
			}
		}
	}
}

// decayed adds, for a design of a decay law that scores any phrase, each
// phrase's decayed score at the last checkpoint — the design's own and
// the exact one, worked out by the truth from the events — beside the
// score the generator's law plans for it (none on a log): the seed's
// decay example (A, 1,000 searches an hour ago, 250; B, 300 a minute ago,
// 293.1) measured on the phrases of the run.
func (k *trendingKind) decayed(s *engine.Scorer, own [][]float64, truth *engine.TrendLaw) {
	h := truth.Law.HalfLife
	if h <= 0 || len(k.checks) == 0 {
		return
	}
	c := len(k.checks) - 1
	at := durationOf(k.checks[c])
	worst, n := 0.0, 0
	for p, ph := range k.in.phrases {
		if exact := truth.Plants[c][p]; exact > 0 {
			worst, n = max(worst, math.Abs(own[c][p]/exact-1)), n+1
		}
		var plan *float64
		if g := k.in.gen; g != nil {
			plan = metrics.PlanOf(engine.Round(g.plantDecayed(p, h, k.checks[c]-1), 1))
		}
		s.Add(metrics.DecayedScore, engine.Round(own[c][p], 4), "score", plan,
			fmt.Sprintf("%s: the design's decayed score at the last checkpoint, %s (half-life %s)", ph.name, at, durationOf(h)))
		s.Add(metrics.TrueDecayedScore, engine.Round(truth.Plants[c][p], 4), "score", plan,
			fmt.Sprintf("%s: its exact decayed score then, Σ Delta · 2^(−age/h) over its events", ph.name))
	}
	if n > 0 {
		s.Add(metrics.DecayedErrMax, engine.Round(worst, 9), "share", nil,
			fmt.Sprintf("the most |the design's / the exact − 1| of the decayed scores above, over %s", engine.Count(float64(n), "phrase")))
	}
}

// Distinct adds a window-distinct design's error against the exact count
// of the window's distinct ids at every checkpoint.
func (k *trendingKind) Distinct(s *engine.Scorer, wd strategies.WindowDistinct, got []float64, truth *engine.TrendLaw) {
	want := truth.DistinctKeys
	if wd.Ids() == "actor" {
		want = truth.DistinctActors
	}
	var most, sum float64
	n := 0
	for c := range got {
		if c >= len(want) || want[c] == 0 {
			continue
		}
		e := math.Abs(got[c]/want[c] - 1)
		most, sum = max(most, e), sum+e
		n++
	}
	if n == 0 {
		return
	}
	s.Add(metrics.DistinctErrMax, engine.Round(most, 6), "share", nil,
		fmt.Sprintf("the largest |estimate / exact − 1| of the window's distinct %ss over %d checkpoints", wd.Ids(), n))
	s.Add(metrics.DistinctErrMean, engine.Round(sum/float64(n), 6), "share", nil,
		"the mean |estimate / exact − 1|: about 0.8 × the standard error 1.04/√m for a sketch as planned")
}

// regions adds what a design that flags hashtags by region showed: for
// each plant, the time from its start to its flag in its region (the first
// region for a plant in every region) beside the same for its true
// regional count, and the most a plant's global count fell short of the
// truth at a checkpoint.
func (k *trendingKind) regions(s *engine.Scorer, f strategies.RegionFlagger, tr *engine.TrendTruth, own [][]float64, truth *engine.TrendLaw) {
	th := slices.Index(tr.Thresholds, f.Threshold())
	flags := f.Flags()
	for p, plant := range k.in.phrases {
		all := plant.region < 0
		first, trueFirst := int64(-1), int64(-1)
		for _, fl := range flags {
			if fl.Key == plant.key && (all || fl.Region == plant.region) && (first < 0 || fl.At < first) {
				first = fl.At
			}
		}
		for g := range k.in.regions {
			if at, ok := tr.Crossed[[3]int{th, p, g}]; ok && (all || g == plant.region) && (trueFirst < 0 || at < trueFirst) {
				trueFirst = at
			}
		}
		where := "its region"
		if all {
			where = "the first region"
		}
		if first >= 0 {
			s.Add(metrics.RegionDetect, float64(max(0, first-plant.start))/1e9, "s", nil,
				fmt.Sprintf("%s: from its start to its flag in %s, at %s", plant.name, where, metrics.Format(float64(f.Threshold()))))
		}
		if trueFirst >= 0 {
			s.Add(metrics.TrueRegionDetect, float64(max(0, trueFirst-plant.start))/1e9, "s", nil,
				fmt.Sprintf("%s: to its true count in %s reaching %s", plant.name, where, metrics.Format(float64(f.Threshold()))))
		}
	}
	var lag float64
	for c := range own {
		for p := range own[c] {
			lag = max(lag, truth.Plants[c][p]-own[c][p])
		}
	}
	s.Add(metrics.GlobalLagCount, lag, "events", nil, "the most a plant's global count fell short of its true count at a checkpoint: what the last period had not yet sent")
}

// load adds what a design on the store put on its cluster over the stream.
func (k *trendingKind) load(s *engine.Scorer, c cluster.Stats) {
	if c.Keys == 0 {
		return
	}
	s.Add(metrics.KeysUsed, float64(c.Keys), "keys", nil, "store keys the design wrote")
	s.Add(metrics.MaxKeyOps, c.KeyWrites.Max, "ops/s", nil, "increments on the busiest key in its busiest second")
	s.Add(metrics.IncrementsPerSec, engine.Round(float64(c.Writes)/c.Duration, 1), "ops/s", nil, "store increments a second, all keys, mean over the stream")
	s.Add(metrics.MaxNodeOps, c.NodeOps.Max, "ops/s", nil, "busiest node-second of "+engine.Count(float64(c.Nodes), "node"))
}

// latency is the seconds from start to the first checkpoint at or after it
// where in(c) holds, NaN if none does.
func (k *trendingKind) latency(start int64, in func(c int) bool) float64 {
	for c, at := range k.checks {
		if at >= start && in(c) {
			return float64(at-start) / 1e9
		}
	}
	return math.NaN()
}

func holds(ts []strategies.Trend, key uint64) bool {
	for _, t := range ts {
		if t.Key == key {
			return true
		}
	}
	return false
}

// plots draws, for each plant, its score over time under each design (its
// own estimate, where the design gives one) and the exact score of each
// law, with the checkpoint at which each design took it into its top K.
func (k *trendingKind) plots(rep *engine.Report, tr *engine.TrendTruth, own [][][]float64, entered [][]float64) {
	designs := k.lineup.Members
	xs := make([]float64, len(k.checks))
	for c, at := range k.checks {
		xs[c] = float64(at) / 60e9
	}
	for p, plant := range k.in.phrases {
		// Each design's mark rides on its own curve, so that it takes the
		// curve's colour (a mark only one series carries does); a design
		// without a curve's mark rides on the first.
		marks := make([]metrics.Mark, len(entered))
		for i := range entered {
			if !math.IsNaN(entered[i][p]) {
				marks[i] = metrics.Mark{Label: designs[i].Name() + " takes it in", Value: (float64(plant.start)/1e9 + entered[i][p]) / 60, Axis: "x"}
			}
		}
		var orphans []metrics.Mark
		series := func(who string, ys []float64) metrics.Series {
			return metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Strategy: who, Name: k.in.series + plant.name, Kind: metrics.Curve,
				Title:  fmt.Sprintf("%s's score over time under each design; when each took it into its top %d", plant.name, k.k),
				XLabel: "simulated minute", YLabel: "score", X: xs[:len(ys)], Y: ys}
		}
		first := len(rep.Series)
		for i := range own {
			if len(own[i]) == 0 {
				if i < len(marks) && marks[i].Label != "" {
					orphans = append(orphans, marks[i])
				}
				continue
			}
			ys := make([]float64, len(own[i]))
			for c := range own[i] {
				ys[c] = own[i][c][p]
			}
			s := series(designs[i].Name(), ys)
			if i < len(marks) && marks[i].Label != "" {
				s.Marks = []metrics.Mark{marks[i]}
			}
			rep.Series = append(rep.Series, s)
		}
		for j := range tr.Laws {
			l := &tr.Laws[j]
			ys := make([]float64, len(l.Plants))
			for c := range l.Plants {
				ys[c] = l.Plants[c][p]
			}
			rep.Series = append(rep.Series, series("exact, "+lawName(l.Law), ys))
		}
		if len(rep.Series) > first {
			rep.Series[first].Marks = append(rep.Series[first].Marks, orphans...)
		}
	}
}

// lawName says a law in a few words.
func lawName(l strategies.TrendLaw) string {
	if l.Window > 0 {
		return fmt.Sprintf("%s window of %s buckets", durationOf(l.Window), durationOf(l.Bucket))
	}
	return fmt.Sprintf("half-life %s", durationOf(l.HalfLife))
}
