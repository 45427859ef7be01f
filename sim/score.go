package sim

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
)

// scorer collects the rows of one design: each measurement beside the
// design's simulated-scale plan where a closed form promises one, then the
// plan rows that nothing measured. A plan never fills a measured cell.
type scorer struct {
	rep      *Report
	scenario string
	d        design
	measured map[strategies.Metric]bool
}

func (st *Setup) scorer(rep *Report, d design) *scorer {
	return &scorer{rep: rep, scenario: st.Scenario.Name, d: d, measured: map[strategies.Metric]bool{}}
}

// add appends a measured row with plan beside it (nil: no promise).
func (s *scorer) add(m strategies.Metric, v float64, unit string, plan *float64, note string) {
	s.measured[m] = true
	s.rep.Results = append(s.rep.Results, metrics.Result{Scenario: s.scenario, Strategy: s.d.name(), Metric: string(m),
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// timing appends a row read off the wall clock.
func (s *scorer) timing(m strategies.Metric, v float64, unit, note string) {
	s.add(m, v, unit, nil, note)
	s.rep.Results[len(s.rep.Results)-1].Timing = true
}

// plan is the design's simulated-scale plan for m, or nil.
func (s *scorer) plan(m strategies.Metric) *float64 { return s.d.planned(m) }

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
		s.add(strategies.MetricTotalBytes, float64(built.Bytes()), "B", s.plan(strategies.MetricTotalBytes), "all parts")
		return
	}
	s.add(strategies.MetricBytes, float64(built.Bytes()), "B", s.plan(strategies.MetricBytes), note)
}

// speed adds the wall-clock cost of Observe: elapsed ns over events.
func (s *scorer) speed(elapsed, events int64, note string) {
	if events <= 0 || elapsed <= 0 {
		return
	}
	ns := float64(elapsed) / float64(events)
	s.timing(strategies.MetricNsPerEvent, round(ns, 2), "ns", note)
	s.timing(strategies.MetricEventsPerSec, math.Round(1e9/ns), "events/s", note)
}

// truthRow appends a row about the stream itself, measured from the truth.
func (st *Setup) truthRow(rep *Report, m strategies.Metric, v float64, unit string, plan *float64, note string) {
	rep.Results = append(rep.Results, metrics.Result{Scenario: st.Scenario.Name, Strategy: st.truthName(), Metric: string(m),
		Value: metrics.Measured(v), Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
}

// minKeysForDistribution is the fewest keys whose overestimates make a
// histogram worth drawing (a hot-counter scenario has one key).
const minKeysForDistribution = 100

// points compares a point counter's count of every key seen with the
// truth: undercounts, overestimates and their distribution.
func (s *scorer) points(pc strategies.PointCounter, tr *truth, keys []uint64) {
	var under, overBound int
	var maxOver, sumOver uint64
	over := make([]float64, len(keys))
	bound := s.plan(strategies.MetricOverestimateBound)
	for j, key := range keys {
		est, want := pc.Count(key), tr.counts[key]
		if est < want {
			under++
			continue
		}
		e := est - want
		over[j] = float64(e)
		sumOver += e
		maxOver = max(maxOver, e)
		if bound != nil && float64(e) > *bound {
			overBound++
		}
	}
	s.add(strategies.MetricUndercounts, float64(under), "keys", s.plan(strategies.MetricUndercounts),
		"keys whose estimate is below the truth, of "+metrics.Format(float64(len(keys))))
	maxNote := "largest estimate − truth over every key"
	if bound != nil {
		maxNote += "; plan: the per-key bound εN"
	}
	s.add(strategies.MetricMaxOverestimate, float64(maxOver), "events", bound, maxNote)
	mean := 0.0
	if len(keys) > 0 {
		mean = float64(sumOver) / float64(len(keys))
	}
	s.add(strategies.MetricMeanOverestimate, round(mean, 3), "events", nil, "")
	if len(keys) > 0 {
		s.add(strategies.MetricP99Overestimate, metrics.Quantile(append([]float64(nil), over...), 0.99), "events", nil, "over keys")
	}
	if bound != nil {
		s.add(strategies.MetricKeysOverBound, float64(overBound), "keys", nil,
			"keys whose overestimate passes εN; each does with probability at most e^-d")
	}
	if maxOver > 0 && len(keys) >= minKeysForDistribution {
		name := s.d.name()
		ser := metrics.Series{Scenario: s.scenario, Strategy: name, Name: "overestimate-" + name,
			Title: fmt.Sprintf("%s: overestimate per key (%s keys)", name, metrics.Format(float64(len(keys)))),
			Kind:  metrics.Distribution, XLabel: "estimate − true count", YLabel: "keys", Values: over}
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
func (s *scorer) top(tk strategies.TopK, tr *truth, top []keyCount, k int) float64 {
	got := tk.Top(k)
	gotKeys := make([]uint64, len(got))
	var maxErr uint64
	for j, it := range got {
		gotKeys[j] = it.Key
		maxErr = max(maxErr, absDiff(it.Count, tr.counts[it.Key]))
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
		if threshold := s.plan(strategies.MetricGuaranteeAbove); threshold != nil && len(top) > 0 {
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
	s.add(strategies.MetricTopKRecall, recall, "share", recallPlan, note)
	s.add(strategies.MetricTopKPrecision, metrics.Precision(gotKeys, wantKeys), "share", precisionPlan, "share of the answer in the true top")
	s.add(strategies.MetricTopKCountError, float64(maxErr), "events", nil, "largest |answer − truth| over the answered keys")
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
		s.add(strategies.MetricKthEstimate, float64(est), "events", nil,
			fmt.Sprintf("estimate for the true %s key, whose count is %s", ordinal(k), metrics.Format(float64(kth.count))))
	}
	return recall
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
