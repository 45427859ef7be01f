package strategies

import (
	"slices"
	"testing"
)

// threshold-topk returns the exact top k, counts and family order (count
// descending, key ascending) included, on 300 seeded adversarial splits
// (adversarialSplit: keys heavy only in total, heavy on one node only, ties
// at the K-th count, empty nodes, K above the number of keys), for the
// scenario's K and other k asked of the same state, against brute force.
func TestThresholdTopKExact(t *testing.T) {
	var planted, kAboveKeys, ties, emptyNodes int
	for seed := range uint64(300) {
		c := adversarialSplit(seed)
		truth, _ := exactCounts(c.ev)
		x, err := NewThresholdTopK(ThresholdTopKParams{Nodes: c.nodes}, 8, seed)
		if err != nil {
			t.Fatal(err)
		}
		observeSplitBatches(t, x, c.ev, seed)
		for _, k := range []int{c.k, 1, c.k + 1, c.keys, c.keys + 3} {
			if k <= 0 {
				continue
			}
			want := trueTop(truth, k)
			if got := x.Top(k); !slices.Equal(got, want) {
				t.Fatalf("seed %d (%d nodes, K %d, %d keys): Top(%d)\n got %+v\nwant %+v", seed, c.nodes, c.k, c.keys, k, got, want)
			}
		}
		// What the streams held, so that a change of the generator that
		// loses a corner shows.
		top := trueTop(truth, c.k+1)
		if inTop(top[:min(c.k, len(top))], c.planted) {
			planted++
		}
		if c.k > c.keys {
			kAboveKeys++
		}
		if len(top) > c.k && top[c.k].Count == top[c.k-1].Count {
			ties++
		}
		seen := map[uint64]bool{}
		for _, e := range c.ev {
			seen[e.Actor] = true
		}
		if len(seen) < c.nodes {
			emptyNodes++
		}
	}
	t.Logf("of 300 streams: planted key in the true top K on %d, K > keys on %d, a tie across the K-th count on %d, a node without events on %d",
		planted, kAboveKeys, ties, emptyNodes)
	for what, n := range map[string]int{"planted in the top K": planted, "K > keys": kAboveKeys, "ties at K": ties, "empty nodes": emptyNodes} {
		if n < 10 {
			t.Errorf("only %d of 300 streams with %s", n, what)
		}
	}
}

// The streams make phases 2 and 3 matter: on many, a key of the true top K
// is in no node's local top K, so that an answer from phase 1 alone (or a
// phase 2 that sends nothing) would fail TestThresholdTopKExact.
func TestThresholdTopKNeedsPhase2(t *testing.T) {
	late := 0
	for seed := range uint64(300) {
		c := adversarialSplit(seed)
		truth, _ := exactCounts(c.ev)
		x, err := NewThresholdTopK(ThresholdTopKParams{Nodes: c.nodes}, 8, seed)
		if err != nil {
			t.Fatal(err)
		}
		x.Observe(c.ev)
		phase1 := map[uint64]bool{}
		for i := range x.nodes.tables {
			for _, it := range x.nodes.localTop(i, c.k) {
				phase1[it.Key] = true
			}
		}
		for _, it := range trueTop(truth, c.k) {
			if !phase1[it.Key] {
				late++
				break
			}
		}
	}
	if late < 20 {
		t.Errorf("only %d of 300 streams have a key of the true top K in no node's local top K", late)
	}
}
