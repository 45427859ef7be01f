package engine

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"

	"countsim/metrics"
	"countsim/strategies"
)

// Scorer collects the rows of one design: each measurement beside the
// design's simulated-scale plan where a closed form promises one, then the
// plan rows that nothing measured. A plan never fills a measured cell.
type Scorer struct {
	Rep      *Report
	Scenario string
	Step     string // the scenario's step, for the charts
	D        Design
	Measured map[metrics.Metric]bool
}

// ScoreRows writes the rows of one scenario into a report: the truth's
// rows about the stream itself (truth, events, plan), and each design's
// through a scorer. A kind keeps one; its scenario and step also name the
// kind's own series and tables.
type ScoreRows struct {
	Scenario, Step string
	TruthName      string // the truth's pseudo-strategy
}

// Scorer starts the rows of design d in rep.
func (w ScoreRows) Scorer(rep *Report, d Design) *Scorer {
	return &Scorer{Rep: rep, Scenario: w.Scenario, Step: w.Step, D: d, Measured: map[metrics.Metric]bool{}}
}

// Truth appends a row about the stream itself, measured from the Truth.
func (w ScoreRows) Truth(rep *Report, m metrics.Metric, v float64, unit string, plan *float64, note string) {
	rep.Results = append(rep.Results, metrics.Result{Scenario: w.Scenario, Strategy: w.TruthName, Metric: m,
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// Events adds the truth's count of the Events fed, planned at the stream's
// n when all of them were.
func (w ScoreRows) Events(rep *Report, events, n int64) {
	var plan *float64
	if events == n {
		plan = metrics.PlanOf(float64(n))
	}
	w.Truth(rep, metrics.Events, float64(events), "events", plan, "every event fed")
}

// Plan is a Plan-only row of the truth's: what the stream should hold.
func (w ScoreRows) Plan(l strategies.PlanLine) metrics.Result {
	return planRow(w.Scenario, w.TruthName, l)
}

// Add appends a measured row with plan beside it (nil: no promise).
func (s *Scorer) Add(m metrics.Metric, v float64, unit string, plan *float64, note string) {
	s.Measured[m] = true
	s.Rep.Results = append(s.Rep.Results, metrics.Result{Scenario: s.Scenario, Strategy: s.D.Name(), Metric: m,
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// Timing appends a row read off the wall clock.
func (s *Scorer) Timing(m metrics.Metric, v float64, unit, note string) {
	s.Add(m, v, unit, nil, note)
	s.Rep.Results[len(s.Rep.Results)-1].Timing = true
}

// Plan is the design's simulated-scale Plan for m, or nil.
func (s *Scorer) Plan(m metrics.Metric) *float64 { return s.D.Planned(m) }

// Finish appends the design's plan rows that no measurement carries: every
// full-scale line, and the simulated-scale lines of metrics not measured,
// except one that a full-scale line of the same metric and value already
// says.
func (s *Scorer) Finish() {
	said := map[strategies.PlanLine]bool{}
	for _, l := range s.D.Plan {
		if l.Full {
			said[strategies.PlanLine{Metric: l.Metric, Value: l.Value}] = true
		}
	}
	for _, l := range s.D.Plan {
		if !l.Full && (s.Measured[l.Metric] || said[strategies.PlanLine{Metric: l.Metric, Value: l.Value}]) {
			continue
		}
		s.Rep.Results = append(s.Rep.Results, planRow(s.Scenario, s.D.Name(), l))
	}
}

// Memory adds the design's bytes, by part when it has parts.
func (s *Scorer) Memory(built strategies.Strategy, note string) {
	if parted, ok := built.(strategies.Parted); ok {
		for _, part := range parted.Parts() {
			s.Add(part.Metric, float64(part.Bytes), "B", s.Plan(part.Metric), note)
		}
		s.Add(metrics.TotalBytes, float64(built.Bytes()), "B", s.Plan(metrics.TotalBytes), "all parts")
		return
	}
	s.Add(metrics.Bytes, float64(built.Bytes()), "B", s.Plan(metrics.Bytes), note)
}

// Speed adds the wall-clock cost of Observe: elapsed ns over events.
func (s *Scorer) Speed(elapsed, events int64, note string) {
	if events <= 0 || elapsed <= 0 {
		return
	}
	ns := float64(elapsed) / float64(events)
	s.Timing(metrics.NsPerEvent, Round(ns, 2), "ns", note)
	s.Timing(metrics.EventsPerSec, math.Round(1e9/ns), "events/s", note)
}

// minKeysForDistribution is the fewest keys whose overestimates make a
// histogram worth drawing (a hot-counter scenario has one key).
const minKeysForDistribution = 100

// Overs is a histogram of overestimates, one count per value: the small
// values in an array, the rare large ones in a map. Scoring a run of
// 400,000,000 keys keeps a few thousand numbers, not one per key.
type Overs struct {
	small [1 << 16]uint64
	large map[uint64]uint64
}

func (o *Overs) add(v uint64) {
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
func (o *Overs) values() (vals, weights []float64) {
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

// PointStats is what comparing a point counter with the truth over every
// key found.
type PointStats struct {
	keys      int
	under     int // keys counted below the truth
	overBound int // keys whose overestimate passes the bound
	maxOver   uint64
	sumOver   uint64
	over      Overs // 0 for keys counted below the truth
}

// MeasurePoints compares pc's count of every key the truth holds with the
// truth. It reads pc and tr only, so designs are measured side by side. It
// stops with ctx's error when ctx ends first, looking every stopEvery
// keys.
func MeasurePoints(ctx context.Context, pc strategies.PointCounter, tr Tally, bound *float64) (*PointStats, error) {
	ps := &PointStats{}
	for key, want := range tr.All() {
		if Stopped(ctx, ps.keys) {
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

// Points adds the rows of a point counter's counts against the truth:
// undercounts, overestimates and their distribution.
func (s *Scorer) Points(ps *PointStats) {
	bound := s.Plan(metrics.OverestimateBound)
	s.Add(metrics.Undercounts, float64(ps.under), "keys", s.Plan(metrics.Undercounts),
		"keys whose estimate is below the truth, of "+metrics.Format(float64(ps.keys)))
	maxNote := "largest estimate − truth over every key"
	if bound != nil {
		maxNote += "; plan: the per-key bound εN"
	}
	s.Add(metrics.MaxOverestimate, float64(ps.maxOver), "events", bound, maxNote)
	mean := 0.0
	if ps.keys > 0 {
		mean = float64(ps.sumOver) / float64(ps.keys)
	}
	s.Add(metrics.MeanOverestimate, Round(mean, 3), "events", nil, "")
	vals, weights := ps.over.values()
	if ps.keys > 0 {
		s.Add(metrics.P99Overestimate, metrics.QuantileWeighted(vals, weights, 0.99), "events", nil, "over keys")
	}
	if bound != nil {
		s.Add(metrics.KeysOverBound, float64(ps.overBound), "keys", nil,
			"keys whose overestimate passes εN; each does with probability at most e^-d")
	}
	if ps.maxOver > 0 && ps.keys >= minKeysForDistribution {
		name := s.D.Name()
		ser := metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: name, Name: "overestimate-" + name,
			Title: fmt.Sprintf("%s: overestimate per key (%s keys)", name, metrics.Format(float64(ps.keys))),
			Kind:  metrics.Distribution, XLabel: "estimate − true count", YLabel: "keys (log)", LogY: true, Values: vals, Weights: weights}
		if bound != nil {
			ser.Marks = []metrics.Mark{{Label: "bound εN = " + metrics.Format(*bound), Value: *bound, Axis: "x"}}
		}
		s.Rep.Series = append(s.Rep.Series, ser)
	}
}

// Top compares a top-K answer with the true top K and returns the recall.
// The recall has a plan only where the design promises one: 1 for an exact
// design; for one that promises every key above its guarantee threshold,
// the share of the true top K counted more than the threshold.
func (s *Scorer) Top(tk strategies.TopK, tr Tally, top []KeyCount, k int) (float64, []strategies.Item) {
	got := tk.Top(k)
	gotKeys := make([]uint64, len(got))
	var maxErr uint64
	var signed float64
	for j, it := range got {
		gotKeys[j] = it.Key
		truth := tr.Count(it.Key)
		maxErr = max(maxErr, absDiff(it.Count, truth))
		signed += float64(it.Count) - float64(truth)
	}
	wantKeys := make([]uint64, len(top))
	for j, kc := range top {
		wantKeys[j] = kc.Key
	}
	var recallPlan, precisionPlan *float64
	note := fmt.Sprintf("share of the true top %d found", k)
	switch s.D.Typ.Promises() {
	case strategies.PromiseAll:
		recallPlan, precisionPlan = metrics.PlanOf(1), metrics.PlanOf(1)
		note += "; plan: all, the design is exact"
	case strategies.PromiseAbove:
		if threshold := s.Plan(metrics.GuaranteeAbove); threshold != nil && len(top) > 0 {
			above := 0
			for _, kc := range top {
				if float64(kc.Count) > *threshold {
					above++
				}
			}
			recallPlan = metrics.PlanOf(float64(above) / float64(len(top)))
			note += fmt.Sprintf("; plan: at least the %d of them counted more than the guarantee threshold %s", above, metrics.Format(*threshold))
		}
	}
	recall := metrics.Recall(gotKeys, wantKeys)
	s.Add(metrics.TopKRecall, recall, "share", recallPlan, note)
	s.Add(metrics.TopKPrecision, metrics.Precision(gotKeys, wantKeys), "share", precisionPlan, "share of the answer in the true top")
	s.Add(metrics.TopKCountError, float64(maxErr), "events", nil, "largest |answer − truth| over the answered keys")
	if len(got) > 0 {
		s.Add(metrics.TopKCountBias, Round(signed/float64(len(got)), 3), "events", nil,
			"mean answer − truth over the answered keys: below 0 where the design undercounts")
	}
	if len(top) == k {
		kth := top[k-1]
		var est uint64
		if pc, ok := tk.(strategies.PointCounter); ok {
			est = pc.Count(kth.Key)
		} else {
			for _, it := range got {
				if it.Key == kth.Key {
					est = it.Count
				}
			}
		}
		s.Add(metrics.KthEstimate, float64(est), "events", nil,
			fmt.Sprintf("estimate for the true %s key, whose count is %s", Ordinal(k), metrics.Format(float64(kth.Count))))
	}
	return recall, got
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}

func Round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func Ordinal(n int) string {
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

// Coordination adds what went between a design spread over nodes and its
// coordinator for the answers it gave, both ways, and its largest node.
func (s *Scorer) Coordination(d strategies.Distributed) {
	msgs, items, bytes := d.Coordination()
	s.Add(metrics.Messages, float64(msgs), "messages", s.Plan(metrics.Messages), "messages for the answers, both ways: the coordinator's requests and the nodes' replies (or pushes)")
	s.Add(metrics.ItemsSent, float64(items), "items", s.Plan(metrics.ItemsSent), "items those messages carried: the keys asked and the items sent")
	s.Add(metrics.BytesSent, float64(bytes), "B", s.Plan(metrics.BytesSent), "their bytes")
	s.Add(metrics.NodeBytesMax, float64(d.NodeBytes()), "B", nil, "the largest node's memory")
}

// Count is n and its noun, singular for 1: "1 key", "1,000 keys".
func Count(n float64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return metrics.Format(n) + " " + noun + "s"
}
