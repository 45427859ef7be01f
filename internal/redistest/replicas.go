package redistest

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A Redis Cluster with replicas (issue 29): three masters, each with one
// replica, on loopback, for tests that kill a master and watch Redis fail
// over. The masters are made a cluster by tools/redis-loopback create, as
// [Cluster]'s are; each replica then meets the cluster (CLUSTER MEET) and
// follows its own master (CLUSTER REPLICATE), so that Replicas[i] is the
// replica of Masters[i], not whichever redis-cli --cluster-replicas would
// pick.
//
// How long a failover takes. A master that answers no PING for
// cluster-node-timeout is PFAIL to the node that pinged it; once a majority
// of masters report it so (by gossip, within a few of the 100 ms pings) it
// is FAIL, and its replica waits 500 ms + a random 0..500 ms (+ 1 s a rank,
// rank 0 here: the only replica) before it asks the masters for their
// votes, which the two surviving masters give within a round trip. So the
// replica answers as the master about node-timeout + 0.5..1 s (+ gossip)
// after the kill: [FailoverMargin] bounds what comes on top of the node
// timeout.

// Defaults of a cluster with replicas.
const (
	// DefaultNodeTimeout is cluster-node-timeout: a failover takes a
	// couple of seconds, where Redis's default (15 s) would take 16.
	DefaultNodeTimeout = time.Second
	// FailoverMargin bounds the time from the kill to the replica's
	// promotion beyond the node timeout: the election delay (≤ 1 s: 500 ms
	// + up to 500 ms at random), the gossip that turns PFAIL into FAIL (a
	// few 100 ms pings) and the vote — about 1.1–1.5 s on an idle machine —
	// and, on a loaded one, one failed election: the replica asks again
	// after twice the failover timeout, 2 × max(2 × node timeout, 2 s) =
	// 4 s (promotion came 7.48 s after the kill once, beside a -race run of
	// the store's tests).
	FailoverMargin = 1500*time.Millisecond + 4*time.Second + 1500*time.Millisecond
	replicaTimeout = 20 * time.Second // from the replicas' start to every link up
)

// ReplicaOptions shape a cluster with replicas.
type ReplicaOptions struct {
	// NodeTimeout is cluster-node-timeout (0: DefaultNodeTimeout), at least
	// 100 ms.
	NodeTimeout time.Duration
	// FullCoverage is cluster-require-full-coverage: true (Redis's
	// default) makes every node refuse every command (CLUSTERDOWN) from
	// the dead master's FAIL to its replica's promotion; false (the
	// default here) keeps the other masters answering for their own slots,
	// so that only the dead master's keys fail — the simulated cluster's
	// failover.
	FullCoverage bool
}

// ReplicaCluster is a Redis Cluster of three masters and their replicas
// that this test started.
type ReplicaCluster struct {
	// Masters are the masters in the order given to redis-cli --cluster
	// create: Masters[i] serves the i-th range of keyslot.Ranges(3), the
	// simulated cluster's node i, until it is killed.
	Masters []*Instance
	// Replicas[i] replicates Masters[i], and takes over its slots when it
	// dies.
	Replicas    []*Instance
	URL         string // redis-cluster://M1,M2,M3 (the masters at the start)
	NodeTimeout time.Duration
	ids         []string // the masters' node IDs
}

// ReplicatedCluster starts a cluster of three masters, each with one
// replica (ReplicaOptions), and returns once every replica's link to its
// master is up and every node knows all six, with cluster_state:ok and all
// 16384 slots assigned. t.Cleanup stops the servers. It fails the test,
// never skips it, when redis-server is not installed or the cluster does
// not form.
func ReplicatedCluster(t testing.TB, o ReplicaOptions) *ReplicaCluster {
	t.Helper()
	if o.NodeTimeout == 0 {
		o.NodeTimeout = DefaultNodeTimeout
	}
	if o.NodeTimeout < 100*time.Millisecond {
		t.Fatalf("redistest: node timeout %v: at least 100 ms", o.NodeTimeout)
	}
	script := setup(t)
	if _, err := exec.LookPath("redis-cli"); err != nil {
		t.Fatalf("redistest: redis-cli not found on PATH (tools/redis-loopback create needs it): %v", err)
	}
	const n = 3
	c := &ReplicaCluster{Masters: make([]*Instance, n), Replicas: make([]*Instance, n), NodeTimeout: o.NodeTimeout}
	deadline := time.Now().Add(replicaTimeout)
	coverage := "no"
	if o.FullCoverage {
		coverage = "yes"
	}
	conf := func(inst *Instance, kvs ...[2]string) {
		// Settable at run time: the loopback script's own arguments stay
		// those of every other cluster node.
		for _, kv := range kvs {
			if _, err := command(inst.Addr, deadline, "CONFIG", "SET", kv[0], kv[1]); err != nil {
				t.Fatalf("redistest: %s: CONFIG SET %s %s: %v", inst.Addr, kv[0], kv[1], err)
			}
		}
	}
	boot := [][2]string{
		{"cluster-require-full-coverage", coverage},
		{"repl-diskless-sync-delay", "0"}, // a replica's first sync at once, not after 5 s
	}
	args := []string{"create"}
	addrs := make([]string, n)
	for i := range n {
		c.Masters[i] = start(t, script, true)
		conf(c.Masters[i], boot...)
		addrs[i] = c.Masters[i].Addr
		args = append(args, port(c.Masters[i].Addr))
	}
	for i := range n {
		c.Replicas[i] = start(t, script, true)
		conf(c.Replicas[i], boot...)
	}
	c.URL = "redis-cluster://" + strings.Join(addrs, ",")
	ctx, cancel := context.WithTimeout(context.Background(), createTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, script, args...).CombinedOutput(); err != nil {
		t.Fatalf("redistest: %s %s: %v\n%s", script, strings.Join(args, " "), err, out)
	}
	for _, m := range c.Masters {
		id, err := command(m.Addr, deadline, "CLUSTER", "MYID")
		if err != nil {
			t.Fatalf("redistest: %s: CLUSTER MYID: %v", m.Addr, err)
		}
		c.ids = append(c.ids, id)
	}
	// A replica can follow its master once it knows it (CLUSTER REPLICATE
	// refuses an unknown node ID): meet it and poll until it does, meeting
	// it again each time — a handshake not done within the node timeout is
	// dropped, as it may be on a loaded machine.
	for i, r := range c.Replicas {
		m := c.Masters[i]
		if err := poll(deadline, func() error {
			if _, err := command(r.Addr, deadline, "CLUSTER", "MEET", "127.0.0.1", port(m.Addr)); err != nil {
				return fmt.Errorf("CLUSTER MEET %s: %w", m.Addr, err)
			}
			time.Sleep(50 * time.Millisecond)
			_, err := command(r.Addr, deadline, "CLUSTER", "REPLICATE", c.ids[i])
			return err
		}); err != nil {
			t.Fatalf("redistest: %s: CLUSTER REPLICATE %s (master %s): %v%s", r.Addr, c.ids[i], c.Masters[i].Addr, err, logTail(r.Dir))
		}
	}
	if err := c.waitFormed(deadline); err != nil {
		t.Fatalf("redistest: cluster with replicas %s: %v", c.URL, err)
	}
	// The short node timeout once the cluster is formed: its handshakes
	// ran under the loopback script's 2 s.
	for _, inst := range append(append([]*Instance{}, c.Masters...), c.Replicas...) {
		conf(inst, [2]string{"cluster-node-timeout", strconv.FormatInt(o.NodeTimeout.Milliseconds(), 10)})
	}
	return c
}

// waitFormed waits until every replica's link to its master is up and
// every node sees three masters with all slots and three replicas, each of
// its own master.
func (c *ReplicaCluster) waitFormed(deadline time.Time) error {
	return poll(deadline, func() error {
		for i, r := range c.Replicas {
			info, err := command(r.Addr, deadline, "INFO", "replication")
			if err != nil {
				return err
			}
			if infoField(info, "master_link_status") != "up" || infoField(info, "master_port") != port(c.Masters[i].Addr) {
				return fmt.Errorf("replica %s: link to %s %q (master_port %q)", r.Addr, c.Masters[i].Addr,
					infoField(info, "master_link_status"), infoField(info, "master_port"))
			}
		}
		for _, n := range append(append([]*Instance{}, c.Masters...), c.Replicas...) {
			info, err := command(n.Addr, deadline, "CLUSTER", "INFO")
			if err != nil {
				return err
			}
			if infoField(info, "cluster_state") != "ok" || infoField(info, "cluster_slots_assigned") != "16384" || infoField(info, "cluster_known_nodes") != "6" {
				return fmt.Errorf("node %s: cluster_state %q, slots assigned %q, known nodes %q", n.Addr,
					infoField(info, "cluster_state"), infoField(info, "cluster_slots_assigned"), infoField(info, "cluster_known_nodes"))
			}
			nodes, err := command(n.Addr, deadline, "CLUSTER", "NODES")
			if err != nil {
				return err
			}
			for i, id := range c.ids {
				if got := replicasOf(nodes, id); got != 1 {
					return fmt.Errorf("node %s sees %d replicas of master %s (%s), want 1", n.Addr, got, c.Masters[i].Addr, id)
				}
			}
		}
		return nil
	})
}

// replicasOf counts the lines of a CLUSTER NODES reply that are replicas
// (flags slave) of master id.
func replicasOf(nodes, id string) int {
	k := 0
	for line := range strings.Lines(nodes) {
		f := strings.Fields(line)
		if len(f) > 3 && strings.Contains(f[2], "slave") && f[3] == id {
			k++
		}
	}
	return k
}

// KillMaster ends master i at once with SIGKILL, by its PID (its writes not
// yet sent to its replica are lost with it), and returns the time of the
// kill. Its replica takes over; [ReplicaCluster.WaitPromoted] waits for it.
func (c *ReplicaCluster) KillMaster(i int) time.Time {
	c.Masters[i].Kill()
	return time.Now()
}

// WaitPromoted waits until replica i answers as a master with
// cluster_state:ok and every surviving node of the cluster says so too
// (cluster_state:ok, the replica a master), or timeout passes, and
// returns when the replica was first seen as the master. Polls are 10 ms
// apart: the time is that late at most.
func (c *ReplicaCluster) WaitPromoted(i int, timeout time.Duration) (time.Time, error) {
	deadline := time.Now().Add(timeout)
	r := c.Replicas[i]
	var promoted time.Time
	err := pollEvery(deadline, 10*time.Millisecond, func() error {
		if promoted.IsZero() {
			info, err := command(r.Addr, deadline, "INFO", "replication")
			if err != nil {
				return err
			}
			if role := infoField(info, "role"); role != "master" {
				return fmt.Errorf("replica %s of %s: role %q", r.Addr, c.Masters[i].Addr, role)
			}
			promoted = time.Now()
		}
		for k, n := range append(append([]*Instance{}, c.Masters...), c.Replicas...) {
			if k < len(c.Masters) && c.Masters[k].gone() {
				continue
			}
			info, err := command(n.Addr, deadline, "CLUSTER", "INFO")
			if err != nil {
				return err
			}
			if s := infoField(info, "cluster_state"); s != "ok" {
				return fmt.Errorf("node %s: cluster_state %q", n.Addr, s)
			}
		}
		return nil
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("redistest: replica %s not the master of %s's slots within %v: %w%s", r.Addr, c.Masters[i].Addr, timeout, err, logTail(r.Dir))
	}
	return promoted, nil
}

// gone reports whether the server has exited.
func (i *Instance) gone() bool {
	select {
	case <-i.done:
		return true
	default:
		return false
	}
}

// Get reads key from node n by itself, with no cluster redirect: the value
// on that node ("" if the key is not there). A test reads what a promoted
// replica holds with it.
func Get(n *Instance, key string) (string, error) {
	return command(n.Addr, time.Now().Add(readyTimeout), "GET", key)
}

// command sends one command to addr on a connection of its own.
func command(addr string, deadline time.Time, args ...string) (string, error) {
	c, err := dial(addr, deadline)
	if err != nil {
		return "", err
	}
	defer c.Close()
	return c.do(args...)
}

// poll calls f every 50 ms until it returns nil or deadline passes, and
// returns its last error then.
func poll(deadline time.Time, f func() error) error {
	return pollEvery(deadline, 50*time.Millisecond, f)
}

func pollEvery(deadline time.Time, every time.Duration, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(every)
	}
}

// port is the port of a host:port address.
func port(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
