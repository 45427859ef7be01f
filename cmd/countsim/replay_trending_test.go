package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
)

// trendingSmall writes a scaled-down copy of the built-in trending.yaml
// to dir/name.yaml: 10 minutes of 200 searches a second over 2,000
// phrases in 4 regions, three plants inside (a burst, a fade, a regional
// burst), the regional threshold at 100; the built-in's expectations,
// which state the full run's numbers, left out.
func trendingSmall(t *testing.T, dir, name string) string {
	t.Helper()
	src, err := scenarios.BuiltinSource("trending")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i, j := strings.Index(s, "\nworkload:\n"), strings.Index(s, "\nquestions:")
	if i < 0 || j < i {
		t.Fatal("trending.yaml has no workload block before its questions")
	}
	s = s[:i] + `
workload:
  trending:
    rate: 200
    duration: 10m
    keys: 2_000
    s: 1.0
    regions: 4
    checkpoint: 1m
    plants:
      - {name: burst, rank: 500, start: 5m, end: 8m, share: 0.05}
      - {name: fade, rank: 300, start: 0s, end: 3m, share: 0.05}
      - {name: regional, rank: 900, start: 6m, end: 9m, share: 0.2, region: 2}
` + s[j:]
	s = strings.Replace(s, "name: trending\n", "name: "+name+"\n", 1)
	s = strings.Replace(s, "threshold: 10_000", "threshold: 100", 1)
	s = regexp.MustCompile(`\n    (expect|shows): \[.*\]`).ReplaceAllString(s, "")
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// trendRows are a run's measured rows of the designs (the truth's and the
// clock's left out) by design, metric and note — a trending run has a row
// of a metric for each phrase — each its measured value and its plan.
func trendRows(rs []metrics.Result) map[string][2]string {
	out := map[string][2]string{}
	for _, r := range rs {
		if r.Timing || strings.HasPrefix(r.Strategy, "truth") {
			continue
		}
		out[r.Strategy+" "+string(r.Metric)+" "+r.Note] = [2]string{optional(r.Value), optional(r.Plan)}
	}
	return out
}

// TestSampleReplaysTrending: a scaled-down trending.yaml sampled (CSV with
// its replay scenario from the CLI, and NDJSON) and replayed as trending
// gives every measured row of the synthetic run — recall, false trending,
// each plant's detection latency beside the exact score's, its decayed
// score, the regional flags, the bytes — the plants watched by their
// names. The plans that come from the generator's law (each plant's
// decayed score) are empty on the log, which has none.
func TestSampleReplaysTrending(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: trending sampled and replayed, three runs (the race-free pass runs it)")
	}
	dir := t.TempDir()
	small := trendingSmall(t, dir, "trend-small")
	replay := filepath.Join(dir, "r.yaml")
	if _, stderr, code := cli(t, "sample", "-o", filepath.Join(dir, "s.csv"), "-replay", replay, small); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	if _, stderr, code := cli(t, "sample", "-format", "ndjson", "-o", filepath.Join(dir, "s.ndjson"), small); code != 0 {
		t.Fatalf("sample ndjson: exit %d: %s", code, stderr)
	}
	text, err := os.ReadFile(replay)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  as: trending\n", "  actor_id: actor_id\n", "  regions: 4\n", "  phrases: 2000\n",
		`{name: "regional", key: "regional", start: 6m0s, region: 2}`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the replay scenario lacks %q:\n%s", want, text)
		}
	}
	ndjson := filepath.Join(dir, "r-ndjson.yaml")
	nd := strings.Replace(strings.Replace(string(text), "file: s.csv", "file: s.ndjson", 1), "format: csv", "format: ndjson", 1)
	nd = strings.Replace(nd, "name: trend-small-replay", "name: trend-small-ndjson", 1)
	if err := os.WriteFile(ndjson, []byte(nd), 0o644); err != nil {
		t.Fatal(err)
	}
	want := trendRows(runResultsOf(t, filepath.Join(dir, "out-syn"), small))
	latencies, scores := 0, 0
	for k, w := range want {
		switch {
		case strings.Contains(k, " detect_latency_s "):
			latencies++
		case strings.Contains(k, " decayed_score ") && w[1] != "-":
			scores++
		}
	}
	// 6 trending designs × 3 plants detected; 2 decay designs × 3 plants scored.
	if len(want) < 100 || latencies != 18 || scores != 6 {
		t.Fatalf("the synthetic run has %d rows, %d latencies, %d planned decayed scores", len(want), latencies, scores)
	}
	for _, r := range []string{replay, ndjson} {
		rs := runResultsOf(t, filepath.Join(dir, "out-"+filepath.Base(r)), r)
		got := trendRows(rs)
		if len(got) != len(want) {
			t.Errorf("%s: %d rows of the designs, the synthetic run %d", r, len(got), len(want))
		}
		for k, w := range want {
			g := got[k]
			if strings.Contains(k, "decayed_score ") { // planned from the plant's course, which a log has not
				if g[0] != w[0] || g[1] != "-" {
					t.Errorf("%s: %s: replayed %v, synthetic %v (want its value, no plan)", filepath.Base(r), k, g, w)
				}
				continue
			}
			if g != w {
				t.Errorf("%s: %s: replayed %v, synthetic %v", filepath.Base(r), k, g, w)
			}
		}
		md, _ := filepath.Glob(filepath.Join(dir, "out-"+filepath.Base(r), "*", "report.md"))
		if len(md) != 1 {
			t.Fatalf("%s: reports %v", r, md)
		}
		if b, _ := os.ReadFile(md[0]); !strings.Contains(string(b), "The log was read whole before the replay: 120,000 events and 2,000 distinct phrases over 10 min") {
			t.Errorf("%s: the report does not note the log's figures as read:\n%s", r, b)
		}
		if !slices.ContainsFunc(rs, func(x metrics.Result) bool {
			return x.Strategy == "truth" && x.Metric == metrics.Events && x.Value != nil && *x.Value == 120_000
		}) {
			t.Errorf("%s: the truth's events row is not the log's 120,000", r)
		}
	}
}

// TestTrendingLogByHand: a team's CSV of searches — a user, a time, a
// phrase, a region — replayed as trending: an hour of three steady
// phrases, the seed's decay example (A: 1,000 searches at the hour's
// start; B: 300 a minute before its end) and a phrase that rises from
// minute 30. The decayed scores at the last checkpoint, 60 min, are the
// seed's 250 and 293.1, beside the plan's; each design's detection
// latency of each phrase is what the test's own count of the window and
// of the decayed scores gives.
func TestTrendingLogByHand(t *testing.T) {
	dir := t.TempDir()
	type search struct {
		at     int64 // ns from the first
		phrase string
	}
	var log []search
	for m := int64(0); m < 60; m++ {
		for _, p := range []struct {
			phrase string
			n      int
		}{{"weather", 5}, {"news", 4}, {"scores", 3}} {
			for range p.n {
				log = append(log, search{m*60e9 + 10e9, p.phrase})
			}
		}
		if m >= 30 {
			for range 7 {
				log = append(log, search{m*60e9 + 20e9, "rising"})
			}
		}
	}
	for range 1000 {
		log = append(log, search{0, "A"})
	}
	for range 300 {
		log = append(log, search{59 * 60e9, "B"})
	}
	slices.SortStableFunc(log, func(a, b search) int { return int(a.at - b.at) })
	var b strings.Builder
	b.WriteString("user,ts,phrase,region\n")
	for i, s := range log {
		fmt.Fprintf(&b, "user-%d,2026-03-01T10:%02d:%02dZ,%s,%d\n", i%37, s.at/60e9, s.at%60e9/1e9, s.phrase, i%4)
	}
	if err := os.WriteFile(filepath.Join(dir, "searches.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	scn := filepath.Join(dir, "hand.yaml")
	if err := os.WriteFile(scn, []byte(`name: hand
workload:
  file: searches.csv
  as: trending
  key: phrase
  time: ts
  actor_id: region
  regions: 4
  checkpoint: 1m
  watch:
    - {name: A, key: A}
    - {name: B, key: B}
    - {name: rising, key: rising, start: 30m}
questions:
  top: 3
strategies:
  - {name: buckets-10m, type: time-buckets, params: {bucket: 1m, window: 10m}}
  - {name: decay-30m, type: decay, params: {half_life: 30m}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runResultsOf(t, filepath.Join(dir, "out"), scn)
	row := func(design string, m metrics.Metric, phrase string) *metrics.Result {
		for i, r := range rs {
			if r.Strategy == design && r.Metric == m && (phrase == "" || strings.HasPrefix(r.Note, phrase+":")) {
				return &rs[i]
			}
		}
		return nil
	}
	// The test's own truth: at each checkpoint c (the events before it),
	// the window's count of the last 10 one-minute buckets and the decayed
	// score, and the top 3 of each.
	const h = 30 * 60e9
	top := func(score func(s search, now int64) float64, now int64) []string {
		sum := map[string]float64{}
		for _, s := range log {
			if s.at <= now {
				sum[s.phrase] += score(s, now)
			}
		}
		var ps []string
		for p, v := range sum {
			if v > 0 {
				ps = append(ps, p)
			}
		}
		slices.SortFunc(ps, func(a, b string) int {
			if sum[a] != sum[b] {
				if sum[a] > sum[b] {
					return -1
				}
				return 1
			}
			return strings.Compare(a, b)
		})
		return ps[:min(3, len(ps))]
	}
	window := func(s search, now int64) float64 {
		if s.at/60e9 > now/60e9-10 {
			return 1
		}
		return 0
	}
	decay := func(s search, now int64) float64 { return math.Exp2(-float64(now-s.at) / h) }
	starts := map[string]int64{"A": 0, "B": 59 * 60e9, "rising": 30 * 60e9}
	for _, d := range []struct {
		design string
		score  func(search, int64) float64
	}{{"buckets-10m", window}, {"decay-30m", decay}} {
		for phrase, start := range starts {
			want := math.NaN()
			for c := int64(60e9); c <= 60*60e9; c += 60e9 {
				if c >= start && slices.Contains(top(d.score, c-1), phrase) {
					want = float64(c-start) / 1e9
					break
				}
			}
			for _, m := range []metrics.Metric{metrics.DetectLatency, metrics.TrueLatency} {
				r := row(d.design, m, phrase)
				if r == nil || *r.Value != want {
					t.Errorf("%s: %s of %s: %v, the test's count %v", d.design, m, phrase, r, want)
				}
			}
		}
	}
	if r := row("decay-30m", metrics.DetectLatency, "rising"); r == nil || *r.Value == 0 {
		t.Errorf("rising detected at once under decay (%v): the test's truth is not discriminating", r)
	}
	// The seed's example, measured at the last checkpoint (60 min, now 1 ns
	// before it) beside the plan's A and B.
	now := int64(60*60e9 - 1)
	for phrase, want := range map[string]float64{"A": 1000 * math.Exp2(-float64(now)/h), "B": 300 * math.Exp2(-float64(now-59*60e9)/h)} {
		for _, m := range []metrics.Metric{metrics.DecayedScore, metrics.TrueDecayedScore} {
			r := row("decay-30m", m, phrase)
			if r == nil || math.Abs(*r.Value-want) > 1e-4 || r.Plan != nil {
				t.Errorf("%s of %s: %v, want %.4f and no plan", m, phrase, r, want)
			}
		}
	}
	for m, want := range map[metrics.Metric]float64{metrics.DecayExampleA: 250, metrics.DecayExampleB: 293.1} {
		if r := row("decay-30m", m, ""); r == nil || r.Plan == nil || math.Abs(*r.Plan-want) > 0.05 {
			t.Errorf("the plan's %s: %v, want %g", m, r, want)
		}
	}
	if r := row("truth", metrics.PlantedCount, "rising"); r == nil || *r.Value != 30*7 {
		t.Errorf("rising's count: %v, want 210", r)
	}
}

// TestTrendingLogBadInput: a region past regions is the log's line; a
// watched phrase on no line, a span of more than a million checkpoints, a
// time column the log lacks and a trending scenario too large to sample
// are refused; exit 2, nothing written.
func TestTrendingLogBadInput(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.csv")
	var b strings.Builder
	b.WriteString("ts,phrase,region\n")
	for i := range 5000 {
		region := i % 4
		if i == 4321 {
			region = 4
		}
		fmt.Fprintf(&b, "%d,p%d,%d\n", 1_700_000_000+i, i%50, region)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	work := "name: bad\nworkload:\n  file: log.csv\n  as: trending\n  key: phrase\n  time: ts\n  actor_id: region\n  regions: 4\n"
	for _, c := range []struct{ name, yaml, want string }{
		{"region", work, log + ":4323: region: region 4 is not one of the 4 regions"},
		{"watch", strings.Replace(work, "  regions: 4\n", "  regions: 5\n  watch: [{name: x, key: nope}]\n", 1), `bad.yaml:9: workload.watch[0].key: "nope" is on no line`},
		{"checkpoints", strings.Replace(work, "  regions: 4\n", "  regions: 5\n  checkpoint: 1ms\n", 1), "bad.yaml:2: workload.checkpoint: the log spans 1h23m19s, 4,999,001 checkpoints of 1ms, more than 1,000,000 (allowed: a checkpoint of at least 4.9"},
		{"time", strings.Replace(work, "time: ts", "time: when", 1), `bad.yaml:2: workload.file: workload: log ` + log + ` has no column "when" (Time)`},
	} {
		scn := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(scn, []byte(c.yaml+"strategies: [{name: d, type: decay}]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out-"+c.name)
		_, stderr, code := cli(t, "run", "-q", "-out", out, scn)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want 2 and %q", c.name, code, stderr, c.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: bad input wrote %s", c.name, out)
		}
	}
	o := filepath.Join(dir, "big.csv")
	if _, stderr, code := cli(t, "sample", "-o", o, "trending"); code == 0 || !strings.Contains(stderr, "a trending stream is sampled whole (allowed: -events 7200000 or more)") {
		t.Errorf("sample of the whole trending run past -events: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(o); !os.IsNotExist(err) {
		t.Errorf("a refused sample wrote %s", o)
	}
}
