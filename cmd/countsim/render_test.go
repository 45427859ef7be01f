package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/render"
)

// practicePage is a template over practice-stripes (a fifth of a second a
// run): two plans with their formulas and one measurement with a
// tolerance.
const practicePage = `---
scenarios: practice-stripes
---
# Practice

At 70% of the limit it takes {{formula "practice-stripes" "striped-22" "stripes_at_headroom"}} sub-counters, {{plan "practice-stripes" "striped-22" "stripes_pow2" | int}} as a power of two.
Each of the 22 takes {{formula "practice-stripes" "striped-22" "max_key_ops_per_s"}} a second.
The busiest of 32 took {{measured "practice-stripes" "striped-32" "max_key_ops_per_s" | within "5%" | int}} in its busiest second.
`

// renderPractice writes the template into a fresh folder and renders it
// to page.md there; it returns the folder, the template and the page.
func renderPractice(t *testing.T) (dir, tmpl, page string) {
	t.Helper()
	dir = t.TempDir()
	tmpl = filepath.Join(dir, "practice.tmpl.md")
	page = filepath.Join(dir, "page.md")
	if err := os.WriteFile(tmpl, []byte(practicePage), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := cli(t, "render", "-q", "-out", page, tmpl); code != 0 {
		t.Fatalf("render: exit %d\n%s", code, stderr)
	}
	return dir, tmpl, page
}

func TestRenderAndCheck(t *testing.T) {
	dir, tmpl, page := renderPractice(t)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, want := range []string{
		"At 70% of the limit it takes 120,000 / 5,600 = 21.4 sub-counters, 32 as a power of two.",
		"Each of the 22 takes 120,000 / 22 = 5,454.5 a second.",
		`<!-- countsim-render {"template":"practice.tmpl.md","measured":[{"v":`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("the page lacks %q:\n%s", want, doc)
		}
	}
	// The run behind it is a normal run, its folder beside the page, its
	// manifest naming the template.
	mans, _ := filepath.Glob(filepath.Join(dir, "practice-stripes-*", "manifest.json"))
	if len(mans) != 1 {
		t.Fatalf("report folders beside the page: %v, want one", mans)
	}
	var man struct{ Template string }
	if b, err := os.ReadFile(mans[0]); err != nil || json.Unmarshal(b, &man) != nil || man.Template != tmpl {
		t.Errorf("manifest's template %q, want %q (%v)", man.Template, tmpl, err)
	}

	out, stderr, code := cli(t, "render", "-q", "-check", page)
	if code != 0 || !strings.HasPrefix(out, "ok: "+page+" is up to date") {
		t.Fatalf("check of the untouched page: exit %d\n%s%s", code, out, stderr)
	}

	// One number changed by hand: the sentence is named, as the page has
	// it and as it should be.
	if err := os.WriteFile(page, []byte(strings.Replace(doc, "= 21.4", "= 21.5", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code = cli(t, "render", "-q", "-check", page)
	if code != 1 || !strings.Contains(out, page+":3:\n- At 70% of the limit it takes 120,000 / 5,600 = 21.5 sub-counters") ||
		!strings.Contains(out, "+ At 70% of the limit it takes 120,000 / 5,600 = 21.4 sub-counters") || !strings.Contains(stderr, "is stale: 1 sentence moved") {
		t.Errorf("check of an edited page: exit %d, want 1 naming the sentence\n%s%s", code, out, stderr)
	}
	if err := os.WriteFile(page, b, 0o644); err != nil {
		t.Fatal(err)
	}

	// One assumption changed: the plans move.
	out, stderr, code = cli(t, "render", "-q", "-check", "-set", "assumptions.key_capacity=5000", page)
	if code != 1 || !strings.Contains(out, "- At 70% of the limit it takes 120,000 / 5,600 = 21.4") ||
		!strings.Contains(out, "+ At 70% of the limit it takes 120,000 / 3,500 = 34.3 sub-counters, 64 as a power of two.") {
		t.Errorf("check with another key capacity: exit %d, want 1 naming the sentence\n%s%s", code, out, stderr)
	}

	// A page rendered with -set records it, and its check applies it
	// again: untouched, it is up to date.
	setPage := filepath.Join(dir, "set.md")
	if _, stderr, code := cli(t, "render", "-q", "-set", "assumptions.key_capacity=5000", "-out", setPage, tmpl); code != 0 {
		t.Fatalf("render -set: exit %d\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(setPage); !strings.Contains(string(b), "120,000 / 3,500 = 34.3") || !strings.Contains(string(b), `"set":["assumptions.key_capacity=5000"]`) {
		t.Errorf("the page rendered with -set:\n%s", b)
	}
	if out, stderr, code := cli(t, "render", "-q", "-check", setPage); code != 0 {
		t.Errorf("check of a page rendered with -set: exit %d\n%s%s", code, out, stderr)
	}

	// The page of the same template is rendered over; any other file is
	// left as it is.
	if _, stderr, code := cli(t, "render", "-q", "-out", page, tmpl); code != 0 {
		t.Errorf("render over its own page: exit %d\n%s", code, stderr)
	}
	other := filepath.Join(dir, "notes.md")
	os.WriteFile(other, []byte("my notes\n"), 0o644)
	if _, stderr, code := cli(t, "render", "-q", "-out", other, tmpl); code != 2 || !strings.Contains(stderr, "is not a page countsim render wrote") {
		t.Errorf("render over a file of one's own: exit %d, want 2\n%s", code, stderr)
	}
	if b, _ := os.ReadFile(other); string(b) != "my notes\n" {
		t.Errorf("the file was written over: %q", b)
	}
	tmpl2 := filepath.Join(dir, "other.tmpl.md")
	os.WriteFile(tmpl2, []byte(practicePage), 0o644)
	if _, stderr, code := cli(t, "render", "-q", "-out", page, tmpl2); code != 2 || !strings.Contains(stderr, "is a page rendered from practice.tmpl.md, not from") {
		t.Errorf("render over another template's page: exit %d, want 2\n%s", code, stderr)
	}
}

// A measured figure may move within its tolerance; past it, the page is
// stale.
func TestRenderCheckTolerance(t *testing.T) {
	_, _, page := renderPractice(t)
	b, _ := os.ReadFile(page)
	doc := string(b)
	i := strings.Index(doc, `"v":`)
	j := i + strings.IndexByte(doc[i:], ',')
	var v float64
	if err := json.Unmarshal([]byte(doc[i+4:j]), &v); err != nil || v < 3750 {
		t.Fatalf("the stamp's measured value %q: %v", doc[i+4:j], err)
	}
	var mark struct {
		Measured []struct {
			V    float64
			Text string
		}
	}
	k := strings.LastIndex(doc, "<!-- countsim-render ")
	if err := json.Unmarshal([]byte(strings.TrimSuffix(strings.TrimSpace(doc[k+len("<!-- countsim-render "):]), " -->")), &mark); err != nil || len(mark.Measured) != 1 {
		t.Fatalf("the stamp: %v %+v", err, mark)
	}
	was := mark.Measured[0]
	for _, c := range []struct {
		shift float64
		code  int
	}{{1.03, 0}, {1.08, 1}} {
		// The page as if the run had measured v×shift when it was
		// written: the sentence and the stamp say that value.
		v := math.Round(was.V * c.shift)
		moved, _ := json.Marshal(v)
		text := metrics.Format(v)
		edited := strings.Replace(doc, "took "+was.Text+" in", "took "+text+" in", 1)
		edited = strings.Replace(edited, fmt.Sprintf(`{"v":%s,"text":%q`, strconv.FormatFloat(was.V, 'f', -1, 64), was.Text),
			fmt.Sprintf(`{"v":%s,"text":%q`, moved, text), 1)
		if edited == doc || strings.Count(edited, text) < 2 {
			t.Fatalf("the edit did not take:\n%s", edited)
		}
		os.WriteFile(page, []byte(edited), 0o644)
		out, stderr, code := cli(t, "render", "-q", "-check", page)
		if code != c.code {
			t.Errorf("measured ×%g against 5%%: exit %d, want %d\n%s%s", c.shift, code, c.code, out, stderr)
		}
		if c.code == 1 && !strings.Contains(out, "- The busiest of 32 took "+text) {
			t.Errorf("measured ×%g: the sentence is not named\n%s", c.shift, out)
		}
	}
}

// A misspelt metric is refused at its line with the nearest name, exit 2,
// before anything runs: no page, no report folder.
func TestRenderRefusesMisspeltMetric(t *testing.T) {
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "bad.md")
	src := strings.Replace(practicePage, `"striped-32" "max_key_ops_per_s"`, `"striped-32" "max_key_ops_per_sec"`, 1)
	os.WriteFile(tmpl, []byte(src), 0o644)
	page := filepath.Join(dir, "page.md")
	_, stderr, code := cli(t, "render", "-q", "-out", page, tmpl)
	if code != 2 || !strings.Contains(stderr, tmpl+`:8: <measured "practice-stripes" "striped-32" "max_key_ops_per_sec">: no metric "max_key_ops_per_sec" of striped-32 in practice-stripes (allowed: `) ||
		!strings.Contains(stderr, `did you mean "max_key_ops_per_s"?`) {
		t.Errorf("exit %d, want 2 with the file:line and the nearest name\n%s", code, stderr)
	}
	if left, _ := os.ReadDir(dir); len(left) != 1 {
		t.Errorf("the folder holds %d entries, want the template alone", len(left))
	}
	for _, c := range [][]string{
		{"render"}, {"render", "a", "b"}, {"render", "-list", "x"}, {"render", "-check", page, tmpl}, {"render", "-check"},
		{"render", "cricket-finale"}, {"render", "-check", tmpl}, {"render", "-check", filepath.Join(dir, "none.md")},
	} {
		if _, stderr, code := cli(t, c...); code != 2 {
			t.Errorf("countsim %v: exit %d, want 2\n%s", c, code, stderr)
		}
	}
	if _, stderr, _ := cli(t, "render", "cricket-finale"); !strings.Contains(stderr, `did you mean "cricket-final"?`) {
		t.Errorf("a misspelt built-in: %s", stderr)
	}
}

func TestRenderList(t *testing.T) {
	out, _, code := cli(t, "render", "-list")
	if code != 0 || !strings.Contains(out, "cricket-final\n") {
		t.Errorf("render -list: exit %d\n%s", code, out)
	}
}

// Every built-in template passes the first pass against the scenarios it
// names, prepared as a run prepares them (nothing runs): a metric or
// design renamed under a page fails here, at the page's line.
func TestBuiltinTemplatesName(t *testing.T) {
	for _, name := range render.BuiltinNames() {
		tm, _, err := loadTemplate(name, "")
		if err != nil {
			t.Fatal(err)
		}
		setups, err := prepareAll(tm.Scenarios, &cmdEnv{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if _, err := render.Execute(tm, planData(setups), render.Options{ChartPrefix: name}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, want := range []string{"docs/" + name + ".md"} {
			if _, err := os.Stat(filepath.Join("..", "..", want)); err != nil {
				t.Errorf("%s: no rendered copy committed (make docs): %v", name, err)
			}
		}
	}
}

// The committed cricket-final page says the seed's numbers, each as
// planned and, where measured, beside the measurement (make test's
// render -check holds the page to the code).
func TestCricketFinalPageHoldsTheSeedsNumbers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cricket-final.md"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{
		"200,000 / 7,000 = 28.6", "28.6 → 32 stripes",
		"200,000 / 32 = 6,250 increments a second, 62.5% of its limit",
		"160,000 sub-counter reads a second (measured: ", "read 32 times a second (measured: 32)",
		"up to 200,000 / 200 × 1 s = 1,000 counts", "The run crashed one server and lost ",
		"takes 320,000,000 B (320 MB)", "takes 12,288 B (12.3 KB), 26,042× smaller",
		"the true audience is 48 million", "Adding the two days' counts gives 78 million",
		"by merge, against 78.1 million by sum",
		"27,183 × 5 = 135,915 counters of 4 B, 543,660 B (544 KB)", "εN = 200,000",
		"scores 250, and one searched 300 times a minute ago scores 293",
		"so 8 shards", "8 × 10 = 80 candidates",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/cricket-final.md lacks %q", want)
		}
	}
}

// The README's figures of the search day and the fantasy board are the
// rendered page docs/readme.md (make test's render -check holds that page
// to the code): the README holds its text between its render lines.
// -update writes the page's text there.
func TestREADMEFiguresAreRendered(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "docs", "readme.md"))
	if err != nil {
		t.Fatal(err)
	}
	text, _, ok, err := render.ReadDocument(string(b))
	if !ok || err != nil {
		t.Fatalf("docs/readme.md: not a rendered page (%v)", err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const open, end = "<!-- render: docs/readme.md (make docs), its text kept here by TestREADMEFiguresAreRendered -->\n", "<!-- /render -->"
	s := string(readme)
	i, j := strings.Index(s, open), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no render lines %q … %q", open, end)
	}
	have := s[i+len(open) : j]
	if have == text {
		return
	}
	if *update {
		if err := os.WriteFile(filepath.Join(root, "README.md"), []byte(s[:i+len(open)]+text+s[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's rendered paragraphs differ from docs/readme.md: run go test ./cmd/countsim -run TestREADMEFiguresAreRendered -update\nREADME:\n%s\npage:\n%s", have, text)
}
