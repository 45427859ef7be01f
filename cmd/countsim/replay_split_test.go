package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	dir := t.TempDir()
	src, err := scenarios.BuiltinSource("search-split")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "events: 4_000_000", "events: 1_000_000", 1)
	s = strings.Replace(s, "keys: 100_000", "keys: 200_000", 1)
	s = dropExpect(s)
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
