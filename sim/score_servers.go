package sim

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
)

// servers scores what design i of a timed run adds: the load its cluster
// took in the steady state, what the shutdown sent, what readers were
// shown, its final counts, and what a crash lost.
func (k *timedKind) servers(s *scorer, r *timedRun, i int) {
	built := r.designs[i]
	if c := r.clusters[i]; c != nil {
		k.cluster(s, r, i)
	}
	if r.real != nil && r.real.stores[i] != nil {
		k.st.real(s, r.real.stores[i].Stats(), k.spec.Duration())
	}
	if rd, ok := built.(strategies.Reader); ok && len(r.truth.reads) > 0 {
		k.reads(s, r.truth, rd)
	}
	pc, ok := built.(strategies.PointCounter)
	if !ok {
		return
	}
	var final, want int64
	for key, c := range r.truth.counts {
		final += int64(pc.Count(key))
		want += int64(c)
	}
	s.add(metrics.FinalCount, float64(final), "events", metrics.PlanOf(float64(want)),
		"sum of the design's counts once flushed and served; plan: the truth")
	s.add(metrics.CountError, float64(final-want), "events", metrics.PlanOf(0),
		"final − truth: resends counted twice make it positive, a crash negative")
	if dd, ok := built.(strategies.Deduper); ok && dd.Deduplicating() && k.spec.Resend > 0 {
		s.add(metrics.DedupDropped, float64(dd.Dropped()), "events", metrics.PlanOf(float64(r.truth.dups)),
			"resent writes the dedup window dropped; plan: every resend in the stream")
	}
	if l, ok := built.(strategies.Lossy); ok && k.crashes() {
		s.add(metrics.LostOnCrash, float64(max(0, want-final)), "events", s.plan(metrics.LostOnCrash),
			fmt.Sprintf("truth − final; the design's own account: %s; plan: the worst case", metrics.Format(float64(l.Lost()))))
	}
}

// crashes reports whether the run injects an app-server crash.
func (k *timedKind) crashes() bool {
	for _, f := range k.faults {
		if f.Kind == strategies.AppCrash {
			return true
		}
	}
	return false
}

// reads compares each value a reader was shown with the truth at that
// moment: staleness in counts, and in seconds where the truth kept history.
func (k *timedKind) reads(s *scorer, tr *truth, rd strategies.Reader) {
	shown := rd.Shown()
	if len(shown) != len(tr.reads) {
		s.add(metrics.ReadsAnswered, float64(len(shown)), "reads", metrics.PlanOf(float64(len(tr.reads))), "a reader must answer every read event")
		return
	}
	counts := make([]float64, len(shown))
	var secs []float64
	for j, v := range shown {
		now := tr.reads[j]
		counts[j] = float64(int64(now) - v)
		if ns, ok := tr.staleness(tr.readKey[j], uint64(max(v, 0)), now, tr.readAt[j]); ok {
			secs = append(secs, float64(ns)/1e9)
		}
	}
	s.add(metrics.Staleness, maxOf(counts), "events", nil, "largest truth − shown over the reads")
	s.add(metrics.StalenessP99, metrics.Quantile(append([]float64(nil), counts...), 0.99), "events", nil, "over the reads")
	if len(secs) > 0 {
		s.add(metrics.StalenessMaxSec, maxOf(secs), "s", s.plan(metrics.StalenessMaxSec), "age of the value shown, to the millisecond")
		s.add(metrics.StalenessP99Sec, metrics.Quantile(append([]float64(nil), secs...), 0.99), "s", nil, "over the reads")
		s.rep.Series = append(s.rep.Series, metrics.Series{Scenario: s.scenario, Step: s.step, Strategy: s.d.name(), Name: "staleness",
			Title: "age of the count a reader was shown", Kind: metrics.Distribution, XLabel: "seconds (log)", YLabel: "reads", LogX: true,
			ZeroLabel: "0 (fresh)", Values: secs})
	}
}

// keyLoadMarks are the lines of the key-load chart: the key's limit and,
// where the scenario plans for a headroom below it (assumptions.headroom,
// 0.7 of 10,000), the load it plans for.
func keyLoadMarks(limit, headroom float64) []metrics.Mark {
	ms := []metrics.Mark{{Label: "key limit " + metrics.Format(limit) + "/s", Value: limit, Axis: "y"}}
	if headroom > 0 && headroom < 1 {
		ms = append(ms, metrics.Mark{Label: fmt.Sprintf("planned, %s%% of it: %s/s", metrics.Format(100*headroom), metrics.Format(limit*headroom)),
			Value: limit * headroom, Axis: "y"})
	}
	return ms
}

func maxOf(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = max(m, x)
	}
	if math.IsInf(m, -1) {
		return 0
	}
	return m
}

// cluster reports the load design i put on its cluster in the steady state
// against the key's capacity, the backlog that built up and the queueing
// delay; then what the shutdown sent, and when the cluster was idle.
func (k *timedKind) cluster(s *scorer, r *timedRun, i int) {
	k.st.clusterRows(s, r, i, k.spec.Steady(), k.spec.Duration())
}

// clusterRows reports the load design i of r put on its cluster over a
// stream that ended at end; steady: it wrote at one constant rate, so that
// means over the run compare with the plans worked out at the peak.
func (st *Setup) clusterRows(s *scorer, r *timedRun, i int, steady bool, end int64) {
	c := r.steady[i]
	if c.Keys == 0 {
		return // the design keeps no counts on the cluster
	}
	limit := st.Scenario.Cluster.KeyCapacity
	// The plans are worked out at the peak rate. Where the rate changes over
	// the run, a mean over the run is not comparable with them: those rows
	// carry no plan, and the busiest second's growth is shown beside it.
	mean := func(metric metrics.Metric) *float64 {
		if steady {
			return s.plan(metric)
		}
		return nil
	}
	var peakGrowth, prev float64
	for _, b := range c.Backlog {
		peakGrowth = max(peakGrowth, b-prev)
		prev = b
	}
	s.add(metrics.KeysUsed, float64(c.Keys), "keys", s.plan(metrics.KeysUsed), "store keys the design wrote or read")
	s.add(metrics.MaxKeyOps, c.KeyWrites.Max, "ops/s", s.plan(metrics.MaxKeyOps),
		fmt.Sprintf("increments on the busiest key in its busiest second (second %d) of the stream; plan: the mean load a key", c.KeyWrites.MaxSecond))
	s.add(metrics.MeanKeyOps, round(c.KeyWrites.Mean, 1), "ops/s", mean(metrics.MaxKeyOps), "increments a key-second, mean over keys and seconds")
	s.add(metrics.P99KeyOps, c.KeyWrites.P99, "ops/s", nil, "over keys and seconds")
	s.add(metrics.Utilisation, round(c.UtilMean, 4), "share", mean(metrics.Utilisation), fmt.Sprintf("served ops a key-second / %s, mean", metrics.Format(limit)))
	s.add(metrics.UtilisationMax, round(c.UtilMax, 4), "share", nil, "the busiest key-second")
	s.add(metrics.BacklogEnd, c.BacklogEnd, "ops", nil, "ops queued at the end of the stream")
	s.add(metrics.BacklogGrowth, round(c.BacklogGrowthPerS, 1), "ops/s", mean(metrics.BacklogGrowth), "least-squares slope of the backlog over the seconds")
	s.add(metrics.BacklogGrowthPeak, round(peakGrowth, 1), "ops/s", s.plan(metrics.BacklogGrowth), "the largest growth of the backlog in one second; plan: at the peak rate")
	s.add(metrics.DelayMax, round(c.DelayMax/1e9, 6), "s", nil, "longest queueing delay of an op during the stream")
	s.add(metrics.DelayP99, round(c.DelayP99/1e9, 6), "s", nil, "over ops")
	if c.Duration > 0 {
		writes, note := c.Writes, "store increments a second, all keys, mean over the stream"
		if r.finished && r.shutdown[i] > 0 {
			writes += r.shutdown[i]
			note = "store increments a second, all keys: everything the design sent, its shutdown included, over the stream's length"
		}
		s.add(metrics.IncrementsPerSec, round(float64(writes)/c.Duration, 1), "ops/s", s.plan(metrics.IncrementsPerSec), note)
	}
	s.add(metrics.ReadOpsPerSec, round(c.ReadsPerS, 1), "ops/s", s.plan(metrics.ReadOpsPerSec), "store reads a second, mean over the run")
	s.add(metrics.MaxNodeOps, c.NodeOps.Max, "ops/s", s.plan(metrics.MaxNodeOps), "busiest node-second of "+count(float64(c.Nodes), "node")+"; plan (hashtag): the mean load of the one node")
	if c.Lost > 0 {
		s.add(metrics.LostOnNodeLoss, float64(c.Lost), "events", nil, "counts a lost node held or had queued")
	}
	if r.finished {
		if _, ok := r.designs[i].(strategies.Flusher); ok {
			s.add(metrics.ShutdownOps, float64(r.shutdown[i]), "ops", nil,
				"increments sent at the stream's end by the design's shutdown (the last flush), apart from the stream's load")
		}
		s.add(metrics.DrainedAfter, round(float64(max(0, r.drained[i]-end))/1e9, 6), "s", nil,
			"from the stream's end until the cluster had served every op sent")
	}
	if ops := r.clusters[i].NodeOps(); len(ops) > 1 && c.Duration > 0 {
		// The load on each node, the designs' bars side by side: where a
		// hash tag puts a key's stripes on one node, that node takes it all.
		node := metrics.Series{Scenario: s.scenario, Step: st.Scenario.Step, Strategy: s.d.name(), Name: "node-load", Kind: metrics.Bars,
			Title: "ops a second on each node, mean over the stream", XLabel: "node", YLabel: "ops/s"}
		for j, n := range ops {
			node.Labels = append(node.Labels, fmt.Sprintf("node %d", j))
			node.Y = append(node.Y, round(float64(n)/c.Duration, 1))
		}
		s.rep.Series = append(s.rep.Series, node)
	}
	secs := make([]float64, len(c.BusiestWrites))
	for j := range secs {
		secs[j] = float64(j)
	}
	ends := make([]float64, len(c.Backlog)) // the backlog is taken at each second's end
	for j := range ends {
		ends[j] = float64(j + 1)
	}
	s.rep.Series = append(s.rep.Series,
		metrics.Series{Scenario: s.scenario, Step: s.step, Strategy: s.d.name(), Name: "key-load", Kind: metrics.Curve,
			Title: "increments a second on the busiest key", XLabel: "simulated second", YLabel: "increments/s (log)", LogY: true,
			X: secs, Y: c.BusiestWrites, Marks: keyLoadMarks(limit, st.Scenario.Assumptions.Headroom)},
		// A log axis: a backlog of 0 beside one growing 190,000 a second
		// (zeros have their slot under the log range), with a second of a
		// key's work for scale.
		metrics.Series{Scenario: s.scenario, Step: s.step, Strategy: s.d.name(), Name: "backlog", Kind: metrics.Curve,
			Title: "ops queued on the cluster", XLabel: "simulated second", YLabel: "ops queued (log)", LogY: true,
			X: ends, Y: c.Backlog, Marks: []metrics.Mark{{Label: "1 s of one key: " + metrics.Format(limit) + " ops", Value: limit, Axis: "y"}}})
}
