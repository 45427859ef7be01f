package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
)

// viewsScaled is the cricket final's step 1 (views) as a scenario of its
// own, scaled down: dur of the 60 s at 200,000 views a second, the crash
// of app server 7 moved inside it, at crash; without the expectations,
// which state the minute's numbers.
func viewsScaled(dur, crash string) string {
	return `name: views
seed: 1
assumptions:
  key_capacity: 10_000
  headroom: 0.7
  app_servers: 200
workload:
  keys: 1
  arrivals: poisson
  phases:
    - name: peak
      duration: ` + dur + `
      rate: 200_000
  reads: 5_000
cluster:
  nodes: 8
faults:
  - at: ` + crash + `
    kind: app-crash
    server: 7
strategies:
  - name: single-key
    type: single-key
  - name: striped-32
    type: striped
    params:
      stripes: 32
      select: random
  - name: striped-32-cached
    type: striped
    params:
      stripes: 32
      read: cache
      ttl: 1s
  - name: batched-1s
    type: batched
    params:
      servers: 200
      flush: 1s
      read: cache
      ttl: 1s
`
}

// measuredRows are a run's measured values of the designs (the truth's,
// the clock's and the plans left out), by design and metric.
func measuredRows(rs []metrics.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		if r.Timing || strings.HasPrefix(r.Strategy, "truth") || r.Value == nil {
			continue
		}
		out[r.Strategy+" "+string(r.Metric)+" "+string(r.Scale)] = optional(r.Value)
	}
	return out
}

// planOf is the simulated-scale plan of design's metric in rs, or -1.
func planOf(rs []metrics.Result, design string, m metrics.Metric) float64 {
	for _, r := range rs {
		if r.Strategy == design && r.Metric == m && r.Scale == metrics.Sim && r.Plan != nil {
			return *r.Plan
		}
	}
	return -1
}

// TestTimedReplay: the cricket final's views, scaled down to 5 s with its
// crash at 2.5 s, sampled and replayed as a timed stream (as: timed, by
// the scenario sample -replay writes), give every design the same
// measured rows on its cluster — load, backlog, staleness, what the crash
// lost; the plans taken from the phases are the log's own: the peak the
// busiest second of the log, counted here from its lines.
func TestTimedReplay(t *testing.T) {
	dir := t.TempDir()
	scn := filepath.Join(dir, "views.yaml")
	if err := os.WriteFile(scn, []byte(viewsScaled("5s", "2.5s")), 0o644); err != nil {
		t.Fatal(err)
	}
	log, replay := filepath.Join(dir, "views.csv"), filepath.Join(dir, "views-replay.yaml")
	if _, stderr, code := cli(t, "sample", "-events", "2000000", "-o", log, "-replay", replay, scn); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	text, _ := os.ReadFile(replay)
	if !strings.Contains(string(text), "as: timed") || !strings.Contains(string(text), "server: 7") {
		t.Fatalf("the replay scenario lacks as: timed or the fault:\n%s", text)
	}
	syn := runResultsOf(t, filepath.Join(dir, "out-syn"), scn)
	rep := runResultsOf(t, filepath.Join(dir, "out-rep"), replay)
	want, got := measuredRows(syn), measuredRows(rep)
	if len(want) < 40 || len(got) != len(want) {
		t.Errorf("%d measured rows replayed, %d synthetic", len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: replayed %s, synthetic %s", k, got[k], w)
		}
	}
	for _, k := range []string{"batched-1s lost_on_crash sim", "single-key backlog_growth_per_s sim", "striped-32-cached staleness_max_s sim"} {
		if _, ok := got[k]; !ok {
			t.Errorf("no row %s", k)
		}
	}
	// The peak: the writes of the log's busiest second, from its lines.
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	perSecond := map[int64]float64{}
	sc := bufio.NewScanner(f)
	sc.Scan() // the header: time,key,key_id,actor,actor_id,id,delta,op
	for sc.Scan() {
		cols := strings.Split(sc.Text(), ",")
		if cols[7] != "write" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, cols[0])
		if err != nil {
			t.Fatal(err)
		}
		perSecond[at.Unix()]++
	}
	peak := 0.0
	for _, c := range perSecond {
		peak = max(peak, c)
	}
	if len(perSecond) != 5 || peak < 200_000 {
		t.Fatalf("the log's seconds %v", perSecond)
	}
	if p := planOf(rep, "striped-32", metrics.MaxKeyOps); p != peak/32 {
		t.Errorf("striped-32's max_key_ops_per_s plan %v, want the log's peak %v / 32", p, peak)
	}
	if p := planOf(syn, "striped-32", metrics.MaxKeyOps); p != 200_000.0/32 {
		t.Errorf("the synthetic plan %v, want 6,250", p)
	}
}

// sampleReplay samples the scenario file scn as format, writes the
// scenario that replays it, and runs both: the synthetic run's results
// and the replay's.
func sampleReplay(t *testing.T, dir, scn, format string, extra ...string) (syn, rep []metrics.Result, log string) {
	t.Helper()
	name := strings.TrimSuffix(filepath.Base(scn), ".yaml")
	log, replay := filepath.Join(dir, name+"."+format), filepath.Join(dir, name+"-replay.yaml")
	args := append([]string{"sample", "-format", format, "-o", log, "-replay", replay}, extra...)
	if _, stderr, code := cli(t, append(args, scn)...); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	syn = runResultsOf(t, filepath.Join(dir, "out-syn-"+name), scn)
	rep = runResultsOf(t, filepath.Join(dir, "out-rep-"+name), replay)
	return syn, rep, log
}

// sameMeasured fails t where rep's measured rows differ from syn's.
func sameMeasured(t *testing.T, what string, syn, rep []metrics.Result, least int) {
	t.Helper()
	want, got := measuredRows(syn), measuredRows(rep)
	if len(want) < least || len(got) != len(want) {
		t.Errorf("%s: %d measured rows replayed, %d synthetic", what, len(got), len(want))
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %s: replayed %s, synthetic %s", what, k, got[k], w)
		}
	}
}

// TestTimedReplayLikesAndWicket: the built-in likes (resends of the same
// id, dedup windows) sampled to NDJSON, and the wicket scaled down to 6 s
// (a ramp, a spike: the log is not steady, its seconds its phases),
// replay to the synthetic runs' measured rows; the replayed truth finds
// the likes' resends by their ids.
func TestTimedReplayLikesAndWicket(t *testing.T) {
	dir := t.TempDir()
	src, err := sourceOfBuiltin("likes")
	if err != nil {
		t.Fatal(err)
	}
	likes := filepath.Join(dir, "likes.yaml")
	if err := os.WriteFile(likes, src, 0o644); err != nil {
		t.Fatal(err)
	}
	syn, rep, _ := sampleReplay(t, dir, likes, "ndjson", "-events", "700000")
	sameMeasured(t, "likes", syn, rep, 40)
	resends := func(rs []metrics.Result) string {
		for _, r := range rs {
			if r.Metric == metrics.Resends && r.Value != nil {
				return optional(r.Value) + " / " + optional(r.Plan)
			}
		}
		return "none"
	}
	if s, r := resends(syn), resends(rep); !strings.HasPrefix(r, strings.Split(s, " ")[0]+" / ") || r == "none" {
		t.Errorf("resends: replayed %s, synthetic %s", r, s)
	}

	w, err := sourceOfBuiltin("wicket")
	if err != nil {
		t.Fatal(err)
	}
	s := string(w)
	for _, r := range [][2]string{{"duration: 20s", "duration: 2s"}, {"duration: 5s", "duration: 500ms"}, {"duration: 15s", "duration: 1500ms"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	s = dropExpect(s)
	wicket := filepath.Join(dir, "wicket.yaml")
	if err := os.WriteFile(wicket, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	syn, rep, _ = sampleReplay(t, dir, wicket, "csv", "-events", "2000000")
	sameMeasured(t, "wicket", syn, rep, 20)
}

// sourceOfBuiltin is a built-in scenario's YAML.
func sourceOfBuiltin(name string) ([]byte, error) {
	return scenarios.BuiltinSource(name)
}

// dropExpect drops the expect and shows lines of a scenario's designs,
// which state the full scenario's numbers.
func dropExpect(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if tl := strings.TrimSpace(l); strings.HasPrefix(tl, "expect:") || strings.HasPrefix(tl, "shows:") {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
