package engine

import (
	"context"
	"fmt"
)

// RunEach runs the scenario once a trial, as runTrials does (the same
// derived seeds), and returns each trial's report as it came: what
// countsim size judges a candidate size by, trial by trial, where a run's
// report gives the statistics over the trials. A run stopped part way
// returns the trials that finished and the context's error.
func (st *Setup) RunEach(ctx context.Context) ([]*Report, error) {
	n := max(st.Scenario.Trials, 1)
	var reps []*Report
	for _, seed := range trialSeeds(st.Scenario.Seed, n) {
		scn := *st.Scenario
		scn.Seed, scn.Trials = seed, 1
		one, err := PrepareContext(ctx, &scn, st.opts)
		if err != nil {
			if ctx.Err() != nil {
				return reps, ctx.Err()
			}
			return reps, fmt.Errorf("%s: trial with seed %d: %w", scn.ID(), seed, err)
		}
		rep, err := one.Kind.Run(ctx)
		if err != nil {
			return reps, err
		}
		reps = append(reps, rep)
	}
	return reps, nil
}
