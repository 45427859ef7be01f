package frequency

import (
	"errors"
	"slices"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// The Merge fuzz targets hold every Merge to one rule: two sketches of
// differing shape or seed give an error and leave the receiver as it was;
// two of the same shape give exactly the sketch of both streams; nothing
// panics. The inputs are shapes, seeds and ids drawn from the fuzzer's
// bytes; the seed corpus runs with the ordinary tests.

func FuzzCountMinMerge(f *testing.F) {
	f.Add(uint16(100), uint8(3), uint16(100), uint8(3), uint64(1), uint64(1), false, []byte("0123456789abcdefXXXXXXXX"))
	f.Add(uint16(100), uint8(3), uint16(101), uint8(3), uint64(1), uint64(1), false, []byte("01234567"))
	f.Add(uint16(7), uint8(2), uint16(7), uint8(4), uint64(1), uint64(1), true, []byte("0123456789abcdef"))
	f.Add(uint16(64), uint8(5), uint16(64), uint8(5), uint64(1), uint64(2), false, []byte("0123456789abcdef"))
	f.Add(uint16(64), uint8(5), uint16(64), uint8(5), uint64(9), uint64(9), true, []byte("0123456789abcdefghijklmn"))
	f.Fuzz(func(t *testing.T, w1 uint16, d1 uint8, w2 uint16, d2 uint8, seed1, seed2 uint64, conservative bool, data []byte) {
		p1 := CountMinParams{Width: 1 + int(w1)%2000, Depth: 1 + int(d1)%countMinMaxDepth, Conservative: conservative}
		p2 := CountMinParams{Width: 1 + int(w2)%2000, Depth: 1 + int(d2)%countMinMaxDepth, Conservative: conservative}
		ids := designtest.FuzzIDs(data)
		half := len(ids) / 2
		a, err := NewCountMin(p1, seed1)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewCountMin(p2, seed2)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range ids[:half] {
			a.add(id, 1+id%5)
		}
		for _, id := range ids[half:] {
			b.add(id, 1+id%5)
		}
		before := slices.Clone(a.rows.Cells)
		err = a.merge(b)
		if p1.Width != p2.Width || p1.Depth != p2.Depth || seed1 != seed2 {
			if !errors.Is(err, strategies.ErrMergeParams) && !errors.Is(err, strategies.ErrMergeSeed) {
				t.Fatalf("merge of %+v/%d into %+v/%d: %v, want a merge error", p2, seed2, p1, seed1, err)
			}
			if !slices.Equal(a.rows.Cells, before) {
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
		if conservative {
			return // the sum of conservative sketches bounds, but is not, the joint one
		}
		whole, _ := NewCountMin(p1, seed1)
		for _, id := range ids {
			whole.add(id, 1+id%5)
		}
		if !slices.Equal(a.rows.Cells, whole.rows.Cells) || a.rows.N != whole.rows.N {
			t.Fatal("the merged sketch is not the sketch of both streams")
		}
	})
}
