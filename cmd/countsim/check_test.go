package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// smallWith writes testdata/small.yaml with count-min's expectations.
func smallWith(t *testing.T, expect string) string {
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
	out := strings.Replace(string(src), old, old+"    expect: "+expect+"\n", 1)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
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
	if !strings.HasPrefix(lineWith(stdout, "undercounts == 0"), "PASS") || !strings.Contains(stdout, "1 passed, 1 failed") {
		t.Errorf("got\n%s\nwant undercounts passing and the summary 1 passed, 1 failed", stdout)
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Line    int       `xml:"line,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatalf("JUnit file: %v\n%s", err, data)
	}
	if suites.Tests != 2 || suites.Failures != 1 || len(suites.Suites) != 1 || suites.Suites[0].Cases[0].Failure == nil ||
		suites.Suites[0].Cases[0].Line == 0 || suites.Suites[0].Cases[1].Failure != nil {
		t.Errorf("JUnit: %+v, want 2 tests, the first failed with its line", suites)
	}
	// The file is not written over: a second run with it is refused first.
	if _, stderr, code := cli(t, "check", "-junit", junit, smallWith(t, `["undercounts == 0"]`)); code != 2 || !strings.Contains(stderr, "already exists") {
		t.Errorf("-junit over a file: exit %d, %q; want 2", code, stderr)
	}

	stdout, _, code = cli(t, "check", smallWith(t, `["max_overestimate <= plan"]`))
	if code != 0 || !strings.HasPrefix(lineWith(stdout, "max_overestimate <= plan"), "PASS") {
		t.Errorf("against the plan: exit %d\n%s", code, stdout)
	}
}

// Expectations that cannot be judged are refused before anything runs,
// with the file and line and what is allowed.
func TestCheckRefusesBadExpectations(t *testing.T) {
	for _, c := range []struct{ expect, want string }{
		{`["max_overestimat <= 10"]`, `unknown metric "max_overestimat" (allowed: the metrics countsim reports: bytes,`},
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
	if code != 0 || !strings.Contains(stdout, "3 passed, 0 failed") || !strings.HasPrefix(lineWith(stdout, "bound_test_p"), "PASS") {
		t.Errorf("exit %d\n%s", code, stdout)
	}
}
