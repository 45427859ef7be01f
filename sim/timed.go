package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
)

// The timed stream on the simulated cluster: writes over simulated time in
// phases, reads, resends and faults, each design on its own cluster; the
// hot counter's kind of run. It scores what every keyed stream is scored
// on, and what a design on servers adds: the load on the cluster, what
// readers were shown, and what a crash lost.
//
// The steady state and the shutdown are told apart. The cluster's load is
// taken at the stream's end; then the designs that hold counts back (local
// batching) send what they hold, after the end, as an app would on
// shutdown. Those ops count in the final values and in a row of their own,
// never in the busiest key-second of the stream.

// timedKind runs with the keyed questions' pieces, a feeder, each design's
// cluster and the twins' real stores.
type timedKind struct {
	keyed
	feeder   engine.Feeder
	clusters engine.Clusters
	twins    engine.Twins
	spec     *scenarios.Timed
	src      *workload.Timed
	faults   []strategies.Fault
	// stream is what is fed: src, or a log read once (log_timed.go); dedup:
	// the truth counts a repeated ID once.
	stream engine.Source
	dedup  bool
	// log, for a log's replay, counts what the truth is fed and, once the
	// stream is read, makes spec the log's own (its span, its rates) and
	// works the plans out for it; nil for the generator.
	log timedLog
}

// timedLog is what a timed replay of a log adds to the runner: a truth that
// counts the log's figures as it is fed, and the step once it is read
// (bad input — a fault past the log's end — as an error).
type timedLog interface {
	observer(tr *engine.Truth) engine.Observer
	read(rep *engine.Report) error
}

func init() { engine.DefineKind("timed", newTimedKind) }

func newTimedKind(h *engine.Harness) (engine.Kind, error) {
	return newTimedOf(h, h.Scn.Run.(*scenarios.Timed))
}

// newTimedOf builds the timed kind of spec: the scenario's own stream, or
// the timed stream under a kind that refines it (a board's).
func newTimedOf(h *engine.Harness, spec *scenarios.Timed) (*timedKind, error) {
	src, err := workload.NewTimed(timedConfig(h.Scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	events := int64(math.Round(src.ExpectedWrites()))
	env := &h.Lineup.Env
	env.Keys = min(spec.Keys, uint64(max(events, 1)))
	env.Events = events
	env.Duration = spec.Duration()
	if reads := spec.ExpectedReads(); reads > 0 {
		// Poisson or even: the count stays below its mean + 6σ but once in
		// a billion runs; past that the record simply grows.
		env.Reads = int64(reads + 6*math.Sqrt(reads) + 16)
	}
	k, err := newTimedRunner(h, spec, newKeyed(h, spec.Keys, src.ExpectedWrites(), src.Prob, ""))
	if err != nil {
		return nil, err
	}
	k.src, k.stream, k.dedup = src, src, spec.Resend > 0
	return k, nil
}

// newTimedRunner is the runner of a timed stream shaped as spec says, with
// the scenario's cluster and faults; its stream is the caller's to set.
func newTimedRunner(h *engine.Harness, spec *scenarios.Timed, kk keyed) (*timedKind, error) {
	cl, err := h.Clusters()
	if err != nil {
		return nil, err
	}
	k := &timedKind{keyed: kk, feeder: h.Feeder, clusters: cl, twins: h.Twins, spec: spec}
	for _, f := range h.Scn.Faults {
		k.faults = append(k.faults, strategies.Fault{At: f.At, Kind: strategies.FaultKind(f.Kind), Target: f.Target,
			For: f.For, Share: f.Share, Servers: f.Servers, Nodes: f.Nodes, Delay: f.Delay, Lag: f.Lag})
	}
	return k, nil
}

// timedConfig is the generator's config of a timed stream spec.
func timedConfig(seed uint64, spec *scenarios.Timed) workload.TimedConfig {
	cfg := workload.TimedConfig{
		Seed: seed, Label: streamLabel, Keys: spec.Keys, S: spec.Exponent(), Scramble: spec.Scramble,
		Reads: spec.Reads, Resend: spec.Resend, ResendDelay: spec.ResendDelay,
	}
	if spec.Arrivals == "poisson" {
		cfg.Arrivals = workload.Poisson
	}
	for _, p := range spec.Phases {
		cfg.Phases = append(cfg.Phases, workload.Phase{Duration: p.Duration, Rate: p.Rate, To: p.To})
	}
	return cfg
}

// RealStores: a timed stream's designs on servers have twins on a real
// store.
func (k *timedKind) RealStores() bool { return true }

func (k *timedKind) Describe() string {
	w := k.spec
	return fmt.Sprintf("Timed stream: %s writes expected over %s s in %s, %s arrivals, %s reads/s, %g resent, over %s.",
		metrics.Format(math.Round(w.ExpectedWrites())), metrics.Format(float64(w.Duration())/1e9), engine.Count(float64(len(w.Phases)), "phase"), w.Arrivals,
		metrics.Format(w.Reads), w.Resend, engine.Count(float64(w.Keys), "key"))
}

func (k *timedKind) Accepts(*strategies.Type) error { return nil }

func (k *timedKind) Memory() (int64, int64) {
	w, l := k.spec, k.lineup
	need := int64(l.Env.Keys) * truthBytesPerKey
	if k.dedup { // the truth remembers every write's ID
		need += int64(w.ExpectedWrites()) * truthBytesPerKey
	}
	need += int64(w.ExpectedReads()) * (24 + 8*int64(len(l.Members))) // the truth's record, and each reader's
	if w.Keys <= engine.HistoryMaxKeys {
		need += int64(w.Keys) * 8 * (w.Duration()/1e6 + 1) // per-ms history
	}
	if c := k.clusters.Cfg; c != nil { // per key-second and node-second counts, for each design's cluster
		secs := w.Duration()/1e9 + 1
		need += int64(len(l.Members)) * secs * (12*int64(min(l.Env.Keys, 1<<16)) + 8*int64(c.Nodes))
	}
	return need, 1
}

func (k *timedKind) Run(ctx context.Context) (*engine.Report, error) {
	w := k.spec
	ctx, rr, cause := k.twins.Start(ctx, len(k.lineup.Members))
	defer rr.Close()
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := engine.NewTruth(int(k.lineup.Env.Keys), k.dedup, w.Keys <= engine.HistoryMaxKeys)
	var obs engine.Observer = tr
	if k.log != nil {
		obs = k.log.observer(tr)
	}
	r, err := k.newRun(ctx, obs, rr)
	if err != nil {
		return nil, err
	}
	rep := &engine.Report{}
	events, err := k.feeder.Feed(ctx, r.Run, k.stream, w.Batch)
	if err == nil && k.log != nil {
		if err := k.log.read(rep); err != nil {
			return nil, err // bad input: nothing is reported
		}
		w = k.spec // the log's own span and rates
	}
	if err == nil {
		r.Finish(w.Duration())
		err = k.feeder.SecondPass(ctx, r.Run, k.stream, w.Batch)
	} else {
		r.TakeSteady(r.FedUntil + 1) // what was fed, with nothing sent after it
	}
	if err == nil {
		err = ctx.Err() // a real store failed in the shutdown
	}
	err = cause(err)
	if err == nil {
		rr.Settle()
	}
	rep.Partial = err != nil
	kk, writesPlan, readsPlan := k.keyed, w.ExpectedWrites(), w.ExpectedReads()
	if rep.Partial { // every plan for what was fed
		f := engine.TimedFed(w, events, float64(tr.N), r.FedUntil)
		k.lineup.Replan(rep, f)
		writesPlan, _ = engine.PhasesUntil(w.Phases, f.Until)
		readsPlan = w.Reads * float64(f.Until) / 1e9
		kk.writes = writesPlan
	}
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "every event fed: writes, reads and resends")
	k.rows.Truth(rep, metrics.Writes, float64(tr.N), "events", metrics.PlanOf(math.Round(writesPlan)), "logical writes; plan ∫ rate dt")
	k.rows.Truth(rep, metrics.Reads, float64(len(tr.Reads)), "events", metrics.PlanOf(math.Round(readsPlan)), "read events")
	if w.Resend > 0 || k.log != nil && k.dedup {
		k.rows.Truth(rep, metrics.Resends, float64(tr.Dups), "events", metrics.PlanOf(math.Round(w.Resend*writesPlan)), "writes sent twice (same ID)")
	}
	kk.score(sctx, rep, r.Run, tr, events, func(s *engine.Scorer, i int) { k.servers(sctx, rep, s, r, tr, i) }, nil)
	rr.Table(rep)
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// newRun builds every design, each on a simulated cluster of its own when
// the scenario has one, with the truth tr and the scenario's faults.
func (k *timedKind) newRun(ctx context.Context, tr engine.Observer, rr *engine.RealRun) (*engine.ClusterRun, error) {
	r, err := k.clusters.NewRun(ctx, k.lineup, tr, rr)
	if r != nil {
		r.Faults = k.faults
	}
	return r, err
}
