package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"countsim/internal/redistest"
)

// storeYAML is a hot counter for 20 s at 20,000 writes a second: long
// enough for its server to be killed mid-run.
const storeYAML = `name: hot-redis
seed: 1
workload:
  keys: 1
  phases: [{duration: 20s, rate: 20_000}]
  reads: 100
cluster: {nodes: 4, key_capacity: 10_000}
strategies:
  - name: striped-8
    type: striped
    params: {stripes: 8}
`

// TestRunStoreServerKilled: the Redis server killed a second into a run
// ends it with exit 1 within seconds, and the report written is marked
// partial.
func TestRunStoreServerKilled(t *testing.T) {
	srv := redistest.Server(t)
	dir := t.TempDir()
	scn := filepath.Join(dir, "hot.yaml")
	if err := os.WriteFile(scn, []byte(storeYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	time.AfterFunc(time.Second, srv.Kill)
	t0 := time.Now()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"run", "-q", "-out", out, "-store", "redis://" + srv.Addr, scn})
	took := time.Since(t0)
	if code := exitCode(err, &stderr); code != 1 {
		t.Fatalf("exit %d, want 1 (%v)\n%s", code, err, stderr.String())
	}
	if took > 10*time.Second {
		t.Errorf("the run ended %s after it began, the server killed at 1 s", took)
	}
	if !strings.Contains(err.Error(), srv.Addr) || !strings.Contains(err.Error(), "partial") {
		t.Errorf("error %q: want the store named and the report called partial", err)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "hot-redis-*"))
	if len(dirs) != 1 {
		t.Fatalf("report folders %v, want one", dirs)
	}
	if rep, _ := os.ReadFile(filepath.Join(dirs[0], "report.md")); !bytes.Contains(rep, []byte("PARTIAL")) {
		t.Errorf("report.md not marked partial")
	}
}

// TestRunStoreBadInput: a malformed -store or -pace is bad usage (exit 2,
// the allowed forms, nothing written); a refused connection fails the run
// (exit 1) before anything is written.
func TestRunStoreBadInput(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-store", "http://127.0.0.1:6379"}, 2, "allowed: redis://host:port[/db] or redis-cluster://"},
		{[]string{"-store", "redis://127.0.0.1:1", "-pace", "fast"}, 2, "allowed: real, max"},
		{[]string{"-store", "redis://127.0.0.1:1"}, 1, "connection refused"},
	} {
		var stdout, stderr bytes.Buffer
		args := append(append([]string{"run", "-q", "-out", out}, c.args...), "testdata/small.yaml")
		err := run(context.Background(), &stdout, &stderr, args)
		if code := exitCode(err, &stderr); code != c.code || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr.String(), c.code, c.want)
		}
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("written: %v", left)
	}
}
