package plots

// Zeros on a log axis. A log scale has no place for 0, and gonum/plot
// panics on one; dropping the zeros hides exactly the designs that do best
// (a backlog of 0 beside one that grows 190,000 a second, reads all of age
// 0). A log axis that has zeros to draw keeps a slot for them before its
// log range, apart from it by a gap with a dotted line across the data
// area: the zeros' points sit in the slot, a histogram's zeros are a bar of
// their own there, and the slot's tick says "0" (or the series' ZeroLabel,
// "0 (fresh)").

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Where the slot and the log range lie along an axis with zeros, as
// fractions of its length: the slot [0, slotEnd], a gap, then the log range
// [logStart, 1].
const (
	slotEnd  = 0.06
	logStart = 0.11
)

// zeroLogScale is a log scale over [min, max] with the zeros' slot before
// it. Values ≤ 0 go to the middle of the slot (only zeros reach it: keep
// drops negatives on a log axis). On an axis with nothing but zeros
// (only), the slot is the whole axis and every value is at its middle.
type zeroLogScale struct{ only bool }

var _ plot.Normalizer = zeroLogScale{}

func (s zeroLogScale) Normalize(min, max, x float64) float64 {
	switch {
	case s.only:
		return 0.5
	case x <= 0:
		return slotEnd / 2
	}
	return logStart + (1-logStart)*(math.Log(x)-math.Log(min))/(math.Log(max)-math.Log(min))
}

// slot is the zeros' slot along the axis, as fractions of its length.
func (s zeroLogScale) slot() (lo, hi float64) {
	if s.only {
		return 0.35, 0.65
	}
	return 0.01, slotEnd - 0.005
}

// zeroTicks is the zeros' tick, then (unless only) the log ticks of the
// log range, labelled as the tables print numbers.
type zeroTicks struct {
	label string
	only  bool
}

func (t zeroTicks) Ticks(min, max float64) []plot.Tick {
	ts := []plot.Tick{{Value: 0, Label: t.label}}
	if t.only {
		return ts
	}
	for _, tk := range (formatTicks{plot.LogTicks{Prec: -1}}).Ticks(min, max) {
		// Below min, a log tick would land in the gap or the slot.
		if tk.Value >= min && tk.Value <= max {
			ts = append(ts, tk)
		}
	}
	return ts
}

// zeroBar is a histogram's bar of zeros: Weight values of 0, drawn across
// the slot of a log X axis, in the colours of the series' histogram.
type zeroBar struct {
	weight float64
	fill   color.Color
	line   draw.LineStyle
	logY   bool
}

var (
	_ plot.Plotter     = zeroBar{}
	_ plot.DataRanger  = zeroBar{}
	_ plot.Thumbnailer = zeroBar{}
)

func (b zeroBar) Plot(c draw.Canvas, p *plot.Plot) {
	_, trY := p.Transforms(&c)
	scale, _ := p.X.Scale.(zeroLogScale)
	lo, hi := scale.slot()
	x0 := c.Min.X + vg.Length(lo)*(c.Max.X-c.Min.X)
	x1 := c.Min.X + vg.Length(hi)*(c.Max.X-c.Min.X)
	base := 0.0
	if b.logY {
		base = p.Y.Min
	}
	y0, y1 := trY(base), trY(b.weight)
	pts := []vg.Point{{X: x0, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}, {X: x1, Y: y0}}
	c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
	c.StrokeLines(b.line, c.ClipLinesXY(append(pts, pts[0]))...)
}

// DataRange holds the bar's height only: its X is the slot, outside the
// data's range.
func (b zeroBar) DataRange() (xmin, xmax, ymin, ymax float64) {
	lo := 0.0
	if b.logY {
		lo = b.weight / 2
	}
	return math.Inf(1), math.Inf(-1), lo, b.weight
}

func (b zeroBar) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Min.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Max.X, Y: c.Min.Y}}
	c.FillPolygon(b.fill, c.ClipPolygonXY(pts))
	c.StrokeLines(b.line, c.ClipLinesXY(append(pts, pts[0]))...)
}

// slotBreak is the dotted line across the data area between the zeros'
// slot of an axis and its log range: where the axis breaks.
type slotBreak struct{ axis string }

var _ plot.Plotter = slotBreak{}

func (s slotBreak) Plot(c draw.Canvas, _ *plot.Plot) {
	sty := draw.LineStyle{Color: color.Gray{Y: 140}, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2.5)}}
	f := vg.Length((slotEnd + logStart) / 2)
	if s.axis == "x" {
		x := c.Min.X + f*(c.Max.X-c.Min.X)
		c.StrokeLine2(sty, x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := c.Min.Y + f*(c.Max.Y-c.Min.Y)
	c.StrokeLine2(sty, c.Min.X, y, c.Max.X, y)
}
