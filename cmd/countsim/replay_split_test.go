package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
)

// TestSplitReplay: search-split scaled down to 1,000,000 searches over 8
// regions of 200,000 phrases (the trap kept: the planted phrase in no
// region's top 10, the 9th of all), sampled and replayed as a split stream
// (node: the actor_id column) gives every design the same measured rows —
// the planted item found or not, the share of the top K missed, what the
// nodes sent — and the truth finds the planted phrase itself, as the item
// heavy only in total: the synthetic run's planted rows.
func TestSplitReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: search-split, 10^6 searches, sampled and replayed (the race-free pass runs it)")
	}
	dir := t.TempDir()
	src, err := scenarios.BuiltinSource("search-split")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "events: 4_000_000", "events: 1_000_000", 1)
	s = strings.Replace(s, "keys: 100_000", "keys: 200_000", 1)
	s = dropExpect(t, s)
	scn := filepath.Join(dir, "split.yaml")
	if err := os.WriteFile(scn, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	syn, rep, _ := sampleReplay(t, dir, scn, "csv", "-events", "1000000")
	sameMeasured(t, "search-split", syn, rep, 60)
	truth := func(rs []metrics.Result, m metrics.Metric) string {
		for _, r := range rs {
			if r.Strategy == "truth" && r.Metric == m && r.Value != nil {
				return optional(r.Value)
			}
		}
		return "none"
	}
	for _, m := range []metrics.Metric{metrics.PlantedCount, metrics.PlantedNodeMax, metrics.LocalKthMin, metrics.Nodes} {
		if w, g := truth(syn, m), truth(rep, m); g != w || w == "none" {
			t.Errorf("truth %s: replayed %s, synthetic %s", m, g, w)
		}
	}
	found := measuredRows(rep)
	if found["split-top10 planted_found sim"] != "0" || found["threshold planted_found sim"] != "1" {
		t.Errorf("planted found: split-top10 %s, threshold %s; want 0 and 1 (the trap)", found["split-top10 planted_found sim"], found["threshold planted_found sim"])
	}
}

// regionLog writes a hand-written log of searches as a team would keep
// one: a user (a string), a phrase, a region by name, a time. Each region
// searches two phrases of its own most (eu-a 11, eu-b 8; us-a 10, us-b 8;
// asia-a 9, asia-b 8) and "world cup" 6 times: in no region's top 2, the
// first of all with 18.
func regionLog(t *testing.T, path string) (lines []string) {
	t.Helper()
	lines = []string{"user,phrase,region,at"}
	add := func(phrase, region string, n int) {
		for i := range n {
			at := time.Date(2026, 3, 1, 12, 0, len(lines), 0, time.UTC).Format(time.RFC3339)
			lines = append(lines, fmt.Sprintf("u-%s-%d,%s,%s,%s", region, len(lines)*7+i, phrase, region, at))
		}
	}
	for _, r := range []struct {
		region    string
		a, b, cup int
	}{{"eu", 11, 8, 6}, {"us", 10, 8, 6}, {"asia", 9, 8, 6}} {
		add(r.region+"-a", r.region, r.a)
		add(r.region+"-b", r.region, r.b)
		add("world cup", r.region, r.cup)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestSplitReplayHandWritten: a hand-written log of searches by region
// name, replayed as a split stream without node_count (the regions its
// head names: 3), answers from its own counts: the truth's top 2 and the
// phrase heavy only in total ("world cup", worked out here from the
// lines), split-top2 missing it, threshold and exact finding it; a line
// naming a fourth region, or a node number past node_count, is refused at
// the log's line, exit 2, nothing written.
func TestSplitReplayHandWritten(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "searches.csv")
	lines := regionLog(t, log)
	// The truth, from the lines: totals, each region's counts.
	total, perRegion := map[string]float64{}, map[string]map[string]float64{}
	for _, l := range lines[1:] {
		c := strings.Split(l, ",")
		total[c[1]]++
		if perRegion[c[2]] == nil {
			perRegion[c[2]] = map[string]float64{}
		}
		perRegion[c[2]][c[1]]++
	}
	scn := func(workload string) string {
		return `name: regions
seed: 1
workload:
  file: searches.csv
  as: split
  key: phrase
  time: at
  node: region
` + workload + `
questions:
  top: 2
strategies:
  - name: exact
    type: exact
  - name: split-top2
    type: split-topk
  - name: threshold
    type: threshold-topk
`
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(scn("")), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runResultsOf(t, filepath.Join(dir, "out"), good)
	value := func(design string, m metrics.Metric) float64 { return measuredValue(t, rs, design, m) }
	cupMax, kthMin := 0.0, 1e9
	for _, m := range perRegion {
		cupMax = max(cupMax, m["world cup"])
		var own []float64 // the region's counts but the cup's, largest first
		for p, c := range m {
			if p != "world cup" {
				own = append(own, c)
			}
		}
		slices.Sort(own)
		kthMin = min(kthMin, own[len(own)-2])
	}
	for _, c := range []struct {
		design string
		m      metrics.Metric
		want   float64
	}{
		{"truth", metrics.Nodes, 3}, {"truth", metrics.PlantedCount, total["world cup"]}, {"truth", metrics.PlantedNodeMax, cupMax},
		{"truth", metrics.LocalKthMin, kthMin}, {"exact", metrics.PlantedFound, 1}, {"threshold", metrics.PlantedFound, 1},
		{"split-top2", metrics.PlantedFound, 0}, {"split-top2", metrics.MissedHeavy, 0.5},
	} {
		if got := value(c.design, c.m); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.design, c.m, got, c.want)
		}
	}
	if total["world cup"] != 18 || cupMax != 6 || kthMin != 8 {
		t.Fatalf("the log's truth: %v, %v, %v", total["world cup"], cupMax, kthMin)
	}

	// A fourth region past the head's three: its line refused.
	out := filepath.Join(dir, "bad-out")
	bad := append(append([]string(nil), lines...), "u-x,eu-a,mars,2026-03-01T13:00:00Z")
	if err := os.WriteFile(log, []byte(strings.Join(bad, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The head is the whole log here: Prepare sees four regions, and a
	// node_count of 3 refuses the fourth at its line.
	three := filepath.Join(dir, "three.yaml")
	if err := os.WriteFile(three, []byte(scn("  node_count: 3")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := cli(t, "run", "-out", out, three)
	if want := log + ":" + strconv.Itoa(len(bad)) + ":"; code != 2 || !strings.Contains(stderr, want) || !strings.Contains(stderr, "mars") {
		t.Errorf("a fourth region with node_count 3: exit %d, %q; want 2 at %s", code, stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s", out)
	}
}
