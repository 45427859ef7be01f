package report

import (
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"

	"countsim/metrics"
)

// HTML writes report.html: one self-contained page (no script, no font or
// image fetched: the styles inline, the charts inline SVG), readable opened
// from disk. A table of contents; then per scenario, per step, the summary
// (designs as columns, the questions as rows, each value beside its plan
// and marked ✔, ⚠ or ✘ where an expectation judged it, the legend above), the notes; the
// charts; every row and table, folded; the manifest last.
func HTML(w io.Writer, r *Run) error {
	var b bytes.Buffer
	e := html.EscapeString
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>countsim report</title>
<style>` + style + `</style>
</head>
<body>
<header>
<h1>countsim report</h1>
`)
	if r.Partial {
		b.WriteString(`<p class="partial" id="partial">PARTIAL: the run was stopped before the end; the figures cover the events fed so far.</p>` + "\n")
	}
	b.WriteString(`<nav class="toc"><h2>Contents</h2><ol>` + "\n")
	for _, sc := range r.Scenarios {
		fmt.Fprintf(&b, `<li><a href="#%s">%s</a>`, anchor("scenario", sc.Name), e(sc.Title))
		if len(sc.Steps) > 1 {
			b.WriteString("<ol>")
			for _, st := range sc.Steps {
				fmt.Fprintf(&b, `<li><a href="#%s">%s</a></li>`, anchor("step", sc.Name, st.Name), e(st.heading(&sc)))
			}
			b.WriteString("</ol>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString(`<li><a href="#manifest">Manifest</a></li></ol></nav>` + "\n</header>\n<main>\n")
	b.WriteString(`<p class="legend" id="legend"><strong>Marks:</strong> `)
	for i, l := range legend {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, `<span class="%s">%s</span> %s`, l.class, l.mark, e(l.says))
	}
	b.WriteString(".</p>\n")
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		fmt.Fprintf(&b, `<section class="scenario" id="%s">`+"\n<h2>%s</h2>\n", anchor("scenario", sc.Name), e(sc.Title))
		fmt.Fprintf(&b, `<p class="meta">Scenario <code>%s</code> (%s), seed %d.</p>`+"\n", e(sc.Name), e(sc.File), sc.Seed)
		for j := range sc.Steps {
			st := &sc.Steps[j]
			fmt.Fprintf(&b, `<section class="step" id="%s">`+"\n", anchor("step", sc.Name, st.Name))
			if st.Name != "" {
				fmt.Fprintf(&b, "<h3>%s</h3>\n", e(st.heading(sc)))
			}
			if d := strings.TrimSpace(st.Description); d != "" {
				fmt.Fprintf(&b, "<p>%s</p>\n", e(d))
			}
			fmt.Fprintf(&b, `<p class="describe">%s</p>`+"\n", e(st.Describe))
			for _, n := range st.Notes {
				fmt.Fprintf(&b, `<p class="note"><strong>Note:</strong> %s</p>`+"\n", e(n))
			}
			htmlSummary(&b, sc, st)
			if len(st.Figures) > 0 {
				b.WriteString(`<ul class="figures">`)
				for _, f := range st.Figures {
					fmt.Fprintf(&b, "<li>%s</li>", e(f))
				}
				b.WriteString("</ul>\n")
			}
			htmlCharts(&b, st.Charts)
			b.WriteString("</section>\n")
		}
		htmlCharts(&b, sc.Charts)
		fmt.Fprintf(&b, `<details class="all"><summary>Every figure of %s: %s</summary>`+"\n", e(sc.Name), plural(len(sc.Results), "row"))
		htmlResults(&b, sc.Results)
		b.WriteString("</details>\n")
		for _, t := range sc.Tables {
			fmt.Fprintf(&b, `<details class="table"><summary>%s (tables/%s-%s.csv)</summary>`+"\n", e(t.Title), e(t.Scenario), e(t.Name))
			htmlTable(&b, t)
			b.WriteString("</details>\n")
		}
		b.WriteString("</section>\n")
	}
	b.WriteString(`<section id="manifest"><h2>Manifest</h2><details><summary>manifest.json: what ran, where and for how long</summary><pre>`)
	b.WriteString(e(string(r.Manifest)))
	b.WriteString("</pre></details></section>\n</main>\n")
	b.WriteString(`<footer><p>` + e(footnote) + "</p></footer>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// footnote is the last line of both reports.
var footnote = "Rows marked ⏱ are read off the wall clock and vary between runs; every other figure is the same for the same seed. " +
	"In a summary, a value stands before its plan (value / plan). " + Legend

// htmlCharts writes charts side by side, each inline SVG with its title.
func htmlCharts(b *bytes.Buffer, charts []Chart) {
	if len(charts) == 0 {
		return
	}
	b.WriteString(`<div class="charts">` + "\n")
	for _, c := range charts {
		fmt.Fprintf(b, `<figure class="chart">%s<figcaption>%s</figcaption></figure>`+"\n", inlineSVG(c.SVG), html.EscapeString(c.Title))
	}
	b.WriteString("</div>\n")
}

// htmlSummary writes a step's summary table and its expectations' tally.
func htmlSummary(b *bytes.Buffer, sc *Scenario, st *Step) {
	e := html.EscapeString
	rows := sc.Summary(st)
	if len(rows) > 0 && len(st.Designs) > 0 {
		b.WriteString(`<table class="summary"><thead><tr><th>question</th>`)
		for _, d := range st.Designs {
			fmt.Fprintf(b, "<th>%s</th>", e(d))
		}
		b.WriteString("</tr></thead><tbody>\n")
		for _, row := range rows {
			fmt.Fprintf(b, `<tr><th title="%s">%s</th>`, e(string(row.Metric)), e(row.Question))
			for _, c := range row.Cells {
				class := ""
				switch c.Mark {
				case MarkHeld:
					class = ` class="pass"`
				case MarkTrap:
					class = ` class="trap"`
				case MarkFailed:
					class = ` class="fail"`
				}
				fmt.Fprintf(b, "<td%s>%s", class, e(strings.Join(c.Values, " · ")))
				if c.Plan != "" && len(c.Values) == 1 {
					fmt.Fprintf(b, ` <span class="plan">/ %s</span>`, e(c.Plan))
				}
				if c.Mark != "" {
					fmt.Fprintf(b, ` <span class="mark">%s</span>`, c.Mark)
				}
				b.WriteString("</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody></table>\n")
	}
	if t := st.tally(); t != "" {
		class := "held"
		if len(st.failed()) > 0 {
			class = "broken"
		}
		fmt.Fprintf(b, `<p class="%s">%s</p>`+"\n", class, e(t))
		if f := st.failed(); len(f) > 0 {
			b.WriteString(`<ul class="failed">`)
			for _, v := range f {
				fmt.Fprintf(b, "<li>%s: <code>%s</code></li>", e(v.Design), e(v.why()))
			}
			b.WriteString("</ul>\n")
		}
	}
}

// htmlResults writes every row of a scenario as one table.
func htmlResults(b *bytes.Buffer, rs []metrics.Result) {
	e := html.EscapeString
	b.WriteString(`<table class="full"><thead><tr><th>design</th><th>metric</th><th>measured</th><th>plan</th><th>unit</th><th>note</th></tr></thead><tbody>` + "\n")
	for _, r := range rs {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td><td>%s</td></tr>\n",
			e(r.Strategy), e(r.Label()), optional(r.Value), optional(r.Plan), e(r.Unit), e(r.Note))
	}
	b.WriteString("</tbody></table>\n")
}

// htmlTable writes a table of numbers.
func htmlTable(b *bytes.Buffer, t metrics.Table) {
	b.WriteString(`<table class="full"><thead><tr>`)
	for _, c := range t.Heads() {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(c))
	}
	b.WriteString("</tr></thead><tbody>\n")
	for i := range t.Rows {
		b.WriteString("<tr>")
		for j, c := range t.Cells(i) {
			class := ` class="n"`
			if j == 0 && t.LabelColumn != "" {
				class = ""
			}
			fmt.Fprintf(b, `<td%s>%s</td>`, class, html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

// optional formats an optional number, "" when absent.
func optional(x *float64) string {
	if x == nil {
		return ""
	}
	return metrics.Format(*x)
}

// svgProlog is what an SVG file holds before its <svg> element: the XML
// declaration and comments, which may not stand inside an HTML page.
var svgProlog = regexp.MustCompile(`(?s)^.*?(<svg[\s>])`)

// inlineSVG is an SVG file's <svg> element, sized by its viewBox to the
// page's width (the width and height attributes dropped).
func inlineSVG(svg []byte) string {
	s := svgProlog.ReplaceAllString(string(svg), "$1")
	if i := strings.Index(s, ">"); i > 0 {
		head := regexp.MustCompile(`\s(width|height)="[^"]*"`).ReplaceAllString(s[:i], "")
		s = head + s[i:]
	}
	return s
}

const style = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;color:#1d232a;margin:0;background:#fafbfc}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 24px}
h1{font-size:26px;margin:24px 0 8px}
h2{font-size:21px;margin:0 0 6px;border-bottom:2px solid #d0d7de;padding-bottom:4px}
h3{font-size:17px;margin:18px 0 6px}
.partial{background:#ffebe9;border:1px solid #ff8182;padding:8px 12px;font-weight:600}
.toc{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px 16px;margin:12px 0 24px}
.toc h2{font-size:15px;border:0;margin:4px 0}
.toc ol{margin:2px 0;padding-left:22px}
.scenario{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:16px 20px;margin:0 0 28px}
.meta,.describe{color:#57606a;margin:4px 0}
.note{background:#fff8c5;border:1px solid #d4a72c;padding:6px 10px;border-radius:4px}
table{border-collapse:collapse;margin:8px 0;font-size:13.5px}
th,td{border:1px solid #d0d7de;padding:4px 8px;vertical-align:top}
thead th{background:#f6f8fa;text-align:left}
table.summary tbody th{text-align:left;font-weight:500;background:#f6f8fa;white-space:nowrap}
table.summary td{white-space:nowrap;font-variant-numeric:tabular-nums}
td.pass{background:#dafbe1}
td.fail{background:#ffebe9}
td.trap{background:#fff1c2}
td.trap .mark,.legend .trap{color:#9a6700}
.legend .held{color:#1a7f37}
.legend .failed{color:#cf222e}
.plan{color:#57606a}
.mark{font-weight:700}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.held{color:#1a7f37;font-weight:600}
.broken{color:#cf222e;font-weight:600}
.figures{color:#57606a;font-size:13.5px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(460px,1fr));gap:16px;margin:16px 0}
.chart{margin:0;border:1px solid #d0d7de;border-radius:4px;padding:6px;background:#fff}
.chart svg{width:100%;height:auto;display:block}
.chart figcaption{font-size:13px;color:#57606a;margin-top:4px}
details{margin:8px 0}
summary{cursor:pointer;color:#0969da}
pre{background:#f6f8fa;padding:10px;overflow:auto;font-size:12.5px}
footer{color:#57606a;font-size:13px;padding-bottom:32px}
`
