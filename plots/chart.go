package plots

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"countsim/metrics"
)

// ErrNoData is returned (wrapped) for a chart with nothing left to draw: no
// series, or no finite value (no positive value on a log axis).
var ErrNoData = errors.New("no data to draw")

// Chart builds the *plot.Plot for one group, the series of one (Scenario,
// Step, Name), without writing it. Every series must have the group's
// Scenario, Step, Name and Kind; the chart is on a log axis if any series
// asks for it. (A group whose series have Panels is drawn by Draw, a panel
// each; Chart refuses it.)
//
//   - Distribution: a histogram of Values per strategy, all on the same bins
//     (Freedman–Diaconis, or √n when the quartiles coincide, at most 60;
//     whole-number bins for integer data; log-spaced bins on a log X axis).
//   - Curve: a line with points through (X[i], Y[i]) per strategy.
//   - Bars: one bar per Label, grouped by strategy; every series must have
//     the same Labels; the Y axis starts at 0 (or below, for negative bars).
//
// A chart with nothing to compare, every bar or point of one value (three
// bars of recall 1, a backlog of 0 throughout), is refused with ErrNoData:
// the value is in the tables.
//
// NaN, ±Inf and, on a log axis, values < 0 are left out of a histogram or a
// curve and counted in its legend entry (zeros are drawn in a slot of their
// own before the log range); a series with nothing left is named in the
// legend only, and a chart with nothing left is ErrNoData. Bars must be
// finite and cannot be on a log axis. Marks are drawn as dashed lines,
// named in the legend, inside the axis range.
func Chart(group []metrics.Series) (*plot.Plot, error) {
	c, err := newChart(group)
	if err != nil {
		return nil, err
	}
	return c.p, nil
}

// newChart is Chart, keeping what it fed to the plot for the tests.
func newChart(group []metrics.Series) (*chart, error) {
	scales, err := check(group)
	if err != nil {
		return nil, err
	}
	if panels(group) > 1 {
		return nil, fmt.Errorf("plots: chart %s has %d panels: Draw draws it", groupID(group), panels(group))
	}
	c, err := buildChart(group, scales)
	if err == nil {
		err = c.axes()
	}
	if err != nil {
		return nil, fmt.Errorf("plots: chart %s: %w", groupID(group), err)
	}
	return c, flat(group)
}

// groupID names the chart of a group in errors.
func groupID(group []metrics.Series) string {
	return chartID(group[0].Scenario, group[0].Step, group[0].Name)
}

// scales says how a chart's axes are scaled.
type scales struct {
	logX, logY bool
	// symY: a curve's log Y axis with values below 0 is a symmetric log
	// axis (symlog.go)
	symY bool
	// autoLogX: the curve's X was not asked for on a log axis, but its
	// points are a geometric sweep (geometric), drawn on one
	autoLogX bool
}

// geometric reports whether a curve's X values are a geometric sweep (30,
// 100, 300 … 3,000; stripes 1, 2, 4 … 32): at least 3 distinct values, all
// above 0, each at least 1.5 times the one before, spanning a decade or
// more. On a linear axis the small values of such a sweep crowd into its
// first tenth.
func geometric(group []metrics.Series) bool {
	var xs []float64
	for _, s := range group {
		for _, x := range s.X {
			if math.IsNaN(x) || math.IsInf(x, 0) || x <= 0 {
				return false
			}
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	if len(xs) < 3 || xs[len(xs)-1] < 10*xs[0] {
		return false
	}
	for i := 1; i < len(xs); i++ {
		if xs[i] < 1.5*xs[i-1] {
			return false
		}
	}
	return true
}

// check refuses an empty group or one that mixes charts or kinds, and says
// which axes are on a log scale: those any series asks for; a curve's log
// Y is a symmetric log axis where a Y is below 0.
func check(group []metrics.Series) (scales, error) {
	var sc scales
	if len(group) == 0 {
		return sc, fmt.Errorf("plots: %w: empty group", ErrNoData)
	}
	first := group[0]
	id := groupID(group)
	for _, s := range group {
		if s.Scenario != first.Scenario || s.Step != first.Step || s.Name != first.Name {
			return sc, fmt.Errorf("plots: group mixes charts %s and %s", id, chartID(s.Scenario, s.Step, s.Name))
		}
		if s.Kind != first.Kind {
			return sc, fmt.Errorf("plots: chart %s mixes kinds %q and %q", id, first.Kind, s.Kind)
		}
		sc.logX = sc.logX || s.LogX
		sc.logY = sc.logY || s.LogY
	}
	if first.Kind == metrics.Curve && !sc.logX && geometric(group) {
		sc.logX, sc.autoLogX = true, true
	}
	if sc.logY && first.Kind == metrics.Curve {
		for _, s := range group {
			for _, y := range s.Y {
				sc.symY = sc.symY || y < 0 && !math.IsInf(y, -1)
			}
		}
	}
	return sc, nil
}

// flat refuses a group that would show nothing (metrics.Flat: three equal
// bars, a line of zeros); it is called once the data are known to be
// well formed.
func flat(group []metrics.Series) error {
	if !metrics.Flat(group) {
		return nil
	}
	v := math.NaN()
	for _, s := range group {
		for _, y := range s.Y {
			if keep(y, false) {
				v = y
			}
		}
	}
	return fmt.Errorf("plots: chart %s: %w: every bar or point is %s, nothing to compare (the value is in the tables)",
		groupID(group), ErrNoData, metrics.Format(v))
}

// buildChart feeds the data and the marks of group to a new plot, on log
// axes as told; the axes are finished by axes.
func buildChart(group []metrics.Series, sc scales) (*chart, error) {
	first := group[0]
	c := &chart{p: plot.New(), group: group, logX: sc.logX, logY: sc.logY && !sc.symY, symY: sc.symY, zeroLabel: "0"}
	for _, s := range group {
		if s.ZeroLabel != "" {
			c.zeroLabel = s.ZeroLabel
			break
		}
	}
	c.style()
	c.p.Title.Text = title(group)
	for _, s := range group {
		if c.p.X.Label.Text == "" {
			c.p.X.Label.Text = s.XLabel
			if sc.autoLogX && s.XLabel != "" && !strings.Contains(s.XLabel, "(log)") {
				c.p.X.Label.Text += " (log)"
			}
		}
		if c.p.Y.Label.Text == "" {
			c.p.Y.Label.Text = s.YLabel
		}
	}

	var err error
	switch first.Kind {
	case metrics.Distribution:
		if c.p.Y.Label.Text == "" {
			c.p.Y.Label.Text = "count"
		}
		err = c.histograms()
	case metrics.Curve:
		err = c.curves()
	case metrics.Bars:
		err = c.bars()
	default:
		err = fmt.Errorf("unknown kind %q", first.Kind)
	}
	if err == nil {
		err = c.marks()
	}
	return c, err
}

// chart is the state of one Chart call.
type chart struct {
	p          *plot.Plot
	group      []metrics.Series
	logX, logY bool
	symY       bool // Y on a symmetric log axis (logY is then false)
	// for Bars: the Y range is fixed after the marks are known
	barMin, barMax float64
	isBars         bool
	isHist         bool
	isCurve        bool
	// marks drawn, by axis, to keep them off the frame
	markX, markY []float64
	// on a log axis (0: X, 1: Y): the span of the values > 0 drawn, marks
	// included, and whether zeros were drawn, in the zeros' slot
	pos       [2]span
	zero      [2]bool
	zeroLabel string
	// what was fed to the plot, in order, for the tests; the legend's
	// thumbnails, for a figure's legend
	plotters []plot.Plotter
	legend   []string
	thumbs   [][]plot.Thumbnailer
}

// span is the range of some values.
type span struct {
	lo, hi float64
	ok     bool
}

func (s *span) add(v float64) {
	if !s.ok {
		s.lo, s.hi, s.ok = v, v, true
		return
	}
	s.lo, s.hi = math.Min(s.lo, v), math.Max(s.hi, v)
}

// track notes a value drawn on axis i (0: X, 1: Y) of log scale or not:
// on a log axis, a zero (drawn in the slot) or the span of the rest.
func (c *chart) track(i int, v float64, log bool) {
	switch {
	case !log:
	case v == 0:
		c.zero[i] = true
	default:
		c.pos[i].add(v)
	}
}

// add adds plotters to the plot.
func (c *chart) add(ps ...plot.Plotter) {
	c.p.Add(ps...)
	c.plotters = append(c.plotters, ps...)
}

// name adds a legend entry.
func (c *chart) name(text string, thumbs ...plot.Thumbnailer) {
	c.p.Legend.Add(text, thumbs...)
	c.legend = append(c.legend, text)
	c.thumbs = append(c.thumbs, thumbs)
}

// Colours: fills from the soft palette, lines and marks from the dark one,
// index-aligned (red, green, blue, orange, purple, …).
func fill(i int, alpha uint8) color.Color {
	r, g, b, _ := plotutil.SoftColors[i%len(plotutil.SoftColors)].RGBA()
	return color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), alpha}
}

func dark(i int) color.Color { return plotutil.DarkColors[i%len(plotutil.DarkColors)] }

// style sets a sans-serif face throughout and a legend in the top right.
func (c *chart) style() {
	sans := func(size vg.Length) font.Font {
		return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
	}
	p := c.p
	p.Title.TextStyle.Font = sans(13)
	p.Title.Padding = vg.Points(6)
	p.X.Label.TextStyle.Font = sans(11)
	p.Y.Label.TextStyle.Font = sans(11)
	p.X.Tick.Label.Font = sans(9)
	p.Y.Tick.Label.Font = sans(9)
	p.Legend.TextStyle.Font = sans(9)
	p.Legend.Top = true
	p.Legend.Padding = vg.Points(3)
	p.Legend.XOffs = -vg.Points(4)
	p.Legend.YOffs = -vg.Points(2)
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
}

// formatTicks relabels the ticks of another Ticker with metrics.Format
// (1,000,000 rather than 1e+06), the way the tables print numbers.
type formatTicks struct{ plot.Ticker }

func (t formatTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = metrics.Format(ts[i].Value)
		}
	}
	return ts
}

// legendName is the legend entry of series i: its strategy, and how many
// values were left out and why.
func legendName(s metrics.Series, dropped, total int, why string) string {
	name := s.Strategy
	if total == 0 {
		return strings.TrimSpace(name + " (no data)")
	}
	if dropped == 0 {
		return name
	}
	note := fmt.Sprintf("%s of %s not shown: %s", metrics.Format(float64(dropped)), metrics.Format(float64(total)), why)
	if dropped == total {
		note = "none shown: " + why
	}
	if name == "" {
		return note
	}
	return name + " (" + note + ")"
}

// keep reports whether v can be drawn on an axis: finite, and not below 0
// on a log axis (a zero is drawn in the axis's slot for zeros).
func keep(v float64, log bool) bool {
	return !math.IsNaN(v) && !math.IsInf(v, 0) && (!log || v >= 0)
}

// why says what keep refused.
func why(log bool) string {
	if log {
		return "NaN, ±Inf or < 0 on a log axis"
	}
	return "NaN or ±Inf"
}

// axes finishes both axes: log scales with two labelled decades and, where
// zeros were drawn, a slot for them; linear value axes that hold 0 (a
// curve's Y, a histogram's X: a count, an error or an age is read against
// 0, not against its smallest value); bar ranges; and a last check that no
// log range reaches 0 (gonum/plot panics there).
func (c *chart) axes() error {
	p := c.p
	if c.isBars {
		p.Y.Min = math.Min(0, c.barMin*1.08)
		p.Y.Max = c.barMax * 1.08
		switch {
		case c.barMin == 0 && c.barMax == 0:
			p.Y.Max = 1
		case c.barMax <= 0:
			p.Y.Max = -p.Y.Min * 0.05
		}
	}
	for i, a := range []struct {
		ax    *plot.Axis
		name  string
		log   bool
		marks []float64
	}{{&p.X, "x", c.logX, c.markX}, {&p.Y, "y", c.logY, c.markY}} {
		ax := a.ax
		if a.log && c.zero[i] {
			if !c.pos[i].ok { // nothing but zeros: the slot is the axis
				ax.Min, ax.Max = 1, 10
				ax.Scale = zeroLogScale{only: true}
				ax.Tick.Marker = zeroTicks{label: c.zeroLabel, only: true}
				continue
			}
			ax.Min, ax.Max = c.pos[i].lo, c.pos[i].hi
		}
		if math.IsNaN(ax.Min) || math.IsNaN(ax.Max) || math.IsInf(ax.Min, 0) || math.IsInf(ax.Max, 0) {
			return fmt.Errorf("%w: axis range [%v, %v]", ErrNoData, ax.Min, ax.Max)
		}
		if c.symY && ax == &p.Y {
			ax.Min, ax.Max = math.Min(ax.Min, 0), math.Max(ax.Max, 0)
			ax.Scale, ax.Tick.Marker = symLogScale{}, symLogTicks{}
			pad(ax, a.marks, false)
			continue
		}
		if !a.log {
			if c.isCurve && ax == &p.Y || c.isHist && ax == &p.X {
				ax.Min, ax.Max = math.Min(ax.Min, 0), math.Max(ax.Max, 0)
			}
			if c.isHist && ax == &p.Y {
				ax.Max *= 1.05 // headroom over the tallest bin
			}
			if !(c.isBars && ax == &p.Y) {
				pad(ax, a.marks, false)
			}
			continue
		}
		if ax.Min <= 0 || ax.Max <= 0 {
			return fmt.Errorf("log axis range [%v, %v] reaches 0", ax.Min, ax.Max)
		}
		ax.Scale = plot.LogScale{}
		ax.Tick.Marker = formatTicks{plot.LogTicks{Prec: -1}}
		if c.zero[i] {
			ax.Scale = zeroLogScale{}
			ax.Tick.Marker = zeroTicks{label: c.zeroLabel}
			c.add(slotBreak{axis: a.name})
		}
		// LogTicks labels the powers of 10: widen the range to whole decades
		// until it holds two of them.
		lo, hi := math.Log10(ax.Min), math.Log10(ax.Max)
		if math.Floor(hi)-math.Ceil(lo) < 1 {
			ax.Min = math.Pow(10, math.Floor(lo))
			if math.Floor(hi)-math.Floor(lo) < 1 {
				ax.Max = math.Pow(10, math.Floor(lo)+1)
			}
		}
		pad(ax, a.marks, true)
	}
	return nil
}

// niceTicks marks a linear axis: labelled multiples of a step of 1, 2 or 5
// × 10^k, the longest step with at least 4 of them in the range, and
// unlabelled minor ticks between. (gonum/plot's default picks steps such as
// 7.5 and labels 2.5, −5, −12.5.)
type niceTicks struct{}

func (niceTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return nil
	}
	k := int(math.Floor(math.Log10(max - min)))
	// at returns r steps of m × 10^k, exactly where 10^k is a fraction.
	at := func(r, m float64, k int) float64 {
		if k < 0 {
			return r * m / math.Pow10(-k)
		}
		return r * m * math.Pow10(k)
	}
	m, parts := 1.0, 5.0
	for _, c := range []struct {
		m float64
		k int
	}{{5, k}, {2, k}, {1, k}, {5, k - 1}, {2, k - 1}, {1, k - 1}, {5, k - 2}} {
		m, k, parts = c.m, c.k, 5
		if m == 2 {
			parts = 4
		}
		if step := at(1, m, k); math.Floor(max/step)-math.Ceil(min/step) >= 3 {
			break
		}
	}
	step := at(1, m, k)
	minor := step / parts
	var ts []plot.Tick
	for i := math.Ceil(min / minor); i*minor <= max*(1+1e-12)+1e-300; i++ {
		if r := i / parts; r == math.Trunc(r) {
			v := at(r, m, k)
			ts = append(ts, plot.Tick{Value: v, Label: metrics.Format(v)})
			continue
		}
		ts = append(ts, plot.Tick{Value: i * minor})
	}
	return ts
}

// compactTicks relabels the ticks of another Ticker from 1,000 up as 1k,
// 10k, 1M: for the narrow axes of panels.
type compactTicks struct{ plot.Ticker }

func (t compactTicks) Ticks(min, max float64) []plot.Tick {
	ts := t.Ticker.Ticks(min, max)
	for i := range ts {
		if v := math.Abs(ts[i].Value); ts[i].Label != "" && v >= 1000 {
			switch {
			case v >= 1e9:
				ts[i].Label = metrics.Format(ts[i].Value/1e9) + "G"
			case v >= 1e6:
				ts[i].Label = metrics.Format(ts[i].Value/1e6) + "M"
			default:
				ts[i].Label = metrics.Format(ts[i].Value/1e3) + "k"
			}
		}
	}
	return ts
}
