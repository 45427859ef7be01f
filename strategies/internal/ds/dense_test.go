package ds

import (
	"math/rand/v2"
	"testing"
)

// A dense table against a Go map: keys numbered in order of first sight,
// values summed, reset forgetting everything, key 0 an ordinary key, and
// check after every change.
func TestDense(t *testing.T) {
	const seed = 99
	var d Dense[int64] // the zero table is ready
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 3 {
		want := map[uint64]int64{}
		var order []uint64
		for i := range 20000 {
			key := r.Uint64N(3000) * 0x9e3779b97f4a7c15 // 0 among them
			if _, ok := want[key]; !ok {
				order = append(order, key)
			}
			delta := int64(r.IntN(10) - 3)
			want[key] += delta
			*d.Ref(key, seed) += delta
			if i%997 == 0 {
				if err := d.Check(seed); err != nil {
					t.Fatalf("round %d, after %d adds: %v", round, i, err)
				}
			}
		}
		if d.Len() != len(want) {
			t.Fatalf("round %d: %d keys, want %d", round, d.Len(), len(want))
		}
		for n, key := range order {
			if got := d.Find(key, seed); got != int32(n) || d.Keys[n] != key || d.Vals[n] != want[key] {
				t.Fatalf("round %d: key %d numbered %d (find %d) with %d, want %d", round, key, n, got, d.Vals[n], want[key])
			}
		}
		if d.Find(12345, seed) != -1 {
			t.Fatal("found a key never added")
		}
		slots := len(d.tab)
		d.Reset()
		if err := d.Check(seed); err != nil || d.Len() != 0 || len(d.tab) != slots || d.Find(order[0], seed) != -1 {
			t.Fatalf("round %d: after reset: %v, %d keys, %d slots (was %d)", round, err, d.Len(), len(d.tab), slots)
		}
	}
	if n := testing.AllocsPerRun(100, func() { *d.Ref(7, seed)++ }); n != 0 {
		t.Errorf("ref of a key held allocates %v times", n)
	}
}
