package plots

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"countsim/metrics"
)

// maxBins caps the number of histogram bins.
const maxBins = 60

// histograms draws a histogram of Values per series, all on the same bins;
// on a log X axis, the zeros of each series are a bar of their own in the
// axis's slot for zeros.
func (c *chart) histograms() error {
	var pooled, pooledW []float64 // kept values > 0 (log10 on a log X axis) and how often each occurs
	integer, zeros := true, false
	for _, s := range c.group {
		for j, v := range s.Values {
			if !keep(v, c.logX) {
				continue
			}
			if c.logX && v == 0 {
				zeros = true
				continue
			}
			integer = integer && v == math.Trunc(v)
			if c.logX {
				v = math.Log10(v)
			}
			pooled, pooledW = append(pooled, v), append(pooledW, weight(s, j))
		}
	}
	if len(pooled) == 0 && !zeros {
		return fmt.Errorf("%w: no value is %s", ErrNoData, drawable(c.logX))
	}
	var edges []float64
	if len(pooled) > 0 {
		// Sorted by value, then weight: a total order, so the result is
		// the one whatever the sort (pdqsort, where a stable sort of the
		// indices took a tenth of drawing every chart); samples of no
		// weights (each 1) sort as bare numbers.
		sorted, weights := pooled, pooledW
		if slices.ContainsFunc(c.group, func(s metrics.Series) bool { return s.Weights != nil }) {
			type vw struct{ v, w float64 }
			pairs := make([]vw, len(pooled))
			for i := range pooled {
				pairs[i] = vw{pooled[i], pooledW[i]}
			}
			slices.SortFunc(pairs, func(a, b vw) int { return cmp.Or(cmp.Compare(a.v, b.v), cmp.Compare(a.w, b.w)) })
			sorted, weights = make([]float64, len(pairs)), make([]float64, len(pairs))
			for i, p := range pairs {
				sorted[i], weights[i] = p.v, p.w
			}
		} else {
			sorted = slices.Clone(pooled)
			slices.Sort(sorted)
		}
		edges = binEdges(sorted, weights, integer, c.logX)
		if c.logX {
			c.track(0, edges[0], true)
			c.track(0, edges[len(edges)-1], true)
		}
	}
	pooled, pooledW = nil, nil

	c.isHist = true
	alpha := uint8(210)
	if len(c.group) > 1 {
		alpha = 90
	}
	type binned struct {
		weights           []float64
		kept, zero, total float64
	}
	bs, names := make([]binned, len(c.group)), make([]string, len(c.group))
	for i, s := range c.group {
		b := &bs[i]
		if edges != nil {
			b.weights = make([]float64, len(edges)-1)
		}
		for j, v := range s.Values {
			w := weight(s, j)
			b.total += w
			switch {
			case !keep(v, c.logX):
			case c.logX && v == 0:
				b.zero += w
			default:
				b.weights[bin(edges, v)] += w
				b.kept += w
			}
		}
		names[i] = legendName(s, int(b.total-b.kept-b.zero), int(b.total), why(c.logX))
	}
	// Histograms of the same counts in every bin are one, named "a = b".
	first, name := merge(names, func(i, j int) bool {
		return bs[i].kept+bs[i].zero > 0 && bs[i].zero == bs[j].zero && slices.Equal(bs[i].weights, bs[j].weights)
	})
	for i := range c.group {
		if first[i] != i {
			continue
		}
		weights, kept, zero := bs[i].weights, bs[i].kept, bs[i].zero
		if kept+zero == 0 {
			c.name(name[i])
			continue
		}
		line := draw.LineStyle{Color: dark(i), Width: vg.Points(0.8)}
		var thumb plot.Thumbnailer
		if kept > 0 {
			h := &plotter.Histogram{
				Bins:      make([]plotter.HistogramBin, len(weights)),
				Width:     edges[1] - edges[0],
				FillColor: fill(i, alpha),
				LineStyle: line,
				LogY:      c.logY,
			}
			for b := range h.Bins {
				h.Bins[b] = plotter.HistogramBin{Min: edges[b], Max: edges[b+1], Weight: weights[b]}
			}
			c.add(h)
			thumb = h
		}
		if zero > 0 {
			c.track(0, 0, true)
			zb := zeroBar{weight: zero, fill: fill(i, alpha), line: line, logY: c.logY}
			c.add(zb)
			if thumb == nil {
				thumb = zb
			}
		}
		if names[i] != "" || len(c.group) > 1 {
			c.name(name[i], thumb)
		}
	}
	return nil
}

// merge finds the series drawn exactly as an earlier one (same(i, j), for
// i < j): first[j] is the earliest series j is drawn as (j itself if
// none), and name[i] the legend entry of the series i that are drawn, with
// the names of the ones drawn as i after it: "sharded-8 = sharded-8-naive-dense".
func merge(names []string, same func(i, j int) bool) (first []int, name []string) {
	first, name = make([]int, len(names)), make([]string, len(names))
	for j := range names {
		first[j] = j
		for i := range j {
			if first[i] == i && same(i, j) {
				first[j] = i
				break
			}
		}
		if first[j] == j {
			name[j] = nonEmpty(names[j], j)
		} else {
			name[first[j]] += " = " + nonEmpty(names[j], j)
		}
	}
	return first, name
}

// weight is how often the j-th value of a Distribution occurs: its
// weight, or 1 without weights.
func weight(s metrics.Series, j int) float64 {
	if s.Weights == nil {
		return 1
	}
	return s.Weights[j]
}

// binEdges returns the increasing edges of the bins of a histogram of
// sorted data: from binning, or on a log X axis (where data holds log10 of
// the values) log-spaced, moved to half-integers for integer data so that no
// bin is too narrow to hold an integer.
func binEdges(data, weights []float64, integer, logX bool) []float64 {
	lo, w, n := binning(data, weights, integer && !logX)
	edges := make([]float64, 0, n+1)
	for k := range n + 1 {
		e := lo + float64(k)*w
		if logX {
			e = math.Pow(10, e)
			if integer { // values ≥ 1, so 0.5 is below them all
				e = math.Max(math.Round(e)-0.5, 0.5)
				if k == n {
					e = math.Round(math.Pow(10, data[len(data)-1])) + 0.5
				}
			}
		}
		if len(edges) == 0 || e > edges[len(edges)-1] {
			edges = append(edges, e)
		}
	}
	if len(edges) == 1 { // one value on a log axis
		edges = append(edges, edges[0]*1.1)
	}
	return edges
}

// bin is the index of the bin [edges[b], edges[b+1]) that holds v; values
// outside go to the first or last bin.
func bin(edges []float64, v float64) int {
	i, found := slices.BinarySearch(edges, v)
	if !found {
		i--
	}
	return min(max(i, 0), len(edges)-2)
}

// binning chooses the bins of a histogram of sorted (non-empty) data: the
// first edge lo, the width w and the count n ≤ maxBins (+1 for integers).
// The width is Freedman–Diaconis, 2·IQR·n^(−1/3) (Freedman & Diaconis 1981),
// or range/√n when the quartiles coincide, as they do for a heavy tail of
// mostly equal values. Integer data gets whole-number bins centred on the
// integers, so that no bin holds more integers than its neighbours.
func binning(sorted, weights []float64, integer bool) (lo, w float64, n int) {
	first, last := sorted[0], sorted[len(sorted)-1]
	span := last - first
	if span == 0 {
		d := math.Abs(first) * 0.05
		if d == 0 || integer {
			d = 0.5
		}
		return first - d, 2 * d, 1
	}
	count := float64(len(sorted))
	if weights != nil {
		count = 0
		for _, w := range weights {
			count += w
		}
	}
	iqr := metrics.QuantileWeighted(sorted, weights, 0.75) - metrics.QuantileWeighted(sorted, weights, 0.25)
	if iqr > 0 {
		n = int(math.Ceil(span / (2 * iqr / math.Cbrt(count))))
	} else {
		n = int(math.Ceil(math.Sqrt(count)))
	}
	n = min(max(n, 1), maxBins)
	w = span / float64(n)
	if !integer {
		return first, w, n
	}
	w = math.Max(1, math.Ceil(w))
	lo = first - 0.5
	n = int(math.Ceil((last + 0.5 - lo) / w))
	return lo, w, n
}

// curves draws a line with points per series; on a log axis, zeros are
// drawn in the axis's slot for zeros.
func (c *chart) curves() error {
	c.isCurve = true
	drawn := 0
	xyss, names := make([]plotter.XYs, len(c.group)), make([]string, len(c.group))
	for i, s := range c.group {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("series %q has %d X but %d Y", s.Strategy, len(s.X), len(s.Y))
		}
		xys := make(plotter.XYs, 0, len(s.X))
		for j := range s.X {
			if keep(s.X[j], c.logX) && keep(s.Y[j], c.logY) {
				xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
				c.track(0, s.X[j], c.logX)
				c.track(1, s.Y[j], c.logY)
			}
		}
		// A line through the points in the order of X: a sweep listed
		// 1000, 300 is drawn 300, 1000.
		slices.SortStableFunc(xys, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		xyss[i], names[i] = xys, legendName(s, len(s.X)-len(xys), len(s.X), why(c.logX || c.logY))
	}
	// A line drawn exactly over another hides it: series with the same
	// points are one line, named "a = b" in the legend.
	first, name := merge(names, func(i, j int) bool { return len(xyss[i]) > 0 && slices.Equal(xyss[i], xyss[j]) })
	for i, xys := range xyss {
		if first[i] != i {
			continue
		}
		if len(xys) == 0 {
			c.name(name[i])
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.Color = dark(i)
		line.Width = vg.Points(1.5)
		points.Color = dark(i)
		points.Shape = plotutil.Shape(i)
		points.Radius = vg.Points(2.5)
		c.add(line, points)
		if names[i] != "" || len(c.group) > 1 {
			c.name(name[i], line, points)
		}
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("%w: no point is %s", ErrNoData, drawable(c.logX || c.logY))
	}
	return nil
}

// bars draws one bar per label, the bars of each label grouped by series.
func (c *chart) bars() error {
	if c.logX {
		return errors.New("bars cannot have a log X axis: it names the bars")
	}
	if c.logY {
		return errors.New("bars cannot have a log Y axis: a bar starts at 0")
	}
	labels := c.group[0].Labels
	if len(labels) == 0 {
		return fmt.Errorf("%w: bars without labels", ErrNoData)
	}
	for _, s := range c.group {
		if !slices.Equal(s.Labels, labels) {
			return fmt.Errorf("series %q has labels %q, want %q like the first series", s.Strategy, s.Labels, labels)
		}
		if len(s.Y) != len(labels) {
			return fmt.Errorf("series %q has %d Y for %d labels", s.Strategy, len(s.Y), len(labels))
		}
		for j, y := range s.Y {
			if !keep(y, false) {
				return fmt.Errorf("series %q: bar %q is %v", s.Strategy, labels[j], y)
			}
		}
	}
	slot := (width - vg.Inch) / vg.Length(len(labels))
	groupW := min(slot*0.8, vg.Inch)
	barW := groupW / vg.Length(len(c.group))
	c.isBars = true
	for i, s := range c.group {
		b, err := plotter.NewBarChart(plotter.Values(s.Y), barW)
		if err != nil {
			return err
		}
		b.Color = fill(i, 255)
		b.LineStyle = draw.LineStyle{Color: dark(i), Width: vg.Points(0.6)}
		b.Offset = -groupW/2 + barW*vg.Length(i) + barW/2
		c.add(b)
		if vs := c.values(s.Y, b.Offset, barW); vs != nil {
			c.add(vs)
		}
		if s.Strategy != "" || len(c.group) > 1 {
			c.name(nonEmpty(s.Strategy, i), b)
		}
		for _, y := range s.Y {
			c.barMin = math.Min(c.barMin, y)
			c.barMax = math.Max(c.barMax, y)
		}
	}
	c.p.NominalX(labels...)
	widest := vg.Length(0)
	for _, l := range labels {
		widest = max(widest, c.p.X.Tick.Label.Width(l))
	}
	if widest > slot*0.95 {
		c.p.X.Tick.Label.Rotation = math.Pi / 6
		c.p.X.Tick.Label.XAlign = draw.XRight
		c.p.X.Tick.Label.YAlign = draw.YCenter
	}
	return nil
}

// values labels each bar of ys with its value, over it (under it when
// negative), so that a bar of 0 reads 0 and not "missing"; nil where a
// label would be wider than 1.6 bars (the tables hold the values).
func (c *chart) values(ys []float64, offset, barW vg.Length) *barValues {
	sty := c.p.X.Tick.Label
	sty.Font.Size = vg.Points(8)
	sty.Rotation, sty.XAlign = 0, draw.XCenter
	v := &barValues{ys: ys, labels: make([]string, len(ys)), offset: offset, style: sty}
	for j, y := range ys {
		v.labels[j] = metrics.Format(y)
		if sty.Width(v.labels[j]) > 1.6*barW {
			return nil
		}
	}
	return v
}

// barValues are the values written over a set of bars.
type barValues struct {
	ys     []float64
	labels []string
	offset vg.Length // the bar set's offset from its label's X
	style  text.Style
}

var (
	_ plot.Plotter    = (*barValues)(nil)
	_ plot.GlyphBoxer = (*barValues)(nil)
)

func (v *barValues) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for j, y := range v.ys {
		sty, dy := v.style, vg.Points(2)
		sty.YAlign = draw.YBottom
		if y < 0 {
			sty.YAlign, dy = draw.YTop, -dy
		}
		c.FillText(sty, vg.Point{X: trX(float64(j)) + v.offset, Y: trY(y) + dy}, v.labels[j])
	}
}

// GlyphBoxes keep the labels inside the plot: gonum/plot pads the data
// area for them.
func (v *barValues) GlyphBoxes(p *plot.Plot) []plot.GlyphBox {
	bs := make([]plot.GlyphBox, len(v.ys))
	for j, y := range v.ys {
		r := v.style.Rectangle(v.labels[j])
		r.Min.X, r.Max.X = r.Min.X+v.offset, r.Max.X+v.offset
		if y >= 0 {
			r.Min.Y, r.Max.Y = vg.Points(2), vg.Points(2)+r.Size().Y
		} else {
			r.Min.Y, r.Max.Y = -vg.Points(2)-r.Size().Y, -vg.Points(2)
		}
		bs[j] = plot.GlyphBox{X: p.X.Norm(float64(j)), Y: p.Y.Norm(y), Rectangle: r}
	}
	return bs
}

// nonEmpty is name, or "series i" when a shared chart needs a name.
func nonEmpty(name string, i int) string {
	if name != "" {
		return name
	}
	return fmt.Sprintf("series %d", i+1)
}

// drawable says what a value must be to be drawn.
func drawable(log bool) string {
	if log {
		return "finite and ≥ 0 (log axis)"
	}
	return "finite"
}
