package sim

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"countsim/metrics"
	"countsim/strategies"
)

// scorer collects the rows of one design: each measurement beside the
// design's simulated-scale plan where a closed form promises one, then the
// plan rows that nothing measured. A plan never fills a measured cell.
type scorer struct {
	rep      *Report
	scenario string
	step     string // the scenario's step, for the charts
	d        design
	measured map[metrics.Metric]bool
}

// scoreRows writes the rows of one scenario into a report: the truth's
// rows about the stream itself (truth, events, plan), and each design's
// through a scorer. A kind keeps one; its scenario and step also name the
// kind's own series and tables.
type scoreRows struct {
	scenario, step string
	truthName      string // the truth's pseudo-strategy
}

// scorer starts the rows of design d in rep.
func (w scoreRows) scorer(rep *Report, d design) *scorer {
	return &scorer{rep: rep, scenario: w.scenario, step: w.step, d: d, measured: map[metrics.Metric]bool{}}
}

// truth appends a row about the stream itself, measured from the truth.
func (w scoreRows) truth(rep *Report, m metrics.Metric, v float64, unit string, plan *float64, note string) {
	rep.Results = append(rep.Results, metrics.Result{Scenario: w.scenario, Strategy: w.truthName, Metric: m,
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// events adds the truth's count of the events fed, planned at the stream's
// n when all of them were.
func (w scoreRows) events(rep *Report, events, n int64) {
	var plan *float64
	if events == n {
		plan = metrics.PlanOf(float64(n))
	}
	w.truth(rep, metrics.Events, float64(events), "events", plan, "every event fed")
}

// plan is a plan-only row of the truth's: what the stream should hold.
func (w scoreRows) plan(l strategies.PlanLine) metrics.Result {
	return planRow(w.scenario, w.truthName, l)
}

// add appends a measured row with plan beside it (nil: no promise).
func (s *scorer) add(m metrics.Metric, v float64, unit string, plan *float64, note string) {
	s.measured[m] = true
	s.rep.Results = append(s.rep.Results, metrics.Result{Scenario: s.scenario, Strategy: s.d.name(), Metric: m,
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// timing appends a row read off the wall clock.
func (s *scorer) timing(m metrics.Metric, v float64, unit, note string) {
	s.add(m, v, unit, nil, note)
	s.rep.Results[len(s.rep.Results)-1].Timing = true
}

// plan is the design's simulated-scale plan for m, or nil.
func (s *scorer) plan(m metrics.Metric) *float64 { return s.d.planned(m) }

// finish appends the design's plan rows that no measurement carries: every
// full-scale line, and the simulated-scale lines of metrics not measured,
// except one that a full-scale line of the same metric and value already
// says.
func (s *scorer) finish() {
	said := map[strategies.PlanLine]bool{}
	for _, l := range s.d.plan {
		if l.Full {
			said[strategies.PlanLine{Metric: l.Metric, Value: l.Value}] = true
		}
	}
	for _, l := range s.d.plan {
		if !l.Full && (s.measured[l.Metric] || said[strategies.PlanLine{Metric: l.Metric, Value: l.Value}]) {
			continue
		}
		s.rep.Results = append(s.rep.Results, planRow(s.scenario, s.d.name(), l))
	}
}

// memory adds the design's bytes, by part when it has parts.
func (s *scorer) memory(built strategies.Strategy, note string) {
	if parted, ok := built.(strategies.Parted); ok {
		for _, part := range parted.Parts() {
			s.add(part.Metric, float64(part.Bytes), "B", s.plan(part.Metric), note)
		}
		s.add(metrics.TotalBytes, float64(built.Bytes()), "B", s.plan(metrics.TotalBytes), "all parts")
		return
	}
	s.add(metrics.Bytes, float64(built.Bytes()), "B", s.plan(metrics.Bytes), note)
}

// speed adds the wall-clock cost of Observe: elapsed ns over events.
func (s *scorer) speed(elapsed, events int64, note string) {
	if events <= 0 || elapsed <= 0 {
		return
	}
	ns := float64(elapsed) / float64(events)
	s.timing(metrics.NsPerEvent, round(ns, 2), "ns", note)
	s.timing(metrics.EventsPerSec, math.Round(1e9/ns), "events/s", note)
}

// minKeysForDistribution is the fewest keys whose overestimates make a
// histogram worth drawing (a hot-counter scenario has one key).
const minKeysForDistribution = 100

// overs is a histogram of overestimates, one count per value: the small
// values in an array, the rare large ones in a map. Scoring a run of
// 400,000,000 keys keeps a few thousand numbers, not one per key.
type overs struct {
	small [1 << 16]uint64
	large map[uint64]uint64
}

func (o *overs) add(v uint64) {
	if v < uint64(len(o.small)) {
		o.small[v]++
		return
	}
	if o.large == nil {
		o.large = map[uint64]uint64{}
	}
	o.large[v]++
}

// values returns the distinct values held, increasing, and how many keys
// have each.
func (o *overs) values() (vals, weights []float64) {
	for v, n := range o.small {
		if n > 0 {
			vals, weights = append(vals, float64(v)), append(weights, float64(n))
		}
	}
	large := slices.Sorted(maps.Keys(o.large))
	for _, v := range large {
		vals, weights = append(vals, float64(v)), append(weights, float64(o.large[v]))
	}
	return vals, weights
}

// pointStats is what comparing a point counter with the truth over every
// key found.
type pointStats struct {
	keys      int
	under     int // keys counted below the truth
	overBound int // keys whose overestimate passes the bound
	maxOver   uint64
	sumOver   uint64
	over      overs // 0 for keys counted below the truth
}

// measurePoints compares pc's count of every key the truth holds with the
// truth. It reads pc and tr only, so designs are measured side by side. It
// stops with ctx's error when ctx ends first, looking every stopEvery
// keys.
func measurePoints(ctx context.Context, pc strategies.PointCounter, tr tally, bound *float64) (*pointStats, error) {
	ps := &pointStats{}
	for key, want := range tr.all() {
		if stopped(ctx, ps.keys) {
			return nil, ctx.Err()
		}
		ps.keys++
		est := pc.Count(key)
		if est < want {
			ps.under++
			ps.over.add(0)
			continue
		}
		e := est - want
		ps.over.add(e)
		ps.sumOver += e
		ps.maxOver = max(ps.maxOver, e)
		if bound != nil && float64(e) > *bound {
			ps.overBound++
		}
	}
	return ps, nil
}

// points adds the rows of a point counter's counts against the truth:
// undercounts, overestimates and their distribution.
func (s *scorer) points(ps *pointStats) {
	bound := s.plan(metrics.OverestimateBound)
	s.add(metrics.Undercounts, float64(ps.under), "keys", s.plan(metrics.Undercounts),
		"keys whose estimate is below the truth, of "+metrics.Format(float64(ps.keys)))
	maxNote := "largest estimate − truth over every key"
	if bound != nil {
		maxNote += "; plan: the per-key bound εN"
	}
	s.add(metrics.MaxOverestimate, float64(ps.maxOver), "events", bound, maxNote)
	mean := 0.0
	if ps.keys > 0 {
		mean = float64(ps.sumOver) / float64(ps.keys)
	}
	s.add(metrics.MeanOverestimate, round(mean, 3), "events", nil, "")
	vals, weights := ps.over.values()
	if ps.keys > 0 {
		s.add(metrics.P99Overestimate, metrics.QuantileWeighted(vals, weights, 0.99), "events", nil, "over keys")
	}
	if bound != nil {
		s.add(metrics.KeysOverBound, float64(ps.overBound), "keys", nil,
			"keys whose overestimate passes εN; each does with probability at most e^-d")
	}
	if ps.maxOver > 0 && ps.keys >= minKeysForDistribution {
		name := s.d.name()
		ser := metrics.Series{Scenario: s.scenario, Step: s.step, Strategy: name, Name: "overestimate-" + name,
			Title: fmt.Sprintf("%s: overestimate per key (%s keys)", name, metrics.Format(float64(ps.keys))),
			Kind:  metrics.Distribution, XLabel: "estimate − true count", YLabel: "keys (log)", LogY: true, Values: vals, Weights: weights}
		if bound != nil {
			ser.Marks = []metrics.Mark{{Label: "bound εN = " + metrics.Format(*bound), Value: *bound, Axis: "x"}}
		}
		s.rep.Series = append(s.rep.Series, ser)
	}
}

// top compares a top-K answer with the true top K and returns the recall.
// The recall has a plan only where the design promises one: 1 for an exact
// design; for one that promises every key above its guarantee threshold,
// the share of the true top K counted more than the threshold.
func (s *scorer) top(tk strategies.TopK, tr tally, top []keyCount, k int) (float64, []strategies.Item) {
	got := tk.Top(k)
	gotKeys := make([]uint64, len(got))
	var maxErr uint64
	var signed float64
	for j, it := range got {
		gotKeys[j] = it.Key
		truth := tr.count(it.Key)
		maxErr = max(maxErr, absDiff(it.Count, truth))
		signed += float64(it.Count) - float64(truth)
	}
	wantKeys := make([]uint64, len(top))
	for j, kc := range top {
		wantKeys[j] = kc.key
	}
	var recallPlan, precisionPlan *float64
	note := fmt.Sprintf("share of the true top %d found", k)
	switch s.d.typ.Promises() {
	case strategies.PromiseAll:
		recallPlan, precisionPlan = metrics.PlanOf(1), metrics.PlanOf(1)
		note += "; plan: all, the design is exact"
	case strategies.PromiseAbove:
		if threshold := s.plan(metrics.GuaranteeAbove); threshold != nil && len(top) > 0 {
			above := 0
			for _, kc := range top {
				if float64(kc.count) > *threshold {
					above++
				}
			}
			recallPlan = metrics.PlanOf(float64(above) / float64(len(top)))
			note += fmt.Sprintf("; plan: at least the %d of them counted more than the guarantee threshold %s", above, metrics.Format(*threshold))
		}
	}
	recall := metrics.Recall(gotKeys, wantKeys)
	s.add(metrics.TopKRecall, recall, "share", recallPlan, note)
	s.add(metrics.TopKPrecision, metrics.Precision(gotKeys, wantKeys), "share", precisionPlan, "share of the answer in the true top")
	s.add(metrics.TopKCountError, float64(maxErr), "events", nil, "largest |answer − truth| over the answered keys")
	if len(got) > 0 {
		s.add(metrics.TopKCountBias, round(signed/float64(len(got)), 3), "events", nil,
			"mean answer − truth over the answered keys: below 0 where the design undercounts")
	}
	if len(top) == k {
		kth := top[k-1]
		var est uint64
		if pc, ok := tk.(strategies.PointCounter); ok {
			est = pc.Count(kth.key)
		} else {
			for _, it := range got {
				if it.Key == kth.key {
					est = it.Count
				}
			}
		}
		s.add(metrics.KthEstimate, float64(est), "events", nil,
			fmt.Sprintf("estimate for the true %s key, whose count is %s", ordinal(k), metrics.Format(float64(kth.count))))
	}
	return recall, got
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// coordination adds what went between a design spread over nodes and its
// coordinator for the answers it gave, both ways, and its largest node.
func (s *scorer) coordination(d strategies.Distributed) {
	msgs, items, bytes := d.Coordination()
	s.add(metrics.Messages, float64(msgs), "messages", s.plan(metrics.Messages), "messages for the answers, both ways: the coordinator's requests and the nodes' replies (or pushes)")
	s.add(metrics.ItemsSent, float64(items), "items", s.plan(metrics.ItemsSent), "items those messages carried: the keys asked and the items sent")
	s.add(metrics.BytesSent, float64(bytes), "B", s.plan(metrics.BytesSent), "their bytes")
	s.add(metrics.NodeBytesMax, float64(d.NodeBytes()), "B", nil, "the largest node's memory")
}
