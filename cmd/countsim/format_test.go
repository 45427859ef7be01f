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
	// md, the default: a table a scenario, then the folder.
	for _, args := range [][]string{{"run", "-q"}, {"run", "-q", "-format", "md"}} {
		out := t.TempDir()
		stdout, stderr, code := cli(t, append(args, "-out", out, "testdata/small.yaml")...)
		dirs, _ := filepath.Glob(filepath.Join(out, "small-*"))
		if code != 0 || len(dirs) != 1 {
			t.Fatalf("%v: exit %d, folders %v: %s", args, code, dirs, stderr)
		}
		if !strings.HasPrefix(stdout, "| small: design | metric | measured | plan | unit | note |\n") || !strings.HasSuffix(stdout, "\nreport: "+dirs[0]+"\n") {
			t.Errorf("%v: stdout\n%s\nwant the markdown table, then report: %s", args, stdout, dirs[0])
		}
	}
	// Anything else is bad usage: exit 2, nothing run or written.
	out := filepath.Join(t.TempDir(), "none")
	_, stderr, code := cli(t, "run", "-format", "xml", "-out", out, "testdata/small.yaml")
	if code != 2 || !strings.Contains(stderr, `invalid value "xml" for flag -format: allowed: md, csv, json`) {
		t.Errorf("-format xml: exit %d, %q; want 2 and the formats allowed", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-format xml wrote %s", out)
	}
}
