package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	_ "countsim/strategies/all"
	"countsim/workload"
)

// every design type, registered by name

// DefaultMemoryLimit is the memory a run may plan to use unless Options say
// otherwise: well inside the 24 GiB of the machines this project runs on.
const DefaultMemoryLimit = 12 << 30

// Options tune a run without changing its results.
type Options struct {
	// MemoryLimit refuses a scenario whose truth and designs would need more
	// bytes than this; 0 means DefaultMemoryLimit.
	MemoryLimit int64
	// Workers generate chunks of the stream; 0 means GOMAXPROCS. The results
	// do not depend on it.
	Workers int
	// Progress, when set, is called every ProgressEvery (0 means
	// DefaultProgressEvery) while a stream is fed, from another goroutine.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// With names the on-demand designs to run; the others are left out.
	With []string
	// Store, when set, runs every design that lives on servers a second
	// time, on a real store the backend opens (realstore.go). Only the
	// kinds whose designs' stores can be real take it (realStorer,
	// kind.go): the timed stream, the audience and a board not loaded
	// from standings; the others run on the simulation alone and say so
	// in Setup.Notes.
	Store strategies.Backend
}

// Design is one strategy entry of the scenario, decoded and planned.
type Design struct {
	Spec   scenarios.Strategy
	Index  int // in the scenario's strategies
	Typ    *strategies.Type
	Params strategies.Params
	Plan   []strategies.PlanLine
	Sweep  *sweepPoint // the design's place in a sweep; nil outside one
	Real   string      // a twin on a real store: the backend's name; "" on the simulation
}

// Name is the design's Name in the scenario, and @BACKEND on a twin.
func (d Design) Name() string {
	if d.Real != "" {
		return d.Spec.Name + "@" + d.Real
	}
	return d.Spec.Name
}

// Planned is the design's simulated-scale plan for metric, or nil.
func (d Design) Planned(metric metrics.Metric) *float64 {
	for _, l := range d.Plan {
		if l.Metric == metric && !l.Full {
			return metrics.PlanOf(l.Value)
		}
	}
	return nil
}

// errorf is a scenario error at the design's entry.
func (d Design) errorf(format string, args ...any) error {
	return scenarios.Errorf(d.Spec.Pos, "strategies[%d] %s: %s", d.Index, d.Spec.Name, fmt.Sprintf(format, args...))
}

// Build constructs the design for env.
func (d Design) Build(env strategies.Env) (strategies.Strategy, error) {
	s, err := d.Typ.Build(d.Params, env)
	if err != nil {
		return nil, d.errorf("%v", err)
	}
	return s, nil
}

// Setup is a scenario ready to run: every parameter checked, every plan
// worked out, nothing large allocated yet. It assembles the harness its
// kind runs with (harness) and shares with the kind the lineup of designs.
type Setup struct {
	Scenario *scenarios.Scenario
	Kind     Kind
	*Lineup
	opts Options
	// LeftOut names the on-demand designs that Options.With did not ask for.
	LeftOut []string
	// Notes are what a reader of the report must know of the run that no
	// row says: a real store that did not keep up, a store not used.
	Notes []string
}

// Prepare checks a loaded scenario against the registry and the memory
// limit. Every error is a *scenarios.Error naming the file and line.
func Prepare(scn *scenarios.Scenario, opts Options) (*Setup, error) {
	return PrepareContext(context.Background(), scn, opts)
}

// PrepareContext is Prepare, stopping when ctx ends first: the kinds
// whose set-up takes long (a log's head is read, a posts run draws its
// table of posts) look at ctx as they go, and PrepareContext then returns
// an error that wraps ctx's cause, whatever error the kind gave.
func PrepareContext(ctx context.Context, scn *scenarios.Scenario, opts Options) (*Setup, error) {
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	if len(scn.Strategies) == 0 && scn.Goals == nil { // the decoder asks for one; goals alone are for countsim size
		return nil, fmt.Errorf("%s: no strategies to run", scn.ID())
	}
	st := &Setup{
		Scenario: scn,
		opts:     opts,
		Lineup: &Lineup{Env: strategies.Env{
			Seed: scn.Seed,
			Top:  scn.Questions.Top,
			Full: figures(scn.Assumptions),
			Sim:  figures(scn.Simulated()),
		}},
	}
	h := st.harness()
	h.Ctx = ctx
	k, err := newKind(h)
	if ctx.Err() != nil {
		return nil, stoppedPreparing(ctx, scn)
	}
	if err != nil {
		return nil, err
	}
	st.Kind = k
	for i, spec := range scn.Strategies {
		if spec.OnDemand && !slices.Contains(opts.With, spec.Name) {
			st.LeftOut = append(st.LeftOut, spec.Name)
			continue
		}
		for _, m := range SweepMembers(spec) {
			d, err := st.prepareDesign(scn, k, i, m.spec, m.at)
			if err != nil {
				return nil, err
			}
			if slices.ContainsFunc(st.Members, func(o Design) bool { return o.Name() == d.Name() }) {
				pos := spec.Pos
				if spec.Sweep != nil {
					pos = spec.Sweep.Pos
				}
				return nil, scenarios.Errorf(pos, "strategies[%d]: the design %s has the name of another design (a sweep names its designs NAME-key-value; allowed: names unique in the file)", i, d.Name())
			}
			d.Sweep = m.Sweep
			st.Members = append(st.Members, d)
		}
	}
	if opts.Store != nil {
		if rk, ok := k.(realStorer); ok && rk.RealStores() {
			st.twin(opts.Store.Name())
		} else {
			st.Notes = append(st.Notes, fmt.Sprintf("This kind of run does not take a real store: its designs ran on the simulation alone, not on %s.", opts.Store.Name()))
		}
	}
	if err := st.checkExpectations(); err != nil {
		return nil, err
	}
	need := st.MemoryNeeded()
	if ctx.Err() != nil { // stopped while the designs were prepared
		return nil, stoppedPreparing(ctx, scn)
	}
	if need > opts.MemoryLimit {
		return nil, scenarios.Errorf(scn.Run.Where(), "the run would need about %s bytes (truth and designs), more than the limit of %s bytes: lower the stream's size or the designs'",
			metrics.Format(float64(need)), metrics.Format(float64(opts.MemoryLimit)))
	}
	if avail := MachineMemory(); avail > 0 && need > avail {
		return nil, scenarios.Errorf(scn.Run.Where(), "the run would need about %s bytes (truth and designs), more than the %s bytes this machine has available: lower the stream's size or the designs'",
			metrics.Format(float64(need)), metrics.Format(float64(avail)))
	}
	if dk, ok := k.(drawer); ok {
		if err := dk.Draw(); err != nil {
			if ctx.Err() != nil {
				return nil, stoppedPreparing(ctx, scn)
			}
			return nil, err
		}
	}
	return st, nil
}

// stoppedPreparing is the error of a scenario whose Prepare was stopped.
func stoppedPreparing(ctx context.Context, scn *scenarios.Scenario) error {
	return fmt.Errorf("%s: stopped while it was prepared: %w", scn.ID(), context.Cause(ctx))
}

// prepareDesign decodes, checks and plans one design: the entry i of the
// scenario's strategies, or one member of its sweep (at: the value's
// position, where a parameter error of the swept key points).
func (st *Setup) prepareDesign(scn *scenarios.Scenario, k Kind, i int, spec scenarios.Strategy, at *scenarios.Pos) (Design, error) {
	d := Design{Spec: spec, Index: i}
	var err error
	if d.Typ, err = strategies.Lookup(spec.Type); err != nil {
		pos := spec.Pos
		if p, ok := scn.KeyPos(fmt.Sprintf("strategies[%d].type", i)); ok {
			pos = p
		}
		return d, scenarios.Errorf(pos, "strategies[%d] %s: %v%s", i, spec.Name, err, scenarios.DidYouMean(spec.Type, strategies.TypeNames()))
	}
	d.Params = d.Typ.New()
	if err := scn.DecodeParams(i, spec.Params, d.Params); err != nil {
		return d, err // at the parameter's line, by the decoder of every key
	}
	if err = d.Typ.Validate(d.Params); err == nil {
		store := scn.Cluster != nil
		if gs, ok := k.(storeGiver); ok && gs.GivesStores() {
			store = true
		}
		err = d.Typ.Check(d.Params, st.Env, store)
	}
	if err == nil {
		err = k.Accepts(d.Typ)
	}
	if err != nil {
		pos := spec.Pos
		var pe *strategies.ParamError
		if errors.As(err, &pe) && pe.Key != "" {
			pos = scn.ParamPos(i, pe.Key)
			if at != nil && spec.Sweep == nil && pe.Key == sweptKey(scn.Strategies[i]) {
				pos = *at
			}
		}
		return d, scenarios.Errorf(pos, "strategies[%d] %s: %v", i, spec.Name, err)
	}
	d.Plan = d.Typ.Plan(d.Params, st.Env)
	return d, nil
}

// figures converts the scenario's figures for the designs' plans: the two
// types have the same fields (tags aside), so a figure added to one and not
// the other fails to compile here.
func figures(a scenarios.Assumptions) strategies.Assumptions { return strategies.Assumptions(a) }

// MemoryNeeded estimates the bytes a run holds at its peak: what the kind
// holds (its truth, its record of reads), every design's planned
// simulated-scale bytes as many times as the kind holds designs at once,
// the stream's buffers and the process itself. A count stream's peak
// resident memory stays within 10% of it (measured from 10^7 events over
// 10^6 keys to the full search day, README "Speed and memory").
func (st *Setup) MemoryNeeded() int64 {
	held, copies := st.Kind.Memory()
	for _, d := range st.Members {
		total := max(d.PlannedValue(metrics.Bytes), d.PlannedValue(metrics.TotalBytes))
		held += copies * int64(total)
	}
	// The chunks in flight, what scoring holds for each design, and the
	// process itself.
	held += int64(feedBuffers(int(workersOf(st.opts)))) * workload.DefaultChunkSize * (int64(unsafe.Sizeof(workload.Event{})) + 4) // events and ranks
	held += int64(len(st.Members)) * int64(unsafe.Sizeof(Overs{}))
	if ck, ok := st.Kind.(churner); st.hasTwins() || ok && ck.Churns() {
		// A real store's client (go-redis) makes garbage at every op, a
		// log's reader at every line: the heap then runs up to its GC
		// target, twice what is live (GOGC 100), where a simulation alone
		// allocates little once built. Measured without this: the cricket
		// final's viewers on Redis (a 40 M-id exact set live while PFADD's
		// arguments churn) peaked at 2.28 GB against a plan of 1.42 GB.
		held *= 2
	}
	return held + ProcessBytes
}

// ProcessBytes is what the process holds whatever it runs: the Go runtime,
// the program and its libraries, the report and its charts being drawn.
// Measured: a run of 10^7 events over 10^6 keys peaks at 48 MB of resident
// memory, 16 MB above what its truth, designs and buffers account for; the
// wicket scenario, with more charts, 20 MB above the rest of its plan.
const ProcessBytes = 48 << 20

// PlannedValue is the design's simulated-scale plan for metric, or 0.
func (d Design) PlannedValue(metric metrics.Metric) float64 {
	if p := d.Planned(metric); p != nil {
		return *p
	}
	return 0
}

// Designs names the designs the run holds, in the scenario's order (a
// sweep's members and real-store twins included).
func (st *Setup) Designs() []string {
	names := make([]string, len(st.Members))
	for i, d := range st.Members {
		names[i] = d.Name()
	}
	return names
}

// Describe says in one line what the scenario simulates.
func (st *Setup) Describe() string { return st.Kind.Describe() }

// Plan returns every design's closed-form numbers and the run's own (the
// expected count of the K-th key), without simulating anything.
func (st *Setup) Plan() []metrics.Result {
	rs := st.Kind.Plan()
	for _, d := range st.Members {
		for _, l := range d.Plan {
			rs = append(rs, planRow(st.Scenario.Name, d.Name(), l))
		}
	}
	return rs
}

// planRow is a plan-only row: the closed-form number, nothing measured.
func planRow(scenario, strategy string, l strategies.PlanLine) metrics.Result {
	scale := metrics.Sim
	if l.Full {
		scale = metrics.Full
	}
	return metrics.Result{Scenario: scenario, Strategy: strategy, Metric: l.Metric, Unit: l.Unit,
		Plan: metrics.PlanOf(l.Value), Scale: scale, Note: l.Note}
}

// Run simulates the scenario and scores every design. If ctx ends first,
// the report holds what was measured so far, Partial is set and the
// context's error is returned with it.
func (st *Setup) Run(ctx context.Context) (*Report, error) {
	run := st.Kind.Run
	if st.Scenario.Trials > 1 {
		run = st.runTrials
	}
	rep, err := run(ctx)
	if rep != nil {
		st.sweepCurves(rep)
		for _, n := range rep.Notes {
			if !slices.Contains(st.Notes, n) {
				st.Notes = append(st.Notes, n)
			}
		}
	}
	return rep, err
}

// Report is what a run measured.
type Report struct {
	Results []metrics.Result
	Series  []metrics.Series
	Tables  []metrics.Table
	Partial bool // the run was stopped before the stream ended, or while it was scored
	// Notes are what a reader must know of the rows that no row says: that
	// the plans of a stopped run are for what it fed, what scoring left
	// out when it was cut short. Run adds them to Setup.Notes.
	Notes []string
}

// harness assembles the pieces a kind of run is given (kind.go): the
// Setup's lineup, a feeder and a pool of workers as Options say, the rows
// of the scenario, its progress line, and the twins' backend, whose notes
// go to Setup.Notes.
func (st *Setup) harness() *Harness {
	scn := st.Scenario
	w := workersOf(st.opts)
	p := StageProgress{scenario: scn.Name, report: st.opts.Progress, every: st.opts.ProgressEvery}
	return &Harness{
		Ctx:      context.Background(),
		Scn:      scn,
		Lineup:   st.Lineup,
		Feeder:   Feeder{Workers: w, progress: p},
		Rows:     ScoreRows{Scenario: scn.Name, Step: scn.Step, TruthName: TruthName(scn)},
		Workers:  w,
		Progress: p,
		Twins:    Twins{backend: st.opts.Store, scenario: scn.Name, notes: &st.Notes},
	}
}

// TruthName is the pseudo-strategy whose rows describe the stream itself:
// "truth", or "truth-STEP" in a scenario told in steps.
func TruthName(scn *scenarios.Scenario) string {
	if scn.Step != "" {
		return "truth-" + scn.Step
	}
	return "truth"
}
