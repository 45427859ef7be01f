package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrendingPlan: the seed's decay example, A 250 and B 293.1, in the plan.
func TestTrendingPlan(t *testing.T) {
	out, errOut, code := cli(t, "plan", "trending")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"decay_example_a      250 ", "decay_example_b      293.1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
}

// TestTrendingBadInput: a half-life of 0, a window shorter than a bucket, a
// plant after the stream's end: file and line, exit 2, nothing written.
func TestTrendingBadInput(t *testing.T) {
	src, err := os.ReadFile("../../scenarios/trending.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"params: {half_life: 30m}", "params: {half_life: 0s}", "half_life"},
		{"params: {bucket: 1m, window: 10m}", "params: {bucket: 1m, window: 30s}", "window"},
		{"        end: 90m", "        end: 3h", "workload.trending.plants[0].end: 3h0m0s is after the stream's end, 2h0m0s"},
	} {
		if !bytes.Contains(src, []byte(c.old)) {
			t.Fatalf("trending.yaml has no %q", c.old)
		}
		file := filepath.Join(t.TempDir(), "bad.yaml")
		if err := os.WriteFile(file, bytes.Replace(src, []byte(c.old), []byte(c.new), 1), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "reports")
		for _, args := range [][]string{{"validate", file}, {"run", "-out", out, file}} {
			_, errOut, code := cli(t, args...)
			if code != 2 || !strings.Contains(errOut, "bad.yaml:") || !strings.Contains(errOut, c.want) {
				t.Errorf("%s with %q: exit %d, %q; want exit 2 and %q", args[0], c.new, code, errOut, c.want)
			}
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("run wrote %s on bad input", out)
		}
	}
}
