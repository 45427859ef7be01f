package engine

import (
	"context"
	"fmt"
	"runtime"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/strategies"
)

// The simulated clusters as a kind is given them: the scenario's cluster
// (package cluster) stated once, a cluster of its own for every design of
// a run (newRun), the run's account of each at the stream's end and after
// the shutdown (clusterRun), and the rows of the load each design put on
// its cluster (rows). The timed stream, the board, trending and the posts
// keep one.

// Clusters is the scenario's simulated cluster as the kinds on servers use
// it.
type Clusters struct {
	Cfg *cluster.Config // nil: the scenario has no cluster
	// Headroom is the share of a key's capacity the scenario plans for
	// (assumptions.Headroom; 0 or 1: none), marked on the key-load chart.
	Headroom float64
}

// Clusters is the scenario's cluster for a kind that runs its designs on
// one, refusing a capacity the ticks cannot time at the cluster's line.
func (h *Harness) Clusters() (Clusters, error) {
	c := h.Scn.Cluster
	if c == nil {
		return Clusters{}, nil
	}
	cfg, err := ClusterConfig(c, h.Scn.Seed)
	if err != nil {
		return Clusters{}, err
	}
	return Clusters{Cfg: &cfg, Headroom: h.Scn.Assumptions.Headroom}, nil
}

// ClusterConfig is the simulated cluster a scenario's cluster: states,
// refused at its line when the cluster cannot simulate it.
func ClusterConfig(c *scenarios.Cluster, seed uint64) (cluster.Config, error) {
	cfg := cluster.Config{Nodes: c.Nodes, KeyCapacity: c.KeyCapacity, NodeCapacity: c.NodeCapacity, Seed: seed}
	if err := cfg.Placement.UnmarshalText([]byte(c.Placement)); err != nil {
		return cfg, scenarios.Errorf(c.Pos, "cluster.placement: %v", err)
	}
	if _, err := cluster.New(cfg); err != nil {
		return cfg, scenarios.Errorf(c.Pos, "%v", err)
	}
	return cfg, nil
}

// New is an empty cluster of the scenario's; nil without one.
func (c Clusters) New() *cluster.Cluster {
	if c.Cfg == nil {
		return nil
	}
	cl, err := cluster.New(*c.Cfg)
	if err != nil {
		panic(fmt.Sprintf("sim: a cluster the harness accepted: %v", err))
	}
	return cl
}

// ClusterRun is a run whose designs each have a simulated cluster of their
// own (or a twin's real store), with what was taken of the clusters at the
// stream's end and after the designs' shutdown.
type ClusterRun struct {
	*Run
	Steady   []cluster.Stats // each cluster at the stream's end
	shutdown []int64         // the writes each design sent after it
	drained  []int64         // when each cluster had served everything, ns
	Finished bool            // the stream ran to its end
	End      int64           // when the stream the steady state was taken of ended, ns: its length, or a stopped one's last event
	Real     *RealRun        // the twins' real stores; nil without any
}

// NewRun builds every design of l, each on a simulated cluster of its own
// when the scenario has one, with the truth tr; a twin gets the real store
// rr opens for it (rr may be nil where there are none).
func (c Clusters) NewRun(ctx context.Context, l *Lineup, tr Observer, rr *RealRun) (*ClusterRun, error) {
	r := &ClusterRun{Run: &Run{Truth: tr, Clusters: make([]*cluster.Cluster, len(l.Members))}, Real: rr}
	stores := make([]strategies.Store, len(l.Members))
	for i, d := range l.Members {
		if rr == nil {
			break
		}
		s, err := rr.Open(ctx, i, d, true)
		if err != nil {
			return nil, err
		}
		stores[i] = s
	}
	err := l.Build(r.Run, func(i int) strategies.Env {
		env := l.Env
		if stores[i] != nil {
			env.Store = stores[i]
			return env
		}
		if cl := c.New(); cl != nil {
			r.Clusters[i], env.Store = cl, cl
		}
		return env
	})
	return r, err
}

// Finish delivers the faults after the last event, takes each cluster's
// steady state at the stream's end, then has the designs that hold counts
// back send them at the end, and notes what that shutdown sent and when
// each cluster had served everything.
func (r *ClusterRun) Finish(end int64) {
	for i := range r.Designs {
		for r.Next[i] < len(r.Faults) {
			r.fault(i)
		}
	}
	r.TakeSteady(end)
	n := len(r.Designs)
	r.shutdown, r.drained = make([]int64, n), make([]int64, n)
	for i, c := range r.Clusters {
		if c != nil {
			r.shutdown[i] = -c.Writes()
		}
	}
	for _, d := range r.Designs {
		if f, ok := d.(strategies.Flusher); ok {
			f.Flush(end)
		}
	}
	for i, c := range r.Clusters {
		if c != nil {
			r.shutdown[i] += c.Writes()
			r.drained[i] = c.DrainedAt()
		}
	}
	r.Finished = true
}

// TakeSteady takes each cluster's statistics of the stream, which ended at
// end.
func (r *ClusterRun) TakeSteady(end int64) {
	r.End = end
	r.Steady = make([]cluster.Stats, len(r.Clusters))
	// Each cluster is a design's own: their stats are taken side by side
	// (viral-posts' five over 300,000 keys took 0.6 s on one core).
	var jobs []func()
	for i, c := range r.Clusters {
		if c != nil {
			jobs = append(jobs, func() { r.Steady[i] = c.Stats(end) })
		}
	}
	Workers(runtime.GOMAXPROCS(0)).Parallel(jobs)
}

// Rows reports the load design i of r put on its cluster over a stream
// that ended at end, against the key's capacity: the busiest key, the
// backlog that built up and the queueing delay; then what the shutdown
// sent, and when the cluster was idle. steady: the stream wrote at one
// constant rate, so that means over the run compare with the plans worked
// out at the peak.
func (c Clusters) Rows(s *Scorer, r *ClusterRun, i int, steady bool, end int64) {
	cs := r.Steady[i]
	if cs.Keys == 0 {
		return // the design keeps no counts on the cluster
	}
	limit := c.Cfg.KeyCapacity
	// The plans are worked out at the peak rate. Where the rate changes over
	// the run, a mean over the run is not comparable with them: those rows
	// carry no plan, and the busiest second's growth is shown beside it.
	mean := func(metric metrics.Metric) *float64 {
		if steady {
			return s.Plan(metric)
		}
		return nil
	}
	var peakGrowth, prev float64
	for _, b := range cs.Backlog {
		peakGrowth = max(peakGrowth, b-prev)
		prev = b
	}
	s.Add(metrics.KeysUsed, float64(cs.Keys), "keys", s.Plan(metrics.KeysUsed), "store keys the design wrote or read")
	s.Add(metrics.MaxKeyOps, cs.KeyWrites.Max, "ops/s", s.Plan(metrics.MaxKeyOps),
		fmt.Sprintf("increments on the busiest key in its busiest second (second %d) of the stream; plan: the mean load a key", cs.KeyWrites.MaxSecond))
	s.Add(metrics.MeanKeyOps, Round(cs.KeyWrites.Mean, 1), "ops/s", mean(metrics.MaxKeyOps), "increments a key-second, mean over keys and seconds")
	s.Add(metrics.P99KeyOps, cs.KeyWrites.P99, "ops/s", nil, "over keys and seconds")
	s.Add(metrics.Utilisation, Round(cs.UtilMean, 4), "share", mean(metrics.Utilisation), fmt.Sprintf("served ops a key-second / %s, mean", metrics.Format(limit)))
	s.Add(metrics.UtilisationMax, Round(cs.UtilMax, 4), "share", nil, "the busiest key-second")
	s.Add(metrics.BacklogEnd, cs.BacklogEnd, "ops", nil, "ops queued at the end of the stream")
	s.Add(metrics.BacklogGrowth, Round(cs.BacklogGrowthPerS, 1), "ops/s", mean(metrics.BacklogGrowth), "least-squares slope of the backlog over the seconds")
	s.Add(metrics.BacklogGrowthPeak, Round(peakGrowth, 1), "ops/s", s.Plan(metrics.BacklogGrowth), "the largest growth of the backlog in one second; plan: at the peak rate")
	s.Add(metrics.DelayMax, Round(cs.DelayMax/1e9, 6), "s", nil, "longest queueing delay of an op during the stream")
	s.Add(metrics.DelayP99, Round(cs.DelayP99/1e9, 6), "s", nil, "over ops")
	if cs.Duration > 0 {
		writes, note := cs.Writes, "store increments a second, all keys, mean over the stream"
		if r.Finished && r.shutdown[i] > 0 {
			writes += r.shutdown[i]
			note = "store increments a second, all keys: everything the design sent, its shutdown included, over the stream's length"
		}
		s.Add(metrics.IncrementsPerSec, Round(float64(writes)/cs.Duration, 1), "ops/s", s.Plan(metrics.IncrementsPerSec), note)
	}
	s.Add(metrics.ReadOpsPerSec, Round(cs.ReadsPerS, 1), "ops/s", s.Plan(metrics.ReadOpsPerSec), "store reads a second, mean over the run")
	s.Add(metrics.MaxNodeOps, cs.NodeOps.Max, "ops/s", s.Plan(metrics.MaxNodeOps), "busiest node-second of "+Count(float64(cs.Nodes), "node")+"; plan (hashtag): the mean load of the one node")
	if cs.Lost > 0 {
		s.Add(metrics.LostOnNodeLoss, float64(cs.Lost), "events", nil, "counts a lost node held or had queued")
	}
	if outs := r.Clusters[i].Outages(); len(outs) > 0 {
		c.FaultRows(s, r.Clusters[i], outs)
	}
	if r.Finished {
		if _, ok := r.Designs[i].(strategies.Flusher); ok {
			s.Add(metrics.ShutdownOps, float64(r.shutdown[i]), "ops", nil,
				"increments sent at the stream's end by the design's shutdown (the last flush), apart from the stream's load")
		}
		s.Add(metrics.DrainedAfter, Round(float64(max(0, r.drained[i]-end))/1e9, 6), "s", nil,
			"from the stream's end until the cluster had served every op sent")
	}
	if ops := r.Clusters[i].NodeOps(); len(ops) > 1 && cs.Duration > 0 {
		// The load on each node, the designs' bars side by side: where a
		// hash tag puts a key's stripes on one node, that node takes it all.
		node := metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: s.D.Name(), Name: "node-load", Kind: metrics.Bars,
			Title: "ops a second on each node, mean over the stream", XLabel: "node", YLabel: "ops/s"}
		for j, n := range ops {
			node.Labels = append(node.Labels, fmt.Sprintf("node %d", j))
			node.Y = append(node.Y, Round(float64(n)/cs.Duration, 1))
		}
		s.Rep.Series = append(s.Rep.Series, node)
		NodeTable(s, r.Clusters[i], cs.Duration)
	}
	secs := make([]float64, len(cs.BusiestWrites))
	for j := range secs {
		secs[j] = float64(j)
	}
	ends := make([]float64, len(cs.Backlog)) // the backlog is taken at each second's end
	for j := range ends {
		ends[j] = float64(j + 1)
	}
	s.Rep.Series = append(s.Rep.Series,
		metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: s.D.Name(), Name: "key-load", Kind: metrics.Curve,
			Title: "increments a second on the busiest key", XLabel: "simulated second", YLabel: "increments/s (log)", LogY: true,
			X: secs, Y: cs.BusiestWrites, Marks: KeyLoadMarks(limit, c.Headroom)},
		// A log axis: a backlog of 0 beside one growing 190,000 a second
		// (zeros have their slot under the log range), with a second of a
		// key's work for scale.
		metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: s.D.Name(), Name: "backlog", Kind: metrics.Curve,
			Title: "ops queued on the cluster", XLabel: "simulated second", YLabel: "ops queued (log)", LogY: true,
			X: ends, Y: cs.Backlog, Marks: []metrics.Mark{{Label: "1 s of one key: " + metrics.Format(limit) + " ops", Value: limit, Axis: "y"}}})
}

// KeyLoadMarks are the lines of the key-load chart: the key's limit and,
// where the scenario plans for a headroom below it (assumptions.headroom,
// 0.7 of 10,000), the load it plans for.
func KeyLoadMarks(limit, headroom float64) []metrics.Mark {
	ms := []metrics.Mark{{Label: "key limit " + metrics.Format(limit) + "/s", Value: limit, Axis: "y"}}
	if headroom > 0 && headroom < 1 {
		ms = append(ms, metrics.Mark{Label: fmt.Sprintf("planned, %s%% of it: %s/s", metrics.Format(100*headroom), metrics.Format(limit*headroom)),
			Value: limit * headroom, Axis: "y"})
	}
	return ms
}

// NodeTable adds the keys and ops each node of design s's simulated
// cluster took over a stream of duration seconds (0: untimed), and the
// note that its few keys lie unevenly where they do (cluster.Spread).
func NodeTable(s *Scorer, c *cluster.Cluster, duration float64) {
	s.Rep.Tables = append(s.Rep.Tables, c.NodeTable(s.Scenario, s.D.Name(), duration))
	if n := c.SpreadNote(s.D.Name()); n != "" {
		s.Rep.Note(n)
	}
}

// FaultRows reports what the store faults of outs (a node down, a slow
// node, a partition, a failover) cost the design on its cluster cl: the
// ops that failed, the counts a failover lost and the time to recover,
// summed (the longest recovery) over the faults. A plan is given where
// every fault has a closed form, worked out from the load the design put
// on the fault's node in the simulated second before it (so a plan only
// for a fault at 1 s or later, and only where that load is the load
// during it, as in a steady stream):
//
//   - failed ops of a node down or a failover: the node's ops a second ×
//     its window (For, or Delay) — every op sent to it then fails; none of
//     a slow node or a partition (which fails only the ops that time out,
//     or the cut servers' share);
//   - lost on a failover: the node's writes a second × Lag;
//   - recovery of a node down, a partition or a failover: 0, as the node
//     queued nothing of its window; of a slow node at share σ of key
//     capacity μ whose busiest key took λ writes a second, under clients
//     of one timeout T: the backlog Q = (λ − σμ)·For drains at μ − λ, and
//     an op times out while more than T·μ are queued before it, so
//     (Q − T·μ)/(μ − λ), at least 0 (0 where λ ≤ σμ or T = 0: no timeout;
//     none where λ ≥ μ, with a node limit, or with clients of several
//     timeouts).
func (c Clusters) FaultRows(s *Scorer, cl *cluster.Cluster, outs []strategies.Outage) {
	var failed, lost, failedPlan, lostPlan, recPlan float64
	recovery := 0.0
	recovered, failedOK, lostOK, recOK, failovers := true, true, true, true, false
	for j, o := range outs {
		f := o.Fault
		failed += float64(o.Failed)
		lost += float64(o.Lost)
		if o.Recovered < 0 {
			recovered = false
		} else {
			recovery = max(recovery, float64(o.Recovered-f.End())/1e9)
		}
		sec := int(f.At/cluster.Second) - 1 // the whole second before the fault
		var writes, ops float64
		if sec >= 0 && f.Kind != strategies.Partition {
			w, r := cl.NodeSecond(f.Target, sec)
			writes, ops = float64(w), float64(w+r)
		}
		if sec < 0 {
			failedOK, lostOK, recOK = false, false, false
		}
		switch f.Kind {
		case strategies.NodeDown:
			failedPlan += ops * float64(f.For) / 1e9
		case strategies.Failover:
			failovers = true
			failedPlan += ops * float64(f.Delay) / 1e9
			lostPlan += writes * float64(f.Lag) / 1e9
		default:
			failedOK = false
		}
		if f.Kind == strategies.NodeSlow {
			mu, lambda, sigma := c.Cfg.KeyCapacity, float64(cl.BusiestKeyOn(f.Target, max(sec, 0))), f.Share
			switch {
			case c.Cfg.NodeCapacity > 0 || lambda >= mu:
				recOK = false
			case lambda > sigma*mu:
				t, one := cl.FaultTimeout(j)
				switch {
				case !one:
					recOK = false
				case t > 0:
					q := (lambda - sigma*mu) * float64(f.For) / 1e9
					recPlan = max(recPlan, (q-float64(t)/1e9*mu)/(mu-lambda))
				}
			}
		}
	}
	plan := func(ok bool, v float64) *float64 {
		if !ok {
			return nil
		}
		v = Round(v, 6)
		return &v
	}
	s.Add(metrics.FaultFailedOps, failed, "ops", plan(failedOK, failedPlan),
		"ops sent to the faulted nodes that timed out or were not applied, from each fault's start; plan: the node's ops a second before it × its window")
	if failovers {
		s.Add(metrics.LostOnFailover, lost, "events", plan(lostOK, lostPlan),
			"counts the failed master had served in its replication lag, lost; plan: its writes a second before × the lag")
	}
	if recovered {
		s.Add(metrics.FaultRecovery, Round(recovery, 6), "s", plan(recOK, recPlan),
			"from each fault's end until no op to its nodes timed out, the longest; plan: 0 where the node queued nothing, a slow node's backlog over the spare capacity")
	} else {
		s.Rep.Note(fmt.Sprintf("%s: ops to a faulted node still timed out at the run's end: no recovery within the run", s.D.Name()))
	}
}
