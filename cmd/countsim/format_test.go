package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run -format: what stdout holds. csv and json are the report folder's
// results.csv and results.json, byte for byte, and nothing else.
func TestRunFormat(t *testing.T) {
	for _, c := range []struct {
		format, file string
	}{
		{"csv", "results.csv"}, {"json", "results.json"},
	} {
		out := t.TempDir()
		stdout, stderr, code := cli(t, "run", "-q", "-format", c.format, "-out", out, "testdata/small.yaml")
		if code != 0 {
			t.Fatalf("-format %s: exit %d: %s", c.format, code, stderr)
		}
		dirs, _ := filepath.Glob(filepath.Join(out, "small-*"))
		if len(dirs) != 1 {
			t.Fatalf("-format %s: folders %v", c.format, dirs)
		}
		want, err := os.ReadFile(filepath.Join(dirs[0], c.file))
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want) {
			t.Errorf("-format %s: stdout is not %s:\n%s", c.format, c.file, stdout)
		}
		if !strings.Contains(stderr, "countsim: report: "+dirs[0]+"\n") {
			t.Errorf("-format %s: stderr %q does not say where the report is", c.format, stderr)
		}
	}
	// md: a table a scenario, then the folder; summary, the default: a
	// line a design under the step's title, then the folder.
	for _, c := range []struct {
		args []string
		head string
	}{
		{[]string{"run", "-q", "-format", "md"}, "| small: design | metric | measured | plan | unit | note |\n"},
		{[]string{"run", "-q"}, "small — Small search check for tests\n  exact "},
		{[]string{"run", "-q", "-format", "summary"}, "small — Small search check for tests\n  exact "},
	} {
		out := t.TempDir()
		stdout, stderr, code := cli(t, append(c.args, "-out", out, "testdata/small.yaml")...)
		dirs, _ := filepath.Glob(filepath.Join(out, "small-*"))
		if code != 0 || len(dirs) != 1 {
			t.Fatalf("%v: exit %d, folders %v: %s", c.args, code, dirs, stderr)
		}
		if !strings.HasPrefix(stdout, c.head) || !strings.HasSuffix(stdout, "\nreport: "+dirs[0]+"\n") {
			t.Errorf("%v: stdout\n%s\nwant %q first, then report: %s", c.args, stdout, c.head, dirs[0])
		}
		if c.args[len(c.args)-1] != "md" && (strings.Count(stdout, "\n") > 10 || !strings.Contains(stdout, "  count-min ") || !strings.Contains(stdout, "largest overestimate 125 / 300")) {
			t.Errorf("%v: the summary is not a line a design with its figures:\n%s", c.args, stdout)
		}
	}
	// Anything else is bad usage: exit 2, nothing run or written.
	out := filepath.Join(t.TempDir(), "none")
	_, stderr, code := cli(t, "run", "-format", "xml", "-out", out, "testdata/small.yaml")
	if code != 2 || !strings.Contains(stderr, `invalid value "xml" for flag -format: allowed: summary, md, csv, json`) {
		t.Errorf("-format xml: exit %d, %q; want 2 and the formats allowed", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-format xml wrote %s", out)
	}
}
