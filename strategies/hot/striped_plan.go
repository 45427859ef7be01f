package hot

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
)

// The striped counter's plan: its closed-form numbers (striped.go).

// stripedPlan: the stripes a peak needs at the limit and at the headroom,
// and the load, backlog and read cost with the K configured (for an
// adaptive K, the K it reaches at the peak).
func stripedPlan(p *StripedParams, env strategies.Env) []strategies.PlanLine {
	o := newHotOpts(p.Read, p.TTL, p.Dedup)
	lines := []strategies.PlanLine{{Metric: metrics.Stripes, Value: float64(p.Stripes), Unit: "stripes", Note: "K configured"}}
	// A population of counters uses K keys for each of its posts: no plan
	// of one key's.
	one := env.Population == nil
	if p.GrowAbove == 0 && one {
		lines = append(lines, strategies.PlanLine{Metric: metrics.KeysUsed, Value: float64(p.Stripes), Unit: "keys", Note: "K: one store key a stripe"})
	}
	lines = append(lines, populationPlan(p, env)...)
	return append(lines, strategies.AtBothScales(env, func(a strategies.Assumptions) []strategies.PlanLine {
		var lines []strategies.PlanLine
		k := float64(p.Stripes)
		rate, capa, head := a.PeakRate, a.KeyCapacity, a.Headroom
		if rate > 0 && capa > 0 {
			lines = append(lines, strategies.PlanLine{Metric: metrics.StripesAtLimit, Value: strategies.CeilTidy(rate / capa), Unit: "stripes",
				Note: fmt.Sprintf("⌈peak / key capacity⌉ = ⌈%s / %s⌉ = %s", strategies.Num(rate), strategies.Num(capa), strategies.Num(strategies.CeilTidy(rate/capa)))})
			if head > 0 {
				need := rate / (capa * head)
				lines = append(lines,
					strategies.PlanLine{Metric: metrics.StripesAtHeadroom, Value: need, Unit: "stripes",
						Note: fmt.Sprintf("peak / (capacity × headroom): %s / %s = %s", strategies.Num(rate), strategies.Num(capa*head), strategies.Num(need))},
					strategies.PlanLine{Metric: metrics.StripesNeeded, Value: strategies.CeilTidy(need), Unit: "stripes", Note: "⌈stripes at headroom⌉"},
					strategies.PlanLine{Metric: metrics.StripesPow2, Value: float64(ds.NextPow2(uint64(strategies.CeilTidy(need)))), Unit: "stripes",
						Note: "the next power of two"})
			}
		}
		kNote := "K"
		if p.GrowAbove > 0 && rate > 0 {
			kp := p.Stripes
			for rate/float64(kp) > p.GrowAbove && kp < p.maxStripes() {
				kp = min(2*kp, p.maxStripes())
			}
			k = float64(kp)
			kNote = "K at the peak"
			lines = append(lines, strategies.PlanLine{Metric: metrics.StripesAtPeak, Value: k, Unit: "stripes",
				Note: fmt.Sprintf("stripes doubled while peak / K > grow_above = %s (at most max_stripes %d)", strategies.Num(p.GrowAbove), p.maxStripes())})
		}
		if p.GrowAbove > 0 && one {
			lines = append(lines, strategies.PlanLine{Metric: metrics.KeysUsed, Value: k, Unit: "keys", Note: "K at the peak: one store key a stripe"})
		}
		if rate > 0 {
			per := rate / k
			lines = append(lines, strategies.PlanLine{Metric: metrics.MaxKeyOps, Value: per, Unit: "ops/s",
				Note: fmt.Sprintf("peak / %s = %s / %s = %s a stripe (the mean; the measured max over stripes and seconds is higher unless round-robin)", kNote, strategies.Num(rate), strategies.Num(k), strategies.Num(per))})
			if capa > 0 {
				lines = append(lines,
					strategies.PlanLine{Metric: metrics.Utilisation, Value: per / capa, Unit: "share",
						Note: fmt.Sprintf("%s / %s = %s of a key's capacity", strategies.Num(per), strategies.Num(capa), strategies.Pct(per/capa))},
					strategies.PlanLine{Metric: metrics.BacklogGrowth, Value: max(0, per-capa) * k, Unit: "ops/s",
						Note: fmt.Sprintf("max(0, %s − %s) × %s: what the stripes' queues grow by each second", strategies.Num(per), strategies.Num(capa), strategies.Num(k))})
			}
		}
		lines = append(lines, hotReadPlan(o, k, a.ReadRate, 0)...)
		if p.HashTag && rate > 0 && !o.cache {
			// Every stripe of the hot key on one node: it takes the key's
			// whole load, the reads' K GETs each included.
			node := rate + a.ReadRate*k
			lines = append(lines, strategies.PlanLine{Metric: metrics.MaxNodeOps, Value: node, Unit: "ops/s",
				Note: fmt.Sprintf("hashtag: all K stripes on one node, which takes peak + reads × K = %s + %s × %s = %s (the mean; the busiest second is higher)",
					strategies.Num(rate), strategies.Num(a.ReadRate), strategies.Num(k), strategies.Num(node))})
		}
		return append(lines, hotDedupPlan(o, rate)...)
	})...)
}
