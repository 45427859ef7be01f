package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"countsim/strategies"
)

const ms = int64(1e6)

// keyOn returns a key that the cluster places on node.
func keyOn(c *Cluster, node int) uint64 {
	for k := uint64(1); ; k++ {
		if c.NodeOf(k, 0) == node {
			return k
		}
	}
}

// sendEach sends ops one call each from server with timeout, and returns
// their statuses and the values read.
func sendEach(t *testing.T, c *Cluster, cl strategies.Client, ops []strategies.StoreOp) ([]strategies.OpStatus, []int64) {
	t.Helper()
	st := make([]strategies.OpStatus, len(ops))
	vals := make([]int64, len(ops))
	for lo := 0; lo < len(ops); lo += 100 {
		hi := min(lo+100, len(ops))
		c.DoClient(cl, ops[lo:hi], vals[lo:hi], st[lo:hi])
	}
	clusterCheck(t, c)
	return st, vals
}

func countTimeouts(st []strategies.OpStatus) (n int) {
	for _, s := range st {
		if s == strategies.OpTimeout {
			n++
		}
	}
	return n
}

// A node down from 1 s for 1 s under a write every ms: the 1,000 writes
// sent in the window are refused (not applied, timed out), the 2,000
// others land; the node answers at once at the window's end.
func TestClusterNodeDown(t *testing.T) {
	for _, timeout := range []int64{0, 5 * ms} {
		t.Run(fmt.Sprintf("timeout=%d", timeout), func(t *testing.T) {
			c := newTestCluster(t, Config{Nodes: 4, KeyCapacity: 10_000})
			key, other := keyOn(c, 2), keyOn(c, 1)
			c.Fault(strategies.Fault{At: 1e9, Kind: strategies.NodeDown, Target: 2, For: 1e9})
			ops := clusterMerge(clusterIncrs(key, 1000, 0, 3000), clusterIncrs(other, 1000, 0, 3000))
			st, _ := sendEach(t, c, strategies.Client{Timeout: timeout}, ops)
			for i, op := range ops {
				want := strategies.OpOK
				if op.Key == key && op.At >= 1e9 && op.At < 2e9 {
					want = strategies.OpTimeout
				}
				if st[i] != want {
					t.Fatalf("op %d at %d on key %d: status %d, want %d", i, op.At, op.Key, st[i], want)
				}
			}
			if got := c.Final(key); got != 2000 {
				t.Errorf("final %d, want 2000", got)
			}
			if got := c.Final(other); got != 3000 {
				t.Errorf("other node's key: final %d, want 3000", got)
			}
			out := c.Outages()
			if len(out) != 1 || out[0].Failed != 1000 || out[0].Recovered != 2e9 || out[0].Lost != 0 {
				t.Errorf("outages %+v, want 1000 failed, recovered at 2 s", out)
			}
			if w := c.Writes(); w != 5000 {
				t.Errorf("writes served %d, want 5000 (the refused ones reach no node)", w)
			}
		})
	}
}

// The ops a down node had queued before it went down are served on
// schedule, but those answered in the window reach no client.
func TestClusterNodeDownQueued(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
	c.Fault(strategies.Fault{At: 1e9, Kind: strategies.NodeDown, Target: 0, For: 1e9})
	// 10 writes at 999.5 ms complete at 999.6, 999.7, …, 1000.5 ms: the
	// last 6 (from 1000.0 ms, the window's start, inclusive) are unanswered.
	ops := make([]strategies.StoreOp, 10)
	for i := range ops {
		ops[i] = strategies.StoreOp{At: 999_500_000, Kind: strategies.IncrBy, Key: 7, Delta: 1}
	}
	st, _ := sendEach(t, c, strategies.Client{}, ops)
	if n := countTimeouts(st); n != 6 {
		t.Errorf("%d timed out, want 6 (statuses %v)", n, st)
	}
	if got := c.Final(7); got != 10 {
		t.Errorf("final %d, want 10: the queued writes are applied", got)
	}
	// A read in the window reads 0, one after it reads all ten.
	vals := make([]int64, 2)
	sts := make([]strategies.OpStatus, 2)
	c.DoClient(strategies.Client{}, []strategies.StoreOp{{At: 1.5e9, Kind: strategies.Get, Key: 7}, {At: 2e9, Kind: strategies.Get, Key: 7}}, vals, sts)
	if vals[0] != 0 || sts[0] != strategies.OpTimeout || vals[1] != 10 || sts[1] != strategies.OpOK {
		t.Errorf("reads %v %v, want a timeout reading 0, then 10", vals, sts)
	}
	if out := c.Outages()[0]; out.Failed != 1 {
		t.Errorf("failed %d, want 1: the read in the window (the 6 unanswered writes were sent before it)", out.Failed)
	}
}

// A partition cuts server 0 off node 1 for a second: only its ops to node
// 1 in the window fail; server 1 reaches node 1 throughout.
func TestClusterPartition(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 2, KeyCapacity: 10_000})
	k0, k1 := keyOn(c, 0), keyOn(c, 1)
	c.Fault(strategies.Fault{At: 1e9, Kind: strategies.Partition, For: 1e9, Servers: []int{0}, Nodes: []int{1}})
	ops := clusterMerge(clusterIncrs(k0, 1000, 0, 3000), clusterIncrs(k1, 1000, 0, 3000))
	st0, _ := sendEach(t, c, strategies.Client{Server: 0}, ops)
	ops1 := clusterIncrs(k1, 1000, 500_000, 3000) // server 1, between server 0's ops
	for i := range ops1 {
		ops1[i].Delta = 1000
	}
	// the two servers' ops interleave in time: one call each in turn
	st1 := make([]strategies.OpStatus, len(ops1))
	for i := range ops1 {
		c.DoClient(strategies.Client{Server: 1}, ops1[i:i+1], nil, st1[i:i+1])
	}
	_ = st0
	if n := countTimeouts(st1); n != 0 {
		t.Errorf("server 1: %d timed out, want 0", n)
	}
	if got := c.Final(k0); got != 3000 {
		t.Errorf("node 0's key: %d, want 3000", got)
	}
	if got := c.Final(k1); got != 2000+3000*1000 {
		t.Errorf("node 1's key: %d, want 2000 from server 0 + 3,000,000 from server 1", got)
	}
	if out := c.Outages()[0]; out.Failed != 1000 || out.Recovered != 2e9 {
		t.Errorf("outage %+v, want 1000 failed, recovered at 2 s", out)
	}
}

// sendTimed sends ops in time order, op by op, calling the cluster from
// the whole stream at once would give the same (each op is judged alone).

// A failover at 1 s with 100 ms of lag and 500 ms of delay under a write
// every ms: the 100 writes served in (0.9 s, 1 s] are lost, the 500 sent
// in [1 s, 1.5 s) are refused; 2,400 of 3,000 remain. Plan: the node's
// write rate × Lag = 1,000/s × 0.1 s = 100.
func TestClusterFailover(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
	c.Fault(strategies.Fault{At: 1e9, Kind: strategies.Failover, Target: 0, Delay: 500 * ms, Lag: 100 * ms})
	ops := clusterIncrs(9, 1000, 0, 3000)
	reads := []strategies.StoreOp{{At: 999 * ms, Kind: strategies.Get, Key: 9}, {At: 1600 * ms, Kind: strategies.Get, Key: 9}}
	all := clusterMerge(ops, reads)
	st, vals := sendEach(t, c, strategies.Client{}, all)
	if n := countTimeouts(st); n != 500 {
		t.Errorf("%d timed out, want 500", n)
	}
	var got []int64
	for i, op := range all {
		if op.Kind == strategies.Get {
			got = append(got, vals[i])
		}
	}
	// before: the 999 writes served by 999 ms (the one at 999 ms is not yet
	// served at its own time); after: 900 survived + 100 sent from 1.5 s
	// up to 1.599 s, served by 1.6 s.
	if !reflect.DeepEqual(got, []int64{999, 1000}) {
		t.Errorf("reads %v, want [999 1000]", got)
	}
	if f := c.Final(9); f != 2400 {
		t.Errorf("final %d, want 2400", f)
	}
	out := c.Outages()[0]
	if out.Lost != 100 || out.Failed != 500 || out.Recovered != 1.5e9 {
		t.Errorf("outage %+v, want lost 100, failed 500, recovered at 1.5 s", out)
	}
}

// A failover drops the master's queue: a backlog queued at its death is
// never applied, and its writes time out.
func TestClusterFailoverQueue(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
	c.Fault(strategies.Fault{At: 1e9, Kind: strategies.Failover, Target: 0, Delay: 0, Lag: 0})
	// 20 writes at 999 ms complete at 999.1 … 1001.0 ms: 10 by 1 s, 10 after.
	ops := make([]strategies.StoreOp, 20)
	for i := range ops {
		ops[i] = strategies.StoreOp{At: 999 * ms, Kind: strategies.IncrBy, Key: 3, Delta: 1}
	}
	st, _ := sendEach(t, c, strategies.Client{}, ops)
	if n := countTimeouts(st); n != 10 {
		t.Errorf("%d timed out, want 10", n)
	}
	if f := c.Final(3); f != 10 {
		t.Errorf("final %d, want 10", f)
	}
}

// A slow node: one key at 8,000 writes/s against 10,000/s, at half its
// capacity for 1 s. The backlog grows at 8,000 − 5,000 = 3,000 ops/s to
// 3,000 at the window's end, then drains at 10,000 − 8,000 = 2,000/s: by
// 3.5 s. With a 10 ms timeout, an op times out while its wait exceeds
// 10 ms, i.e. while more than 100 ops are queued: the last at 2 s +
// (3,000 − 100)/2,000 = 3.45 s (closed form: (Q − T·μ)/(μ − λ) after
// the end).
func TestClusterNodeSlow(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
	c.Fault(strategies.Fault{At: 1e9, Kind: strategies.NodeSlow, Target: 0, For: 1e9, Share: 0.5})
	ops := clusterIncrs(5, 8000, 0, 8000*5)
	st, _ := sendEach(t, c, strategies.Client{Timeout: 10 * ms}, ops)
	st2 := c.Stats(5e9)
	if b := st2.Backlog[1]; math.Abs(b-3000) > 2 {
		t.Errorf("backlog at 2 s %v, want 3,000 ± 2", b)
	}
	if b := st2.Backlog[2]; math.Abs(b-1000) > 2 {
		t.Errorf("backlog at 3 s %v, want 1,000 ± 2", b)
	}
	if b := st2.Backlog[3]; b > 1 {
		t.Errorf("backlog at 4 s %v, want drained", b)
	}
	out := c.Outages()[0]
	rec := float64(out.Recovered-2e9) / 1e9
	if math.Abs(rec-1.45) > 0.001 {
		t.Errorf("recovered %.4f s after the end, want 1.45 ± 0.001", rec)
	}
	// The first timeout: the wait in the window grows 0.6 s a second (3,000
	// ops/s queued, 200 µs each at half speed) and passes 10 ms at 1/60 s;
	// timeouts then last until 3.45 s: 8,000 × (3.45 − 1.01667) ≈ 19,467.
	if n := countTimeouts(st); math.Abs(float64(n)-19467) > 10 || int64(n) != out.Failed {
		t.Errorf("%d timed out (outage %d), want about 19,467", n, out.Failed)
	}
	if f := c.Final(5); f != 40_000 {
		t.Errorf("final %d, want 40,000: a slow node applies every write", f)
	}
}

// The slow window's arithmetic on one op's service.
func TestClusterFinish(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 2, KeyCapacity: 10_000})
	c.Fault(strategies.Fault{At: 1000, Kind: strategies.NodeSlow, Target: 0, For: 1000, Share: 0.25})
	for _, tc := range []struct{ node, start, w, want int64 }{
		{0, 0, 500, 500},     // before the window
		{0, 900, 200, 1400},  // 100 before, the other 100 at a quarter: 400
		{0, 1200, 100, 1600}, // inside
		{0, 1900, 100, 2075}, // 25 of work in the window's last 100, 75 after
		{0, 500, 2000, 3250}, // spans it: 500 before, 250 in, 1250 after
		{0, 2000, 100, 2100}, // after
		{1, 1200, 100, 1300}, // another node
	} {
		if got := c.finish(int(tc.node), tc.start, tc.w); got != tc.want {
			t.Errorf("node %d: work %d from %d ends at %d, want %d", tc.node, tc.w, tc.start, got, tc.want)
		}
	}
}

// Retries of writes that timed out on a backlogged key: an IncrBy retry
// counts twice, an IncrByOnce retry does not; a write refused by a down
// node was not applied, so its retry lands once.
func TestClusterIncrByOnce(t *testing.T) {
	for _, kind := range []strategies.StoreOpKind{strategies.IncrBy, strategies.IncrByOnce} {
		c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
		cl := strategies.Client{Timeout: ms}
		// 20 writes at 0 complete at 0.1 … 2.0 ms: the last 10 time out.
		ops := make([]strategies.StoreOp, 20)
		for i := range ops {
			ops[i] = strategies.StoreOp{At: 0, Kind: kind, Key: 1, Delta: 1, Member: uint64(100 + i)}
		}
		st, _ := sendEach(t, c, cl, ops)
		var retry []strategies.StoreOp
		for i, s := range st {
			if s == strategies.OpTimeout {
				r := ops[i]
				r.At = 5 * ms
				retry = append(retry, r)
			}
		}
		if len(retry) != 10 {
			t.Fatalf("%d timed out, want 10", len(retry))
		}
		if kind == strategies.IncrByOnce && c.OnceIDs() != 10 {
			t.Errorf("%d ids remembered, want the 10 timed out", c.OnceIDs())
		}
		rs, _ := sendEach(t, c, cl, retry)
		if n := countTimeouts(rs); n != 0 {
			t.Errorf("retries: %d timed out, want 0", n)
		}
		want := map[strategies.StoreOpKind]int64{strategies.IncrBy: 30, strategies.IncrByOnce: 20}[kind]
		if f := c.Final(1); f != want {
			t.Errorf("kind %d: final %d, want %d", kind, f, want)
		}
		// A write refused by a down node, then retried: once either way.
		c.Fault(strategies.Fault{At: 10 * ms, Kind: strategies.NodeDown, Target: 0, For: ms})
		w := []strategies.StoreOp{{At: 10 * ms, Kind: kind, Key: 1, Delta: 1, Member: 7}, {At: 12 * ms, Kind: kind, Key: 1, Delta: 1, Member: 7}}
		ws, _ := sendEach(t, c, cl, w)
		if ws[0] != strategies.OpTimeout || ws[1] != strategies.OpOK || c.Final(1) != want+1 {
			t.Errorf("kind %d: refused then retried: %v, final %d, want timeout, ok, %d", kind, ws, c.Final(1), want+1)
		}
		// Past the TTL the ids are forgotten.
		late := []strategies.StoreOp{{At: OnceTTL + 1, Kind: kind, Key: 1, Delta: 1, Member: 100}}
		sendEach(t, c, cl, late)
		if c.OnceIDs() != 0 {
			t.Errorf("kind %d: %d ids remembered past the TTL, want 0", kind, c.OnceIDs())
		}
	}
}

// Without faults, DoClient with no timeout is Do, and with a timeout no op
// meets takes the faulted path op by op and reads and holds the same.
func TestClusterDoClientAsDo(t *testing.T) {
	for ci, cfg := range []Config{
		{Nodes: 8, KeyCapacity: 10_000, Seed: 1},
		{Nodes: 4, KeyCapacity: 7_000, NodeCapacity: 15_000, Seed: 3},
		{Nodes: 2, KeyCapacity: 50_000, NodeCapacity: 60_000, Seed: 4, GetsQueue: true, Placement: Modulo},
	} {
		t.Run(fmt.Sprintf("cfg=%d", ci), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ci), 9))
			ops := clusterRandomOps(r, 20_000, 40)
			a, b := newTestCluster(t, cfg), newTestCluster(t, cfg)
			for lo := 0; lo < len(ops); {
				hi := min(lo+1+r.IntN(700), len(ops))
				for hi < len(ops) && ops[hi].Kind == strategies.KeyArg {
					hi++
				}
				v1, v2 := make([]int64, hi-lo), make([]int64, hi-lo)
				st := make([]strategies.OpStatus, hi-lo)
				a.Do(ops[lo:hi], v1)
				b.DoClient(strategies.Client{Timeout: math.MaxInt64 / 4}, ops[lo:hi], v2, st)
				if !reflect.DeepEqual(v1, v2) {
					t.Fatalf("ops %d..%d: read %v, DoClient %v", lo, hi, v1, v2)
				}
				if n := countTimeouts(st); n != 0 {
					t.Fatalf("%d timeouts without faults", n)
				}
				lo = hi
			}
			clusterCheck(t, b)
			end := ops[len(ops)-1].At + 1e9
			if sa, sb := a.Stats(end), b.Stats(end); !reflect.DeepEqual(sa, sb) {
				t.Fatalf("stats\n%+v\nDoClient\n%+v", sa, sb)
			}
		})
	}
}
