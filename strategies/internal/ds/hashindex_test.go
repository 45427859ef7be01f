package ds

import (
	"math/rand/v2"
	"testing"
)

// HashIndex against a Go map under a seeded mix of inserts, replaces and
// deletes at its capacity, with clustered keys (consecutive, so that runs
// form and the backward shift has work), Check after every change.
func TestHashIndexAgainstMap(t *testing.T) {
	for _, capacity := range []int{1, 4, 100, 1000} {
		r := rand.New(rand.NewPCG(uint64(capacity), 7))
		x := NewHashIndex(capacity, 99)
		want := map[uint64]int32{} // key → value
		keyOf := map[int32]uint64{}
		free := []int32{}
		for v := int32(1); v <= int32(capacity); v++ {
			free = append(free, v)
		}
		next := uint64(0)
		for step := range 20000 {
			key := next
			next += 1 + uint64(r.IntN(3))
			if r.IntN(50) == 0 {
				key = 0 // the key 0 is ordinary
			}
			i, got := x.Find(x.Hash(key))
			if got != want[key] {
				t.Fatalf("step %d: Find(%d) = %d, want %d", step, key, got, want[key])
			}
			switch {
			case got != 0:
				if !x.Delete(x.Hash(key), got) {
					t.Fatalf("step %d: Delete(%d) found nothing", step, key)
				}
				delete(want, key)
				delete(keyOf, got)
				free = append(free, got)
			case len(free) > 0:
				v := free[len(free)-1]
				free = free[:len(free)-1]
				x.Insert(i, x.Hash(key), v)
				want[key], keyOf[v] = v, key
			default: // full: key takes a random value's place
				v := int32(1 + r.IntN(capacity))
				old := keyOf[v]
				x.Replace(i, x.Hash(key), v, x.Hash(old))
				delete(want, old)
				want[key], keyOf[v] = v, key
			}
			if err := x.Check(); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if x.Len() != len(want) {
				t.Fatalf("step %d: Len %d, want %d", step, x.Len(), len(want))
			}
		}
		for k, v := range want {
			if got := x.Get(k); got != v {
				t.Fatalf("Get(%d) = %d, want %d", k, got, v)
			}
		}
		if x.Delete(x.Hash(next+1000), 1<<30) {
			t.Error("Delete of a value not held reported true")
		}
		if got := x.Bytes(); got != int64(FixedTableLen(capacity))*12 {
			t.Errorf("Bytes: got %d, want 12 B × %d slots", got, FixedTableLen(capacity))
		}
	}
}

// Check notices a broken index.
func TestHashIndexCheckCatches(t *testing.T) {
	build := func() *HashIndex {
		x := NewHashIndex(50, 3)
		for k := uint64(0); k < 50; k++ {
			i, _ := x.Find(x.Hash(k))
			x.Insert(i, x.Hash(k), int32(k+1))
		}
		return &x
	}
	slotOf := func(x *HashIndex, k uint64) uint64 { i, _ := x.Find(x.Hash(k)); return i }
	for name, corrupt := range map[string]func(x *HashIndex){
		"n":            func(x *HashIndex) { x.N++ },
		"duplicate id": func(x *HashIndex) { x.IDs[slotOf(x, 7)] = x.IDs[slotOf(x, 8)] },
		"empty hash":   func(x *HashIndex) { x.Hashes[slotOf(x, 1000)] = 5 },
		"unreachable": func(x *HashIndex) {
			i := slotOf(x, 9)
			x.Hashes[(i+1)&x.Mask], x.IDs[(i+1)&x.Mask] = x.Hashes[i], x.IDs[i]
			x.Hashes[i], x.IDs[i] = 0, 0
		},
	} {
		x := build()
		if err := x.Check(); err != nil {
			t.Fatal(err)
		}
		corrupt(x)
		if err := x.Check(); err == nil {
			t.Errorf("%s: Check passed a broken index", name)
		}
	}
}
