package frequency

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// splitCase is a stream split over nodes the adversarial way, with its
// question's K and the key planted to be heavy only in total.
type splitCase struct {
	nodes, k int
	ev       []workload.Event
	planted  uint64
	keys     int // distinct keys
}

// adversarialSplit builds a seeded stream over 1..8 nodes whose shape is
// the trap of issue 11 and its corners:
//   - background keys spread over random nodes in random shares;
//   - keys heavy on one node only (more than K of them on some nodes);
//   - some nodes with no events;
//   - a planted key one below every node's local K-th count (absent from
//     nodes that hold fewer than K keys), heavy only in total;
//   - half the time, extra keys whose totals tie the K-th count exactly;
//   - K from 1 to 12 against 1 to 60 keys, so K is sometimes larger than
//     the number of keys.
//
// The counts go out as events of random deltas in random order, on the
// node's Actor, with reads and non-positive deltas mixed in (ignored).
func adversarialSplit(seed uint64) splitCase {
	r := rand.New(rand.NewPCG(seed, 0x73706c6974616476))
	S, K := 1+r.IntN(8), 1+r.IntN(12)
	counts := make([]map[uint64]uint64, S)
	for i := range counts {
		counts[i] = map[uint64]uint64{}
	}
	used := map[uint64]bool{}
	newKey := func() uint64 {
		for {
			k := uint64(r.IntN(200)) // small keys: ties break on them visibly
			if r.IntN(2) == 0 {
				k = r.Uint64()
			}
			if !used[k] {
				used[k] = true
				return k
			}
		}
	}
	empty := make([]bool, S)
	if S > 1 && r.IntN(3) == 0 {
		empty[r.IntN(S)] = true
	}
	live := func() int { // a node that has events
		for {
			if i := r.IntN(S); !empty[i] {
				return i
			}
		}
	}
	spread := func(key, total uint64) { // total over a random set of live nodes
		for total > 0 {
			c := 1 + r.Uint64N(total)
			counts[live()][key] += c
			total -= c
		}
	}
	for range r.IntN(40) {
		spread(newKey(), 1+r.Uint64N(1+r.Uint64N(60)))
	}
	for i := range S {
		if empty[i] || r.IntN(2) == 0 {
			continue
		}
		for range 1 + r.IntN(K+3) {
			counts[i][newKey()] = 10 + r.Uint64N(50)
		}
	}
	// The planted key: one below each node's local K-th count.
	planted := newKey()
	for i := range S {
		if len(counts[i]) < K {
			continue
		}
		local := make([]strategies.Item, 0, len(counts[i]))
		for key, c := range counts[i] {
			local = append(local, strategies.Item{Key: key, Count: c})
		}
		ds.SortItems(local)
		if c := local[K-1].Count; c > 1 {
			counts[i][planted] = c - 1
		}
	}
	total := map[uint64]uint64{}
	for i := range S {
		for key, c := range counts[i] {
			total[key] += c
		}
	}
	if len(total) >= K && r.IntN(2) == 0 { // ties at the K-th count
		kth := designtest.TrueTop(total, K)[K-1].Count
		for range 1 + r.IntN(4) {
			key := newKey()
			spread(key, kth)
			total[key] = kth
		}
	}
	// The events: each count cut into deltas, shuffled, noise mixed in.
	var ev []workload.Event
	for i := range S {
		for _, key := range designtest.SortedKeys(counts[i]) {
			for c := counts[i][key]; c > 0; {
				d := c
				if r.IntN(3) > 0 {
					d = 1 + r.Uint64N(c)
				}
				ev = append(ev, workload.Event{Key: key, Actor: uint64(i), Delta: int64(d), Op: workload.Write})
				c -= d
			}
			if r.IntN(8) == 0 {
				ev = append(ev, workload.Event{Key: key, Actor: uint64(i), Delta: 5, Op: workload.Read},
					workload.Event{Key: key, Actor: uint64(i), Delta: -int64(1 + r.IntN(5)), Op: workload.Write},
					workload.Event{Key: key, Actor: uint64(i), Op: workload.Write})
			}
		}
	}
	r.Shuffle(len(ev), func(a, b int) { ev[a], ev[b] = ev[b], ev[a] })
	for i := range ev {
		ev[i].ID, ev[i].At = uint64(i), int64(i)
	}
	return splitCase{nodes: S, k: K, ev: ev, planted: planted, keys: len(total)}
}

// observeSplitBatches feeds ev in batches of random lengths, checking the
// design's invariants after each.
func observeSplitBatches(t *testing.T, s strategies.Strategy, ev []workload.Event, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	for lo := 0; lo < len(ev); {
		hi := min(len(ev), lo+1+r.IntN(64))
		s.Observe(ev[lo:hi])
		lo = hi
	}
	designtest.CheckInvariants(t, s)
}

// The properties of split-topk on the adversarial streams: each answer in
// family order, every count at most the truth and short of it by at most
// Err, and as many items as it can give. And the trap is real: on some of
// the streams the planted key is in the true top K and K' = K misses it.
func TestSplitTopKBounds(t *testing.T) {
	trapped := 0
	for seed := range uint64(300) {
		c := adversarialSplit(seed)
		truth, _ := designtest.ExactCounts(c.ev)
		for _, over := range []int{c.k, 2 * c.k} {
			s, err := NewSplitTopK(SplitTopKParams{Overfetch: over, Nodes: c.nodes}, 16, seed)
			if err != nil {
				t.Fatal(err)
			}
			observeSplitBatches(t, s, c.ev, seed)
			for _, k := range []int{c.k, 1, c.k + 5} {
				got := s.Top(k)
				if len(got) != min(k, len(truth)) {
					t.Fatalf("seed %d, K'=%d: Top(%d) gave %d items, want %d", seed, over, k, len(got), min(k, len(truth)))
				}
				for i, it := range got {
					if i > 0 && ds.Worse(&got[i-1], &it) {
						t.Fatalf("seed %d, K'=%d: Top(%d) out of order at %d: %+v after %+v", seed, over, k, i, it, got[i-1])
					}
					if tr := truth[it.Key]; !within(strategies.ErrsUnder, it.Count, it.Err, tr) {
						t.Fatalf("seed %d, K'=%d: Top(%d) item %+v, true count %d: not under within Err", seed, over, k, it, tr)
					}
				}
			}
			if over == c.k && inTop(designtest.TrueTop(truth, c.k), c.planted) && !inTop(s.Top(c.k), c.planted) {
				trapped++
			}
		}
	}
	if trapped < 30 {
		t.Errorf("K' = K missed a planted key of the true top K on %d of 300 streams: the streams do not set the trap", trapped)
	}
	t.Logf("K' = K missed the planted key of the true top K on %d of 300 streams", trapped)
}

func inTop(items []strategies.Item, key uint64) bool {
	return slices.ContainsFunc(items, func(it strategies.Item) bool { return it.Key == key })
}

// plantedSplit is the trap in its plainest form: S nodes, each with m keys
// of its own counted h times there and nowhere else, and one key counted
// h−1 times on every node: the heaviest key in total (S(h−1) > h), and the
// (m+1)-th on every node.
func plantedSplit(S, m int, h uint64) ([]workload.Event, uint64) {
	const planted = 1 << 40
	var ev []workload.Event
	for i := range S {
		for j := range m {
			ev = append(ev, workload.Event{Key: uint64(i*m + j), Actor: uint64(i), Delta: int64(h), Op: workload.Write})
		}
		ev = append(ev, workload.Event{Key: planted, Actor: uint64(i), Delta: int64(h - 1), Op: workload.Write})
	}
	return ev, planted
}

// With K' ≤ m every node's list is full of its own keys and the heaviest
// key in total is missed; with K' = m+1 every node sends it and its count is
// exact.
func TestSplitTopKMissesPlanted(t *testing.T) {
	const S, m, h, K = 4, 5, 10, 3
	ev, planted := plantedSplit(S, m, h)
	truth, _ := designtest.ExactCounts(ev)
	if top := designtest.TrueTop(truth, 1); top[0].Key != planted || top[0].Count != S*(h-1) {
		t.Fatalf("the planted key is not the heaviest: %+v", top)
	}
	for over := K; over <= m+1; over++ {
		s, err := NewSplitTopK(SplitTopKParams{Overfetch: over, Nodes: S}, 8, 1)
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(ev)
		got := s.Top(K)
		found := inTop(got, planted)
		if found != (over > m) {
			t.Errorf("K' = %d: planted found %v, want %v (%+v)", over, found, over > m, got)
		}
		if found && (got[0] != strategies.Item{Key: planted, Count: S * (h - 1)}) {
			t.Errorf("K' = %d: got %+v first, want the planted key with its exact count and Err 0", over, got[0])
		}
		for _, it := range got {
			if !within(strategies.ErrsUnder, it.Count, it.Err, truth[it.Key]) {
				t.Errorf("K' = %d: %+v, true count %d", over, it, truth[it.Key])
			}
		}
	}
}

// handSplit is the small example whose coordination is counted by hand in
// TestCoordinationByHand: k = 2 over four nodes, the last with no events.
//
//	node 0: a(1) 9, b(2) 8, x(9) 4, g(7) 1
//	node 1: c(3) 9, d(4) 8, x(9) 4, h(8) 3
//	node 2: e(5) 9, x(9) 4, a(1) 2, f(6) 1
//	node 3: nothing
//
// True counts: x 12, a 11, c 9, e 9, b 8, d 8, h 3, g 1, f 1.
func handSplit() []workload.Event {
	var ev []workload.Event
	for node, kc := range [][][2]uint64{
		{{1, 9}, {2, 8}, {9, 4}, {7, 1}},
		{{3, 9}, {4, 8}, {9, 4}, {8, 3}},
		{{5, 9}, {9, 4}, {1, 2}, {6, 1}},
	} {
		for _, p := range kc {
			for range p[1] { // unit writes
				ev = append(ev, workload.Event{Key: p[0], Actor: uint64(node), Delta: 1, Op: workload.Write})
			}
		}
	}
	return ev
}

// The coordination figures of both designs on handSplit, against a count by
// hand.
//
// split-topk, K' = 2: the coordinator asks each of the 4 nodes (4
// requests, no item) and each sends its top 2 (node 0: a 9, b 8; node 1:
// c 9, d 8; node 2: e 9, x 4; node 3: none): 4 replies, 6 items; 8
// messages, 96 B. The sums are a 9, c 9, e 9, b 8, d 8, x 4; the top 2 is
// a 9, c 9, missing x. The cuts (last count sent by a node holding more)
// are 8, 8, 4, 0: a is unsent by nodes 1, 2, 3, Err 8+4 = 12; c likewise
// 12. Again with K' = 3 (cuts 4, 4, 2, 0): 8 more messages, 9 more items;
// x 12 Err 0, a 9+2 = 11, Err 4.
//
// threshold-topk, k = 2. Phase 1: 4 requests, and the top 2 of each node,
// 4 replies of 6 items; node 3 sent all it holds (nothing) and is not
// asked again. τ1 = the 2nd of 9, 9, 9, 8, 8, 4 = 9; t = ⌈9/4⌉ = 3. Phase
// 2 (nodes 0-2): 3 requests (T); node 0 sends x 4 (g 1 < 3), node 1 x 4
// and h 3, node 2 nothing (a 2 < 3, x already sent): 3 replies, 3 items.
// ψ: x 12 (sent by all three), a 9, c 9, e 9, b 8, d 8, h 3; τ2 = 9. U =
// ψ + misses·(t−1): x 12, a, c, e 13, b, d 12, h 3+2·2 = 7 < 9: h pruned.
// Phase 3: a, c, e, b, d sent to nodes 0-2, 3 requests of 5 keys (15 keys
// asked); only node 2 has one it has not sent, a 2: 3 replies, 1 item.
// Answer x 12, a 11. In all 10 requests and 10 replies, 20 messages; 15
// keys asked and 10 items sent, 25 items; 15 × 8 + 10 × 16 = 280 B.
func TestCoordinationByHand(t *testing.T) {
	ev := handSplit()
	s, err := NewSplitTopK(SplitTopKParams{Overfetch: 2, Nodes: 4}, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	s.Observe(ev)
	if got, want := s.Top(2), []strategies.Item{{Key: 1, Count: 9, Err: 12}, {Key: 3, Count: 9, Err: 12}}; !slices.Equal(got, want) {
		t.Errorf("split-topk K'=2: Top(2) = %+v, want %+v", got, want)
	}
	if m, i, b := s.Coordination(); m != 8 || i != 6 || b != 96 {
		t.Errorf("split-topk K'=2: coordination %d messages, %d items, %d B; want 8, 6, 96", m, i, b)
	}
	s.overfetch = 3
	if got, want := s.Top(2), []strategies.Item{{Key: 9, Count: 12}, {Key: 1, Count: 11, Err: 4}}; !slices.Equal(got, want) {
		t.Errorf("split-topk K'=3: Top(2) = %+v, want %+v", got, want)
	}
	if m, i, b := s.Coordination(); m != 16 || i != 15 || b != 240 {
		t.Errorf("split-topk after K'=2 and 3: coordination %d messages, %d items, %d B; want 16, 15, 240", m, i, b)
	}

	x, err := NewThresholdTopK(ThresholdTopKParams{Nodes: 4}, 8, 1)
	if err != nil {
		t.Fatal(err)
	}
	x.Observe(ev)
	if got, want := x.Top(2), []strategies.Item{{Key: 9, Count: 12}, {Key: 1, Count: 11}}; !slices.Equal(got, want) {
		t.Errorf("threshold-topk: Top(2) = %+v, want %+v", got, want)
	}
	wantRounds := [3]roundCost{
		{Requests: 4, Replies: 4, Items: 6},
		{Requests: 3, Replies: 3, Items: 3},
		{Requests: 3, Asked: 15, Replies: 3, Items: 1},
	}
	if got := x.rounds; got != wantRounds {
		t.Errorf("threshold-topk: rounds %+v, want %+v", got, wantRounds)
	}
	if m, i, b := x.Coordination(); m != 20 || i != 25 || b != 280 {
		t.Errorf("threshold-topk: coordination %d messages, %d items, %d B; want 20, 25, 280", m, i, b)
	}
	x.Top(2) // a second answer runs the protocol again and adds to the tallies
	if m, i, b := x.Coordination(); m != 40 || i != 50 || b != 560 {
		t.Errorf("threshold-topk after two answers: coordination %d messages, %d items, %d B; want 40, 50, 560", m, i, b)
	}
	if x.Top(0); x.rounds[0].Requests != 8 {
		t.Errorf("Top(0) sent messages: %+v", x.rounds)
	}
}

// splitEvents is a Zipf stream whose events are spread over nodes by a hash
// of the event, as a split by user or app server spreads them.
func splitEvents(sp designtest.StreamSpec, nodes int) []workload.Event {
	ev := sp.Gen()
	for i := range ev {
		ev[i].Actor = workload.Mix64(ev[i].ID^0x6e6f6465) % uint64(nodes)
	}
	return ev
}

// Observe allocates nothing once the nodes' tables hold the keys, for
// both designs built through the registry as the runner builds them.
func TestSplitObserveAllocs(t *testing.T) {
	sp := designtest.StreamSpec{Seed: 91, Keys: 50000, S: 1, Events: 1 << 16, Scramble: true}
	ev := splitEvents(sp, 8)
	for _, typ := range []string{"split-topk", "threshold-topk"} {
		t.Run(typ, func(t *testing.T) {
			s := designtest.BuildDesign(t, typ, nil, strategies.Env{Seed: 1, Keys: uint64(sp.Keys), Events: int64(sp.Events), Top: 10, Nodes: 8})
			s.Observe(ev)
			if allocs := testing.AllocsPerRun(5, func() { s.Observe(ev[:4096]) }); allocs != 0 {
				t.Errorf("Observe of a batch: got %v allocations, want 0", allocs)
			}
		})
	}
}

// Bad parameters are refused naming the key: 0 written, out of range, a K'
// below the scenario's K, or a value neither given nor in the scenario.
func TestSplitParams(t *testing.T) {
	ok := strategies.Env{Top: 10, Nodes: 4}
	for _, c := range []struct {
		name, typ string
		raw       []scenarios.Param
		env       strategies.Env
		key       string // "" for none
	}{
		{"split defaults", "split-topk", nil, ok, ""},
		{"split given", "split-topk", []scenarios.Param{{Key: "overfetch", Value: int64(30), Pos: scenarios.Pos{Line: 1}}, {Key: "nodes", Value: int64(2), Pos: scenarios.Pos{Line: 2}}}, strategies.Env{}, ""},
		{"overfetch 0", "split-topk", []scenarios.Param{{Key: "overfetch", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, ok, "overfetch"},
		{"overfetch negative", "split-topk", []scenarios.Param{{Key: "overfetch", Value: int64(-1), Pos: scenarios.Pos{Line: 3}}}, ok, "overfetch"},
		{"overfetch too large", "split-topk", []scenarios.Param{{Key: "overfetch", Value: int64(1_000_001), Pos: scenarios.Pos{Line: 3}}}, ok, "overfetch"},
		{"overfetch below K", "split-topk", []scenarios.Param{{Key: "overfetch", Value: int64(9), Pos: scenarios.Pos{Line: 3}}}, ok, "overfetch"},
		{"overfetch without K", "split-topk", nil, strategies.Env{Nodes: 4}, "overfetch"},
		{"split nodes 0", "split-topk", []scenarios.Param{{Key: "nodes", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, ok, "nodes"},
		{"split nodes too many", "split-topk", []scenarios.Param{{Key: "nodes", Value: int64(splitMaxNodes + 1), Pos: scenarios.Pos{Line: 3}}}, ok, "nodes"},
		{"split without nodes", "split-topk", nil, strategies.Env{Top: 10}, "nodes"},
		{"threshold defaults", "threshold-topk", nil, ok, ""},
		{"threshold nodes 0", "threshold-topk", []scenarios.Param{{Key: "nodes", Value: int64(0), Pos: scenarios.Pos{Line: 3}}}, ok, "nodes"},
		{"threshold nodes negative", "threshold-topk", []scenarios.Param{{Key: "nodes", Value: int64(-2), Pos: scenarios.Pos{Line: 3}}}, ok, "nodes"},
		{"threshold without nodes", "threshold-topk", nil, strategies.Env{Top: 10}, "nodes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			typ, err := strategies.Lookup(c.typ)
			if err != nil {
				t.Fatal(err)
			}
			p, err := designtest.DecodeParams(typ, c.raw)
			if err == nil {
				err = typ.Check(p, c.env, false)
			}
			if c.key == "" {
				if err != nil {
					t.Fatal(err)
				}
				if _, err := typ.Build(p, c.env); err != nil {
					t.Fatalf("Build: %v", err)
				}
				return
			}
			if designtest.FaultKey(err) != c.key {
				t.Fatalf("got %v, want a %s error on %s", err, c.typ, c.key)
			}
			t.Log(err)
		})
	}
	// The constructors refuse what was not resolved.
	var pe *strategies.ParamError
	if _, err := NewSplitTopK(SplitTopKParams{Nodes: 3}, 8, 1); !errors.As(err, &pe) || pe.Key != "overfetch" {
		t.Errorf("NewSplitTopK without K': got %v", err)
	}
	if _, err := NewSplitTopK(SplitTopKParams{Overfetch: 3}, 8, 1); !errors.As(err, &pe) || pe.Key != "nodes" {
		t.Errorf("NewSplitTopK without nodes: got %v", err)
	}
	if _, err := NewThresholdTopK(ThresholdTopKParams{}, 8, 1); !errors.As(err, &pe) || pe.Key != "nodes" {
		t.Errorf("NewThresholdTopK without nodes: got %v", err)
	}
}

// The designs resolve K' and S from the scenario, and their plans give the
// cost of one answer to its question (messages both ways: 2S for
// split-topk, at most 6S for threshold-topk), and the bytes their nodes hold once
// built (what the memory check counts them at).
func TestSplitPlans(t *testing.T) {
	env := strategies.Env{Seed: 1, Keys: 1000, Events: 80000, Top: 10, Nodes: 8}
	s := designtest.BuildDesign(t, "split-topk", nil, env).(*SplitTopK)
	if len(s.nodes.tables) != 8 || s.overfetch != 10 {
		t.Errorf("split-topk built with %d nodes, K' %d; want 8, 10", len(s.nodes.tables), s.overfetch)
	}
	if nb := s.NodeBytes(); nb != int64(ds.TableLen(1000))*ds.ExactSlotBytes || s.Bytes() < 8*nb {
		t.Errorf("split-topk: node bytes %d, bytes %d; want a table for min(keys, events/S) = 1000 keys a node", nb, s.Bytes())
	}
	want := map[metrics.Metric]float64{metrics.Nodes: 8, metrics.MergeCandidates: 80, metrics.Messages: 16, metrics.ItemsSent: 80, metrics.BytesSent: 1280,
		metrics.Bytes: float64(s.Bytes())}
	typ, _ := strategies.Lookup("split-topk")
	p, _ := designtest.DecodeParams(typ, []scenarios.Param{{Key: "overfetch", Value: int64(10)}})
	checkSplitPlan(t, typ.Plan(p, env), want)
	th := designtest.BuildDesign(t, "threshold-topk", nil, env)
	typ, _ = strategies.Lookup("threshold-topk")
	p, _ = designtest.DecodeParams(typ, nil)
	checkSplitPlan(t, typ.Plan(p, env), map[metrics.Metric]float64{metrics.Nodes: 8, metrics.Messages: 48, metrics.MergeCandidates: 80,
		metrics.Bytes: float64(th.Bytes())})
	// Sized by the events a node takes when they are fewer than the keys,
	// and over nodes of the design's own: the plan follows.
	for _, c := range []struct {
		env   strategies.Env
		nodes int64
	}{
		{strategies.Env{Seed: 1, Keys: 800_001, Events: 4_000_000, Top: 10, Nodes: 8}, 0},
		{strategies.Env{Seed: 1, Keys: 1_000_000, Events: 100_000, Top: 10, Nodes: 16}, 3},
	} {
		var params []scenarios.Param
		if c.nodes > 0 {
			params = []scenarios.Param{{Key: "nodes", Value: c.nodes}}
		}
		for _, name := range []string{"split-topk", "threshold-topk"} {
			built := designtest.BuildDesign(t, name, params, c.env)
			typ, _ := strategies.Lookup(name)
			p, _ := designtest.DecodeParams(typ, params)
			planned := -1.0
			for _, l := range typ.Plan(p, c.env) {
				if l.Metric == metrics.Bytes {
					planned = l.Value
				}
			}
			if planned != float64(built.Bytes()) {
				t.Errorf("%s over %d keys, %d events, nodes %d: plan %v B (-1: none), built %d B", name, c.env.Keys, c.env.Events, c.nodes, planned, built.Bytes())
			}
		}
	}
}

func checkSplitPlan(t *testing.T, lines []strategies.PlanLine, want map[metrics.Metric]float64) {
	t.Helper()
	got := map[metrics.Metric]float64{}
	for _, l := range lines {
		got[l.Metric] = l.Value
	}
	for m, v := range want {
		if got[m] != v {
			t.Errorf("plan %s = %v, want %v", m, got[m], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("plan %v, want %v", got, want)
	}
}
