package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

const twoSteps = `name: two-steps
title: Two small steps
seed: 5
assumptions: {key_capacity: 10000}
steps:
  - name: views
    title: "step 1: a key"
    workload:
      keys: 1
      phases: [{duration: 2s, rate: 2000}]
    cluster: {}
    strategies: [{name: s, type: single-key}]
  - name: searches
    workload: {events: 10000, keys: 1000}
    questions: {top: 10}
    strategies: [{name: e, type: exact}]
`

// runManifest runs the scenarios (two or more: one folder, run-*) into a
// fresh folder under out and returns its manifest.json.
func runManifest(t *testing.T, out string, scenarios ...string) []byte {
	t.Helper()
	if _, stderr, code := cli(t, append([]string{"run", "-q", "-out", out}, scenarios...)...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(out, "run-*", "manifest.json"))
	if len(files) != 1 {
		t.Fatalf("manifests %v", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// manifest.json names the command line and the build, and each scenario
// once, with its wall time and the peak memory once it was done; a
// scenario told in steps holds its steps.
func TestManifest(t *testing.T) {
	dir := t.TempDir()
	steps := filepath.Join(dir, "two-steps.yaml")
	if err := os.WriteFile(steps, []byte(twoSteps), 0o644); err != nil {
		t.Fatal(err)
	}
	data := runManifest(t, filepath.Join(dir, "out"), "testdata/small.yaml", steps)
	type step struct {
		Step    string  `json:"step"`
		Title   string  `json:"title"`
		Planned int64   `json:"memory_planned_bytes"`
		Wall    float64 `json:"wall_seconds"`
		PeakRSS int64   `json:"peak_rss_bytes"`
	}
	var m struct {
		Scenarios []struct {
			Name    string  `json:"name"`
			File    string  `json:"file"`
			Planned int64   `json:"memory_planned_bytes"`
			Wall    float64 `json:"wall_seconds"`
			PeakRSS int64   `json:"peak_rss_bytes"`
			Steps   []step  `json:"steps"`
		} `json:"scenarios"`
		Args     []string `json:"args"`
		Countsim string   `json:"countsim"`
		Commit   string   `json:"commit"`
		Modified string   `json:"modified"`
		PeakRSS  int64    `json:"peak_rss_bytes"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m.Args, os.Args) {
		t.Errorf("args %q, want os.Args %q", m.Args, os.Args)
	}
	// go test records no revision.
	if b := thisBuild(); m.Commit != b.Revision || m.Modified != b.Modified || m.Countsim != b.Version || m.Commit != "unknown" {
		t.Errorf("commit %q, modified %q, countsim %q; want the build's %+v", m.Commit, m.Modified, m.Countsim, b)
	}
	if len(m.Scenarios) != 2 || m.Scenarios[0].Name != "small" || m.Scenarios[1].Name != "two-steps" {
		t.Fatalf("scenarios %+v, want small and two-steps, once each:\n%s", m.Scenarios, data)
	}
	small, two := m.Scenarios[0], m.Scenarios[1]
	if small.Steps != nil || small.Wall <= 0 || small.Planned <= 0 {
		t.Errorf("small: %+v, want no steps, its wall time and plan", small)
	}
	if len(two.Steps) != 2 || two.Steps[0].Step != "views" || two.Steps[0].Title != "step 1: a key" || two.Steps[1].Step != "searches" {
		t.Fatalf("two-steps: steps %+v, want views, then searches", two.Steps)
	}
	if sum := two.Steps[0].Wall + two.Steps[1].Wall; math.Abs(two.Wall-sum) > 0.0015 || two.Steps[0].Wall <= 0 || two.Steps[1].Wall <= 0 {
		t.Errorf("two-steps: wall %v, steps %v and %v: want each > 0, the scenario's their sum", two.Wall, two.Steps[0].Wall, two.Steps[1].Wall)
	}
	if two.Planned != max(two.Steps[0].Planned, two.Steps[1].Planned) {
		t.Errorf("two-steps: planned %d, steps %+v: want the most of a step", two.Planned, two.Steps)
	}
	if runtime.GOOS == "linux" { // peakRSS reads getrusage there
		if small.PeakRSS <= 0 || two.Steps[0].PeakRSS <= 0 || two.Steps[1].PeakRSS <= 0 ||
			two.PeakRSS != max(two.Steps[0].PeakRSS, two.Steps[1].PeakRSS) || m.PeakRSS < max(two.PeakRSS, small.PeakRSS) {
			t.Errorf("peak RSS: small %d, steps %d, %d, two-steps %d, the run %d: want each > 0, a scenario's its steps' most, the run's the most of all",
				small.PeakRSS, two.Steps[0].PeakRSS, two.Steps[1].PeakRSS, two.PeakRSS, m.PeakRSS)
		}
	}
	peaks.Lock()
	left := len(peaks.m)
	peaks.Unlock()
	if left != 0 {
		t.Errorf("%d steps' peaks kept after the run", left)
	}
}

// TestManifestPeakIsEachScenarios: a scenario's peak memory in the
// manifest is its own, not the process's so far: a small scenario run after
// one that holds 2 M keys exactly (a map of some 90 MB) peaks far below it,
// and the run's peak is the large one's.
func TestManifestPeakIsEachScenarios(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the peak is read on Linux only")
	}
	if raceEnabled {
		t.Skip("the race detector's shadow memory stays resident (the race-free pass of make test runs it)")
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("name: big\nseed: 3\nworkload: {events: 3_000_000, keys: 2_000_000, s: 0.2}\nquestions: {top: 10}\nstrategies: [{name: e, type: exact}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := runManifest(t, filepath.Join(dir, "out"), big, "testdata/small.yaml")
	var m struct {
		Scenarios []struct {
			Name    string `json:"name"`
			PeakRSS int64  `json:"peak_rss_bytes"`
		} `json:"scenarios"`
		PeakRSS int64 `json:"peak_rss_bytes"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Scenarios) != 2 {
		t.Fatalf("scenarios %+v", m.Scenarios)
	}
	b, s := m.Scenarios[0].PeakRSS, m.Scenarios[1].PeakRSS
	t.Logf("peaks: big %d MB, small %d MB, the run %d MB", b>>20, s>>20, m.PeakRSS>>20)
	if s <= 0 || s > b-60<<20 || m.PeakRSS < b {
		t.Errorf("peaks: big %d, small after it %d, the run %d: want the small one's at least 60 MB under the big one's, the run's the big one's", b, s, m.PeakRSS)
	}
}
