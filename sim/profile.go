package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The accuracy profile: every design counts fresh streams of distinct ids in
// seeded trials, and its relative error is recorded at cardinalities on a
// log grid — quantiles against cardinality, as DataSketches characterises
// its sketches, the way HyperLogLog is held to 1.04/√m.

// profileKind feeds no stream: it runs its trials on its workers, with the
// designs, the rows and a progress line of its own.
type profileKind struct {
	lineup   *engine.Lineup
	rows     engine.ScoreRows
	workers  engine.Workers
	progress engine.StageProgress
	seed     uint64 // the scenario's: each trial's seed derives from it
	spec     *scenarios.Profile
	grid     []uint64 // the cardinalities
}

func init() { engine.DefineKind("profile", newProfileKind) }

func newProfileKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Profile)
	h.Lineup.Env.Keys = uint64(spec.Max)
	h.Lineup.Env.Events = int64(spec.Max)
	return &profileKind{lineup: h.Lineup, rows: h.Rows, workers: h.Workers, progress: h.Progress, seed: h.Scn.Seed,
		spec: spec, grid: profileGrid(*spec)}, nil
}

func (k *profileKind) Describe() string {
	p := k.spec
	return fmt.Sprintf("Accuracy profile: %d seeded trials at cardinalities from %s to %s, %d points per doubling.",
		p.Trials, metrics.Format(p.Min), metrics.Format(p.Max), p.PointsPerOctave)
}

func (k *profileKind) Accepts(t *strategies.Type) error { return engine.DistinctOnly(t, "a profile") }

// Memory: trials run side by side, each with its own instance of every
// design and a batch of events; the records hold an error per design, grid
// point and trial.
func (k *profileKind) Memory() (int64, int64) {
	trials := min(int(k.workers), k.spec.Trials)
	batches := int64(trials) * profileBatch * int64(unsafe.Sizeof(workload.Event{}))
	records := int64(len(k.lineup.Members)) * int64(len(k.grid)+1) * int64(k.spec.Trials) * 8
	return batches + records, int64(trials)
}

func (k *profileKind) Plan() []metrics.Result { return nil }

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

// Run runs the profile's trials, several at a time: trial t builds a fresh
// instance of every design (seeded by the scenario's seed and t), feeds them
// all one stream of random 64-bit ids, generated once for all of them, and
// records each one's relative error at every cardinality of the grid. Each
// trial writes only its own column of the records, so the result does not
// depend on how the trials are scheduled. If ctx ends first, the trials
// under way stop at their next batch and the report scores the trials
// completed before the first one not completed (none, if that is the
// first).
func (k *profileKind) Run(ctx context.Context) (*engine.Report, error) {
	l, p := k.lineup, k.spec
	rec := make([]profileRecord, len(l.Members))
	for i := range rec {
		rec[i] = newProfileRecord(len(k.grid), p.Trials)
	}
	fed := make([]int64, p.Trials)
	done := make([]bool, p.Trials)
	var trialsDone, eventsFed atomic.Int64 // for the progress line
	stop := k.progress.Ticker(time.Now(), func(pr *engine.Progress) {
		pr.Events = eventsFed.Load() // the ids the trials have inserted
		pr.Done = float64(trialsDone.Load()) / float64(p.Trials)
	})
	defer stop()
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan int)
	for range k.workers {
		wg.Go(func() {
			dcs := make([]strategies.Distinct, len(l.Members))
			for t := range next {
				env := l.Env
				env.Seed = trialSeed(k.seed, t)
				var err error
				for i, d := range l.Members {
					var s strategies.Strategy
					if s, err = d.Build(env); err != nil {
						break
					}
					dcs[i] = s.(strategies.Distinct) // accepts admits distinct counters only
				}
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					continue
				}
				fed[t], done[t] = profileTrial(ctx, dcs, k.grid, trialSeed(k.seed^0x70726f66696c65, t), rec, t)
				trialsDone.Add(1)
				eventsFed.Add(fed[t])
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
	trials := p.Trials
	if i := slices.Index(done, false); i >= 0 {
		trials = i
	}
	rep := &engine.Report{Partial: trials < p.Trials}
	if trials > 0 {
		for i, d := range l.Members {
			k.score(rep, d, rec[i].trials(trials), sum(fed[:trials]))
		}
	}
	if rep.Partial {
		return rep, ctx.Err()
	}
	return rep, nil
}

// A profileRecord is what the trials measured of one design.
type profileRecord struct {
	errs    [][]float64 // [grid point][trial]: the relative error
	elapsed []int64     // [trial]: wall-clock ns in Observe
}

func newProfileRecord(points, trials int) profileRecord {
	r := profileRecord{errs: make([][]float64, points), elapsed: make([]int64, trials)}
	for j := range r.errs {
		r.errs[j] = make([]float64, trials)
	}
	return r
}

// trials returns the record of the first n trials.
func (r profileRecord) trials(n int) profileRecord {
	c := profileRecord{errs: make([][]float64, len(r.errs)), elapsed: r.elapsed[:n]}
	for j := range r.errs {
		c.errs[j] = r.errs[j][:n]
	}
	return c
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

// profileBatch is the events a trial generates at once.
const profileBatch = 4096

// profileTrial feeds every design of dcs the same distinct random ids
// (workload.DistinctIDs of seed, each batch generated once for all) up to
// every cardinality of the grid, and records design i's relative error
// there into rec[i].errs[j][t] and its wall-clock ns in Observe into
// rec[i].elapsed[t]. It returns the events fed to each design, and false
// if ctx ended first: it looks between batches, so a stop takes effect
// within one batch, not at the end of the trial.
func profileTrial(ctx context.Context, dcs []strategies.Distinct, grid []uint64, seed uint64, rec []profileRecord, t int) (int64, bool) {
	buf := make([]workload.Event, profileBatch)
	ids := workload.NewDistinctIDs(seed)
	for j, target := range grid {
		for ids.Count() < target {
			if ctx.Err() != nil {
				return int64(ids.Count()), false
			}
			b := buf[:min(uint64(profileBatch), target-ids.Count())]
			ids.Fill(b)
			for i, dc := range dcs {
				t0 := time.Now()
				dc.Observe(b)
				rec[i].elapsed[t] += time.Since(t0).Nanoseconds()
			}
		}
		for i, dc := range dcs {
			rec[i].errs[j][t] = (dc.Distinct() - float64(target)) / float64(target)
		}
	}
	return int64(ids.Count()), true
}

// score turns one design's record into the profile table, the band chart
// and the summary rows; fed is the events fed to it over the trials
// recorded.
func (k *profileKind) score(rep *engine.Report, d engine.Design, rec profileRecord, fed int64) {
	name := d.Spec.Name
	errs, elapsed, trials := rec.errs, sum(rec.elapsed), len(rec.elapsed)
	s := k.rows.Scorer(rep, d)
	// The standard error in %, and the registers, from the plan.
	stdErr, m := d.PlannedValue(metrics.StandardError), d.PlannedValue(metrics.Registers)
	tb := metrics.Table{Scenario: k.rows.Scenario, Name: "accuracy-" + name,
		Title:   fmt.Sprintf("%s: relative error (%%) over %d trials at each cardinality", name, trials),
		Columns: []string{"n"}}
	// The chart: where the plan gives the standard error, every design's
	// quantiles in units of it, a panel a design on one figure, so that
	// p = 10 and p = 16 read on one scale against the theory's ±1, 2, 3σ
	// (the % are in the table); else a chart of the design's own, in %.
	curves := make([]metrics.Series, len(bands))
	unit := 1.0
	for b, band := range bands {
		tb.Columns = append(tb.Columns, band.label)
		curves[b] = metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Strategy: band.label, Name: "accuracy-" + name,
			Title: fmt.Sprintf("%s: relative error quantiles over %d trials", name, trials),
			Kind:  metrics.Curve, XLabel: "distinct ids (log)", YLabel: "relative error (%)", LogX: true}
		if stdErr > 0 {
			unit = stdErr
			curves[b].Name, curves[b].YLabel = "accuracy", "relative error ÷ (1.04/√m)"
			curves[b].Title = fmt.Sprintf("relative error in units of 1.04/√m: quantiles over %d trials, every design on one scale", trials)
			curves[b].Panel = fmt.Sprintf("%s: m = %s, 1.04/√m = %.3g%%", name, metrics.Format(m), stdErr)
			for k := 1.0; k <= 3; k++ {
				label := fmt.Sprintf("theory ±%gσ", k)
				if k == 1 {
					label += ", σ = 1.04/√m"
				}
				curves[b].Marks = append(curves[b].Marks,
					metrics.Mark{Label: label, Value: k, Axis: "y"}, metrics.Mark{Label: label, Value: -k, Axis: "y"})
			}
		}
	}
	var wide, wideN, smallMedian float64
	for j, n := range k.grid {
		row := []float64{float64(n)}
		qs := make([]float64, len(bands))
		for b, band := range bands {
			qs[b] = 100 * metrics.Quantile(errs[j], band.q)
			row = append(row, engine.Round(qs[b], 4))
			curves[b].X = append(curves[b].X, float64(n))
			curves[b].Y = append(curves[b].Y, qs[b]/unit)
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
	rep.Series = append(rep.Series, curves...)
	if wideN > 0 {
		var plan *float64
		if stdErr > 0 {
			plan = metrics.PlanOf(stdErr)
		}
		s.Add(metrics.SigmaLargeN, engine.Round(wide/wideN, 4), "%", plan, "half the ±1σ band, mean over n ≥ 10·m; plan 1.04/√m")
	}
	if m > 0 && float64(k.grid[0]) <= m/8 {
		s.Add(metrics.MedianSmallN, engine.Round(smallMedian, 4), "%", metrics.PlanOf(0), "largest |median| over n ≤ m/8, the linear-counting range; with no register shared the estimate is m·ln(m/(m−n)) ≈ n(1 + n/2m), a little high")
	}
	if fed > 0 && elapsed > 0 {
		s.Timing(metrics.NsPerEvent, engine.Round(float64(elapsed)/float64(fed), 2), "ns", "Observe, wall clock on this machine")
	}
	s.Finish()
}
