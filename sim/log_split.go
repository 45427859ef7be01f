package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
	"strconv"
)

// A log replayed as a split stream (as: split, issue 25): each event is
// counted on the node its node column names (numbers 0..node_count−1, or
// names numbered as they first appear), so that the designs spread over
// nodes (split-topk, threshold-topk, node-local top-K) take each event on
// its node as they do on a generated split stream, and every design is
// scored as on one: point counts and the top K against the exact global
// counts, what a design spread over the nodes sent and missed.
//
// Without node_count the nodes are those the head Prepare reads names
// (one more than the highest number, or the names seen): a later line
// naming another is refused at its line. A log has no planted item: the
// truth finds the trap itself, the heaviest item of the true top K that
// is in no node's own top K (heavy only in total), and reports it as the
// generated stream's planted item — its total, its count on its busiest
// node, the smallest of the nodes' K-th counts — and whether each design's
// answer holds it; a log without such an item has none of those rows.

func init() { defineLogAs("split", newLogSplit) }

// logSplitKind runs with the keyed questions' pieces and a feeder.
type logSplitKind struct {
	keyed
	*logBase
	feeder engine.Feeder
	nodes  int
	k      int // the K of the trap: the question's, at least 1
}

func newLogSplit(h *engine.Harness, b *logBase) (engine.Kind, error) {
	nodes := b.spec.NodeCount
	if nodes == 0 {
		nodes = max(b.logNodes, 1)
		b.cfg.Nodes = nodes // a later line naming more is bad
	}
	k := &logSplitKind{logBase: b, feeder: h.Feeder, nodes: nodes, k: max(h.Scn.Questions.Top, 1)}
	env := &h.Lineup.Env
	env.Keys, env.Events = b.sizeHint(), int64(math.Ceil(b.logEvents))
	env.Nodes = nodes
	k.keyed = newKeyed(h, uint64(b.logKeys), b.logEvents, nil, "no plan: a recorded log has no law of its keys")
	return k, nil
}

func (k *logSplitKind) Describe() string {
	about := k.about()
	return fmt.Sprintf("Recorded log replayed as a split stream: %s (%s, key column %s, node column %s), %s%s events over %s%s keys and %s, batches of %d.",
		k.cfg.Path, k.spec.Format, k.spec.Key, k.spec.Node, about, metrics.Format(math.Round(k.logEvents)), about,
		metrics.Format(math.Round(k.logKeys)), engine.Count(float64(k.nodes), "node"), k.spec.Batch)
}

func (k *logSplitKind) Accepts(*strategies.Type) error { return nil }

// Plan: the chance of two key strings sharing a hash, as for a count log.
func (k *logSplitKind) Plan() []metrics.Result {
	pairs := workload.CollisionPairs(k.logKeys)
	return []metrics.Result{k.rows.Plan(strategies.PlanLine{Metric: metrics.HashCollisions,
		Value: pairs, Unit: "pairs", Note: fmt.Sprintf("distinct key strings whose XXH64 collide, expected: n(n−1)/2⁶⁵ for n ≈ %s keys", metrics.Format(math.Round(k.logKeys)))})}
}

// Memory: the count log's truth, and each node's counts: a map for the
// (key, node) pairs estimated.
func (k *logSplitKind) Memory() (int64, int64) {
	return goMapBytes(int64(min(k.logKeys, 1<<26))) + int64(k.logKeys)*logSortedBytesPerKey + goMapBytes(int64(k.logPairs)), 1
}

// Churns: the reader makes garbage at every line (logKind.churns).
func (k *logSplitKind) Churns() bool { return true }

// splitLogTruth is the exact global counts, and each node's.
type splitLogTruth struct {
	*engine.Truth
	perNode []map[uint64]uint64
}

func (t *splitLogTruth) Observe(batch []workload.Event) {
	t.Truth.Observe(batch)
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
			t.perNode[e.Actor][e.Key] += uint64(e.Delta)
		}
	}
}

func (k *logSplitKind) Run(ctx context.Context) (*engine.Report, error) {
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := &splitLogTruth{Truth: engine.NewTruth(int(min(k.logKeys, 1<<26)), false, false), perNode: make([]map[uint64]uint64, k.nodes)}
	for i := range tr.perNode {
		tr.perNode[i] = map[uint64]uint64{}
	}
	r := &engine.Run{Truth: tr}
	if err := k.lineup.Build(r, k.lineup.SameEnv); err != nil {
		return nil, err
	}
	src := k.source()
	events, err := k.feeder.FeedCount(ctx, r, src, k.spec.Batch)
	if src.err != nil {
		return nil, k.badInput(src.err) // bad input: nothing is reported
	}
	rep := &engine.Report{Partial: err != nil}
	k.replanRead(k.lineup, rep, events, len(tr.Counts), -1)
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "events read from the log")
	k.readRows(rep, k.rows, src)
	k.rows.Truth(rep, metrics.Nodes, float64(k.nodes), "nodes", nil, "nodes the log's "+k.spec.Node+" column names")
	planted, found := k.trap(sctx, rep, tr)
	k.score(sctx, rep, r, tr.Truth, events, nil, func(s *engine.Scorer, i int, got []strategies.Item, recall float64) {
		splitAnswer(s, r.Designs[i], got, recall, planted, found)
	})
	return rep, engine.StoppedScoring(ctx, rep, err)
}

// trap finds the item heavy only in total — the heaviest of the true top
// K in no node's own top K — and adds the truth's account of it: its
// total, its count on its busiest node, the smallest of the nodes' K-th
// counts. found is false where no item of the top K is in no node's top K
// (or scoring stopped, rep then saying so).
func (k *logSplitKind) trap(ctx context.Context, rep *engine.Report, tr *splitLogTruth) (planted uint64, found bool) {
	if k.top <= 0 {
		return 0, false
	}
	global, err := tr.Top(ctx, k.k)
	if err != nil {
		rep.Cut("the item heavy only in total")
		return 0, false
	}
	local := make([][]engine.KeyCount, k.nodes)
	for i, m := range tr.perNode {
		if local[i], err = engine.TopOf(ctx, func(yield func(uint64, uint64) bool) {
			for key, c := range m {
				if !yield(key, c) {
					return
				}
			}
		}, k.k); err != nil {
			rep.Cut("the item heavy only in total")
			return 0, false
		}
	}
	inLocal := map[uint64]bool{}
	low := uint64(math.MaxUint64)
	for _, l := range local {
		for _, kc := range l {
			inLocal[kc.Key] = true
		}
		if len(l) < k.k {
			low = 0
		} else {
			low = min(low, l[k.k-1].Count)
		}
	}
	for _, kc := range global {
		if !inLocal[kc.Key] {
			planted, found = kc.Key, true
			break
		}
	}
	if !found {
		return 0, false
	}
	var most uint64
	for _, m := range tr.perNode {
		most = max(most, m[planted])
	}
	k.rows.Truth(rep, metrics.PlantedCount, float64(tr.Count(planted)), "events", nil,
		fmt.Sprintf("the total of the heaviest item of the true top %d in no node's own top %d (heavy only in total)", k.k, k.k))
	k.rows.Truth(rep, metrics.PlantedNodeMax, float64(most), "events", nil, "its count on its busiest node")
	k.rows.Truth(rep, metrics.LocalKthMin, float64(low), "events", nil,
		fmt.Sprintf("the smallest over the nodes of a node's %s item: the item is in no node's local top %d", engine.Ordinal(k.k), k.k))
	return planted, true
}

func init() { defineSampler("split", sampleSplit) }

// sampleSplit samples a split stream whole, refused past n events: a key
// named "item #ID", a node "node-3"; the replay reads the node from the
// actor_id column (the node's number) and is told the nodes.
func sampleSplit(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Split)
	if spec.Events > n {
		return nil, fmt.Errorf("%s is a split stream of %s events, more than -events %s: it is sampled whole (allowed: -events %s or more)",
			scn.ID(), metrics.Format(float64(spec.Events)), metrics.Format(float64(n)), metrics.Format(float64(spec.Events)))
	}
	src, err := workload.NewSplit(splitConfig(scn.Seed, spec))
	if err != nil {
		return nil, err
	}
	names := SampleNames{Key: func(key uint64) string { return "item #" + strconv.FormatUint(key, 10) },
		Actor: func(a uint64) string { return "node-" + strconv.FormatUint(a, 10) }}
	out := &Sampled{As: "split", Keys: [][2]string{{"node", "actor_id"}, {"actor_id", ""}, {"node_count", strconv.Itoa(spec.Nodes.Count)}}}
	return drawAll(src, names, out, each)
}

func (k *logSplitKind) Reports(d *engine.Design) []metrics.Metric {
	if d == nil {
		return append([]metrics.Metric{metrics.Nodes, metrics.PlantedCount, metrics.PlantedNodeMax,
			metrics.LocalKthMin, metrics.SkippedLines, metrics.ReorderedEvents}, keyedTruthReports...)
	}
	return append(keyedReports(k.top, d), metrics.PlantedFound, metrics.MissedHeavy)
}
