package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"slices"
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
	feeder engine.Feeder
	spec   *scenarios.Stream
	src    *workload.Stream
}

func init() { engine.DefineKind("stream", newStreamKind) }

func newStreamKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Stream)
	src, err := workload.NewStream(streamConfig(h.Scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	env := &h.Lineup.Env
	env.Keys = min(spec.Keys, uint64(spec.Events))
	env.Events = spec.Events
	return &streamKind{keyed: newKeyed(h, spec.Keys, spec.ExpectedWrites(), src.Prob, ""), feeder: h.Feeder, spec: spec, src: src}, nil
}

// streamConfig is the count stream a scenario states.
func streamConfig(seed uint64, spec *scenarios.Stream) workload.StreamConfig {
	plant, key := spec.Planted()
	return workload.StreamConfig{Seed: seed, Label: streamLabel, Events: spec.Events, Keys: spec.Keys,
		S: spec.Exponent(), Scramble: spec.Scramble, Rate: spec.Rate, Plant: plant, PlantKey: key}
}

func (k *streamKind) Describe() string {
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

func (k *streamKind) Accepts(*strategies.Type) error { return nil }

func (k *streamKind) Memory() (int64, int64) {
	if k.byRank() {
		return engine.RankTruthBytes(k.spec.Events, k.spec.Keys), 1
	}
	return int64(k.lineup.Env.Keys) * truthBytesPerKey, 1
}

func (k *streamKind) Run(ctx context.Context) (*engine.Report, error) {
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := k.truth()
	r := &engine.Run{Truth: tr}
	if err := k.lineup.Build(r, k.lineup.SameEnv); err != nil {
		return nil, err
	}
	events, err := k.feeder.FeedCount(ctx, r, k.src, k.spec.Batch)
	rep := &engine.Report{Partial: err != nil}
	kk := k.keyed
	if rep.Partial { // every plan for the events fed
		k.lineup.Replan(rep, engine.Fed{Events: events, Of: float64(k.spec.Events), Writes: float64(events)})
		kk.writes = float64(events)
	}
	k.rows.Events(rep, events, k.spec.Events)
	var more func(s *engine.Scorer, i int)
	if k.src.Planted() > 0 {
		more = k.planted(rep, r, tr, events)
	}
	kk.score(sctx, rep, r, tr, events, more, nil)
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// truth is the stream's ground truth: by rank when the array is the
// smaller (the key space is at most 16 times the events: 4 or 8 bytes a
// rank against about 64 a key seen), else by key.
func (k *streamKind) truth() engine.TallyObserver {
	if k.byRank() {
		return engine.NewRankTruth(k.src)
	}
	return engine.NewTruth(int(k.lineup.Env.Keys), false, false)
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
	lineup  *engine.Lineup
	rows    engine.ScoreRows
	workers engine.Workers
	top     int // the K of the scenario's top-K question; 0: none asked

	keys   uint64                    // the key space n
	writes float64                   // the writes N the stream holds, or is expected to
	prob   func(rank uint64) float64 // the law of the ranks
	law    string                    // the law of the expected count of rank k, for notes; "" for a Zipf's N·k^-s/H(n,s)
}

// newKeyed is the keyed questions of a stream of writes over keys with
// the given law (nil: none known, a recorded log) and the note of it (""
// for a Zipf's).
func newKeyed(h *engine.Harness, keys uint64, writes float64, prob func(rank uint64) float64, law string) keyed {
	return keyed{lineup: h.Lineup, rows: h.Rows, workers: h.Workers, top: h.Scn.Questions.Top,
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

// Plan is the expected count of the K-th key, when the top K is asked.
func (k keyed) Plan() []metrics.Result {
	top := k.top
	if top <= 0 || uint64(top) > k.keys {
		return nil
	}
	return []metrics.Result{k.rows.Plan(strategies.PlanLine{Metric: metrics.KthTrueCount,
		Value: k.expected(uint64(top)), Unit: "events", Note: fmt.Sprintf("N·P(rank %d) = %s", top, k.lawNote())})}
}

// score adds the truth's rows and every design's: its memory and speed,
// its counts against the truth, what more the kind asks of it (more, when
// not nil), its top K and what the kind asks of that answer (afterTop,
// when not nil), then its plan rows. Reading the truth and comparing every
// design with it stop when ctx ends (the scoring context, stop.go): the
// rows against the truth are then left out, and rep says so.
func (k keyed) score(ctx context.Context, rep *engine.Report, r *engine.Run, tr engine.Tally, events int64, more func(s *engine.Scorer, i int), afterTop func(s *engine.Scorer, i int, got []strategies.Item, recall float64)) {
	designs := k.lineup.Members
	top := k.top
	var trueTop []engine.KeyCount
	var distinct int
	stats := make([]*engine.PointStats, len(r.Designs))
	judged := tr.Ready(ctx) == nil
	if judged {
		// The truth's own answers and every design's counts of every key
		// are worked out side by side: each reads the truth and one design
		// only.
		errs := make([]error, len(r.Designs)+1)
		jobs := []func(){func() {
			if top > 0 {
				if trueTop, errs[0] = tr.Top(ctx, top); errs[0] != nil {
					return
				}
			}
			distinct, errs[0] = tr.Distinct(ctx)
		}}
		for i, built := range r.Designs {
			if pc, ok := built.(strategies.PointCounter); ok {
				bound := designs[i].Planned(metrics.OverestimateBound)
				jobs = append(jobs, func() { stats[i], errs[i+1] = engine.MeasurePoints(ctx, pc, tr, bound) })
			}
		}
		k.workers.Parallel(jobs)
		judged = !slices.ContainsFunc(errs, func(err error) bool { return err != nil })
	}
	if !judged {
		rep.Cut("the truth's distinct keys and top K, and every design's counts and top K against the truth")
	} else {
		k.rows.Truth(rep, metrics.DistinctKeys, float64(distinct), "keys", nil, "of "+metrics.Format(float64(k.keys))+" possible")
		if len(trueTop) > 0 {
			k.rows.Truth(rep, metrics.Top1Count, float64(trueTop[0].Count), "events", k.expectedPlan(1), "N·P(rank 1) = "+k.lawNote())
		}
		if len(trueTop) == top && top > 0 {
			k.rows.Truth(rep, metrics.KthTrueCount, float64(trueTop[top-1].Count), "events", k.expectedPlan(uint64(top)),
				fmt.Sprintf("the %s key's true count; plan %s", engine.Ordinal(top), k.lawNote()))
		}
	}
	// The top-K recall of each design not swept; not drawn where every bar
	// is the same (Run drops flat charts), the value is in the tables.
	recall := metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Name: "topk-recall", Kind: metrics.Bars,
		Title: fmt.Sprintf("top-%d recall of each design", top), XLabel: "design", YLabel: "recall"}
	for i, built := range r.Designs {
		s := k.rows.Scorer(rep, designs[i])
		s.Memory(built, "measured from the design's arrays")
		note := engine.LaneClockNote
		if r.Clusters != nil && r.Clusters[i] != nil {
			note += "; includes the simulated cluster's queueing and accounting"
		}
		if designs[i].Real == "" { // a twin's time is the real store's: its own rows
			s.Speed(r.Elapsed[i], events, note)
		}
		if judged && stats[i] != nil {
			s.Points(stats[i])
		}
		if more != nil {
			more(s, i)
		}
		if tk, ok := built.(strategies.TopK); ok && top > 0 && judged {
			rc, got := s.Top(tk, tr, trueTop, top)
			// A swept design's recall is on its sweep's curve, against
			// memory (sweep.go): the bars hold the others.
			if designs[i].Sweep == nil {
				recall.Labels = append(recall.Labels, s.D.Name())
				recall.Y = append(recall.Y, rc)
			}
			if afterTop != nil {
				afterTop(s, i, got, rc)
			}
		}
		if d, ok := built.(strategies.Distributed); ok {
			s.Coordination(d)
		}
		s.Finish()
	}
	if len(recall.Labels) > 0 {
		rep.Series = append(rep.Series, recall)
	}
}
