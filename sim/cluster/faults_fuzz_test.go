package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"

	"countsim/strategies"
)

// refWrite is one write the reference applied: its key, delta and
// completion (ns = ticks here).
type refWrite struct {
	key         uint64
	delta, done int64
}

// refStore is a plain re-implementation of the faulted path for one
// configuration (no node limit, Gets answered at once, one tick a ns): a
// key's server steps through time tick by tick, doing a share 1/m of a
// tick's work inside a slow window (its work counted in 1/m units, so
// that it is exact), and every rule of Fault is written out again from its
// doc, op by op.
type refStore struct {
	svc    int64
	faults []strategies.Fault
	m      map[int]int64 // node → 1/share of its slow fault
	free   map[uint64]int64
	writes []refWrite
	lost   []int64 // per fault (failovers)
	// per fault: failed, lastFail, okAfter, stop
	failed, lastFail, okAfter, stop []int64
	once                            map[onceID]int64 // id → expiry
}

func (r *refStore) nodesOf(f strategies.Fault) []int {
	if f.Kind == strategies.Partition {
		return f.Nodes
	}
	return []int{f.Target}
}

// finish steps a server of node from start through work svc.
func (r *refStore) finish(node int, start int64) int64 {
	var slow *strategies.Fault
	for i := range r.faults {
		if f := &r.faults[i]; f.Kind == strategies.NodeSlow && f.Target == node {
			slow = f
		}
	}
	m := r.m[node]
	left := r.svc * max(m, 1) // in 1/m units
	t := start
	for left > 0 {
		if slow != nil && t >= slow.At && t < slow.At+slow.For {
			left--
		} else {
			left -= max(m, 1)
		}
		t++
	}
	return t
}

func (r *refStore) do(cl strategies.Client, op strategies.StoreOp, node int) (strategies.OpStatus, int64) {
	at := op.At
	cut := false
	for _, f := range r.faults {
		if at >= f.At && at < f.End() {
			switch f.Kind {
			case strategies.NodeDown, strategies.Failover:
				cut = cut || f.Target == node
			case strategies.Partition:
				cut = cut || slices.Contains(f.Servers, cl.Server) && slices.Contains(f.Nodes, node)
			}
		}
	}
	st, val := strategies.OpOK, int64(0)
	switch {
	case cut:
		st = strategies.OpTimeout
	case op.Kind == strategies.Get:
		for _, w := range r.writes {
			if w.key == op.Key && w.done <= at {
				val += w.delta
			}
		}
	default:
		done := r.finish(node, max(at, r.free[op.Key]))
		dies := -1
		for i, f := range r.faults {
			if f.Kind == strategies.Failover && f.Target == node && f.At >= at && f.At < done {
				dies = i
			}
		}
		if dies >= 0 {
			st = strategies.OpTimeout
			break
		}
		r.free[op.Key] = done
		delta := op.Delta
		id := onceID{op.Key, op.Member}
		if op.Kind == strategies.IncrByOnce {
			if exp, ok := r.once[id]; ok && exp > at {
				delta = 0
			}
		}
		if cl.Timeout > 0 && done-at > cl.Timeout {
			st = strategies.OpTimeout
		}
		for _, f := range r.faults {
			if f.Kind == strategies.NodeDown && f.Target == node && done >= f.At && done < f.End() {
				st = strategies.OpTimeout
			}
		}
		if st == strategies.OpTimeout && op.Kind == strategies.IncrByOnce {
			r.once[id] = at + OnceTTL
		}
		r.writes = append(r.writes, refWrite{op.Key, delta, done})
		for i, f := range r.faults {
			if f.Kind == strategies.Failover && f.Target == node && done > f.At-f.Lag && done <= f.At {
				r.lost[i] += delta // served, then lost at At
				r.writes = append(r.writes, refWrite{op.Key, -delta, f.At})
			}
		}
	}
	for i, f := range r.faults {
		if at < f.At || at >= r.stop[i] || !slices.Contains(r.nodesOf(f), node) {
			continue
		}
		if st == strategies.OpTimeout {
			r.failed[i]++
			r.lastFail[i], r.okAfter[i] = at, -1
		} else if r.okAfter[i] < 0 && at > r.lastFail[i] {
			r.okAfter[i] = at
		}
	}
	return st, val
}

// FuzzClusterFaults holds DoClient, with random store faults (one of each
// kind at most on a node) and random clients, timeouts and retries of
// idempotent writes, to refStore: every status, every value read, every
// key's final value and every fault's account the same.
func FuzzClusterFaults(f *testing.F) {
	for s := range uint64(8) {
		f.Add(s, uint8(60))
	}
	f.Fuzz(func(t *testing.T, seed uint64, n uint8) {
		rng := rand.New(rand.NewPCG(seed, 29))
		c := newTestCluster(t, Config{Nodes: 3, KeyCapacity: 1e8}) // 10 ns an op, 1 tick a ns
		ref := &refStore{svc: 10, m: map[int]int64{}, free: map[uint64]int64{}, once: map[onceID]int64{}}
		// faults on nodes 0..2 within [0, 2000) ns
		var fs []strategies.Fault
		for node := range 3 {
			for _, kind := range []strategies.FaultKind{strategies.NodeDown, strategies.NodeSlow, strategies.Failover} {
				if rng.IntN(3) != 0 {
					continue
				}
				f := strategies.Fault{At: rng.Int64N(1500), Kind: kind, Target: node, For: 1 + rng.Int64N(300)}
				switch kind {
				case strategies.NodeSlow:
					m := 2 + rng.Int64N(4)
					f.Share = 1 / float64(m)
					ref.m[node] = m
				case strategies.Failover:
					f.For = 0
					f.Delay, f.Lag = rng.Int64N(200), rng.Int64N(min(f.At, 100)+1)
				}
				fs = append(fs, f)
			}
		}
		if rng.IntN(2) == 0 {
			fs = append(fs, strategies.Fault{At: rng.Int64N(1500), Kind: strategies.Partition, For: 1 + rng.Int64N(300), Servers: []int{1}, Nodes: []int{rng.IntN(3)}})
		}
		slices.SortStableFunc(fs, func(a, b strategies.Fault) int { return cmpTime(a.At, b.At) })
		ref.faults = fs
		for i, f := range fs {
			c.Fault(f)
			stop := int64(1 << 62)
			for _, g := range fs[i+1:] {
				if slices.ContainsFunc(ref.nodesOf(g), func(n int) bool { return slices.Contains(ref.nodesOf(f), n) }) {
					stop = g.At
					break
				}
			}
			ref.stop = append(ref.stop, stop)
		}
		k := len(fs)
		ref.lost, ref.failed, ref.lastFail, ref.okAfter = make([]int64, k), make([]int64, k), make([]int64, k), make([]int64, k)
		for i := range k {
			ref.lastFail[i], ref.okAfter[i] = -1, -1
		}
		keys := []uint64{1, 2, 3, 4, 5}
		var at int64
		var sent []strategies.StoreOp
		for i := range int(n) {
			at += rng.Int64N(40)
			cl := strategies.Client{Server: rng.IntN(2), Timeout: []int64{0, 15, 40}[rng.IntN(3)]}
			var op strategies.StoreOp
			switch r := rng.IntN(10); {
			case r < 2:
				op = strategies.StoreOp{At: at, Kind: strategies.Get, Key: keys[rng.IntN(len(keys))]}
			case r < 4 && len(sent) > 0: // a retry of an earlier idempotent write
				op = sent[rng.IntN(len(sent))]
				op.At = at
			case r < 7:
				op = strategies.StoreOp{At: at, Kind: strategies.IncrByOnce, Key: keys[rng.IntN(len(keys))], Delta: 1 + rng.Int64N(3), Member: uint64(i)}
				sent = append(sent, op)
			default:
				op = strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: keys[rng.IntN(len(keys))], Delta: 1 + rng.Int64N(3)}
			}
			node := c.NodeOf(op.Key, 0)
			wantSt, wantVal := ref.do(cl, op, node)
			var st [1]strategies.OpStatus
			var val [1]int64
			c.DoClient(cl, []strategies.StoreOp{op}, val[:], st[:])
			if st[0] != wantSt || val[0] != wantVal {
				t.Fatalf("op %d %+v from %+v on node %d: status %d, read %d; the reference %d, %d (faults %+v)", i, op, cl, node, st[0], val[0], wantSt, wantVal, fs)
			}
		}
		clusterCheck(t, c)
		for _, key := range keys {
			var want int64
			for _, w := range ref.writes {
				if w.key == key {
					want += w.delta
				}
			}
			if got := c.Final(key); got != want {
				t.Fatalf("key %d: final %d, the reference %d (faults %+v)", key, got, want, fs)
			}
		}
		for i, o := range c.Outages() {
			rec := fs[i].End()
			if ref.lastFail[i] >= rec {
				rec = ref.okAfter[i]
			}
			if o.Failed != ref.failed[i] || o.Lost != ref.lost[i] || o.Recovered != rec {
				t.Fatalf("fault %d %+v: failed %d, lost %d, recovered %d; the reference %d, %d, %d", i, fs[i], o.Failed, o.Lost, o.Recovered, ref.failed[i], ref.lost[i], rec)
			}
		}
	})
}
