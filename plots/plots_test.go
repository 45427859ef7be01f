package plots

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"countsim/metrics"
)

// report is the series of a small run: two scenarios, three charts.
func report() []metrics.Series {
	curve := metrics.Series{Scenario: "cricket-final", Strategy: "striped", Name: "load_vs_stripes",
		Title: "max load per key vs stripes", Kind: metrics.Curve, XLabel: "stripes", YLabel: "increments/s",
		X: []float64{1, 2, 4, 8, 16}, Y: []float64{80000, 40000, 20000, 10000, 5000}, LogX: true, LogY: true,
		Marks: []metrics.Mark{{Label: "capacity 10,000/s", Value: 10000, Axis: "y"}}}
	return []metrics.Series{
		distribution("count-min", 1),
		recallBars(),
		curve,
		distribution("conservative", 2),
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestDraw(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "plots") // Draw creates it
	files, err := Draw(dir, report())
	if err != nil {
		t.Fatalf("Draw: %v", err)
	}
	wantNames := []string{"cricket-final-load_vs_stripes", "cricket-final-overestimate", "trending-topk_recall"}
	var names []string
	for _, f := range files {
		names = append(names, f.Name)
		want := []string{filepath.Join(dir, f.Name+".svg"), filepath.Join(dir, f.Name+".png")}
		if !slices.Equal(f.Paths, want) {
			t.Errorf("%s: paths %q, want %q", f.Name, f.Paths, want)
		}
		svg, err := os.ReadFile(f.Paths[0])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s holds no <svg", f.Paths[0])
		}
		png, err := os.ReadFile(f.Paths[1])
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s lacks the PNG signature: % x", f.Paths[1], png[:min(8, len(png))])
		}
		for _, p := range f.Paths {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
				t.Errorf("%s: %v, mode %v, want 0644", p, err, fi.Mode())
			}
		}
	}
	if !slices.Equal(names, wantNames) {
		t.Errorf("files %q, want %q (sorted by scenario, name)", names, wantNames)
	}
	if files[1].Title != "cricket-final — overestimate per key" {
		t.Errorf("title %q", files[1].Title)
	}
	if got := listDir(t, dir); len(got) != 2*len(wantNames) {
		t.Errorf("dir holds %q: want exactly the charts, no temporary file", got)
	}
}

func TestDrawRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	if _, err := Draw(dir, report()); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, dir)
	png := filepath.Join(dir, "trending-topk_recall.png")
	old, _ := os.ReadFile(png)

	files, err := Draw(dir, report())
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second Draw: err = %v, want fs.ErrExist", err)
	}
	if files != nil {
		t.Errorf("second Draw returned %v", files)
	}
	if after := listDir(t, dir); !slices.Equal(before, after) {
		t.Errorf("dir changed from %q to %q", before, after)
	}
	// One target present, the others not: still nothing written.
	dir2 := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir2, "trending-topk_recall.png"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Draw(dir2, report()); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("err = %v, want fs.ErrExist", err)
	}
	if got := listDir(t, dir2); len(got) != 1 {
		t.Errorf("dir holds %q, want only the old file", got)
	}
	if now, _ := os.ReadFile(png); !bytes.Equal(now, old) {
		t.Error("the old PNG changed")
	}
}

func TestDrawDeterministic(t *testing.T) {
	rs := report()
	shuffled := []metrics.Series{rs[2], rs[0], rs[1], rs[3]} // same order within each chart
	a, b := t.TempDir(), t.TempDir()
	fa, err := Draw(a, rs)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Draw(b, shuffled)
	if err != nil {
		t.Fatal(err)
	}
	if len(fa) != len(fb) {
		t.Fatalf("%d and %d files", len(fa), len(fb))
	}
	for i := range fa {
		if fa[i].Name != fb[i].Name || fa[i].Title != fb[i].Title {
			t.Errorf("file %d: %+v and %+v", i, fa[i], fb[i])
		}
		for j := range fa[i].Paths {
			x, _ := os.ReadFile(fa[i].Paths[j])
			y, _ := os.ReadFile(fb[i].Paths[j])
			if !bytes.Equal(x, y) {
				t.Errorf("%s differs between runs", filepath.Base(fa[i].Paths[j]))
			}
		}
	}
}

func TestDrawPartial(t *testing.T) {
	dir := t.TempDir()
	bad := metrics.Series{Scenario: "s", Name: "empty", Kind: metrics.Distribution}
	files, err := Draw(dir, []metrics.Series{recallBars(), bad})
	if err == nil || !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), `"s"/"empty"`) {
		t.Errorf("err = %v, want ErrNoData naming the chart", err)
	}
	if len(files) != 1 || files[0].Name != "trending-topk_recall" {
		t.Errorf("files %+v, want the good chart only", files)
	}
}

func TestDrawNames(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []metrics.Series
		want   string // error text, "" for none
	}{
		{"collision", []metrics.Series{
			{Scenario: "a b", Name: "x", Kind: metrics.Bars, Labels: []string{"l"}, Y: []float64{1}},
			{Scenario: "a_b", Name: "x", Kind: metrics.Bars, Labels: []string{"l"}, Y: []float64{1}},
		}, "share the file stem"},
		{"no name", []metrics.Series{{Scenario: "a", Kind: metrics.Bars, Labels: []string{"l"}, Y: []float64{1}}}, "no Name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, err := Draw(dir, tc.series)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
			if got := listDir(t, dir); len(got) != 0 {
				t.Errorf("wrote %q", got)
			}
		})
	}
	if files, err := Draw(t.TempDir(), nil); files != nil || err != nil {
		t.Errorf("Draw(nil) = %v, %v", files, err)
	}
}

func TestFileStem(t *testing.T) {
	for _, tc := range [][4]string{
		{"cricket-final", "", "overestimate", "cricket-final-overestimate"},
		{"cricket-final", "views", "backlog", "cricket-final-views-backlog"},
		{"", "", "topk_recall", "topk_recall"},
		{"../etc", "", "x/y", "_._etc-x_y"},
		{"día 1", "", "v1.2", "d__a_1-v1.2"},
	} {
		if got := fileStem(tc[0], tc[1], tc[2]); got != tc[3] {
			t.Errorf("fileStem(%q, %q, %q) = %q, want %q", tc[0], tc[1], tc[2], got, tc[3])
		}
	}
}

// Two steps of one scenario may draw charts of the same Name (the views
// step and the leaderboard step both draw "backlog"): they are two charts,
// two files named after their step, and each title says its scenario and
// step. Before Series had a Step, they were one chart of both steps'
// designs, or refused when their bars differed.
func TestDrawSteps(t *testing.T) {
	views := metrics.Series{Scenario: "cricket-final", Step: "views", Strategy: "single-key", Name: "topk-recall",
		Title: "recall", Kind: metrics.Bars, Labels: []string{"a", "b"}, Y: []float64{1, 0.5}}
	board := views
	board.Step, board.Labels = "leaderboard", []string{"c", "d", "e"}
	board.Y = []float64{0.2, 1, 1}
	plain := views
	plain.Scenario, plain.Step = "search", ""
	dir := t.TempDir()
	files, err := Draw(dir, []metrics.Series{views, board, plain})
	if err != nil {
		t.Fatalf("Draw: %v", err)
	}
	var got [][3]string
	for _, f := range files {
		got = append(got, [3]string{f.Name, f.Step, f.Title})
	}
	want := [][3]string{
		{"cricket-final-leaderboard-topk-recall", "leaderboard", "cricket-final / leaderboard — recall"},
		{"cricket-final-views-topk-recall", "views", "cricket-final / views — recall"},
		{"search-topk-recall", "", "search — recall"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	if n := len(listDir(t, dir)); n != 6 {
		t.Errorf("%d files written, want 6", n)
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct {
		s    metrics.Series
		want string
	}{
		{metrics.Series{Scenario: "cricket-final", Step: "views", Name: "key-load", Title: "increments a second on the busiest key"},
			"cricket-final / views — increments a second on the busiest key"},
		{metrics.Series{Scenario: "search", Name: "topk-recall", Title: "top-10 recall"}, "search — top-10 recall"},
		{metrics.Series{Scenario: "search", Name: "topk-recall"}, "search — topk-recall"},
		{metrics.Series{Name: "x", Title: "a chart"}, "a chart"},
	} {
		if got := title([]metrics.Series{tc.s}); got != tc.want {
			t.Errorf("title(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

func TestDrawConcurrent(t *testing.T) {
	// Small charts: the race detector makes rasterizing slow.
	series := report()[1:3]
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = Draw(filepath.Join(t.TempDir(), fmt.Sprint(i)), series)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkDraw times one chart written as SVG and PNG: a histogram of
// 100,000 samples for two strategies, and a bar chart.
func BenchmarkDraw(b *testing.B) {
	for _, tc := range []struct {
		name   string
		series []metrics.Series
	}{
		{"hist/n=1e5x2", func() []metrics.Series {
			a, c := distribution("count-min", 1), distribution("conservative", 2)
			a.Values, c.Values = overestimates(1, 100_000, 365), overestimates(2, 100_000, 365)
			return []metrics.Series{a, c}
		}()},
		{"hist/n=1e6", func() []metrics.Series {
			a := distribution("count-min", 1)
			a.Values = overestimates(1, 1_000_000, 365)
			return []metrics.Series{a}
		}()},
		{"bars/4", []metrics.Series{recallBars()}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var svg, png int64
			for b.Loop() {
				b.StopTimer()
				dir := b.TempDir()
				b.StartTimer()
				files, err := Draw(dir, tc.series)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				fs, _ := os.Stat(files[0].Paths[0])
				fp, _ := os.Stat(files[0].Paths[1])
				svg, png = fs.Size(), fp.Size()
				b.StartTimer()
			}
			b.ReportMetric(float64(svg), "svg-bytes")
			b.ReportMetric(float64(png), "png-bytes")
		})
	}
}

// A title wider than the chart is wrapped, first after the " — " that ends
// the scenario and step, then at spaces, and no line is wider than the
// chart; before, it ran off both edges ("3: a few keys take most: …").
func TestWrapTitle(t *testing.T) {
	p, err := Chart([]metrics.Series{recallBars()})
	if err != nil {
		t.Fatal(err)
	}
	sty := p.Title.TextStyle
	long := "topk-memory / s13 — s = 1.3: a few keys take most: topk_count_error_mean against memory, every design swept over its size"
	w := width - vg.Points(20)
	got := wrap(long, sty, w)
	lines := strings.Split(got, "\n")
	if len(lines) < 2 || lines[0] != "topk-memory / s13 —" {
		t.Errorf("wrapped into %q, want the scenario and step on a line of their own first", lines)
	}
	if strings.Join(strings.Fields(got), " ") != long {
		t.Errorf("wrapping changed the words: %q", got)
	}
	for _, l := range lines {
		if sty.Width(l) > w {
			t.Errorf("line %q is %v wide, more than %v", l, sty.Width(l), w)
		}
	}
	if short := "search — top-10 recall"; wrap(short, sty, w) != short {
		t.Errorf("a short title was wrapped: %q", wrap(short, sty, w))
	}
}

// A chart with nothing to compare is not drawn: three bars of recall 1 (the
// search's top-10 recall bars), a backlog of 0 throughout (node-topk);
// Draw names it among the skipped ones and writes the rest.
func TestNothingToShow(t *testing.T) {
	ones := metrics.Series{Scenario: "search", Name: "topk-recall", Kind: metrics.Bars,
		Labels: []string{"exact", "count-min", "space-saving"}, Y: []float64{1, 1, 1}}
	zeros := metrics.Series{Scenario: "node-topk", Strategy: "node-local", Name: "backlog", Kind: metrics.Curve, LogY: true,
		X: []float64{1, 2, 3}, Y: []float64{0, 0, 0}}
	other := zeros
	other.Strategy = "node-local-k-top-10"
	dir := t.TempDir()
	files, err := Draw(dir, []metrics.Series{ones, zeros, other, recallBars()})
	if !errors.Is(err, ErrNoData) || !strings.Contains(err.Error(), `"search"/"topk-recall": no data to draw: every bar or point is 1, nothing to compare`) ||
		!strings.Contains(err.Error(), `"node-topk"/"backlog": no data to draw: every bar or point is 0`) {
		t.Errorf("err = %v, want both charts refused as showing nothing", err)
	}
	if len(files) != 1 || files[0].Name != "trending-topk_recall" {
		t.Errorf("files %+v, want the recall bars that differ only", files)
	}
	// One bar off the others: drawn.
	ones.Y = []float64{1, 1, 0.9}
	if _, err := Chart([]metrics.Series{ones}); err != nil {
		t.Errorf("bars 1, 1, 0.9: %v", err)
	}
	// Panels, every one flat: refused too.
	flat := accuracy()
	for i := range flat {
		flat[i].Y = make([]float64, len(flat[i].X))
	}
	if _, err := newFigure(flat); !errors.Is(err, ErrNoData) {
		t.Errorf("flat panels: err = %v, want ErrNoData", err)
	}
}

// TestDrawAnyProcs: Draw draws on every core, and what it writes and
// returns does not depend on how many: the same files, byte for byte, in
// the same order, on one core and on four.
func TestDrawAnyProcs(t *testing.T) {
	rs := report()
	draw := func(procs int) ([]File, string) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		dir := t.TempDir()
		fs, err := Draw(dir, rs)
		if err != nil {
			t.Fatal(err)
		}
		return fs, dir
	}
	one, dirOne := draw(1)
	four, dirFour := draw(4)
	if len(one) != len(four) || len(one) < 2 {
		t.Fatalf("%d and %d files", len(one), len(four))
	}
	for i := range one {
		if one[i].Name != four[i].Name {
			t.Errorf("file %d: %s on one core, %s on four", i, one[i].Name, four[i].Name)
		}
		for _, p := range one[i].Paths {
			x, _ := os.ReadFile(p)
			y, _ := os.ReadFile(filepath.Join(dirFour, strings.TrimPrefix(p, dirOne)))
			if len(x) == 0 || !bytes.Equal(x, y) {
				t.Errorf("%s differs between one core and four", filepath.Base(p))
			}
		}
	}
}

// TestNaturalOrder: charts sort as a person reads a sweep, a number by
// its value: width-300 before width-1000 before width-10000.
func TestNaturalOrder(t *testing.T) {
	names := []string{"w-10000", "w-300", "w-1000", "a", "w-30", "w-030x", "b-2", "b-10", "b"}
	slices.SortFunc(names, natural)
	want := []string{"a", "b", "b-2", "b-10", "w-30", "w-030x", "w-300", "w-1000", "w-10000"}
	if !slices.Equal(names, want) {
		t.Errorf("sorted %q, want %q", names, want)
	}
	var series []metrics.Series
	for _, w := range []string{"10000", "300", "1000"} {
		series = append(series, metrics.Series{Scenario: "s", Strategy: "a", Name: "over-width-" + w, Kind: metrics.Curve, X: []float64{1, 2}, Y: []float64{1, 2}})
	}
	var got []string
	for _, g := range groups(series) {
		got = append(got, g.name)
	}
	if want := []string{"over-width-300", "over-width-1000", "over-width-10000"}; !slices.Equal(got, want) {
		t.Errorf("charts in the order %q, want %q", got, want)
	}
}

// TestEncodePNG: encodePNG writes a PNG that image/png reads back to the
// same pixels (a chart's, drawn on white, with its anti-aliased edges).
func TestEncodePNG(t *testing.T) {
	f, err := newFigure([]metrics.Series{recallBars()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := render(f, "png", &b); err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	c := vgimg.NewWith(vgimg.UseWH(f.size()), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	f.draw(draw.New(c))
	want := c.Image()
	if got.Bounds() != want.Bounds() || got.Bounds().Dx() != 768 {
		t.Fatalf("bounds %v, want %v (768 wide)", got.Bounds(), want.Bounds())
	}
	colours := map[color.RGBA]bool{}
	for y := range want.Bounds().Dy() {
		for x := range want.Bounds().Dx() {
			r, g, bl, _ := want.At(x, y).RGBA()
			r2, g2, b2, a2 := got.At(x, y).RGBA()
			if r != r2 || g != g2 || bl != b2 || a2 != 0xffff {
				t.Fatalf("pixel (%d, %d): %v, want %v", x, y, got.At(x, y), want.At(x, y))
			}
			colours[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}] = true
		}
	}
	if len(colours) < 10 {
		t.Errorf("%d colours: the chart drawn is not a chart", len(colours))
	}
}
