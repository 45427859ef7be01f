package plots

// Figures: a chart of one panel, or of one panel per Panel of its series
// (an accuracy profile a design), the panels on the same axes' ranges,
// under one title, beside one legend, with the axes' labels said once.

import (
	"cmp"
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"countsim/metrics"
)

// figure is what Draw writes for one group.
type figure struct {
	title  string   // on one line
	panels []*chart // one, or one per Panel in the order they come
	// of a figure of panels: the legend of them all, the axes' labels, and
	// the grid they are laid out in
	legend         plot.Legend
	xLabel, yLabel string
	rows, cols     int
}

// panels counts the distinct Panels of group.
func panels(group []metrics.Series) int {
	return len(splitPanels(group))
}

// splitPanels splits group by Panel, keeping the order.
func splitPanels(group []metrics.Series) [][]metrics.Series {
	index := map[string]int{}
	var out [][]metrics.Series
	for _, s := range group {
		i, ok := index[s.Panel]
		if !ok {
			i = len(out)
			index[s.Panel] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// newFigure builds the figure of a group: its chart, or a chart a panel.
func newFigure(group []metrics.Series) (*figure, error) {
	sc, err := check(group)
	if err != nil {
		return nil, err
	}
	parts := splitPanels(group)
	if len(parts) == 1 {
		c, err := newChart(group)
		if err != nil {
			return nil, err
		}
		return &figure{title: c.p.Title.Text, panels: []*chart{c}}, nil
	}
	f := &figure{title: title(group)}
	for _, part := range parts {
		c, err := buildChart(part, sc)
		if err != nil {
			return nil, fmt.Errorf("plots: chart %s, panel %q: %w", groupID(group), part[0].Panel, err)
		}
		f.panels = append(f.panels, c)
	}
	if err := flat(group); err != nil {
		return nil, err
	}
	share(f.panels)
	for i, c := range f.panels {
		if err := c.axes(); err != nil {
			return nil, fmt.Errorf("plots: chart %s, panel %q: %w", groupID(group), parts[i][0].Panel, err)
		}
	}
	// One legend, of every entry in the order first met; one label an
	// axis; each panel titled with its Panel.
	f.legend = plot.NewLegend()
	f.legend.TextStyle.Font = f.panels[0].p.Legend.TextStyle.Font
	f.legend.Padding = f.panels[0].p.Legend.Padding
	f.legend.Left, f.legend.Top = true, true
	seen := map[string]bool{}
	for _, c := range f.panels {
		for j, text := range c.legend {
			if !seen[text] {
				seen[text] = true
				f.legend.Add(text, c.thumbs[j]...)
			}
		}
		p := c.p
		f.xLabel, f.yLabel = cmp.Or(f.xLabel, p.X.Label.Text), cmp.Or(f.yLabel, p.Y.Label.Text)
		p.X.Label.Text, p.Y.Label.Text = "", ""
		p.X.Tick.Marker = compactTicks{p.X.Tick.Marker}
		p.Y.Tick.Marker = compactTicks{p.Y.Tick.Marker}
		p.Legend = plot.NewLegend() // the figure's legend says it once
		p.Title.Text = c.group[0].Panel
		p.Title.TextStyle.Font.Size = 10
		p.Title.Padding = vg.Points(3)
	}
	f.cols = int(math.Ceil(math.Sqrt(float64(len(f.panels)))))
	f.rows = (len(f.panels) + f.cols - 1) / f.cols
	return f, nil
}

// share gives the panels the same ranges on both axes: the union of
// theirs, with every panel's zeros' slot, log span and marks.
func share(cs []*chart) {
	for i := range 2 {
		lo, hi := math.Inf(1), math.Inf(-1)
		var pos span
		zero := false
		var marks []float64
		for _, c := range cs {
			ax := axisOf(c.p, i)
			lo, hi = math.Min(lo, ax.Min), math.Max(hi, ax.Max)
			if c.pos[i].ok {
				pos.add(c.pos[i].lo)
				pos.add(c.pos[i].hi)
			}
			zero = zero || c.zero[i]
			if i == 0 {
				marks = append(marks, c.markX...)
			} else {
				marks = append(marks, c.markY...)
			}
		}
		for _, c := range cs {
			ax := axisOf(c.p, i)
			ax.Min, ax.Max = lo, hi
			c.pos[i], c.zero[i] = pos, zero
			if i == 0 {
				c.markX = marks
			} else {
				c.markY = marks
			}
		}
	}
	var bmin, bmax float64
	for _, c := range cs {
		bmin, bmax = math.Min(bmin, c.barMin), math.Max(bmax, c.barMax)
	}
	for _, c := range cs {
		c.barMin, c.barMax = bmin, bmax
	}
}

func axisOf(p *plot.Plot, i int) *plot.Axis {
	if i == 0 {
		return &p.X
	}
	return &p.Y
}

// Size of a figure of panels: 10 inches wide, 3.4 inches a row of panels
// and room for the title and the X label.
const (
	panelsWidth  = 10 * vg.Inch
	panelsRow    = 3.4 * vg.Inch
	panelsMargin = 0.8 * vg.Inch
)

// size is the figure's size on the page.
func (f *figure) size() (w, h vg.Length) {
	if len(f.panels) == 1 {
		return width, height
	}
	return panelsWidth, vg.Length(f.rows)*panelsRow + panelsMargin
}

// draw lays the figure out on dc.
func (f *figure) draw(dc draw.Canvas) {
	if len(f.panels) == 1 {
		layout(f.panels[0].p, dc)
		return
	}
	first := f.panels[0].p
	if first.BackgroundColor != nil {
		dc.SetColor(first.BackgroundColor)
		dc.Fill(dc.Rectangle.Path())
	}
	body := drawTitle(dc, f.title, first.Title.TextStyle, first.Title.Padding)
	r := f.legend.Rectangle(body)
	place, size := legendRight, r.Size().X
	if r.Size().X > 0.3*body.Size().X {
		place, size = legendBelow, r.Size().Y
	}
	drawLegend(f.legend, place, size, body, f.drawPanels)
}

// drawPanels draws the axes' labels once, along the left and the bottom
// of c, and the panels on a grid in the rest, their data areas of one size.
func (f *figure) drawPanels(c draw.Canvas) {
	first := f.panels[0].p
	xsty, ysty := first.X.Label.TextStyle, first.Y.Label.TextStyle
	ysty.Rotation += math.Pi / 2
	left := ysty.Height(f.yLabel) + first.Y.Label.Padding
	bottom := xsty.Height(f.xLabel) + first.X.Label.Padding
	grid := draw.Crop(c, left, 0, bottom, 0)
	if f.yLabel != "" {
		c.FillText(ysty, vg.Point{X: c.Min.X + ysty.Height(f.yLabel)*0.8, Y: grid.Center().Y}, f.yLabel)
	}
	if f.xLabel != "" {
		xsty.YAlign = draw.YBottom
		c.FillText(xsty, vg.Point{X: grid.Center().X, Y: c.Min.Y}, f.xLabel)
	}
	ps := make([][]*plot.Plot, f.rows)
	for j := range ps {
		ps[j] = make([]*plot.Plot, f.cols)
		for i := range ps[j] {
			if k := j*f.cols + i; k < len(f.panels) {
				ps[j][i] = f.panels[k].p
			}
		}
	}
	tiles := draw.Tiles{Rows: f.rows, Cols: f.cols, PadX: vg.Points(14), PadY: vg.Points(10), PadTop: vg.Points(4), PadRight: vg.Points(8)}
	canvases := plot.Align(ps, tiles, grid)
	for j := range ps {
		for i, p := range ps[j] {
			if p != nil {
				p.Draw(canvases[j][i])
			}
		}
	}
}
