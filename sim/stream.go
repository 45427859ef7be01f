package sim

import (
	"context"
	"fmt"
	"slices"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/workload"
)

// The count stream: N writes over a Zipf (or uniform) law of keys, fed in
// batches to every design and to an exact truth by key; the search day's
// kind of run. What it shares with the timed stream — the truth's rows and
// the questions of point counts and the top K — is keyed, below.

// streamLabel names the scenario's event stream in the chunk seeds.
const streamLabel = "events"

// truthBytesPerKey is what the ground truth costs a distinct key: the map
// entry with its overhead, and the sorted copies made when scoring.
const truthBytesPerKey = 64

// streamKind runs with the keyed questions' pieces and a feeder.
type streamKind struct {
	keyed
	feeder feeder
	spec   *scenarios.Stream
	src    *workload.Stream
}

func init() { defineKind("stream", newStreamKind) }

func newStreamKind(h *harness) (kind, error) {
	spec := h.scn.Run.(*scenarios.Stream)
	src, err := workload.NewStream(streamConfig(h.scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	env := &h.lineup.env
	env.Keys = min(spec.Keys, uint64(spec.Events))
	env.Events = spec.Events
	return &streamKind{keyed: newKeyed(h, spec.Keys, spec.ExpectedWrites(), src.Prob, ""), feeder: h.feeder, spec: spec, src: src}, nil
}

// streamConfig is the count stream a scenario states.
func streamConfig(seed uint64, spec *scenarios.Stream) workload.StreamConfig {
	plant, key := spec.Planted()
	return workload.StreamConfig{Seed: seed, Label: streamLabel, Events: spec.Events, Keys: spec.Keys,
		S: spec.Exponent(), Scramble: spec.Scramble, Rate: spec.Rate, Plant: plant, PlantKey: key}
}

func (k *streamKind) describe() string {
	dist := k.spec.Distribution
	if dist == "zipf" {
		dist = fmt.Sprintf("zipf s = %g", k.spec.S)
	}
	plant := ""
	if n := k.src.Planted(); n > 0 {
		plant = fmt.Sprintf(", and key %d planted among them %s times", k.src.PlantedKey(), metrics.Format(float64(n)))
	}
	return fmt.Sprintf("Simulated stream: %s events over %s keys, %s%s, batches of %d.",
		metrics.Format(float64(k.spec.Events)), metrics.Format(float64(k.spec.Keys)), dist, plant, k.spec.Batch)
}

func (k *streamKind) accepts(*strategies.Type) error { return nil }

func (k *streamKind) memory() (int64, int64) {
	if k.byRank() {
		return rankTruthBytes(k.spec.Events, k.spec.Keys), 1
	}
	return int64(k.lineup.env.Keys) * truthBytesPerKey, 1
}

func (k *streamKind) run(ctx context.Context) (*Report, error) {
	sctx, release := scoring(ctx)
	defer release()
	tr := k.truth()
	r := &run{truth: tr}
	if err := k.lineup.build(r, k.lineup.sameEnv); err != nil {
		return nil, err
	}
	events, err := k.feeder.feedCount(ctx, r, k.src, k.spec.Batch)
	rep := &Report{Partial: err != nil}
	kk := k.keyed
	if rep.Partial { // every plan for the events fed
		k.lineup.replan(rep, fed{events: events, of: float64(k.spec.Events), writes: float64(events)})
		kk.writes = float64(events)
	}
	k.rows.events(rep, events, k.spec.Events)
	var more func(s *scorer, i int)
	if k.src.Planted() > 0 {
		more = k.planted(rep, r, tr, events)
	}
	kk.score(sctx, rep, r, tr, events, more, nil)
	return rep, stoppedScoring(ctx, rep, err)
}

// truth is the stream's ground truth: by rank when the array is the
// smaller (the key space is at most 16 times the events: 4 or 8 bytes a
// rank against about 64 a key seen), else by key.
func (k *streamKind) truth() tallyObserver {
	if k.byRank() {
		return newRankTruth(k.src)
	}
	return newTruth(int(k.lineup.env.Keys), false, false)
}

// A planted key is counted by key: the rank truth reads a key's rank off
// the scrambler, which knows no plant.
func (k *streamKind) byRank() bool {
	return k.src.Planted() == 0 && k.spec.Keys/16 <= uint64(k.spec.Events)
}

// keyed is what the count and the timed stream share (and the split
// stream, the log, the posts): writes over a key space drawn by a known
// law, an exact truth by key, and the questions a design answers of keys —
// its count of each, and the top K. It keeps the pieces of the harness
// those questions are scored with: the designs, the rows, and the workers
// that compare every design with the truth side by side.
type keyed struct {
	lineup  *lineup
	rows    scoreRows
	workers workers
	top     int // the K of the scenario's top-K question; 0: none asked

	keys   uint64                    // the key space n
	writes float64                   // the writes N the stream holds, or is expected to
	prob   func(rank uint64) float64 // the law of the ranks
	law    string                    // the law of the expected count of rank k, for notes; "" for a Zipf's N·k^-s/H(n,s)
}

// newKeyed is the keyed questions of a stream of writes over keys with
// the given law (nil: none known, a recorded log) and the note of it (""
// for a Zipf's).
func newKeyed(h *harness, keys uint64, writes float64, prob func(rank uint64) float64, law string) keyed {
	return keyed{lineup: h.lineup, rows: h.rows, workers: h.workers, top: h.scn.Questions.Top,
		keys: keys, writes: writes, prob: prob, law: law}
}

// lawNote is the formula of the expected count of rank k.
func (k keyed) lawNote() string {
	if k.law != "" {
		return k.law
	}
	return "N·k^-s/H(n,s)"
}

// expected is the expected count of the key of the given rank: N·P(rank).
func (k keyed) expected(rank uint64) float64 { return k.writes * k.prob(rank) }

// expectedPlan is expected(rank) as a plan, or nil for a stream without a
// law of its keys (a recorded log).
func (k keyed) expectedPlan(rank uint64) *float64 {
	if k.prob == nil {
		return nil
	}
	return metrics.PlanOf(k.expected(rank))
}

// plan is the expected count of the K-th key, when the top K is asked.
func (k keyed) plan() []metrics.Result {
	top := k.top
	if top <= 0 || uint64(top) > k.keys {
		return nil
	}
	return []metrics.Result{k.rows.plan(strategies.PlanLine{Metric: metrics.KthTrueCount,
		Value: k.expected(uint64(top)), Unit: "events", Note: fmt.Sprintf("N·P(rank %d) = %s", top, k.lawNote())})}
}

// score adds the truth's rows and every design's: its memory and speed,
// its counts against the truth, what more the kind asks of it (more, when
// not nil), its top K and what the kind asks of that answer (afterTop,
// when not nil), then its plan rows. Reading the truth and comparing every
// design with it stop when ctx ends (the scoring context, stop.go): the
// rows against the truth are then left out, and rep says so.
func (k keyed) score(ctx context.Context, rep *Report, r *run, tr tally, events int64, more func(s *scorer, i int), afterTop func(s *scorer, i int, got []strategies.Item, recall float64)) {
	designs := k.lineup.designs
	top := k.top
	var trueTop []keyCount
	var distinct int
	stats := make([]*pointStats, len(r.designs))
	judged := tr.ready(ctx) == nil
	if judged {
		// The truth's own answers and every design's counts of every key
		// are worked out side by side: each reads the truth and one design
		// only.
		errs := make([]error, len(r.designs)+1)
		jobs := []func(){func() {
			if top > 0 {
				if trueTop, errs[0] = tr.top(ctx, top); errs[0] != nil {
					return
				}
			}
			distinct, errs[0] = tr.distinct(ctx)
		}}
		for i, built := range r.designs {
			if pc, ok := built.(strategies.PointCounter); ok {
				bound := designs[i].planned(metrics.OverestimateBound)
				jobs = append(jobs, func() { stats[i], errs[i+1] = measurePoints(ctx, pc, tr, bound) })
			}
		}
		k.workers.parallel(jobs)
		judged = !slices.ContainsFunc(errs, func(err error) bool { return err != nil })
	}
	if !judged {
		rep.cut("the truth's distinct keys and top K, and every design's counts and top K against the truth")
	} else {
		k.rows.truth(rep, metrics.DistinctKeys, float64(distinct), "keys", nil, "of "+metrics.Format(float64(k.keys))+" possible")
		if len(trueTop) > 0 {
			k.rows.truth(rep, metrics.Top1Count, float64(trueTop[0].count), "events", k.expectedPlan(1), "N·P(rank 1) = "+k.lawNote())
		}
		if len(trueTop) == top && top > 0 {
			k.rows.truth(rep, metrics.KthTrueCount, float64(trueTop[top-1].count), "events", k.expectedPlan(uint64(top)),
				fmt.Sprintf("the %s key's true count; plan %s", ordinal(top), k.lawNote()))
		}
	}
	// The top-K recall of each design not swept; not drawn where every bar
	// is the same (Run drops flat charts), the value is in the tables.
	recall := metrics.Series{Scenario: k.rows.scenario, Step: k.rows.step, Name: "topk-recall", Kind: metrics.Bars,
		Title: fmt.Sprintf("top-%d recall of each design", top), XLabel: "design", YLabel: "recall"}
	for i, built := range r.designs {
		s := k.rows.scorer(rep, designs[i])
		s.memory(built, "measured from the design's arrays")
		note := laneClockNote
		if r.clusters != nil && r.clusters[i] != nil {
			note += "; includes the simulated cluster's queueing and accounting"
		}
		if designs[i].real == "" { // a twin's time is the real store's: its own rows
			s.speed(r.elapsed[i], events, note)
		}
		if judged && stats[i] != nil {
			s.points(stats[i])
		}
		if more != nil {
			more(s, i)
		}
		if tk, ok := built.(strategies.TopK); ok && top > 0 && judged {
			rc, got := s.top(tk, tr, trueTop, top)
			// A swept design's recall is on its sweep's curve, against
			// memory (sweep.go): the bars hold the others.
			if designs[i].sweep == nil {
				recall.Labels = append(recall.Labels, s.d.name())
				recall.Y = append(recall.Y, rc)
			}
			if afterTop != nil {
				afterTop(s, i, got, rc)
			}
		}
		if d, ok := built.(strategies.Distributed); ok {
			s.coordination(d)
		}
		s.finish()
	}
	if len(recall.Labels) > 0 {
		rep.Series = append(rep.Series, recall)
	}
}
