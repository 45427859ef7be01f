package ds

import (
	"fmt"
	"iter"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"countsim/workload"
)

// tablePut sets the value of key, which must not be the zero V.
func tablePut[V comparable](x *Table[V], key uint64, v V) { *x.RefAt(x.Hash(key), key) = v }

// heldKey returns a key of want, chosen by r whatever the map's order.
func heldKey[V any](r *rand.Rand, want map[uint64]V) uint64 {
	keys := slices.Sorted(maps.Keys(want))
	return keys[r.IntN(len(keys))]
}

// heldTable is what checkHeld reads of a table: Table[V] and CountTable.
type heldTable[V comparable] interface {
	Check() error
	Len() int
}

// checkHeld fails the test if the table's invariants do not hold, or its
// length or what all (the table's iterator) yields is not exactly want.
func checkHeld[V comparable](t *testing.T, x heldTable[V], all iter.Seq2[uint64, V], want map[uint64]V) {
	t.Helper()
	if err := x.Check(); err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(want) {
		t.Fatalf("len: got %d, want %d", x.Len(), len(want))
	}
	n := 0
	for k, v := range all {
		n++
		if w, ok := want[k]; !ok || w != v {
			t.Fatalf("all yields key %d = %v, want %v (held %v)", k, v, w, ok)
		}
	}
	if n != len(want) {
		t.Fatalf("all yields %d keys, want %d", n, len(want))
	}
}

// checkTable fails the test if the table's invariants do not hold or it does
// not hold exactly the keys and values of want.
func checkTable[V comparable](t *testing.T, x *Table[V], want map[uint64]V) {
	t.Helper()
	checkHeld(t, x, x.all(), want)
	for k, v := range want {
		if got := x.Get(k); got != v {
			t.Fatalf("get(%d): got %v, want %v", k, got, v)
		}
		if got := x.GetAt(x.Hash(k), k); got != v {
			t.Fatalf("getAt(%d): got %v, want %v", k, got, v)
		}
		if i, got := x.Find(x.Hash(k), k); got != v || x.keys[i] != k {
			t.Fatalf("find(%d): got slot %d holding %d = %v, want %v", k, i, x.keys[i], got, v)
		}
	}
}

// A fixed table against a Go map under random puts, deletes and
// replacements of clustered keys, the key 0 among them, with check after
// every operation: what Space-Saving, the count-min heap and the dedup
// window do to it.
func TestTableFixedVsMap(t *testing.T) {
	for _, capacity := range []int{1, 5, 64, 1000} {
		t.Run(fmt.Sprintf("cap=%d", capacity), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(capacity), 9))
			x := NewFixedTable[int32](capacity, 7)
			if got, want := x.slots(), FixedTableLen(capacity); got != want || 2*capacity > got {
				t.Fatalf("slots: got %d, want %d ≥ 2·%d", got, want, capacity)
			}
			want := map[uint64]int32{}
			universe := uint64(2 * capacity)
			for op := range 20 * capacity {
				key := r.Uint64N(universe) << 3 // clustered keys, key 0 included
				if _, ok := want[key]; ok && r.IntN(2) == 0 {
					if !x.Del(key) {
						t.Fatalf("op %d: del(%d) found nothing", op, key)
					}
					delete(want, key)
				} else if ok || len(want) < capacity {
					v := int32(r.IntN(1<<20)) + 1
					tablePut(&x, key, v)
					want[key] = v
				} else {
					// Full: the new key replaces a key held, as Space-Saving
					// evicts, in the slot find gives.
					old := heldKey(r, want)
					slot, v := x.Find(x.Hash(key), key)
					if v != 0 || x.vals[slot] != 0 {
						t.Fatalf("op %d: find(%d) of a key not held: slot %d, value %d", op, key, slot, v)
					}
					v = int32(r.IntN(1<<20)) + 1
					x.Replace(slot, key, v, x.Hash(old), old)
					delete(want, old)
					want[key] = v
				}
				if x.Del(universe << 4) {
					t.Fatalf("op %d: deleted a key never put", op)
				}
				if err := x.Check(); err != nil {
					t.Fatalf("op %d: %v", op, err)
				}
				if x.Len() != len(want) {
					t.Fatalf("op %d: got len %d, want %d", op, x.Len(), len(want))
				}
			}
			checkTable(t, &x, want)
			if got := x.Get(universe << 4); got != 0 {
				t.Errorf("get of a key never put: got %d", got)
			}
		})
	}
}

// bytes is 8 B of key and the size of the value a slot; a fixed table has
// at least twice its capacity in slots.
func TestTableSizes(t *testing.T) {
	for _, tt := range []struct {
		got, want int64
	}{
		{TableSlotBytes[uint64](), 16},
		{TableSlotBytes[int32](), 12},
		{int64(FixedTableLen(1000)), 2048},
		{int64(FixedTableLen(1024)), 2048},
		{int64(FixedTableLen(1)), 8},
		{int64(TableLen(1000)), 2048},
		{int64(TableLen(768)), 2048},
		{int64(TableLen(767)), 1024},
	} {
		if tt.got != tt.want {
			t.Errorf("got %d, want %d", tt.got, tt.want)
		}
	}
	x := NewFixedTable[int32](1000, 1)
	if got, want := x.Bytes(), int64(2048*12); got != want {
		t.Errorf("bytes: got %d, want %d", got, want)
	}
}

// The key 0 is an ordinary key: it is put, read, deleted and counted
// against the capacity like any other; a key beyond the capacity panics.
func TestTableKeyZero(t *testing.T) {
	x := NewFixedTable[int32](2, 5)
	if x.Get(0) != 0 || x.Del(0) {
		t.Fatal("an empty table holds the key 0")
	}
	tablePut(&x, 0, 7)
	tablePut(&x, 8, 9)
	if v := x.Get(0); v != 7 || x.Len() != 2 {
		t.Fatalf("get(0): got %d, len %d", v, x.Len())
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "over its capacity") {
				t.Errorf("a third key in a table of capacity 2: recovered %v", r)
			}
		}()
		tablePut(&x, 16, 1)
	}()
	tablePut(&x, 0, 3) // changing a key held is no new key
	if !x.Del(0) || x.Get(0) != 0 || x.Len() != 1 {
		t.Fatalf("after del(0): get %d, len %d", x.Get(0), x.Len())
	}
	tablePut(&x, 16, 1) // the room the key 0 left
	checkTable(t, &x, map[uint64]int32{8: 9, 16: 1})
}

// Deletion by backward shift (Knuth 6.4, Algorithm R): in a run of keys that
// share a home, wrapping round the end of the array, deleting any one moves
// the later ones back so that no slot is left empty inside the run and every
// key is found.
func TestTableBackwardShift(t *testing.T) {
	x := NewFixedTable[int32](8, 3) // 16 slots
	mask := x.mask
	home := func(k uint64) uint64 { return x.Hash(k) & mask }
	// Three keys homed at the last slot, one at slot 0 and one at slot 1.
	var run, at0, at1 []uint64
	for k := uint64(1); len(run) < 3 || len(at0) < 1 || len(at1) < 1; k++ {
		switch home(k) {
		case mask:
			run = append(run, k)
		case 0:
			at0 = append(at0, k)
		case 1:
			at1 = append(at1, k)
		}
	}
	order := []uint64{run[0], run[1], at0[0], run[2], at1[0]}
	for _, victim := range order {
		t.Run(fmt.Sprintf("del=%d", victim), func(t *testing.T) {
			y := NewFixedTable[int32](8, 3)
			want := map[uint64]int32{}
			for i, k := range order {
				tablePut(&y, k, int32(i+1))
				want[k] = int32(i + 1)
			}
			// Slots mask, 0, 1, 2, 3 hold the five keys in insertion order.
			for i, k := range order {
				if s := (mask + uint64(i)) & mask; y.keys[s] != k {
					t.Fatalf("slot %d: got key %d, want %d", s, y.keys[s], k)
				}
			}
			if !y.Del(victim) {
				t.Fatalf("del(%d) found nothing", victim)
			}
			delete(want, victim)
			checkTable(t, &y, want)
			// The run stays contiguous: the four keys in slots mask, 0, 1, 2.
			for i := range 4 {
				if s := (mask + uint64(i)) & mask; y.vals[s] == 0 {
					t.Errorf("slot %d empty inside the run", s)
				}
			}
			if s := uint64(3); y.keys[s] != 0 || y.vals[s] != 0 {
				t.Errorf("slot 3: key %d value %d, want empty", y.keys[s], y.vals[s])
			}
		})
	}
}

// check notices a broken table.
func TestTableCheckCatches(t *testing.T) {
	fresh := func() Table[int32] {
		x := NewFixedTable[int32](10, 9) // 32 slots
		for k := uint64(1); k <= 10; k++ {
			tablePut(&x, k, int32(k))
		}
		return x
	}
	slotOf := func(x *Table[int32], key uint64) int { return slices.Index(x.keys, key) }
	emptySlot := func(x *Table[int32]) int { return slices.Index(x.vals, 0) }
	for _, tt := range []struct {
		name    string
		corrupt func(x *Table[int32])
	}{
		{"count", func(x *Table[int32]) { x.n++ }},
		{"unreachable", func(x *Table[int32]) {
			// Move a key one slot further than its run allows.
			for i, k := range x.keys {
				j, j2 := (uint64(i)+1)&x.mask, (uint64(i)+2)&x.mask
				if x.vals[i] != 0 && x.Hash(k)&x.mask == uint64(i) && x.vals[j] == 0 && x.vals[j2] == 0 {
					x.keys[i], x.vals[i], x.keys[j2], x.vals[j2] = 0, 0, k, x.vals[i]
					return
				}
			}
			t.Skip("no isolated key to move")
		}},
		{"duplicate", func(x *Table[int32]) {
			i := slotOf(x, 3)
			for j := (uint64(i) + 1) & x.mask; ; j = (j + 1) & x.mask {
				if x.vals[j] == 0 {
					x.keys[j], x.vals[j] = 3, 1
					x.n++
					return
				}
			}
		}},
		{"stale key", func(x *Table[int32]) { x.keys[emptySlot(x)] = 99 }},
		{"mask", func(x *Table[int32]) { x.mask = 7 }},
		{"room", func(x *Table[int32]) { x.Room = 17 }},
		{"over capacity", func(x *Table[int32]) { x.Room = 9 }},
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

// The per-event operations allocate nothing.
func TestTableAllocs(t *testing.T) {
	x := NewFixedTable[int32](1000, 2)
	keys := make([]uint64, 2000)
	for i := range keys {
		keys[i] = workload.Mix64(uint64(i))
	}
	for _, k := range keys[:1000] {
		tablePut(&x, k, 1)
	}
	allocs := testing.AllocsPerRun(10, func() {
		// Replace the first half by the second, then back.
		for i, k := range keys[:1000] {
			k2 := keys[1000+i]
			if x.Get(k) == 0 || x.GetAt(x.Hash(k), k) == 0 {
				t.Fatal("lost a key")
			}
			slot, _ := x.Find(x.Hash(k2), k2)
			x.Replace(slot, k2, 2, x.Hash(k), k)
		}
		for i, k := range keys[:1000] {
			k2 := keys[1000+i]
			if !x.DelAt(x.Hash(k2), k2) {
				t.Fatal("lost a key")
			}
			*x.RefAt(x.Hash(k), k)++
		}
	})
	if allocs != 0 {
		t.Errorf("get, find, replace, del and refAt allocated %v times a run", allocs)
	}
	checkTable(t, &x, func() map[uint64]int32 {
		want := map[uint64]int32{}
		for _, k := range keys[:1000] {
			want[k] = 1
		}
		return want
	}())
}
