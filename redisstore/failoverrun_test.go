package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"countsim/internal/redistest"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/sim"
)

// TestFailoverFaultRefusedWithoutAKiller: a run whose faults hold a
// failover reaches the real store's twins (the runner hands every twin's
// store the run's faults), and a store countsim may not kill a master of
// refuses it before anything is sent: a cluster at a URL (ErrNoKiller),
// one server (no replica to fail over to). The failover kind comes from
// the scenario's faults as the runner converts them; the loader's own
// checks of it are the faults branch's.
func TestFailoverFaultRefusedWithoutAKiller(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	srv := redistest.Server(t)
	for _, c := range []struct {
		url  string
		want string
		is   error
	}{
		{cl.URL, "not countsim's to shut down", redisstore.ErrNoKiller},
		{"redis://" + srv.Addr, "one server has no replica", nil},
	} {
		b := connect(t, redisstore.Config{URL: c.url})
		scn, err := scenarios.Parse("t.yaml", []byte(viewsYAML))
		if err != nil {
			t.Fatal(err)
		}
		scn.Faults = append(scn.Faults, scenarios.Fault{At: int64(2 * time.Second), Kind: "failover", Node: 1, Target: 1})
		st, err := sim.Prepare(scn, sim.Options{Store: b})
		if err != nil {
			t.Fatal(err)
		}
		_, err = st.Run(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: run with a failover: %v, want an error saying %q", c.url, err, c.want)
		}
	}
}

// TestRunKillsTheMasterAtTheFaultsTime: in a run on a cluster with
// replicas whose backend has a killer (the test cluster's), the runner's
// failover fault kills the master serving the fault's node once, whatever
// the number of twins, at the fault's time on the paced replay. Today's
// designs send their ops with Do, which has no way to hear of a failed op:
// the run then stops with an error naming the node that went away (a
// design that sends with DoClient keeps counting: TestFailoverOnARealCluster).
func TestRunKillsTheMasterAtTheFaultsTime(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t, redistest.ReplicaOptions{})
	b := connect(t, redisstore.Config{URL: c.URL})
	var kills []int
	var killed time.Time
	b.SetKiller(func(node int) error {
		kills = append(kills, node)
		killed = c.KillMaster(node)
		return nil
	})
	scn, err := scenarios.Parse("t.yaml", []byte(viewsYAML))
	if err != nil {
		t.Fatal(err)
	}
	const at = 2 * time.Second
	scn.Faults = append(scn.Faults, scenarios.Fault{At: int64(at), Kind: "failover", Node: 1, Target: 1})
	st, err := sim.Prepare(scn, sim.Options{Store: b})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = st.Run(context.Background())
	if len(kills) != 1 || kills[0] != 1 {
		t.Fatalf("kills %v, want node 1 once", kills)
	}
	// The replay's clock starts at its first op, after the run's set-up:
	// the kill comes at the fault's time after that, never before.
	if d := killed.Sub(start); d < at {
		t.Errorf("killed %v after the run's start, before the fault's %v", d, at)
	}
	if err == nil || !strings.Contains(err.Error(), c.Masters[1].Addr+" went away") {
		t.Errorf("run: %v, want the error naming %s gone", err, c.Masters[1].Addr)
	}
}
