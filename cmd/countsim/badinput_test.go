package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refusesEdit writes the scenario at path with old replaced by new as
// bad.yaml, and checks that validate and run refuse it naming the file and
// saying want, exit 2, and that run writes nothing.
func refusesEdit(t *testing.T, path, old, new, want string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("%s has no %q", path, old)
	}
	file := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(file, bytes.Replace(src, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "reports")
	for _, args := range [][]string{{"validate", file}, {"run", "-out", out, file}} {
		_, errOut, code := cli(t, args...)
		if code != 2 || !strings.Contains(errOut, "bad.yaml:") || !strings.Contains(errOut, want) {
			t.Errorf("%s with %q: exit %d, %q; want exit 2 and %q", args[0], new, code, errOut, want)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("run wrote %s on bad input", out)
	}
}

// TestStoreFaultBadInput: store faults (issue 29) checked like every key —
// a node the cluster lacks, a server beyond app_servers, a fault ending
// after the stream, a zero duration, a share outside (0,1), a negative
// lag, a key of another kind: refused naming the file and line and what
// is allowed, exit 2, nothing written.
func TestStoreFaultBadInput(t *testing.T) {
	const crash = "      - at: 30.5s\n        kind: app-crash\n        server: 7"
	for _, c := range []struct {
		name, new, want string
	}{
		{"unknown node", "      - {at: 30s, kind: node-down, node: 8, for: 10s}", "bad.yaml:52: steps[0].faults[0].node: 8 is out of range (allowed: 0..7, as cluster.nodes is 8)"},
		{"server beyond app servers", "      - {at: 30s, kind: partition, for: 10s, servers: [3, 200], nodes: [1]}", "bad.yaml:52: steps[0].faults[0].servers[1]: 200 is out of range (allowed: 0..199, as assumptions.app_servers is 200)"},
		{"past the end", "      - {at: 55s, kind: node-slow, node: 2, for: 10s, share: 0.5}", "bad.yaml:52: steps[0].faults[0].for: 10s from 55s ends at 1m5s, after the stream's end (allowed: at most 5s"},
		{"zero duration", "      - {at: 30s, kind: node-down, node: 2, for: 0s}", `bad.yaml:52: steps[0].faults[0].for: "0s" is out of range (allowed: a duration above 0`},
		{"share one", "      - {at: 30s, kind: node-slow, node: 2, for: 1s, share: 1.5}", "bad.yaml:52: steps[0].faults[0].share: 1.5 is out of range (allowed: a number in (0,1)"},
		{"negative lag", "      - {at: 30s, kind: failover, node: 2, delay: 2s, lag: -100ms}", `bad.yaml:52: steps[0].faults[0].lag: "-100ms" is out of range (allowed: a duration from 0`},
		{"share on node-down", "      - {at: 30s, kind: node-down, node: 2, for: 1s, share: 0.5}", "bad.yaml:52: steps[0].faults[0].share: kind node-down does not take share (allowed: node, for)"},
		{"failover at the end", "      - {at: 60s, kind: failover, node: 2, delay: 2s}", "bad.yaml:52: steps[0].faults[0].at: 1m0s is not within the stream (allowed: a time before 1m0s"},
	} {
		t.Run(c.name, func(t *testing.T) {
			refusesEdit(t, "../../scenarios/cricket-final.yaml", crash, c.new, c.want)
		})
	}
}
