package sim

import (
	"countsim/metrics"
	"countsim/sim/engine"
	"countsim/strategies"
	"fmt"
)

// The planted key of a count stream (issue 25): a key the law never
// draws, written exactly Plant times (workload.StreamConfig.Plant), so
// that a question about one key of known true count — the practice
// question's dish searched 400 times, shown as 3,100 — is answered by
// measurement: the truth's count of it beside the plant, and each point
// counter's estimate of it, its excess over the truth, and that excess
// beside the bound the design plans for one key (count-min's εN).

// planted adds the truth's row of the planted key, and returns what a
// design's rows add of it: its estimate and its excess, for a point
// counter. The truth is read once the stream was fed whole (events of the
// stream's): a stopped stream held fewer of the plant's writes, and its
// rows then have no plan.
func (k *streamKind) planted(rep *engine.Report, r *engine.Run, tr engine.Tally, events int64) func(s *engine.Scorer, i int) {
	key := k.src.PlantedKey()
	truth := tr.Count(key)
	var plan *float64
	if events == k.spec.Events {
		plan = metrics.PlanOf(float64(k.src.Planted()))
	}
	k.rows.Truth(rep, metrics.PlantedCount, float64(truth), "events", plan,
		fmt.Sprintf("the planted key %d: its true count; plan its writes, spread evenly over the stream", key))
	return func(s *engine.Scorer, i int) {
		pc, ok := r.Designs[i].(strategies.PointCounter)
		if !ok {
			return
		}
		got := pc.Count(key)
		s.Add(metrics.PlantedEstimate, float64(got), "events", nil, fmt.Sprintf("the design's count of the planted key, whose true count is %s", metrics.Format(float64(truth))))
		excess := float64(got) - float64(truth)
		bound := s.Plan(metrics.OverestimateBound)
		note := fmt.Sprintf("estimate − true count = %s − %s", metrics.Format(float64(got)), metrics.Format(float64(truth)))
		if bound != nil {
			verdict := "within"
			if excess > *bound {
				verdict = "over"
			}
			note += fmt.Sprintf(": %s the bound εN = %s the design keeps for a key with probability 1 − δ (plan)", verdict, metrics.Format(*bound))
		}
		s.Add(metrics.PlantedExcess, excess, "events", bound, note)
	}
}
