package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"countsim/strategies"
)

// clusterRandomOps returns n seeded ops of every kind Do takes, the times
// nondecreasing but for a few steps back, over few keys so that writes
// come in runs of one key (a PFADD lane's, a hot counter's) broken by
// other keys, reads, multi-key commands and the ends of seconds.
func clusterRandomOps(r *rand.Rand, n int, keys uint64) []strategies.StoreOp {
	ops := make([]strategies.StoreOp, 0, n+4)
	var at int64
	key := uint64(1)
	for len(ops) < n {
		switch r.IntN(8) {
		case 0:
			at += r.Int64N(3e9) // across seconds, often several
		case 1:
			at -= r.Int64N(1e6) // back in time: taken at the latest time seen
		default:
			at += r.Int64N(40_000)
		}
		at = max(at, 0)
		if r.IntN(4) == 0 {
			key = 1 + r.Uint64N(keys)
		}
		op := strategies.StoreOp{At: at, Key: key, Tag: key % 3}
		switch x := r.IntN(100); {
		case x < 45:
			op.Kind, op.Delta = strategies.IncrBy, r.Int64N(3)-1 // a delta of 0 or -1 too
		case x < 75:
			op.Kind, op.Member = strategies.PFAdd, r.Uint64()
		case x < 85:
			op.Kind = strategies.Get
		case x < 90:
			op.Kind, op.Member, op.Delta = strategies.ZIncrBy, r.Uint64N(10), 1
		case x < 94:
			ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.PFCount, Key: key, Tag: key % 3},
				strategies.StoreOp{At: at, Kind: strategies.KeyArg, Key: 1 + r.Uint64N(keys), Tag: key % 3})
			continue
		case x < 97:
			ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.PFMerge, Key: key},
				strategies.StoreOp{At: at, Kind: strategies.KeyArg, Key: 1 + r.Uint64N(keys)})
			continue
		default:
			op.Kind = strategies.PFCount
		}
		ops = append(ops, op)
	}
	return ops
}

// clusterLaneOps returns n seeded ops in lanes: long runs of PFAdds or
// IncrBys to one key (a PFADD lane's batch, a counter's writes) whose gaps
// are about a service time of svc ns — some at once, some just before or
// just after the op before is served, now and then a step back or into a
// later second — broken by a Get or another key now and then.
func clusterLaneOps(r *rand.Rand, n int, keys uint64, svc int64) []strategies.StoreOp {
	ops := make([]strategies.StoreOp, 0, n)
	var at int64
	for len(ops) < n {
		key, kind := 1+r.Uint64N(keys), strategies.PFAdd
		if r.IntN(3) == 0 {
			kind = strategies.IncrBy
		}
		for range 1 + r.IntN(300) {
			switch x := r.IntN(100); {
			case x < 2:
				at -= r.Int64N(3 * svc)
			case x < 4:
				at += r.Int64N(2e9)
			case x < 10:
			case x < 20:
				at += svc - 1
			default:
				at += svc + r.Int64N(3*svc)
			}
			at = max(at, 0)
			op := strategies.StoreOp{At: at, Kind: kind, Key: key, Member: r.Uint64(), Tag: key % 3}
			if kind == strategies.IncrBy {
				op.Member, op.Delta = 0, r.Int64N(4)-1
			}
			ops = append(ops, op)
		}
		if r.IntN(4) == 0 {
			ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.Get, Key: key, Tag: key % 3})
		}
	}
	return ops
}

// Do's runs of writes to one key in one second (writeRun) leave the
// cluster as taking each op by itself does, field for field: the same
// values read, counters, queues, delays, registers and statistics, on
// every placement, with and without a node limit and queued Gets, across
// seconds, steps back in time, node losses and batches cut anywhere.
func TestClusterRunsAsOps(t *testing.T) {
	cfgs := []Config{
		{Nodes: 8, KeyCapacity: 10_000, Seed: 1},
		{Nodes: 3, KeyCapacity: 1e9, Seed: 2, Placement: Modulo},
		{Nodes: 1, KeyCapacity: 1e9, Seed: 2, Placement: Modulo},
		{Nodes: 4, KeyCapacity: 7_000, NodeCapacity: 15_000, Seed: 3},
		{Nodes: 2, KeyCapacity: 50_000, NodeCapacity: 60_000, Seed: 4, GetsQueue: true, Placement: Modulo},
		{Nodes: 3, KeyCapacity: 3, Seed: 5}, // every key backlogged
	}
	for ci, cfg := range cfgs {
		for _, keys := range []uint64{1, 3, 40, 3 * warmKeys} { // more than warmKeys: Do warms the keys
			t.Run(fmt.Sprintf("cfg=%d/keys=%d", ci, keys), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(ci), keys))
				ops := clusterRandomOps(r, max(20_000, 2*int(keys)), keys)
				clusterRunsAsOps(t, cfg, ops, r)
			})
			t.Run(fmt.Sprintf("cfg=%d/keys=%d/lanes", ci, keys), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(ci), keys+100))
				svc := max(int64(1e9/cfg.KeyCapacity), 1)
				if cfg.NodeCapacity > 0 {
					svc = max(svc, int64(1e9/cfg.NodeCapacity))
				}
				ops := clusterLaneOps(r, 20_000, keys, min(svc, 1e8))
				clusterRunsAsOps(t, cfg, ops, r)
			})
		}
	}
}

// clusterRunsAsOps sends ops to a cluster of cfg in batches cut at random
// by r, and op by op to another, losing a node now and then, and fails
// unless both read and hold the same.
func clusterRunsAsOps(t *testing.T, cfg Config, ops []strategies.StoreOp, r *rand.Rand) {
	t.Helper()
	runs, each := newTestCluster(t, cfg), newTestCluster(t, cfg)
	each.perOp = true
	for lo := 0; lo < len(ops); {
		hi := min(lo+1+r.IntN(700), len(ops))
		for hi < len(ops) && ops[hi].Kind == strategies.KeyArg {
			hi++ // a multi-key command is sent whole
		}
		v1, v2 := make([]int64, hi-lo), make([]int64, hi-lo)
		runs.Do(ops[lo:hi], v1)
		each.Do(ops[lo:hi], v2)
		if !reflect.DeepEqual(v1, v2) {
			t.Fatalf("ops %d..%d: read %v, each op by itself %v", lo, hi, v1, v2)
		}
		if r.IntN(40) == 0 {
			node, at := r.IntN(cfg.Nodes), ops[hi-1].At+r.Int64N(1e6)
			if a, b := runs.LoseNode(node, at), each.LoseNode(node, at); a != b {
				t.Fatalf("node %d lost %d, each op by itself %d", node, a, b)
			}
		}
		lo = hi
	}
	clusterCheck(t, runs)
	end := ops[len(ops)-1].At + 1e9
	if a, b := runs.Stats(end), each.Stats(end); !reflect.DeepEqual(a, b) {
		t.Fatalf("stats\n%+v\neach op by itself\n%+v", a, b)
	}
	each.perOp = false
	runs.warmSum, each.warmSum = 0, 0 // what warm read, over windows that differ
	if !reflect.DeepEqual(runs, each) {
		t.Error("the clusters differ")
	}
	if runs.writes == 0 || len(runs.hlls) == 0 {
		t.Error("the stream wrote nothing")
	}
}

// BenchmarkClusterPFAdd: a PFADD lane's batch, 5,120 PFAdds of random ids
// to one key 2,160 ns apart (the cricket final's 40 M viewers over a day),
// on the audience's cluster (3 nodes, a key taking 10^9 ops/s), beside its
// floor:
//
//   - impl=floor: the registers' own work, the simplest loop doing it:
//     distinct.HLL's Insert of every id at p = 14, the cluster's HLL;
//   - impl=cluster: Cluster.Do of the batch: the HLL inserts, and for each
//     op its queueing (the key's server, its delay into the histogram) and
//     its counts per key, node and second.
func BenchmarkClusterPFAdd(b *testing.B) {
	const batch, gap = 5120, 2160
	r := rand.New(rand.NewPCG(1, 2))
	ops := make([]strategies.StoreOp, batch)
	for i := range ops {
		ops[i] = strategies.StoreOp{At: int64(i) * gap, Kind: strategies.PFAdd, Key: 7, Member: r.Uint64()}
	}
	b.Run("impl=floor", func(b *testing.B) {
		h := newTestCluster(b, Config{Nodes: 3, KeyCapacity: 1e9}).newHLL()
		b.ReportAllocs()
		for b.Loop() {
			for i := range ops {
				h.Insert(ops[i].Member)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/event")
	})
	b.Run("impl=cluster", func(b *testing.B) {
		c := newTestCluster(b, Config{Nodes: 3, KeyCapacity: 1e9, Placement: Modulo})
		b.ReportAllocs()
		for b.Loop() {
			c.Do(ops, nil)
			for i := range ops {
				ops[i].At += batch * gap
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/event")
	})
}
