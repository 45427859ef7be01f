package distinct

import (
	"errors"
	"slices"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

func FuzzHLLMerge(f *testing.F) {
	f.Add(uint8(10), uint8(10), uint64(1), uint64(1), false, true, []byte("0123456789abcdefXXXXXXXX"))
	f.Add(uint8(4), uint8(5), uint64(1), uint64(1), false, false, []byte("01234567"))
	f.Add(uint8(12), uint8(12), uint64(1), uint64(3), true, true, []byte("0123456789abcdef"))
	f.Add(uint8(6), uint8(6), uint64(7), uint64(7), true, false, make([]byte, 8*300))
	f.Fuzz(func(t *testing.T, p1, p2 uint8, seed1, seed2 uint64, dense1, dense2 bool, data []byte) {
		q1, q2 := hllMinP+int(p1)%(hllMaxP-hllMinP+1), hllMinP+int(p2)%(hllMaxP-hllMinP+1)
		ids := designtest.FuzzIDs(data)
		for i := range ids { // spread the ids so that some sketches turn dense
			ids[i] += uint64(i)
		}
		half := len(ids) / 2
		a, err := NewHLL(HLLParams{Precision: q1, Dense: dense1}, seed1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewHLL(HLLParams{Precision: q2, Dense: dense2}, seed2)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:half] {
			a.Insert(id)
		}
		for _, id := range ids[half:] {
			b.Insert(id)
		}
		before, _ := a.MarshalBinary()
		err = a.Merge(b)
		if q1 != q2 || seed1 != seed2 {
			if !errors.Is(err, strategies.ErrMergeParams) && !errors.Is(err, strategies.ErrMergeSeed) {
				t.Fatalf("merge of p %d seed %d into p %d seed %d: %v, want a merge error", q2, seed2, q1, seed1, err)
			}
			if after, _ := a.MarshalBinary(); !slices.Equal(after, before) {
				t.Fatal("a refused merge changed the receiver")
			}
			return
		}
		if err != nil {
			t.Fatalf("merge of equal shapes: %v", err)
		}
		if err := a.check(); err != nil {
			t.Fatalf("after merge: %v", err)
		}
		whole, _ := NewHLL(HLLParams{Precision: q1, Dense: true}, seed1)
		for _, id := range ids {
			whole.Insert(id)
		}
		for i := range uint32(1) << q1 {
			if a.register(i) != whole.register(i) {
				t.Fatalf("register %d: merged %d, the sketch of both streams %d", i, a.register(i), whole.register(i))
			}
		}
	})
}

func FuzzExactDistinctMerge(f *testing.F) {
	f.Add(uint64(1), uint64(2), []byte("0123456789abcdef\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Add(uint64(5), uint64(5), make([]byte, 8*40))
	f.Fuzz(func(t *testing.T, seed1, seed2 uint64, data []byte) {
		ids := designtest.FuzzIDs(data)
		half := len(ids) / 2
		a, b := NewExactDistinct(4, seed1), NewExactDistinct(4, seed2)
		union := map[uint64]bool{}
		for i, id := range ids {
			if i < half {
				a.Insert(id)
			} else {
				b.Insert(id)
			}
			union[id] = true
		}
		if err := a.Merge(b); err != nil {
			t.Fatalf("merge: %v", err)
		}
		if got := a.Len(); got != len(union) {
			t.Fatalf("merged %d distinct ids, want %d", got, len(union))
		}
		if err := a.check(); err != nil {
			t.Fatalf("after merge: %v", err)
		}
	})
}
