package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// results.csv names its columns as the report does (design, measured) and
// says each row's step: empty for a scenario not told in steps. results.json
// says the step too.
func TestCSVColumns(t *testing.T) {
	dir := t.TempDir()
	steps := filepath.Join(dir, "two-steps.yaml")
	if err := os.WriteFile(steps, []byte(twoSteps), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	stdout, stderr, code := cli(t, "run", "-q", "-format", "csv", "-out", out, "testdata/small.yaml", steps)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("run -format csv: %v, %d rows", err, len(rows))
	}
	want := []string{"scenario", "step", "design", "metric", "measured", "unit", "plan", "scale", "timing", "partial", "stat", "note"}
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	steps2 := map[string]map[string]bool{} // scenario → its steps
	designs := map[string]bool{}
	for _, r := range rows[1:] {
		if steps2[r[0]] == nil {
			steps2[r[0]] = map[string]bool{}
		}
		steps2[r[0]][r[1]] = true
		designs[r[1]+":"+r[2]] = true
		if r[4] != "" {
			if _, err := strconv.ParseFloat(r[4], 64); err != nil {
				t.Errorf("row %q: measured %q is not a number", r, r[4])
			}
		}
	}
	if len(steps2["small"]) != 1 || !steps2["small"][""] {
		t.Errorf("small's steps %v, want none", steps2["small"])
	}
	if len(steps2["two-steps"]) != 2 || !steps2["two-steps"]["views"] || !steps2["two-steps"]["searches"] {
		t.Errorf("two-steps' steps %v, want views and searches", steps2["two-steps"])
	}
	if !designs["views:s"] || !designs["searches:e"] || designs["searches:s"] {
		t.Errorf("designs by step %v, want s in views, e in searches", designs)
	}
	// results.json: the same rows, each step said.
	dirs, _ := filepath.Glob(filepath.Join(out, "run-*"))
	if len(dirs) != 1 {
		t.Fatalf("report folders %v", dirs)
	}
	rs, err := readResults(dirs[0])
	if err != nil || len(rs) != len(rows)-1 {
		t.Fatalf("results.json: %d rows (%v), the CSV %d", len(rs), err, len(rows)-1)
	}
	for i, r := range rs {
		if r.Step != rows[i+1][1] || r.Strategy != rows[i+1][2] {
			t.Errorf("results.json row %d: step %q, design %q; the CSV's %q", i, r.Step, r.Strategy, rows[i+1][:3])
		}
	}
}
