package sim

import (
	"context"
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/strategies"
	"countsim/workload"
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

type timedKind struct {
	keyed
	spec   *scenarios.Timed
	src    *workload.Timed
	faults []strategies.Fault
}

func init() { defineKind("timed", newTimedKind) }

func newTimedKind(st *Setup) (kind, error) {
	return newTimedOf(st, st.Scenario.Run.(*scenarios.Timed))
}

// newTimedOf builds the timed kind of spec: the scenario's own stream, or
// the timed stream under a kind that refines it (a board's).
func newTimedOf(st *Setup, spec *scenarios.Timed) (*timedKind, error) {
	cfg := workload.TimedConfig{
		Seed: st.Scenario.Seed, Label: streamLabel, Keys: spec.Keys, S: spec.Exponent(), Scramble: spec.Scramble,
		Reads: spec.Reads, Resend: spec.Resend, ResendDelay: spec.ResendDelay,
	}
	if spec.Arrivals == "poisson" {
		cfg.Arrivals = workload.Poisson
	}
	for _, p := range spec.Phases {
		cfg.Phases = append(cfg.Phases, workload.Phase{Duration: p.Duration, Rate: p.Rate, To: p.To})
	}
	src, err := workload.NewTimed(cfg)
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	events := int64(math.Round(src.ExpectedWrites()))
	st.env.Keys = min(spec.Keys, uint64(max(events, 1)))
	st.env.Events = events
	st.env.Duration = spec.Duration()
	if reads := spec.ExpectedReads(); reads > 0 {
		// Poisson or even: the count stays below its mean + 6σ but once in
		// a billion runs; past that the record simply grows.
		st.env.Reads = int64(reads + 6*math.Sqrt(reads) + 16)
	}
	if c := st.Scenario.Cluster; c != nil {
		if _, err := cluster.New(clusterConfig(st)); err != nil { // a capacity the ticks cannot time
			return nil, scenarios.Errorf(c.Pos, "%v", err)
		}
	}
	k := &timedKind{keyed: keyed{st: st, keys: spec.Keys, writes: src.ExpectedWrites(), prob: src.Prob}, spec: spec, src: src}
	for _, f := range st.Scenario.Faults {
		k.faults = append(k.faults, strategies.Fault{At: f.At, Kind: strategies.FaultKind(f.Kind), Target: f.Target})
	}
	return k, nil
}

// count is n and its noun, singular for 1: "1 key", "1,000 keys".
func count(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return metrics.Format(n) + " " + noun + "s"
}

// clusterConfig is the simulated cluster of the scenario.
func clusterConfig(st *Setup) cluster.Config {
	c := st.Scenario.Cluster
	return cluster.Config{Nodes: c.Nodes, KeyCapacity: c.KeyCapacity, NodeCapacity: c.NodeCapacity, Seed: st.Scenario.Seed}
}

// realStores: a timed stream's designs on servers have twins on a real
// store.
func (k *timedKind) realStores() bool { return true }

func (k *timedKind) describe() string {
	w := k.spec
	return fmt.Sprintf("Timed stream: %s writes expected over %s s in %s, %s arrivals, %s reads/s, %g resent, over %s.",
		metrics.Format(math.Round(w.ExpectedWrites())), metrics.Format(float64(w.Duration())/1e9), count(float64(len(w.Phases)), "phase"), w.Arrivals,
		metrics.Format(w.Reads), w.Resend, count(float64(w.Keys), "key"))
}

func (k *timedKind) accepts(*strategies.Type) error { return nil }

func (k *timedKind) memory() (int64, int64) {
	st, w := k.st, k.spec
	need := int64(st.env.Keys) * truthBytesPerKey
	if w.Resend > 0 { // the truth remembers every write's ID
		need += int64(w.ExpectedWrites()) * truthBytesPerKey
	}
	need += int64(w.ExpectedReads()) * (24 + 8*int64(len(st.designs))) // the truth's record, and each reader's
	if w.Keys <= historyMaxKeys {
		need += int64(w.Keys) * 8 * (w.Duration()/1e6 + 1) // per-ms history
	}
	if c := st.Scenario.Cluster; c != nil { // per key-second and node-second counts, for each design's cluster
		secs := w.Duration()/1e9 + 1
		need += int64(len(st.designs)) * secs * (12*int64(min(st.env.Keys, 1<<16)) + 8*int64(c.Nodes))
	}
	return need, 1
}

// timedRun is a run on clusters, with what was taken of them at the end.
type timedRun struct {
	*run
	truth    *truth
	steady   []cluster.Stats // each cluster at the stream's end
	shutdown []int64         // the writes each design sent after it
	drained  []int64         // when each cluster had served everything, ns
	finished bool            // the stream ran to its end
	real     *realRun        // the twins' real stores; nil without any
}

func (k *timedKind) run(ctx context.Context) (*Report, error) {
	st := k.st
	w := k.spec
	ctx, rr, cause := withFailure(ctx, len(st.designs))
	defer rr.close()
	tr := newTruth(int(st.env.Keys), w.Resend > 0, w.Keys <= historyMaxKeys)
	r, err := k.newRun(ctx, tr, rr)
	if err != nil {
		return nil, err
	}
	r.truth = tr
	events, err := st.feed(ctx, r.run, k.src, w.Batch)
	if err == nil {
		r.finish(w.Duration())
		err = st.secondPass(ctx, r.run, k.src, w.Batch)
	} else {
		r.takeSteady(w.Duration()) // what was fed, with nothing sent after it
	}
	if err == nil {
		err = ctx.Err() // a real store failed in the shutdown
	}
	err = cause(err)
	if err == nil {
		rr.settle()
	}
	rep := &Report{Partial: err != nil}
	st.truthRow(rep, metrics.Events, float64(events), "events", nil, "every event fed: writes, reads and resends")
	st.truthRow(rep, metrics.Writes, float64(tr.n), "events", metrics.PlanOf(math.Round(w.ExpectedWrites())), "logical writes; plan ∫ rate dt")
	st.truthRow(rep, metrics.Reads, float64(len(tr.reads)), "events", metrics.PlanOf(math.Round(w.ExpectedReads())), "read events")
	if w.Resend > 0 {
		st.truthRow(rep, metrics.Resends, float64(tr.dups), "events", metrics.PlanOf(math.Round(w.Resend*w.ExpectedWrites())), "writes sent twice (same ID)")
	}
	k.score(rep, r.run, tr, events, func(s *scorer, i int) { k.servers(s, r, i) }, nil)
	st.realTable(rep, rr)
	return rep, err
}

// newRun builds every design, each on a simulated cluster of its own when
// the scenario has one, with the truth tr and the scenario's faults.
func (k *timedKind) newRun(ctx context.Context, tr observer, rr *realRun) (*timedRun, error) {
	r, err := newClusterRun(ctx, k.st, tr, rr)
	if r != nil {
		r.faults = k.faults
	}
	return r, err
}

// newClusterRun builds every design of st, each on a simulated cluster of
// its own when the scenario has one, with the truth tr; a twin gets the
// real store rr opens for it (rr may be nil where there are none).
func newClusterRun(ctx context.Context, st *Setup, tr observer, rr *realRun) (*timedRun, error) {
	r := &timedRun{run: &run{truth: tr, clusters: make([]*cluster.Cluster, len(st.designs))}, real: rr}
	stores := make([]strategies.Store, len(st.designs))
	for i := range st.designs {
		if rr == nil {
			break
		}
		s, err := rr.open(ctx, st, i, true)
		if err != nil {
			return nil, err
		}
		stores[i] = s
	}
	err := r.build(st, func(i int) strategies.Env {
		env := st.env
		if stores[i] != nil {
			env.Store = stores[i]
			return env
		}
		if st.Scenario.Cluster != nil {
			cl, cerr := cluster.New(clusterConfig(st))
			if cerr != nil {
				panic(fmt.Sprintf("sim: a cluster Prepare accepted: %v", cerr))
			}
			r.clusters[i], env.Store = cl, cl
		}
		return env
	})
	return r, err
}

// finish delivers the faults after the last event, takes each cluster's
// steady state at the stream's end, then has the designs that hold counts
// back send them at the end, and notes what that shutdown sent and when
// each cluster had served everything.
func (r *timedRun) finish(end int64) {
	for i := range r.designs {
		for r.next[i] < len(r.faults) {
			r.fault(i)
		}
	}
	r.takeSteady(end)
	n := len(r.designs)
	r.shutdown, r.drained = make([]int64, n), make([]int64, n)
	for i, c := range r.clusters {
		if c != nil {
			r.shutdown[i] = -c.Writes()
		}
	}
	for _, d := range r.designs {
		if f, ok := d.(strategies.Flusher); ok {
			f.Flush(end)
		}
	}
	for i, c := range r.clusters {
		if c != nil {
			r.shutdown[i] += c.Writes()
			r.drained[i] = c.DrainedAt()
		}
	}
	r.finished = true
}

// takeSteady takes each cluster's statistics of the stream, which ended at
// end.
func (r *timedRun) takeSteady(end int64) {
	r.steady = make([]cluster.Stats, len(r.clusters))
	for i, c := range r.clusters {
		if c != nil {
			r.steady[i] = c.Stats(end)
		}
	}
}
