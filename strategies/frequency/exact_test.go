package frequency

import (
	"fmt"
	"math"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// Counts equal a Go map's, whatever the shards and however small the
// size hint (the tables double as they fill).
func TestExactCounts(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 61, Keys: 30000, S: 0.9, Events: 150000, Scramble: true}.Gen()
	truth, n := designtest.ExactCounts(ev)
	for _, shards := range []int{1, 2, 7, 64} {
		for _, hint := range []uint64{0, 1, 100, uint64(len(truth))} {
			t.Run(fmt.Sprintf("shards=%d/hint=%d", shards, hint), func(t *testing.T) {
				x, err := NewExact(ExactParams{Shards: shards}, hint, 5)
				if err != nil {
					t.Fatal(err)
				}
				before := x.Bytes()
				x.Observe(ev)
				designtest.CheckInvariants(t, x)
				if x.Len() != len(truth) || x.n != n {
					t.Errorf("got %d keys, N = %d, want %d, %d", x.Len(), x.n, len(truth), n)
				}
				for k, c := range truth {
					if got := x.Count(k); got != c {
						t.Fatalf("Count(%d): got %d, want %d", k, got, c)
					}
				}
				if got := x.Count(math.MaxUint64); got != 0 {
					t.Errorf("Count of a key never seen: got %d, want 0", got)
				}
				grew := x.Bytes() > before
				if hint >= uint64(len(truth)) && grew {
					t.Errorf("grew from %d to %d bytes though sized for every key", before, x.Bytes())
				}
				if hint <= 1 && !grew {
					t.Errorf("did not grow from a hint of %d", hint)
				}
				var sum int64
				for _, b := range x.shardBytes() {
					sum += b
				}
				if sum != x.Bytes() || len(x.shardBytes()) != shards {
					t.Errorf("shard bytes %v do not add up to %d over %d shards", x.shardBytes(), x.Bytes(), shards)
				}
			})
		}
	}
}

// Sharded Top merges S local top-k lists; the answer equals the unsharded
// one, and the truth, for every k.
func TestExactShardedTop(t *testing.T) {
	ev := designtest.StreamSpec{Seed: 62, Keys: 20000, S: 1, Events: 100000, Scramble: true}.Gen()
	truth, _ := designtest.ExactCounts(ev)
	one, err := NewExact(ExactParams{Shards: 1}, uint64(len(truth)), 9)
	if err != nil {
		t.Fatal(err)
	}
	one.Observe(ev)
	for _, shards := range []int{2, 4, 16, 1024} {
		x, err := NewExact(ExactParams{Shards: shards}, uint64(len(truth)), 9)
		if err != nil {
			t.Fatal(err)
		}
		x.Observe(ev)
		for _, k := range []int{1, 10, 100, 50000} {
			t.Run(fmt.Sprintf("shards=%d/k=%d", shards, k), func(t *testing.T) {
				got, unsharded, want := x.Top(k), one.Top(k), designtest.TrueTop(truth, k)
				if len(got) != len(want) || len(unsharded) != len(want) {
					t.Fatalf("got %d items (unsharded %d), want %d", len(got), len(unsharded), len(want))
				}
				for i := range want {
					if got[i] != want[i] || unsharded[i] != want[i] {
						t.Fatalf("rank %d: got %+v (unsharded %+v), want %+v", i+1, got[i], unsharded[i], want[i])
					}
				}
			})
		}
	}
}

// The plan of the search example (WORKED-EXAMPLES.md, step 3): 4e8 phrases ×
// 100 B = 40 GB against 32 GB of data a server; 4 shards of 10 GB; 40
// candidates to merge for the top 10.
func TestExactPlan(t *testing.T) {
	typ, err := strategies.Lookup("exact")
	if err != nil {
		t.Fatal(err)
	}
	env := strategies.Env{Keys: 1e6, Events: 1e7, Top: 10, Full: strategies.Assumptions{Events: 2e9, Keys: 4e8, EntryBytes: 100, ServerBytes: 64e9, DataFraction: 0.5}}
	tests := []struct {
		shards int64
		want   []strategies.PlanLine
	}{
		{4, []strategies.PlanLine{
			{Metric: "bytes_full", Value: 40e9, Full: true},
			{Metric: "server_data_bytes", Value: 32e9, Full: true},
			{Metric: "fits_one_server", Value: 0, Full: true},
			{Metric: "shards_needed", Value: 2, Full: true},
			{Metric: "shards", Value: 4},
			{Metric: "bytes_per_shard", Value: 10e9, Full: true},
			{Metric: "merge_candidates", Value: 40},
			// 4 tables sized for 250,000 + 4·500 keys: 2^19 slots of 16 B each
			{Metric: "bytes", Value: 4 << 19 * 16},
		}},
		{1, []strategies.PlanLine{
			{Metric: "shards", Value: 1},
			{Metric: "bytes_per_shard", Value: 40e9, Full: true},
			{Metric: "merge_candidates", Value: 10},
			{Metric: "bytes", Value: 1 << 21 * 16},
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("shards=%d", tt.shards), func(t *testing.T) {
			p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "shards", Value: tt.shards}})
			if err != nil {
				t.Fatal(err)
			}
			plan := typ.Plan(p, env)
			designtest.CheckPlan(t, plan, tt.want)
			s, err := typ.Build(p, env)
			if err != nil {
				t.Fatal(err)
			}
			designtest.CheckPlannedBytes(t, plan, s)
		})
	}
}
