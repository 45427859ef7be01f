package size

import (
	"fmt"
	"math"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"countsim/metrics"
	"countsim/scenarios"
)

// A sizer knows one design type's size parameter: the knob size varies,
// its range, the closed form that inverts the type's plan for the goals,
// and the parameters set beside the knob.
type sizer struct {
	knob       string  // the parameter varied
	lo, hi     float64 // the knob's range
	duration   bool    // the knob is a duration (ns): written as a Go duration
	cheaperUp  bool    // a larger knob costs less (a longer flush interval); else a larger knob is more resource
	costs      []metrics.Metric
	closed     func(c *sizing) (float64, string, bool)
	extra      func(c *sizing, v float64) []scenarios.Param
	searchFrom float64 // where a search without a closed form starts
	// probe are the parameters a design of the type is tried with when the
	// scenario lists no strategies (every type is sized): a size the type
	// takes, for the knob, and what else it requires of the step; the
	// search sets the knob's own.
	probe func(step *scenarios.Scenario) []scenarios.Param
}

// fixed is a probe of fixed parameters.
func fixed(ps ...scenarios.Param) func(*scenarios.Scenario) []scenarios.Param {
	return func(*scenarios.Scenario) []scenarios.Param { return ps }
}

// iparam is an integer parameter.
func iparam(key string, v int) scenarios.Param { return scenarios.Param{Key: key, Value: int64(v)} }

// bytesMetrics are the goals that grow with a design's size: when one
// fails, a larger size fails it too, and the search stops.
var bytesMetrics = []metrics.Metric{metrics.Bytes, metrics.TotalBytes, metrics.HeapBytes}

// sizers are the design types size knows, by name.
var sizers = map[string]*sizer{
	"count-min": {probe: fixed(iparam("width", 1000), iparam("depth", 5)), knob: "width", lo: 1, hi: 1 << 28, costs: bytesMetrics, searchFrom: 64,
		closed: func(c *sizing) (float64, string, bool) {
			t, ok := c.upper(metrics.MaxOverestimate)
			if !ok || t <= 0 {
				return 0, "", false
			}
			w := math.Ceil(math.E * c.n / t)
			return w, fmt.Sprintf("w = ⌈e·N/T⌉ = ⌈e × %s / %s⌉ = %s, d = ⌈ln 1/δ⌉ = %d", metrics.Format(c.n), metrics.Format(t), metrics.Format(w), c.depth()), true
		},
		extra: func(c *sizing, v float64) []scenarios.Param {
			ps := []scenarios.Param{{Key: "depth", Value: int64(c.depth())}}
			if c.asksTop() && !c.given("top") {
				ps = append(ps, scenarios.Param{Key: "top", Value: int64(c.k)})
			}
			return ps
		}},
	"space-saving": {probe: fixed(iparam("counters", 1000)), knob: "counters", lo: 1, hi: 1e7, costs: bytesMetrics, searchFrom: 16,
		closed: func(c *sizing) (float64, string, bool) {
			var m float64
			var notes string
			if t, ok := c.upper(metrics.MaxOverestimate); ok && t > 0 {
				m = math.Ceil(c.n / t)
				notes = fmt.Sprintf("m = ⌈N/T⌉ = ⌈%s / %s⌉ = %s", metrics.Format(c.n), metrics.Format(t), metrics.Format(m))
			}
			if c.asksTop() && c.kth > 0 {
				if mk := math.Floor(c.n/c.kth) + 1; mk > m {
					m, notes = mk, fmt.Sprintf("m > N / (K-th count) = %s / %s: m = %s", metrics.Format(c.n), metrics.Format(c.kth), metrics.Format(mk))
				}
			}
			return m, notes, m > 0
		}},
	"misra-gries": {probe: fixed(iparam("counters", 1000)), knob: "counters", lo: 1, hi: 1 << 24, costs: bytesMetrics, searchFrom: 16,
		closed: func(c *sizing) (float64, string, bool) {
			if !c.asksTop() || c.kth <= 0 {
				return 0, "", false
			}
			k := math.Floor(c.n / c.kth)
			return k, fmt.Sprintf("k + 1 > N / (K-th count) = %s / %s: k = %s", metrics.Format(c.n), metrics.Format(c.kth), metrics.Format(k)), true
		}},
	"heavykeeper": {probe: func(step *scenarios.Scenario) []scenarios.Param {
		top := step.Questions.Top // the step's K, else RedisBloom's TOPK default of 10
		if top <= 0 {
			top = 10
		}
		return []scenarios.Param{iparam("width", 1000), iparam("depth", 5), iparam("top", top)}
	}, knob: "width", lo: 1, hi: 1 << 26, costs: bytesMetrics, searchFrom: 16,
		extra: func(c *sizing, v float64) []scenarios.Param {
			if !c.given("top") {
				return []scenarios.Param{{Key: "top", Value: int64(max(c.k, 1))}}
			}
			return nil
		}},
	"exact": {probe: fixed(iparam("shards", 1)), knob: "shards", lo: 1, hi: 1024,
		closed: func(c *sizing) (float64, string, bool) {
			a := c.step.Assumptions
			if a.Keys == 0 || a.EntryBytes == 0 || a.ServerBytes == 0 {
				return 1, "exact at any size: one table", true
			}
			frac := a.DataFraction
			if frac == 0 {
				frac = 1
			}
			s := math.Ceil(a.Keys * a.EntryBytes / (a.ServerBytes * frac))
			return s, fmt.Sprintf("S = ⌈keys × entry / server data⌉ = ⌈%s × %s / %s⌉ = %s (full scale)", metrics.Format(a.Keys), metrics.Format(a.EntryBytes), metrics.Format(a.ServerBytes*frac), metrics.Format(s)), true
		}},
	"striped": {probe: fixed(iparam("stripes", 8)), knob: "stripes", lo: 1, hi: 65536, searchFrom: 1,
		closed: func(c *sizing) (float64, string, bool) {
			peak := c.sim.PeakRate
			x, ok := c.upper(metrics.MaxKeyOps)
			if u, uok := c.upper(metrics.Utilisation); uok && c.sim.KeyCapacity > 0 && (!ok || u*c.sim.KeyCapacity < x) {
				x, ok = u*c.sim.KeyCapacity, true
			}
			if !ok || x <= 0 || peak <= 0 {
				return 0, "", false
			}
			k := math.Ceil(peak/x - 1e-9)
			return k, fmt.Sprintf("K = ⌈peak / X⌉ = ⌈%s / %s⌉ = ⌈%.4g⌉ = %s", metrics.Format(peak), metrics.Format(x), peak/x, metrics.Format(k)), true
		}},
	"batched": {probe: fixed(scenarios.Param{Key: "flush", Value: "1s"}), knob: "flush", lo: float64(time.Millisecond), hi: float64(time.Hour), duration: true, cheaperUp: true,
		costs: []metrics.Metric{metrics.MaxKeyOps, metrics.Utilisation, metrics.IncrementsPerSec},
		closed: func(c *sizing) (float64, string, bool) {
			a, peak := c.servers(), c.sim.PeakRate
			if l, ok := c.upper(metrics.LostOnCrash); ok && a > 0 && peak > 0 && l > 0 {
				t := math.Floor(l*a/peak*1e3) * 1e6 // whole ms
				return t, fmt.Sprintf("T = loss × A / peak = %s × %s / %s = %s", metrics.Format(l), metrics.Format(a), metrics.Format(peak), time.Duration(t)), t > 0
			}
			if x, ok := c.upper(metrics.MaxKeyOps); ok && a > 0 && x > 0 {
				t := math.Ceil(a/x*1e3) * 1e6
				return t, fmt.Sprintf("T = A / X = %s / %s = %s", metrics.Format(a), metrics.Format(x), time.Duration(t)), true
			}
			return 0, "", false
		}},
	"hll": {probe: fixed(iparam("p", 14)), knob: "p", lo: 4, hi: 18, costs: bytesMetrics, searchFrom: 4,
		closed: func(c *sizing) (float64, string, bool) {
			t, ok := c.band(metrics.RelativeError) // in %
			if !ok || t <= 0 {
				return 0, "", false
			}
			t /= 100
			z := distuv.UnitNormal.Quantile((1 + c.conf) / 2)
			m := math.Pow(z*1.04/t, 2)
			p := math.Max(4, math.Ceil(math.Log2(m)))
			return p, fmt.Sprintf("z·1.04/√m ≤ %s%% with z = %.3f (%g two-sided): m ≥ %s, p = ⌈log₂ m⌉ = %s", metrics.Format(t*100), z, c.conf, metrics.Format(math.Ceil(m)), metrics.Format(p)), true
		}},
}

// Types lists the design types size can size.
func Types() []string {
	var names []string
	for n := range sizers {
		names = append(names, n)
	}
	sortStrings(names)
	return names
}
