package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"fmt"
	"math"
)

// servers scores what design i of a timed run adds: the load its cluster
// took in the steady state, what the shutdown sent, what readers were
// shown, its final counts against the truth tr, and what a crash lost.
// The comparisons with the truth stop when ctx ends (looking every
// stopEvery reads or keys), their rows then left out and rep saying so.
func (k *timedKind) servers(ctx context.Context, rep *engine.Report, s *engine.Scorer, r *engine.ClusterRun, tr *engine.Truth, i int) {
	built := r.Designs[i]
	if c := r.Clusters[i]; c != nil {
		k.cluster(s, r, i)
	}
	if r.Real != nil && r.Real.Stores[i] != nil {
		r.Real.Score(s, i, k.spec.Duration())
	}
	if rd, ok := built.(strategies.Reader); ok && len(tr.Reads) > 0 {
		if err := k.reads(ctx, s, tr, rd); err != nil {
			rep.Cut("the values readers were shown, against the truth")
		}
	}
	pc, ok := built.(strategies.PointCounter)
	if !ok {
		return
	}
	var final, want int64
	j := 0
	for key, c := range tr.Counts {
		if engine.Stopped(ctx, j) {
			rep.Cut("the designs' final counts against the truth")
			return
		}
		j++
		final += int64(pc.Count(key))
		want += int64(c)
	}
	s.Add(metrics.FinalCount, float64(final), "events", metrics.PlanOf(float64(want)),
		"sum of the design's counts once flushed and served; plan: the truth")
	s.Add(metrics.CountError, float64(final-want), "events", metrics.PlanOf(0),
		"final − truth: resends counted twice make it positive, a crash negative")
	if dd, ok := built.(strategies.Deduper); ok && dd.Deduplicating() && k.spec.Resend > 0 {
		s.Add(metrics.DedupDropped, float64(dd.Dropped()), "events", metrics.PlanOf(float64(tr.Dups)),
			"resent writes the dedup window dropped; plan: every resend in the stream")
	}
	if fc, ok := built.(strategies.FaultClient); ok && fc.Clienting() {
		k.clientRows(s, r, i, fc, tr, final, want)
	}
	if l, ok := built.(strategies.Lossy); ok && k.crashes() {
		s.Add(metrics.LostOnCrash, float64(max(0, want-final)), "events", s.Plan(metrics.LostOnCrash),
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
func (k *timedKind) reads(ctx context.Context, s *engine.Scorer, tr *engine.Truth, rd strategies.Reader) error {
	shown := rd.Shown()
	if len(shown) != len(tr.Reads) {
		s.Add(metrics.ReadsAnswered, float64(len(shown)), "reads", metrics.PlanOf(float64(len(tr.Reads))), "a reader must answer every read event")
		return nil
	}
	counts := make([]float64, len(shown))
	var secs []float64
	for j, v := range shown {
		if engine.Stopped(ctx, j) {
			return ctx.Err()
		}
		now := tr.Reads[j]
		counts[j] = float64(int64(now) - v)
		if ns, ok := tr.Staleness(tr.ReadKey[j], uint64(max(v, 0)), now, tr.ReadAt[j]); ok {
			secs = append(secs, float64(ns)/1e9)
		}
	}
	s.Add(metrics.Staleness, maxOf(counts), "events", nil, "largest truth − shown over the reads")
	s.Add(metrics.StalenessP99, metrics.Quantile(append([]float64(nil), counts...), 0.99), "events", nil, "over the reads")
	if len(secs) > 0 {
		s.Add(metrics.StalenessMaxSec, maxOf(secs), "s", s.Plan(metrics.StalenessMaxSec), "age of the value shown, to the millisecond")
		s.Add(metrics.StalenessP99Sec, metrics.Quantile(append([]float64(nil), secs...), 0.99), "s", nil, "over the reads")
		s.Rep.Series = append(s.Rep.Series, metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: s.D.Name(), Name: "staleness",
			Title: "age of the count a reader was shown", Kind: metrics.Distribution, XLabel: "seconds (log)", YLabel: "reads", LogX: true,
			ZeroLabel: "0 (fresh)", Values: secs})
	}
	return nil
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
func (k *timedKind) cluster(s *engine.Scorer, r *engine.ClusterRun, i int) {
	k.clusters.Rows(s, r, i, k.spec.Steady(), r.End)
}

// clientReports is what a timed stream adds of a design that sends as a
// client under store faults (clientRows).
var clientReports = []metrics.Metric{
	metrics.WritesFailed, metrics.FailedOverPlan, metrics.WritesRetried, metrics.WritesRerouted,
	metrics.WritesLost, metrics.LostOverPlan, metrics.WritesCountedTwice, metrics.WriteAvailability,
	metrics.OutageAvailability, metrics.FlushesResent, metrics.CountsDropped, metrics.ReadAvailability,
	metrics.ReadsPartial, metrics.ReadsFailed, metrics.ShownAgeMax, metrics.ShownAgeP99,
}

// clientRows reports what design i's client did under the run's store
// faults (issue 29), by its own account and against the truth, each beside
// its plan where the design states one (strategies.FaultPlanner: a node
// down, one key at a steady rate) or the faults promise one:
//
//   - writes counted twice: 0 where every fault is a node down (a write
//     to it is not applied, so none lands twice); where every fault is a
//     slow node, every write that timed out was served, so each retry
//     counts once more: the retries sent, or 0 with idempotent writes;
//   - the availability during the outage: the share of first tries
//     answered over the simulated seconds the faults touch.
func (k *timedKind) clientRows(s *engine.Scorer, r *engine.ClusterRun, i int, fc strategies.FaultClient, tr *engine.Truth, final, want int64) {
	c := fc.ClientCounts()
	plans, notes := map[metrics.Metric]float64{}, map[metrics.Metric]string{}
	down, downOK := k.downShares(r.Clusters[i], fc, tr)
	if fp, ok := fc.(strategies.FaultPlanner); ok && downOK {
		for _, l := range fp.FaultPlan(down, want) {
			plans[l.Metric], notes[l.Metric] = l.Value, l.Note
		}
	}
	slowOnly, downOnly := k.storeFaultsAll(strategies.NodeSlow), k.storeFaultsAll(strategies.NodeDown)
	switch {
	case slowOnly && c.Idempotent:
		plans[metrics.WritesCountedTwice], notes[metrics.WritesCountedTwice] = 0, "idempotent writes: a retry of a write that landed is not applied again"
	case slowOnly:
		plans[metrics.WritesCountedTwice], notes[metrics.WritesCountedTwice] = float64(c.Retried),
			"a slow node serves every write that timed out, so each retry counts once more: the retries sent"
	case downOnly:
		plans[metrics.WritesCountedTwice], notes[metrics.WritesCountedTwice] = 0, "a down node applies nothing, so no retry lands twice"
	}
	add := func(m metrics.Metric, v float64, unit, note string) {
		var plan *float64
		if p, ok := plans[m]; ok {
			plan = metrics.PlanOf(p)
			note += "; plan: " + notes[m]
		}
		s.Add(m, v, unit, plan, note)
	}
	add(metrics.WritesFailed, float64(c.Failed), "writes", "writes the client gave up on, retries and reroute spent (its own account)")
	if p, ok := plans[metrics.WritesFailed]; ok && p > 0 {
		add(metrics.FailedOverPlan, engine.Round(float64(c.Failed)/p, 4), "ratio", "writes failed / their plan")
	}
	add(metrics.WritesRetried, float64(c.Retried), "writes", "retries sent")
	if c.Rerouted > 0 {
		add(metrics.WritesRerouted, float64(c.Rerouted), "writes", "writes sent to another stripe once their retries failed")
	}
	lost := max(0, want-final)
	add(metrics.WritesLost, float64(lost), "events", "truth − final, where positive")
	if p, ok := plans[metrics.WritesLost]; ok && p > 0 {
		add(metrics.LostOverPlan, engine.Round(float64(lost)/p, 4), "ratio", "writes lost / their plan")
	}
	add(metrics.WritesCountedTwice, float64(max(0, final-want)), "events", "final − truth, where positive")
	if c.Writes > 0 {
		add(metrics.WriteAvailability, engine.Round(float64(c.FirstOK)/float64(c.Writes), 6), "share",
			fmt.Sprintf("%s of %s store writes (a flush's INCRBY, with batching) answered on their first try within the timeout", metrics.Format(float64(c.FirstOK)), metrics.Format(float64(c.Writes))))
	}
	if w, f := k.outageWrites(c); w > 0 {
		add(metrics.OutageAvailability, engine.Round(1-float64(f)/float64(w), 6), "share",
			fmt.Sprintf("%s of %s store writes sent in the seconds of the faults failed their first try", metrics.Format(float64(f)), metrics.Format(float64(w))))
	}
	if c.Resent > 0 || c.Dropped > 0 || plans[metrics.CountsDropped] > 0 {
		add(metrics.FlushesResent, float64(c.Resent), "flushes", "failed flushes whose delta went with the next one")
		add(metrics.CountsDropped, float64(c.Dropped), "counts", "what the failed flushes held, let go (on_failure: drop)")
	}
	if c.Reads > 0 {
		add(metrics.ReadAvailability, engine.Round(float64(c.Reads-c.ReadsFailed-c.ReadsPartial)/float64(c.Reads), 6), "share",
			"store reads every stripe answered within the timeout")
		add(metrics.ReadsPartial, float64(c.ReadsPartial), "reads", "shown the sum of the stripes that answered")
		add(metrics.ReadsFailed, float64(c.ReadsFailed), "reads", "shown the last total read instead")
	}
	if len(c.ShownAges) > 0 {
		ages := make([]float64, len(c.ShownAges))
		for j, a := range c.ShownAges {
			ages[j] = float64(a) / 1e9
		}
		add(metrics.ShownAgeMax, maxOf(ages), "s", "the oldest total a failed read showed")
		add(metrics.ShownAgeP99, metrics.Quantile(ages, 0.99), "s", "over the failed reads that showed a total")
	}
}

// storeFaultsAll reports whether the run has store faults and every one
// is of kind kind.
func (k *timedKind) storeFaultsAll(kind strategies.FaultKind) bool {
	n := 0
	for _, f := range k.faults {
		if f.Kind.StoreFault() {
			if f.Kind != kind {
				return false
			}
			n++
		}
	}
	return n > 0
}

// downShares is, for a stream of one key with node-down faults only, the
// share of the stream during which each of the design's store keys of it
// sat on a down node.
func (k *timedKind) downShares(cl *cluster.Cluster, fc strategies.FaultClient, tr *engine.Truth) ([]float64, bool) {
	if cl == nil || len(tr.Counts) != 1 || !k.storeFaultsAll(strategies.NodeDown) {
		return nil, false
	}
	total := float64(k.spec.Duration())
	if total <= 0 {
		return nil, false
	}
	var key uint64
	for key = range tr.Counts {
	}
	keys, tag := fc.StoreKeys(key, nil)
	down := make([]float64, len(keys))
	for j, sk := range keys {
		node := cl.NodeOf(sk, tag)
		for _, f := range k.faults {
			if f.Kind == strategies.NodeDown && f.Target == node {
				from, to := max(f.At, 0), min(f.End(), int64(total))
				down[j] += float64(max(0, to-from)) / total
			}
		}
	}
	return down, true
}

// outageWrites is the writes the client sent a first time in the simulated
// seconds that a store fault touches, and those that failed then.
func (k *timedKind) outageWrites(c strategies.ClientCounts) (writes, failed int64) {
	touched := map[int]bool{}
	for _, f := range k.faults {
		if !f.Kind.StoreFault() || f.Kind == strategies.NodeLoss {
			continue
		}
		for sec := int(f.At / 1e9); int64(sec)*1e9 < f.End(); sec++ {
			touched[sec] = true
		}
	}
	for sec := range touched {
		if sec < len(c.WritesBySec) {
			writes += c.WritesBySec[sec]
			failed += c.FirstFailedBySec[sec]
		}
	}
	return writes, failed
}
