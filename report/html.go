package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"regexp"
	"slices"
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
<style>` + fontFace(r.ChartFont) + style + `</style>
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
			// The summary and the chart that answers the question, side
			// by side where the summary leaves room; the other charts fold.
			charts := answerFirst(st.Charts)
			b.WriteString(`<div class="lead">`)
			htmlSummary(&b, sc, st)
			if len(charts) > 0 {
				b.WriteString(`<div class="answer">`)
				htmlChart(&b, charts[0])
				b.WriteString("</div>")
				charts = charts[1:]
			}
			// The tally and the figures' lines beside the chart where it
			// leaves room, else under it.
			b.WriteString(`<div class="after">`)
			htmlTally(&b, st)
			if len(st.Figures) > 0 {
				b.WriteString(`<ul class="figures">`)
				for _, f := range st.Figures {
					fmt.Fprintf(&b, "<li>%s</li>", e(f))
				}
				b.WriteString("</ul>")
			}
			b.WriteString("</div></div>\n")
			htmlMore(&b, charts)
			b.WriteString("</section>\n")
		}
		htmlMore(&b, sc.Charts)
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
	b.WriteString(`<footer><p>` + withClock(footnote) + "</p></footer>\n</body>\n</html>\n")
	_, err := w.Write(b.Bytes())
	return err
}

// footnote is the last line of both reports.
var footnote = "Rows marked ⏱ are read off the wall clock and vary between runs; every other figure is the same for the same seed. " +
	"In a summary, a value stands before its plan (value / plan; \"= plan\" where they are equal). " + Legend

// clock is the HTML page's ⏱: a stopwatch drawn in SVG, since no font may
// have the glyph (Debian's fonts do not).
const clock = `<svg class="clock" viewBox="0 0 16 16" width="12" height="12" role="img" aria-label="wall clock"><title>read off the wall clock: varies between runs</title>` +
	`<circle cx="8" cy="9.2" r="5.8" fill="none" stroke="currentColor" stroke-width="1.6"/><path d="M8 9.2V5.8M6 1.6h4M8 1.6v2" fill="none" stroke="currentColor" stroke-width="1.6"/></svg>`

// withClock escapes s and draws its ⏱ as clock.
func withClock(s string) string {
	return strings.ReplaceAll(html.EscapeString(s), "⏱", clock)
}

// fontFace embeds the charts' font, when the run gives one: the SVGs name
// Liberation Sans, laid out with its metrics, and a browser without it
// would set their text in a wider font, past the charts' edges.
func fontFace(ttf []byte) string {
	if len(ttf) == 0 {
		return ""
	}
	return "\n@font-face{font-family:'Liberation Sans';font-style:normal;font-weight:400;font-display:block;src:url(data:font/ttf;base64," +
		base64.StdEncoding.EncodeToString(ttf) + ") format('truetype')}"
}

// htmlMore writes charts folded: those that do not answer the step's
// question.
func htmlMore(b *bytes.Buffer, charts []Chart) {
	if len(charts) == 0 {
		return
	}
	more := "1 more chart"
	if len(charts) > 1 {
		more = fmt.Sprintf("%d more charts", len(charts))
	}
	fmt.Fprintf(b, `<details class="more"><summary>%s</summary>`+"\n", more)
	b.WriteString(`<div class="charts">` + "\n")
	for _, c := range charts {
		htmlChart(b, c)
	}
	b.WriteString("</div>\n</details>\n")
}

// htmlChart writes a chart, inline SVG with its title.
func htmlChart(b *bytes.Buffer, c Chart) {
	fmt.Fprintf(b, `<figure class="chart">%s<figcaption>%s</figcaption></figure>`+"\n", inlineSVG(c.SVG), html.EscapeString(c.Title))
}

// maxColumns is the most designs a summary sets as columns; past it the
// designs are its rows, the questions its columns, so that it fits the
// page.
const maxColumns = 8

// htmlSummary writes a step's summary table.
func htmlSummary(b *bytes.Buffer, sc *Scenario, st *Step) {
	rows := distinct(sc.Summary(st))
	if len(rows) > 0 && len(st.Designs) > 0 {
		b.WriteString(`<div class="fit">`)
		if byDesign(st, rows) {
			htmlSummaryByDesign(b, st, rows)
		} else {
			htmlSummaryByQuestion(b, st, rows)
		}
		b.WriteString("</div>")
	}
}

// htmlTally writes a step's expectations' tally and those that failed.
func htmlTally(b *bytes.Buffer, st *Step) {
	e := html.EscapeString
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

// byDesign says whether a summary sets its designs as rows: past
// maxColumns designs, when its questions are fewer (else the questions
// stay rows, and a swept entry's designs stand under its name).
func byDesign(st *Step, rows []Row) bool {
	return len(st.Designs) > maxColumns && len(rows) < len(st.Designs)
}

// spans groups rows by question: each run of rows of one metric, its
// length at its first row (0 at the others).
func spans(rows []Row) []int {
	out := make([]int, len(rows))
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j].Metric == rows[i].Metric {
			j++
		}
		out[i] = j - i
		i = j
	}
	return out
}

// hasParts reports whether a row is a part of its question.
func hasParts(rows []Row) bool {
	return slices.ContainsFunc(rows, func(r Row) bool { return r.Part != "" })
}

// questionHead is a question's header cell, its metric's name in a
// tooltip; attrs are its span.
func questionHead(row Row, attrs string) string {
	return fmt.Sprintf(`<th class="q"%s title="%s">%s</th>`, attrs, html.EscapeString(string(row.Metric)), html.EscapeString(row.Question))
}

// htmlSummaryByQuestion writes the summary with the designs as columns and
// a row a question (a row a part, under the question's name).
func htmlSummaryByQuestion(b *bytes.Buffer, st *Step, rows []Row) {
	e := html.EscapeString
	parts := hasParts(rows)
	head := "<th>question</th>"
	if parts {
		head = `<th colspan="2">question</th>`
	}
	// A swept entry's designs stand under its name, each headed by its
	// value.
	swept := slices.ContainsFunc(st.Designs, func(d string) bool { sw, _ := st.sweepOf(d); return sw != nil })
	if swept {
		head = strings.Replace(head, "<th", `<th rowspan="2"`, 1)
	}
	b.WriteString(`<table class="summary by-question"><thead><tr>` + head)
	var values []string
	for _, d := range st.Designs {
		sw, j := st.sweepOf(d)
		switch {
		case sw == nil && swept:
			fmt.Fprintf(b, `<th rowspan="2">%s</th>`, e(d))
		case sw == nil:
			fmt.Fprintf(b, "<th>%s</th>", e(d))
		default:
			if j == 0 {
				fmt.Fprintf(b, `<th class="sweep" colspan="%d">%s <span class="key">swept over %s</span></th>`, len(sw.Members), e(sw.Name), e(sw.Key))
			}
			values = append(values, fmt.Sprintf(`<th class="value" title="%s">%s = %s</th>`, e(d), e(sw.Key), e(sw.Values[j])))
		}
	}
	b.WriteString("</tr>")
	if swept {
		b.WriteString("<tr>" + strings.Join(values, "") + "</tr>")
	}
	b.WriteString("</thead><tbody>\n")
	span := spans(rows)
	for i, row := range rows {
		b.WriteString("<tr>")
		switch {
		case row.Part != "":
			if span[i] > 0 {
				b.WriteString(questionHead(row, fmt.Sprintf(` rowspan="%d"`, span[i])))
			}
			fmt.Fprintf(b, `<th class="part">%s</th>`, e(row.Part))
		case parts:
			b.WriteString(questionHead(row, ` colspan="2"`))
		default:
			b.WriteString(questionHead(row, ""))
		}
		for _, c := range row.Cells {
			b.WriteString(htmlCell(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>")
}

// htmlSummaryByDesign writes the summary with a row a design and a column
// a question (a column a part, under the question's name); the designs of
// one swept entry are grouped under its name, each row named by its value.
func htmlSummaryByDesign(b *bytes.Buffer, st *Step, rows []Row) {
	e := html.EscapeString
	parts := hasParts(rows)
	b.WriteString(`<table class="summary by-design"><thead><tr>`)
	if parts {
		b.WriteString(`<th rowspan="2">design</th>`)
	} else {
		b.WriteString("<th>design</th>")
	}
	span := spans(rows)
	for i, row := range rows {
		switch {
		case row.Part != "" && span[i] > 0:
			b.WriteString(questionHead(row, fmt.Sprintf(` colspan="%d"`, span[i])))
		case row.Part == "" && parts:
			b.WriteString(questionHead(row, ` rowspan="2"`))
		case row.Part == "":
			b.WriteString(questionHead(row, ""))
		}
	}
	b.WriteString("</tr>")
	if parts {
		b.WriteString("<tr>")
		for _, row := range rows {
			if row.Part != "" {
				fmt.Fprintf(b, `<th class="part">%s</th>`, e(row.Part))
			}
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</thead><tbody>\n")
	for k, d := range st.Designs {
		name := e(d)
		if sw, j := st.sweepOf(d); sw != nil {
			if j == 0 {
				fmt.Fprintf(b, `<tr class="sweep"><th colspan="%d">%s <span class="key">swept over %s</span></th></tr>`+"\n", len(rows)+1, e(sw.Name), e(sw.Key))
			}
			name = fmt.Sprintf(`<span title="%s">%s = %s</span>`, e(d), e(sw.Key), e(sw.Values[j]))
		}
		fmt.Fprintf(b, `<tr><th class="design">%s</th>`, name)
		for _, row := range rows {
			b.WriteString(htmlCell(row.Cells[k]))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>")
}

// htmlCell is a summary cell: the value, its plan and its mark, which may
// wrap apart where the table needs the room.
func htmlCell(c Cell) string {
	e := html.EscapeString
	class := ""
	switch c.Mark {
	case MarkHeld:
		class = ` class="pass"`
	case MarkTrap:
		class = ` class="trap"`
	case MarkFailed:
		class = ` class="fail"`
	}
	if c.Value == "" {
		return "<td></td>"
	}
	s := fmt.Sprintf(`<td%s><span class="v">%s</span>`, class, e(c.Value))
	if c.Plan != "" && c.Plan == c.Value {
		s += ` <span class="plan">= plan</span>` // "134,218,176 / 134,218,176" says it twice
	} else if c.Plan != "" {
		s += fmt.Sprintf(` <span class="plan">/ %s</span>`, e(c.Plan))
	}
	if c.Mark != "" {
		s += fmt.Sprintf(` <span class="mark">%s</span>`, c.Mark)
	}
	return s + "</td>"
}

// htmlResults writes every row of a scenario as one table.
func htmlResults(b *bytes.Buffer, rs []metrics.Result) {
	e := html.EscapeString
	b.WriteString(`<table class="full"><thead><tr><th>design</th><th>metric</th><th>measured</th><th>plan</th><th>unit</th><th>note</th></tr></thead><tbody>` + "\n")
	for _, r := range rs {
		fmt.Fprintf(b, "<tr><td>%s</td><td>%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td><td>%s</td></tr>\n",
			e(r.Strategy), withClock(r.Label()), optional(r.Value), optional(r.Plan), e(r.Unit), e(r.Note))
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
.toc>ol{column-width:520px;column-gap:24px}
.toc>ol>li{break-inside:avoid}
.scenario{background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:16px 20px;margin:0 0 28px}
.meta,.describe{color:#57606a;margin:4px 0}
.note{background:#fff8c5;border:1px solid #d4a72c;padding:6px 10px;border-radius:4px}
table{border-collapse:collapse;margin:8px 0;font-size:13.5px}
th,td{border:1px solid #d0d7de;padding:3px 7px;vertical-align:top}
thead th{background:#f6f8fa;text-align:left}
.fit{max-width:100%;overflow-x:auto}
table.summary tbody th{text-align:left;font-weight:500;background:#f6f8fa}
table.summary th.part{font-weight:400;color:#57606a}
table.summary thead th.part{font-size:12.5px}
table.summary td{font-variant-numeric:tabular-nums}
table.summary .v,table.summary .plan{white-space:nowrap}
table.summary tr.sweep th,table.summary thead th.sweep{background:#eef1f4;font-weight:600}
table.summary thead th.value{font-weight:500;white-space:nowrap}
table.summary tr.sweep .key{font-weight:400;color:#57606a}
table.summary th.design{white-space:nowrap;padding-left:16px}
table.by-question tbody th.q{min-width:9em}
.clock{vertical-align:-1px;color:#57606a}
.lead{display:flex;flex-wrap:wrap;gap:8px 20px;align-items:flex-start}
.lead .fit{flex:0 0 auto}
.lead .answer{flex:1 1 480px;max-width:580px;margin:8px 0}
.lead .after{flex:1 1 320px}
details.more>summary{margin:4px 0}
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
