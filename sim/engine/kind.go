package engine

import (
	"context"
	"fmt"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
)

// A Kind is one Kind of run — a count stream, a timed stream on the
// cluster, an audience, an accuracy profile, a leaderboard, ratings, a
// split stream, trending, a recorded log, a population of posts — with
// everything that depends on which: its stream, its truth, its scorer and
// how it describes itself. Each Kind is one file (stream.go, timed.go,
// audience.go, …) that registers itself by the name of the scenario's Kind
// of run; the scenario loader picks the Kind, and Prepare looks it up once.
// A new Kind is a new file here and one in package scenarios; no switch
// changes.
//
// A Kind runs with the narrow harness Setup gives its constructor (harness,
// below): it keeps the pieces it uses, so that its type says what it runs
// with, and reaches nothing else of the Setup.
type Kind interface {
	// Describe says in one line what the run simulates, for the CLI and
	// the report.
	Describe() string
	// Accepts refuses a design type the kind cannot run (an audience
	// counts distinct ids only), saying which it can.
	Accepts(t *strategies.Type) error
	// Memory is the bytes the kind holds itself (its truth, its records)
	// and how many instances of each design it holds at once.
	Memory() (held int64, copies int64)
	// Plan is the kind's own plan rows: what the stream itself should
	// hold (the expected count of the K-th key).
	Plan() []metrics.Result
	// Run simulates and scores every design.
	Run(ctx context.Context) (*Report, error)
	// Reports lists the metrics run measures for design d (nil: for the
	// truth), so that an expectation on one it never measures is refused
	// before anything runs. TestReportsCoverScoring holds it to what the
	// built-in scenarios measure.
	Reports(d *Design) []metrics.Metric
}

// The optional capabilities of a kind. A kind without one behaves as if it
// said false.

// A storeGiver gives each design a store of its own even where the
// scenario has no cluster (an audience: a one-node simulated store), so
// that a design on servers is checked as one that has a store.
// prepareDesign asks it, before the design's parameters are checked.
type storeGiver interface {
	Kind
	GivesStores() bool
}

// A realStorer runs its designs on servers a second time, as twins on a
// real store, when Options.Store gives one (realstore.go). Prepare asks it
// once the designs are in: a kind that is not one, or says false (a board
// on standings, which reach its designs without store ops), runs on the
// simulation alone, and Setup.Notes say so.
type realStorer interface {
	Kind
	RealStores() bool
}

// A drawer draws what its run is made of once Prepare has checked that the
// run fits in memory: a table as large as the run (a posts run's posts),
// which its constructor only sampled, so that memory, worked out from the
// sample, refuses a run too large before anything that large is drawn.
// memory must say the same before and after draw.
type drawer interface {
	Kind
	Draw() error
}

// A churner makes garbage all the stream long (a log's reader, at every
// line it parses): the heap then runs up to its GC target, twice what is
// live (GOGC 100), and MemoryNeeded counts what the run holds twice.
type churner interface {
	Kind
	Churns() bool
}

// Harness is what Setup gives a kind's constructor: the scenario, and the
// pieces of a run, each small and each a kind may keep or leave.
//
//   - lineup: the designs and the Env they are built for (lineup.go). The
//     constructor sizes its env; Prepare then adds the designs, checked
//     against the kind, so a kind reads them at memory and run, not before.
//   - feeder: feeds a source of events to the lanes of a run, the truth
//     and every design each a lane, run by a lane worker a core (feed.go).
//   - rows: the truth's rows and a scorer for each design's (score.go).
//   - workers: the goroutines that generate chunks and run jobs side by
//     side (parallel).
//   - progress: the progress line of a stage that is not a feed (a
//     profile's trials, a board's standings).
//   - twins: the real stores of the designs on servers (realstore.go).
//   - h.clusters(): the scenario's simulated cluster, a cluster of its own
//     for each design and the rows of its load (clusters.go); a kind that
//     uses it asks for it, so that only such a kind refuses a bad cluster.
type Harness struct {
	// Ctx is Prepare's context: a constructor that takes long looks at
	// it, and may stop short (PrepareContext then reports the stop).
	Ctx      context.Context
	Scn      *scenarios.Scenario
	Lineup   *Lineup
	Feeder   Feeder
	Rows     ScoreRows
	Workers  Workers
	Progress StageProgress
	Twins    Twins
}

// Kinds maps a scenario's kind of run to the constructor of its runner,
// which reads its spec from h.scn, sizes h.lineup.env for the designs and
// keeps the pieces of h it runs with.
var Kinds = map[string]func(h *Harness) (Kind, error){}

// DefineKind registers the runner of a kind of run. It panics on a
// duplicate: a programming error caught when the package loads.
func DefineKind(name string, build func(h *Harness) (Kind, error)) {
	if _, dup := Kinds[name]; dup {
		panic("sim: kind " + name + " defined twice")
	}
	Kinds[name] = build
}

// newKind builds the runner of the scenario's kind of run.
func newKind(h *Harness) (Kind, error) {
	run := h.Scn.Run
	build, ok := Kinds[run.Kind()]
	if !ok { // every kind the loader picks has a runner: a test holds them together
		return nil, scenarios.Errorf(run.Where(), "no runner for a run of kind %q", run.Kind())
	}
	return build(h)
}

// DistinctOnly refuses a design that does not count distinct ids, for the
// kinds that ask nothing else.
func DistinctOnly(t *strategies.Type, what string) error {
	return OnlyFamily(t, strategies.FamilyDistinct, "count distinct ids", what)
}

// OnlyFamily refuses a design that does not answer the family f, for a
// kind (what) that asks nothing else, naming the designs that do.
func OnlyFamily(t *strategies.Type, f strategies.Family, does, what string) error {
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
