package hot

import (
	"fmt"

	"countsim/metrics"
	"countsim/strategies"
)

// The client's plan under a node down (client.go): what a design fails and
// loses of a steady stream of N writes of one key when down[j] is the share
// of the stream during which stripe j's node could not be reached.
//
//   - striped with random, round-robin or hash selection: a write goes to
//     stripe j with probability 1/K (round-robin: exactly every K-th), so
//     the writes that fail are N · Σ down[j] / K, each lost, and the first
//     tries answered are 1 − Σ down[j] / K of them; during the outage (one
//     fault, so down[j] is 0 or its share d), 1 − (stripes on the node)/K.
//     Retries to the same stripe fail as long as the node stays down, so
//     the first tries answered are the same; but what the writes given up
//     and lost come to then has no closed form: the retries of the
//     outage's last moments land on the returning node beside its own
//     writes, and where that passes a key's capacity the queue passes the
//     timeout, writes that land are retried and land again (shard-outage
//     shows such a retry storm). No plan of them with retries.
//     Least-loaded routes around the node; its failures (the writes sent
//     before the client learned, one probe a stripe and probe interval) have
//     no closed form here.
//   - local batching: server s flushes to stripe s mod K and holds 1/A of
//     the writes, so a flush that fails holds about N/A · T/length; drop
//     loses what the failed flushes held, N · Σ_s down[s mod K] / A with no
//     retries; resend loses nothing.

// FaultPlan is the striped counter's plan under a node down.
func (s *Striped) FaultPlan(down []float64, events int64) []strategies.PlanLine {
	if s.sel == SelectLeastLoaded || len(down) == 0 || s.adaptive || s.predict != nil {
		return nil
	}
	k := float64(len(down))
	var sum, worst float64
	hit := 0
	for _, d := range down {
		sum += d
		worst = max(worst, d)
		if d > 0 {
			hit++
		}
	}
	if sum == 0 {
		return nil
	}
	share := sum / k
	n := float64(events)
	var lines []strategies.PlanLine
	if hit > 0 && worst > 0 {
		lines = append(lines, strategies.PlanLine{Metric: metrics.OutageAvailability, Value: 1 - float64(hit)/k, Unit: "share",
			Note: fmt.Sprintf("1 − stripes on the down node / K = 1 − %d / %s: a first try picks each stripe 1/K of the time", hit, strategies.Num(k))})
	}
	if s.io.cl != nil && s.io.cl.retries > 0 {
		return lines
	}
	return append(lines,
		strategies.PlanLine{Metric: metrics.WritesFailed, Value: n * share, Unit: "writes",
			Note: fmt.Sprintf("N × Σ down / K = %s × %s / %s: a write picks each stripe 1/K of the time", strategies.Num(n), strategies.Num(sum), strategies.Num(k))},
		strategies.PlanLine{Metric: metrics.WritesLost, Value: n * share, Unit: "writes", Note: "every write given up on a down node is lost"},
		strategies.PlanLine{Metric: metrics.FailedOverPlan, Value: 1, Unit: "ratio", Note: "writes failed as planned"},
		strategies.PlanLine{Metric: metrics.LostOverPlan, Value: 1, Unit: "ratio", Note: "lost as planned"},
		strategies.PlanLine{Metric: metrics.WriteAvailability, Value: 1 - share, Unit: "share",
			Note: fmt.Sprintf("1 − Σ down / K = 1 − %s", strategies.Num(share))})
}

// FaultPlan is the single-key counter's: its one key is down[0] of the time.
func (c *SingleKey) FaultPlan(down []float64, events int64) []strategies.PlanLine {
	return c.s.FaultPlan(down, events)
}

// FaultPlan is local batching's plan under a node down: drop loses the
// failed flushes' holdings, resend nothing.
func (b *Batched) FaultPlan(down []float64, events int64) []strategies.PlanLine {
	if len(down) != b.k {
		return nil
	}
	if b.resend {
		return []strategies.PlanLine{{Metric: metrics.WritesLost, Value: 0, Unit: "writes", Note: "resend: a failed flush's delta goes with the next"}}
	}
	if b.io.cl != nil && b.io.cl.retries > 0 {
		return nil
	}
	var sum float64
	for s := range b.a {
		sum += down[s%b.k]
	}
	n := float64(events)
	lost := n * sum / float64(b.a)
	return []strategies.PlanLine{
		{Metric: metrics.WritesLost, Value: lost, Unit: "writes",
			Note: fmt.Sprintf("N × Σ_s down[s mod K] / A = %s × %s / %d: each server holds 1/A of the writes, a flush T of them, and drop loses a failed flush's", strategies.Num(n), strategies.Num(sum), b.a)},
		{Metric: metrics.CountsDropped, Value: lost, Unit: "counts", Note: "what the failed flushes held"},
		{Metric: metrics.LostOverPlan, Value: 1, Unit: "ratio", Note: "lost as planned"},
	}
}

var (
	_ strategies.FaultPlanner = (*Striped)(nil)
	_ strategies.FaultPlanner = (*SingleKey)(nil)
	_ strategies.FaultPlanner = (*Batched)(nil)
)
