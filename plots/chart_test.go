package plots

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"countsim/metrics"
)

// overestimates returns n integer samples in [0, top] with a heavy tail,
// seeded: most keys are overcounted a little, a few by a lot.
func overestimates(seed uint64, n int, top float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	vs := make([]float64, n)
	for i := range vs {
		vs[i] = math.Floor(top * math.Pow(r.Float64(), 4))
	}
	vs[0] = top
	return vs
}

func distribution(strategy string, seed uint64) metrics.Series {
	return metrics.Series{
		Scenario: "cricket-final", Strategy: strategy, Name: "overestimate",
		Title: "overestimate per key", Kind: metrics.Distribution,
		XLabel: "estimate − true count", YLabel: "keys",
		Values: overestimates(seed, 5000, 365),
		Marks:  []metrics.Mark{{Label: "bound εN = 1,000", Value: 1000, Axis: "x"}},
	}
}

func recallBars() metrics.Series {
	return metrics.Series{
		Scenario: "trending", Name: "topk_recall", Title: "top-10 recall of each design",
		Kind: metrics.Bars, YLabel: "recall",
		Labels: []string{"exact", "count-min+heap", "space-saving", "split-count"},
		Y:      []float64{1, 0.9, 1, 0.7},
	}
}

// build is newChart that must succeed.
func build(t *testing.T, group ...metrics.Series) *chart {
	t.Helper()
	c, err := newChart(group)
	if err != nil {
		t.Fatalf("newChart: %v", err)
	}
	return c
}

// plottersOf returns the plotters of type T that c fed to its plot.
func plottersOf[T plot.Plotter](c *chart) []T {
	var out []T
	for _, p := range c.plotters {
		if t, ok := p.(T); ok {
			out = append(out, t)
		}
	}
	return out
}

// renders draws p in both formats; a panic fails the test.
func renders(t *testing.T, p *plot.Plot) {
	t.Helper()
	for _, f := range formats {
		wt, err := p.WriterTo(width, height, f)
		if err != nil {
			t.Fatalf("WriterTo(%s): %v", f, err)
		}
		var buf bytes.Buffer
		if _, err := wt.WriteTo(&buf); err != nil {
			t.Fatalf("WriteTo(%s): %v", f, err)
		}
		if buf.Len() == 0 {
			t.Fatalf("%s: empty output", f)
		}
	}
}

func totalWeight(h *plotter.Histogram) float64 {
	var sum float64
	for _, b := range h.Bins {
		sum += b.Weight
	}
	return sum
}

func TestChartDistributionWithMark(t *testing.T) {
	s := distribution("count-min", 1)
	c := build(t, s)
	p := c.p
	if p.X.Min > 0 || p.X.Max < 1000 {
		t.Errorf("X range [%v, %v], want it to hold the data [0, 365] and the mark 1000", p.X.Min, p.X.Max)
	}
	if p.X.Max <= 1000 {
		t.Errorf("X max %v: the mark at 1000 sits on the frame", p.X.Max)
	}
	if p.Y.Min != 0 {
		t.Errorf("Y min %v, want 0", p.Y.Min)
	}
	hs := plottersOf[*plotter.Histogram](c)
	if len(hs) != 1 {
		t.Fatalf("got %d histograms, want 1", len(hs))
	}
	h := hs[0]
	if got := totalWeight(h); got != float64(len(s.Values)) {
		t.Errorf("histogram weight %v, want %d samples", got, len(s.Values))
	}
	if n := len(h.Bins); n < 2 || n > maxBins+1 {
		t.Errorf("%d bins, want 2..%d", n, maxBins+1)
	}
	if h.Bins[0].Min > 0 || h.Bins[len(h.Bins)-1].Max < 365 {
		t.Errorf("bins span [%v, %v], want [0, 365] inside", h.Bins[0].Min, h.Bins[len(h.Bins)-1].Max)
	}
	marks := plottersOf[markLine](c)
	if len(marks) != 1 || marks[0].axis != "x" || marks[0].value != 1000 {
		t.Errorf("marks %+v, want one vertical line at 1000", marks)
	}
	if !slices.Equal(c.legend, []string{"count-min", "bound εN = 1,000"}) {
		t.Errorf("legend %q", c.legend)
	}
	if p.Title.Text != "cricket-final — overestimate per key" || p.X.Label.Text != "estimate − true count" || p.Y.Label.Text != "keys" {
		t.Errorf("title %q, labels %q, %q", p.Title.Text, p.X.Label.Text, p.Y.Label.Text)
	}
	renders(t, p)
}

func TestChartDistributionOverlay(t *testing.T) {
	a, b := distribution("count-min", 1), distribution("conservative", 2)
	b.Values = b.Values[:2000]
	c := build(t, a, b)
	hs := plottersOf[*plotter.Histogram](c)
	if len(hs) != 2 {
		t.Fatalf("got %d histograms, want 2", len(hs))
	}
	if len(hs[0].Bins) != len(hs[1].Bins) {
		t.Fatalf("bins differ: %d and %d", len(hs[0].Bins), len(hs[1].Bins))
	}
	for i := range hs[0].Bins {
		if hs[0].Bins[i].Min != hs[1].Bins[i].Min || hs[0].Bins[i].Max != hs[1].Bins[i].Max {
			t.Fatalf("bin %d: [%v, %v] and [%v, %v], want the same edges", i,
				hs[0].Bins[i].Min, hs[0].Bins[i].Max, hs[1].Bins[i].Min, hs[1].Bins[i].Max)
		}
	}
	if totalWeight(hs[0]) != 5000 || totalWeight(hs[1]) != 2000 {
		t.Errorf("weights %v, %v, want 5000, 2000", totalWeight(hs[0]), totalWeight(hs[1]))
	}
	if hs[0].FillColor == hs[1].FillColor {
		t.Errorf("both strategies filled with %v", hs[0].FillColor)
	}
	// The same bound on both series is one line, in grey.
	if marks := plottersOf[markLine](c); len(marks) != 1 {
		t.Errorf("got %d mark lines, want 1", len(marks))
	}
	if !slices.Equal(c.legend, []string{"count-min", "conservative", "bound εN = 1,000"}) {
		t.Errorf("legend %q", c.legend)
	}
	renders(t, c.p)
}

func TestBinning(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    []float64
		integer bool
		lo, w   float64
		n       int
	}{
		{"one value", []float64{7, 7, 7}, true, 6.5, 1, 1},
		{"one real value", []float64{2, 2}, false, 1.9, 0.2, 1},
		{"zero", []float64{0}, false, -0.5, 1, 1},
		// IQR 2, n 10: FD width 4/10^(1/3) ≈ 1.86 → 3 bins of 1.67, rounded up to 2.
		{"small integers", []float64{0, 0, 1, 1, 2, 2, 3, 3, 4, 5}, true, -0.5, 2, 3},
		// Many integers in a small range: one bin per integer.
		{"dense integers", dense(), true, -0.5, 1, 6},
		// IQR 50, n 100: FD width 2·50/100^(1/3) ≈ 21.5 → ⌈99/21.5⌉ = 5 bins of 19.8.
		{"uniform reals", seq(0.5, 99.5, 100), false, 0.5, 19.8, 5},
		// Quartiles equal: √n rule, 100 → 10 bins, widths rounded up to whole numbers.
		{"tail of zeros", append(make([]float64, 99), 1000), true, -0.5, 100, 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, w, n := binning(tc.data, nil, tc.integer)
			if math.Abs(lo-tc.lo) > 1e-9 || math.Abs(w-tc.w) > 1e-9 || n != tc.n {
				t.Errorf("got lo %v, w %v, n %v; want %v, %v, %v", lo, w, n, tc.lo, tc.w, tc.n)
			}
			if last := tc.data[len(tc.data)-1]; lo > tc.data[0] || lo+float64(n)*w < last {
				t.Errorf("bins [%v, %v] miss the data [%v, %v]", lo, lo+float64(n)*w, tc.data[0], last)
			}
		})
	}
	t.Run("capped", func(t *testing.T) {
		r := rand.New(rand.NewPCG(3, 3))
		data := make([]float64, 1_000_000)
		for i := range data {
			data[i] = r.NormFloat64()
		}
		slices.Sort(data)
		if _, _, n := binning(data, nil, false); n != maxBins {
			t.Errorf("got %d bins, want the cap %d", n, maxBins)
		}
	})
}

// dense is 0..5, each 1,000 times.
func dense() []float64 {
	var out []float64
	for v := range 6 {
		for range 1000 {
			out = append(out, float64(v))
		}
	}
	return out
}

func seq(from, to float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = from + (to-from)*float64(i)/float64(n-1)
	}
	return out
}

func TestChartBars(t *testing.T) {
	s := recallBars()
	c := build(t, s)
	bars := plottersOf[*plotter.BarChart](c)
	if len(bars) != 1 {
		t.Fatalf("got %d bar charts, want 1", len(bars))
	}
	if !slices.Equal([]float64(bars[0].Values), s.Y) {
		t.Errorf("bars %v, want %v", bars[0].Values, s.Y)
	}
	ticks := c.p.X.Tick.Marker.Ticks(c.p.X.Min, c.p.X.Max)
	var labels []string
	for _, tk := range ticks {
		labels = append(labels, tk.Label)
	}
	if !slices.Equal(labels, s.Labels) {
		t.Errorf("tick labels %q, want %q", labels, s.Labels)
	}
	if c.p.Y.Min != 0 || c.p.Y.Max <= 1 || c.p.Y.Max > 1.2 {
		t.Errorf("Y range [%v, %v], want [0, a bit above 1]", c.p.Y.Min, c.p.Y.Max)
	}
	if len(c.legend) != 0 {
		t.Errorf("legend %q, want none for one unnamed bar set", c.legend)
	}
	renders(t, c.p)
}

func TestChartGroupedBars(t *testing.T) {
	a, b := recallBars(), recallBars()
	a.Strategy, b.Strategy = "k=10", "k=100"
	b.Y = []float64{1, 1, 1, 0.95}
	b.Marks = []metrics.Mark{{Label: "target", Value: 0.99, Axis: "y"}}
	c := build(t, a, b)
	bars := plottersOf[*plotter.BarChart](c)
	if len(bars) != 2 {
		t.Fatalf("got %d bar sets, want 2", len(bars))
	}
	if bars[0].Offset >= bars[1].Offset {
		t.Errorf("offsets %v, %v: the sets overlap", bars[0].Offset, bars[1].Offset)
	}
	if !slices.Equal(c.legend, []string{"k=10", "k=100", "target"}) {
		t.Errorf("legend %q", c.legend)
	}
	renders(t, c.p)

	b.Labels = []string{"exact", "count-min+heap", "space-saving", "misra-gries"}
	if _, err := Chart([]metrics.Series{a, b}); err == nil {
		t.Error("bars with different labels: no error")
	}
}

func TestChartCurve(t *testing.T) {
	a := metrics.Series{Scenario: "s", Strategy: "count-min", Name: "error_vs_memory", Kind: metrics.Curve,
		XLabel: "bytes", YLabel: "max overestimate", LogX: true, LogY: true,
		X: []float64{1e3, 1e4, 1e5, 1e6}, Y: []float64{900, 95, 9, 0},
		Marks: []metrics.Mark{{Label: "budget 64 KiB", Value: 65536, Axis: "x"}}}
	b := a
	b.Strategy, b.Y = "conservative", []float64{400, 40, 0, 0}
	c := build(t, a, b)
	lines := plottersOf[*plotter.Line](c)
	if len(lines) != 2 || len(lines[0].XYs) != 3 || len(lines[1].XYs) != 2 {
		t.Fatalf("lines %v, want 2 lines of 3 and 2 points (zeros dropped on the log axis)", lines)
	}
	want := []string{
		"count-min (1 of 4 not shown: NaN, ±Inf or ≤ 0 on a log axis)",
		"conservative (2 of 4 not shown: NaN, ±Inf or ≤ 0 on a log axis)",
		"budget 64 KiB",
	}
	if !slices.Equal(c.legend, want) {
		t.Errorf("legend %q, want %q", c.legend, want)
	}
	if _, ok := c.p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("X scale %T, want plot.LogScale", c.p.X.Scale)
	}
	// Points with Y = 0 are gone, so X ends at 1e5 (the mark 65,536 is inside);
	// both ranges hold two powers of 10, so they are left as they are.
	if c.p.X.Min != 1e3 || c.p.X.Max != 1e5 || c.p.Y.Min != 9 || c.p.Y.Max != 900 {
		t.Errorf("range X [%v, %v] Y [%v, %v], want X [1e3, 1e5], Y [9, 900]",
			c.p.X.Min, c.p.X.Max, c.p.Y.Min, c.p.Y.Max)
	}
	renders(t, c.p)
}

// TestLogAxesNeverPanic feeds zeros, negatives, NaN and ±Inf to log axes;
// every chart is refused with an error or draws in both formats.
func TestLogAxesNeverPanic(t *testing.T) {
	bad := []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, tc := range []struct {
		name string
		s    metrics.Series
		ok   bool
	}{
		{"hist logx zeros", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: append([]float64{1, 10, 100}, bad...)}, true},
		{"hist logx only zeros", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: bad}, false},
		{"hist logy", metrics.Series{Kind: metrics.Distribution, LogY: true, Values: append(overestimates(1, 1000, 50), bad...)}, true},
		{"hist logx logy one value", metrics.Series{Kind: metrics.Distribution, LogX: true, LogY: true, Values: []float64{5}}, true},
		{"hist logx ones", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1, 1, 0}}, true},
		{"hist logx one real", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1e-3}}, true},
		{"hist logx mark 0", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1, 2},
			Marks: []metrics.Mark{{Label: "zero", Value: 0, Axis: "x"}, {Label: "nan", Value: math.NaN(), Axis: "y"}}}, true},
		{"curve logy zeros", metrics.Series{Kind: metrics.Curve, LogY: true, X: []float64{0, 1, 2, 3}, Y: []float64{0, 0, 1, 2}}, true},
		{"curve logx one point", metrics.Series{Kind: metrics.Curve, LogX: true, X: []float64{0, 1}, Y: []float64{5, 0}}, true},
		{"curve logx nothing left", metrics.Series{Kind: metrics.Curve, LogX: true, X: []float64{0, -1}, Y: []float64{1, 2}}, false},
		{"bars logy", metrics.Series{Kind: metrics.Bars, LogY: true, Labels: []string{"a"}, Y: []float64{0}}, false},
		{"bars logx", metrics.Series{Kind: metrics.Bars, LogX: true, Labels: []string{"a"}, Y: []float64{1}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.s.Name = "x"
			p, err := Chart([]metrics.Series{tc.s})
			if (err == nil) != tc.ok {
				t.Fatalf("err = %v, want ok = %v", err, tc.ok)
			}
			if err == nil {
				renders(t, p)
			}
		})
	}
}

func TestChartBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		group  []metrics.Series
		noData bool
	}{
		{"no series", nil, true},
		{"no values", []metrics.Series{{Name: "x", Kind: metrics.Distribution}}, true},
		{"only NaN", []metrics.Series{{Name: "x", Kind: metrics.Distribution, Values: []float64{math.NaN(), math.Inf(1)}}}, true},
		{"empty curve", []metrics.Series{{Name: "x", Kind: metrics.Curve}}, true},
		{"no labels", []metrics.Series{{Name: "x", Kind: metrics.Bars}}, true},
		{"curve lengths", []metrics.Series{{Name: "x", Kind: metrics.Curve, X: []float64{1, 2}, Y: []float64{1}}}, false},
		{"bars lengths", []metrics.Series{{Name: "x", Kind: metrics.Bars, Labels: []string{"a", "b"}, Y: []float64{1}}}, false},
		{"bar NaN", []metrics.Series{{Name: "x", Kind: metrics.Bars, Labels: []string{"a"}, Y: []float64{math.NaN()}}}, false},
		{"unknown kind", []metrics.Series{{Name: "x", Kind: "pie", Values: []float64{1}}}, false},
		{"no kind", []metrics.Series{{Name: "x", Values: []float64{1}}}, false},
		{"mixed kinds", []metrics.Series{
			{Name: "x", Kind: metrics.Distribution, Values: []float64{1}},
			{Name: "x", Kind: metrics.Curve, X: []float64{1}, Y: []float64{1}}}, false},
		{"mixed names", []metrics.Series{
			{Name: "x", Kind: metrics.Distribution, Values: []float64{1}},
			{Name: "y", Kind: metrics.Distribution, Values: []float64{1}}}, false},
		{"mark axis", []metrics.Series{{Name: "x", Kind: metrics.Distribution, Values: []float64{1},
			Marks: []metrics.Mark{{Label: "m", Value: 1, Axis: "z"}}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Chart(tc.group)
			if err == nil {
				t.Fatalf("no error; plot %q", p.Title.Text)
			}
			if !strings.HasPrefix(err.Error(), "plots: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if got := errors.Is(err, ErrNoData); got != tc.noData {
				t.Errorf("errors.Is(%q, ErrNoData) = %v, want %v", err, got, tc.noData)
			}
		})
	}
}

func TestChartSkipsNonFinite(t *testing.T) {
	s := metrics.Series{Name: "x", Strategy: "hll", Kind: metrics.Distribution,
		Values: []float64{1, 2, 3, math.NaN(), math.Inf(-1)}}
	empty := metrics.Series{Name: "x", Strategy: "exact", Kind: metrics.Distribution}
	c := build(t, s, empty)
	hs := plottersOf[*plotter.Histogram](c)
	if len(hs) != 1 || totalWeight(hs[0]) != 3 {
		t.Fatalf("histograms %v, want one of weight 3", hs)
	}
	want := []string{"hll (2 of 5 not shown: NaN or ±Inf)", "exact (no data)"}
	if !slices.Equal(c.legend, want) {
		t.Errorf("legend %q, want %q", c.legend, want)
	}
	renders(t, c.p)
}

func TestLogRange(t *testing.T) {
	for _, tc := range []struct {
		x, y       []float64
		xmin, xmax float64
		ymin, ymax float64
	}{
		{[]float64{3, 5}, []float64{30, 5000}, 1, 10, 30, 5000}, // X holds no power of 10
		{[]float64{1, 16}, []float64{20, 90}, 1, 16, 10, 100},   // Y holds none
		{[]float64{0.2, 0.3}, []float64{1, 1}, 0.1, 1, 1, 10},
	} {
		s := metrics.Series{Name: "x", Kind: metrics.Curve, LogX: true, LogY: true, X: tc.x, Y: tc.y}
		c := build(t, s)
		if got := [4]float64{c.p.X.Min, c.p.X.Max, c.p.Y.Min, c.p.Y.Max}; got != [4]float64{tc.xmin, tc.xmax, tc.ymin, tc.ymax} {
			t.Errorf("X %v Y %v: ranges %v, want %v", tc.x, tc.y, got, [4]float64{tc.xmin, tc.xmax, tc.ymin, tc.ymax})
		}
		renders(t, c.p)
	}
}

func TestLegendPlace(t *testing.T) {
	long := distribution("count-min", 1)
	long.Values = append(long.Values, math.NaN())
	unnamed := distribution("", 1)
	unnamed.Marks = nil
	for _, tc := range []struct {
		name  string
		group []metrics.Series
		want  string
	}{
		{"short names", []metrics.Series{distribution("count-min", 1)}, legendRight},
		{"long note", []metrics.Series{long}, legendBelow},
		{"no legend", []metrics.Series{unnamed}, legendNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Chart(tc.group)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			c := vgsvg.New(width, height)
			if got, _ := legendPlace(p, draw.New(c)); got != tc.want {
				t.Errorf("legend %s, want %s", got, tc.want)
			}
			layout(p, draw.New(c))
			if _, err := c.WriteTo(&buf); err != nil || !bytes.Contains(buf.Bytes(), []byte("<svg")) {
				t.Errorf("svg: %v", err)
			}
		})
	}
}

func TestBarRanges(t *testing.T) {
	for _, tc := range []struct {
		y        []float64
		min, max float64
	}{
		{[]float64{0, 0}, 0, 1},
		{[]float64{-2, -1}, -2.16, 0.108},
		{[]float64{-1, 2}, -1.08, 2.16},
		{[]float64{1, 1}, 0, 1.08},
	} {
		s := metrics.Series{Name: "x", Kind: metrics.Bars, Labels: []string{"a", "b"}, Y: tc.y}
		c := build(t, s)
		if math.Abs(c.p.Y.Min-tc.min) > 1e-12 || math.Abs(c.p.Y.Max-tc.max) > 1e-12 {
			t.Errorf("bars %v: Y [%v, %v], want [%v, %v]", tc.y, c.p.Y.Min, c.p.Y.Max, tc.min, tc.max)
		}
		renders(t, c.p)
	}
}

func TestMarkOffTheFrame(t *testing.T) {
	s := metrics.Series{Name: "x", Kind: metrics.Distribution, LogX: true, Values: []float64{1, 10, 100},
		Marks: []metrics.Mark{{Label: "bound", Value: 1e4, Axis: "x"}}}
	c := build(t, s)
	if c.p.X.Max <= 1e4 {
		t.Errorf("X max %v: the mark at 10,000 sits on the frame", c.p.X.Max)
	}
	renders(t, c.p)
}
