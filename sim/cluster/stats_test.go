package cluster

import (
	"math/rand/v2"
	"testing"

	"countsim/metrics"
	"countsim/strategies"
)

// The load summaries agree with metrics.Quantile and plain sums over the
// explicit grid of units × seconds, empty cells included.
func TestClusterLoadGrid(t *testing.T) {
	const (
		keys, nodes, seconds = 40, 3, 5
	)
	rng := rand.New(rand.NewPCG(3, 99))
	c := newTestCluster(t, Config{Nodes: nodes, KeyCapacity: 10_000, Seed: 5})
	var ops []strategies.StoreOp
	for range 20_000 {
		// Key 0 takes half the ops; key k is active in its first 1 + k mod 5
		// seconds only, so the grid has empty cells.
		key := uint64(rng.IntN(keys) * rng.IntN(2))
		at := rng.Int64N(int64(1+key%seconds) * 1e9)
		ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: key, Delta: 1})
	}
	ops = clusterMerge(ops)
	clusterFeed(t, c, ops, 500)
	st := c.Stats(seconds * 1e9)

	keyGrid := map[uint64]*[seconds]float64{}
	var nodeGrid [nodes][seconds]float64
	for _, op := range ops {
		if keyGrid[op.Key] == nil {
			keyGrid[op.Key] = new([seconds]float64)
		}
		keyGrid[op.Key][op.At/1e9]++
		nodeGrid[c.NodeOf(op.Key, op.Tag)][op.At/1e9]++
	}
	if st.Keys != len(keyGrid) || st.Seconds != seconds {
		t.Fatalf("keys %d, seconds %d; want %d, %d", st.Keys, st.Seconds, len(keyGrid), seconds)
	}
	var cells []float64
	zeros := 0
	for _, row := range keyGrid {
		cells = append(cells, row[:]...)
		for _, v := range row {
			if v == 0 {
				zeros++
			}
		}
	}
	if zeros < len(cells)/4 {
		t.Fatalf("%d empty key-seconds of %d: the test means to have many", zeros, len(cells))
	}
	checkLoad(t, "key writes", st.KeyWrites, cells, keyGrid[st.KeyWrites.MaxUnit][st.KeyWrites.MaxSecond])
	cells = cells[:0]
	for _, row := range nodeGrid {
		cells = append(cells, row[:]...)
	}
	checkLoad(t, "node ops", st.NodeOps, cells, nodeGrid[st.NodeOps.MaxUnit][st.NodeOps.MaxSecond])
	if st.DelayOps != int64(len(ops)) {
		t.Errorf("DelayOps %d, want %d", st.DelayOps, len(ops))
	}
}

func checkLoad(t *testing.T, what string, l Load, cells []float64, atMax float64) {
	t.Helper()
	var sum, top float64
	for _, v := range cells {
		sum += v
		top = max(top, v)
	}
	p99 := metrics.Quantile(cells, 0.99)
	if l.Max != top || atMax != top || l.Mean != sum/float64(len(cells)) || l.P99 != p99 {
		t.Errorf("%s: max %v (cell %v), mean %v, p99 %v; want %v, %v, %v",
			what, l.Max, atMax, l.Mean, l.P99, top, sum/float64(len(cells)), p99)
	}
}
