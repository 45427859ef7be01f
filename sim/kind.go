package sim

import (
	"context"
	"fmt"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
)

// A kind is one kind of run — a count stream, a timed stream on the
// cluster, an audience, an accuracy profile — with everything that depends
// on which: its stream, its truth, its scorer and how it describes itself.
// Each kind is one file (stream.go, timed.go, audience.go, profile.go) that
// registers itself by the name of the scenario's kind of run; the scenario
// loader picks the kind, and Prepare looks it up once. A new kind is a new
// file here and one in package scenarios; no switch changes.
type kind interface {
	// describe says in one line what the run simulates, for the CLI and
	// the report.
	describe() string
	// accepts refuses a design type the kind cannot run (an audience
	// counts distinct ids only), saying which it can.
	accepts(t *strategies.Type) error
	// memory is the bytes the kind holds itself (its truth, its records)
	// and how many instances of each design it holds at once.
	memory() (held int64, copies int64)
	// plan is the kind's own plan rows: what the stream itself should
	// hold (the expected count of the K-th key).
	plan() []metrics.Result
	// run simulates and scores every design.
	run(ctx context.Context) (*Report, error)
	// reports lists the metrics run measures for design d (nil: for the
	// truth), so that an expectation on one it never measures is refused
	// before anything runs. TestReportsCoverScoring holds it to what the
	// built-in scenarios measure.
	reports(d *design) []metrics.Metric
}

// kinds maps a scenario's kind of run to the constructor of its runner,
// which sizes st.env for the designs.
var kinds = map[string]func(st *Setup) (kind, error){}

// defineKind registers the runner of a kind of run. It panics on a
// duplicate: a programming error caught when the package loads.
func defineKind(name string, build func(st *Setup) (kind, error)) {
	if _, dup := kinds[name]; dup {
		panic("sim: kind " + name + " defined twice")
	}
	kinds[name] = build
}

// newKind builds the runner of the scenario's kind of run.
func newKind(st *Setup) (kind, error) {
	run := st.Scenario.Run
	build, ok := kinds[run.Kind()]
	if !ok { // every kind the loader picks has a runner: a test holds them together
		return nil, scenarios.Errorf(run.Where(), "no runner for a run of kind %q", run.Kind())
	}
	return build(st)
}

// distinctOnly refuses a design that does not count distinct ids, for the
// kinds that ask nothing else.
func distinctOnly(t *strategies.Type, what string) error {
	return onlyFamily(t, strategies.FamilyDistinct, "count distinct ids", what)
}

// onlyFamily refuses a design that does not answer the family f, for a
// kind (what) that asks nothing else, naming the designs that do.
func onlyFamily(t *strategies.Type, f strategies.Family, does, what string) error {
	if t.Answers(f) {
		return nil
	}
	var names []string
	for _, o := range strategies.Types() {
		if o.Answers(f) {
			names = append(names, o.Name)
		}
	}
	return fmt.Errorf("a %s does not %s (allowed with %s: %s)", t.Name, does, what, strings.Join(names, ", "))
}
