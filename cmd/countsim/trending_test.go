package main

import (
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
	for _, c := range []struct{ old, new, want string }{
		{"params: {half_life: 30m}", "params: {half_life: 0s}", "half_life"},
		{"params: {bucket: 1m, window: 10m}", "params: {bucket: 1m, window: 30s}", "window"},
		{"        end: 90m", "        end: 3h", "workload.trending.plants[0].end: 3h0m0s is after the stream's end, 2h0m0s"},
	} {
		refusesEdit(t, "../../scenarios/trending.yaml", c.old, c.new, c.want)
	}
}
