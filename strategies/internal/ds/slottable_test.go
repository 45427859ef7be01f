package ds

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"countsim/workload"
)

// checkCountTable fails the test if the table's invariants do not hold or
// it does not hold exactly the counts of want.
func checkCountTable(t *testing.T, x *CountTable, want map[uint64]uint64) {
	t.Helper()
	checkHeld(t, x, x.All(), want)
	for k, c := range want {
		if got := x.GetAt(workload.Mix64(k^x.Seed), k); got != c {
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
			var x CountTable
			x.Init(8, 11)
			want := map[uint64]uint64{}
			for op := range 4000 {
				key := tt.key(r)
				if r.IntN(10) == 0 {
					key = 0
				}
				d := r.Uint64N(5) + 1
				x.Add(workload.Mix64(key^x.Seed), key, d)
				want[key] += d
				if err := x.Check(); err != nil {
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
			var x CountTable
			x.Init(8, 1)
			for i := range 100 {
				key := uint64(i + 1)
				if i == zeroAt {
					key = 0
				}
				before := len(x.Slots)
				h := workload.Mix64(key ^ x.Seed)
				if x.GetAt(h, key) != 0 {
					t.Fatalf("key %d: held before it is added", key)
				}
				x.Add(h, key, 1)
				if grew := len(x.Slots) != before; grew != (i == before/4*3) {
					t.Fatalf("key %d, the %dth: %d → %d slots", key, i+1, before, len(x.Slots))
				}
				if l := len(x.Slots); i+1 > l/4*3 || (l > 8 && i+1 <= l/8*3) {
					t.Fatalf("%d keys in %d slots", i+1, l)
				}
				if err := x.Check(); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := x.Bytes(), int64(len(x.Slots))*16; got != want {
				t.Errorf("bytes: got %d, want %d", got, want)
			}
		})
	}
}

// check notices a broken count table.
func TestCountTableCheckCatches(t *testing.T) {
	fresh := func() CountTable {
		var x CountTable
		x.Init(32, 9)
		for k := uint64(1); k <= 10; k++ {
			x.Add(workload.Mix64(k^x.Seed), k, k)
		}
		return x
	}
	home := func(x *CountTable, k uint64) uint64 { return workload.Mix64(k^x.Seed) & x.Mask }
	for _, tt := range []struct {
		name    string
		corrupt func(x *CountTable)
	}{
		{"count", func(x *CountTable) { x.N++ }},
		{"unreachable", func(x *CountTable) {
			// Move a key one slot further than its run allows.
			for i, s := range x.Slots {
				j, j2 := (uint64(i)+1)&x.Mask, (uint64(i)+2)&x.Mask
				if s.Count != 0 && home(x, s.Key) == uint64(i) && x.Slots[j].Count == 0 && x.Slots[j2].Count == 0 {
					x.Slots[i], x.Slots[j2] = CountSlot{}, s
					return
				}
			}
			t.Skip("no isolated key to move")
		}},
		{"duplicate", func(x *CountTable) {
			for j := home(x, 3); ; j = (j + 1) & x.Mask {
				if x.Slots[j].Count == 0 {
					x.Slots[j] = CountSlot{Key: 3, Count: 1}
					x.N++
					return
				}
			}
		}},
		{"stale key", func(x *CountTable) {
			for i := range x.Slots {
				if x.Slots[i].Count == 0 {
					x.Slots[i].Key = 99
					return
				}
			}
		}},
		{"mask", func(x *CountTable) { x.Mask = 7 }},
		{"room", func(x *CountTable) { x.room = 9 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := fresh()
			if err := x.Check(); err != nil {
				t.Fatal(err)
			}
			tt.corrupt(&x)
			if err := x.Check(); err == nil {
				t.Error("check passed a broken table")
			}
		})
	}
}
