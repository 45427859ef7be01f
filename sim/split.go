package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
	"slices"
)

// The split stream (issue 11): a count stream whose events are split over
// nodes by region or by app server (an event's Actor is its node), with an
// item planted thinly on every node. It is scored as a count stream is —
// point counts and the top K against the exact global counts — and adds
// what the split asks: whether each design found the planted item, what a
// design spread over the nodes sent its coordinator, its largest node, and
// the truth's own account of the trap: the planted item's count on its
// busiest node against the smallest of the nodes' own K-th counts.

// splitKind runs with the keyed questions' pieces and a feeder.
type splitKind struct {
	keyed
	feeder engine.Feeder
	spec   *scenarios.Split
	src    *workload.Split
	k      int // the K of the plan's figures: the question's, at least 1
}

func init() { engine.DefineKind("split", newSplitKind) }

func newSplitKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Split)
	src, err := workload.NewSplit(splitConfig(h.Scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err)
	}
	env := &h.Lineup.Env
	env.Keys = min(src.Items(), uint64(spec.Events))
	env.Events = spec.Events
	env.Nodes = spec.Nodes.Count
	k := max(h.Scn.Questions.Top, 1)
	expected := src.ExpectedTop(k)
	n := float64(spec.Events)
	prob := func(rank uint64) float64 { // the law of the expected global order, as far as the plan needs it
		if rank >= 1 && rank <= uint64(len(expected)) {
			return expected[rank-1].Count / n
		}
		return 0
	}
	law := "the k-th largest of the nodes' N(1 − plant)/nodes · P_node(j) and N · plant"
	return &splitKind{keyed: newKeyed(h, src.Items(), n, prob, law), feeder: h.Feeder, spec: spec, src: src, k: k}, nil
}

// splitConfig is the generator's config of a split stream spec.
func splitConfig(seed uint64, spec *scenarios.Split) workload.SplitConfig {
	return workload.SplitConfig{Seed: seed, Label: streamLabel, Events: spec.Events,
		Nodes: spec.Nodes.Count, Keys: spec.Keys, S: spec.Exponents(), Own: spec.Nodes.By == "region", Plant: spec.Nodes.Plant,
		Scramble: spec.Scramble, Rate: spec.Rate}
}

func (k *splitKind) Describe() string {
	w := k.spec
	return fmt.Sprintf("Split stream: %s events over %s, %s keys a node's law, batches of %d.",
		metrics.Format(float64(w.Events)), w.Nodes.Describe(), metrics.Format(float64(w.Keys)), w.Batch)
}

func (k *splitKind) Accepts(*strategies.Type) error { return nil }

func (k *splitKind) Memory() (int64, int64) { return int64(k.lineup.Env.Keys) * truthBytesPerKey, 1 }

// Plan: the expected K-th global count, and the trap's two figures — the
// planted item's expected share of a node against the smallest of the
// nodes' expected own K-th counts, and its total.
func (k *splitKind) Plan() []metrics.Result {
	rows := k.keyed.Plan()
	if k.spec.Nodes.Plant == 0 {
		return rows
	}
	return append(rows,
		k.rows.Plan(strategies.PlanLine{Metric: metrics.PlantedCount, Value: k.writes * k.spec.Nodes.Plant, Unit: "events",
			Note: "events × plant: the planted item's total"}),
		k.rows.Plan(strategies.PlanLine{Metric: metrics.PlantedNodeMax, Value: k.src.ExpectedPlantedPerNode(), Unit: "events",
			Note: "events × plant / nodes: the planted item's count on a node, expected"}),
		k.rows.Plan(strategies.PlanLine{Metric: metrics.LocalKthMin, Value: k.src.ExpectedLocalKth(k.k), Unit: "events",
			Note: fmt.Sprintf("the smallest over the nodes of a node's %s own item, expected: the planted item is in no local top %d while it stays below", engine.Ordinal(k.k), k.k)}),
	)
}

// splitTruth is the exact global counts, and the planted item's count on
// each node.
type splitTruth struct {
	*engine.Truth
	planted uint64
	perNode []uint64
}

func (t *splitTruth) Observe(batch []workload.Event) {
	t.Truth.Observe(batch)
	for i := range batch {
		if e := &batch[i]; e.Key == t.planted && e.Op == workload.Write && e.Delta > 0 {
			t.perNode[e.Actor] += uint64(e.Delta)
		}
	}
}

func (k *splitKind) Run(ctx context.Context) (*engine.Report, error) {
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := &splitTruth{Truth: engine.NewTruth(int(k.lineup.Env.Keys), false, false), planted: k.src.PlantedKey(), perNode: make([]uint64, k.spec.Nodes.Count)}
	r := &engine.Run{Truth: tr}
	if err := k.lineup.Build(r, k.lineup.SameEnv); err != nil {
		return nil, err
	}
	events, err := k.feeder.FeedCount(ctx, r, k.src, k.spec.Batch)
	rep := &engine.Report{Partial: err != nil}
	if rep.Partial { // every design's plan for the events fed
		k.lineup.Replan(rep, engine.Fed{Events: events, Of: float64(k.spec.Events), Writes: float64(events)})
	}
	k.rows.Events(rep, events, k.spec.Events)
	k.rows.Truth(rep, metrics.Nodes, float64(k.spec.Nodes.Count), "nodes", nil, k.spec.Nodes.Describe())
	if k.spec.Nodes.Plant > 0 {
		k.trap(sctx, rep, tr, events)
	}
	k.score(sctx, rep, r, tr.Truth, events, nil, func(s *engine.Scorer, i int, got []strategies.Item, recall float64) {
		k.answer(s, r.Designs[i], got, recall)
	})
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// trap adds the truth's account of the planted item: its total, its count
// on its busiest node, and, with regions, the smallest of the nodes' own
// K-th counts, which it must stay below to be in no local top K. Its plans
// are for the events fed (events of the stream's). The nodes' own counts
// stop when ctx ends, their row then left out.
func (k *splitKind) trap(ctx context.Context, rep *engine.Report, tr *splitTruth, events int64) {
	total := tr.Count(tr.planted)
	plans := map[metrics.Metric]*float64{}
	for _, p := range k.Plan() {
		plans[metrics.Metric(p.Metric)] = p.Plan
	}
	if share := float64(events) / float64(k.spec.Events); share < 1 { // a stopped stream: the figures scale with its events
		for m, p := range plans { // each an expected count, N times a share
			if p != nil {
				plans[m] = metrics.PlanOf(*p * share)
			}
		}
	}
	k.rows.Truth(rep, metrics.PlantedCount, float64(total), "events", plans[metrics.PlantedCount], "the planted item's true total")
	k.rows.Truth(rep, metrics.PlantedNodeMax, float64(slices.Max(tr.perNode)), "events", plans[metrics.PlantedNodeMax],
		"the planted item's count on its busiest node")
	if k.spec.Nodes.By != "region" {
		return
	}
	// A node's own items: the keys other than the planted one, by node.
	own := make([][]uint64, k.spec.Nodes.Count)
	if tr.Ready(ctx) != nil {
		rep.Cut("the nodes' own K-th counts")
		return
	}
	j := 0
	for key, c := range tr.All() {
		if engine.Stopped(ctx, j) {
			rep.Cut("the nodes' own K-th counts")
			return
		}
		j++
		if key == tr.planted {
			continue
		}
		r := k.src.NodeOf(key)
		if r < 0 {
			continue
		}
		own[r] = append(own[r], c)
	}
	low := uint64(math.MaxUint64)
	for _, cs := range own {
		if len(cs) < k.k {
			low = 0
			break
		}
		// Counts repeat, so the order is not total: only the K-th value
		// is read, the same whatever the sort.
		if err := engine.SortStop(ctx, cs, func(a, b uint64) int { return cmp.Compare(b, a) }); err != nil {
			rep.Cut("the nodes' own K-th counts")
			return
		}
		low = min(low, cs[k.k-1])
	}
	in := "in no node's local top"
	if slices.Max(tr.perNode) >= low {
		in = "in some node's local top"
	}
	k.rows.Truth(rep, metrics.LocalKthMin, float64(low), "events", plans[metrics.LocalKthMin],
		fmt.Sprintf("the smallest over the nodes of a node's %s own item: the planted item is %s %d", engine.Ordinal(k.k), in, k.k))
}

// answer adds what the split asks of a design's top-K answer: whether it
// holds the planted item, and for a design spread over the nodes the share
// of the true top K it missed (what it sent is keyed.score's).
func (k *splitKind) answer(s *engine.Scorer, built strategies.Strategy, got []strategies.Item, recall float64) {
	splitAnswer(s, built, got, recall, k.src.PlantedKey(), k.spec.Nodes.Plant > 0)
}

// splitAnswer adds what the split asks of a design's top-K answer got:
// whether it holds the item planted (planted, where plant says there is
// one), and for a design spread over the nodes the share of the true top K
// it missed.
func splitAnswer(s *engine.Scorer, built strategies.Strategy, got []strategies.Item, recall float64, planted uint64, plant bool) {
	if plant {
		found := 0.0
		for _, it := range got {
			if it.Key == planted {
				found = 1
			}
		}
		s.Add(metrics.PlantedFound, found, "bool", nil, "1 if the planted item is in the answer")
	}
	if _, ok := built.(strategies.Distributed); !ok {
		return
	}
	s.Add(metrics.MissedHeavy, engine.Round(1-recall, 6), "share", nil, "share of the true top K not in the answer: 1 − recall")
}
