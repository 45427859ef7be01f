package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"countsim/metrics"
)

func row(design string, metric metrics.Metric, v float64, plan *float64) metrics.Result {
	return metrics.Result{Scenario: "s", Strategy: design, Metric: metric, Value: metrics.Measured(v), Plan: plan, Scale: metrics.Sim}
}

// run is a scenario of two designs: a ✔ on a's count error, a ✘ on b's
// memory, a plan beside a's load, a full-scale row the summary ignores, a
// metric no headline names but an expectation does, a trap a's load shows
// beside a bound it meets (⚠, never ✔), and a trap b's count error fails
// to show (✘).
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
					{Design: "a", Metric: "max_key_ops_per_s", Text: "max_key_ops_per_s <= 7000", Pass: true},
					{Design: "a", Metric: "max_key_ops_per_s", Text: "max_key_ops_per_s > 6000", Pass: true, Trap: true},
					{Design: "b", Metric: "count_error", Text: "count_error > 0", Pass: false, Trap: true},
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
		"count_error|0 = plan ✔|-3 / 0 ✘",
		"bytes|8|12 ✘",
		"max_key_ops_per_s|6,384 / 6,250 ⚠|",
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
		`<td class="pass"><span class="v">0</span> <span class="plan">= plan</span> <span class="mark">✔</span></td>`,
		`<td class="fail"><span class="v">12</span> <span class="mark">✘</span></td>`,
		`<th class="q" title="count_error">final count − truth</th>`,
		`<figure class="chart"><svg viewBox="0 0 576 360"><path d="M0,0"/></svg>`,
		`<td class="trap"><span class="v">6,384</span> <span class="plan">/ 6,250</span> <span class="mark">⚠</span></td>`,
		`<p class="broken">3 of 4 bounds hold; 1 of 2 traps shown.</p>`,
		"<li>b: <code>bytes &lt;= 10</code></li>",
		"<li>b: <code>count_error &gt; 0 (trap not shown)</code></li>",
		"b did not keep up",
		"{&#34;seed&#34;: 1}",
		`<a href="#scenario-s">`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	// The legend stands above the first table.
	if l, tb := strings.Index(page, `<p class="legend"`), strings.Index(page, "<table"); l < 0 || tb < 0 || l > tb || !strings.Contains(page[l:tb], "⚠") {
		t.Errorf("the legend (at %d) is not above the first table (at %d)", l, tb)
	}
	// No shown trap is marked ✔.
	for _, line := range strings.Split(page, "\n") {
		if strings.Contains(line, `class="trap"`) && strings.Contains(line, "✔") && !strings.Contains(line, `class="legend"`) {
			t.Errorf("a trap marked ✔: %s", line)
		}
	}
	for _, bad := range []string{"<?xml", "<!-- Generated", "http://", "https://", "<script", "⏱"} {
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
		"| final count − truth (`count_error`) | 0 = plan ✔ | -3 / 0 ✘ |",
		"3 of 4 bounds hold; 1 of 2 traps shown.",
		"- ✘ b: `bytes <= 10`",
		"- ✘ b: `count_error > 0 (trap not shown)`",
		"**Marks:** ✔",
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
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "Marks: ✔") || !strings.HasPrefix(lines[3], "  a ") ||
		!strings.Contains(lines[3], "busiest key, ops/s 6,384 / 6,250 ⚠") || !strings.Contains(lines[4], "memory, bytes 12 ✘") ||
		!strings.Contains(lines[5], "3 of 4 bounds hold; 1 of 2 traps shown; ✘ b: bytes <= 10; ✘ b: count_error > 0 (trap not shown).") {
		t.Errorf("text summary:\n%s", txt.String())
	}
}

// TestMark: a cell's mark from every mix of its verdicts. A failed bound
// or a trap not shown is ✘ whatever else holds; a shown trap is ⚠ even
// beside held bounds, in either order; held bounds alone are ✔; verdicts
// on another design or metric leave the cell alone.
func TestMark(t *testing.T) {
	held := Verdict{Design: "d", Metric: "m", Pass: true}
	failed := Verdict{Design: "d", Metric: "m"}
	shown := Verdict{Design: "d", Metric: "m", Pass: true, Trap: true}
	unshown := Verdict{Design: "d", Metric: "m", Trap: true}
	other := Verdict{Design: "e", Metric: "m"}
	otherMetric := Verdict{Design: "d", Metric: "n"}
	for _, c := range []struct {
		vs   []Verdict
		want string
	}{
		{nil, ""},
		{[]Verdict{other, otherMetric}, ""},
		{[]Verdict{held}, MarkHeld},
		{[]Verdict{held, held, other}, MarkHeld},
		{[]Verdict{failed}, MarkFailed},
		{[]Verdict{held, failed}, MarkFailed},
		{[]Verdict{failed, held}, MarkFailed},
		{[]Verdict{shown}, MarkTrap},
		{[]Verdict{held, shown}, MarkTrap},
		{[]Verdict{shown, held}, MarkTrap},
		{[]Verdict{unshown}, MarkFailed},
		{[]Verdict{shown, unshown}, MarkFailed},
		{[]Verdict{unshown, held}, MarkFailed},
		{[]Verdict{shown, failed}, MarkFailed},
		{[]Verdict{held, other, otherMetric}, MarkHeld},
	} {
		if got := mark(c.vs, "d", "m"); got != c.want {
			t.Errorf("mark(%+v) = %q, want %q", c.vs, got, c.want)
		}
	}
}

// TestTally: the sentence under a summary, for bounds, traps, both and
// neither.
func TestTally(t *testing.T) {
	for _, c := range []struct {
		vs   []Verdict
		want string
	}{
		{nil, ""},
		{[]Verdict{{Pass: true}}, "1 of 1 bound holds."},
		{[]Verdict{{Pass: true}, {}}, "1 of 2 bounds hold."},
		{[]Verdict{{Trap: true, Pass: true}}, "1 of 1 trap shown."},
		{[]Verdict{{}, {Trap: true}, {Trap: true, Pass: true}}, "0 of 1 bound holds; 1 of 2 traps shown."},
	} {
		st := Step{Verdicts: c.vs}
		if got := st.tally(); got != c.want {
			t.Errorf("tally(%+v) = %q, want %q", c.vs, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	if plural(1, "design") != "1 design" || plural(0, "row") != "0 rows" || plural(2, "chart") != "2 charts" {
		t.Error(plural(1, "design"), plural(0, "row"), plural(2, "chart"))
	}
}

// partsRun is a step whose designs measured one question several times
// (an audience's days, a design's overlap with each other design).
func partsRun() *Run {
	note := func(r metrics.Result, n string) metrics.Result { r.Note = n; return r }
	return &Run{Scenarios: []Scenario{{
		Name: "s", Title: "S",
		Steps: []Step{{Name: "viewers", Title: "step 2: unique viewers", Designs: []string{"hll", "naive", "wilson"}}},
		Results: []metrics.Result{
			note(row("hll", "relative_error", 0.59, metrics.PlanOf(0.81)), "day 1; plan: the standard error 1.04/√m"),
			note(row("hll", "relative_error", -0.39, metrics.PlanOf(0.81)), "day 2; plan: the standard error 1.04/√m"),
			note(row("hll", "relative_error", 62.7, nil), "sum of the days' counts against the union"),
			note(row("naive", "top_overlap", 0, nil), "with wilson: 0 of its top 10"),
			note(row("naive", "top_overlap", 0.5, nil), "with hll: 5 of its top 10"),
			note(row("wilson", "top_overlap", 0.6, nil), "with naive: 6 of its top 10"),
			note(row("wilson", "top_overlap", 0.7, nil), ""),
			row("wilson", "bytes", 8, nil),
		},
	}}}
}

// TestSummaryParts: a question measured several times a design is a row a
// part, each named by its row's note, each with its own plan; a design
// whose rows cannot all be named has them numbered; a question measured
// once stays one row.
func TestSummaryParts(t *testing.T) {
	r := partsRun()
	r.Scenarios[0].Steps[0].Verdicts = []Verdict{{Design: "top", Metric: "top_overlap", Pass: true}}
	sc := &r.Scenarios[0]
	var got []string
	for _, row := range sc.Summary(&sc.Steps[0]) {
		cells := []string{row.Label()}
		for _, c := range row.Cells {
			cells = append(cells, c.text())
		}
		got = append(got, strings.Join(cells, "|"))
	}
	want := []string{
		"distinct count error, % — day 1|0.59 / 0.81||",
		"distinct count error, % — day 2|-0.39 / 0.81||",
		"distinct count error, % — sum of the days' counts against the union|62.7||",
		"memory, bytes|||8",
		"top overlap — with wilson||0|",
		"top overlap — with hll||0.5|",
		"top overlap — row 1|||0.6",
		"top overlap — row 2|||0.7",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var page bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<th class="q" rowspan="3" title="relative_error">distinct count error, %</th><th class="part">day 1</th>`,
		`<th class="part">day 2</th>`,
		`<th class="q" colspan="2" title="bytes">memory, bytes</th>`,
		"<h3>Step 2: unique viewers</h3>",
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if strings.Contains(page.String(), " · ") {
		t.Error("report.html joins values with · , unlabelled")
	}
	var txt bytes.Buffer
	if err := Text(&txt, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "s/viewers — Step 2: unique viewers\n") || !strings.Contains(txt.String(), "distinct count error, % day 1 0.59 / 0.81, day 2 -0.39 / 0.81, sum of the days") {
		t.Errorf("text summary:\n%s", txt.String())
	}
}

// TestHeading: a step's title is its heading, once: "Step 1: …", never
// "Step views: step 1: …".
func TestHeading(t *testing.T) {
	sc := &Scenario{Title: "Cricket"}
	for _, c := range []struct{ name, title, want string }{
		{"views", "step 1: one hot counter", "Step 1: one hot counter"},
		{"s07", "s = 0.7: a flat law", "S = 0.7: a flat law"},
		{"views", "", "Step views"},
		{"", "", "Cricket"},
	} {
		st := &Step{Name: c.name, Title: c.title}
		if got := st.heading(sc); got != c.want {
			t.Errorf("heading(%q, %q) = %q, want %q", c.name, c.title, got, c.want)
		}
	}
}

// TestSummaryByDesign: past maxColumns designs the designs are the rows,
// a swept entry's grouped under its name, each named by its value (its
// design's name in a tooltip); report.md is transposed too.
func TestSummaryByDesign(t *testing.T) {
	st := Step{Sweeps: []Sweep{{Name: "ss", Key: "counters", Members: []string{"ss-counters-30", "ss-counters-100"}, Values: []string{"30", "100"}}}}
	var results []metrics.Result
	st.Designs = append(st.Designs, "ss-counters-30", "ss-counters-100")
	for i := range maxColumns {
		st.Designs = append(st.Designs, fmt.Sprintf("d%d", i))
	}
	for i, d := range st.Designs {
		results = append(results, row(d, "bytes", float64(100*i), nil), row(d, "topk_recall", 1, metrics.PlanOf(1)))
	}
	r := &Run{Scenarios: []Scenario{{Name: "s", Title: "S", Steps: []Step{st}, Results: results}}}
	var page, md bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<table class="summary by-design"><thead><tr><th>design</th><th class="q" title="topk_recall">top-K recall</th><th class="q" title="bytes">memory, bytes</th></tr>`,
		`<tr class="sweep"><th colspan="3">ss <span class="key">swept over counters</span></th></tr>`,
		`<tr><th class="design"><span title="ss-counters-100">counters = 100</span></th><td><span class="v">1</span> <span class="plan">= plan</span></td><td><span class="v">100</span></td></tr>`,
		`<tr><th class="design">d0</th>`,
	} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if err := Markdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if want := "| design | top-K recall (`topk_recall`) | memory, bytes (`bytes`) |\n|---|---:|---:|\n| ss-counters-30 | 1 = plan | 0 |"; !strings.Contains(md.String(), want) {
		t.Errorf("report.md lacks\n%s\nin\n%s", want, md.String())
	}
}

// TestAnswerFirst: the chart marked Answer stands first, in full, under
// the summary; the others fold under it.
func TestAnswerFirst(t *testing.T) {
	svg := func(id string) []byte { return []byte(`<svg viewBox="0 0 1 1"><path id="` + id + `"/></svg>`) }
	r := testRun()
	r.Scenarios[0].Charts = nil
	r.Scenarios[0].Steps[0].Charts = []Chart{{Title: "load", SVG: svg("load")}, {Title: "backlog", SVG: svg("backlog")}, {Title: "answer", SVG: svg("answer"), Answer: true}}
	var page bytes.Buffer
	if err := HTML(&page, r); err != nil {
		t.Fatal(err)
	}
	p := page.String()
	answer, folded, load, table := strings.Index(p, `id="answer"`), strings.Index(p, `<details class="more"><summary>2 more charts</summary>`), strings.Index(p, `id="load"`), strings.Index(p, `<table class="summary`)
	if !(table >= 0 && table < answer && answer < folded && folded < load) {
		t.Errorf("summary at %d, answer at %d, the fold at %d, the first other chart at %d: want them in that order", table, answer, folded, load)
	}
}

// TestDistinct: a row the same under every design, with no plan or mark,
// goes; a part of a question stays while another part of it does.
func TestDistinct(t *testing.T) {
	c := func(v string) Cell { return Cell{Value: v} }
	rows := []Row{
		{Metric: "backlog", Cells: []Cell{c("0"), c("0"), {}}},
		{Metric: "backlog_planned", Cells: []Cell{{Value: "0", Plan: "0"}, c("0")}},
		{Metric: "latency", Part: "burst", Cells: []Cell{c("1,500"), c("300")}},
		{Metric: "latency", Part: "fade", Cells: []Cell{c("60"), c("60")}},
		{Metric: "same_parts", Part: "a", Cells: []Cell{c("1"), c("1")}},
		{Metric: "same_parts", Part: "b", Cells: []Cell{c("2"), c("2")}},
		{Metric: "alone", Cells: []Cell{c("5"), {}}},
	}
	var got []string
	for _, r := range distinct(rows) {
		got = append(got, string(r.Metric)+"/"+r.Part)
	}
	if want := "backlog_planned/ latency/burst latency/fade alone/"; strings.Join(got, " ") != want {
		t.Errorf("rows kept %q, want %q", strings.Join(got, " "), want)
	}
}
