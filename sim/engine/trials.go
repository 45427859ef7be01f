package engine

import (
	"context"
	"fmt"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"countsim/metrics"
	"countsim/workload"
)

// Trials: a scenario with `trials: N` runs N times, trial t with a seed of
// its own (trial 0 with the scenario's seed, so its rows are a single run's;
// trial t > 0 with the t-th output of SplitMix64 from that seed: the same N
// seeds every time). Every measured row is then reported over the trials —
// mean, min, p50, p95 and max, each with the row's plan beside it — and a
// design that counts keys over its per-key bound is tested against the
// bound's promise: with n keys over all the trials of which X passed the
// bound, and δ the promised probability that a key does, the p-value of the
// one-sided exact binomial test is P(Binomial(n, δ) ≥ X). A correct design
// gives a p-value below the scenario's false_alarm with probability at most
// false_alarm, however many keys: the bound is per key and at most δ (the
// keys of one trial share its hashes, so the test is exact for independent
// keys and, for a sketch's keys, conservative only where the keys' excesses
// are not positively correlated). The series and tables are trial 0's.

// TrialStats are the statistics every measured row is reported with.
var TrialStats = []struct {
	Name string
	q    float64 // the quantile; −1 for the mean
}{{"mean", -1}, {"min", 0}, {"p50", 0.5}, {"p95", 0.95}, {"max", 1}}

// trialSeeds are the seeds of a scenario's trials.
func trialSeeds(seed uint64, n int) []uint64 {
	seeds := []uint64{seed}
	sm := workload.SplitMix(seed)
	for len(seeds) < n {
		seeds = append(seeds, sm.Uint64())
	}
	return seeds
}

// runTrials runs the scenario once a trial and reports over the trials. A
// run stopped part way reports over the trials that finished.
func (st *Setup) runTrials(ctx context.Context) (*Report, error) {
	reps, stopped := st.RunEach(ctx)
	if len(reps) == 0 {
		return &Report{Partial: true}, stopped
	}
	out := st.overTrials(reps)
	out.Partial = stopped != nil
	return out, stopped
}

// RunEach runs the scenario once a trial, trial t with the t-th of the
// derived seeds (trialSeeds), and returns each trial's report as it came:
// runTrials reports over them, countsim size judges a candidate size by
// them trial by trial. A run stopped part way returns the trials that
// finished and why it stopped.
func (st *Setup) RunEach(ctx context.Context) ([]*Report, error) {
	var reps []*Report
	for _, seed := range trialSeeds(st.Scenario.Seed, max(st.Scenario.Trials, 1)) {
		scn := *st.Scenario
		scn.Seed, scn.Trials = seed, 1
		one, err := PrepareContext(ctx, &scn, st.opts)
		if err != nil {
			if ctx.Err() != nil {
				return reps, ctx.Err()
			}
			return reps, fmt.Errorf("%s: trial with seed %d: %w", scn.ID(), seed, err) // cannot happen: the same scenario was prepared
		}
		rep, err := one.Kind.Run(ctx)
		if err != nil {
			return reps, err
		}
		reps = append(reps, rep)
	}
	return reps, nil
}

// rowKey names a row across trials: the n-th row of its design, metric and
// scale.
type rowKey struct {
	strategy string
	metric   metrics.Metric
	scale    metrics.Scale
	n        int
}

// rowKeys lists the rows by key, in their order, and maps each key to its row.
func rowKeys(rs []metrics.Result) ([]rowKey, map[rowKey]metrics.Result) {
	keys := make([]rowKey, 0, len(rs))
	by := map[rowKey]metrics.Result{}
	seen := map[rowKey]int{}
	for _, r := range rs {
		k := rowKey{r.Strategy, r.Metric, r.Scale, 0}
		k.n = seen[k]
		seen[rowKey{r.Strategy, r.Metric, r.Scale, 0}]++
		keys = append(keys, k)
		by[k] = r
	}
	return keys, by
}

// overTrials reports every row over the trials' reports.
func (st *Setup) overTrials(reps []*Report) *Report {
	n := len(reps)
	keys, first := rowKeys(reps[0].Results)
	all := make([]map[rowKey]metrics.Result, n)
	for t, rep := range reps {
		_, all[t] = rowKeys(rep.Results)
	}
	out := &Report{Series: reps[0].Series, Tables: reps[0].Tables}
	for _, k := range keys {
		r := first[k]
		if r.Value == nil { // a plan alone: the same in every trial
			out.Results = append(out.Results, r)
			continue
		}
		var vals []float64
		for t := range n {
			if rt, ok := all[t][k]; ok && rt.Value != nil {
				vals = append(vals, *rt.Value)
			}
		}
		slices.Sort(vals)
		note := fmt.Sprintf("over %d trials", len(vals))
		if r.Note != "" {
			note += "; " + r.Note
		}
		for _, s := range TrialStats {
			if r.Timing && s.Name != "mean" {
				continue
			}
			v := Mean(vals)
			if s.q >= 0 {
				v = metrics.QuantileSorted(vals, 0, s.q)
			}
			row := r
			row.Value, row.Stat, row.Note = metrics.Measured(v), s.Name, note
			out.Results = append(out.Results, row)
		}
	}
	st.BoundTests(out, reps)
	return out
}

func Mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// BoundTests adds, for every design that counted keys over its bound in
// every trial and has a per-key failure probability δ, the share of keys
// over the bound across the trials (δ beside it) and the binomial test's
// p-value, with its verdict at the scenario's false-alarm level.
func (st *Setup) BoundTests(out *Report, reps []*Report) {
	truth := TruthName(st.Scenario)
	for _, d := range st.Members {
		delta := d.Planned(metrics.Failure)
		if delta == nil {
			continue
		}
		var over, keys float64
		trials := 0
		for _, rep := range reps {
			var o, k *float64
			for _, r := range rep.Results {
				switch {
				case r.Strategy == d.Name() && r.Metric == metrics.KeysOverBound && r.Value != nil:
					o = r.Value
				case r.Strategy == truth && r.Metric == metrics.DistinctKeys && r.Value != nil:
					k = r.Value
				}
			}
			if o == nil || k == nil {
				return
			}
			over, keys, trials = over+*o, keys+*k, trials+1
		}
		if keys == 0 {
			continue
		}
		p := BinomialTail(keys, *delta, over)
		verdict := "holds"
		if p < st.Scenario.FalseAlarm {
			verdict = "FAILS"
		}
		add := func(m metrics.Metric, v float64, unit string, plan *float64, note string) {
			out.Results = append(out.Results, metrics.Result{Scenario: st.Scenario.Name, Strategy: d.Name(), Metric: m,
				Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
		}
		add(metrics.ShareOverBound, over/keys, "share", delta,
			fmt.Sprintf("%s of %s keys over %d trials passed the per-key bound; plan: δ", metrics.Format(over), metrics.Format(keys), trials))
		add(metrics.BoundTestP, p, "probability", nil,
			fmt.Sprintf("P(Binomial(%s, δ = %g) ≥ %s), exact one-sided; the bound %s at false alarm %g", metrics.Format(keys), *delta, metrics.Format(over), verdict, st.Scenario.FalseAlarm))
	}
}

// BinomialTail is P(Binomial(n, p) ≥ x), exactly (by the regularised
// incomplete beta function): 1 for x ≤ 0.
func BinomialTail(n, p, x float64) float64 {
	if x <= 0 {
		return 1
	}
	if x > n {
		return 0
	}
	return distuv.Binomial{N: n, P: p}.Survival(x - 1)
}
