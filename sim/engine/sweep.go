package engine

import (
	"fmt"
	"math"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
)

// Sweeps: a design with `sweep: {key: [v1, v2, …]}` runs once a value, as
// designs NAME-key-v of their own on the same events (each on its lane),
// and the report draws, for each error the run measures of them, the
// measured curve against memory (the designs' bytes, or the swept value
// where the bytes do not vary) beside the plan's curve where the rows
// carry one: error against bytes with εN for a count-min's width, relative
// error against bytes with 1.04/√m for an HLL's p, the busiest key's load
// against K for stripes.

// sweepPoint is a design's place in its sweep.
type sweepPoint struct {
	group   string  // the entry's name
	key     string  // the parameter swept
	Value   float64 // its value here, for an axis (NaN for a non-number)
	seconds bool    // the value is a duration's seconds
}

// Label names the swept parameter on an axis, with its unit: "cycle (s)".
func (p *sweepPoint) Label() string {
	if p.seconds {
		return p.key + " (s)"
	}
	return p.key
}

// sweepMember is one design a strategy entry stands for.
type sweepMember struct {
	spec  scenarios.Strategy
	at    *scenarios.Pos // the swept value's position
	Sweep *sweepPoint
}

// SweepMembers is the entry itself without a sweep, else one design a value:
// its name NAME-key-value, its parameters the entry's with key set to value.
func SweepMembers(spec scenarios.Strategy) []sweepMember {
	sw := spec.Sweep
	if sw == nil {
		return []sweepMember{{spec: spec}}
	}
	var out []sweepMember
	for j, v := range sw.Values {
		m := spec
		m.Sweep = nil
		m.Name = fmt.Sprintf("%s-%s-%v", spec.Name, sw.Key, v)
		m.Params = nil
		for _, p := range spec.Params {
			if p.Key != sw.Key {
				m.Params = append(m.Params, p)
			}
		}
		m.Params = append(m.Params, sw.Param(j))
		x, seconds := math.NaN(), false
		switch n := v.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
		case string: // a duration (a push interval): its seconds
			if d, err := time.ParseDuration(n); err == nil {
				x, seconds = d.Seconds(), true
			}
		}
		out = append(out, sweepMember{spec: m, at: &sw.At[j], Sweep: &sweepPoint{group: spec.Name, key: sw.Key, Value: x, seconds: seconds}})
	}
	return out
}

// sweptKey is the parameter an entry sweeps, or "".
func sweptKey(spec scenarios.Strategy) string {
	if spec.Sweep == nil {
		return ""
	}
	return spec.Sweep.Key
}

// sweepCurveMetrics are the errors a sweep draws, where its designs report
// them; relative errors as their magnitude.
var sweepCurveMetrics = []metrics.Metric{
	metrics.MaxOverestimate, metrics.MeanOverestimate, metrics.TopKRecall,
	metrics.RelativeError, metrics.SigmaLargeN, metrics.MaxKeyOps,
	metrics.RankErrorMean, metrics.PercentileErrorP99, metrics.TopKCountBias,
}

// sweepCurves adds the curves of every sweep to rep. Run calls it once a
// run's every other series is in, so it also leaves out, last, the charts
// that would show nothing (dropFlat).
func (st *Setup) sweepCurves(rep *Report) {
	defer func() { rep.Series = DropFlat(rep.Series) }()
	var groups []string
	members := map[string][]Design{}
	for _, d := range st.Members {
		if d.Sweep == nil {
			continue
		}
		if _, ok := members[d.Sweep.group]; !ok {
			groups = append(groups, d.Sweep.group)
		}
		members[d.Sweep.group] = append(members[d.Sweep.group], d)
	}
	first := func(name string, m metrics.Metric) *metrics.Result {
		for i, r := range rep.Results {
			if r.Strategy == name && r.Metric == m && r.Scale == metrics.Sim && r.Value != nil && (r.Stat == "" || r.Stat == "mean") {
				return &rep.Results[i]
			}
		}
		return nil
	}
	compared := map[metrics.Metric][]metrics.Series{}
	for _, g := range groups {
		ds := members[g]
		// X: each design's bytes as measured, else as planned (an accuracy
		// profile measures none), else the swept value.
		xs, xLabel, logX := make([]float64, len(ds)), "bytes (log)", true
		for i, d := range ds {
			b := first(d.Name(), metrics.TotalBytes)
			if b == nil {
				b = first(d.Name(), metrics.Bytes)
			}
			switch {
			case b != nil:
				xs[i] = *b.Value
			case d.Planned(metrics.Bytes) != nil:
				xs[i] = *d.Planned(metrics.Bytes)
			default:
				xs = nil
			}
			if xs == nil {
				break
			}
		}
		if xs == nil || xs[0] == xs[len(xs)-1] { // no bytes, or bytes that do not vary: against the value
			xs, xLabel, logX = make([]float64, len(ds)), ds[0].Sweep.Label(), false
			for i, d := range ds {
				xs[i] = d.Sweep.Value
			}
		}
		byValue := make([]float64, len(ds))
		for i, d := range ds {
			byValue[i] = d.Sweep.Value
		}
		// The bytes of the principal part alone (a score histogram's
		// buckets, without the scores table every width shares).
		var own []float64
		for _, d := range ds {
			if b := first(d.Name(), metrics.Bytes); b != nil {
				own = append(own, *b.Value)
			}
		}
		for _, m := range sweepCurveMetrics {
			// The busiest key's load is drawn against the value swept (the
			// stripes K), a rank error against the value (a bucket width)
			// and against the principal part's bytes, every other error
			// against memory.
			type axis struct {
				xs     []float64
				label  string
				log    bool
				suffix string
			}
			axes := []axis{{xs, xLabel, logX, ""}}
			switch m {
			case metrics.MaxKeyOps:
				axes = []axis{{byValue, ds[0].Sweep.Label(), false, ""}}
			case metrics.TopKRecall, metrics.TopKCountBias:
				// Against the value too when the value is not the memory (a
				// push interval): recall against the cycle.
				if xLabel != ds[0].Sweep.Label() && !math.IsNaN(byValue[0]) {
					axes = append(axes, axis{byValue, ds[0].Sweep.Label(), false, "-by-" + ds[0].Sweep.key})
				}
			case metrics.RankErrorMean, metrics.PercentileErrorP99:
				axes = []axis{{byValue, ds[0].Sweep.Label() + " (log)", true, ""}}
				if len(own) == len(ds) && own[0] != own[len(own)-1] {
					axes = append(axes, axis{own, "bytes of its own part, without what every size shares (log)", true, "-bytes"})
				}
			}
			for _, ax := range axes {
				st.sweepCurve(rep, g, ds, m, ax.xs, ax.label, ax.log, ax.suffix, first)
			}
		}
		if xLabel == "bytes (log)" {
			for _, m := range sweepCompared {
				var x, y []float64
				for i, d := range ds {
					if r := first(d.Name(), m); r != nil {
						x, y = append(x, xs[i]), append(y, *r.Value)
					}
				}
				if len(y) >= 2 {
					name, title := "sweeps-"+string(m), fmt.Sprintf("%s against memory, every design swept", m)
					// A signed error on a symmetric log axis: Misra-Gries'
					// −2,000 beside Space-Saving's +65,000 stays apart from 0.
					yLabel, logY := string(m), m == metrics.TopKCountBias
					if logY {
						yLabel += " (symmetric log)"
					}
					compared[m] = append(compared[m], metrics.Series{Scenario: st.Scenario.Name, Step: st.Scenario.Step, Strategy: g, Name: name,
						Title: title, Kind: metrics.Curve,
						XLabel: xLabel, YLabel: yLabel, LogX: true, LogY: logY, X: x, Y: y})
				}
			}
		}
	}
	// One chart a metric with every sweep's curve, where two or more
	// designs were swept over their memory: which wins at which size.
	for _, m := range sweepCompared {
		if len(compared[m]) >= 2 {
			rep.Series = append(rep.Series, compared[m]...)
		}
	}
}

// sweepCompared are the metrics drawn for every swept design on one chart
// against memory.
var sweepCompared = []metrics.Metric{metrics.TopKRecall, metrics.TopKCountBias}

// sweepCurve adds the curve of metric m over the designs ds of sweep g
// against xs, and the plan's beside it where every design has one.
func (st *Setup) sweepCurve(rep *Report, g string, ds []Design, m metrics.Metric, xs []float64, xLabel string, logX bool, suffix string,
	first func(string, metrics.Metric) *metrics.Result) {
	// The designs that measured m; the plan's curve only if each has one.
	var x, ys, plans []float64
	planned := true
	for i, d := range ds {
		r := first(d.Name(), m)
		if r == nil {
			continue
		}
		y := *r.Value
		if m == metrics.RelativeError {
			y = math.Abs(y)
		}
		x, ys = append(x, xs[i]), append(ys, y)
		if r.Plan != nil {
			plans = append(plans, *r.Plan)
		} else {
			planned = false
		}
	}
	if len(ys) < 2 {
		return
	}
	s := metrics.Series{Scenario: st.Scenario.Name, Step: st.Scenario.Step, Strategy: g + " (measured)", Name: fmt.Sprintf("sweep-%s-%s%s", g, m, suffix),
		Title: fmt.Sprintf("%s: %s against %s", g, m, xLabel), Kind: metrics.Curve, XLabel: xLabel, YLabel: string(m),
		LogX: logX, X: x, Y: ys}
	rep.Series = append(rep.Series, s)
	if planned {
		p := s
		p.Strategy, p.Y = g+" (plan)", plans
		rep.Series = append(rep.Series, p)
	}
}
