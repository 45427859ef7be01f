package main

import (
	"os"
	"path/filepath"
	"testing"

	"countsim/metrics"
)

// TestCountReplayPlansForThreeMillion: a log of exactly 3,000,000
// searches (past Prepare's head, so estimated before the read) replayed
// with count-min at ε = 0.001 plans εN = 3,000 — the bound beside its
// largest overestimate too — and judges keys over the bound by it: none
// over where the largest overestimate is within 3,000, some where past it.
func TestCountReplayPlansForThreeMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: 3,000,000 searches sampled and replayed (the race-free pass runs it)")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "s.csv")
	if _, stderr, code := cli(t, "sample", "-events", "3000000", "-o", log); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	scn := filepath.Join(dir, "three-million.yaml")
	if err := os.WriteFile(scn, []byte("name: three-million\nseed: 1\nworkload: {file: s.csv, key: key, key_id: key_id, time: time}\n"+
		"questions: {top: 10}\nstrategies:\n  - {name: cm3k, type: count-min, params: {epsilon: 0.001, delta: 0.01}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runResultsOf(t, filepath.Join(dir, "out"), scn)
	var bound, maxPlan, maxOver, over float64 = -1, -1, -1, -1
	for _, r := range rs {
		if r.Strategy != "cm3k" || r.Scale != metrics.Sim {
			continue
		}
		switch r.Metric {
		case metrics.OverestimateBound:
			bound = *r.Plan
		case metrics.MaxOverestimate:
			maxPlan, maxOver = *r.Plan, *r.Value
		case metrics.KeysOverBound:
			over = *r.Value
		}
	}
	if bound != 3000 || maxPlan != 3000 {
		t.Errorf("count-min's εN: plan %v, beside its largest overestimate %v; want 3,000 (0.001 × 3,000,000)", bound, maxPlan)
	}
	t.Logf("largest overestimate %v, keys over the bound %v", maxOver, over)
	if over < 0 || (maxOver > 3000) != (over > 0) {
		t.Errorf("keys over the bound %v with the largest overestimate %v: judged by another bound than 3,000", over, maxOver)
	}
}
