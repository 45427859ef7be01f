package plots

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

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
	if files[1].Title != "overestimate per key" {
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
	for _, tc := range [][3]string{
		{"cricket-final", "overestimate", "cricket-final-overestimate"},
		{"", "topk_recall", "topk_recall"},
		{"../etc", "x/y", "_._etc-x_y"},
		{"día 1", "v1.2", "d__a_1-v1.2"},
	} {
		if got := fileStem(tc[0], tc[1]); got != tc[2] {
			t.Errorf("fileStem(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
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
