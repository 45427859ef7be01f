package clientrows

import (
	"testing"
	"time"

	"countsim/sim/cluster"
	"countsim/strategies"
	"countsim/strategies/hot"
	"countsim/workload"
)

// TestOnTheCluster: a round-robin striped counter of 32 stripes on the
// simulated cluster of 8 nodes, one node down for 10 s of a 30 s stream of
// one write a ms. downShares gives each stripe on that node 10/30 and the
// others 0; the client fails exactly the writes round-robin sent to those
// stripes in the window; the seconds of the fault hold exactly the
// window's writes.
func TestOnTheCluster(t *testing.T) {
	cl, err := cluster.New(cluster.Config{Nodes: 8, KeyCapacity: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	s, err := hot.NewStriped(hot.StripedParams{Stripes: 32, Select: hot.SelectRoundRobin,
		ClientParams: hot.ClientParams{Timeout: 20 * time.Millisecond}}, cl, 1)
	if err != nil {
		t.Fatal(err)
	}
	keys, tag := s.StoreKeys(1, nil)
	counts := map[int]int{}
	for _, k := range keys {
		counts[cl.NodeOf(k, tag)]++
	}
	node := 0
	for n, c := range counts {
		if c > counts[node] || c == counts[node] && n < node {
			node = n
		}
	}
	f := strategies.Fault{At: 10e9, Kind: strategies.NodeDown, Target: node, For: 10e9}
	cl.Fault(f)
	r := run{faults: []strategies.Fault{f}, duration: 30e9}
	down, ok := r.downShares(cl, s, map[uint64]uint64{1: 30_000})
	if !ok {
		t.Fatal("no down shares for a node-down run of one key")
	}
	hit := 0
	for j, d := range down {
		onNode := cl.NodeOf(keys[j], tag) == node
		if onNode {
			hit++
		}
		if want := map[bool]float64{true: 1.0 / 3, false: 0}[onNode]; d != want {
			t.Errorf("stripe %d: down share %v, want %v", j, d, want)
		}
	}
	ev := make([]workload.Event, 30_000)
	var want int64
	for i := range ev {
		ev[i] = workload.Event{At: int64(i) * int64(time.Millisecond), Key: 1, Delta: 1, ID: uint64(i + 1), Op: workload.Write}
		if ev[i].At >= f.At && ev[i].At < f.End() && cl.NodeOf(keys[i%32], tag) == node {
			want++
		}
	}
	for b := ev; len(b) > 0; b = b[min(1000, len(b)):] {
		s.Observe(b[:min(1000, len(b))])
	}
	c := s.ClientCounts()
	if c.Failed != want || want < int64(hit)*10_000/32-int64(hit) || want > int64(hit)*10_000/32+int64(hit) {
		t.Errorf("failed %d, want %d (%d stripes of 32 on node %d, 10,000 writes in the window)", c.Failed, want, hit, node)
	}
	if w, fl := r.outageWrites(c); w != 10_000 || fl != want {
		t.Errorf("outage: %d writes, %d failed; want 10,000, %d", w, fl, want)
	}
	if !r.storeFaultsAll(strategies.NodeDown) || r.storeFaultsAll(strategies.NodeSlow) {
		t.Error("storeFaultsAll: want node-down only")
	}
	if got := s.Count(1); got != uint64(30_000-want) {
		t.Errorf("count %d, want %d", got, 30_000-want)
	}
}
