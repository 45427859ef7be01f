package cluster

import (
	"errors"
	"math"
	"strings"
	"testing"

	"countsim/keyslot"
	"countsim/strategies"
	"countsim/strategies/distinct"
)

// TestClusterSlotsPlacement: with Slots a key's slot is keyslot.Of of its
// name (strategies.KeyName), its node the redis-cli range holding the
// slot, whatever the seed; every key of a tag shares one slot; and 100,000
// keys spread over 8 nodes as 16,384 slots in 8 ranges of 2,048 spread
// them.
func TestClusterSlotsPlacement(t *testing.T) {
	ranges, _ := keyslot.Ranges(8)
	a := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1, Seed: 1})
	b := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1, Seed: 2})
	counts := make([]int, 8)
	for k := range uint64(100_000) {
		slot := keyslot.Of(strategies.KeyName(k, 0))
		node := keyslot.Owner(ranges, slot)
		if a.SlotOf(k, 0) != slot || a.NodeOf(k, 0) != node || b.NodeOf(k, 0) != node {
			t.Fatalf("key %x: slot %d node %d (seed 2: node %d), want slot %d node %d", k, a.SlotOf(k, 0), a.NodeOf(k, 0), b.NodeOf(k, 0), slot, node)
		}
		counts[node]++
	}
	// Each node's share is about Binomial(10^5, 1/8), sd 104.6, for names
	// that CRC16 spreads like random ones: 7 sd.
	for n, got := range counts {
		if math.Abs(float64(got)-12_500) > 7*104.6 {
			t.Errorf("node %d holds %d of 100,000 keys, want 12,500 ± 732", n, got)
		}
	}
	// A tag places every key of it in the tag's slot, first use or not.
	const tag = 0xfeed
	want := keyslot.Of("{feed}")
	ops := []strategies.StoreOp{{Kind: strategies.IncrBy, Key: 7, Tag: tag, Delta: 1}, {Kind: strategies.IncrBy, Key: 8, Tag: tag, Delta: 1}}
	a.Do(ops, nil)
	for _, k := range []uint64{7, 8, 9} {
		if got := a.SlotOf(k, tag); got != want {
			t.Errorf("key %x of tag %x in slot %d, want the tag's %d", k, tag, got, want)
		}
	}
	clusterCheck(t, a)
	if rs := a.Ranges(); len(rs) != 8 || rs[7] != (keyslot.Range{First: 14336, Last: 16383}) {
		t.Errorf("Ranges %v, want redis-cli's 8 ranges", rs)
	}
	if _, err := New(Config{Nodes: keyslot.MaxMasters + 1, KeyCapacity: 1}); err == nil {
		t.Error("slots over 4,097 nodes: no error")
	}
	if _, err := New(Config{Nodes: keyslot.MaxMasters + 1, KeyCapacity: 1, Placement: Modulo}); err != nil {
		t.Errorf("modulo over 4,097 nodes: %v", err)
	}
	if _, err := New(Config{Nodes: 1, KeyCapacity: 1, Placement: placements}); err == nil {
		t.Error("an unknown placement: no error")
	}
}

// TestPlacementNames: the names parse to their placements and back; an
// unknown one is refused naming the allowed.
func TestPlacementNames(t *testing.T) {
	for i, name := range Slots.Names() {
		var p Placement
		if err := p.UnmarshalText([]byte(name)); err != nil || int(p) != i || p.String() != name {
			t.Errorf("%q: %v, %v", name, p, err)
		}
	}
	var p Placement
	if err := p.UnmarshalText([]byte("ring")); err == nil || err.Error() != `unknown placement "ring" (allowed: slots, modulo)` {
		t.Errorf("ring: %v", err)
	}
}

// pfAdds is a PFADD to key (with tag) of each id in lo..hi-1.
func pfAdds(key, tag uint64, lo, hi uint64) []strategies.StoreOp {
	var ops []strategies.StoreOp
	for id := lo; id < hi; id++ {
		ops = append(ops, strategies.StoreOp{Kind: strategies.PFAdd, Key: key, Tag: tag, Member: id})
	}
	return ops
}

// TestClusterCrossSlot: a PFMERGE, a multi-key PFCOUNT and a ZUNIONSTORE
// over keys of different slots are refused with Redis's words and change
// nothing; over tagged keys (one slot) they work. With Slots even one node
// refuses (Redis Cluster checks slots, not nodes); with Modulo one node is
// one server and refuses nothing, while keys on two nodes are refused.
func TestClusterCrossSlot(t *testing.T) {
	const day1, day2 = 0x1a, 0x2b // untagged: different slots
	if keyslot.Of(strategies.KeyName(day1, 0)) == keyslot.Of(strategies.KeyName(day2, 0)) {
		t.Fatal("the test's two keys share a slot")
	}
	for _, tc := range []struct {
		name    string
		cfg     Config
		refused bool
	}{
		{"slots/nodes=3", Config{Nodes: 3, KeyCapacity: 1e9}, true},
		{"slots/nodes=1", Config{Nodes: 1, KeyCapacity: 1e9}, true},
		{"modulo/nodes=1", Config{Nodes: 1, KeyCapacity: 1e9, Placement: Modulo}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCluster(t, tc.cfg)
			c.Do(append(pfAdds(day1, 0, 0, 1000), pfAdds(day2, 0, 500, 1500)...), nil)
			count := func(ops ...strategies.StoreOp) int64 {
				vals := make([]int64, len(ops))
				c.Do(ops, vals)
				return vals[0]
			}
			one := count(strategies.StoreOp{Kind: strategies.PFCount, Key: day1})
			union := count(strategies.StoreOp{Kind: strategies.PFCount, Key: day1}, strategies.StoreOp{Kind: strategies.KeyArg, Key: day2})
			err := c.Refused()
			if tc.refused != (err != nil) || (err != nil && (err.Error() != "PFCOUNT: CROSSSLOT Keys in request don't hash to the same slot" || !errors.Is(err, strategies.ErrCrossSlot))) {
				t.Fatalf("PFCOUNT of two slots: %v, want refused %v", err, tc.refused)
			}
			if c.Refused() != nil {
				t.Error("Refused did not clear")
			}
			c.Do([]strategies.StoreOp{{Kind: strategies.PFMerge, Key: day1}, {Kind: strategies.KeyArg, Key: day2}}, nil)
			merged := count(strategies.StoreOp{Kind: strategies.PFCount, Key: day1})
			c.Do([]strategies.StoreOp{{Kind: strategies.ZUnionStore, Key: 0x3c}, {Kind: strategies.KeyArg, Key: day1}, {Kind: strategies.KeyArg, Key: day2}}, nil)
			err = c.Refused()
			st := c.Stats(1)
			if tc.refused {
				if union != 0 || merged != one || err == nil || err.Error() != "PFMERGE: CROSSSLOT Keys in request don't hash to the same slot" || st.CrossSlot != 3 {
					t.Errorf("refused: union %d, after the merge %d (day 1 %d), %v, %d refused; want 0, day 1's, the PFMERGE's refusal, 3", union, merged, one, err, st.CrossSlot)
				}
			} else if math.Abs(float64(union)-1500) > 5.3*0.0081*1500 || merged != union || err != nil || st.CrossSlot != 0 {
				t.Errorf("one server: union %d, merged %d, %v, %d refused; want ≈ 1,500 twice, none refused", union, merged, err, st.CrossSlot)
			}
			// Every command counts once, on its first key; KeyArgs do not.
			if st.Writes != 2000+2 || st.Reads != 3 {
				t.Errorf("writes %d, reads %d; want 2,002 and 3", st.Writes, st.Reads)
			}
			clusterCheck(t, c)
		})
	}
	// Tagged keys share a slot: nothing is refused, on any placement.
	for _, p := range []Placement{Slots, Modulo} {
		c := newTestCluster(t, Config{Nodes: 3, KeyCapacity: 1e9, Placement: p})
		c.Do(append(pfAdds(day1, 9, 0, 1000), pfAdds(day2, 9, 500, 1500)...), nil)
		vals := make([]int64, 2)
		c.Do([]strategies.StoreOp{{Kind: strategies.PFCount, Key: day1, Tag: 9}, {Kind: strategies.KeyArg, Key: day2, Tag: 9}}, vals)
		if err := c.Refused(); err != nil || math.Abs(float64(vals[0])-1500) > 5.3*0.0081*1500 {
			t.Errorf("%v: tagged union %d, %v; want ≈ 1,500", p, vals[0], err)
		}
	}
	// With Modulo, keys on two nodes are refused.
	c := newTestCluster(t, Config{Nodes: 2, KeyCapacity: 1e9, Placement: Modulo})
	a, b := uint64(1), uint64(2)
	for c.NodeOf(b, 0) == c.NodeOf(a, 0) {
		b++
	}
	c.Do([]strategies.StoreOp{{Kind: strategies.PFMerge, Key: a}, {Kind: strategies.KeyArg, Key: b}}, nil)
	if err := c.Refused(); !errors.Is(err, strategies.ErrCrossSlot) {
		t.Errorf("modulo, two nodes: %v, want CROSSSLOT", err)
	}
}

// TestClusterKeyArgAlone: a KeyArg after no multi-key command is a bug in
// the design that sent it.
func TestClusterKeyArgAlone(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 1, KeyCapacity: 1})
	defer func() {
		if recover() == nil {
			t.Error("a KeyArg after an IncrBy did not panic")
		}
	}()
	c.Do([]strategies.StoreOp{{Kind: strategies.IncrBy, Key: 1}, {Kind: strategies.KeyArg, Key: 2}}, nil)
}

// TestClusterGetBytes: a GET of a HyperLogLog key reads Redis's string of
// its registers, which the application decodes to the registers PFCOUNT
// estimates; of a counter, its value in decimal; of a key never written,
// nothing. Traffic counts each as an op, a round trip and its bytes.
func TestClusterGetBytes(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 3, KeyCapacity: 1e9})
	c.Do(pfAdds(0x1a, 0, 0, 100), nil) // sparse on Redis
	c.Do(pfAdds(0x2b, 0, 0, 50_000), nil)
	c.Do([]strategies.StoreOp{{Kind: strategies.IncrBy, Key: 0x3c, Delta: 42}}, nil)
	before := c.Traffic()
	var lens []int
	for _, key := range []uint64{0x1a, 0x2b} {
		b, err := c.GetBytes(1, key, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		lens = append(lens, len(b))
		regs := make([]uint8, 1<<14)
		if err := distinct.MergeRedisHLL(regs, b); err != nil {
			t.Fatalf("key %x: %v", key, err)
		}
		if sparse := len(b) < 12_304; string(b[:4]) != "HYLL" || sparse != (b[4] == 1) || !sparse && b[4] != 0 {
			t.Errorf("key %x: header %q, length %d: want HYLL, 1 (sparse) below 12,304 bytes, else 0", key, b[:5], len(b))
		}
		// The registers are the key's: an HLL of the same ids and seed has them.
		h, _ := distinct.NewHLL(distinct.HLLParams{Precision: 14}, 0)
		for _, op := range pfAdds(0, 0, 0, map[uint64]uint64{0x1a: 100, 0x2b: 50_000}[key]) {
			h.Insert(op.Member)
		}
		if want, _ := distinct.AppendRedisHLL(nil, h); string(want) != string(b) {
			t.Errorf("key %x: GET read %d bytes, not the string of its registers", key, len(b))
		}
	}
	if lens[0] >= 3000 || lens[1] != 12_304 {
		t.Errorf("string lengths %v, want a sparse one under 3,000 and a dense 12,304", lens)
	}
	if b, _ := c.GetBytes(2, 0x3c, 0, nil); string(b) != "42" {
		t.Errorf("GET of a counter: %q, want 42", b)
	}
	if b, _ := c.GetBytes(2, 0x4d, 0, []byte("x")); string(b) != "x" {
		t.Errorf("GET of a key never written appended %q", b[1:])
	}
	tr := c.Traffic().Sub(before)
	want := strategies.Traffic{Ops: 4, RoundTrips: 4, ReplyBytes: int64(lens[0]+lens[1]) + 2}
	if tr != want {
		t.Errorf("traffic %+v, want %+v (4 GETs, each alone)", tr, want)
	}
	clusterCheck(t, c)
}

// TestClusterRoundTrips: a Do call is one round trip to each node its ops
// go to.
func TestClusterRoundTrips(t *testing.T) {
	c := newTestCluster(t, Config{Nodes: 3, KeyCapacity: 1e9})
	var ops []strategies.StoreOp
	nodes := map[int]bool{}
	for k := uint64(0); len(nodes) < 3; k++ {
		nodes[c.NodeOf(k, 0)] = true
		ops = append(ops, strategies.StoreOp{Kind: strategies.IncrBy, Key: k, Delta: 1})
	}
	c.Do(ops, nil)
	c.Do(ops[:1], nil)
	if tr := c.Traffic(); tr.RoundTrips != 4 || tr.Ops != int64(len(ops)+1) || tr.ReplyBytes != 0 {
		t.Errorf("traffic %+v, want 4 round trips (3 + 1), %d ops, no bytes read", tr, len(ops)+1)
	}
}

// TestClusterSpread: the node table counts each node's keys and ops; the
// note speaks of few keys lying unevenly, never of a hash tag's keys (one
// slot on purpose) nor of many keys (an even share within noise).
func TestClusterSpread(t *testing.T) {
	send := func(c *Cluster, keys int, tag uint64) {
		for k := range uint64(keys) {
			c.Do([]strategies.StoreOp{{Kind: strategies.IncrBy, Key: 0x100 + k, Tag: tag, Delta: 1}}, nil)
		}
	}
	c := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1e9})
	send(c, 8, 0)
	tb := c.NodeTable("s", "d", 0)
	var keys, ops float64
	for _, r := range tb.Rows {
		keys, ops = keys+r[1], ops+r[2]
	}
	if tb.Name != "nodes-d" || len(tb.Rows) != 8 || len(tb.Columns) != 3 || keys != 8 || ops != 8 {
		t.Errorf("table %+v, want 8 rows of node, keys, ops summing to 8 and 8", tb)
	}
	if len(c.NodeTable("s", "d", 2).Columns) != 4 {
		t.Error("a timed table has no ops_per_s")
	}
	busiest := 0
	for _, n := range c.NodeKeys() {
		busiest = max(busiest, int(n))
	}
	if note := c.SpreadNote("d"); (busiest > 1) != (note != "") || (note != "" && !strings.HasPrefix(note, "d's 8 keys lie on ")) {
		t.Errorf("8 keys, %d on the busiest node: note %q", busiest, note)
	}
	tagged := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1e9})
	send(tagged, 8, 5)
	many := newTestCluster(t, Config{Nodes: 8, KeyCapacity: 1e9})
	send(many, 1000, 0)
	if n1, n2 := tagged.SpreadNote("d"), many.SpreadNote("d"); n1 != "" || n2 != "" {
		t.Errorf("notes of one slot's keys %q and of 1,000 keys %q, want none", n1, n2)
	}
}
