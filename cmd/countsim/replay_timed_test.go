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

// measuredValue is design's first measured value of m in rs; t fails
// where it has none.
func measuredValue(t *testing.T, rs []metrics.Result, design string, m metrics.Metric) float64 {
	t.Helper()
	for _, r := range rs {
		if r.Strategy == design && r.Metric == m && r.Value != nil {
			return *r.Value
		}
	}
	t.Fatalf("%s has no %s", design, m)
	return 0
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

// TestTimedReplay: the cricket final's views, scaled down to 6 s with its
// crash at 3.5 s (1.23 M events, past the head Prepare reads), sampled and replayed as a timed stream (as: timed, by
// the scenario sample -replay writes), give every design the same
// measured rows on its cluster — load, backlog, staleness, what the crash
// lost; the plans taken from the phases are the log's own: the peak the
// busiest second of the log, counted here from its lines, and a note gives
// the estimate from the head beside the figures read. The same log with
// the crash at 6 s, its end, is refused once it is read.
func TestTimedReplay(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: the cricket views, 1.23 M events, sampled and replayed (the race-free pass runs it)")
	}
	dir := t.TempDir()
	scn := filepath.Join(dir, "views.yaml")
	if err := os.WriteFile(scn, []byte(viewsScaled("6s", "3.5s")), 0o644); err != nil {
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
	if len(perSecond) != 6 || peak < 200_000 {
		t.Fatalf("the log's seconds %v", perSecond)
	}
	if p := planOf(rep, "striped-32", metrics.MaxKeyOps); p != peak/32 {
		t.Errorf("striped-32's max_key_ops_per_s plan %v, want the log's peak %v / 32", p, peak)
	}
	if p := planOf(syn, "striped-32", metrics.MaxKeyOps); p != 200_000.0/32 {
		t.Errorf("the synthetic plan %v, want 6,250", p)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out-rep", "views-replay", "report.md"))
	if err != nil {
		entries, _ := filepath.Glob(filepath.Join(dir, "out-rep", "*", "report.md"))
		if len(entries) != 1 {
			t.Fatalf("no report.md: %v", err)
		}
		b, _ = os.ReadFile(entries[0])
	}
	if want := "busiest second " + metrics.Format(peak) + " writes, estimated at"; !strings.Contains(string(b), want) {
		t.Errorf("the report has no note %q", want)
	}
	late := filepath.Join(dir, "late.yaml")
	if err := os.WriteFile(late, []byte(strings.Replace(string(text), "at: 3.5s", "at: 6s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "late-out")
	if _, stderr, code := cli(t, "run", "-out", out, late); code != 2 || !strings.Contains(stderr, "late.yaml:") || !strings.Contains(stderr, "spans 6 s") {
		t.Errorf("a crash at the log's end: exit %d, %q; want 2, the fault's line and the span", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s", out)
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
	asSame(t, what, measuredRows(rep), measuredRows(syn), least)
}

// TestTimedReplayLikesAndWicket: the built-in likes (resends of the same
// id, dedup windows) sampled to NDJSON, and the wicket scaled down to 6 s
// (a ramp, a spike: the log is not steady, its seconds its phases),
// replay to the synthetic runs' measured rows; the replayed truth finds
// the likes' resends by their ids.
func TestTimedReplayLikesAndWicket(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: likes and wicket sampled and replayed, four runs (the race-free pass runs it)")
	}
	dir := t.TempDir()
	src, err := scenarios.BuiltinSource("likes")
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

	w, err := scenarios.BuiltinSource("wicket")
	if err != nil {
		t.Fatal(err)
	}
	s := string(w)
	for _, r := range [][2]string{{"duration: 20s", "duration: 2s"}, {"duration: 5s", "duration: 500ms"}, {"duration: 15s", "duration: 1500ms"}} {
		s = strings.ReplaceAll(s, r[0], r[1])
	}
	s = dropExpect(t, s)
	wicket := filepath.Join(dir, "wicket.yaml")
	if err := os.WriteFile(wicket, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	syn, rep, _ = sampleReplay(t, dir, wicket, "csv", "-events", "2000000")
	sameMeasured(t, "wicket", syn, rep, 20)
}

// dropExpect drops the expectations of a scenario's text (scenarios.Edit),
// which state the full scenario's numbers.
func dropExpect(t *testing.T, s string) string {
	t.Helper()
	e, err := scenarios.NewEdit([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	e.DropExpectations()
	out, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// likesLog is a hand-written log of likes as a team would keep it: a user
// (a string), a post, a time to the millisecond, an id the phone resends
// with, and the page reads of the posts. Over 4 s: post "cat" takes 6
// likes in second 1, one resent; "dog" 3; the reads show the counts.
const likesLog = `user,post,at,like_id,op
u-anna,cat,2026-03-01T12:00:00.120Z,l1,write
u-bo,dog,2026-03-01T12:00:00.410Z,l2,write
u-cy,cat,2026-03-01T12:00:00.900Z,l3,read
u-dee,cat,2026-03-01T12:00:01.005Z,l4,write
u-eli,cat,2026-03-01T12:00:01.200Z,l5,write
u-eli,cat,2026-03-01T12:00:01.400Z,l5,write
u-fay,cat,2026-03-01T12:00:01.410Z,l6,write
u-gus,cat,2026-03-01T12:00:01.700Z,l7,write
u-hal,cat,2026-03-01T12:00:01.950Z,l8,write
u-ivy,dog,2026-03-01T12:00:02.300Z,l9,write
u-jo,cat,2026-03-01T12:00:02.500Z,l10,read
u-kim,dog,2026-03-01T12:00:03.100Z,l11,write
u-lu,cat,2026-03-01T12:00:03.999Z,l12,write
`

// TestTimedReplayHandWritten: a hand-written log replayed as a timed
// stream answers from its own clock and ids: the writes and reads and the
// resends the test counts from its lines, single-key's busiest key-second
// and its count off by the resend, the cluster's seconds the log's 4; a
// fault at or after the log's end is refused at its line, naming the
// log's span, exit 2, nothing written; an op off the allowed is refused at
// the log's line.
func TestTimedReplayHandWritten(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "likes.csv")
	if err := os.WriteFile(log, []byte(likesLog), 0o644); err != nil {
		t.Fatal(err)
	}
	// The truth, from the lines.
	var writes, reads, resends, busiest, peak float64
	seen := map[string]bool{}
	keySecond, second := map[string]float64{}, map[string]float64{}
	for _, l := range strings.Split(strings.TrimSpace(likesLog), "\n")[1:] {
		c := strings.Split(l, ",")
		switch {
		case c[4] == "read":
			reads++
		case seen[c[3]]:
			resends++
		default:
			seen[c[3]] = true
			writes++
			second[c[2][:19]]++
			peak = max(peak, second[c[2][:19]])
		}
		if c[4] == "write" {
			k := c[1] + c[2][:19]
			keySecond[k]++
			busiest = max(busiest, keySecond[k])
		}
	}
	scn := func(faultAt string) string {
		return `name: likes-log
seed: 1
assumptions:
  key_capacity: 1_000
  app_servers: 2
workload:
  file: likes.csv
  as: timed
  key: post
  actor: user
  time: at
  id: like_id
  op: op
cluster:
  nodes: 2
faults:
  - at: ` + faultAt + `
    kind: app-crash
    server: 1
strategies:
  - name: single-key
    type: single-key
  - name: striped-4
    type: striped
    params:
      stripes: 4
      select: hash
  - name: batched
    type: batched
    params:
      servers: 2
      flush: 1s
`
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte(scn("2500ms")), 0o644); err != nil {
		t.Fatal(err)
	}
	rs := runResultsOf(t, filepath.Join(dir, "out"), good)
	value := func(design string, m metrics.Metric) float64 { return measuredValue(t, rs, design, m) }
	for _, c := range []struct {
		design string
		m      metrics.Metric
		want   float64
	}{
		{"truth", metrics.Writes, writes}, {"truth", metrics.Reads, reads}, {"truth", metrics.Resends, resends},
		{"single-key", metrics.MaxKeyOps, busiest}, {"single-key", metrics.CountError, resends},
		{"striped-4", metrics.FinalCount, writes + resends},
	} {
		if got := value(c.design, c.m); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.design, c.m, got, c.want)
		}
	}
	if writes != 10 || resends != 1 || busiest != 6 || peak != 5 {
		t.Fatalf("the log's truth: %v writes, %v resent, busiest key-second %v, peak %v", writes, resends, busiest, peak)
	}
	if got := planOf(rs, "single-key", metrics.MaxKeyOps); got != peak {
		t.Errorf("single-key's planned key load %v, want the log's busiest second, %v writes (the resend apart, as a phase's rate)", got, peak)
	}

	// A fault at the log's end, 4 s: refused at the fault's line.
	late := filepath.Join(dir, "late.yaml")
	if err := os.WriteFile(late, []byte(scn("4s")), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "late-out")
	_, stderr, code := cli(t, "run", "-out", out, late)
	if code != 2 || !strings.Contains(stderr, late+":17:") || !strings.Contains(stderr, "spans 4 s") {
		t.Errorf("a fault at the log's end: exit %d, %q; want 2 at %s:17 and the span", code, stderr, late)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s", out)
	}
	// A bad op on line 7 of the log.
	if err := os.WriteFile(log, []byte(strings.Replace(likesLog, "l5,write\nu-fay", "l5,rewrite\nu-fay", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = cli(t, "run", "-out", out, good)
	if code != 2 || !strings.Contains(stderr, log+":7:") {
		t.Errorf("a bad op: exit %d, %q; want 2 at %s:7", code, stderr, log)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s", out)
	}
}

// TestTimedReplayNodeTopK: node-topk (16 app nodes pushing their top 100
// to a central sorted set: a timed stream on the cluster) scaled down to
// 6 s, sampled and replayed as a timed stream, gives every design — the
// cycles and Ks of its sweeps — the same measured rows.
func TestTimedReplayNodeTopK(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: node-topk sampled and replayed (the race-free pass runs it)")
	}
	dir := t.TempDir()
	src, err := scenarios.BuiltinSource("node-topk")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(src), "duration: 60s", "duration: 6s", 1)
	s = strings.Replace(dropExpect(t, s), "cycle: [1s, 5s, 20s, 60s]", "cycle: [1s, 2s, 5s]", 1)
	scn := filepath.Join(dir, "node-topk.yaml")
	if err := os.WriteFile(scn, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	syn, rep, _ := sampleReplay(t, dir, scn, "ndjson", "-events", "200000")
	sameMeasured(t, "node-topk", syn, rep, 60)
}
