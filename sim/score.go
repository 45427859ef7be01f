package sim

import (
	"fmt"
	"math"

	"countsim/metrics"
	"countsim/strategies"
)

// truthName is the pseudo-strategy whose rows describe the stream itself:
// "truth", or "truth-STEP" in a scenario told in steps.
func (st *Setup) truthName() string {
	if st.Scenario.Step != "" {
		return "truth-" + st.Scenario.Step
	}
	return "truth"
}

// score asks every design its family's questions and compares the answers
// with the truth.
func (st *Setup) score(r *run, events int64) *Report {
	tr, built, elapsed := r.truth, r.designs, r.elapsed
	rep := &Report{}
	scn := st.Scenario
	k := scn.Questions.Top
	keys := tr.keys()
	var top []keyCount
	if k > 0 {
		top = tr.top(k)
	}
	add := func(strategy, metric string, v float64, unit string, plan *float64, note string) {
		rep.Results = append(rep.Results, metrics.Result{Scenario: scn.Name, Strategy: strategy, Metric: metric,
			Value: v, Unit: unit, Plan: plan, Scale: metrics.Sim, Note: note})
	}

	w := scn.Workload
	var planEvents *float64
	if !w.Timed() && events == w.Events {
		planEvents = metrics.PlanOf(float64(w.Events))
	}
	add(st.truthName(), "events", float64(events), "events", planEvents, "every event fed: writes, reads and resends")
	if w.Timed() {
		add(st.truthName(), "writes", float64(tr.n), "events", metrics.PlanOf(math.Round(w.ExpectedWrites())), "logical writes; plan ∫ rate dt")
		add(st.truthName(), "reads", float64(len(tr.reads)), "events", metrics.PlanOf(math.Round(w.Reads*float64(w.Duration())/1e9)), "read events")
		if w.Resend > 0 {
			add(st.truthName(), "resends", float64(tr.dups), "events", metrics.PlanOf(math.Round(w.Resend*w.ExpectedWrites())), "writes sent twice (same ID)")
		}
	}
	add(st.truthName(), "distinct_keys", float64(len(keys)), "keys", nil, "of "+metrics.Format(float64(scn.Workload.Keys))+" possible")
	if len(top) > 0 {
		add(st.truthName(), "top1_count", float64(top[0].count), "events", metrics.PlanOf(st.expectedCount(1)), "N·P(rank 1)")
	}
	if len(top) == k && k > 0 {
		add(st.truthName(), "kth_true_count", float64(top[k-1].count), "events", metrics.PlanOf(st.expectedCount(uint64(k))),
			fmt.Sprintf("the %s key's true count; plan N·k^-s/H(n,s)", ordinal(k)))
	}

	recall := metrics.Series{Scenario: scn.Name, Name: "topk-recall", Kind: metrics.Bars,
		Title: fmt.Sprintf("top-%d recall of each design", k), XLabel: "design", YLabel: "recall"}
	for i, s := range built {
		d := st.designs[i]
		name := d.spec.Name
		plan := d.planned
		measured := map[string]bool{}
		addM := func(metric string, v float64, unit string, p *float64, note string) {
			measured[metric] = true
			add(name, metric, v, unit, p, note)
		}

		if parted, ok := s.(strategies.Parted); ok {
			for _, part := range parted.Parts() {
				addM(part.Metric, float64(part.Bytes), "B", plan(part.Metric), "measured from the design's arrays")
			}
			addM("total_bytes", float64(s.Bytes()), "B", plan("total_bytes"), "all parts")
		} else {
			addM("bytes", float64(s.Bytes()), "B", plan("bytes"), "measured from the design's arrays")
		}
		if events > 0 && elapsed[i] > 0 {
			ns := float64(elapsed[i]) / float64(events)
			timingNote := "Observe, wall clock on this machine"
			if r.clusters[i] != nil {
				timingNote += "; includes the simulated cluster's queueing and accounting"
			}
			rep.Results = append(rep.Results,
				metrics.Result{Scenario: scn.Name, Strategy: name, Metric: "ns_per_event", Value: round(ns, 2), Unit: "ns",
					Scale: metrics.Sim, Timing: true, Note: timingNote},
				metrics.Result{Scenario: scn.Name, Strategy: name, Metric: "events_per_s", Value: math.Round(1e9 / ns), Unit: "events/s",
					Scale: metrics.Sim, Timing: true, Note: timingNote})
			measured["ns_per_event"], measured["events_per_s"] = true, true
		}

		if pc, ok := s.(strategies.PointCounter); ok {
			st.scorePoints(pc, tr, keys, plan, addM, rep, name)
		}
		st.scoreServers(r, i, plan, addM, rep)
		if tk, ok := s.(strategies.TopK); ok && k > 0 {
			recall.Labels = append(recall.Labels, name)
			recall.Y = append(recall.Y, scoreTop(tk, s, tr, top, k, addM))
		}

		rep.Results = st.planRows(rep.Results, d, measured)
	}
	if len(recall.Labels) > 0 {
		rep.Series = append(rep.Series, recall)
	}
	return rep
}

// minKeysForDistribution is the fewest keys whose overestimates make a
// histogram worth drawing (a hot-counter scenario has one key).
const minKeysForDistribution = 100

// scorePoints compares a point counter's count of every key seen with the
// truth: undercounts, overestimates and their distribution.
func (st *Setup) scorePoints(pc strategies.PointCounter, tr *truth, keys []uint64, plan func(string) *float64,
	addM func(string, float64, string, *float64, string), rep *Report, name string) {
	var under, overBound int
	var maxOver, sumOver uint64
	over := make([]float64, len(keys))
	bound := plan("overestimate_bound")
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
	addM("undercounts", float64(under), "keys", plan("undercounts"), "keys whose estimate is below the truth, of "+metrics.Format(float64(len(keys))))
	maxNote := "largest estimate − truth over every key"
	if bound != nil {
		maxNote += "; plan: the per-key bound εN"
	}
	addM("max_overestimate", float64(maxOver), "events", bound, maxNote)
	mean := 0.0
	if len(keys) > 0 {
		mean = float64(sumOver) / float64(len(keys))
	}
	addM("mean_overestimate", round(mean, 3), "events", plan("mean_overestimate"), "")
	if len(keys) > 0 {
		p99 := metrics.Quantile(append([]float64(nil), over...), 0.99)
		addM("p99_overestimate", p99, "events", nil, "over keys")
	}
	if bound != nil {
		addM("overestimate_bound", *bound, "events", bound, "εN: exceeded with probability at most δ per key")
		addM("keys_over_bound", float64(overBound), "keys", nil, "keys whose overestimate passes the bound")
	}
	if maxOver > 0 && len(keys) >= minKeysForDistribution {
		s := metrics.Series{Scenario: st.Scenario.Name, Strategy: name, Name: "overestimate-" + name,
			Title: fmt.Sprintf("%s: overestimate per key (%s keys)", name, metrics.Format(float64(len(keys)))),
			Kind:  metrics.Distribution, XLabel: "estimate − true count", YLabel: "keys", Values: over}
		if bound != nil {
			s.Marks = []metrics.Mark{{Label: "bound εN = " + metrics.Format(*bound), Value: *bound, Axis: "x"}}
		}
		rep.Series = append(rep.Series, s)
	}
}

// scoreTop compares a top-K answer with the true top K and returns the recall.
func scoreTop(tk strategies.TopK, s strategies.Strategy, tr *truth, top []keyCount, k int,
	addM func(string, float64, string, *float64, string)) float64 {
	got := tk.Top(k)
	gotKeys := make([]uint64, len(got))
	var maxErr uint64
	for j, it := range got {
		gotKeys[j] = it.Key
		want := tr.counts[it.Key]
		maxErr = max(maxErr, absDiff(it.Count, want))
	}
	wantKeys := make([]uint64, len(top))
	for j, kc := range top {
		wantKeys[j] = kc.key
	}
	one := metrics.PlanOf(1)
	recall := metrics.Recall(gotKeys, wantKeys)
	addM("topk_recall", recall, "share", one, fmt.Sprintf("share of the true top %d found", k))
	addM("topk_precision", metrics.Precision(gotKeys, wantKeys), "share", one, "")
	addM("topk_max_count_error", float64(maxErr), "events", nil, "largest |answer − truth| over the answered keys")
	if len(top) == k {
		kth := top[k-1]
		var est uint64
		if pc, ok := s.(strategies.PointCounter); ok {
			est = pc.Count(kth.key)
		} else {
			for _, it := range got {
				if it.Key == kth.key {
					est = it.Count
				}
			}
		}
		addM("kth_estimate", float64(est), "events", nil,
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
