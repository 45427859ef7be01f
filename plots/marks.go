package plots

import (
	"fmt"
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"countsim/metrics"
)

// markLine is a reference line across the whole data area: vertical at
// X = value (axis "x") or horizontal at Y = value (axis "y"). Its DataRange
// holds the value on its own axis only, so the chart's range takes it in
// without the line stretching the other axis.
type markLine struct {
	axis  string
	value float64
	style draw.LineStyle
}

var (
	_ plot.Plotter     = markLine{}
	_ plot.DataRanger  = markLine{}
	_ plot.Thumbnailer = markLine{}
)

func (m markLine) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	if m.axis == "x" {
		x := trX(m.value)
		c.StrokeLine2(m.style, x, c.Min.Y, x, c.Max.Y)
		return
	}
	y := trY(m.value)
	c.StrokeLine2(m.style, c.Min.X, y, c.Max.X, y)
}

func (m markLine) DataRange() (xmin, xmax, ymin, ymax float64) {
	none := math.Inf(1)
	if m.axis == "x" {
		return m.value, m.value, none, -none
	}
	return none, -none, m.value, m.value
}

func (m markLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(m.style, c.Min.X, y, c.Max.X, y)
}

// marks adds the Marks of every series: one line per distinct mark, in the
// order they come, named in the legend. Marks of the same label (a band's
// two edges, ±1σ) share their dash and their legend entry. A mark that only
// one series of a shared chart carries takes that series' colour; the
// others are dark grey. A mark that cannot be drawn (NaN, ±Inf, < 0 on a
// log axis) is named in the legend with the reason.
func (c *chart) marks() error {
	type owned struct {
		m      metrics.Mark
		owners []int
	}
	var ms []owned
	for i, s := range c.group {
	marks:
		for _, m := range s.Marks {
			if m.Axis != "x" && m.Axis != "y" {
				return fmt.Errorf("mark %q: axis %q, want \"x\" or \"y\"", m.Label, m.Axis)
			}
			for j := range ms {
				if ms[j].m == m {
					if o := ms[j].owners; o[len(o)-1] != i {
						ms[j].owners = append(o, i)
					}
					continue marks
				}
			}
			ms = append(ms, owned{m, []int{i}})
		}
	}
	dashes := [][]vg.Length{
		{vg.Points(6), vg.Points(3)},
		{vg.Points(2), vg.Points(2)},
		{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
	}
	styles := map[string]int{} // label → dash
	for _, e := range ms {
		m := e.m
		label := m.Label
		if label == "" {
			label = m.Axis + " = " + metrics.Format(m.Value)
		}
		k, named := styles[label]
		if !named {
			k = len(styles)
			styles[label] = k
		}
		log := c.logX
		if m.Axis == "y" {
			log = c.logY
		}
		if !keep(m.Value, log) {
			c.name(fmt.Sprintf("%s (not shown: %s)", label, why(log)))
			continue
		}
		col := color.Color(color.Gray{Y: 50})
		if len(e.owners) == 1 && len(c.group) > 1 {
			col = dark(e.owners[0])
		}
		ml := markLine{axis: m.Axis, value: m.Value, style: draw.LineStyle{
			Color: col, Width: vg.Points(1.4), Dashes: dashes[k%len(dashes)],
		}}
		c.add(ml)
		if !named {
			c.name(label, ml)
		}
		if m.Axis == "x" {
			c.markX = append(c.markX, m.Value)
			c.track(0, m.Value, log)
		} else {
			c.track(1, m.Value, log)
			c.markY = append(c.markY, m.Value)
			if c.isBars {
				c.barMin = math.Min(c.barMin, m.Value)
				c.barMax = math.Max(c.barMax, m.Value)
			}
		}
	}
	return nil
}

// pad widens an axis by 3% (of its logarithmic span on a log axis) on a
// side where a mark sits on the edge, so the line does not merge with the
// frame.
func pad(ax *plot.Axis, marks []float64, log bool) {
	lo, hi := ax.Min, ax.Max
	if log {
		lo, hi = math.Log10(lo), math.Log10(hi)
	}
	d := 0.03 * (hi - lo)
	back := func(x float64) float64 { return x }
	if log {
		back = func(x float64) float64 { return math.Pow(10, x) }
	}
	top, bottom := slices.Contains(marks, ax.Max), slices.Contains(marks, ax.Min)
	if top {
		ax.Max = back(hi + d)
	}
	if bottom {
		ax.Min = back(lo - d)
	}
}
