package report

import (
	"bytes"
	"strings"
	"testing"

	"countsim/metrics"
)

func row(design string, metric metrics.Metric, v float64, plan *float64) metrics.Result {
	return metrics.Result{Scenario: "s", Strategy: design, Metric: metric, Value: metrics.Measured(v), Plan: plan, Scale: metrics.Sim}
}

// run is a scenario of two designs: a ✔ on a's count error, a ✘ on b's
// memory, a plan beside a's load, a full-scale row the summary ignores, and
// a metric no headline names but an expectation does.
func testRun() *Run {
	return &Run{
		Manifest: []byte(`{"seed": 1}`),
		Scenarios: []Scenario{{
			Name: "s", Title: "A <test> & more", File: "s.yaml", Seed: 1,
			Steps: []Step{{Describe: "Timed stream.", Designs: []string{"a", "b"},
				Notes: []string{"b did not keep up"},
				Verdicts: []Verdict{
					{Design: "a", Metric: "count_error", Text: "count_error == 0", Pass: true},
					{Design: "b", Metric: "bytes", Text: "bytes <= 10", Pass: false},
					{Design: "b", Metric: "odd_metric", Text: "odd_metric > 1", Pass: true},
				}}},
			Results: []metrics.Result{
				row("a", "count_error", 0, metrics.PlanOf(0)),
				row("b", "count_error", -3, metrics.PlanOf(0)),
				row("a", "bytes", 8, nil),
				row("b", "bytes", 12, nil),
				row("a", "max_key_ops_per_s", 6384, metrics.PlanOf(6250)),
				{Scenario: "s", Strategy: "a", Metric: "utilisation", Plan: metrics.PlanOf(0.7), Scale: metrics.Full},
				row("b", "odd_metric", 2, nil),
			},
			Charts: []Chart{{Title: "load", Path: "plots/s-load.svg",
				SVG: []byte("<?xml version=\"1.0\"?>\n<!-- Generated -->\n<svg width=\"576pt\" height=\"360pt\" viewBox=\"0 0 576 360\"><path d=\"M0,0\"/></svg>\n")}},
		}},
	}
}

// TestSummary: the headline questions the designs answered, in order, then
// the expectations' own metrics; plans beside values; marks from verdicts.
func TestSummary(t *testing.T) {
	r := testRun()
	sc := &r.Scenarios[0]
	rows := sc.Summary(&sc.Steps[0])
	var got []string
	for _, row := range rows {
		cells := []string{string(row.Metric)}
		for _, c := range row.Cells {
			cells = append(cells, c.text())
		}
		got = append(got, strings.Join(cells, "|"))
	}
	want := []string{
		"count_error|0 / 0 ✔|-3 / 0",
		"bytes|8|12 ✘",
		"max_key_ops_per_s|6,384 / 6,250|",
		"odd_metric||2 ✔",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestHTML: escaped text, the summary's classes, the chart inlined without
// its XML prolog and fixed size, the tally, the note and the manifest.
func TestHTML(t *testing.T) {
	var b bytes.Buffer
	if err := HTML(&b, testRun()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<title>countsim report</title>",
		`<h2>A &lt;test&gt; &amp; more</h2>`,
		`<td class="pass">0 <span class="plan">/ 0</span> <span class="mark">✔</span></td>`,
		`<td class="fail">12 <span class="mark">✘</span></td>`,
		`<figure class="chart"><svg viewBox="0 0 576 360"><path d="M0,0"/></svg>`,
		`<p class="broken">2 of 3 expectations hold.</p>`,
		"<li>b: <code>bytes &lt;= 10</code></li>",
		"b did not keep up",
		"{&#34;seed&#34;: 1}",
		`<a href="#scenario-s">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	for _, bad := range []string{"<?xml", "<!-- Generated", "http://", "https://", "<script"} {
		if strings.Contains(page, bad) {
			t.Errorf("report.html holds %q", bad)
		}
	}
}

// TestMarkdownAndText: report.md has the summary table, the tally, the
// chart's link, the full rows and the manifest; the short text a line a
// design.
func TestMarkdownAndText(t *testing.T) {
	var md, txt bytes.Buffer
	if err := Markdown(&md, testRun()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| question | a | b |",
		"| final count − truth | 0 / 0 ✔ | -3 / 0 |",
		"2 of 3 expectations hold.",
		"- ✘ b: `bytes <= 10`",
		"![load](plots/s-load.svg)",
		"| s: design | metric | measured | plan | unit | note |",
		"```json\n{\"seed\": 1}\n```",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if err := Text(&txt, testRun()); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(txt.String()), "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[1], "  a ") || !strings.Contains(lines[2], "memory, bytes 12 ✘") ||
		!strings.Contains(lines[3], "2 of 3 expectations hold; ✘ b: bytes <= 10.") {
		t.Errorf("text summary:\n%s", txt.String())
	}
}

func TestPlural(t *testing.T) {
	if plural(1, "design") != "1 design" || plural(0, "row") != "0 rows" || plural(2, "chart") != "2 charts" {
		t.Error(plural(1, "design"), plural(0, "row"), plural(2, "chart"))
	}
}
