package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

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
}

// design is one strategy entry of the scenario, decoded and planned.
type design struct {
	spec   scenarios.Strategy
	typ    *strategies.Type
	params strategies.Params
	plan   []strategies.PlanLine
}

// source is a chunked event stream: a count stream or a timed one.
type source interface {
	Chunks() int
	Chunk(i int, buf []workload.Event) []workload.Event
}

// distinctTypes lists the design types that count distinct ids.
func distinctTypes() []string {
	var names []string
	for _, t := range strategies.Types() {
		if t.Answers(strategies.FamilyDistinct) {
			names = append(names, t.Name)
		}
	}
	return names
}

// planned is the design's simulated-scale plan for metric, or nil.
func (d design) planned(metric string) *float64 {
	for _, l := range d.plan {
		if l.Metric == metric && !l.Full {
			return metrics.PlanOf(l.Value)
		}
	}
	return nil
}

// planRows appends the design's closed-form numbers that no measured row
// carries already: every full-scale line, and the simulated-scale lines
// whose metric was not measured.
func (st *Setup) planRows(rs []metrics.Result, d design, measured map[string]bool) []metrics.Result {
	for _, l := range d.plan {
		scale := metrics.Sim
		if l.Full {
			scale = metrics.Full
		} else if measured[l.Metric] {
			continue
		}
		rs = append(rs, st.result(d.spec.Name, l.Metric, l.Value, l.Unit, scale, l.Note))
	}
	return rs
}

// Setup is a scenario ready to run: every parameter checked, every plan
// worked out, nothing large allocated yet.
type Setup struct {
	Scenario *scenarios.Scenario
	src      source
	zipf     *workload.Zipf // the key distribution, for the expected counts
	audience *workload.Audience
	grid     []uint64 // a profile's cardinalities
	env      strategies.Env
	designs  []design
	faults   []strategies.Fault
	opts     Options
}

// streamLabel names the scenario's event stream in the chunk seeds.
const streamLabel = "events"

// Prepare checks a loaded scenario against the registry and the memory
// limit. Every error is a *scenarios.Error naming the file and line.
func Prepare(scn *scenarios.Scenario, opts Options) (*Setup, error) {
	if opts.MemoryLimit == 0 {
		opts.MemoryLimit = DefaultMemoryLimit
	}
	st := &Setup{
		Scenario: scn,
		opts:     opts,
		env: strategies.Env{
			Seed: scn.Seed,
			Top:  scn.Questions.Top,
			Full: strategies.Assumptions(scn.Assumptions),
		},
	}
	if err := st.prepareWorkload(); err != nil {
		return nil, err
	}
	for _, f := range scn.Faults {
		st.faults = append(st.faults, strategies.Fault{At: f.At, Kind: strategies.FaultKind(f.Kind), Target: f.Target})
	}
	for i, spec := range scn.Strategies {
		typ, err := strategies.Lookup(spec.Type)
		if err != nil {
			return nil, scenarios.Errorf(spec.Pos, "strategies[%d] %s: %v", i, spec.Name, err)
		}
		raw := make([]strategies.Param, len(spec.Params))
		for j, p := range spec.Params {
			raw[j] = strategies.Param{Key: p.Key, Value: p.Value, Line: p.Pos.Line}
		}
		params, err := typ.Decode(raw)
		if err != nil {
			pos := spec.Pos
			var pe *strategies.ParamError
			if errors.As(err, &pe) && pe.Key != "" {
				pos = scn.ParamPos(i, pe.Key)
			}
			return nil, scenarios.Errorf(pos, "strategies[%d] %s: %v", i, spec.Name, err)
		}
		if err := typ.Check(params, st.env, scn.Cluster.Given); err != nil {
			pos := spec.Pos
			var pe *strategies.ParamError
			if errors.As(err, &pe) && pe.Key != "" {
				pos = scn.ParamPos(i, pe.Key)
			}
			return nil, scenarios.Errorf(pos, "strategies[%d] %s: %v", i, spec.Name, err)
		}
		if (st.audience != nil || st.grid != nil) && !typ.Answers(strategies.FamilyDistinct) {
			return nil, scenarios.Errorf(spec.Pos, "strategies[%d] %s: a %s does not count distinct ids (allowed with an audience or a profile: %s)",
				i, spec.Name, spec.Type, strings.Join(distinctTypes(), ", "))
		}
		st.designs = append(st.designs, design{spec: spec, typ: typ, params: params, plan: typ.Plan(params, st.env)})
	}
	if need := st.memoryNeeded(); need > opts.MemoryLimit {
		pos := scn.Workload.Pos
		if scn.Profile != nil {
			pos = scn.Profile.Pos
		}
		return nil, scenarios.Errorf(pos, "the run would need about %s bytes (truth and designs), more than the limit of %s bytes: lower workload.keys or workload.events, or the designs' sizes",
			metrics.Format(float64(need)), metrics.Format(float64(opts.MemoryLimit)))
	}
	return st, nil
}

// truthBytesPerKey is what the ground truth costs a distinct key: the map
// entry with its overhead, and the sorted copies made when scoring.
const truthBytesPerKey = 64

// memoryNeeded estimates the bytes a run holds at its peak: the truth, every
// design's planned simulated-scale bytes, and the stream's chunk buffers.
func (st *Setup) memoryNeeded() int64 {
	var need int64
	copies := int64(1) // instances of each design held at once
	w := st.Scenario.Workload
	switch {
	case st.audience != nil:
		copies = int64(st.audience.Days()) // one a day; the truth is the audience's layout
	case st.grid != nil:
		copies = int64(min(st.workers(), st.Scenario.Profile.Trials)) // trials run side by side
	default:
		need = int64(st.env.Keys) * truthBytesPerKey
		if w.Resend > 0 { // the truth remembers every write's ID
			need += int64(w.ExpectedWrites()) * truthBytesPerKey
		}
		if w.Timed() {
			reads := int64(w.Reads * float64(w.Duration()) / 1e9)
			need += reads * (24 + 8*int64(len(st.designs))) // the truth's record, and each reader's
			if w.Keys <= historyMaxKeys {
				need += int64(w.Keys) * 8 * (w.Duration()/1e6 + 1) // per-ms history
			}
			if st.Scenario.Cluster.Given { // per key-second and node-second counts, for each design's cluster
				secs := w.Duration()/1e9 + 1
				need += int64(len(st.designs)) * secs * (12*int64(min(st.env.Keys, 1<<16)) + 8*int64(st.Scenario.Cluster.Nodes))
			}
		}
	}
	for _, d := range st.designs {
		bytes, total := 0.0, 0.0
		for _, l := range d.plan {
			switch {
			case l.Full:
			case l.Metric == "bytes":
				bytes = l.Value
			case l.Metric == "total_bytes":
				total = l.Value
			}
		}
		need += copies * int64(max(bytes, total))
	}
	return need
}

// Plan returns every design's closed-form numbers and the workload's own
// (the expected count of the K-th key), without simulating anything.
func (st *Setup) Plan() []metrics.Result {
	var rs []metrics.Result
	if k := st.Scenario.Questions.Top; k > 0 && st.zipf != nil && uint64(k) <= st.Scenario.Workload.Keys {
		rs = append(rs, st.result(st.truthName(), "kth_true_count", st.expectedCount(uint64(k)), "events", metrics.Sim,
			fmt.Sprintf("N·P(rank %d) = N·k^-s/H(n,s)", k)))
	}
	for _, d := range st.designs {
		for _, l := range d.plan {
			scale := metrics.Sim
			if l.Full {
				scale = metrics.Full
			}
			rs = append(rs, st.result(d.spec.Name, l.Metric, l.Value, l.Unit, scale, l.Note))
		}
	}
	return rs
}

// prepareWorkload builds the scenario's stream, audience or profile grid
// and sizes the Env the designs are built for.
func (st *Setup) prepareWorkload() error {
	scn := st.Scenario
	w := scn.Workload
	switch {
	case scn.Profile != nil:
		st.grid = profileGrid(*scn.Profile)
		st.env.Keys = uint64(scn.Profile.Max)
		st.env.Events = int64(scn.Profile.Max)
		return nil
	case w.Audience != nil:
		a, err := newAudience(scn)
		if err != nil {
			return scenarios.Errorf(w.Audience.Pos, "audience: %v", err)
		}
		st.audience = a
		for d := range a.Days() {
			st.env.Keys = max(st.env.Keys, uint64(a.Distinct(d)))
			st.env.Events += a.Events(d)
		}
		return nil
	}
	s := w.S
	if w.Distribution == "uniform" {
		s = 0
	}
	zipf, err := workload.NewZipf(w.Keys, s)
	if err != nil {
		return scenarios.Errorf(w.Pos, "workload: %v", err)
	}
	src, events, err := newSource(scn, s)
	if err != nil {
		return scenarios.Errorf(w.Pos, "workload: %v", err)
	}
	st.src, st.zipf = src, zipf
	st.env.Keys = min(w.Keys, uint64(max(events, 1)))
	st.env.Events = events
	st.env.Duration = w.Duration()
	if reads := w.Reads * float64(w.Duration()) / 1e9; reads > 0 {
		// Poisson or even: the count stays below its mean + 6σ but once in
		// a billion runs; past that the record simply grows.
		st.env.Reads = int64(reads + 6*math.Sqrt(reads) + 16)
	}
	return nil
}

// result is a plan-only row: its value is the closed-form number.
func (st *Setup) result(strategy, metric string, v float64, unit string, scale metrics.Scale, note string) metrics.Result {
	return metrics.Result{Scenario: st.Scenario.Name, Strategy: strategy, Metric: metric, Value: v, Unit: unit,
		Plan: metrics.PlanOf(v), Scale: scale, Note: note}
}

// expectedCount is the expected count of the key of the given rank.
func (st *Setup) expectedCount(rank uint64) float64 {
	return st.Scenario.Workload.ExpectedWrites() * st.zipf.Prob(rank)
}

// newSource builds the scenario's stream: a count stream, or a timed one
// when the workload gives phases. events is the number of writes the
// stream holds, or is expected to hold (timed streams), without resends.
func newSource(scn *scenarios.Scenario, s float64) (source, int64, error) {
	w := scn.Workload
	if !w.Timed() {
		stream, err := workload.NewStream(workload.StreamConfig{
			Seed: scn.Seed, Label: streamLabel, Events: w.Events, Keys: w.Keys,
			S: s, Scramble: w.Scramble, Rate: w.Rate,
		})
		return stream, w.Events, err
	}
	cfg := workload.TimedConfig{
		Seed: scn.Seed, Label: streamLabel, Keys: w.Keys, S: s, Scramble: w.Scramble,
		Reads: w.Reads, Resend: w.Resend, ResendDelay: w.ResendDelay,
	}
	if w.Arrivals == "poisson" {
		cfg.Arrivals = workload.Poisson
	}
	for _, p := range w.Phases {
		cfg.Phases = append(cfg.Phases, workload.Phase{Duration: p.Duration, Rate: p.Rate, To: p.To})
	}
	timed, err := workload.NewTimed(cfg)
	if err != nil {
		return nil, 0, err
	}
	return timed, int64(math.Round(timed.ExpectedWrites())), nil
}

// Run simulates the scenario and scores every design. If ctx ends first,
// the report holds what was measured so far, Partial is set and the
// context's error is returned with it.
func (st *Setup) Run(ctx context.Context) (*Report, error) {
	switch {
	case st.audience != nil:
		return st.runAudience(ctx)
	case st.grid != nil:
		return st.runProfile(ctx)
	}
	w := st.Scenario.Workload
	r := &run{
		truth:    newTruth(int(st.env.Keys), w.Resend > 0, w.Timed() && w.Keys <= historyMaxKeys),
		designs:  make([]strategies.Strategy, len(st.designs)),
		clusters: make([]*Cluster, len(st.designs)),
		elapsed:  make([]int64, len(st.designs)),
		faults:   st.faults,
	}
	for i, d := range st.designs {
		env := st.env
		if c := st.Scenario.Cluster; c.Given {
			cl, err := NewCluster(ClusterConfig{Nodes: c.Nodes, KeyCapacity: c.KeyCapacity, NodeCapacity: c.NodeCapacity, Seed: st.Scenario.Seed})
			if err != nil {
				return nil, scenarios.Errorf(c.Pos, "cluster: %v", err)
			}
			r.clusters[i], env.Store = cl, cl
		}
		s, err := d.typ.Build(d.params, env)
		if err != nil {
			return nil, scenarios.Errorf(d.spec.Pos, "strategies[%d] %s: %v", i, d.spec.Name, err)
		}
		r.designs[i] = s
	}
	events, err := st.feed(ctx, r, st.src)
	if err == nil {
		r.finish(w.Duration())
	}
	rep := st.score(r, events)
	if err != nil {
		rep.Partial = true
		return rep, err
	}
	return rep, nil
}

// Report is what a run measured.
type Report struct {
	Results []metrics.Result
	Series  []metrics.Series
	Tables  []metrics.Table
	Partial bool // the run was stopped before the stream ended
}
