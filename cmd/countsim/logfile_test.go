package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
)

// searchAs is the built-in search scenario named name with its workload
// replaced by workload (lines under `workload:`), and without the truth's
// expectations, which state the full stream's numbers.
func searchAs(t *testing.T, dir, name, workload string) string {
	t.Helper()
	src, err := scenarios.BuiltinSource("search")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	i := strings.Index(s, "\nworkload:\n")
	j := strings.Index(s, "\nquestions:")
	if i < 0 || j < i {
		t.Fatal("search.yaml has no workload block before its questions")
	}
	s = s[:i] + "\nworkload:\n" + workload + "\n" + s[j:]
	s = strings.Replace(s, "name: search\n", "name: "+name+"\n", 1)
	if k := strings.Index(s, "\nexpect:"); k >= 0 { // the truth's, at the top level
		end := strings.Index(s[k+1:], "\n\n")
		s = s[:k] + s[k+1+end:]
	}
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// designRows are a run's measured rows of the designs (the truth's and the
// clock's left out), by design and metric.
func designRows(rs []metrics.Result) map[string]string {
	out := map[string]string{}
	for _, r := range rs {
		if r.Timing || strings.HasPrefix(r.Strategy, "truth") {
			continue
		}
		out[r.Strategy+" "+string(r.Metric)+" "+string(r.Scale)] = optional(r.Value) + " / " + optional(r.Plan)
	}
	return out
}

func optional(x *float64) string {
	if x == nil {
		return "-"
	}
	return metrics.Format(*x)
}

// TestSampleReplaysTheSyntheticRun: a log written by countsim sample from
// search, replayed as a file — gzipped CSV and plain NDJSON — gives every
// design the same measured rows and plans as the synthetic run of the same
// events; the top keys' table names them by their strings.
func TestSampleReplaysTheSyntheticRun(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: search sampled and replayed, three runs (the race-free pass runs it)")
	}
	dir := t.TempDir()
	const events = "200000"
	for _, f := range []struct{ file, format string }{{"s.csv.gz", "csv"}, {"s.ndjson", "ndjson"}} {
		if _, stderr, code := cli(t, "sample", "-events", events, "-format", f.format, "-o", filepath.Join(dir, f.file)); code != 0 {
			t.Fatalf("sample: exit %d: %s", code, stderr)
		}
	}
	// -o never writes over a file.
	if _, stderr, code := cli(t, "sample", "-events", "10", "-o", filepath.Join(dir, "s.ndjson")); code == 0 || !strings.Contains(stderr, "exists") {
		t.Errorf("sample over an existing file: exit %d, %s", code, stderr)
	}
	synthetic := searchAs(t, dir, "synthetic", "  events: "+events+"\n  keys: 1_000_000\n  s: 1.0\n  batch: 4096")
	want := designRows(runResultsOf(t, filepath.Join(dir, "out-syn"), synthetic))
	for _, f := range []struct{ file, format string }{{"s.csv.gz", "csv"}, {"s.ndjson", "ndjson"}} {
		replay := searchAs(t, dir, "replay-"+f.format, "  file: "+f.file+"\n  format: "+f.format+
			"\n  key: key\n  key_id: key_id\n  time: time\n  actor_id: actor_id\n  event_id: id\n  delta: delta\n  op: op\n  batch: 4096")
		out := filepath.Join(dir, "out-"+f.format)
		got := designRows(runResultsOf(t, out, replay))
		if len(got) != len(want) || len(want) < 50 {
			t.Errorf("%s: %d rows of the designs, the synthetic run %d", f.format, len(got), len(want))
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s: replayed %s, synthetic %s", f.format, k, got[k], w)
			}
		}
		tables, _ := filepath.Glob(filepath.Join(out, "*", "tables", "replay-"+f.format+"-top-keys.csv"))
		if len(tables) != 1 {
			t.Fatalf("%s: top keys tables %v", f.format, tables)
		}
		b, _ := os.ReadFile(tables[0])
		if !strings.HasPrefix(string(b), "key,rank,count\nphrase #1,1,") {
			t.Errorf("%s: top keys table:\n%s", f.format, b)
		}
	}
}

// TestBadLogLine: a log whose line 12,345 cannot be read is refused naming
// the log and the line, exit 2, nothing written; with skip_bad it runs and
// reports the line skipped.
func TestBadLogLine(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "bad.csv")
	if _, stderr, code := cli(t, "sample", "-events", "20000", "-bad", "12345", "-o", log); code != 0 {
		t.Fatalf("sample: exit %d: %s", code, stderr)
	}
	work := "  file: bad.csv\n  key: key\n  time: time"
	out := filepath.Join(dir, "out")
	_, stderr, code := cli(t, "run", "-q", "-out", out, searchAs(t, dir, "strict", work))
	if code != 2 || !strings.Contains(stderr, log+":12345:") {
		t.Errorf("a bad line: exit %d, %q; want 2 and %s:12345", code, stderr, log)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("bad input wrote %s", out)
	}
	rs := runResultsOf(t, out, searchAs(t, dir, "lenient", work+"\n  skip_bad: 1"))
	got := -1.0
	for _, r := range rs {
		if r.Metric == "skipped_lines" && r.Value != nil {
			got = *r.Value
		}
	}
	if got != 1 {
		t.Errorf("skipped_lines %v, want 1", got)
	}
}
