package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
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
	b.X = []float64{1e3, 1e4, 1e5, -1}
	c := build(t, a, b)
	lines := plottersOf[*plotter.Line](c)
	if len(lines) != 2 || len(lines[0].XYs) != 4 || len(lines[1].XYs) != 3 {
		t.Fatalf("lines %v, want 2 lines of 4 and 3 points (zeros kept, X −1 dropped on the log axis)", lines)
	}
	want := []string{
		"count-min",
		"conservative (1 of 4 not shown: NaN, ±Inf or < 0 on a log axis)",
		"budget 64 KiB",
	}
	if !slices.Equal(c.legend, want) {
		t.Errorf("legend %q, want %q", c.legend, want)
	}
	if _, ok := c.p.X.Scale.(plot.LogScale); !ok {
		t.Errorf("X scale %T, want plot.LogScale", c.p.X.Scale)
	}
	if _, ok := c.p.Y.Scale.(zeroLogScale); !ok {
		t.Errorf("Y scale %T, want zeroLogScale: the zeros need their slot", c.p.Y.Scale)
	}
	// The log range is the span of the values > 0; both ranges hold two
	// powers of 10, so they are left as they are.
	if c.p.X.Min != 1e3 || c.p.X.Max != 1e6 || c.p.Y.Min != 9 || c.p.Y.Max != 900 {
		t.Errorf("range X [%v, %v] Y [%v, %v], want X [1e3, 1e6], Y [9, 900]",
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
		{"hist logx only zeros", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: bad}, true},
		{"hist logx nothing left", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: bad[1:]}, false},
		{"hist logy", metrics.Series{Kind: metrics.Distribution, LogY: true, Values: append(overestimates(1, 1000, 50), bad...)}, true},
		{"hist logx logy one value", metrics.Series{Kind: metrics.Distribution, LogX: true, LogY: true, Values: []float64{5}}, true},
		{"hist logx ones", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1, 1, 0}}, true},
		{"hist logx one real", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1e-3}}, true},
		{"hist logx mark 0", metrics.Series{Kind: metrics.Distribution, LogX: true, Values: []float64{1, 2},
			Marks: []metrics.Mark{{Label: "zero", Value: 0, Axis: "x"}, {Label: "nan", Value: math.NaN(), Axis: "y"}}}, true},
		{"curve logy zeros", metrics.Series{Kind: metrics.Curve, LogY: true, X: []float64{0, 1, 2, 3}, Y: []float64{0, 0, 1, 2}}, true},
		{"curve logx one point", metrics.Series{Kind: metrics.Curve, LogX: true, X: []float64{0, 1}, Y: []float64{5, 0}}, true},
		{"curve logx only zero", metrics.Series{Kind: metrics.Curve, LogX: true, X: []float64{0, -1}, Y: []float64{1, 2}}, true},
		{"curve logx nothing left", metrics.Series{Kind: metrics.Curve, LogX: true, X: []float64{-2, -1}, Y: []float64{1, 2}}, false},
		{"curve logy zero and one", metrics.Series{Kind: metrics.Curve, LogY: true, X: []float64{1, 2}, Y: []float64{0, 1}}, true},
		{"curve logy all zero", metrics.Series{Kind: metrics.Curve, LogY: true, X: []float64{1, 2}, Y: []float64{0, 0}}, false},
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
		{[]float64{0.2, 0.3}, []float64{1, 2}, 0.1, 1, 1, 10},
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
		{[]float64{-2, -1}, -2.16, 0.108},
		{[]float64{-1, 2}, -1.08, 2.16},
		{[]float64{1, 0.5}, 0, 1.08},
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

// backlog is the "backlog" chart of a timed run: one design whose queue
// grows 190,000 a second, one whose queue never holds an op, one holding a
// few ops now and then.
func backlog() []metrics.Series {
	secs := seq(1, 60, 60)
	grow, none, few := make([]float64, 60), make([]float64, 60), make([]float64, 60)
	for i := range secs {
		grow[i] = 190_000 * secs[i]
		few[i] = float64(i % 4 * 3) // 0, 3, 6, 9, 0, …
	}
	s := func(name string, y []float64) metrics.Series {
		return metrics.Series{Scenario: "cricket-final", Step: "views", Strategy: name, Name: "backlog", Kind: metrics.Curve,
			Title: "ops queued on the cluster", XLabel: "simulated second", YLabel: "ops queued", LogY: true, X: secs, Y: y}
	}
	return []metrics.Series{s("single-key", grow), s("batched-1s", none), s("striped-32", few)}
}

// On the backlog chart a design whose backlog is 0 throughout has its line,
// in the slot for zeros under the log range, apart from the axis's frame
// and from the smallest backlog; a backlog of 3 stands clear of 0 beside
// one of 11 million. On the linear axis the backlog had before, both sat
// on 0, 3 at 0.0000003 of the height.
func TestBacklogZeros(t *testing.T) {
	c := build(t, backlog()...)
	if _, ok := c.p.Y.Scale.(zeroLogScale); !ok {
		t.Fatalf("Y scale %T, want zeroLogScale", c.p.Y.Scale)
	}
	lines := plottersOf[*plotter.Line](c)
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want one a design", len(lines))
	}
	for _, xy := range lines[1].XYs {
		if xy.Y != 0 {
			t.Fatalf("batched-1s drawn at %v, want 0", xy.Y)
		}
	}
	if len(lines[1].XYs) != 60 {
		t.Errorf("batched-1s: %d of 60 points drawn", len(lines[1].XYs))
	}
	zero, three, least := c.p.Y.Norm(0), c.p.Y.Norm(3), c.p.Y.Norm(190_000)
	if zero <= 0.01 || zero >= slotEnd {
		t.Errorf("0 at %v of the height, want inside the slot (0, %v), off the frame", zero, slotEnd)
	}
	if three-zero < 0.05 {
		t.Errorf("0 at %v and 3 at %v of the height: not apart", zero, three)
	}
	if least <= three {
		t.Errorf("190,000 at %v, under 3 at %v", least, three)
	}
	ticks := c.p.Y.Tick.Marker.Ticks(c.p.Y.Min, c.p.Y.Max)
	if ticks[0].Value != 0 || ticks[0].Label != "0" {
		t.Errorf("first Y tick %+v, want 0 labelled \"0\"", ticks[0])
	}
	if len(plottersOf[slotBreak](c)) != 1 {
		t.Error("no break drawn between the slot and the log range")
	}
	if !slices.Equal(c.legend, []string{"single-key", "batched-1s", "striped-32"}) {
		t.Errorf("legend %q: no design may lose points", c.legend)
	}
	renders(t, c.p)
}

// staleness is the "staleness" chart: the age of what readers were shown,
// on a log axis.
func staleness(strategy string, ages []float64) metrics.Series {
	return metrics.Series{Scenario: "likes", Strategy: strategy, Name: "staleness", Kind: metrics.Distribution,
		Title: "age of the count a reader was shown", XLabel: "seconds (log)", YLabel: "reads", LogX: true,
		ZeroLabel: "0 (fresh)", Values: ages}
}

// Reads of age 0 are a bar of their own, "0 (fresh)", beside the log bins
// of the rest; a design whose every read is fresh is that bar alone. Before,
// LogX dropped them: striped-100 showed 279 of its 30,062 reads.
func TestStalenessZeros(t *testing.T) {
	fresh := staleness("striped-100", make([]float64, 1000))
	mixed := staleness("batched", append(make([]float64, 300), seq(0.001, 1, 700)...))
	c := build(t, fresh, mixed)
	bars := plottersOf[zeroBar](c)
	if len(bars) != 2 || bars[0].weight != 1000 || bars[1].weight != 300 {
		t.Fatalf("zero bars %+v, want 1,000 fresh reads of striped-100 and 300 of batched", bars)
	}
	hs := plottersOf[*plotter.Histogram](c)
	if len(hs) != 1 || totalWeight(hs[0]) != 700 {
		t.Fatalf("histograms %v, want one, of batched's 700 reads older than 0", hs)
	}
	if !slices.Equal(c.legend, []string{"striped-100", "batched"}) {
		t.Errorf("legend %q", c.legend)
	}
	ticks := c.p.X.Tick.Marker.Ticks(c.p.X.Min, c.p.X.Max)
	if ticks[0].Value != 0 || ticks[0].Label != "0 (fresh)" {
		t.Errorf("first X tick %+v, want 0 labelled \"0 (fresh)\"", ticks[0])
	}
	if c.p.Y.Max < 1000 {
		t.Errorf("Y max %v: the bar of 1,000 fresh reads is cut", c.p.Y.Max)
	}
	renders(t, c.p)

	// Every read fresh: one bar, the whole axis its slot.
	c = build(t, fresh)
	if bars := plottersOf[zeroBar](c); len(bars) != 1 || bars[0].weight != 1000 {
		t.Fatalf("zero bars %+v, want one of 1,000 reads", bars)
	}
	if s, ok := c.p.X.Scale.(zeroLogScale); !ok || !s.only {
		t.Errorf("X scale %#v, want the slot alone", c.p.X.Scale)
	}
	if ticks := c.p.X.Tick.Marker.Ticks(c.p.X.Min, c.p.X.Max); len(ticks) != 1 || ticks[0].Label != "0 (fresh)" {
		t.Errorf("X ticks %+v, want \"0 (fresh)\" alone", ticks)
	}
	renders(t, c.p)
}

// A linear value axis holds 0: a curve's Y (the backlog of 7.5 to 30 ops
// of practice-stripes had its axis start at 7.5, so 10 ops looked like a
// surge) and a histogram's X (an overestimate of 5,000 to 7,000 a key read
// against 0, not against 5,000). Negative values keep 0 in sight above them.
func TestLinearAxesHoldZero(t *testing.T) {
	up := metrics.Series{Name: "backlog", Kind: metrics.Curve, X: []float64{1, 2, 3}, Y: []float64{7.5, 30, 12}}
	if c := build(t, up); c.p.Y.Min != 0 || c.p.Y.Max < 30 {
		t.Errorf("Y [%v, %v], want [0, ≥ 30]", c.p.Y.Min, c.p.Y.Max)
	}
	down := up
	down.Y = []float64{-200, -50, -40}
	if c := build(t, down); c.p.Y.Max != 0 || c.p.Y.Min > -200 {
		t.Errorf("Y [%v, %v], want [≤ −200, 0]", c.p.Y.Min, c.p.Y.Max)
	}
	h := metrics.Series{Name: "overestimate", Kind: metrics.Distribution, Values: seq(5000, 7000, 500)}
	if c := build(t, h); c.p.X.Min != 0 {
		t.Errorf("X min %v, want 0", c.p.X.Min)
	}
	// The X of a curve is a time or a swept value: left as it is.
	if c := build(t, up); c.p.X.Min != 1 {
		t.Errorf("curve X min %v, want 1", c.p.X.Min)
	}
}

// Marks every series carries are grey, however many each carries: the
// key-load chart's limit and planned load. Before, a series' marks after
// the first one already seen were skipped, so the second mark was the
// first series' alone and took its colour (red, as if it were that
// design's).
func TestSharedMarksAreGrey(t *testing.T) {
	marks := []metrics.Mark{{Label: "key limit 8,000/s", Value: 8000, Axis: "y"}, {Label: "planned, 70% of it: 5,600/s", Value: 5600, Axis: "y"}}
	a := metrics.Series{Name: "key-load", Strategy: "striped-22", Kind: metrics.Curve, LogY: true, X: []float64{0, 1}, Y: []float64{5400, 5500}, Marks: marks}
	b := a
	b.Strategy, b.Y = "striped-32", []float64{3700, 3800}
	c := build(t, a, b)
	ms := plottersOf[markLine](c)
	if len(ms) != 2 {
		t.Fatalf("%d mark lines, want 2", len(ms))
	}
	for _, m := range ms {
		if m.style.Color != (color.Gray{Y: 50}) {
			t.Errorf("mark at %v coloured %v, want grey: both designs carry it", m.value, m.style.Color)
		}
	}
}

// accuracy is the accuracy profile's chart: a panel a design, its error
// quantiles in σ, each with the theory's ±1σ.
func accuracy() []metrics.Series {
	var out []metrics.Series
	for p, spread := range map[int]float64{10: 1.2, 16: 0.9} {
		for _, q := range []struct {
			label string
			k     float64
		}{{"−1σ", -1}, {"median", 0}, {"+1σ", 1}} {
			x, y := []float64{1, 10, 100, 1000, 1e4, 1e5, 1e6}, make([]float64, 7)
			for i := range y {
				y[i] = q.k * spread * float64(i) / 6
			}
			out = append(out, metrics.Series{Scenario: "hll-accuracy", Name: "accuracy", Panel: fmt.Sprintf("hll-p%d", p),
				Strategy: q.label, Kind: metrics.Curve, XLabel: "distinct ids (log)", YLabel: "relative error ÷ (1.04/√m)", LogX: true,
				X: x, Y: y, Marks: []metrics.Mark{{Label: "theory ±1σ", Value: 1, Axis: "y"}, {Label: "theory ±1σ", Value: -1, Axis: "y"}}})
		}
	}
	slices.SortStableFunc(out, func(a, b metrics.Series) int { return strings.Compare(a.Panel, b.Panel) })
	return out
}

// Series of one chart in two Panels are one figure of two panels, on the
// same ranges of both axes (p = 16's quantiles, within ±0.9σ, drawn on
// p = 10's ±1.2σ), under one title, with one legend that names each curve
// and each mark once, and the axes' labels once; each panel is titled with
// its Panel. Before, the profile drew a chart a design, on ranges of its own.
func TestPanels(t *testing.T) {
	group := accuracy()
	f, err := newFigure(group)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.panels) != 2 || f.rows != 1 || f.cols != 2 {
		t.Fatalf("%d panels in %d×%d, want 2 in 1×2", len(f.panels), f.rows, f.cols)
	}
	a, b := f.panels[0].p, f.panels[1].p
	if a.X.Min != b.X.Min || a.X.Max != b.X.Max || a.Y.Min != b.Y.Min || a.Y.Max != b.Y.Max {
		t.Errorf("ranges X [%v, %v] and [%v, %v], Y [%v, %v] and [%v, %v]: want the same",
			a.X.Min, a.X.Max, b.X.Min, b.X.Max, a.Y.Min, a.Y.Max, b.Y.Min, b.Y.Max)
	}
	if a.Y.Min > -1.2 || a.Y.Max < 1.2 {
		t.Errorf("Y [%v, %v], want ±1.2 inside", a.Y.Min, a.Y.Max)
	}
	if a.Title.Text != "hll-p10" || b.Title.Text != "hll-p16" {
		t.Errorf("panel titles %q, %q", a.Title.Text, b.Title.Text)
	}
	if f.title != "hll-accuracy — accuracy" || f.xLabel != "distinct ids (log)" || f.yLabel != "relative error ÷ (1.04/√m)" {
		t.Errorf("title %q, labels %q, %q", f.title, f.xLabel, f.yLabel)
	}
	if a.X.Label.Text != "" || a.Y.Label.Text != "" {
		t.Errorf("a panel labels its axes (%q, %q): the figure says them once", a.X.Label.Text, a.Y.Label.Text)
	}
	// One legend entry a curve and one for the two lines of ±1σ.
	if n := len(f.panels[0].legend); n != 4 {
		t.Errorf("panel legend %q, want 3 curves and the mark once", f.panels[0].legend)
	}
	for _, ext := range formats {
		var buf bytes.Buffer
		if err := render(f, ext, &buf); err != nil || buf.Len() == 0 {
			t.Errorf("render %s: %v, %d bytes", ext, err, buf.Len())
		}
	}
	if _, err := Chart(group); err == nil {
		t.Error("Chart of a group of two panels: no error")
	}
	files, err := Draw(t.TempDir(), group)
	if err != nil || len(files) != 1 || files[0].Name != "hll-accuracy-accuracy" {
		t.Errorf("Draw: %+v, %v; want one file", files, err)
	}
}

// niceTicks labels 4 to 6 multiples of 1, 2 or 5 × 10^k.
func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     []float64
	}{
		{0, 30, []float64{0, 10, 20, 30}},
		{0, 840, []float64{0, 200, 400, 600, 800}},
		{-14.7, 3.3, []float64{-14, -12, -10, -8, -6, -4, -2, 0, 2}},
		{0, 1.08, []float64{0, 0.2, 0.4, 0.6, 0.8, 1}},
		{0, 11_400_000, []float64{0, 2e6, 4e6, 6e6, 8e6, 10e6}},
	} {
		var got []float64
		for _, tk := range (niceTicks{}).Ticks(tc.min, tc.max) {
			if tk.Label != "" {
				got = append(got, tk.Value)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("[%v, %v]: labelled %v, want %v", tc.min, tc.max, got, tc.want)
		}
	}
}

// A series drawn exactly over another would hide it (hash-tags' striped-32
// and striped-32-tagged queue the same ops; a trending design's score is its
// exact law's): series of the same points are one line, and one histogram
// for the same counts, named "a = b" in the legend.
func TestIdenticalSeriesMerged(t *testing.T) {
	a := metrics.Series{Name: "backlog", Strategy: "striped-32", Kind: metrics.Curve, LogY: true,
		X: []float64{1, 2, 3}, Y: []float64{8, 0, 11}}
	b, d := a, a
	b.Strategy = "striped-32-tagged"
	d.Strategy, d.Y = "single-key", []float64{8, 1, 11}
	c := build(t, a, d, b)
	if n := len(plottersOf[*plotter.Line](c)); n != 2 {
		t.Errorf("%d lines, want 2", n)
	}
	if want := []string{"striped-32 = striped-32-tagged", "single-key"}; !slices.Equal(c.legend, want) {
		t.Errorf("legend %q, want %q", c.legend, want)
	}
	renders(t, c.p)

	h1, h2 := staleness("striped-32", seq(0, 1, 50)), staleness("striped-32-tagged", seq(0, 1, 50))
	c = build(t, h1, h2)
	if hs := plottersOf[*plotter.Histogram](c); len(hs) != 1 {
		t.Errorf("%d histograms, want 1", len(hs))
	}
	if bars := plottersOf[zeroBar](c); len(bars) != 1 {
		t.Errorf("%d bars of zeros, want 1", len(bars))
	}
	if want := []string{"striped-32 = striped-32-tagged"}; !slices.Equal(c.legend, want) {
		t.Errorf("legend %q, want %q", c.legend, want)
	}
	renders(t, c.p)
}

// Each bar is labelled with its value, so a bar of 0 (ratings' Bayesian
// and Wilson top 10 hold no item rated fewer than 5 times) reads 0 and
// does not look missing; where the labels would be wider than the bars
// they are left to the tables.
func TestBarValues(t *testing.T) {
	s := metrics.Series{Scenario: "ratings", Name: "top-thin", Kind: metrics.Bars,
		Labels: []string{"naive", "bayesian", "wilson"}, Y: []float64{1, 0, 0.98}}
	c := build(t, s)
	vs := plottersOf[*barValues](c)
	if len(vs) != 1 || !slices.Equal(vs[0].labels, []string{"1", "0", "0.98"}) {
		t.Fatalf("bar values %+v, want 1, 0, 0.98", vs)
	}
	renders(t, c.p)
	many := metrics.Series{Name: "x", Kind: metrics.Bars}
	for i := range 40 {
		many.Labels = append(many.Labels, fmt.Sprint(i))
		many.Y = append(many.Y, 123456.7+float64(i))
	}
	if vs := plottersOf[*barValues](build(t, many)); len(vs) != 0 {
		t.Errorf("40 bars of 123,456.7: labelled, want the values left to the tables")
	}
}

// A curve's log Y axis with values below 0 is a symmetric log axis
// (log10(1 + |y|) each side of 0): a signed error of −2,000 beside
// +65,000 stands apart from 0, where a linear axis put it at 3% of the
// height and a log axis dropped it.
func TestSymmetricLog(t *testing.T) {
	ss := metrics.Series{Name: "sweeps-topk_count_error_mean", Strategy: "space-saving", Kind: metrics.Curve, LogX: true, LogY: true,
		X: []float64{1e3, 1e4, 1e5}, Y: []float64{65000, 19000, 0}}
	mg := ss
	mg.Strategy, mg.Y = "misra-gries", []float64{-20, -2000, -600}
	c := build(t, ss, mg)
	if _, ok := c.p.Y.Scale.(symLogScale); !ok {
		t.Fatalf("Y scale %T, want symLogScale", c.p.Y.Scale)
	}
	if lines := plottersOf[*plotter.Line](c); len(lines) != 2 || len(lines[1].XYs) != 3 {
		t.Fatalf("lines %v: want misra-gries' 3 points, negatives kept", lines)
	}
	zero, low := c.p.Y.Norm(0), c.p.Y.Norm(-2000)
	if zero-low < 0.2 {
		t.Errorf("0 at %v and −2,000 at %v of the height: too close", zero, low)
	}
	var labels []string
	for _, tk := range c.p.Y.Tick.Marker.Ticks(c.p.Y.Min, c.p.Y.Max) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if want := []string{"0", "-1", "1", "-10", "10", "-100", "100", "-1,000", "1,000", "10,000"}; !slices.Equal(labels, want) {
		t.Errorf("Y labels %q, want %q", labels, want)
	}
	renders(t, c.p)
}

// TestGeometricSweepOnLogAxis: a curve over a geometric sweep (30 … 3,000,
// listed out of order) is drawn on a log X axis, labelled so, its points
// in the order of X; a time series of seconds stays linear.
func TestGeometricSweepOnLogAxis(t *testing.T) {
	s := metrics.Series{Scenario: "s", Strategy: "space-saving", Name: "recall-by-counters", Kind: metrics.Curve,
		XLabel: "counters", YLabel: "recall", X: []float64{30, 100, 1000, 300, 3000}, Y: []float64{0.1, 0.2, 1, 0.5, 1}}
	c := build(t, s)
	if _, ok := c.p.X.Scale.(plot.LogScale); !ok || c.p.X.Label.Text != "counters (log)" {
		t.Errorf("X scale %T labelled %q, want a log scale labelled \"counters (log)\"", c.p.X.Scale, c.p.X.Label.Text)
	}
	line := plottersOf[*plotter.Line](c)[0]
	for i := 1; i < len(line.XYs); i++ {
		if line.XYs[i].X < line.XYs[i-1].X {
			t.Fatalf("points %v not in the order of X", line.XYs)
		}
	}
	secs := metrics.Series{Scenario: "s", Strategy: "a", Name: "load", Kind: metrics.Curve, XLabel: "second", YLabel: "ops",
		X: seq(1, 60, 60), Y: seq(5, 64, 60)}
	if c := build(t, secs); c.logX || c.p.X.Label.Text != "second" {
		t.Errorf("a time series on a log axis (%v), labelled %q", c.logX, c.p.X.Label.Text)
	}
	for _, xs := range [][]float64{{1, 2, 4, 8, 16, 32}, {100, 300, 1000}} {
		if !geometric([]metrics.Series{{X: xs}}) {
			t.Errorf("%v is not taken for a geometric sweep", xs)
		}
	}
	for _, xs := range [][]float64{{0, 10, 100, 1000}, {1, 2, 2.5, 100}, {10, 30, 60}} {
		if geometric([]metrics.Series{{X: xs}}) {
			t.Errorf("%v is taken for a geometric sweep", xs)
		}
	}
}
