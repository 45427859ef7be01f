package metrics

import "math"

// Result is one measured or planned number. A row measured has a Value,
// with its Plan beside it where a closed form promises one; a row only
// planned (a figure at full scale, or one the run could not measure) has
// no Value: a plan is never passed off as a measurement.
type Result struct {
	Scenario string `json:"scenario"`
	// Step is the step of a scenario told in steps (`steps[i].name`), ""
	// for one that is not.
	Step     string   `json:"step,omitempty"`
	Strategy string   `json:"strategy"`
	Metric   Metric   `json:"metric"`
	Value    *float64 `json:"value"` // what was measured; nil for a plan-only row
	Unit     string   `json:"unit"`
	Plan     *float64 `json:"plan"`   // the closed-form value; nil where none
	Scale    Scale    `json:"scale"`  // "sim": the simulated stream; "full": the scenario's real-world size (plan only)
	Timing   bool     `json:"timing"` // true for figures read off the wall clock
	// Partial marks a row of a run stopped before its stream ended (by
	// Ctrl-C): what it measured is of the part fed.
	Partial bool `json:"partial,omitempty"`
	// Stat says which statistic of a scenario run in trials the row is:
	// mean, min, p50, p95 or max over the trials; empty for a single run.
	Stat string `json:"stat,omitempty"`
	Note string `json:"note,omitempty"`
}

// Scale says which size a number is for.
type Scale string

const (
	// Sim is the simulated stream: measured values and the plan beside them.
	Sim Scale = "sim"
	// Full is the scenario's real-world size: closed-form numbers only.
	Full Scale = "full"
)

// PlanOf returns a pointer to v, for Result.Plan.
func PlanOf(v float64) *float64 { return &v }

// Measured returns a pointer to v, for Result.Value.
func Measured(v float64) *float64 { return &v }

// Measured reports whether the row holds a measurement.
func (r Result) Measured() bool { return r.Value != nil }

// Number is the row's value, measured or else planned, for plots and
// comparisons that take either; NaN for a row with neither.
func (r Result) Number() float64 {
	switch {
	case r.Value != nil:
		return *r.Value
	case r.Plan != nil:
		return *r.Plan
	}
	return math.NaN()
}

// SeriesKind says how a Series is drawn.
type SeriesKind string

const (
	// Distribution: Values are samples (one per key, trial…), or the
	// distinct values of a sample with Weights saying how often each
	// occurs; drawn as a histogram.
	Distribution SeriesKind = "distribution"
	// Curve: Y against X, one line per strategy.
	Curve SeriesKind = "curve"
	// Bars: one bar per Label with height Y.
	Bars SeriesKind = "bars"
)

// Mark is a reference line drawn on a chart: a bound, a limit, a target.
type Mark struct {
	Label string
	Value float64
	Axis  string // "x" (a vertical line) or "y" (a horizontal line)
}

// Series is the data behind one chart (or one line of it). Series with the
// same Scenario, Step and Name are drawn on one chart, one per Strategy.
type Series struct {
	Scenario string
	// Step is the step of a scenario told in steps (`steps[i].name`), ""
	// outside steps. Charts of two steps are apart, even of the same Name,
	// and the chart's title and file name say the step.
	Step     string
	Strategy string
	Name     string // chart name, also in the file stem: "overestimate", "topk_recall"
	// Title says what the chart shows; the chart's title puts the scenario
	// and the step before it ("cricket-final / views — <Title>"), so Title
	// need not name them.
	Title string
	// Panel puts the series in a panel of the chart: series with the same
	// Scenario, Step and Name but different Panels are drawn side by side
	// in one figure, a panel each (titled with its Panel), on the same
	// ranges of both axes so that they compare. "" for a chart of one panel.
	Panel  string
	Kind   SeriesKind
	XLabel string
	YLabel string
	// LogX and LogY put an axis on a log scale. Zeros stay in sight: they
	// are drawn in a slot of their own before the log range (a bar of
	// their own in a histogram), labelled ZeroLabel ("" is "0").
	LogX      bool
	LogY      bool
	ZeroLabel string
	Values    []float64 // Distribution samples
	Weights   []float64 // Distribution: Values[i] occurs Weights[i] times; nil: once each
	X, Y      []float64 // Curve points; Bars use Y with Labels
	Labels    []string  // Bars
	Marks     []Mark
}

// Table is a block of numbers too long for result rows — an accuracy
// profile's error quantiles at every cardinality. It is written as a CSV
// file beside the results and as a markdown table in the report.
type Table struct {
	Scenario string
	Name     string // file stem: "<scenario>-<name>.csv"
	Title    string
	Columns  []string
	Rows     [][]float64
	// LabelColumn, when not "", heads a first column of text, Labels[i]
	// the label of Rows[i] (the keys' strings of a log's top K).
	LabelColumn string
	Labels      []string
}

// label is row i's label, "" beyond Labels.
func (t Table) label(i int) string {
	if i < len(t.Labels) {
		return t.Labels[i]
	}
	return ""
}

// Heads is the table's column heads, the label column first.
func (t Table) Heads() []string {
	if t.LabelColumn == "" {
		return t.Columns
	}
	return append([]string{t.LabelColumn}, t.Columns...)
}

// Cells is row i as text: its label first, then the numbers as Format
// shows them.
func (t Table) Cells(i int) []string {
	var out []string
	if t.LabelColumn != "" {
		out = append(out, t.label(i))
	}
	for _, v := range t.Rows[i] {
		out = append(out, Format(v))
	}
	return out
}

// Flat reports whether a chart of group would show nothing: bars or curves
// whose every finite Y is one value (three bars of recall 1, a backlog of 0
// throughout, a single point), so that the chart says no more than the one
// number the tables hold. A distribution is never flat: its histogram
// shows how many values there are.
func Flat(group []Series) bool {
	first, seen := 0.0, false
	for _, s := range group {
		if s.Kind != Bars && s.Kind != Curve {
			return false
		}
		for _, y := range s.Y {
			if math.IsNaN(y) || math.IsInf(y, 0) {
				continue
			}
			if !seen {
				first, seen = y, true
			} else if y != first {
				return false
			}
		}
	}
	return len(group) > 0
}
