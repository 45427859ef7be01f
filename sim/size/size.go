package size

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
)

// DefaultMaxRuns is the trial runs one design's search may take.
const DefaultMaxRuns = 36

// Options are the choices of a sizing beside its scenario.
type Options struct {
	Engine  engine.Options // how each candidate runs
	MaxRuns int            // trial runs a design's search may take; 0: DefaultMaxRuns
}

// Point is one candidate size, run over the trials and judged.
type Point struct {
	Value  float64           // the knob's value
	Params []scenarios.Param // the design's parameters at this size
	Bytes  float64           // the largest bytes measured (total_bytes, else bytes); 0: none
	Checks []Check           // each goal, in order
	Pass   bool              // every goal held
	Err    string            // the candidate could not run (a parameter out of the type's range)
}

// miss is the largest miss of its goals.
func (p Point) miss() float64 {
	if p.Err != "" {
		return math.Inf(1)
	}
	var m float64
	measured := false
	for _, c := range p.Checks {
		if c.Measured {
			m, measured = max(m, c.Miss), true
		}
	}
	if !measured {
		return math.Inf(1)
	}
	return m
}

// Sized is what size found for one design of the scenario.
type Sized struct {
	Scenario   string // the scenario's ID (NAME or NAME/STEP)
	Design     string // the entry's name
	Type       string
	Knob       string   // the parameter sized; "" when the type has no sizer
	Closed     float64  // the closed form's size; 0 without one
	ClosedNote string   // how the closed form was worked out
	Found      *Point   // the smallest size that met every goal; nil: none did
	Closest    *Point   // with Found nil: the candidate that missed by least
	Tried      []Point  // every candidate run, in the order run
	Runs       int      // trial runs taken
	Skipped    string   // why the design was not sized ("" if it was)
	Unanswered []string // the goals whose metric the design does not report: they do not apply to it
	Entry      scenarios.Strategy
}

// Chosen is the point to report: the one found, else the closest.
func (s *Sized) Chosen() *Point {
	if s.Found != nil {
		return s.Found
	}
	return s.Closest
}

// Size sizes every design of the scenario (one step, or a file without
// steps) to its goals. The scenario must have goals.
func Size(ctx context.Context, step *scenarios.Scenario, o Options) ([]Sized, error) {
	if step.Goals == nil {
		return nil, scenarios.Errorf(scenarios.Pos{File: step.File}, "%s: no goals to size to (allowed: a goals: section with meet: [...], such as \"max_overestimate <= 0.0001 * N\")", step.ID())
	}
	if o.MaxRuns == 0 {
		o.MaxRuns = DefaultMaxRuns
	}
	entries, out := step.Strategies, []Sized(nil)
	if len(entries) == 0 {
		entries, out = everyType(ctx, step, o)
		if len(entries) == 0 {
			return out, nil
		}
	}
	base, err := engine.PrepareContext(ctx, bare(step, entries), o.Engine)
	if err != nil {
		return nil, err
	}
	var kth float64
	for _, r := range base.Kind.Plan() {
		if r.Metric == metrics.KthTrueCount && r.Plan != nil {
			kth = *r.Plan
		}
	}
	sim := step.Simulated()
	for i, entry := range entries {
		if entry.OnDemand && !slices.Contains(o.Engine.With, entry.Name) {
			continue
		}
		s := Sized{Scenario: step.ID(), Design: entry.Name, Type: entry.Type, Entry: entry}
		d := base.Members[slices.IndexFunc(base.Members, func(d engine.Design) bool { return d.Index == i })]
		reported := base.Kind.Reports(&d)
		var goals []scenarios.Expectation
		for _, g := range step.Goals.Meet {
			if slices.Contains(reported, metrics.Metric(g.Metric)) {
				goals = append(goals, g)
			} else {
				s.Unanswered = append(s.Unanswered, g.Text)
			}
		}
		if len(goals) == 0 {
			s.Skipped = "answers none of the goals' metrics"
		}
		sz := sizers[entry.Type]
		if s.Skipped == "" && sz == nil {
			s.Skipped = fmt.Sprintf("no size parameter known for %s (size knows %s)", entry.Type, strings.Join(Types(), ", "))
		}
		if s.Skipped == "" {
			c := &sizing{step: step, entry: entry, goals: goals, sim: sim, n: sim.Events, k: step.Questions.Top, kth: kth, conf: step.Goals.Confidence}
			if err := search(ctx, &s, sz, c, o); err != nil {
				return out, err
			}
		}
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b Sized) int { return cheaper(a, b) })
	return out, nil
}

// everyType is the designs size tries when the scenario lists none: one
// of every type it can size, with the type's probe parameters, but those
// that the scenario's workload cannot run (a striped counter on a count
// stream), which come back as skipped.
func everyType(ctx context.Context, step *scenarios.Scenario, o Options) ([]scenarios.Strategy, []Sized) {
	var entries []scenarios.Strategy
	var skipped []Sized
	for _, name := range Types() {
		e := scenarios.Strategy{Name: name, Type: name, Params: sizers[name].probe(step)}
		if _, err := engine.PrepareContext(ctx, bare(step, []scenarios.Strategy{e}), o.Engine); err != nil {
			if ctx.Err() != nil {
				break
			}
			skipped = append(skipped, Sized{Scenario: step.ID(), Design: name, Type: name, Entry: e, Skipped: "not for this workload"})
			continue
		}
		entries = append(entries, e)
	}
	return entries, skipped
}

// cheaper orders the designs: those that met every goal first, by bytes
// (none measured last); then the rest by how little they missed.
func cheaper(a, b Sized) int {
	rank := func(s Sized) int {
		switch {
		case s.Found != nil:
			return 0
		case s.Closest != nil:
			return 1
		}
		return 2
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	pa, pb := a.Chosen(), b.Chosen()
	if pa == nil || pb == nil {
		return 0
	}
	if a.Found == nil {
		return cmp.Compare(pa.miss(), pb.miss())
	}
	ba, bb := pa.Bytes, pb.Bytes
	if ba == 0 {
		ba = math.Inf(1)
	}
	if bb == 0 {
		bb = math.Inf(1)
	}
	return cmp.Compare(ba, bb)
}

// bare is the step with the designs given and nothing to judge: no
// expectations, a single run (the trials are size's own).
func bare(step *scenarios.Scenario, entries []scenarios.Strategy) *scenarios.Scenario {
	scn := *step
	scn.Strategies = nil
	for _, e := range entries {
		e.Expect, e.Shows, e.Sweep = nil, nil, nil
		scn.Strategies = append(scn.Strategies, e)
	}
	scn.Expect, scn.Shows, scn.Trials, scn.Goals = nil, nil, 1, nil
	return &scn
}

// search finds the design's smallest size: the closed form first; if it
// fails, geometric steps toward more resource until one passes; then
// bisection between the last that failed and the first that passed. A
// goal on a cost (bytes; a batching design's store ops) that fails stops
// the search: more resource costs more.
func search(ctx context.Context, s *Sized, sz *sizer, c *sizing, o Options) error {
	s.Knob = sz.knob
	start := sz.searchFrom
	if start == 0 {
		start = sz.lo
	}
	if v, note, ok := sz.closed0(c); ok {
		s.Closed, s.ClosedNote = sz.round(v, c.step.Goals.PowerOfTwo), note
		if r := sz.round(v, false); r != s.Closed {
			s.ClosedNote += fmt.Sprintf(", %s as a power of two", metrics.Format(s.Closed))
		}
		start = s.Closed
	} else {
		s.ClosedNote = fmt.Sprintf("no closed form for these goals: searched from %s %s", sz.knob, metrics.Format(start))
	}
	tried := map[float64]int{}
	eval := func(v float64) (Point, bool, error) {
		v = sz.round(v, c.step.Goals.PowerOfTwo)
		if i, ok := tried[v]; ok {
			return s.Tried[i], true, nil
		}
		if s.Runs+c.step.Goals.Trials > o.MaxRuns {
			return Point{}, false, nil
		}
		p, err := evaluate(ctx, s, sz, c, v, o)
		if err != nil {
			return p, false, err
		}
		s.Runs += c.step.Goals.Trials
		tried[v] = len(s.Tried)
		s.Tried = append(s.Tried, p)
		return p, true, nil
	}
	p, ok, err := eval(start)
	if err != nil || !ok {
		return err
	}
	if p.Err == "" && !slices.ContainsFunc(p.Checks, func(c Check) bool { return c.Measured }) {
		// The kind reports the goals' metrics, but not for this design (an
		// HLL's top-K recall): no size of it answers them.
		s.Skipped, s.ClosedNote, s.Closed = "measures none of the goals' metrics", "", 0
		return nil
	}
	var failed, passed *Point
	if p.Pass {
		passed = &p
	} else {
		failed = &p
	}
	// try runs size v and files it as passed or failed; false once the
	// budget of runs is spent.
	try := func(v float64) (bool, error) {
		q, ok, err := eval(v)
		if err != nil || !ok {
			return false, err
		}
		if q.Pass {
			passed = &q
		} else {
			failed = &q
		}
		return true, nil
	}
	for passed == nil && !sz.costFails(*failed) && failed.Err == "" { // more resource would cost more, or not run
		next := sz.more(failed.Value)
		if next == failed.Value {
			break
		}
		if ok, err := try(next); err != nil {
			return err
		} else if !ok {
			break
		}
	}
	// Bisect between the last size that failed and the first that passed
	// (none below the closed form, when it passed at once: its plan is the
	// bound promised, and the search does not undercut it).
	for failed != nil && passed != nil {
		mid := sz.mid(failed.Value, passed.Value, c.step.Goals.PowerOfTwo)
		if mid == failed.Value || mid == passed.Value {
			break
		}
		if ok, err := try(mid); err != nil {
			return err
		} else if !ok {
			break
		}
	}
	if passed != nil {
		s.Found = passed
		return nil
	}
	for i := range s.Tried {
		if s.Closest == nil || s.Tried[i].miss() < s.Closest.miss() {
			s.Closest = &s.Tried[i]
		}
	}
	return nil
}

// closed0 is the closed form, clamped to the knob's range.
func (sz *sizer) closed0(c *sizing) (float64, string, bool) {
	if sz.closed == nil {
		return 0, "", false
	}
	v, note, ok := sz.closed(c)
	if !ok {
		return 0, "", false
	}
	return min(max(v, sz.lo), sz.hi), note, true
}

// round puts v on the knob's grid: a whole number (whole milliseconds for
// a duration) in range, a power of two when asked (not for a duration or a
// precision, already one).
func (sz *sizer) round(v float64, pow2 bool) float64 {
	if sz.duration {
		v = math.Round(v/1e6) * 1e6
	} else {
		v = math.Ceil(v - 1e-9)
		if pow2 && sz.knob != "p" && v >= 1 {
			v = float64(uint64(1) << bits.Len64(uint64(v)-1))
		}
	}
	return min(max(v, sz.lo), sz.hi)
}

// more is the next size toward more resource: twice the knob, or half a
// flush interval.
func (sz *sizer) more(v float64) float64 {
	switch {
	case sz.cheaperUp:
		return max(sz.lo, math.Round(v/2/1e6)*1e6)
	case sz.knob == "p":
		return min(sz.hi, v+1)
	}
	return min(sz.hi, math.Max(v+1, math.Ceil(v*2)))
}

// mid is the size between a failing and a passing one: the geometric mean
// (on the power-of-two grid when asked), or "none" (an end) once they are
// within 5% of each other.
func (sz *sizer) mid(fail, pass float64, pow2 bool) float64 {
	lo, hi := math.Min(fail, pass), math.Max(fail, pass)
	if hi-lo <= 1 || hi/lo < 1.05 && !(sz.knob == "p") {
		return pass
	}
	m := sz.round(math.Sqrt(lo*hi), false)
	if pow2 && !sz.duration && sz.knob != "p" {
		m = sz.round(m, true)
	}
	if m <= lo || m >= hi {
		if hi-lo > 1 && !sz.duration {
			return math.Floor((lo + hi) / 2)
		}
		return pass
	}
	return m
}

// costFails reports whether a goal on a cost failed at p.
func (sz *sizer) costFails(p Point) bool {
	for _, c := range p.Checks {
		if !c.Pass && slices.Contains(sz.costs, metrics.Metric(c.Goal.Metric)) {
			return true
		}
	}
	return false
}

// evaluate runs the design at knob value v over the goals' trials and
// judges every goal.
func evaluate(ctx context.Context, s *Sized, sz *sizer, c *sizing, v float64, o Options) (Point, error) {
	p := Point{Value: v, Params: params(c.entry.Params, sz, c, v)}
	entry := c.entry
	entry.Params, entry.OnDemand = p.Params, false
	scn := bare(c.step, []scenarios.Strategy{entry})
	scn.Trials = c.step.Goals.Trials
	st, err := engine.PrepareContext(ctx, scn, o.Engine)
	if err != nil {
		if ctx.Err() != nil {
			return p, ctx.Err()
		}
		p.Err = err.Error()
		return p, nil
	}
	reps, err := st.RunEach(ctx)
	if err != nil {
		return p, err
	}
	d := st.Members[0]
	for _, rep := range reps {
		b := row(rep, d.Name(), metrics.TotalBytes)
		if b == nil {
			b = row(rep, d.Name(), metrics.Bytes)
		}
		if b != nil {
			p.Bytes = max(p.Bytes, *b)
		}
	}
	// A goal whose metric the kind reports but this design never measured
	// (a striped counter holds nothing a crash could lose) does not apply
	// to it; a design that measured none of the goals meets none.
	measured, failed := false, false
	for _, g := range c.goals {
		ch := judge(g, reps, d.Name(), engine.TruthName(scn), c.conf, c.step.FalseAlarm, d.Planned(metrics.Failure), d.Planned(metrics.OverestimateBound))
		p.Checks = append(p.Checks, ch)
		measured = measured || ch.Measured
		failed = failed || ch.Measured && !ch.Pass
	}
	p.Pass = measured && !failed
	return p, nil
}

// params are the entry's parameters with the knob at v and the sizer's
// own beside it, replacing any the entry gives of the same keys (and, for
// count-min, its epsilon and delta: the width and depth replace them).
func params(given []scenarios.Param, sz *sizer, c *sizing, v float64) []scenarios.Param {
	var set []scenarios.Param
	if sz.duration {
		set = append(set, scenarios.Param{Key: sz.knob, Value: time.Duration(v).String()})
	} else {
		set = append(set, scenarios.Param{Key: sz.knob, Value: int64(v)})
	}
	if sz.extra != nil {
		set = append(set, sz.extra(c, v)...)
	}
	var out []scenarios.Param
	for _, p := range given {
		if slices.ContainsFunc(set, func(q scenarios.Param) bool { return q.Key == p.Key }) || sz.knob == "width" && (p.Key == "epsilon" || p.Key == "delta") {
			continue
		}
		out = append(out, p)
	}
	for _, q := range set {
		q.Pos = c.entry.Pos
		out = append(out, q)
	}
	return out
}
