package sim

// The count stream: N writes over a Zipf (or uniform) law of keys, fed in
// batches to every design and to an exact truth by key; the search day's
// kind of run. What it shares with the timed stream — the truth's rows and
// the questions of point counts and the top K — is keyed, below.

import (
	"context"
	"fmt"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

// streamLabel names the scenario's event stream in the chunk seeds.
const streamLabel = "events"

// truthBytesPerKey is what the ground truth costs a distinct key: the map
// entry with its overhead, and the sorted copies made when scoring.
const truthBytesPerKey = 64

type streamKind struct {
	keyed
	spec *scenarios.Stream
	src  *workload.Stream
}

func init() { defineKind("stream", newStreamKind) }

func newStreamKind(st *Setup) (kind, error) {
	spec := st.Scenario.Run.(*scenarios.Stream)
	src, err := workload.NewStream(workload.StreamConfig{
		Seed: st.Scenario.Seed, Label: streamLabel, Events: spec.Events, Keys: spec.Keys,
		S: spec.Exponent(), Scramble: spec.Scramble, Rate: spec.Rate,
	})
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	st.env.Keys = min(spec.Keys, uint64(spec.Events))
	st.env.Events = spec.Events
	return &streamKind{keyed: keyed{st: st, keys: spec.Keys, writes: spec.ExpectedWrites(), prob: src.Prob}, spec: spec, src: src}, nil
}

func (k *streamKind) describe() string {
	dist := k.spec.Distribution
	if dist == "zipf" {
		dist = fmt.Sprintf("zipf s = %g", k.spec.S)
	}
	return fmt.Sprintf("Simulated stream: %s events over %s keys, %s, batches of %d.",
		metrics.Format(float64(k.spec.Events)), metrics.Format(float64(k.spec.Keys)), dist, k.spec.Batch)
}

func (k *streamKind) accepts(*strategies.Type) error { return nil }

func (k *streamKind) memory() (int64, int64) { return int64(k.st.env.Keys) * truthBytesPerKey, 1 }

func (k *streamKind) run(ctx context.Context) (*Report, error) {
	st := k.st
	r := &run{truth: newTruth(int(st.env.Keys), false, false)}
	if err := r.build(st, func(int) strategies.Env { return st.env }); err != nil {
		return nil, err
	}
	events, err := st.feed(ctx, r, k.src, k.spec.Batch)
	rep := &Report{Partial: err != nil}
	var plan *float64
	if events == k.spec.Events {
		plan = metrics.PlanOf(float64(k.spec.Events))
	}
	st.truthRow(rep, strategies.MetricEvents, float64(events), "events", plan, "every event fed")
	k.score(rep, r, events, nil)
	return rep, err
}

// keyed is what the count and the timed stream share: writes over a key
// space drawn by a known law, an exact truth by key, and the questions a
// design answers of keys — its count of each, and the top K.
type keyed struct {
	st     *Setup
	keys   uint64                    // the key space n
	writes float64                   // the writes N the stream holds, or is expected to
	prob   func(rank uint64) float64 // the law of the ranks
}

// expected is the expected count of the key of the given rank: N·P(rank).
func (k keyed) expected(rank uint64) float64 { return k.writes * k.prob(rank) }

// plan is the expected count of the K-th key, when the top K is asked.
func (k keyed) plan() []metrics.Result {
	top := k.st.Scenario.Questions.Top
	if top <= 0 || uint64(top) > k.keys {
		return nil
	}
	return []metrics.Result{planRow(k.st.Scenario.Name, k.st.truthName(), strategies.PlanLine{Metric: strategies.MetricKthTrueCount,
		Value: k.expected(uint64(top)), Unit: "events", Note: fmt.Sprintf("N·P(rank %d) = N·k^-s/H(n,s)", top)})}
}

// score adds the truth's rows and every design's: its memory and speed,
// its counts against the truth, its top K, then what more the kind asks
// of it (more, when not nil), then its plan rows.
func (k keyed) score(rep *Report, r *run, events int64, more func(s *scorer, i int)) {
	st := k.st
	tr := r.truth
	top := st.Scenario.Questions.Top
	keys := tr.keys()
	var trueTop []keyCount
	if top > 0 {
		trueTop = tr.top(top)
	}
	st.truthRow(rep, strategies.MetricDistinctKeys, float64(len(keys)), "keys", nil, "of "+metrics.Format(float64(k.keys))+" possible")
	if len(trueTop) > 0 {
		st.truthRow(rep, strategies.MetricTop1Count, float64(trueTop[0].count), "events", metrics.PlanOf(k.expected(1)), "N·P(rank 1)")
	}
	if len(trueTop) == top && top > 0 {
		st.truthRow(rep, strategies.MetricKthTrueCount, float64(trueTop[top-1].count), "events", metrics.PlanOf(k.expected(uint64(top))),
			fmt.Sprintf("the %s key's true count; plan N·k^-s/H(n,s)", ordinal(top)))
	}
	recall := metrics.Series{Scenario: st.Scenario.Name, Name: "topk-recall", Kind: metrics.Bars,
		Title: fmt.Sprintf("top-%d recall of each design", top), XLabel: "design", YLabel: "recall"}
	for i, built := range r.designs {
		s := st.scorer(rep, st.designs[i])
		s.memory(built, "measured from the design's arrays")
		note := "Observe, wall clock on this machine"
		if r.clusters != nil && r.clusters[i] != nil {
			note += "; includes the simulated cluster's queueing and accounting"
		}
		s.speed(r.elapsed[i], events, note)
		if pc, ok := built.(strategies.PointCounter); ok {
			s.points(pc, tr, keys)
		}
		if more != nil {
			more(s, i)
		}
		if tk, ok := built.(strategies.TopK); ok && top > 0 {
			recall.Labels = append(recall.Labels, s.d.name())
			recall.Y = append(recall.Y, s.top(tk, tr, trueTop, top))
		}
		s.finish()
	}
	if len(recall.Labels) > 0 {
		rep.Series = append(rep.Series, recall)
	}
}
