package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"countsim/strategies"
)

// clusterIncrs returns n IncrBy ops of delta 1 on key at rate ops/s from
// time from (ns): op i at from + round(i·10^9/rate), as the workload spaces
// events.
func clusterIncrs(key uint64, rate float64, from int64, n int) []strategies.StoreOp {
	ops := make([]strategies.StoreOp, n)
	for i := range ops {
		ops[i] = strategies.StoreOp{At: from + int64(math.Round(float64(i)*1e9/rate)), Kind: strategies.IncrBy, Key: key, Delta: 1}
	}
	return ops
}

// clusterMerge merges op streams by time, stably (ties keep stream order).
func clusterMerge(streams ...[]strategies.StoreOp) []strategies.StoreOp {
	var all []strategies.StoreOp
	for _, s := range streams {
		all = append(all, s...)
	}
	slices.SortStableFunc(all, func(a, b strategies.StoreOp) int { return cmpInt64(a.At, b.At) })
	return all
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// clusterFeed sends ops to c in batches of the given size and returns the
// values the Gets read, indexed like ops (0 for writes).
func clusterFeed(t testing.TB, c *Cluster, ops []strategies.StoreOp, batch int) []int64 {
	t.Helper()
	vals := make([]int64, len(ops))
	for lo := 0; lo < len(ops); lo += batch {
		hi := min(lo+batch, len(ops))
		c.Do(ops[lo:hi], vals[lo:hi])
	}
	clusterCheck(t, c)
	return vals
}

func clusterCheck(t testing.TB, c *Cluster) {
	t.Helper()
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
}

func newTestCluster(t testing.TB, cfg Config) *Cluster {
	t.Helper()
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func near(got, want, rel float64) bool {
	return math.Abs(got-want) <= rel*math.Max(1, math.Abs(want))
}

// One key at 200,000 increments/s against 10,000/s for 10 s: the Cricket
// final's single-key design. The model is deterministic, so every number
// is exact.
func TestClusterHotKey(t *testing.T) {
	const (
		rate = 200_000
		secs = 10
		n    = rate * secs
		cap_ = 10_000
	)
	for _, gets := range []struct {
		name  string
		queue bool
		rate  float64
		grow  float64 // backlog growth per second
	}{
		{"no-reads", false, 0, 190_000},
		{"reads-answered-at-once", false, 5_000, 190_000},
		{"reads-queue", true, 5_000, 195_000},
	} {
		t.Run(gets.name, func(t *testing.T) {
			c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: cap_, Seed: 1, GetsQueue: gets.queue})
			ops := clusterIncrs(7, rate, 0, n)
			if gets.rate > 0 {
				reads := clusterIncrs(7, gets.rate, 0, int(gets.rate)*secs)
				for i := range reads {
					reads[i].Kind, reads[i].Delta = strategies.Get, 0
				}
				ops = clusterMerge(ops, reads)
			}
			vals := clusterFeed(t, c, ops, 4096)
			if got := c.Final(7); got != n {
				t.Errorf("Final = %d, want %d", got, n)
			}
			var sent int64
			for i, op := range ops {
				if op.Kind == strategies.IncrBy {
					sent++
					continue
				}
				var want int64
				if gets.queue {
					want = sent // waits behind every write sent before it
				} else {
					// Writes complete at k·100 µs, k = 1, 2, …: by t, ⌊t/100 µs⌋ = 10,000·t.
					want = min(sent, op.At/100_000)
				}
				if vals[i] != want {
					t.Fatalf("Get at %d ns read %d, want %d", op.At, vals[i], want)
				}
			}
			st := c.Stats(secs * 1e9)
			if st.Seconds != secs || len(st.Backlog) != secs {
				t.Fatalf("Seconds = %d, %d backlog points, want %d", st.Seconds, len(st.Backlog), secs)
			}
			for i, b := range st.Backlog {
				if want := gets.grow * float64(i+1); b != want {
					t.Errorf("backlog at the end of second %d = %v, want %v", i, b, want)
				}
			}
			if !near(st.BacklogGrowthPerS, gets.grow, 1e-9) {
				t.Errorf("BacklogGrowthPerS = %v, want %v", st.BacklogGrowthPerS, gets.grow)
			}
			if want := gets.grow * secs; st.BacklogEnd != want || st.BacklogMax != want {
				t.Errorf("BacklogEnd, Max = %v, %v, want %v", st.BacklogEnd, st.BacklogMax, want)
			}
			served := float64(rate)
			if gets.queue {
				served += gets.rate
			}
			if st.KeyWrites.Max != rate || st.KeyWrites.Mean != rate || st.UtilMax != served/cap_ {
				t.Errorf("KeyWrites %+v, UtilMax %v, want %v ops/s and %v", st.KeyWrites, st.UtilMax, rate, served/cap_)
			}
			// The last op is served after all the others: at (ops)·100 µs.
			total := int64(n)
			if gets.queue {
				total += int64(gets.rate) * secs
			}
			if want := total * 100_000; st.DrainedAt != want {
				t.Errorf("DrainedAt = %d, want %d", st.DrainedAt, want)
			}
			// The last write waits for every op before it.
			last := ops[len(ops)-1].At
			if want := float64(total*100_000 - last - 100_000); st.DelayMax != want {
				t.Errorf("DelayMax = %v ns, want %v", st.DelayMax, want)
			}
			if st.DelayP99 > st.DelayMax || st.DelayP99 < 0.95*st.DelayMax {
				t.Errorf("DelayP99 = %v, want just under the max %v", st.DelayP99, st.DelayMax)
			}
			if gets.rate > 0 && !gets.queue {
				if st.GetLagMax < 189_000*(secs-1) || st.ReadsPerS != gets.rate {
					t.Errorf("GetLagMax = %v, ReadsPerS = %v", st.GetLagMax, st.ReadsPerS)
				}
			}
		})
	}
}

// 32 stripes at 6,250 increments/s each (200,000/s round robin), and 5,000
// uncached reads a second each reading all 32: no queue, 62.5% of the
// limit, 160,000 read ops a second.
func TestClusterStripes(t *testing.T) {
	const (
		stripes = 32
		secs    = 4
		n       = 200_000 * secs
	)
	c := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 10_000, Seed: 42})
	ops := make([]strategies.StoreOp, 0, n+5_000*secs*stripes)
	readAt := clusterIncrs(0, 5_000, 0, 5_000*secs)
	r := 0
	for i := range n {
		at := int64(i) * 5_000
		for r < len(readAt) && readAt[r].At <= at {
			for s := range stripes {
				ops = append(ops, strategies.StoreOp{At: readAt[r].At, Kind: strategies.Get, Key: uint64(s)})
			}
			r++
		}
		ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: uint64(i % stripes), Delta: 1})
	}
	clusterFeed(t, c, ops, 1000)
	st := c.Stats(secs * 1e9)
	if st.Keys != stripes || st.Writes != n || st.Reads != 5_000*secs*stripes {
		t.Fatalf("Keys, Writes, Reads = %d, %d, %d", st.Keys, st.Writes, st.Reads)
	}
	if st.KeyWrites.Max != 6_250 || st.KeyWrites.Mean != 6_250 || st.KeyWrites.P99 != 6_250 {
		t.Errorf("KeyWrites = %+v, want 6,250 everywhere", st.KeyWrites)
	}
	if st.UtilMax != 0.625 || st.UtilMean != 0.625 {
		t.Errorf("utilisation max %v mean %v, want 0.625", st.UtilMax, st.UtilMean)
	}
	if st.ReadsPerS != 160_000 || st.KeyReads.Max != 5_000 {
		t.Errorf("ReadsPerS = %v, KeyReads.Max = %v; want 160,000 and 5,000", st.ReadsPerS, st.KeyReads.Max)
	}
	// No op waits; at a second's end at most the op in service on each
	// stripe is still queued, and a reader misses at most that one.
	if st.DelayMax != 0 || st.BacklogMax > stripes || st.BacklogGrowthPerS != 0 || st.GetLagMax > 1 {
		t.Errorf("DelayMax %v, BacklogMax %v, growth %v, GetLagMax %v; want 0, ≤ 32, 0, ≤ 1",
			st.DelayMax, st.BacklogMax, st.BacklogGrowthPerS, st.GetLagMax)
	}
	var nodeWrites float64
	for s := range stripes {
		if got := c.Final(uint64(s)); got != n/stripes {
			t.Errorf("Final(%d) = %d, want %d", s, got, n/stripes)
		}
	}
	nodeWrites = st.NodeWrites.Mean * float64(st.Nodes*st.Seconds)
	if nodeWrites != n || st.NodeOps.Mean != (n+float64(st.Reads))/float64(8*secs) {
		t.Errorf("node accounting: %v writes, NodeOps mean %v", nodeWrites, st.NodeOps.Mean)
	}

	// Stripes picked at random: the busiest stripe-second stays under the
	// 70% plan (7,000). Per stripe-second the count is Binomial(200,000,
	// 1/32): mean 6,250, sd 78; 7,000 is 9.6 sd out.
	c = newTestCluster(t, Config{Nodes: 8, KeyCapacity: 10_000, Seed: 42})
	rng := rand.New(rand.NewPCG(1, 2))
	ops = ops[:0]
	for i := range n {
		ops = append(ops, strategies.StoreOp{At: int64(i) * 5_000, Kind: strategies.IncrBy, Key: rng.Uint64N(stripes), Delta: 1})
	}
	clusterFeed(t, c, ops, 4096)
	st = c.Stats(secs * 1e9)
	if st.KeyWrites.Max >= 7_000 || st.KeyWrites.Max < 6_250 || st.KeyWrites.Mean != 6_250 {
		t.Errorf("random stripes: KeyWrites %+v, want a max in [6,250, 7,000) and a mean of 6,250", st.KeyWrites)
	}
	if st.BacklogGrowthPerS > 10 || st.BacklogMax > 1_000 {
		t.Errorf("random stripes: backlog grows %v/s, max %v: want no growth", st.BacklogGrowthPerS, st.BacklogMax)
	}
	t.Logf("random stripes: busiest stripe-second %v (p99 %v), delay p99 %.0f ns, max %.0f ns, backlog max %v",
		st.KeyWrites.Max, st.KeyWrites.P99, st.DelayP99, st.DelayMax, st.BacklogMax)
}

// A 2 s spike at 20,000/s on one key, then nothing: the queue drains at
// 10,000/s, and Final is reached at 4 s.
func TestClusterBurstThenDrain(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 4, KeyCapacity: 10_000, Seed: 5})
	ops := clusterIncrs(99, 20_000, 0, 40_000)
	for _, at := range []int64{2.5e9, 3e9, 3.99999e9, 4e9, 6e9} {
		ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.Get, Key: 99})
	}
	vals := clusterFeed(t, c, ops, 777)
	got := vals[len(vals)-5:]
	if want := []int64{25_000, 30_000, 39_999, 40_000, 40_000}; !slices.Equal(got, want) {
		t.Errorf("Gets read %v, want %v", got, want)
	}
	st := c.Stats(10e9)
	if want := []float64{10_000, 20_000, 10_000, 0, 0, 0, 0, 0, 0, 0}; !slices.Equal(st.Backlog, want) {
		t.Errorf("Backlog = %v, want %v", st.Backlog, want)
	}
	if st.DrainedAt != 4e9 || c.Final(99) != 40_000 || st.BacklogMax != 20_000 {
		t.Errorf("DrainedAt %d, Final %d, BacklogMax %v; want 4 s, 40,000, 20,000", st.DrainedAt, c.Final(99), st.BacklogMax)
	}
	if want := []float64{20_000, 20_000, 0, 0, 0, 0, 0, 0, 0, 0}; !slices.Equal(st.BusiestWrites, want) || st.BusiestKey != 99 {
		t.Errorf("busiest key %d writes %v, want 99 and %v", st.BusiestKey, st.BusiestWrites, want)
	}
	if want := []float64{0, 0, 1, 2, 1, 0, 1, 0, 0, 0}; !slices.Equal(st.BusiestReads, want) {
		t.Errorf("busiest reads %v, want %v", st.BusiestReads, want)
	}
	// Stats is repeatable.
	if again := c.Stats(10e9); !reflect.DeepEqual(st, again) {
		t.Errorf("a second Stats differs:\n%+v\n%+v", st, again)
	}
}

func TestClusterLoseNode(t *testing.T) {
	const keys = 32
	c := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 10_000, Seed: 9})
	// Key k gets (k+1)·500 increments/s of delta k+1 for 3 s: keys ≥ 20
	// are over capacity and hold a queue at the loss.
	var streams [][]strategies.StoreOp
	for k := range keys {
		s := clusterIncrs(uint64(k), float64(k+1)*500, 0, (k+1)*1_500)
		for i := range s {
			s[i].Delta = int64(k + 1)
		}
		streams = append(streams, s)
	}
	ops := clusterMerge(streams...)
	cut, _ := slices.BinarySearchFunc(ops, int64(2e9), func(op strategies.StoreOp, at int64) int { return cmpInt64(op.At, at) })
	clusterFeed(t, c, ops[:cut], 1000)

	node := c.NodeOf(31, 0)
	var want, queued int64
	before := make([]int64, keys)
	for k := range keys {
		before[k] = c.Final(uint64(k))
		if c.NodeOf(uint64(k), 0) == node {
			want += before[k]
			i, _ := c.index.find(uint64(k))
			queued += c.keys[i].queued
		}
	}
	if queued == 0 {
		t.Fatal("the node holds no queue at the loss: the test would not check dropped queued writes")
	}
	if got := c.LoseNode(node, 2e9); got != want {
		t.Errorf("LoseNode = %d, want %d", got, want)
	}
	clusterCheck(t, c)
	if c.LoseNode(-1, 2e9) != 0 || c.LoseNode(8, 2e9) != 0 {
		t.Error("a node out of range lost counts")
	}
	for k := range keys {
		got := c.Final(uint64(k))
		if c.NodeOf(uint64(k), 0) == node && got != 0 {
			t.Errorf("key %d on the lost node: Final %d, want 0", k, got)
		}
		if c.NodeOf(uint64(k), 0) != node && got != before[k] {
			t.Errorf("key %d on another node: Final %d, want %d", k, got, before[k])
		}
	}
	// After the loss the lost keys' servers are free: a write at 2 s on key
	// 31 is served 100 µs later.
	vals := clusterFeed(t, c, []strategies.StoreOp{
		{At: 2e9, Kind: strategies.IncrBy, Key: 31, Delta: 5},
		{At: 2e9 + 99_999, Kind: strategies.Get, Key: 31},
		{At: 2e9 + 100_000, Kind: strategies.Get, Key: 31},
	}, 10)
	if vals[1] != 0 || vals[2] != 5 {
		t.Errorf("after the loss, Gets read %d and %d, want 0 and 5", vals[1], vals[2])
	}
	clusterFeed(t, c, ops[cut:], 1000)
	var after int64
	for _, op := range ops[cut:] {
		if c.NodeOf(op.Key, op.Tag) == node {
			after += op.Delta
		}
	}
	var finals int64
	for k := range keys {
		if c.NodeOf(uint64(k), 0) == node {
			finals += c.Final(uint64(k))
		}
	}
	if finals != after+5 {
		t.Errorf("the lost node's keys end at %d, want the %d sent after the loss", finals, after+5)
	}
	if st := c.Stats(3e9); st.Lost != want {
		t.Errorf("Stats.Lost = %d, want %d", st.Lost, want)
	}
}

// TestClusterModuloPlacement: placement modulo hashes the key with the
// seed: deterministic, another seed another placement, an even spread.
func TestClusterModuloPlacement(t *testing.T) {
	place := func(seed uint64) []int {
		c := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1, Seed: seed, Placement: Modulo})
		nodes := make([]int, 32)
		for k := range nodes {
			nodes[k] = c.NodeOf(uint64(k), 0)
		}
		return nodes
	}
	for seed := range uint64(20) {
		a := place(seed)
		if !slices.Equal(a, place(seed)) {
			t.Fatalf("seed %d: placement not deterministic", seed)
		}
		used := map[int]int{}
		for _, n := range a {
			if n < 0 || n >= 8 {
				t.Fatalf("seed %d: node %d out of range", seed, n)
			}
			used[n]++
		}
		// 32 keys on 8 nodes: the chance that fewer than 4 nodes are used
		// is below 10^-12.
		if len(used) < 4 {
			t.Errorf("seed %d: 32 keys on only %d nodes: %v", seed, len(used), a)
		}
		if seed > 0 && slices.Equal(a, place(seed-1)) {
			t.Errorf("seeds %d and %d place keys the same way", seed-1, seed)
		}
	}
	// 100,000 keys: each node's share is Binomial(10^5, 1/8), sd 104.6; 7 sd
	// bounds fail with probability below 10^-10.
	c := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1, Seed: 3, Placement: Modulo})
	counts := make([]int, 8)
	for k := range uint64(100_000) {
		counts[c.NodeOf(k, 0)]++
	}
	for n, got := range counts {
		if math.Abs(float64(got)-12_500) > 7*104.6 {
			t.Errorf("node %d holds %d of 100,000 keys, want 12,500 ± 732", n, got)
		}
	}
}

// A node limit: two keys on one node of 10,000 ops/s, each fed 10,000/s
// against a key limit of 20,000/s: the node queues 10,000 more a second.
// A backlogged key does not hold up the other keys of its node.
func TestClusterNodeCapacity(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 20_000, NodeCapacity: 10_000, Seed: 1})
	clusterFeed(t, c, clusterMerge(clusterIncrs(1, 10_000, 0, 50_000), clusterIncrs(2, 10_000, 0, 50_000)), 999)
	st := c.Stats(5e9)
	if !near(st.BacklogGrowthPerS, 10_000, 1e-3) || st.NodeOps.Max != 20_000 || st.NodeUtilMax != 2 || st.UtilMax != 0.5 {
		t.Errorf("growth %v, NodeOps.Max %v, NodeUtilMax %v, UtilMax %v; want 10,000, 20,000, 2, 0.5",
			st.BacklogGrowthPerS, st.NodeOps.Max, st.NodeUtilMax, st.UtilMax)
	}
	if st.DrainedAt != 10e9 {
		t.Errorf("DrainedAt = %d, want 10 s (100,000 ops at 10,000/s)", st.DrainedAt)
	}

	// No head-of-line blocking: key 1 at 20,000/s against a key limit of
	// 10,000/s, key 2 at 100/s, on a node serving 1,000,000/s.
	c = newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000, NodeCapacity: 1e6, Seed: 1})
	cold := clusterIncrs(2, 100, 0, 100)
	for i := range cold {
		cold[i].At += 3_000 // off the hot key's arrival times
	}
	clusterFeed(t, c, clusterMerge(clusterIncrs(1, 20_000, 0, 20_000), cold), 500)
	// The cold key's writes are visible 1/KeyCapacity after they arrive.
	vals := clusterFeed(t, c, []strategies.StoreOp{{At: 1e9 + 100_000, Kind: strategies.Get, Key: 2}}, 1)
	if vals[0] != 100 {
		t.Errorf("cold key read %d, want 100", vals[0])
	}
}

// Capacities whose service time is not a whole number of ns are exact in
// ticks of 1/D ns; others are rounded to 1/4096 ns.
func TestClusterTicks(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 7_000, Seed: 1})
	ops := make([]strategies.StoreOp, 7_000)
	for i := range ops {
		ops[i] = strategies.StoreOp{Kind: strategies.IncrBy, Key: 1, Delta: 1}
	}
	ops = append(ops,
		strategies.StoreOp{At: 1e9 - 1, Kind: strategies.Get, Key: 1},
		strategies.StoreOp{At: 1e9, Kind: strategies.Get, Key: 1})
	vals := clusterFeed(t, c, ops, 4096)
	if got := vals[len(vals)-2:]; got[0] != 6_999 || got[1] != 7_000 {
		t.Errorf("7,000 writes at 7,000/s: read %v before and at 1 s, want [6999 7000]", got)
	}
	if st := c.Stats(2e9); st.KeyCapacity != 7_000 || st.DrainedAt != 1e9 {
		t.Errorf("KeyCapacity %v, DrainedAt %d; want 7,000 and 1 s", st.KeyCapacity, st.DrainedAt)
	}
	for _, tc := range []struct{ key, node float64 }{{9_999.5, 0}, {10_000, 7_777.7}, {3, 1e-3}, {1e12, 0}} {
		c := newTestCluster(t, Config{Nodes: 2, KeyCapacity: tc.key, NodeCapacity: tc.node})
		st := c.Stats(1)
		if !near(st.KeyCapacity, tc.key, 1e-6) || !near(st.NodeCapacity, tc.node, 1e-6) {
			t.Errorf("capacities %v/%v simulated as %v/%v", tc.key, tc.node, st.KeyCapacity, st.NodeCapacity)
		}
	}
}

func TestNewClusterErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Nodes: 0, KeyCapacity: 1},
		{Nodes: 1, KeyCapacity: 0},
		{Nodes: 1, KeyCapacity: math.NaN()},
		{Nodes: 1, KeyCapacity: math.Inf(1)},
		{Nodes: 1, KeyCapacity: 1, NodeCapacity: -1},
		{Nodes: 1, KeyCapacity: 1, NodeCapacity: math.Inf(1)},
		{Nodes: 1, KeyCapacity: 1e18},
	} {
		if c, err := New(cfg); err == nil || c != nil {
			t.Errorf("New(%+v) = %v, %v; want an error", cfg, c, err)
		}
	}
}

// Ops whose At goes backwards are taken at the latest time seen.
func TestClusterReordered(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 10_000})
	vals := clusterFeed(t, c, []strategies.StoreOp{
		{At: 1e9, Kind: strategies.IncrBy, Key: 1, Delta: 1},
		{At: 5, Kind: strategies.IncrBy, Key: 1, Delta: 1},
		{At: 1e9 + 200_000, Kind: strategies.Get, Key: 1},
	}, 10)
	st := c.Stats(2e9)
	if st.Reordered != 1 || vals[2] != 2 || st.KeyWrites.Max != 2 || st.KeyWrites.MaxSecond != 1 {
		t.Errorf("Reordered %d, read %d, busiest %+v; want 1, 2, 2 writes in second 1", st.Reordered, vals[2], st.KeyWrites)
	}
}

// Do allocates nothing once its keys and the current second exist.
func TestClusterDoAllocs(t *testing.T) {
	for _, cfg := range []Config{
		{Nodes: 8, KeyCapacity: 10_000, Seed: 1},
		{Nodes: 8, KeyCapacity: 7_000, NodeCapacity: 30_000, Seed: 1, GetsQueue: true},
	} {
		t.Run(fmt.Sprintf("gets-queue=%v", cfg.GetsQueue), func(t *testing.T) {
			c := newTestCluster(t, cfg)
			batch := make([]strategies.StoreOp, 1024)
			vals := make([]int64, len(batch))
			var at int64
			fill := func() {
				for i := range batch {
					kind, key := strategies.IncrBy, uint64(i%32)
					switch {
					case i%64 == 63:
						kind = strategies.Get
					case i%4 == 0:
						key = 1_000 // a hot key, backlogged
					}
					batch[i] = strategies.StoreOp{At: at, Kind: kind, Key: key, Delta: 1}
					at += 5_000
				}
			}
			fill()
			c.Do(batch, vals) // every key and the first second appear
			allocs := testing.AllocsPerRun(100, func() {
				fill()
				c.Do(batch, vals)
			})
			if at >= 1e9 {
				t.Fatalf("the test ran past the first second (%d ns)", at)
			}
			if allocs != 0 {
				t.Errorf("Do allocates %v times a batch, want 0", allocs)
			}
			clusterCheck(t, c)
		})
	}
}

// BenchmarkClusterDo sends batches of 4,096 IncrBy at 200,000/s: to one
// hot key (a growing backlog), to 32 stripes, and to 100,000 keys picked at
// random. ns/storeop is the cost of one store op.
func BenchmarkClusterDo(b *testing.B) {
	const batch = 4096
	for _, bc := range []struct {
		name string
		keys uint64
	}{{"keys=1", 1}, {"keys=32", 32}, {"keys=1e5", 100_000}} {
		b.Run(bc.name, func(b *testing.B) {
			c := newTestCluster(b, Config{Nodes: 8, KeyCapacity: 10_000, Seed: 1})
			rng := rand.New(rand.NewPCG(1, 1))
			ops := make([]strategies.StoreOp, batch)
			for i := range ops {
				key := uint64(i) % bc.keys
				if bc.keys > 32 {
					key = rng.Uint64N(bc.keys)
				}
				ops[i] = strategies.StoreOp{At: int64(i) * 5_000, Kind: strategies.IncrBy, Key: key, Delta: 1}
			}
			var shift int64
			b.ReportAllocs()
			for b.Loop() {
				for i := range ops {
					ops[i].At += shift
				}
				c.Do(ops, nil)
				shift = batch * 5_000
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/storeop")
		})
	}
}

// KeyLoad and KeySeconds: three increments at once on a key of 10,000/s
// queue three deep, the last waiting two service times; one later in the
// next second; a key never sent to is unknown.
func TestClusterKeyLoad(t *testing.T) {
	c, err := New(Config{Nodes: 2, KeyCapacity: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	ops := []strategies.StoreOp{
		{Kind: strategies.IncrBy, Key: 5, Delta: 1, At: 100}, {Kind: strategies.IncrBy, Key: 5, Delta: 1, At: 100},
		{Kind: strategies.IncrBy, Key: 5, Delta: 1, At: 100}, {Kind: strategies.Get, Key: 5, At: 200},
		{Kind: strategies.IncrBy, Key: 5, Delta: 1, At: 1_500_000_000},
	}
	c.Do(ops, make([]int64, len(ops)))
	l, ok := c.KeyLoad(5)
	if !ok || l.Writes != 4 || l.Reads != 1 || l.MaxQueued != 3 || l.MaxDelay != 200_000 {
		t.Errorf("key load %+v (%v), want 4 writes, 1 read, 3 queued, 200,000 ns", l, ok)
	}
	var secs [][3]int
	c.KeySeconds(5, func(sec int, w, r uint32) { secs = append(secs, [3]int{sec, int(w), int(r)}) })
	if len(secs) != 2 || secs[0] != [3]int{0, 3, 1} || secs[1] != [3]int{1, 1, 0} {
		t.Errorf("key seconds %v, want [[0 3 1] [1 1 0]]", secs)
	}
	if _, ok := c.KeyLoad(6); ok {
		t.Error("a key never sent to has a load")
	}
}
