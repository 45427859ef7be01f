package plots

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"countsim/metrics"
)

// Size of every chart: 8 × 5 inches, 768 × 480 pixels in the PNG (96 dpi).
const (
	width  = 8 * vg.Inch
	height = 5 * vg.Inch
)

// formats are the file formats Draw writes for every chart, in order.
var formats = [...]string{"svg", "png"}

// File is one chart written: its stem and the paths written.
type File struct {
	Scenario string   // the series' Scenario
	Step     string   // the series' Step, "" outside steps
	Chart    string   // the series' Name
	Name     string   // file stem, "<scenario>-<step>-<name>" ("<scenario>-<name>" outside steps)
	Paths    []string // DIR/<stem>.svg, DIR/<stem>.png
	Title    string   // the chart's title on one line, scenario and step first
}

// group is the series of one chart.
type group struct {
	scenario, step, name string
	series               []metrics.Series
}

// id names the group in errors: "scenario"/"name", or
// "scenario"/"step"/"name" in a scenario told in steps.
func (g group) id() string { return chartID(g.scenario, g.step, g.name) }

func chartID(scenario, step, name string) string {
	if step == "" {
		return fmt.Sprintf("%q/%q", scenario, name)
	}
	return fmt.Sprintf("%q/%q/%q", scenario, step, name)
}

// groups splits series by (Scenario, Step, Name), keeping the order of the
// series within a group, and sorts the groups by scenario, step, then name.
func groups(series []metrics.Series) []group {
	type key struct{ scenario, step, name string }
	index := map[key]int{}
	var gs []group
	for _, s := range series {
		k := key{s.Scenario, s.Step, s.Name}
		i, ok := index[k]
		if !ok {
			i = len(gs)
			index[k] = i
			gs = append(gs, group{scenario: s.Scenario, step: s.Step, name: s.Name})
		}
		gs[i].series = append(gs[i].series, s)
	}
	slices.SortFunc(gs, func(a, b group) int {
		return cmp.Or(natural(a.scenario, b.scenario), natural(a.step, b.step), natural(a.name, b.name))
	})
	return gs
}

// natural compares two names as a person sorts them: a run of digits by
// its number, so that width-300 comes before width-1000.
func natural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := cmp.Or(cmp.Compare(len(na), len(nb)), strings.Compare(na, nb)); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// digits is the length of the run of ASCII digits s starts with.
func digits(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// fileStem returns the file stem of the chart of (scenario, step, name):
// "<scenario>-<step>-<name>", the empty parts left out, with every
// character outside [A-Za-z0-9._-] replaced by '_' and no leading dot. It
// depends on these three alone, so a chart keeps its file name from run to
// run, whatever else the run draws.
func fileStem(scenario, step, name string) string {
	var parts []string
	for _, p := range []string{scenario, step, name} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	s := strings.Join(parts, "-")
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' && i > 0
		if !ok {
			b[i] = '_'
		}
	}
	return string(b)
}

// Draw groups the series by (Scenario, Step, Name), draws one chart per
// group (one line, histogram or bar set per Strategy, in the order the series
// come), and writes DIR/<scenario>-<step>-<name>.svg and .png
// (DIR/<scenario>-<name>.* outside steps). It returns the files sorted by
// scenario, step, then name.
//
// Draw creates dir if needed. Before it draws anything it refuses, writing
// nothing, a series without a Name, two groups whose stems collide, and any
// target that already exists (the error wraps fs.ErrExist). A group that
// cannot be charted (no drawable data, mixed kinds…) is skipped: Draw writes
// the others and returns them with the joined errors of the skipped ones.
// Each file is written with [metrics.WriteFile]: a reader never sees half a
// file, and an existing file is never replaced.
//
// Charts are 8 × 5 inches (the PNG 768 × 480 pixels). Draw puts the legend
// outside the data, right of it or, when an entry is long, under it; the
// SVG names the Liberation fonts, with Arial (same metrics) as fallback.
func Draw(dir string, series []metrics.Series) ([]File, error) {
	gs := groups(series)
	if len(gs) == 0 {
		return nil, nil
	}
	stems := map[string]group{}
	for _, g := range gs {
		if g.name == "" {
			return nil, fmt.Errorf("plots: scenario %q: a series has no Name", g.scenario)
		}
		stem := fileStem(g.scenario, g.step, g.name)
		if o, ok := stems[stem]; ok {
			return nil, fmt.Errorf("plots: charts %s and %s share the file stem %q", o.id(), g.id(), stem)
		}
		stems[stem] = g
		for _, ext := range formats {
			path := filepath.Join(dir, stem+"."+ext)
			if _, err := os.Lstat(path); err == nil {
				return nil, fmt.Errorf("plots: %s: %w", path, fs.ErrExist)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("plots: %w", err)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}

	// Draw the charts on every core, each into its own slot: the files and
	// the errors come in the groups' order whatever the scheduling.
	type drawn struct {
		file File
		errs []error
	}
	out := make([]drawn, len(gs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(gs)) {
		wg.Go(func() {
			for i := range next {
				out[i].file, out[i].errs = drawGroup(dir, gs[i])
			}
		})
	}
	for i := range gs {
		next <- i
	}
	close(next)
	wg.Wait()
	var files []File
	var errs []error
	for _, d := range out {
		errs = append(errs, d.errs...)
		if len(d.file.Paths) > 0 {
			files = append(files, d.file)
		}
	}
	return files, errors.Join(errs...)
}

// drawGroup draws the chart of g into dir, in every format.
func drawGroup(dir string, g group) (File, []error) {
	stem := fileStem(g.scenario, g.step, g.name)
	fig, err := newFigure(g.series)
	if err != nil {
		return File{}, []error{err}
	}
	var errs []error
	f := File{Scenario: g.scenario, Step: g.step, Chart: g.name, Name: stem, Title: fig.title}
	for _, ext := range formats {
		path := filepath.Join(dir, stem+"."+ext)
		err := metrics.WriteFile(path, func(w io.Writer) error { return render(fig, ext, w) })
		if err != nil {
			errs = append(errs, fmt.Errorf("plots: %w", err))
			continue
		}
		f.Paths = append(f.Paths, path)
	}
	return f, errs
}

// render draws f into w. gonum/plot reports some bad data by panicking;
// Chart guards against every case we know, and render turns any other into
// an error rather than crash a run at its last step.
func render(f *figure, format string, w io.Writer) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing %s: %v", format, r)
		}
	}()
	fw, fh := f.size()
	if format == "png" {
		// Drawn at 96 dpi on white and encoded fast (encodePNG): a
		// chart's PNG is for pasting elsewhere, and image/png's encoding
		// took as long as drawing every chart.
		c := vgimg.NewWith(vgimg.UseWH(fw, fh), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
		f.draw(draw.New(c))
		img, ok := c.Image().(*image.RGBA)
		if !ok {
			return fmt.Errorf("drawing png: an image of %T", c.Image())
		}
		return encodePNG(w, img)
	}
	c, err := draw.NewFormattedCanvas(fw, fh, format)
	if err != nil {
		return err
	}
	f.draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err = w.Write(svgFallback(buf.Bytes()))
	return err
}

// Font is the TrueType font the charts' text is laid out in (Liberation
// Sans, embedded in gonum/plot), for a page that shows the SVGs to embed:
// an SVG names the font and does not hold it.
func Font() []byte { return liberationsansregular.TTF }

// svgFallback names fallbacks after the Liberation fonts in an SVG, which
// does not embed them: Liberation Sans has the metrics of Arial, so text
// laid out for one fits the other.
func svgFallback(svg []byte) []byte {
	return bytes.ReplaceAll(svg, []byte("font-family:Liberation Sans;"),
		[]byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

// Where layout puts the legend.
const (
	legendNone  = "none"
	legendRight = "right"
	legendBelow = "below"
)

// legendPlace says where layout puts p's legend on a chart of the standard
// size: in a strip right of the chart when its widest entry takes at most
// 30% of the width, else under the chart.
func legendPlace(p *plot.Plot, dc draw.Canvas) (place string, size vg.Length) {
	r := p.Legend.Rectangle(dc)
	w, h := r.Size().X, r.Size().Y
	switch {
	case w <= 0:
		return legendNone, 0
	case w <= 0.3*dc.Size().X:
		return legendRight, w
	}
	return legendBelow, h
}

// layout draws p on dc with its legend outside the data area, so that the
// legend never hides a bar or a mark line. p itself is left as it is (its
// legend sits inside, as gonum/plot draws it): layout draws a shallow copy
// without a legend, then the legend in the space it kept free.
func layout(p *plot.Plot, dc draw.Canvas) {
	if p.BackgroundColor != nil {
		dc.SetColor(p.BackgroundColor)
		dc.Fill(dc.Rectangle.Path())
	}
	body := drawTitle(dc, p.Title.Text, p.Title.TextStyle, p.Title.Padding)
	q := *p // drawn without its title and legend, which layout draws
	q.Title.Text = ""
	place, size := legendPlace(p, body)
	if place == legendNone {
		drawPlot(q, body)
		return
	}
	q.Legend = plot.NewLegend()
	leg := p.Legend
	leg.Left, leg.Top = true, true
	leg.XOffs, leg.YOffs = 0, 0
	drawLegend(leg, place, size, body, func(c draw.Canvas) { drawPlot(q, c) })
}

// drawPlot draws p on c, its Y label itself: gonum/plot pads the top of
// the data area for the label as if it stood at the middle of the data
// range, not of the axis, which on a log axis is near the top (a backlog
// up to 11 million left a blank band under the title).
func drawPlot(p plot.Plot, c draw.Canvas) {
	lbl := p.Y.Label
	if lbl.Text == "" {
		p.Draw(c)
		return
	}
	p.Y.Label.Text = ""
	sty := lbl.TextStyle
	sty.Rotation += math.Pi / 2
	h := lbl.TextStyle.Height(lbl.Text)
	w := h + lbl.TextStyle.FontExtents().Descent + lbl.Padding
	rest := draw.Crop(c, w, 0, 0, 0)
	data := p.DataCanvas(rest)
	c.FillText(sty, vg.Point{X: c.Min.X + h, Y: data.Center().Y}, lbl.Text)
	p.Draw(rest)
}

// drawLegend draws leg in a strip of body (right of the rest, or under it)
// and the chart, drawn by chart, in the rest.
func drawLegend(leg plot.Legend, place string, size vg.Length, body draw.Canvas, chart func(draw.Canvas)) {
	margin := vg.Points(10)
	full := body.Size()
	if place == legendRight {
		strip := size + 2*margin
		chart(draw.Crop(body, 0, -strip, 0, 0))
		leg.Draw(draw.Crop(body, full.X-strip+margin, -margin, 0, -margin/2))
		return
	}
	strip := size + margin
	chart(draw.Crop(body, 0, 0, strip, 0))
	leg.Draw(draw.Crop(body, margin, -margin, margin/2, -(full.Y - strip)))
}

// drawTitle draws the title across the top of dc, wrapped to its width,
// and returns the canvas under it.
func drawTitle(dc draw.Canvas, title string, sty text.Style, padding vg.Length) draw.Canvas {
	if title == "" {
		return dc
	}
	title = wrap(title, sty, dc.Size().X-vg.Points(20))
	dc.Max.Y -= vg.Points(2) // off the edge of the page
	descent := sty.FontExtents().Descent
	dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y + descent}, title)
	dc.Max.Y -= sty.Rectangle(title).Size().Y + padding
	return dc
}

// title is the chart title: the scenario and the step, then the first
// Title of the group (else its Name), "cricket-final / views — ops queued
// on the cluster", so that a chart taken out of the report still says
// where it comes from.
func title(group []metrics.Series) string {
	what := group[0].Name
	for _, s := range group {
		if s.Title != "" {
			what = s.Title
			break
		}
	}
	var where []string
	for _, w := range []string{group[0].Scenario, group[0].Step} {
		if w != "" {
			where = append(where, w)
		}
	}
	if len(where) == 0 {
		return what
	}
	return strings.Join(where, " / ") + " — " + what
}

// wrap breaks text into lines no wider than w in style sty, at spaces
// (after " — " first, where one line can hold what comes before it).
func wrap(text string, sty text.Style, w vg.Length) string {
	if sty.Width(text) <= w {
		return text
	}
	if i := strings.Index(text, " — "); i >= 0 && sty.Width(text[:i+len(" —")]) <= w {
		return text[:i+len(" —")] + "\n" + wrap(text[i+len(" — "):], sty, w)
	}
	words := strings.Fields(text)
	var lines []string
	line := ""
	for _, word := range words {
		switch {
		case line == "":
			line = word
		case sty.Width(line+" "+word) <= w:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return strings.Join(append(lines, line), "\n")
}
