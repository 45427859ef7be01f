package sim

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

// audienceLabel names the audience's stream in the chunk seeds.
const audienceLabel = "audience"

func newAudience(scn *scenarios.Scenario) (*workload.Audience, error) {
	au := scn.Workload.Audience
	cfg := workload.AudienceConfig{Seed: scn.Seed, Label: audienceLabel,
		Views: workload.Views{Fixed: au.Views, ZipfS: au.ViewsS, ZipfMax: uint64(au.ViewsMax)}}
	for _, d := range au.Days {
		cfg.Days = append(cfg.Days, workload.Day{Viewers: d.Viewers, Overlap: d.Overlap})
	}
	return workload.NewAudience(cfg)
}

// daySource is one day of an audience as a chunked stream.
type daySource struct {
	a   *workload.Audience
	day int
}

func (d daySource) Chunks() int { return d.a.Chunks(d.day) }
func (d daySource) Chunk(i int, buf []workload.Event) []workload.Event {
	return d.a.Chunk(d.day, i, buf)
}

// runAudience builds every design afresh for each day and feeds it that
// day's views; then it asks each design the distinct count of every day,
// the union of the days by merge, and the naive sum of the days' counts,
// against the audience's exact sizes.
func (st *Setup) runAudience(ctx context.Context) (*Report, error) {
	a := st.audience
	n := len(st.designs)
	perDay := make([][]strategies.Distinct, n)
	elapsed := make([]int64, n)
	var events int64
	for day := range a.Days() {
		r := &run{designs: make([]strategies.Strategy, n), clusters: make([]*Cluster, n), elapsed: make([]int64, n)}
		for i, d := range st.designs {
			s, err := d.typ.Build(d.params, st.env)
			if err != nil {
				return nil, scenarios.Errorf(d.spec.Pos, "strategies[%d] %s: %v", i, d.spec.Name, err)
			}
			dc, ok := s.(strategies.Distinct)
			if !ok {
				return nil, scenarios.Errorf(d.spec.Pos, "strategies[%d] %s: a %s does not count distinct ids; an audience takes hll or exact-distinct", i, d.spec.Name, d.spec.Type)
			}
			r.designs[i] = s
			perDay[i] = append(perDay[i], dc)
		}
		fed, err := st.feed(ctx, r, daySource{a, day})
		events += fed
		for i := range elapsed {
			elapsed[i] += r.elapsed[i]
		}
		if err != nil {
			for i := range perDay { // the day cut short is not scored against the whole day's truth
				perDay[i] = perDay[i][:day]
			}
			rep := st.scoreAudience(perDay, elapsed, events)
			rep.Partial = true
			return rep, err
		}
	}
	return st.scoreAudience(perDay, elapsed, events), nil
}

func (st *Setup) scoreAudience(perDay [][]strategies.Distinct, elapsed []int64, events int64) *Report {
	rep := &Report{}
	scn := st.Scenario
	a := st.audience
	add := func(strategy, metric string, v float64, unit string, plan *float64, note string) {
		rep.Results = append(rep.Results, metrics.Result{Scenario: scn.Name, Strategy: strategy, Metric: metric,
			Value: v, Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
	}
	days := len(perDay[0])
	all := make([]int, days)
	for d := range all {
		all[d] = d
	}
	union := float64(a.Union(all...))
	complete := days == a.Days()
	add(st.truthName(), "events", float64(events), "events", nil, "views fed")
	for d := range days {
		add(st.truthName(), "distinct", float64(a.Distinct(d)), "viewers", nil, fmt.Sprintf("day %d, exact", d+1))
	}
	if complete {
		add(st.truthName(), "distinct", union, "viewers", nil, "all days, exact union")
	}

	for i, sketches := range perDay {
		d := st.designs[i]
		name := d.spec.Name
		plan := d.planned
		var bytes int64
		for _, s := range sketches {
			bytes = max(bytes, s.Bytes())
		}
		measured := map[string]bool{"bytes": true}
		add(name, "bytes", float64(bytes), "B", plan("bytes"), "the largest day's, measured from the design's arrays")
		if events > 0 && elapsed[i] > 0 {
			add(name, "ns_per_event", round(float64(elapsed[i])/float64(events), 2), "ns", nil, "Observe, wall clock on this machine")
			rep.Results[len(rep.Results)-1].Timing = true
		}
		stdErr := plan("standard_error") // in %
		estimate := func(est, truth float64, note string) {
			add(name, "distinct", round(est, 1), "viewers", metrics.PlanOf(truth), note+"; plan: the exact count")
			if truth == 0 {
				return // no relative error of nothing
			}
			var errPlan *float64 // the standard error, in viewers of this count
			if stdErr != nil {
				errPlan = metrics.PlanOf(math.Round(*stdErr / 100 * truth))
			}
			add(name, "relative_error", round(100*(est-truth)/truth, 4), "%", stdErr, note+"; plan: the standard error 1.04/√m")
			add(name, "error", round(est-truth, 1), "viewers", errPlan, note+"; plan: the standard error in viewers, 1.04/√m × the true count")
		}
		var sum float64
		for day, s := range sketches {
			est := s.Distinct()
			sum += est
			estimate(est, float64(a.Distinct(day)), fmt.Sprintf("day %d", day+1))
		}
		if !complete {
			continue
		}
		if days > 1 {
			add(name, "distinct", round(sum, 1), "viewers", metrics.PlanOf(union), "sum of the days' counts: viewers of several days count again; plan: the exact union")
			if union > 0 {
				add(name, "relative_error", round(100*(sum-union)/union, 4), "%", nil, "sum of the days' counts against the union")
			}
		}
		if u, ok := sketches[0].(strategies.DistinctUnion); ok && days > 1 {
			var err error
			for _, s := range sketches[1:] {
				if err = u.UnionWith(s); err != nil {
					break
				}
			}
			if err == nil {
				estimate(u.Distinct(), union, "union of the days by merge")
			}
		}
		measured["error_count"] = true // on every error row already
		rep.Results = st.planRows(rep.Results, d, measured)
	}
	return rep
}

// profileGrid is the cardinalities of a profile: from Min to Max with
// PointsPerOctave points per doubling, rounded, each once, Max included.
func profileGrid(p scenarios.Profile) []uint64 {
	var grid []uint64
	for j := 0; ; j++ {
		n := uint64(math.Round(p.Min * math.Pow(2, float64(j)/float64(p.PointsPerOctave))))
		if float64(n) > p.Max {
			break
		}
		if len(grid) == 0 || n > grid[len(grid)-1] {
			grid = append(grid, n)
		}
	}
	if last := uint64(p.Max); len(grid) == 0 || grid[len(grid)-1] < last {
		grid = append(grid, last)
	}
	return grid
}

// bands are the quantiles of a profile: the median and ±1, 2, 3 σ of a
// normal distribution, as DataSketches characterises its sketches.
var bands = []struct {
	label string
	q     float64
}{
	{"−3σ", 0.00135}, {"−2σ", 0.02275}, {"−1σ", 0.15866}, {"median", 0.5},
	{"+1σ", 0.84134}, {"+2σ", 0.97725}, {"+3σ", 0.99865},
}

// runProfile runs every design over the profile's trials: in trial t it
// counts a stream of random 64-bit ids (seeded by the scenario's seed and
// t) and records the relative error at every cardinality of the grid.
func (st *Setup) runProfile(ctx context.Context) (*Report, error) {
	p := st.Scenario.Profile
	rep := &Report{}
	for i, d := range st.designs {
		errs := make([][]float64, len(st.grid)) // [grid point][trial]
		for j := range errs {
			errs[j] = make([]float64, p.Trials)
		}
		// Trials run on several goroutines; each writes only its own column
		// of errs, so the result does not depend on how they are scheduled.
		elapsed := make([]int64, p.Trials)
		fed := make([]int64, p.Trials)
		var firstErr error
		var mu sync.Mutex
		var wg sync.WaitGroup
		next := make(chan int)
		for range st.workers() {
			wg.Go(func() {
				for t := range next {
					env := st.env
					env.Seed = trialSeed(st.Scenario.Seed, t)
					s, err := d.typ.Build(d.params, env)
					dc, ok := s.(strategies.Distinct)
					if err == nil && !ok {
						err = fmt.Errorf("a %s does not count distinct ids; a profile takes distinct counters", d.spec.Type)
					}
					if err != nil {
						mu.Lock()
						firstErr = cmp.Or(firstErr, error(scenarios.Errorf(d.spec.Pos, "strategies[%d] %s: %v", i, d.spec.Name, err)))
						mu.Unlock()
						continue
					}
					elapsed[t], fed[t] = profileTrial(dc, st.grid, trialSeed(st.Scenario.Seed^0x70726f66696c65, t), errs, t)
				}
			})
		}
		for t := 0; t < p.Trials && ctx.Err() == nil; t++ {
			next <- t
		}
		close(next)
		wg.Wait()
		if firstErr != nil {
			return nil, firstErr
		}
		if err := ctx.Err(); err != nil {
			rep.Partial = true
			return rep, err
		}
		st.scoreProfile(rep, d, errs, sum(elapsed), sum(fed))
	}
	return rep, nil
}

func sum(xs []int64) int64 {
	var s int64
	for _, x := range xs {
		s += x
	}
	return s
}

// trialSeed derives trial t's seed from the scenario's.
func trialSeed(seed uint64, t int) uint64 {
	z := seed + uint64(t+1)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// profileTrial feeds dc distinct random ids up to every cardinality of the
// grid and records the relative error there into errs[j][t]. It returns
// the wall-clock ns spent in Observe and the events fed.
func profileTrial(dc strategies.Distinct, grid []uint64, seed uint64, errs [][]float64, t int) (int64, int64) {
	const batch = 4096
	buf := make([]workload.Event, batch)
	var elapsed int64
	var n uint64
	state := seed
	for j, target := range grid {
		for n < target {
			k := int(min(uint64(batch), target-n))
			for e := range buf[:k] {
				state += 0x9e3779b97f4a7c15 // SplitMix64: a bijection of the counter, so ids never repeat
				z := state
				z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
				z = (z ^ z>>27) * 0x94d049bb133111eb
				buf[e] = workload.Event{Actor: z ^ z>>31, Delta: 1, Op: workload.Write, ID: n + uint64(e) + 1}
			}
			t0 := time.Now()
			dc.Observe(buf[:k])
			elapsed += time.Since(t0).Nanoseconds()
			n += uint64(k)
		}
		errs[j][t] = (dc.Distinct() - float64(target)) / float64(target)
	}
	return elapsed, int64(n)
}

// scoreProfile turns one design's errors into the profile table, the band
// chart and the summary rows.
func (st *Setup) scoreProfile(rep *Report, d design, errs [][]float64, elapsed, fed int64) {
	scn := st.Scenario
	name := d.spec.Name
	var stdErr, m float64 // the standard error in %, and the registers, from the plan
	if p := d.planned("standard_error"); p != nil {
		stdErr = *p
	}
	if p := d.planned("registers"); p != nil {
		m = *p
	}
	tb := metrics.Table{Scenario: scn.Name, Name: "accuracy-" + name,
		Title:   fmt.Sprintf("%s: relative error (%%) over %d trials at each cardinality", name, scn.Profile.Trials),
		Columns: []string{"n"}}
	curves := make([]metrics.Series, len(bands))
	for b, band := range bands {
		tb.Columns = append(tb.Columns, band.label)
		curves[b] = metrics.Series{Scenario: scn.Name, Strategy: band.label, Name: "accuracy-" + name,
			Title: fmt.Sprintf("%s: relative error quantiles over %d trials", name, scn.Profile.Trials),
			Kind:  metrics.Curve, XLabel: "distinct ids (log)", YLabel: "relative error (%)", LogX: true}
	}
	var wide, wideN, smallMedian float64
	for j, n := range st.grid {
		row := []float64{float64(n)}
		qs := make([]float64, len(bands))
		for b, band := range bands {
			qs[b] = 100 * metrics.Quantile(errs[j], band.q)
			row = append(row, round(qs[b], 4))
			curves[b].X = append(curves[b].X, float64(n))
			curves[b].Y = append(curves[b].Y, qs[b])
		}
		tb.Rows = append(tb.Rows, row)
		if m > 0 && float64(n) >= 10*m {
			wide += (qs[4] - qs[2]) / 2
			wideN++
		}
		if m > 0 && float64(n) <= m/8 {
			smallMedian = max(smallMedian, math.Abs(qs[3]))
		}
	}
	rep.Tables = append(rep.Tables, tb)
	if stdErr > 0 {
		for b := range curves {
			curves[b].Marks = []metrics.Mark{
				{Label: fmt.Sprintf("±1.04/√m = ±%.3g%%", stdErr), Value: stdErr, Axis: "y"},
				{Label: "−1.04/√m", Value: -stdErr, Axis: "y"},
			}
		}
	}
	rep.Series = append(rep.Series, curves...)
	add := func(metric string, v float64, unit string, plan *float64, note string) {
		rep.Results = append(rep.Results, metrics.Result{Scenario: scn.Name, Strategy: name, Metric: metric,
			Value: v, Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
	}
	if wideN > 0 {
		var plan *float64
		if stdErr > 0 {
			plan = metrics.PlanOf(stdErr)
		}
		add("sigma_large_n", round(wide/wideN, 4), "%", plan, "half the ±1σ band, mean over n ≥ 10·m; plan 1.04/√m")
	}
	if m > 0 && float64(st.grid[0]) <= m/8 {
		add("median_small_n", round(smallMedian, 4), "%", metrics.PlanOf(0), "largest |median| over n ≤ m/8, the linear-counting range; with no register shared the estimate is m·ln(m/(m−n)) ≈ n(1 + n/2m), a little high")
	}
	if fed > 0 && elapsed > 0 {
		rep.Results = append(rep.Results, metrics.Result{Scenario: scn.Name, Strategy: name, Metric: "ns_per_event",
			Value: round(float64(elapsed)/float64(fed), 2), Unit: "ns", Scale: metrics.Sim, Timing: true, Note: "Observe, wall clock on this machine"})
	}
	rep.Results = st.planRows(rep.Results, d, nil)
}
