package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{plural(0, "design"), "0 designs"}, {plural(1, "design"), "1 design"}, {plural(2, "scenario"), "2 scenarios"},
		{plural(int64(12_205_000), "event"), "12,205,000 events"}, {plural(1, "timing row"), "1 timing row"},
		{pluralNoun(1, "design"), "design"}, {pluralNoun(3, "design"), "designs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// No message of the CLI puts a count before a plural it may not agree with
// ("1 designs") or hedges with "(s)": counts go through plural.
func TestNoPluralByHand(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	byHand := regexp.MustCompile(`%d [a-z]+s\b|[a-z]\(s\)`)
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && byHand.MatchString(s) {
				t.Errorf("%s: %q: a count's plural by hand (use plural)", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}

// oneDesign writes a scenario file with a single design.
func oneDesign(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "one.yaml")
	src := "name: one\nassumptions: {key_capacity: 10000}\nworkload:\n  keys: 1\n  phases: [{duration: 2s, rate: 2000}]\ncluster: {}\nstrategies: [{name: s, type: single-key}]\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// validate checks every file it is given, says ok or the error of each,
// and exits 2 if any failed.
func TestValidateEveryFile(t *testing.T) {
	one := oneDesign(t)
	bad := badScenario(t, "seed: 1", "seed: 1\nsede: 8")
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	stdout, stderr, code := cli(t, "validate", bad, "testdata/small.yaml", missing, one)
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	wantOut := "ok: testdata/small.yaml (small, 3 designs)\nok: " + one + " (one, 1 design)\n"
	if stdout != wantOut {
		t.Errorf("stdout %q, want %q", stdout, wantOut)
	}
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "countsim: "+bad+":18: unknown key \"sede\"") ||
		!strings.HasPrefix(lines[1], "countsim: "+missing) || lines[2] != "countsim: validate: 2 of 4 scenarios failed" {
		t.Errorf("stderr:\n%s\nwant the errors of %s and %s, then the count", stderr, bad, missing)
	}
	// Every file good: exit 0, a line each.
	if stdout, stderr, code := cli(t, "validate", one, "testdata/small.yaml"); code != 0 || strings.Count(stdout, "ok: ") != 2 || stderr != "" {
		t.Errorf("two good files: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A scenario told in steps: a line a step.
	if stdout, _, code := cli(t, "validate", "cricket-final"); code != 0 || strings.Count(stdout, "ok: ") < 2 || !strings.Contains(stdout, "(cricket-final/") {
		t.Errorf("cricket-final: exit %d, %q; want a line a step", code, stdout)
	}
	// A name given twice is the second one's error.
	if _, stderr, code := cli(t, "validate", "testdata/small.yaml", "testdata/small.yaml"); code != 2 || !strings.Contains(stderr, `scenario name "small" given twice`) {
		t.Errorf("small twice: exit %d, %q", code, stderr)
	}
}

// The CLI's messages that count say "1 bound", "1 trap", "1 row": never "1 rows".
func TestMessagesSayOneInTheSingular(t *testing.T) {
	_, stderr, code := cli(t, "check", smallWith(t, `["max_overestimate <= 1"]`))
	if code != 1 || !strings.Contains(stderr, "1 of 1 bound failed") {
		t.Errorf("check with one bound failing: exit %d, %q; want 1 of 1 bound failed", code, stderr)
	}
	_, stderr, code = cli(t, "check", smallWithLines(t, "    shows: [\"max_overestimate <= 1\"]\n"))
	if code != 1 || !strings.Contains(stderr, "1 of 1 trap not shown") {
		t.Errorf("check with one trap not shown: exit %d, %q; want 1 of 1 trap not shown", code, stderr)
	}
	dir := t.TempDir()
	old, new := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	row := `[{"scenario": "s", "strategy": "d", "metric": "m", "value": %s, "unit": "", "plan": null, "scale": "sim"}]`
	if err := os.WriteFile(old, []byte(strings.Replace(row, "%s", "1", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(new, []byte(strings.Replace(row, "%s", "2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := cli(t, "diff", old, new); code != 1 || !strings.Contains(stderr, "countsim: 1 row changed between") {
		t.Errorf("diff of one row: exit %d, %q; want 1 row changed", code, stderr)
	}
	if stdout, _, code := cli(t, "diff", old, old); code != 0 || stdout != "no change: 1 row compared\n" {
		t.Errorf("diff of a file with itself: exit %d, %q", code, stdout)
	}
}
