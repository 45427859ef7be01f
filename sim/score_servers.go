package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/clientrows"
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
		clientrows.Rows(s, r.Clusters[i], fc, k.faults, k.spec.Duration(), tr.Counts, final, want)
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
