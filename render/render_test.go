package render

import (
	"errors"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
)

// testData is a step as a prepared timed stream would give it: one design
// with a plan at both scales and a measurement.
func testData(measured bool) *Data {
	rows := []metrics.Result{
		{Scenario: "hot", Strategy: "striped-32", Metric: "max_key_ops_per_s", Plan: metrics.PlanOf(6250), Scale: metrics.Full, Unit: "ops/s",
			Note: "peak / K = 200,000 / 32 = 6,250 a stripe (the mean)"},
		{Scenario: "hot", Strategy: "striped-32", Metric: "utilisation", Plan: metrics.PlanOf(0.625), Scale: metrics.Full, Unit: "share",
			Note: "6,250 / 10,000 = 62.5% of a key's capacity"},
		{Scenario: "hot", Strategy: "striped-32", Metric: "stripes_at_headroom", Plan: metrics.PlanOf(200000.0 / 7000), Scale: metrics.Full,
			Note: "peak / (capacity × headroom): 200,000 / 7,000 = 28.6"},
	}
	if measured {
		rows = append(rows,
			metrics.Result{Scenario: "hot", Strategy: "striped-32", Metric: "max_key_ops_per_s", Value: metrics.Measured(6518), Plan: metrics.PlanOf(6250), Scale: metrics.Sim},
			metrics.Result{Scenario: "hot", Strategy: "truth", Metric: "distinct", Value: metrics.Measured(40e6), Scale: metrics.Sim, Note: "day 1, exact"},
			metrics.Result{Scenario: "hot", Strategy: "truth", Metric: "distinct", Value: metrics.Measured(48e6), Scale: metrics.Sim, Note: "all days, exact union"},
		)
	}
	return &Data{Measured: measured, Steps: []*Step{{
		Scenario: "hot",
		Designs:  []string{"truth", "striped-32"},
		Metrics: map[string][]string{
			"truth":      {"distinct"},
			"striped-32": {"max_key_ops_per_s", "utilisation", "stripes_at_headroom"},
		},
		Rows:   rows,
		Charts: map[string]string{"key-load": "/run/plots/hot-key-load.png"},
	}}}
}

func mustParse(t *testing.T, src string) *Template {
	t.Helper()
	tm, err := Parse("page.md", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return tm
}

func TestExecute(t *testing.T) {
	tm := mustParse(t, "---\nscenarios: hot\n---\n"+
		`Plan {{formula "hot" "striped-32" "max_key_ops_per_s"}}, {{plan "hot" "striped-32" "utilisation" | pct}}. `+
		`{{plan "hot" "striped-32" "stripes_at_headroom" | fixed 1}} → 32. `+
		`Busiest {{measured "hot" "striped-32" "max_key_ops_per_s" | within "5%" | int}}. `+
		`Union {{measured "hot" "truth" "distinct" "union" | words}}.`+"\n"+
		`{{chart "hot" "key-load"}}`+"\n")
	p, err := Execute(tm, testData(true), Options{ChartPrefix: "page"})
	if err != nil {
		t.Fatal(err)
	}
	want := "Plan 200,000 / 32 = 6,250, 62.5%. 28.6 → 32. Busiest 6,518. Union 48 million.\n![hot, hot: key-load](page-hot-key-load.png)\n"
	if p.Text != want {
		t.Errorf("got\n%q\nwant\n%q", p.Text, want)
	}
	if len(p.Figures) != 1 || p.Text[p.Figures[0].Start:p.Figures[0].End] != "6,518" || p.Figures[0].Tol.Rel != 0.05 {
		t.Errorf("figures %+v, want the one 6,518 within 5%%", p.Figures)
	}
	if len(p.Charts) != 1 || p.Charts[0].To != "page-hot-key-load.png" {
		t.Errorf("charts %+v", p.Charts)
	}
}

// A name no step has is refused at its line, with what is allowed and the
// nearest name, in the first pass (nothing measured yet).
func TestRefusedNames(t *testing.T) {
	for _, c := range []struct{ call, want string }{
		{`{{plan "hot" "striped-32" "max_key_ops_per_sec"}}`, `page.md:5: <plan "hot" "striped-32" "max_key_ops_per_sec">: no metric "max_key_ops_per_sec" of striped-32 in hot (allowed: max_key_ops_per_s, utilisation, stripes_at_headroom); did you mean "max_key_ops_per_s"?`},
		{`{{measured "hot" "striped-23" "utilisation"}}`, `did you mean "striped-32"?`},
		{`{{measured "hto" "striped-32" "utilisation"}}`, `no step "hto" in the scenarios named (allowed: hot); did you mean "hot"?`},
		{`{{plna "hot" "striped-32" "utilisation"}}`, `page.md:5: function "plna" not defined (allowed: `},
		{`{{plan "hot" "striped-32" "utilisation" | within "5%"}}`, `the number is planned, not measured`},
		{`{{plan "hot" "striped-32" "utilisation" "capcity"}}`, `no row of striped-32 utilisation in hot has "capcity" in its note (allowed: sim, full, mean, min, p50, p95, max, or a word of: "6,250 / 10,000 = 62.5% of a key's capacity")`},
		{`{{measured "hot" "striped-32" "utilisation" | within "five"}}`, `want a share ("5%") or an amount`},
	} {
		_, err := Parse("page.md", []byte("---\nscenarios: hot\n---\n\n"+c.call+"\n"))
		if err == nil {
			_, err = Execute(mustParse(t, "---\nscenarios: hot\n---\n\n"+c.call+"\n"), testData(false), Options{})
		}
		var se *scenarios.Error
		if !errors.As(err, &se) || se.Pos.Line != 5 || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want a *scenarios.Error at line 5 holding %q", c.call, err, c.want)
		}
	}
}

func TestSpread(t *testing.T) {
	d := testData(true)
	for _, st := range []struct {
		stat string
		v    float64
	}{{"mean", 6500}, {"min", 6400}, {"max", 6610}} {
		d.Steps[0].Rows = append(d.Steps[0].Rows, metrics.Result{Scenario: "hot", Strategy: "striped-32", Metric: "utilisation", Value: metrics.Measured(st.v), Stat: st.stat, Scale: metrics.Sim})
	}
	tm := mustParse(t, "---\nscenarios: hot\n---\n"+`{{measured "hot" "striped-32" "utilisation" | int}} ({{spread "hot" "striped-32" "utilisation"}})`)
	p, err := Execute(tm, d, Options{})
	if err != nil || p.Text != "6,500 (6,400–6,610)" {
		t.Errorf("got %q, %v", p.Text, err)
	}
	tm = mustParse(t, "---\nscenarios: hot\n---\n"+`{{spread "hot" "striped-32" "max_key_ops_per_s"}}`)
	if _, err := Execute(tm, testData(true), Options{}); err == nil || !strings.Contains(err.Error(), "has no measurement (min)") {
		t.Errorf("a spread of a run not in trials: got %v", err)
	}
}

// Several rows of one metric must be told apart by a word of the note.
func TestAmbiguousRow(t *testing.T) {
	tm := mustParse(t, "---\nscenarios: hot\n---\n"+`{{measured "hot" "truth" "distinct"}}`)
	_, err := Execute(tm, testData(true), Options{})
	if err == nil || !strings.Contains(err.Error(), `say which with a word of its note (allowed: "day 1, exact", "all days, exact union")`) {
		t.Errorf("got %v", err)
	}
}

func TestFrontMatter(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"no front matter", "page.md:1: a template opens with its front matter"},
		{"---\nscenarios: a\n", `page.md:2: front matter: no closing line "---"`},
		{"---\nscenario: a\n---\n", `page.md:2: front matter: unknown key "scenario" (allowed: scenarios); did you mean "scenarios"?`},
		{"---\n# a comment\n---\n", "page.md:3: front matter: no scenarios: line"},
		{"---\nscenarios: a,,b\n---\n", "page.md:2: front matter: scenarios: want names separated by commas"},
		{"---\nscenarios: a\nscenarios: b\n---\n", "page.md:3: front matter: scenarios given twice (line 2)"},
		{"---\nscenarios: a\n---\n\n{{plan \"a\"\n", "page.md:6: unclosed action started at page.md:5"},
		{"---\nscenarios: a\n---\nx\uE000y\n", "page.md:4: the characters U+E000–U+E002"},
	} {
		_, err := Parse("page.md", []byte(c.src))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q…", c.src, err, c.want)
		}
	}
	tm := mustParse(t, "---\n# why\nscenarios: cricket-final, search ,trending\n---\n")
	if got := strings.Join(tm.Scenarios, "|"); got != "cricket-final|search|trending" || tm.ScenariosLine != 3 {
		t.Errorf("scenarios %q at line %d", got, tm.ScenariosLine)
	}
}

func TestFormulaOfNote(t *testing.T) {
	for _, c := range []struct {
		note string
		plan float64
		want string
	}{
		{"peak / K = 200,000 / 32 = 6,250 a stripe (the mean; …)", 6250, "200,000 / 32 = 6,250"},
		{"⌈peak / key capacity⌉ = ⌈200,000 / 10,000⌉ = 20", 20, "⌈200,000 / 10,000⌉ = 20"},
		{"max(0, 20,000 − 2,000): what the key's queue grows by each second", 18000, "20,000 − 2,000 = 18,000"},
		{"worst case, peak / A × T = 200,000 / 200 × 1 s = 1,000: a server holds up to T", 1000, "200,000 / 200 × 1 s = 1,000"},
		{"S × K = 8 × 10 local leaders", 80, "8 × 10 = 80"},
		{"6,250 / 10,000 = 62.5% of a key's capacity", 0.625, "6,250 / 10,000 = 62.5%"},
		{"1.04/√m, relative", 0.8, ""},
	} {
		d := testData(false)
		d.Steps[0].Rows = []metrics.Result{{Scenario: "hot", Strategy: "striped-32", Metric: "utilisation", Plan: metrics.PlanOf(c.plan), Note: c.note}}
		r := &renderer{data: d}
		got, err := r.formula("hot", "striped-32", "utilisation")
		if got != c.want || (err != nil) != (c.want == "") {
			t.Errorf("%q: got %q, %v; want %q", c.note, got, err, c.want)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{Fixed(28.571, 1), "28.6"}, {Fixed(1234567.891, 2), "1,234,567.89"}, {Fixed(-0.04, 1), "-0.0"},
		{Sig(293.148, 3), "293"}, {Sig(0.8125, 2), "0.81"}, {Sig(26041.7, 3), "26,000"}, {Sig(1.5, 3), "1.5"},
		{Bytes(12288), "12.3 KB"}, {Bytes(320e6), "320 MB"}, {Bytes(543660), "544 KB"}, {Bytes(2e9), "2 GB"}, {Bytes(512), "512 B"},
		{Bytes(999_999), "1 MB"},
		{Words(48e6), "48 million"}, {Words(2e9), "2 billion"}, {Words(47880507.6), "47.9 million"}, {Words(1234), "1,234"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// render writes the document of tm against d.
func document(t *testing.T, tm *Template, d *Data) string {
	t.Helper()
	p, err := Execute(tm, d, Options{})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := p.Document("builtin:test", []string{"assumptions.key_capacity=5000"})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestCompare(t *testing.T) {
	tm := mustParse(t, "---\nscenarios: hot\n---\n# Title\n\n"+
		`Each takes {{formula "hot" "striped-32" "max_key_ops_per_s"}}. The busiest took {{measured "hot" "striped-32" "max_key_ops_per_s" | within "5%" | int}} a second.`+"\n"+
		`A line on its own, {{plan "hot" "striped-32" "utilisation" | pct}}.`+"\n")
	doc := document(t, tm, testData(true))
	text, stamp, ok, err := ReadDocument(doc)
	if !ok || err != nil || stamp.Template != "builtin:test" || len(stamp.Set) != 1 || len(stamp.Measured) != 1 {
		t.Fatalf("ReadDocument: %v %v %+v", ok, err, stamp)
	}
	now := func(busiest float64) *Page {
		d := testData(true)
		for i, r := range d.Steps[0].Rows {
			if r.Value != nil && r.Metric == "max_key_ops_per_s" {
				d.Steps[0].Rows[i].Value = metrics.Measured(busiest)
			}
		}
		p, err := Execute(tm, d, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	if c := Compare(text, stamp, now(6518)); len(c) != 0 {
		t.Errorf("untouched: got changes %+v", c)
	}
	if c := Compare(text, stamp, now(6518*1.04)); len(c) != 0 {
		t.Errorf("moved 4%% of a figure within 5%%: got changes %+v", c)
	}
	c := Compare(text, stamp, now(6518*1.06))
	if len(c) != 1 || c[0].Line != 3 || c[0].Old != "The busiest took 6,518 a second." || c[0].New != "The busiest took 6,909 a second." {
		t.Errorf("moved 6%% of a figure within 5%%: got %+v, want the one sentence on line 3", c)
	}
	// A number edited by hand in the page, plan or measured, is a change.
	for _, edit := range [][2]string{{"= 6,250", "= 6,251"}, {"took 6,518", "took 6,519"}, {"62.5%", "62.6%"}} {
		edited := strings.Replace(text, edit[0], edit[1], 1)
		c := Compare(edited, stamp, now(6518))
		if len(c) != 1 || !strings.Contains(c[0].Old, edit[1]) || !strings.Contains(c[0].New, edit[0]) {
			t.Errorf("edit %q → %q: got %+v", edit[0], edit[1], c)
		}
	}
	// A sentence gone and one added.
	c = Compare(strings.Replace(text, "# Title\n", "# Title\n\nAn extra line.\n", 1), stamp, now(6518))
	if len(c) != 1 || c[0].Old != "An extra line." || c[0].New != "" || c[0].Line != 3 {
		t.Errorf("a line added to the page: got %+v", c)
	}
}

func TestReadDocument(t *testing.T) {
	for _, doc := range []string{"", "# a page\n", "text\n<!-- countsim-render {bad -->\n"} {
		_, _, ok, err := ReadDocument(doc)
		if doc == "text\n<!-- countsim-render {bad -->\n" {
			if !ok || err == nil {
				t.Errorf("%q: got ok %v err %v, want a stamp that does not read", doc, ok, err)
			}
			continue
		}
		if ok {
			t.Errorf("%q: got a stamp", doc)
		}
	}
}

func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	if len(names) == 0 || names[0] != "cricket-final" && !strings.Contains(strings.Join(names, " "), "cricket-final") {
		t.Fatalf("built-ins %v, want cricket-final among them", names)
	}
	for _, n := range names {
		if _, err := Builtin(n); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, err := Builtin("cricket-finale"); err == nil || !strings.Contains(err.Error(), `did you mean "cricket-final"?`) {
		t.Errorf("got %v", err)
	}
}
