package sim

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
)

// scoreServers scores what designs on servers add: the load their cluster
// took, what readers were shown, and what a crash lost.
func (st *Setup) scoreServers(r *run, i int, plan func(string) *float64,
	addM func(string, float64, string, *float64, string), rep *Report) {
	name := st.designs[i].spec.Name
	d := r.designs[i]
	if c := r.clusters[i]; c != nil {
		st.scoreCluster(c, name, plan, addM, rep)
	}
	if rd, ok := d.(strategies.Reader); ok && len(r.truth.reads) > 0 {
		st.scoreReads(r, rd, name, plan, addM, rep)
	}
	if st.Scenario.Workload.Timed() {
		if pc, ok := d.(strategies.PointCounter); ok {
			var final, want int64
			for key, c := range r.truth.counts {
				final += int64(pc.Count(key))
				want += int64(c)
			}
			addM("final_count", float64(final), "events", metrics.PlanOf(float64(want)),
				"sum of the design's counts once flushed and served; plan: the truth")
			addM("count_error", float64(final-want), "events", metrics.PlanOf(0),
				"final − truth: resends counted twice make it positive, a crash negative")
			if dd, ok := d.(strategies.Deduper); ok && dd.Deduplicating() && st.Scenario.Workload.Resend > 0 {
				addM("dedup_dropped", float64(dd.Dropped()), "events", metrics.PlanOf(float64(r.truth.dups)),
					"resent writes the dedup window dropped; plan: every resend in the stream")
			}
			if l, ok := d.(strategies.Lossy); ok && st.hasFault(strategies.AppCrash) {
				addM("lost_on_crash", float64(max(0, want-final)), "events", plan("lost_on_crash"),
					fmt.Sprintf("truth − final; the design's own account: %s; plan: the worst case", metrics.Format(float64(l.Lost()))))
			}
		}
	}
}

// scoreReads compares each value a reader was shown with the truth at that
// moment: staleness in counts, and in seconds where the truth kept history.
func (st *Setup) scoreReads(r *run, rd strategies.Reader, name string, plan func(string) *float64,
	addM func(string, float64, string, *float64, string), rep *Report) {
	shown := rd.Shown()
	tr := r.truth
	if len(shown) != len(tr.reads) {
		addM("reads_answered", float64(len(shown)), "reads", metrics.PlanOf(float64(len(tr.reads))), "a reader must answer every read event")
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
	maxCount := maxOf(counts)
	addM("staleness_max", maxCount, "events", nil, "largest truth − shown over the reads")
	addM("staleness_p99", metrics.Quantile(append([]float64(nil), counts...), 0.99), "events", nil, "over the reads")
	if len(secs) > 0 {
		addM("staleness_max_s", maxOf(secs), "s", plan("staleness_max_s"), "age of the value shown, to the millisecond")
		addM("staleness_p99_s", metrics.Quantile(append([]float64(nil), secs...), 0.99), "s", nil, "over the reads")
		rep.Series = append(rep.Series, metrics.Series{Scenario: st.Scenario.Name, Strategy: name, Name: "staleness",
			Title: "age of the count a reader was shown", Kind: metrics.Distribution, XLabel: "seconds (log)", YLabel: "reads", LogX: true, Values: secs})
	}
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

// scoreCluster reports the load a design put on its cluster against the
// key's capacity, the backlog that built up, and the queueing delay.
func (st *Setup) scoreCluster(c *Cluster, name string, plan func(string) *float64,
	addM func(string, float64, string, *float64, string), rep *Report) {
	s := c.Stats(st.Scenario.Workload.Duration())
	if s.Keys == 0 {
		return // the design keeps no counts on the cluster
	}
	limit := st.Scenario.Cluster.KeyCapacity
	// The plans are worked out at the peak rate. Where the rate changes over
	// the run, a mean over the run is not comparable with them: those rows
	// carry no plan, and the busiest second's growth is shown beside it.
	steady := st.steadyRate()
	mean := func(metric string) *float64 {
		if steady {
			return plan(metric)
		}
		return nil
	}
	var peakGrowth, prev float64
	for _, b := range s.Backlog {
		peakGrowth = max(peakGrowth, b-prev)
		prev = b
	}
	stripes := plan("stripes_at_peak") // adaptive K: what the peak grows it to
	if stripes == nil {
		stripes = plan("stripes")
	}
	addM("keys_used", float64(s.Keys), "keys", stripes, "store keys the design wrote or read")
	addM("max_key_ops_per_s", s.KeyWrites.Max, "ops/s", plan("max_key_ops_per_s"),
		fmt.Sprintf("increments on the busiest key in its busiest second (second %d); plan: the mean load a key", s.KeyWrites.MaxSecond))
	addM("mean_key_ops_per_s", round(s.KeyWrites.Mean, 1), "ops/s", mean("max_key_ops_per_s"), "increments a key-second, mean over keys and seconds")
	addM("p99_key_ops_per_s", s.KeyWrites.P99, "ops/s", nil, "over keys and seconds")
	addM("utilisation", round(s.UtilMean, 4), "share", mean("utilisation"), fmt.Sprintf("served ops a key-second / %s, mean", metrics.Format(limit)))
	addM("utilisation_max", round(s.UtilMax, 4), "share", nil, "the busiest key-second")
	addM("backlog_end", s.BacklogEnd, "ops", nil, "ops queued at the end of the stream")
	addM("backlog_growth_per_s", round(s.BacklogGrowthPerS, 1), "ops/s", mean("backlog_growth_per_s"), "least-squares slope of the backlog over the seconds")
	addM("backlog_growth_peak_per_s", round(peakGrowth, 1), "ops/s", plan("backlog_growth_per_s"), "the largest growth of the backlog in one second; plan: at the peak rate")
	addM("delay_max_s", round(s.DelayMax/1e9, 6), "s", nil, "longest queueing delay of an op")
	addM("delay_p99_s", round(s.DelayP99/1e9, 6), "s", nil, "over ops")
	if s.Duration > 0 {
		addM("increments_per_s", round(float64(s.Writes)/s.Duration, 1), "ops/s", plan("increments_per_s"), "store increments a second, all keys, mean over the run")
	}
	addM("read_ops_per_s", round(s.ReadsPerS, 1), "ops/s", plan("read_ops_per_s"), "store reads a second, mean over the run")
	addM("max_node_ops_per_s", s.NodeOps.Max, "ops/s", nil, fmt.Sprintf("busiest node-second of %d nodes", s.Nodes))
	if s.Lost > 0 {
		addM("lost_on_node_loss", float64(s.Lost), "events", nil, "counts a lost node held or had queued")
	}
	secs := make([]float64, len(s.BusiestWrites))
	for j := range secs {
		secs[j] = float64(j)
	}
	ends := make([]float64, len(s.Backlog)) // the backlog is taken at each second's end
	for j := range ends {
		ends[j] = float64(j + 1)
	}
	rep.Series = append(rep.Series,
		metrics.Series{Scenario: st.Scenario.Name, Strategy: name, Name: "key-load", Kind: metrics.Curve,
			Title: "increments a second on the busiest key", XLabel: "simulated second", YLabel: "increments/s", LogY: true,
			X: secs, Y: s.BusiestWrites, Marks: []metrics.Mark{{Label: "key limit " + metrics.Format(limit) + "/s", Value: limit, Axis: "y"}}},
		metrics.Series{Scenario: st.Scenario.Name, Strategy: name, Name: "backlog", Kind: metrics.Curve,
			Title: "ops queued on the cluster", XLabel: "simulated second", YLabel: "ops queued",
			X: ends, Y: s.Backlog})
}

// hasFault reports whether the scenario injects a fault of this kind.
func (st *Setup) hasFault(kind strategies.FaultKind) bool {
	for _, f := range st.faults {
		if f.Kind == kind {
			return true
		}
	}
	return false
}

// steadyRate reports whether the stream writes at one constant rate, so
// that means over the run compare with plans made at the peak.
func (st *Setup) steadyRate() bool {
	ph := st.Scenario.Workload.Phases
	return len(ph) == 1 && ph[0].To == ph[0].Rate
}
