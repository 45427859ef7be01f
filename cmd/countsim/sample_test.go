package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSampleReplayScenario: sample -replay writes a scenario that countsim
// run takes as it is, replaying the log with the sampled scenario's
// designs: the same measured rows as the synthetic run of the same events;
// a cut stream's expectations are left out; neither file is ever written
// over, and a scenario in steps needs -step.
func TestSampleReplayScenario(t *testing.T) {
	dir := t.TempDir()
	logPath, replay := filepath.Join(dir, "logs", "s.csv"), filepath.Join(dir, "r.yaml")
	if err := os.Mkdir(filepath.Dir(logPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := cli(t, "sample", "-events", "60000", "-o", logPath, "-replay", replay); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	text, err := os.ReadFile(replay)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"name: search-replay\n", "  file: logs/s.csv\n", "  key_id: key_id\n", "  actor_id: actor_id\n"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the replay scenario lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), "\nexpect:") || strings.Contains(string(text), " expect:") || strings.Contains(string(text), " shows: [") {
		t.Errorf("a cut stream's replay keeps expectations:\n%s", text)
	}
	synthetic := searchAs(t, dir, "synthetic", "  events: 60000\n  keys: 1_000_000\n  s: 1.0\n  batch: 4096")
	want := designRows(runResultsOf(t, filepath.Join(dir, "out-syn"), synthetic))
	got := designRows(runResultsOf(t, filepath.Join(dir, "out-replay"), replay))
	if len(want) < 30 || len(got) != len(want) {
		t.Errorf("%d rows replayed, %d synthetic", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: replayed %s, synthetic %s", k, got[k], w)
		}
	}
	for _, c := range []struct {
		args []string
		code int // 1: as for -o over a file (WriteFile's refusal)
		want string
	}{
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "new.csv"), "-replay", replay}, 1, "never written over"},
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "x.csv"), "-replay", filepath.Join(dir, "x.csv")}, 2, "the same file"},
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "y.csv"), "cricket-final"}, 2, "told in steps; name one with -step (allowed: views,"},
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "y.csv"), "-step", "nope", "cricket-final"}, 2, "no such step of cricket-final"},
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "y.csv"), "-step", "a", "search"}, 2, "search has no steps"},
		{[]string{"sample", "-events", "10", "-o", filepath.Join(dir, "y.csv"), "hll-accuracy"}, 2, "an accuracy profile is seeded trials at cardinalities, with no stream to write"},
	} {
		if _, stderr, code := cli(t, c.args...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%q: exit %d, %s; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
		for _, f := range []string{"new.csv", "y.csv"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%q wrote %s", c.args, f)
			}
		}
	}
}
