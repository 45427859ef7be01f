package frequency

import (
	"cmp"
	"slices"
	"testing"
	"time"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// nodeLocalRef is the brute force of the node-local top-K: per node and
// cycle an exact map, and at each cycle's end the node's k best (count
// descending, key ascending) added to the central counts. It counts the
// wire as it goes: a push is one message of a node that counted something
// in the cycle, carrying its k best (all it has if fewer); the central set
// sends nothing.
func nodeLocalRef(ev []workload.Event, nodes, k int, cycle int64, nodeOf func(e *workload.Event) int) (central map[uint64]uint64, bound uint64, pushes, items int64) {
	central = map[uint64]uint64{}
	cur := make([]map[uint64]uint64, nodes)
	for i := range cur {
		cur[i] = map[uint64]uint64{}
	}
	push := func() {
		for i, m := range cur {
			type kc struct{ k, c uint64 }
			var all []kc
			for key, c := range m {
				all = append(all, kc{key, c})
			}
			slices.SortFunc(all, func(a, b kc) int {
				if a.c != b.c {
					return cmp.Compare(b.c, a.c)
				}
				return cmp.Compare(a.k, b.k)
			})
			if len(all) >= k {
				bound += all[k-1].c
			}
			if len(all) > 0 {
				pushes++
				items += int64(min(k, len(all)))
			}
			for _, x := range all[:min(k, len(all))] {
				central[x.k] += x.c
			}
			cur[i] = map[uint64]uint64{}
		}
	}
	next := cycle
	for i := range ev {
		e := &ev[i]
		for e.At >= next {
			push()
			next += cycle
		}
		if e.Op == workload.Write && e.Delta > 0 {
			cur[nodeOf(e)][e.Key] += uint64(e.Delta)
		}
	}
	push()
	return central, bound, pushes, items
}

// TestNodeLocalTopKMatchesBruteForce: on Zipf streams over several cycles,
// by actor and by id, the central counts, the top K and the error bound
// equal the brute force's; every count is at most the truth and short of it
// by at most the bound; pushes go to the store as ZINCRBY at each cycle's
// end, and the messages and items are the brute force's pushes.
func TestNodeLocalTopKMatchesBruteForce(t *testing.T) {
	for _, c := range []struct {
		by    string
		nodes int
		k     int
	}{{"actor", 4, 5}, {"id", 3, 20}, {"actor", 1, 1}} {
		for seed := range uint64(4) {
			ev := designtest.StreamSpec{Seed: seed + 10, Keys: 500, S: 1, Events: 30000, Scramble: true}.Gen()
			for i := range ev {
				ev[i].At = int64(i) * 1000 // 30 ms in all
				ev[i].Actor = uint64(i*7) % uint64(c.nodes)
				if i%50 == 0 {
					ev[i].Delta = 3
				}
			}
			st := designtest.NewMemStore(t)
			st.LogOn = true
			d, err := NewNodeLocalTopK(NodeLocalTopKParams{Nodes: c.nodes, Top: c.k, Cycle: 4 * time.Millisecond, By: c.by},
				strategies.Env{Seed: seed, Keys: 500, Events: int64(len(ev)), Store: st, Nodes: map[string]int{"actor": c.nodes, "id": 0}[c.by]})
			if err != nil {
				t.Fatal(err)
			}
			for b := 0; b < len(ev); b += 1000 {
				d.Observe(ev[b : b+1000])
				if err := d.check(); err != nil {
					t.Fatal(err)
				}
			}
			d.Flush(ev[len(ev)-1].At)
			want, bound, pushes, pushItems := nodeLocalRef(ev, c.nodes, c.k, int64(4*time.Millisecond), d.nodeOf)
			truth, _ := designtest.ExactCounts(ev)
			for key, tc := range truth {
				got := d.Count(key)
				if got != want[key] {
					t.Fatalf("%s/%d nodes/k=%d seed %d: Count(%d) = %d, brute force %d", c.by, c.nodes, c.k, seed, key, got, want[key])
				}
				if got > tc || tc-got > bound {
					t.Fatalf("Count(%d) = %d against the truth %d, bound %d", key, got, tc, bound)
				}
			}
			top := d.Top(10)
			for i, it := range top {
				if it.Err != bound || it.Count != want[it.Key] {
					t.Fatalf("top[%d] = %+v, want count %d err %d", i, it, want[it.Key], bound)
				}
				if i > 0 && ds.Worse(&top[i-1], &it) {
					t.Fatalf("top out of order at %d", i)
				}
			}
			var zincr int64
			for _, op := range st.Log {
				if op.Kind != strategies.ZIncrBy || op.At%int64(4*time.Millisecond) != 0 && op.At != ev[len(ev)-1].At {
					t.Fatalf("op %+v: want ZINCRBY at a cycle's end", op)
				}
				zincr += op.Delta
			}
			var pushed uint64
			for _, c := range want {
				pushed += c
			}
			if uint64(zincr) != pushed {
				t.Fatalf("ZINCRBY added %d, the central counts %d", zincr, pushed)
			}
			msgs, items, bytes := d.Coordination()
			if msgs != pushes || items != pushItems || items != int64(len(st.Log)) || bytes != 16*items {
				t.Fatalf("coordination %d messages, %d items, %d B; recounted %d pushes of %d items, the store took %d ops", msgs, items, bytes, pushes, pushItems, len(st.Log))
			}
		}
	}
}

// TestNodeLocalTopKParams: nodes are required off a split stream, must
// match it by actor; bad values are refused naming the key.
func TestNodeLocalTopKParams(t *testing.T) {
	typ, _ := strategies.Lookup("node-local-topk")
	for _, c := range []struct {
		raw  []scenarios.Param
		env  strategies.Env
		want string
	}{
		{nil, strategies.Env{}, "parameter nodes: required"},
		{[]scenarios.Param{{Key: "nodes", Value: int64(4)}, {Key: "by", Value: "actor"}}, strategies.Env{Nodes: 8}, "4 nodes by actor, on a stream split over 8"},
		{[]scenarios.Param{{Key: "top", Value: int64(0)}}, strategies.Env{Nodes: 8}, "params.top: 0 is out of range (allowed: 1..1048576)"},
		{[]scenarios.Param{{Key: "cycle", Value: "0s"}}, strategies.Env{Nodes: 8}, `params.cycle: "0s" is out of range`},
		{[]scenarios.Param{{Key: "by", Value: "user"}}, strategies.Env{Nodes: 8}, `params.by: "user" is not allowed (allowed: actor, id)`},
	} {
		p, err := designtest.DecodeParams(typ, c.raw)
		if err == nil {
			err = typ.Check(p, c.env, true)
		}
		if err == nil || !designtest.ContainsAll(err.Error(), c.want) {
			t.Errorf("%v with %d nodes: got %v, want %q", c.raw, c.env.Nodes, err, c.want)
		}
	}
	p, _ := designtest.DecodeParams(typ, nil)
	if err := typ.Check(p, strategies.Env{Nodes: 8}, true); err != nil {
		t.Errorf("defaults on a split stream of 8 nodes: %v", err)
	}
}

// TestNodeLocalTopKAllocs: a cycle's counting and its push allocate
// nothing once the tables have grown.
func TestNodeLocalTopKAllocs(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 3, Keys: 1000, S: 1, Events: 8192, Scramble: true}.Gen()
	for i := range ev {
		ev[i].At = int64(i)
	}
	d, _ := NewNodeLocalTopK(NodeLocalTopKParams{Nodes: 4, Top: 10, Cycle: 2048}, strategies.Env{Seed: 1, Keys: 1000, Events: 8192})
	shift := func() { // the next 8,192 ns of the stream: four more cycles
		for i := range ev {
			ev[i].At += 8192
		}
	}
	d.Observe(ev) // the tables grow to a cycle's items
	if n := testing.AllocsPerRun(3, func() { shift(); d.Observe(ev) }); n != 0 {
		t.Fatalf("%v allocations a batch", n)
	}
}
