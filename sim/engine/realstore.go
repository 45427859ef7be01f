package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"countsim/metrics"
	"countsim/strategies"
)

// Real stores: the same designs on a real engine beside the simulated
// cluster. With Options.Store set, every design that lives on servers runs
// twice on the same events: as the scenario says, on its simulated cluster,
// and as a twin named NAME@BACKEND (striped-32@redis) on a store the backend
// opens for it — a real Redis server or Redis Cluster (package redisstore).
// The twin is scored by the same scorers (final counts, what readers were
// shown, a distinct count against the truth) and adds what only a real
// engine measures: the rate it achieved, the latency of its ops from the
// moment each was due, and the ops each of its nodes took. It carries no
// expectation of the scenario's: those state the simulation's numbers.
//
// A real store replays the stream at the scenario's pace (or as fast as it
// can, with the backend's pace "max"); where it fell behind, kept_up is 0 and
// the run's notes say that its latency and reads show the server's backlog,
// not the scenario's. A store that fails (a refused connection, a server
// gone mid-run) stops the run: the report is partial and the run's error
// names the failure.

// Twins is how a kind reaches the real stores of its Twins (lineup.twin):
// the backend that opens them, and where a replay that fell behind is
// noted (Setup.Notes). A kind whose designs may have Twins keeps it and
// starts a realRun for each run.
type Twins struct {
	backend  strategies.Backend // nil: no real store (Options.Store)
	scenario string
	notes    *[]string
}

// RealRun is a run's real stores: one for each twin, nil for the others.
type RealRun struct {
	Twins
	// Faults are the run's faults: a store that applies store faults
	// itself (strategies.FaultedStore: a real cluster's failover) is given
	// them when it is opened.
	Faults []strategies.Fault
	Stores []strategies.RealStore
	names  []string // the twins' names, for the node tables
	sims   []string // the names of the designs they twin, for the side-by-side tables
	fail   func(error)
}

// Open opens design d's store when it is a twin, as design i of the run.
func (rr *RealRun) Open(ctx context.Context, i int, d Design, paced bool) (strategies.Store, error) {
	if d.Real == "" {
		return nil, nil
	}
	s, err := rr.backend.Open(ctx, d.Name(), paced, rr.fail)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	rr.Stores[i], rr.names[i], rr.sims[i] = s, d.Name(), d.Spec.Name
	if err := rr.storeFaults(s); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Name(), err)
	}
	return s, nil
}

// storeFaults gives a real store the run's faults. A store fault of a
// kind the real store must apply itself (all but node-loss, which a twin
// has no simulated node for) on a store that cannot is refused.
func (rr *RealRun) storeFaults(s strategies.RealStore) error {
	if fs, ok := s.(strategies.FaultedStore); ok {
		return fs.StoreFaults(rr.Faults)
	}
	for _, f := range rr.Faults {
		if f.Kind.StoreFault() && f.Kind != strategies.NodeLoss {
			return fmt.Errorf("the real store applies no store fault (%s at %v)", f.Kind, time.Duration(f.At))
		}
	}
	return nil
}

// Settle tells every store the replay is over.
func (rr *RealRun) Settle() {
	for _, s := range rr.Stores {
		if s != nil {
			s.Settle()
		}
	}
}

// Close closes every store, returning the first error.
func (rr *RealRun) Close() error {
	var first error
	for _, s := range rr.Stores {
		if s != nil {
			if err := s.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// Start returns a context that a store's failure cancels, and the realRun
// of a run of n designs whose fail does it; cause gives the error to
// return.
func (tw Twins) Start(ctx context.Context, n int) (context.Context, *RealRun, func(error) error) {
	ctx, cancel := context.WithCancelCause(ctx)
	rr := &RealRun{Twins: tw, Stores: make([]strategies.RealStore, n), names: make([]string, n), sims: make([]string, n), fail: func(err error) { cancel(err) }}
	cause := func(err error) error {
		if err != nil {
			if c := context.Cause(ctx); c != nil && c != context.Canceled {
				return c
			}
		}
		return err
	}
	return ctx, rr, cause
}

// Score adds what the real store of design i (a twin: rr.stores[i] is
// not nil) measured of its replay over a stream of duration ns (0:
// untimed), and notes a replay that fell behind.
func (rr *RealRun) Score(s *Scorer, i int, duration int64) {
	rs := rr.Stores[i].Stats()
	s.Add(metrics.StoreOps, float64(rs.Ops), "ops", nil, fmt.Sprintf("%s writes and %s reads sent to the real store",
		metrics.Format(float64(rs.Writes)), metrics.Format(float64(rs.Reads))))
	s.Add(metrics.RoundTrips, float64(rs.RoundTrips), "pipelines", nil, "one round trip to one node each")
	if rs.Keys > 0 {
		s.Add(metrics.KeysUsed, float64(rs.Keys), "keys", s.Plan(metrics.KeysUsed), "keys written or read on the real store")
	}
	if duration > 0 && rs.Ops > 0 {
		s.Add(metrics.OfferedOps, Round(float64(rs.Ops)/(float64(duration)/1e9), 1), "ops/s", nil, "ops / the stream's length: what the scenario asks of the store")
	}
	if rs.Wall > 0 && rs.Ops > 0 {
		s.Timing(metrics.AchievedOps, Round(float64(rs.Ops)/rs.Wall.Seconds(), 1), "ops/s", "ops / wall time from the first send to the last reply")
	}
	if rs.Latency.Count() == 0 {
		return
	}
	from := "from its due time (open loop: waiting behind the schedule counts)"
	if !rs.Paced {
		from = "from its send (not paced: an untimed stream, or -pace max)"
	}
	q := func(v int64) float64 { return Round(float64(v)/1e9, 6) }
	s.Timing(metrics.LatencyP50, q(rs.Latency.Quantile(0.5)), "s", "an op's reply "+from+", median")
	s.Timing(metrics.LatencyP99, q(rs.Latency.Quantile(0.99)), "s", "99th percentile")
	s.Timing(metrics.LatencyMax, q(rs.Latency.Max()), "s", "the slowest op")
	if rs.Paced {
		s.Timing(metrics.Behind, Round(rs.Behind.Seconds(), 6), "s", "the last reply after the last op's due time")
		kept := 0.0
		if rs.KeptUp() {
			kept = 1
		}
		s.Add(metrics.KeptUp, kept, "flag", nil, fmt.Sprintf("1: every op answered within %s of its due time", strategies.KeptUpWithin))
		if kept == 0 {
			*rr.notes = append(*rr.notes, fmt.Sprintf("%s did not keep the scenario's pace: ops were answered up to %s late; its latency and what its readers were shown are the replay's backlog (the server's, or this machine's, which runs the simulation beside it), not the scenario's.",
				s.D.Name(), time.Duration(rs.Latency.Max()).Round(time.Millisecond)))
		}
	}
	if len(rs.Nodes) > 0 && rs.Wall > 0 {
		lo, hi, used := math.Inf(1), 0.0, 0
		for _, n := range rs.Nodes {
			r := float64(n.Ops) / rs.Wall.Seconds()
			lo, hi = min(lo, r), max(hi, r)
			if n.Ops > 0 {
				used++
			}
		}
		s.Add(metrics.NodesUsed, float64(used), "nodes", nil, fmt.Sprintf("of %d", len(rs.Nodes)))
		s.Timing(metrics.NodeOpsMax, Round(hi, 1), "ops/s", "the busiest node's ops / wall time")
		s.Timing(metrics.NodeOpsMin, Round(lo, 1), "ops/s", "the idlest node's")
	}
	s.Add(metrics.StoreMismatch, float64(rs.Mismatch), "keys", metrics.PlanOf(0), "counter keys whose value read back is not the sum of the increments sent")
	rr.scoreFaults(s, i, rs)
}

// scoreFaults adds what a design that sent its ops through DoClient met on
// the real store: ops failed, increments lost and extra, and for every
// failover the store applied, when the killed node's slots answered again.
// They are read off a real cluster failing over, the wall clock's: timing
// rows, as the latency is.
func (rr *RealRun) scoreFaults(s *Scorer, i int, rs strategies.RealStats) {
	if !rs.Fallible {
		return
	}
	s.Timing(metrics.StoreFailed, float64(rs.Failed), "ops", "ops with no answer within the client's timeout (a node gone, a cluster failing over, or answered too late)")
	s.Timing(metrics.StoreLost, float64(rs.Lost), "increments", "acknowledged and not on the store after the run: a failover's replication lag")
	s.Timing(metrics.StoreExtra, float64(rs.Extra), "increments", "on the store beyond those acknowledged: a write that timed out but had landed, or a retry of one applied twice")
	o, ok := rr.Stores[i].(strategies.Outages)
	if !ok {
		return
	}
	for _, out := range o.Outages() {
		if out.Recovered < 0 {
			*rr.notes = append(*rr.notes, fmt.Sprintf("%s: the %s of node %d at %v had not recovered by the run's end (%d ops failed).",
				s.D.Name(), out.Fault.Kind, out.Fault.Target, time.Duration(out.Fault.At), out.Failed))
			continue
		}
		s.Timing(metrics.StoreRecovery, Round(float64(out.Recovered-out.Fault.At)/1e9, 3), "s", fmt.Sprintf("%s of node %d at %v: from the kill until its slots answered again (%d ops failed meanwhile)",
			out.Fault.Kind, out.Fault.Target, time.Duration(out.Fault.At), out.Failed))
	}
}

// Table adds the keys and ops each node of a real store took, per twin
// design, its nodes in the order of their first slots: node j is the
// simulated cluster's node j (nodeTable) where redis-cli made the cluster;
// and the side-by-side tables of a run with a store fault (sideBySide).
func (rr *RealRun) Table(rep *Report) {
	defer rr.sideBySide(rep)
	for i, s := range rr.Stores {
		if s == nil {
			continue
		}
		rs := s.Stats()
		if len(rs.Nodes) < 2 {
			continue
		}
		t := metrics.Table{Scenario: rr.scenario, Name: "nodes-" + rr.names[i],
			Title: rr.names[i] + ": keys and ops on each node of the real store", Columns: []string{"node", "keys", "ops", "ops_per_s"}}
		for j, n := range rs.Nodes {
			t.Rows = append(t.Rows, []float64{float64(j), float64(n.Keys), float64(n.Ops), Round(float64(n.Ops)/max(rs.Wall.Seconds(), 1e-9), 1)})
		}
		rep.Tables = append(rep.Tables, t)
	}
}

// twinRows pairs a simulated row with its twin's on the real store, by
// metric: the simulated cluster's account of the faults and the client's
// rows against the truth, beside what the real store measured of the same
// (scoreFaults) or the same rows scored against the truth.
var twinRows = []struct {
	label     string
	sim, real metrics.Metric
}{
	{"ops failed in the faults", metrics.FaultFailedOps, metrics.StoreFailed},
	{"writes given up by the client", metrics.WritesFailed, metrics.WritesFailed},
	{"retries sent", metrics.WritesRetried, metrics.WritesRetried},
	{"acknowledged writes lost (replication lag)", metrics.LostOnFailover, metrics.StoreLost},
	{"writes lost (truth - final)", metrics.WritesLost, metrics.WritesLost},
	{"writes counted twice (final - truth)", metrics.WritesCountedTwice, metrics.WritesCountedTwice},
	{"final count - truth", metrics.CountError, metrics.CountError},
}

// sideBySide adds, for each twin whose real store heard of failed ops
// (strategies.RealStats.Fallible) in a run with store faults, a table
// sidebyside-DESIGN: each of twinRows measured on the simulated cluster
// beside the same on the real store, and, where the run's one store fault
// is a failover, the recovery from the kill — simulated: the fault's delay
// plus fault_recovery_s (from the replica's answer until no op timed out);
// real: store_recovery_s. A row either side lacks is left out. The real
// store's rows with no simulated twin (store_writes_extra: writes that
// timed out and had landed, which the simulated cluster's failover never
// has, its dead master applying nothing; the latency and rates) stay in
// the results only, and a note says so.
func (rr *RealRun) sideBySide(rep *Report) {
	var stores []strategies.Fault
	for _, f := range rr.Faults {
		if f.Kind.StoreFault() && f.Kind != strategies.NodeLoss {
			stores = append(stores, f)
		}
	}
	if len(stores) == 0 {
		return
	}
	one := func(design string, m metrics.Metric) (float64, bool) {
		for _, r := range metrics.Select(rep.Results, design, m, metrics.Sim) {
			if r.Value != nil {
				return *r.Value, true
			}
		}
		return 0, false
	}
	noted := false
	for i, s := range rr.Stores {
		if s == nil || !s.Stats().Fallible {
			continue
		}
		t := metrics.Table{Scenario: rr.scenario, Name: "sidebyside-" + rr.sims[i],
			Title:       rr.sims[i] + ": the simulated cluster's figures beside the real store's (" + rr.names[i] + ")",
			LabelColumn: "row", Columns: []string{"simulated", "real"}}
		for _, tr := range twinRows {
			sv, ok1 := one(rr.sims[i], tr.sim)
			rv, ok2 := one(rr.names[i], tr.real)
			if ok1 && ok2 {
				t.Labels = append(t.Labels, tr.label)
				t.Rows = append(t.Rows, []float64{sv, rv})
			}
		}
		if len(stores) == 1 && stores[0].Kind == strategies.Failover {
			sv, ok1 := one(rr.sims[i], metrics.FaultRecovery)
			rv, ok2 := one(rr.names[i], metrics.StoreRecovery)
			if ok1 && ok2 {
				t.Labels = append(t.Labels, "recovery from the kill, s (simulated: delay + fault_recovery_s)")
				t.Rows = append(t.Rows, []float64{Round(float64(stores[0].Delay)/1e9+sv, 3), rv})
			}
		}
		if len(t.Rows) == 0 {
			continue
		}
		rep.Tables = append(rep.Tables, t)
		if !noted {
			noted = true
			*rr.notes = append(*rr.notes, "The sidebyside tables put each real store's fault rows beside their simulated twins. "+
				"store_writes_extra (writes that timed out but had landed) and the latency and rate rows have no simulated twin: "+
				"the simulated failover's dead master applies nothing, and the simulated cluster has no wall clock.")
		}
	}
}
