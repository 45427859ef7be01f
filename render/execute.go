package render

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"countsim/metrics"
)

// Page is a rendered template: its text, the figures in it that may move
// within a tolerance, and the charts it links to.
type Page struct {
	Text    string
	Figures []Figure
	Charts  []Chart
}

// Figure is a measured figure with a tolerance, where it stands in the
// page's text.
type Figure struct {
	Value      float64
	Text       string
	Tol        Tol
	Start, End int // byte offsets in Page.Text
}

// Chart is a chart a page links to: the PNG of the run (From) and the name
// the page gives its copy beside the page (To).
type Chart struct{ From, To string }

// Options are how a page is rendered.
type Options struct {
	// ChartPrefix starts the file name of each chart's copy beside the
	// page: PREFIX-STEP-NAME.png; "" links to the run's own file instead.
	ChartPrefix string
}

type renderer struct {
	data   *Data
	opts   Options
	figs   []Figure
	charts []Chart
}

// Execute renders t against data. Run with data.Measured false (the plans
// alone), it is the first pass that refuses a name no step has; every
// error is a *scenarios.Error naming the template's file and line.
func Execute(t *Template, data *Data, opts Options) (*Page, error) {
	r := &renderer{data: data, opts: opts}
	tmpl, err := t.tmpl.Clone()
	if err != nil {
		return nil, err
	}
	tmpl.Funcs(r.funcs())
	var b strings.Builder
	if err := tmpl.Execute(&b, nil); err != nil {
		return nil, templateError(t.File, err)
	}
	page := &Page{Charts: r.charts}
	page.Text, page.Figures = unmark(strings.TrimLeft(b.String(), "\n"), r.figs)
	return page, nil
}

// unmark takes the figures' marks out of text and says where each
// figure stands.
func unmark(text string, figs []Figure) (string, []Figure) {
	var b strings.Builder
	var out []Figure
	for {
		i := strings.IndexRune(text, markOpen)
		if i < 0 {
			b.WriteString(text)
			return b.String(), out
		}
		b.WriteString(text[:i])
		rest := text[i+utf8.RuneLen(markOpen):]
		mid := strings.IndexRune(rest, markMid)
		end := strings.IndexRune(rest, markClose)
		if mid < 0 || end < mid {
			b.WriteString(rest) // cannot happen: fig writes the three marks
			return b.String(), out
		}
		var k int
		fmt.Sscan(rest[:mid], &k)
		f := figs[k]
		f.Start = b.Len()
		b.WriteString(rest[mid+utf8.RuneLen(markMid) : end])
		f.End = b.Len()
		out = append(out, f)
		text = rest[end+utf8.RuneLen(markClose):]
	}
}

// table is {{table STEP METRIC…}}: a Markdown table of the step's designs
// (those that have any of the metrics), a column a metric, each cell the
// measured value with the plan beside it, "plan N" where only planned.
func (r *renderer) table(step string, ms ...string) (string, error) {
	st, err := r.data.find(step)
	if err != nil {
		return "", err
	}
	if len(ms) == 0 {
		return "", fmt.Errorf("table %s: name at least one metric", step)
	}
	var all []string
	for _, d := range st.Designs {
		for _, m := range st.Metrics[d] {
			if !slices.Contains(all, m) {
				all = append(all, m)
			}
		}
	}
	for _, m := range ms {
		if !slices.Contains(all, m) {
			return "", fmt.Errorf("table %s: no design of it has metric %q%s", step, m, didYouMean(m, all))
		}
	}
	var b strings.Builder
	b.WriteString("| design | " + strings.Join(ms, " | ") + " |\n|---|" + strings.Repeat("---|", len(ms)) + "\n")
	for _, d := range st.Designs {
		var cells []string
		any := false
		for _, m := range ms {
			cell := ""
			if slices.Contains(st.Metrics[d], m) {
				cell = r.cell(st, d, m)
				any = any || cell != ""
			}
			cells = append(cells, cell)
		}
		if any {
			b.WriteString("| " + d + " | " + strings.Join(cells, " | ") + " |\n")
		}
	}
	return b.String(), nil
}

// cell is a table's cell: measured (plan), measured, or plan N; a timing
// row (ns_per_event) is never shown.
func (r *renderer) cell(st *Step, design, metric string) string {
	m, okm, _ := st.row(design, metric, false, nil)
	okm = okm && !m.Timing // read off this machine's clock: a page would never check
	p, okp, _ := st.row(design, metric, true, []string{"sim"})
	if !okp {
		p, okp, _ = st.row(design, metric, true, nil)
	}
	if !r.data.Measured {
		return "…"
	}
	switch {
	case okm && okp:
		return metrics.Format(*m.Value) + " (plan " + metrics.Format(*p.Plan) + ")"
	case okm:
		return metrics.Format(*m.Value)
	case okp:
		return "plan " + metrics.Format(*p.Plan)
	}
	return ""
}

// chart is {{chart STEP NAME}}: the run's chart NAME of the step (key-load,
// backlog, …, as the report's plots/ names them), as a Markdown image of
// its copy beside the page.
func (r *renderer) chart(step, name string) (string, error) {
	st, err := r.data.find(step)
	if err != nil {
		return "", err
	}
	to := r.opts.ChartPrefix + "-" + st.ID() + "-" + name + ".png"
	if r.opts.ChartPrefix == "" {
		to = st.Charts[name] // a page on stdout links to the run's own chart
	}
	if r.data.Measured {
		from, ok := st.Charts[name]
		if !ok {
			var names []string
			for n := range st.Charts {
				names = append(names, n)
			}
			slices.Sort(names)
			return "", fmt.Errorf("chart %s %q: the run drew no such chart (allowed: %s)%s", step, name, strings.Join(names, ", "), didYouMean(name, names))
		}
		if r.opts.ChartPrefix != "" {
			r.charts = append(r.charts, Chart{From: from, To: to})
		}
	}
	return fmt.Sprintf("![%s, %s: %s](%s)", st.Scenario, st.ID(), name, filepath.ToSlash(to)), nil
}
