package strategies

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"countsim/workload"
)

// Counts equal a Go map's, whatever the shards and however small the
// size hint (the tables double as they fill).
func TestExactCounts(t *testing.T) {
	ev := streamSpec{seed: 61, keys: 30000, s: 0.9, events: 150000, scramble: true}.gen()
	truth, n := exactCounts(ev)
	for _, shards := range []int{1, 2, 7, 64} {
		for _, hint := range []uint64{0, 1, 100, uint64(len(truth))} {
			t.Run(fmt.Sprintf("shards=%d/hint=%d", shards, hint), func(t *testing.T) {
				x, err := NewExact(ExactParams{Shards: shards}, hint, 5)
				if err != nil {
					t.Fatal(err)
				}
				before := x.Bytes()
				x.Observe(ev)
				checkInvariants(t, x)
				if x.Len() != len(truth) || x.N() != n {
					t.Errorf("got %d keys, N = %d, want %d, %d", x.Len(), x.N(), len(truth), n)
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
				for _, b := range x.ShardBytes() {
					sum += b
				}
				if sum != x.Bytes() || len(x.ShardBytes()) != shards {
					t.Errorf("shard bytes %v do not add up to %d over %d shards", x.ShardBytes(), x.Bytes(), shards)
				}
			})
		}
	}
}

// Sharded Top merges S local top-k lists; the answer equals the unsharded
// one, and the truth, for every k.
func TestExactShardedTop(t *testing.T) {
	ev := streamSpec{seed: 62, keys: 20000, s: 1, events: 100000, scramble: true}.gen()
	truth, _ := exactCounts(ev)
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
				got, unsharded, want := x.Top(k), one.Top(k), trueTop(truth, k)
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
	typ, err := Lookup("exact")
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Keys: 1e6, Events: 1e7, Top: 10, Full: Assumptions{Events: 2e9, Keys: 4e8, EntryBytes: 100, ServerBytes: 64e9, DataFraction: 0.5}}
	tests := []struct {
		shards int64
		want   []PlanLine
	}{
		{4, []PlanLine{
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
		{1, []PlanLine{
			{Metric: "shards", Value: 1},
			{Metric: "bytes_per_shard", Value: 40e9, Full: true},
			{Metric: "merge_candidates", Value: 10},
			{Metric: "bytes", Value: 1 << 21 * 16},
		}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("shards=%d", tt.shards), func(t *testing.T) {
			p, err := typ.Decode([]Param{{Key: "shards", Value: tt.shards}})
			if err != nil {
				t.Fatal(err)
			}
			plan := typ.Plan(p, env)
			checkPlan(t, plan, tt.want)
			s, err := typ.Build(p, env)
			if err != nil {
				t.Fatal(err)
			}
			checkPlannedBytes(t, plan, s)
		})
	}
}

// checkCountTable fails the test if the table's invariants do not hold or
// it does not hold exactly the counts of want.
func checkCountTable(t *testing.T, x *countTable, want map[uint64]uint64) {
	t.Helper()
	checkHeld(t, x, want)
	for k, c := range want {
		if got := x.getAt(workload.Mix64(k^x.seed), k); got != c {
			t.Fatalf("getAt(%d): got %d, want %d", k, got, c)
		}
	}
}

// A count table from 8 slots against a Go map: counts added one by one
// (add) and a batch at a time (observe), random, clustered and dense keys,
// the key 0 among them; check after every operation.
func TestCountTableVsMap(t *testing.T) {
	for _, tt := range []struct {
		name string
		key  func(r *rand.Rand) uint64
	}{
		{"random", func(r *rand.Rand) uint64 { return r.Uint64() >> r.IntN(64) }},
		{"clustered", func(r *rand.Rand) uint64 { return r.Uint64N(3000) << 20 }},
		{"dense", func(r *rand.Rand) uint64 { return r.Uint64N(3000) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, 4))
			var x countTable
			x.init(8, 11)
			want := map[uint64]uint64{}
			batch := make([]workload.Event, 7)
			for op := range 4000 {
				key := tt.key(r)
				if r.IntN(10) == 0 {
					key = 0
				}
				if op%2 == 0 {
					d := r.Uint64N(5) + 1
					x.add(workload.Mix64(key^x.seed), key, d)
					want[key] += d
				} else {
					var sum uint64
					for i := range batch {
						batch[i] = workload.Event{Key: tt.key(r), Delta: r.Int64N(4) - 1, Op: workload.Write}
						if i == 3 {
							batch[i].Op = workload.Read
						}
						if batch[i].Op == workload.Write && batch[i].Delta > 0 {
							want[batch[i].Key] += uint64(batch[i].Delta)
							sum += uint64(batch[i].Delta)
						}
					}
					if got := x.observe(batch); got != sum {
						t.Fatalf("op %d: observe counted %d, want %d", op, got, sum)
					}
				}
				if err := x.check(); err != nil {
					t.Fatalf("op %d: %v", op, err)
				}
			}
			checkCountTable(t, &x, want)
		})
	}
}

// A count table doubles exactly when a new key would take it beyond 3/4 of
// its slots, the key 0 like any other, so its length is the least power of
// two ≥ 8 of which the keys are at most 3/4; bytes is 16 B a slot.
func TestCountTableGrowth(t *testing.T) {
	for _, zeroAt := range []int{-1, 0, 5, 6, 40} {
		t.Run(fmt.Sprintf("zero-at=%d", zeroAt), func(t *testing.T) {
			var x countTable
			x.init(8, 1)
			for i := range 100 {
				key := uint64(i + 1)
				if i == zeroAt {
					key = 0
				}
				before := len(x.slots)
				h := workload.Mix64(key ^ x.seed)
				if x.getAt(h, key) != 0 {
					t.Fatalf("key %d: held before it is added", key)
				}
				x.add(h, key, 1)
				if grew := len(x.slots) != before; grew != (i == before/4*3) {
					t.Fatalf("key %d, the %dth: %d → %d slots", key, i+1, before, len(x.slots))
				}
				if l := len(x.slots); i+1 > l/4*3 || (l > 8 && i+1 <= l/8*3) {
					t.Fatalf("%d keys in %d slots", i+1, l)
				}
				if err := x.check(); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := x.bytes(), int64(len(x.slots))*16; got != want {
				t.Errorf("bytes: got %d, want %d", got, want)
			}
		})
	}
}

// check notices a broken count table.
func TestCountTableCheckCatches(t *testing.T) {
	fresh := func() countTable {
		var x countTable
		x.init(32, 9)
		for k := uint64(1); k <= 10; k++ {
			x.add(workload.Mix64(k^x.seed), k, k)
		}
		return x
	}
	home := func(x *countTable, k uint64) uint64 { return workload.Mix64(k^x.seed) & x.mask }
	for _, tt := range []struct {
		name    string
		corrupt func(x *countTable)
	}{
		{"count", func(x *countTable) { x.n++ }},
		{"unreachable", func(x *countTable) {
			// Move a key one slot further than its run allows.
			for i, s := range x.slots {
				j, j2 := (uint64(i)+1)&x.mask, (uint64(i)+2)&x.mask
				if s.count != 0 && home(x, s.key) == uint64(i) && x.slots[j].count == 0 && x.slots[j2].count == 0 {
					x.slots[i], x.slots[j2] = countSlot{}, s
					return
				}
			}
			t.Skip("no isolated key to move")
		}},
		{"duplicate", func(x *countTable) {
			for j := home(x, 3); ; j = (j + 1) & x.mask {
				if x.slots[j].count == 0 {
					x.slots[j] = countSlot{key: 3, count: 1}
					x.n++
					return
				}
			}
		}},
		{"stale key", func(x *countTable) {
			for i := range x.slots {
				if x.slots[i].count == 0 {
					x.slots[i].key = 99
					return
				}
			}
		}},
		{"mask", func(x *countTable) { x.mask = 7 }},
		{"room", func(x *countTable) { x.room = 9 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := fresh()
			if err := x.check(); err != nil {
				t.Fatal(err)
			}
			tt.corrupt(&x)
			if err := x.check(); err == nil {
				t.Error("check passed a broken table")
			}
		})
	}
}
