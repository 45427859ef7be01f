package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim"
)

// smallWith writes testdata/small.yaml with count-min's expectations.
func smallWith(t *testing.T, expect string) string {
	t.Helper()
	return smallWithLines(t, "    expect: "+expect+"\n")
}

// smallWithLines writes testdata/small.yaml with lines added to count-min's
// entry.
func smallWithLines(t *testing.T, lines string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	old := "      top: 10\n"
	if !strings.Contains(string(src), old) {
		t.Fatal("small.yaml has no count-min top line")
	}
	p := filepath.Join(t.TempDir(), "small.yaml")
	out := strings.Replace(string(src), old, old+lines, 1)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// junitFile is what the tests read of check's JUnit report.
type junitFile struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Suites   []struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Line    int    `xml:"line,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readJUnit reads the JUnit report at path.
func readJUnit(t *testing.T, path string) junitFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f junitFile
	if err := xml.Unmarshal(data, &f); err != nil {
		t.Fatalf("JUnit file: %v\n%s", err, data)
	}
	return f
}

// A bound that cannot hold fails with the measured number beside it, exit
// 1, and one JUnit failure; the same bound against the plan holds, exit 0.
func TestCheckVerdicts(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "check.xml")
	stdout, _, code := cli(t, "check", "-junit", junit, smallWith(t, `["max_overestimate <= 10", "undercounts == 0"]`))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stdout)
	}
	fail := lineWith(stdout, "max_overestimate <= 10")
	if !strings.HasPrefix(fail, "FAIL") || !strings.Contains(fail, "count-min") {
		t.Errorf("failing line %q, want FAIL for count-min", fail)
	}
	if !strings.HasPrefix(lineWith(stdout, "undercounts == 0"), "PASS") || !strings.Contains(stdout, "1 passed, 1 failed; 0 shown, 0 not shown") {
		t.Errorf("got\n%s\nwant undercounts passing and the summary 1 passed, 1 failed", stdout)
	}
	suites := readJUnit(t, junit)
	if suites.Tests != 2 || suites.Failures != 1 || len(suites.Suites) != 1 || suites.Suites[0].Cases[0].Failure == nil ||
		suites.Suites[0].Cases[0].Line == 0 || suites.Suites[0].Cases[1].Failure != nil {
		t.Errorf("JUnit: %+v, want 2 tests, the first failed with its line", suites)
	}

	stdout, _, code = cli(t, "check", smallWith(t, `["max_overestimate <= plan"]`))
	if code != 0 || !strings.HasPrefix(lineWith(stdout, "max_overestimate <= plan"), "PASS") {
		t.Errorf("against the plan: exit %d\n%s", code, stdout)
	}
}

// A trap (shows:) is judged as a bound is and printed apart: SHOWN when it
// holds, NOT SHOWN when not, under its own heading after the bounds, the
// legend above them; a trap not shown fails check (exit 1) as a failed
// bound does, and JUnit keeps both, a trap's case named "shows".
func TestCheckTraps(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "check.xml")
	p := smallWithLines(t, "    expect: [\"undercounts == 0\"]\n    shows: [\"max_overestimate > 0\", \"max_overestimate > 1e12\"]\n")
	stdout, stderr, code := cli(t, "check", "-junit", junit, p)
	if code != 1 || !strings.Contains(stderr, "1 of 2 traps not shown") || strings.Contains(stderr, "bound") {
		t.Fatalf("exit %d, stderr %q, want 1 and the trap not shown named\n%s", code, stderr, stdout)
	}
	legend, bounds, traps := strings.Index(stdout, "SHOWN / NOT SHOWN"), strings.Index(stdout, "Bounds and goals (expect:)"), strings.Index(stdout, "Traps shown on purpose (shows:)")
	if legend < 0 || bounds < legend || traps < bounds {
		t.Errorf("want the legend, then the bounds, then the traps:\n%s", stdout)
	}
	if l := lineWith(stdout, "max_overestimate > 0"); !strings.HasPrefix(l, "SHOWN ") || strings.Index(stdout, l) < traps {
		t.Errorf("shown trap: %q, want SHOWN under the traps", l)
	}
	if l := lineWith(stdout, "max_overestimate > 1e12"); !strings.HasPrefix(l, "NOT SHOWN") {
		t.Errorf("trap not shown: %q, want NOT SHOWN", l)
	}
	if l := lineWith(stdout, "undercounts == 0"); !strings.HasPrefix(l, "PASS") || strings.Index(stdout, l) > traps {
		t.Errorf("bound: %q, want PASS above the traps", l)
	}
	if !strings.Contains(stdout, "1 passed, 0 failed; 1 shown, 1 not shown") {
		t.Errorf("summary missing:\n%s", stdout)
	}
	suites := readJUnit(t, junit)
	cs := suites.Suites[0].Cases
	if suites.Tests != 3 || suites.Failures != 1 || len(cs) != 3 || cs[1].Name != "count-min: shows max_overestimate > 0" || cs[1].Failure != nil ||
		cs[2].Failure == nil || !strings.HasPrefix(cs[2].Failure.Message, "trap not shown: measured") {
		t.Errorf("JUnit: %+v", suites)
	}
	// Every trap shown and every bound held: exit 0.
	if stdout, _, code := cli(t, "check", smallWithLines(t, "    shows: [\"max_overestimate > 0\"]\n")); code != 0 || !strings.Contains(stdout, "0 passed, 0 failed; 1 shown, 0 not shown") {
		t.Errorf("a trap shown: exit %d\n%s", code, stdout)
	}
}

// -junit writes a new file, or over check's own earlier JUnit report (CI
// re-runs in a dirty workspace); any other file there — the user's own, or
// another tool's JUnit, or a link — is refused before anything runs and
// left as it was.
func TestCheckJUnitPlace(t *testing.T) {
	dir := t.TempDir()
	p := smallWith(t, `["undercounts == 0"]`)
	own := filepath.Join(dir, "own.xml")
	if _, _, code := cli(t, "check", "-junit", own, p); code != 0 {
		t.Fatalf("first run: exit %d", code)
	}
	first, _ := os.ReadFile(own)
	// Over its own report: written again, with the new verdicts.
	if _, stderr, code := cli(t, "check", "-junit", own, smallWith(t, `["undercounts == 0", "bytes > 0"]`)); code != 0 {
		t.Fatalf("over its own report: exit %d, %s", code, stderr)
	}
	second, _ := os.ReadFile(own)
	if string(first) == string(second) || !strings.Contains(string(second), `tests="2"`) {
		t.Errorf("its own report was not written over:\n%s", second)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.new")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
	link := filepath.Join(dir, "link.xml")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{
		"mine.txt":   "my notes\n",
		"other.xml":  `<?xml version="1.0"?><testsuites name="go test" tests="1"></testsuites>`,
		"suffix.xml": string(second) + "<extra/>",
		"empty.xml":  "",
		"link.xml":   "",
	} {
		path := filepath.Join(dir, name)
		if name != "link.xml" {
			if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := os.ReadFile(path)
		stdout, stderr, code := cli(t, "check", "-junit", path, p)
		after, _ := os.ReadFile(path)
		if code != 2 || !strings.Contains(stderr, "not a JUnit report countsim check wrote") || stdout != "" || string(before) != string(after) {
			t.Errorf("-junit %s: exit %d, stderr %q, changed %v; want 2 before anything ran, the file as it was", name, code, stderr, string(before) != string(after))
		}
	}
	if _, stderr, code := cli(t, "check", "-junit", filepath.Join(dir, "no", "such.xml"), p); code != 2 || !strings.Contains(stderr, "no folder") {
		t.Errorf("-junit in a missing folder: exit %d, %q", code, stderr)
	}
}

// Expectations that cannot be judged are refused before anything runs,
// with the file and line and what is allowed.
func TestCheckRefusesBadExpectations(t *testing.T) {
	for _, c := range []struct{ expect, want string }{
		{`["max_overestimat <= 10"]`, `unknown metric "max_overestimat" (allowed: the metrics this run measures for count-min: bytes,`},
		{`["max_overestimat <= 10"]`, `; did you mean "max_overestimate"?`},
		{`["kth_estimate <= plan"]`, "count-min has no plan for kth_estimate at the simulated scale (planned: "},
		{`["bytes ~ 5"]`, "is not an expectation"},
		{`["sigma_large_n <= 1"]`, "this run never measures sigma_large_n for count-min (allowed: bytes,"},
	} {
		p := smallWith(t, c.expect)
		_, stderr, code := cli(t, "check", p)
		if code != 2 || !strings.Contains(stderr, p+":") || !strings.Contains(stderr, c.want) {
			t.Errorf("expect %s: exit %d, %q; want 2 with the file:line and %q", c.expect, code, stderr, c.want)
		}
	}
	// An unknown metric lists the design's metrics in this run, not every
	// metric countsim has: none that count-min never measures here.
	_, stderr, _ := cli(t, "check", smallWith(t, `["max_overestimat <= 10"]`))
	allowed := stderr[strings.Index(stderr, "(allowed: ")+len("(allowed: "):]
	allowed = allowed[strings.Index(allowed, ": ")+2 : strings.Index(allowed, ")")]
	names := strings.Split(allowed, ", ")
	if len(names) < 3 || len(names) >= len(metrics.All())/2 || slices.Contains(names, "sigma_large_n") || !slices.Contains(names, "max_overestimate") {
		t.Errorf("an unknown metric lists %d names of %d (%v), want count-min's alone", len(names), len(metrics.All()), names)
	}
}

// lineWith is the first line of s holding sub.
func lineWith(s, sub string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Contains(line, sub) {
			return line
		}
	}
	return ""
}

// Two runs of the same scenario and seed: no change, exit 0; with another
// seed, exit 1 listing what moved.
func TestDiff(t *testing.T) {
	runOf := func(seed string) string {
		src, err := os.ReadFile("testdata/small.yaml")
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "small.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(string(src), "seed: 7", "seed: "+seed, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		stdout, stderr, code := cli(t, "run", "-q", "-out", out, p)
		if code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		return strings.TrimSpace(strings.TrimPrefix(lineWith(stdout, "report: "), "report: "))
	}
	a, b, c := runOf("7"), runOf("7"), runOf("8")
	stdout, _, code := cli(t, "diff", a, filepath.Join(b, "results.json"))
	if code != 0 || !strings.HasPrefix(stdout, "no change") {
		t.Errorf("same seed: exit %d\n%s", code, stdout)
	}
	stdout, _, code = cli(t, "diff", a, c)
	if code != 1 || !strings.Contains(stdout, "moved     small/count-min max_overestimate (sim)") {
		t.Errorf("another seed: exit %d\n%s", code, stdout)
	}
	if _, _, code := cli(t, "diff", a); code != 2 {
		t.Errorf("one argument: exit %d, want 2", code)
	}
	if _, _, code := cli(t, "diff", a, filepath.Join(t.TempDir(), "none.json")); code != 2 {
		t.Errorf("a missing file: exit %d, want 2", code)
	}
}

// -out at a file is refused before anything runs; a folder a killed run
// left half-written is named.
func TestRunChecksOutFirst(t *testing.T) {
	file := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := cli(t, "run", "-q", "-out", file, "testdata/small.yaml")
	if code != 2 || !strings.Contains(stderr, "is a file") || strings.Contains(stderr, "running") || stdout != "" {
		t.Errorf("-out at a file: exit %d, stderr %q; want 2 before running", code, stderr)
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Errorf("the file at -out was changed")
	}
	out := t.TempDir()
	left := filepath.Join(out, ".countsim-report-123")
	if err := os.Mkdir(left, 0o755); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cli(t, "run", "-q", "-out", out, "testdata/small.yaml")
	if code != 0 || !strings.Contains(stderr, left+" is what a stopped or killed run left") {
		t.Errorf("left-over folder: exit %d, stderr %q; want it named", code, stderr)
	}
}

// Over trials, count-min's share of keys past its bound is judged against
// δ and the binomial test's p-value against the false-alarm level.
func TestCheckOverTrials(t *testing.T) {
	p := smallWith(t, `["share_over_bound <= plan", "bound_test_p >= 1e-6", "max_overestimate <= plan"]`)
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(src), "seed: 7\n", "seed: 7\ntrials: 5\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := cli(t, "check", p)
	if code != 0 || !strings.Contains(stdout, "3 passed, 0 failed;") || !strings.HasPrefix(lineWith(stdout, "bound_test_p"), "PASS") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}

// A stopped run's report judges only what was measured: an expectation
// whose rows the run never reached is left out with a note, never marked
// ✘; a complete run without those rows fails them.
func TestPartialReportJudgesWhatWasMeasured(t *testing.T) {
	scn, err := scenarios.Load(smallWith(t, `["undercounts == 0", "max_overestimate <= plan"]`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sim.Prepare(scn, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	measured := []metrics.Result{{Scenario: scn.Name, Strategy: "count-min", Metric: metrics.Undercounts, Value: metrics.Measured(0), Scale: metrics.Sim}}
	for _, c := range []struct {
		partial  bool
		verdicts int
		note     string
	}{
		{true, 1, "1 expectation not judged: the run stopped before its row was measured."},
		{false, 2, ""},
	} {
		r, err := reportRun(t.TempDir(), []*sim.Setup{st}, measured, nil, nil, c.partial, []byte("{}"))
		if err != nil {
			t.Fatal(err)
		}
		step := r.Scenarios[0].Steps[0]
		if len(step.Verdicts) != c.verdicts || !step.Verdicts[0].Pass {
			t.Errorf("partial %v: verdicts %+v, want %d, the first held", c.partial, step.Verdicts, c.verdicts)
		}
		if got := slices.Contains(step.Notes, c.note); got != (c.note != "") {
			t.Errorf("partial %v: notes %q, want %q", c.partial, step.Notes, c.note)
		}
	}
}
