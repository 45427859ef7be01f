package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"countsim/metrics"
)

// asMeasured are a run's measured rows of the designs (timing and the
// truth's left out), by design, metric, scale and note (an audience has a
// row of a metric a day), each with its plan: a replay's plans of the full
// scale, which a log has no figures for, are not among them.
func asMeasured(rs []metrics.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		if r.Timing || r.Value == nil || strings.HasPrefix(r.Strategy, "truth") {
			continue
		}
		out[r.Strategy+" "+string(r.Metric)+" "+string(r.Scale)+" "+r.Note] = optional(r.Value) + " / " + optional(r.Plan)
	}
	return out
}

// asResultsOf runs scenario into out and returns its untimed results, as
// runResultsOf does, for a kind that draws no plot.
func asResultsOf(t *testing.T, out, scenario string) []metrics.Result {
	t.Helper()
	_, rs := runUntimed(t, out, scenario)
	return rs
}

// asSame fails t where got lacks a row of want or gives it otherwise.
func asSame(t *testing.T, what string, got, want map[string]string, least int) {
	t.Helper()
	if len(got) != len(want) || len(want) < least {
		t.Errorf("%s: %d measured rows replayed, %d synthetic (want at least %d)", what, len(got), len(want), least)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s: replayed %s, synthetic %s", what, k, got[k], w)
		}
	}
}

// TestAudienceSampleReplays: the cricket final's step 2, scaled down,
// sampled whole by countsim sample -step viewers -replay and run as
// written, gives every design the measured rows and simulated-scale plans
// of the synthetic run of the same scaled step (its replay scenario with
// the step's synthetic workload put back) — each
// day's estimate, the union by merge, the naive sum, the bytes — the exact
// set's bytes planned from the log's distinct actors; the built-in step is
// refused past -events, an audience being sampled whole.
func TestAudienceSampleReplays(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: the cricket viewers, 390,000 views, sampled and replayed (the race-free pass runs it)")
	}
	dir := t.TempDir()
	// The built-in, its step 2 scaled down 200 times (200,000 and 190,000
	// viewers, 150,000 on both days), sampled by -step as a team would.
	cricket := builtinScaled(t, "cricket-final", "- viewers: 40_000_000", "- viewers: 200_000", "- viewers: 38_000_000", "- viewers: 190_000",
		"overlap: 30_000_000", "overlap: 150_000")
	cricketPath := filepath.Join(dir, "cricket-small.yaml")
	if err := os.WriteFile(cricketPath, []byte(cricket), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath, replay := filepath.Join(dir, "v.csv.gz"), filepath.Join(dir, "r.yaml")
	if _, stderr, code := cli(t, "sample", "-step", "viewers", "-events", "390000", "-o", logPath, "-replay", replay, cricketPath); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	text, _ := os.ReadFile(replay)
	for _, w := range []string{"  as: audience\n", "  actor_id: actor_id\n", "  day: 24h\n", "bytes == plan"} {
		if !strings.Contains(string(text), w) {
			t.Errorf("the replay scenario lacks %q:\n%s", w, text)
		}
	}
	synthetic := asResultsOf(t, filepath.Join(dir, "out-syn"), syntheticOf(t, dir, "viewers-synthetic", cricketPath, "viewers", replay))
	replayed := asResultsOf(t, filepath.Join(dir, "out-replay"), replay)
	asSame(t, "audience", asMeasured(replayed), asMeasured(synthetic), 20)
	// The truth: both days and the union, exact, from the log.
	truth := map[string]float64{}
	for _, r := range replayed {
		if r.Strategy == "truth" && r.Metric == metrics.Distinct {
			truth[r.Note] = *r.Value
		}
	}
	if truth["day 1, exact"] != 200_000 || truth["day 2, exact"] != 190_000 || truth["all days, exact union"] != 240_000 {
		t.Errorf("the log's truth %v, want 200,000, 190,000 and a union of 240,000", truth)
	}
	_, stderr, code := cli(t, "sample", "-step", "viewers", "-o", filepath.Join(dir, "big.csv"), "cricket-final")
	if code == 0 || !strings.Contains(stderr, "sampled whole (allowed: -events 78000000 or more)") {
		t.Errorf("the full step 2 sampled at 300,000 events: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.csv")); err == nil {
		t.Error("a refused sample wrote its log")
	}
}

// TestAudienceOwnLog: a team's own log — user ids as strings, RFC 3339
// times over two days, a region and a page column — replayed as an
// audience gives each day's distinct users and their union, as the test
// counts them itself: the exact set exactly, HyperLogLog within 6 standard
// errors (1.04/√m of 16,384 registers; its small-range estimate is closer
// still), the naive sum counting the users of both days twice; only: counts
// one page's users.
func TestAudienceOwnLog(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("ts,user,region,page\n")
	days := []map[string]bool{{}, {}}
	pageDays := []map[string]bool{{}, {}}
	union, pageUnion := map[string]bool{}, map[string]bool{}
	for day := range 2 {
		for i := range 6000 {
			// users 0..2999 on day 1, 2000..4999 on day 2, some many times
			u := fmt.Sprintf("user-%04d", day*2000+(i*7)%3000)
			page := []string{"home", "final", "scores"}[(i*i/7)%3]
			ts := time.Date(2026, 3, 14+day, 0, 0, 10*i, 0, time.UTC).Format(time.RFC3339)
			fmt.Fprintf(&b, "%s,%s,eu-%d,%s\n", ts, u, i%3, page)
			days[day][u], union[u] = true, true
			if page == "final" {
				pageDays[day][u], pageUnion[u] = true, true
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "views.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, only string
		days       []map[string]bool
		union      map[string]bool
	}{{"every", "", days, union}, {"final", "\n  only: final", pageDays, pageUnion}} {
		scn := filepath.Join(dir, c.name+".yaml")
		os.WriteFile(scn, []byte("name: own-"+c.name+"\nseed: 3\nworkload:\n  file: views.csv\n  as: audience\n  key: page\n  time: ts\n  actor: user"+c.only+
			"\nstrategies:\n  - {name: exact, type: exact-distinct}\n  - {name: hll, type: hll, params: {p: 14}}\n"), 0o644)
		rs := asResultsOf(t, filepath.Join(dir, "out-"+c.name), scn)
		got := map[string]float64{}
		for _, r := range rs {
			if r.Metric == metrics.Distinct && r.Value != nil {
				got[r.Strategy+" "+r.Note] = *r.Value
			}
		}
		want := map[string]float64{"day 1": float64(len(c.days[0])), "day 2": float64(len(c.days[1])), "union of the days by merge": float64(len(c.union))}
		if len(c.days[0])+len(c.days[1]) == len(c.union) {
			t.Fatalf("%s: no user on both days: the test shows nothing", c.name)
		}
		for note, n := range want {
			truthNote := map[string]string{"day 1": "day 1, exact", "day 2": "day 2, exact", "union of the days by merge": "all days, exact union"}[note]
			if got["truth "+truthNote] != n {
				t.Errorf("%s: truth %s %v, want %v", c.name, truthNote, got["truth "+truthNote], n)
			}
			key := note + "; plan: the exact count"
			if got["exact "+key] != n {
				t.Errorf("%s: exact %s %v, want %v", c.name, note, got["exact "+key], n)
			}
			if e := got["hll "+key]; e < n*(1-6*0.0081) || e > n*(1+6*0.0081) {
				t.Errorf("%s: hll %s %v, want %v within 6 × 0.81%%", c.name, note, e, n)
			}
		}
		sum := got["exact sum of the days' counts: viewers of several days count again; plan: the exact union"]
		if sum != float64(len(c.days[0])+len(c.days[1])) {
			t.Errorf("%s: the naive sum %v, want %d", c.name, sum, len(c.days[0])+len(c.days[1]))
		}
	}
}

// TestAudienceBadLog: a log replayed as an audience without an actor
// column, with day but no time, or with a line whose time cannot be read,
// is bad input: exit 2 at the scenario's or the log's file:line, nothing
// written; a log spanning more days than an audience holds is refused at
// its workload.
func TestAudienceBadLog(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "v.csv"), []byte("ts,user\n2026-03-14T00:00:00Z,a\n2026-03-14T00:00:01Z,b\nyesterday,c\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "long.csv"), []byte("ts,user\n2026-03-14T00:00:00Z,a\n2026-03-14T00:07:00Z,b\n"), 0o644)
	head := "name: bad\nseed: 1\nworkload:\n  as: audience\n"
	for _, c := range []struct{ name, workload, want string }{
		{"no-actor", "  file: v.csv\n  key: user\n  time: ts\n", "bad.yaml:3:"},
		{"day-no-time", "  file: v.csv\n  key: user\n  actor: user\n  day: 1h\n", "bad.yaml:8: workload.day: given without time"},
		{"bad-time", "  file: v.csv\n  key: user\n  actor: user\n  time: ts\n", filepath.Join(dir, "v.csv") + ":4:"},
		{"too-long", "  file: long.csv\n  key: user\n  actor: user\n  time: ts\n  day: 1s\n", "more than 366 days of 1s"},
	} {
		scn := filepath.Join(dir, "bad.yaml")
		os.WriteFile(scn, []byte(head+c.workload+"strategies:\n  - {name: hll, type: hll}\n"), 0o644)
		out := filepath.Join(dir, "out-"+c.name)
		_, stderr, code := cli(t, "run", "-q", "-out", out, scn)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: bad input wrote %s", c.name, out)
		}
	}
}
