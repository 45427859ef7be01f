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
