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
		order := make([]int, len(pooled))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(pooled[a], pooled[b]) })
		sorted, weights := make([]float64, len(order)), make([]float64, len(order))
		for i, j := range order {
			sorted[i], weights[i] = pooled[j], pooledW[j]
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
	for i, s := range c.group {
		var weights []float64
		if edges != nil {
			weights = make([]float64, len(edges)-1)
		}
		var kept, zero, total float64
		for j, v := range s.Values {
			w := weight(s, j)
			total += w
			switch {
			case !keep(v, c.logX):
			case c.logX && v == 0:
				zero += w
			default:
				weights[bin(edges, v)] += w
				kept += w
			}
		}
		name := legendName(s, int(total-kept-zero), int(total), why(c.logX))
		if kept+zero == 0 {
			c.name(nonEmpty(name, i))
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
		if name != "" || len(c.group) > 1 {
			c.name(nonEmpty(name, i), thumb)
		}
	}
	return nil
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
		name := legendName(s, len(s.X)-len(xys), len(s.X), why(c.logX || c.logY))
		if len(xys) == 0 {
			c.name(nonEmpty(name, i))
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
		if name != "" || len(c.group) > 1 {
			c.name(nonEmpty(name, i), line, points)
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
