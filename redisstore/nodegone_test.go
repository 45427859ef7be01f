package redisstore_test

import (
	"strings"
	"testing"
	"time"

	"countsim/internal/redistest"
	"countsim/redisstore"
)

// TestClusterMasterGoneIsNamed: one master of three killed mid-run (by its
// PID) stops the run within seconds with a partial report and an error
// that names that master as gone: "node ADDR went away", not the bare
// "context deadline exceeded" of go-redis's pipeline, and no other node.
// The cluster's URL names every node, so the address alone proves nothing.
func TestClusterMasterGoneIsNamed(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	b := connect(t, redisstore.Config{URL: cl.URL})
	// 32 untagged stripes: every master takes ops until the end.
	yaml := strings.Replace(viewsYAML, "3s", "30s", 1)
	dead := cl.Nodes[1]
	time.AfterFunc(time.Second, dead.Kill)
	t0 := time.Now()
	rep, err := runOn(t, yaml, b)
	took := time.Since(t0)
	if err == nil {
		t.Fatal("the run ended without an error, want the killed master's")
	}
	if want := "node " + dead.Addr + " went away"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q, want %q in it", err, want)
	}
	for _, n := range cl.Nodes {
		if n != dead && strings.Contains(err.Error(), n.Addr+" went away") {
			t.Errorf("error %q names %s, which is up, as gone", err, n.Addr)
		}
	}
	if rep == nil || !rep.Partial {
		t.Errorf("report %v, want a partial one", rep)
	}
	if took > 15*time.Second {
		t.Errorf("the run took %s to stop after a master was killed at 1 s", took)
	}
}
