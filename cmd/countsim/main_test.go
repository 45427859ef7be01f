package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"countsim/metrics"
)

// cli runs the CLI in-process and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), &out, &errb, args)
	code := exitCode(err, &errb)
	return out.String(), errb.String(), code
}

func TestUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, 2}, {[]string{"frobnicate"}, 2}, {[]string{"run", "-nosuchflag"}, 2},
		{[]string{"plan"}, 2}, {[]string{"validate"}, 2}, {[]string{"list", "x"}, 2},
		{[]string{"help"}, 0}, {[]string{"run", "-h"}, 0}, {[]string{"plan", "-h"}, 0},
	} {
		_, _, code := cli(t, c.args...)
		if code != c.code {
			t.Errorf("countsim %v: got exit %d, want %d", c.args, code, c.code)
		}
	}
}

func TestListNamesBuiltinsAndTypes(t *testing.T) {
	out, _, code := cli(t, "list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"search", "count-min", "epsilon", "space-saving", "counters", "exact", "shards"} {
		if !strings.Contains(out, want) {
			t.Errorf("list output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlanSearch(t *testing.T) {
	out, errOut, code := cli(t, "plan", "search")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// The worked example's closed-form numbers (WORKED-EXAMPLES.md, search step 3).
	for _, want := range []string{"27,183", "135,915", "543,660", "200,000", "40,000,000,000", "32,000,000,000", "10,000,000,000", "40"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan search lacks %q:\n%s", want, out)
		}
	}
}

// badScenario writes a copy of testdata/small.yaml with one line replaced.
func badScenario(t *testing.T, old, new string) string {
	t.Helper()
	src, err := os.ReadFile("testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("testdata/small.yaml has no %q", old)
	}
	p := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(p, bytes.Replace(src, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestBadInputExits2AndWritesNothing(t *testing.T) {
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"unknown top-level key", "seed: 7", "seed: 7\nsede: 8", "sede"},
		{"unknown param", "      shards: 4", "      shards: 4\n      shrads: 2", "shrads"},
		{"epsilon out of range", "epsilon: 0.001", "epsilon: 1.5", "epsilon"},
		{"float for integer", "counters: 200", "counters: 2.5", "counters"},
		{"unknown type", "type: space-saving", "type: space-savings", "space-savings"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := badScenario(t, c.old, c.new)
			out := filepath.Join(t.TempDir(), "reports")
			for _, cmd := range []string{"validate", "run"} {
				args := []string{cmd, file}
				if cmd == "run" {
					args = []string{cmd, "-out", out, file}
				}
				_, errOut, code := cli(t, args...)
				if code != 2 {
					t.Errorf("%s: got exit %d, want 2 (%s)", cmd, code, errOut)
				}
				if !strings.Contains(errOut, "bad.yaml:") || !strings.Contains(errOut, c.want) {
					t.Errorf("%s: message %q does not name the file, line and %q", cmd, errOut, c.want)
				}
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("run wrote %s on bad input", out)
			}
		})
	}
}

// runResults runs the small scenario into a fresh folder and returns the
// rows of results.json that are not timing figures.
func runResults(t *testing.T, out string) []metrics.Result {
	t.Helper()
	stdout, errOut, code := cli(t, "run", "-out", out, "testdata/small.yaml")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	i := strings.LastIndex(stdout, "report: ")
	if i < 0 {
		t.Fatalf("run did not say where the report is:\n%s", stdout)
	}
	dir := strings.TrimSpace(stdout[i+len("report: "):])
	for _, f := range []string{"report.md", "results.csv", "results.json", "manifest.json"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("report folder lacks %s (%v)", f, err)
		}
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.svg"))
	pngs, _ := filepath.Glob(filepath.Join(dir, "plots", "*.png"))
	if len(svgs) == 0 || len(svgs) != len(pngs) {
		t.Errorf("plots: %d svg, %d png", len(svgs), len(pngs))
	}
	f, err := os.Open(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := metrics.ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	var kept []metrics.Result
	for _, r := range rs {
		if !r.Timing {
			kept = append(kept, r)
		}
	}
	return kept
}

func TestRunIsDeterministicAndNeverOverwrites(t *testing.T) {
	out := t.TempDir()
	a := runResults(t, out)
	prev := runtime.GOMAXPROCS(1)
	b := runResults(t, out) // same second or not, a new folder
	runtime.GOMAXPROCS(prev)
	dirs, _ := os.ReadDir(out)
	if len(dirs) != 2 {
		t.Errorf("two runs made %d folders, want 2", len(dirs))
	}
	var ja, jb bytes.Buffer
	if err := metrics.WriteJSON(&ja, a); err != nil {
		t.Fatal(err)
	}
	if err := metrics.WriteJSON(&jb, b); err != nil {
		t.Fatal(err)
	}
	if ja.String() != jb.String() {
		t.Errorf("results differ between GOMAXPROCS=%d and 1:\n%s\n---\n%s", prev, ja.String(), jb.String())
	}
	if len(a) < 20 {
		t.Errorf("only %d result rows", len(a))
	}
}
