package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"countsim/metrics"
)

// resultsFile writes rows as a results.json in a folder of its own and
// returns the file's path.
func resultsFile(t *testing.T, rows ...metrics.Result) string {
	t.Helper()
	var buf bytes.Buffer
	if err := metrics.WriteJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// countsim diff on hand-made runs: the exit code says whether a row other
// than a timing row changed (0 no, 1 yes, 2 bad input), -tol is a fraction
// of the larger value and strictly beyond it, a plan is compared exactly,
// timing rows are ratios with their geometric mean.
func TestDiffEdgesCLI(t *testing.T) {
	row := func(metric metrics.Metric, value, plan *float64) metrics.Result {
		return metrics.Result{Scenario: "s", Strategy: "d", Metric: metric, Value: value, Plan: plan, Scale: metrics.Sim, Unit: "u"}
	}
	timing := func(metric metrics.Metric, value float64) metrics.Result {
		r := row(metric, metrics.Measured(value), nil)
		r.Timing = true
		return r
	}
	v, p := metrics.Measured, metrics.PlanOf
	base := resultsFile(t, row("x", v(3), p(100)), timing("ns_per_event", 10), timing("events_per_s", 100))
	cases := []struct {
		name  string
		flags []string
		new   string
		code  int
		lines []string // lines stdout must hold
	}{
		{"same", nil, resultsFile(t, row("x", v(3), p(100)), timing("ns_per_event", 10), timing("events_per_s", 100)), 0,
			[]string{"no change: 3 rows compared", "geometric mean ×1.00 over 2 timing rows"}},
		{"timing only", nil, resultsFile(t, row("x", v(3), p(100)), timing("ns_per_event", 40), timing("events_per_s", 25)), 0,
			[]string{"no change: 3 rows compared", "timing    s/d ns_per_event (sim): 10 → 40 (×4.00)", "timing    s/d events_per_s (sim): 100 → 25 (×0.25)",
				"geometric mean ×1.00 over 2 timing rows"}},
		{"at exactly tol", []string{"-tol", "0.25"}, resultsFile(t, row("x", v(4), p(100)), timing("ns_per_event", 10), timing("events_per_s", 100)), 0,
			[]string{"no change: 3 rows compared"}},
		{"beyond tol", []string{"-tol", "0.2"}, resultsFile(t, row("x", v(4), p(100)), timing("ns_per_event", 10), timing("events_per_s", 100)), 1,
			[]string{"moved     s/d x (sim): 3 → 4 (+33.33%)"}},
		{"a plan within tol", []string{"-tol", "1"}, resultsFile(t, row("x", v(3), p(101)), timing("ns_per_event", 10), timing("events_per_s", 100)), 1,
			[]string{"plan      s/d x (sim): 100 → 101 (+1.00%)"}},
		{"rows appear and vanish", nil, resultsFile(t, row("y", nil, p(7)), timing("ns_per_event", 20)), 1,
			[]string{"appeared  s/d y (sim): 7", "vanished  s/d x (sim): was 3", "vanished  s/d events_per_s (sim): was 100",
				"timing    s/d ns_per_event (sim): 10 → 20 (×2.00)", "geometric mean ×2.00 over 1 timing row"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"diff"}, c.flags...), base, c.new)
			stdout, stderr, code := cli(t, args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, stdout, stderr)
			}
			for _, l := range c.lines {
				if !strings.Contains("\n"+stdout, "\n"+l) {
					t.Errorf("stdout has no line %q:\n%s", l, stdout)
				}
			}
			if c.code == 1 && !strings.Contains(stderr, "changed between "+base+" and "+c.new) {
				t.Errorf("stderr %q does not name the two files", stderr)
			}
		})
	}
	// The timing ratio printed is the new run's over the old, whatever the
	// order of the timing row: swapping the runs inverts it.
	if stdout, _, code := cli(t, "diff", cases[1].new, base); code != 0 || !strings.Contains(stdout, "ns_per_event (sim): 40 → 10 (×0.25)") {
		t.Errorf("swapped: exit %d\n%s", code, stdout)
	}
}

// Bad input to countsim diff is exit 2 with a message naming the file, and
// the line for a file that is not one JSON array of rows.
func TestDiffBadInput(t *testing.T) {
	good := resultsFile(t, metrics.Result{Scenario: "s", Strategy: "d", Metric: "x", Value: metrics.Measured(1), Scale: metrics.Sim})
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	twice := file("twice.json", string(data)+string(data)) // two runs' arrays, one after the other
	for _, c := range []struct {
		name string
		args []string
		want []string // in stderr
	}{
		{"two arrays", []string{good, twice}, []string{twice, "line 13: invalid character '[' after top-level value"}},
		{"empty", []string{file("empty.json", ""), good}, []string{"empty.json", "empty (allowed: a JSON array of result rows"}},
		{"null", []string{good, file("null.json", "null\n")}, []string{"null.json", "line 1: null"}},
		{"a string for a number", []string{good, file("str.json", "[\n {\"value\": \"1\"}\n]")}, []string{"str.json", `line 2: field "value" is a JSON string`}},
		{"a folder without results", []string{good, t.TempDir()}, []string{"results.json", "allowed: a results.json file or a report folder"}},
		{"tol below 0", []string{"-tol", "-0.1", good, good}, []string{"-tol -0.1: want a fraction from 0 to 1"}},
		{"tol above 1", []string{"-tol", "1.5", good, good}, []string{"-tol 1.5: want a fraction from 0 to 1"}},
		{"tol NaN", []string{"-tol", "NaN", good, good}, []string{"-tol NaN: want a fraction from 0 to 1"}},
		{"three files", []string{good, good, good}, []string{"name two results.json files"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			stdout, stderr, code := cli(t, append([]string{"diff"}, c.args...)...)
			if code != 2 || stdout != "" {
				t.Errorf("exit %d, stdout %q; want 2 and nothing", code, stdout)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q does not say %q", stderr, w)
				}
			}
		})
	}
	for _, tol := range []string{"0", "1"} {
		if _, stderr, code := cli(t, "diff", "-tol", tol, good, good); code != 0 {
			t.Errorf("-tol %s: exit %d (%s), want 0", tol, code, stderr)
		}
	}
}
