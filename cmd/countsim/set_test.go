package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"countsim/metrics"
)

// planRow is the value of a plan's row of design, metric, at scale.
func planRow(t *testing.T, out, design, metric, scale string) string {
	t.Helper()
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(design) + `\s+` + regexp.QuoteMeta(metric) + `\s+(\S+)\s+\S+\s+` + scale + `\b`)
	m := re.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no %s %s %s row in:\n%s", design, metric, scale, out)
	}
	return m[1]
}

// The what-if: a key that takes 5,000 increments a second, not
// 10,000, needs 57.1 stripes at 70%, 64 as a power of two; and the plan says
// it was asked on the command line.
func TestPlanSetWhatIf(t *testing.T) {
	base, errOut, code := cli(t, "plan", "cricket-final")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out, errOut, code := cli(t, "plan", "-set", "assumptions.key_capacity=5000", "cricket-final")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, c := range []struct{ metric, base, set string }{
		{"stripes_at_headroom", "28.57", "57.14"},
		{"stripes_needed", "29", "58"},
		{"stripes_pow2", "32", "64"},
		{"utilisation", "0.625", "1.25"},
	} {
		if got := planRow(t, base, "striped-32", c.metric, "sim"); got != c.base {
			t.Errorf("without -set: %s %s, want %s", c.metric, got, c.base)
		}
		if got := planRow(t, out, "striped-32", c.metric, "sim"); got != c.set {
			t.Errorf("-set key_capacity=5000: %s %s, want %s", c.metric, got, c.set)
		}
	}
	if !strings.Contains(out, "Changed on the command line, over the file: -set assumptions.key_capacity=5000.") {
		t.Errorf("the plan does not say what -set changed:\n%s", out)
	}
	if strings.Contains(base, "Changed on the command line") {
		t.Error("a plan without -set says it was changed")
	}
	// Two in a row: both apply, in order; the step's own key by its name.
	out, errOut, code = cli(t, "plan", "-set", "assumptions.key_capacity=5000", "-set", "steps[views].workload.phases[peak].rate=400_000", "cricket-final")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := planRow(t, out, "striped-32", "stripes_pow2", "sim"); got != "128" {
		t.Errorf("400,000 a second on keys of 5,000: stripes_pow2 %s, want 128", got)
	}
}

// A bad -set exits 2, names the -set and what is allowed, and writes
// nothing, from every command that takes it.
func TestSetBadInputExits2(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"assumptions.key_capacity=abc", `-set assumptions.key_capacity=abc: assumptions.key_capacity: "abc" is not a number`},
		{"assumptions.key_capacty=5", `did you mean "key_capacity"?`},
		{"steps[views].strategies[striped-32].params.stripes=0", "-set steps[views].strategies[striped-32].params.stripes=0: steps[0].strategies[1].params.stripes: 0 is out of range"},
		{"steps[views].strategies[stripd-32].params.stripes=4", `no entry of strategies is named "stripd-32"`},
		{"workload.phases[0].rate=1", "steps[views].workload.phases[0].rate"},
		{"key_capacity", "no '=' between the path and the value"},
	} {
		out := filepath.Join(t.TempDir(), "reports")
		for _, cmd := range [][]string{{"validate"}, {"plan"}, {"check"}, {"run", "-out", out}} {
			args := append(append(cmd, "-set", c.arg), "cricket-final")
			_, errOut, code := cli(t, args...)
			if code != 2 {
				t.Errorf("%s -set %s: exit %d, want 2 (%s)", cmd[0], c.arg, code, errOut)
			}
			if !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "-set ") || strings.Count(errOut, "\n") > 3 {
				t.Errorf("%s -set %s: %q does not say %q in at most 3 lines", cmd[0], c.arg, errOut, c.want)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("run -set %s wrote %s", c.arg, out)
		}
	}
}

// run records its -set overrides in the manifest, scenario by scenario,
// and the report says them in the step's header.
func TestRunRecordsSets(t *testing.T) {
	out := t.TempDir()
	_, errOut, code := cli(t, "run", "-q", "-out", out, "-set", "workload.events=200_000", "-set", "workload.keys=20_000", "practice-sketch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "practice-sketch-*"))
	if len(dirs) != 1 {
		t.Fatalf("report folders %v", dirs)
	}
	raw, err := os.ReadFile(filepath.Join(dirs[0], "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Scenarios []struct {
			Name string
			Set  []string
		}
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Scenarios) != 1 || strings.Join(m.Scenarios[0].Set, " ") != "workload.events=200_000 workload.keys=20_000" {
		t.Errorf("manifest's scenarios %+v, want the two -set in order", m.Scenarios)
	}
	md, err := os.ReadFile(filepath.Join(dirs[0], "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "-set workload.events=200_000, -set workload.keys=20_000") {
		t.Error("report.md does not say the -set overrides")
	}
	rs, err := readResults(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	events := metrics.Select(rs, "truth", metrics.Events, metrics.Sim)
	if len(events) != 1 || events[0].Value == nil || *events[0].Value != 200_000 {
		t.Errorf("the truth's events %+v, want one row of the -set 200,000", events)
	}
}
