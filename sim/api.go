package sim

import (
	"context"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// The run's API, as the CLI and a program that runs scenarios see it: the
// engine's (sim/engine), named here, where importing sim brings every kind
// of run in. A scenario's kind is found only among the kinds registered, so
// a caller that went to the engine alone would run none.

type (
	// Options are the choices of a run beside its scenario.
	Options = engine.Options
	// Setup is a prepared run: its scenario, designs and plans.
	Setup = engine.Setup
	// Report is what a run measured.
	Report = engine.Report
	// Progress is what a long run has done so far.
	Progress = engine.Progress
	// Verdict is one expectation judged against a run's rows.
	Verdict = engine.Verdict
)

// DefaultProgressEvery is how often a run reports its progress when
// Options.Progress is set and Options.ProgressEvery is 0.
const DefaultProgressEvery = engine.DefaultProgressEvery

// Prepare builds a run of the scenario (engine.Prepare).
func Prepare(scn *scenarios.Scenario, o Options) (*Setup, error) { return engine.Prepare(scn, o) }

// PrepareContext builds a run of the scenario, stopping when ctx ends
// (engine.PrepareContext).
func PrepareContext(ctx context.Context, scn *scenarios.Scenario, o Options) (*Setup, error) {
	return engine.PrepareContext(ctx, scn, o)
}
