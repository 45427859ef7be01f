package sim

// The accuracy profile: every design counts fresh streams of distinct ids in
// seeded trials, and its relative error is recorded at cardinalities on a
// log grid — quantiles against cardinality, as DataSketches characterises
// its sketches, the way HyperLogLog is held to 1.04/√m.

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

type profileKind struct {
	st   *Setup
	spec *scenarios.Profile
	grid []uint64 // the cardinalities
}

func init() { defineKind("profile", newProfileKind) }

func newProfileKind(st *Setup) (kind, error) {
	spec := st.Scenario.Run.(*scenarios.Profile)
	st.env.Keys = uint64(spec.Max)
	st.env.Events = int64(spec.Max)
	return &profileKind{st: st, spec: spec, grid: profileGrid(*spec)}, nil
}

func (k *profileKind) describe() string {
	p := k.spec
	return fmt.Sprintf("Accuracy profile: %d seeded trials at cardinalities from %s to %s, %d points per doubling.",
		p.Trials, metrics.Format(p.Min), metrics.Format(p.Max), p.PointsPerOctave)
}

func (k *profileKind) accepts(t *strategies.Type) error { return distinctOnly(t, "a profile") }

// memory: trials run side by side, each with its own instance of a design.
func (k *profileKind) memory() (int64, int64) {
	return 0, int64(min(k.st.workers(), k.spec.Trials))
}

func (k *profileKind) plan() []metrics.Result { return nil }

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

// run runs every design over the profile's trials: in trial t it counts a
// stream of random 64-bit ids (seeded by the scenario's seed and t) and
// records the relative error at every cardinality of the grid.
func (k *profileKind) run(ctx context.Context) (*Report, error) {
	st, p := k.st, k.spec
	rep := &Report{}
	for _, d := range st.designs {
		errs := make([][]float64, len(k.grid)) // [grid point][trial]
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
					s, err := d.build(env)
					if err != nil {
						mu.Lock()
						firstErr = cmp.Or(firstErr, err)
						mu.Unlock()
						continue
					}
					dc := s.(strategies.Distinct) // accepts admits distinct counters only
					elapsed[t], fed[t] = profileTrial(dc, k.grid, trialSeed(st.Scenario.Seed^0x70726f66696c65, t), errs, t)
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
		k.score(rep, d, errs, sum(elapsed), sum(fed))
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

// trialSeed derives trial t's seed from the scenario's: the (t+1)-th
// output of a SplitMix64 generator at the scenario's seed.
func trialSeed(seed uint64, t int) uint64 {
	return workload.SplitMix64(seed + uint64(t)*0x9e3779b97f4a7c15)
}

// profileTrial feeds dc distinct random ids (workload.DistinctIDs of seed)
// up to every cardinality of the grid and records the relative error there
// into errs[j][t]. It returns the wall-clock ns spent in Observe and the
// events fed.
func profileTrial(dc strategies.Distinct, grid []uint64, seed uint64, errs [][]float64, t int) (int64, int64) {
	const batch = 4096
	buf := make([]workload.Event, batch)
	ids := workload.NewDistinctIDs(seed)
	var elapsed int64
	for j, target := range grid {
		for ids.Count() < target {
			b := buf[:min(uint64(batch), target-ids.Count())]
			ids.Fill(b)
			t0 := time.Now()
			dc.Observe(b)
			elapsed += time.Since(t0).Nanoseconds()
		}
		errs[j][t] = (dc.Distinct() - float64(target)) / float64(target)
	}
	return elapsed, int64(ids.Count())
}

// score turns one design's errors into the profile table, the band chart
// and the summary rows.
func (k *profileKind) score(rep *Report, d design, errs [][]float64, elapsed, fed int64) {
	st := k.st
	scn := st.Scenario
	name := d.spec.Name
	s := st.scorer(rep, d)
	// The standard error in %, and the registers, from the plan.
	stdErr, m := d.plannedValue(strategies.MetricStandardError), d.plannedValue(strategies.MetricRegisters)
	tb := metrics.Table{Scenario: scn.Name, Name: "accuracy-" + name,
		Title:   fmt.Sprintf("%s: relative error (%%) over %d trials at each cardinality", name, k.spec.Trials),
		Columns: []string{"n"}}
	curves := make([]metrics.Series, len(bands))
	for b, band := range bands {
		tb.Columns = append(tb.Columns, band.label)
		curves[b] = metrics.Series{Scenario: scn.Name, Strategy: band.label, Name: "accuracy-" + name,
			Title: fmt.Sprintf("%s: relative error quantiles over %d trials", name, k.spec.Trials),
			Kind:  metrics.Curve, XLabel: "distinct ids (log)", YLabel: "relative error (%)", LogX: true}
	}
	var wide, wideN, smallMedian float64
	for j, n := range k.grid {
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
	if wideN > 0 {
		var plan *float64
		if stdErr > 0 {
			plan = metrics.PlanOf(stdErr)
		}
		s.add(strategies.MetricSigmaLargeN, round(wide/wideN, 4), "%", plan, "half the ±1σ band, mean over n ≥ 10·m; plan 1.04/√m")
	}
	if m > 0 && float64(k.grid[0]) <= m/8 {
		s.add(strategies.MetricMedianSmallN, round(smallMedian, 4), "%", metrics.PlanOf(0), "largest |median| over n ≤ m/8, the linear-counting range; with no register shared the estimate is m·ln(m/(m−n)) ≈ n(1 + n/2m), a little high")
	}
	if fed > 0 && elapsed > 0 {
		s.timing(strategies.MetricNsPerEvent, round(float64(elapsed)/float64(fed), 2), "ns", "Observe, wall clock on this machine")
	}
	s.finish()
}
