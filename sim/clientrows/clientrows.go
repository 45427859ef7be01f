// Package clientrows scores what a design's client did under a timed
// run's store faults (issue 29): the writes it failed, retried, rerouted,
// lost and counted twice against the truth, its write and read
// availability and the age of what failed reads showed, each beside its
// plan where one is promised (strategies.FaultPlanner, and the faults'
// own closed forms). Package sim calls Rows for a design that is a
// strategies.FaultClient with its client on.
package clientrows

import (
	"fmt"
	"slices"

	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
)

// run is what the rows need of the run: its faults and its length (ns).
type run struct {
	faults   []strategies.Fault
	duration int64
}

// Reports is what a timed stream adds of a design that sends as a client
// under store faults (Rows).
var Reports = []metrics.Metric{
	metrics.WritesFailed, metrics.FailedOverPlan, metrics.WritesRetried, metrics.WritesRerouted,
	metrics.WritesLost, metrics.LostOverPlan, metrics.WritesCountedTwice, metrics.WriteAvailability,
	metrics.OutageAvailability, metrics.FlushesResent, metrics.CountsDropped, metrics.ReadAvailability,
	metrics.ReadsPartial, metrics.ReadsFailed, metrics.ShownAgeMax, metrics.ShownAgeP99,
}

// Rows reports what a design's client did under the run's store
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
func Rows(s *engine.Scorer, cl *cluster.Cluster, fc strategies.FaultClient, faults []strategies.Fault, duration int64, counts map[uint64]uint64, final, want int64) {
	k := run{faults: faults, duration: duration}
	c := fc.ClientCounts()
	plans, notes := map[metrics.Metric]float64{}, map[metrics.Metric]string{}
	down, downOK := k.downShares(cl, fc, counts)
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
		add(metrics.ShownAgeMax, slices.Max(ages), "s", "the oldest total a failed read showed")
		add(metrics.ShownAgeP99, metrics.Quantile(ages, 0.99), "s", "over the failed reads that showed a total")
	}
}

// storeFaultsAll reports whether the run has store faults and every one
// is of kind kind.
func (k run) storeFaultsAll(kind strategies.FaultKind) bool {
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
func (k run) downShares(cl *cluster.Cluster, fc strategies.FaultClient, counts map[uint64]uint64) ([]float64, bool) {
	if cl == nil || len(counts) != 1 || !k.storeFaultsAll(strategies.NodeDown) {
		return nil, false
	}
	total := float64(k.duration)
	if total <= 0 {
		return nil, false
	}
	var key uint64
	for key = range counts {
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
func (k run) outageWrites(c strategies.ClientCounts) (writes, failed int64) {
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
