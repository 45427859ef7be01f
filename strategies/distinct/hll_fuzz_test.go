package distinct

import (
	"bytes"
	"errors"
	"maps"
	"math"
	"slices"
	"testing"
)

// FuzzHLLUnmarshal: any input either decodes to a sketch whose invariants
// hold and which encodes back to the same bytes (the format is canonical),
// or is refused with an error wrapping ErrEncoding that leaves the receiver
// unchanged; never a panic. Each input is tried as given and with its
// checksum recomputed, so that mutations reach the checks behind the CRC.
// The seed corpus holds valid encodings of sparse and dense sketches at
// several precisions and the broken inputs of TestHLLDecodeRefuses; plain
// `go test` replays it and testdata/fuzz/FuzzHLLUnmarshal.
func FuzzHLLUnmarshal(f *testing.F) {
	for _, tt := range []struct {
		p     int
		n     uint64
		dense bool
	}{{4, 0, false}, {4, 100, false}, {6, 3, false}, {6, 100, false}, {8, 20, false}, {10, 0, false},
		{10, 50, false}, {10, 50, true}, {12, 5000, false}, {14, 1000, false}, {14, 1 << 15, false}, {18, 10, false}} {
		s, err := NewHLL(HLLParams{Precision: tt.p, Dense: tt.dense}, tt.n)
		if err != nil {
			f.Fatal(err)
		}
		for id := range tt.n {
			s.Insert(id)
		}
		b, _ := s.MarshalBinary()
		f.Add(b)
	}
	_, _, bad := hllBadEncodings(f)
	for _, name := range slices.Sorted(maps.Keys(bad)) {
		f.Add(bad[name])
	}

	recv, err := NewHLL(HLLParams{Precision: 9}, 123)
	if err != nil {
		f.Fatal(err)
	}
	for id := range uint64(40) {
		recv.Insert(id)
	}
	want, _ := recv.MarshalBinary()

	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, hllFixCRC(data)} {
			r := recv.clone()
			err := r.UnmarshalBinary(in)
			if err != nil {
				if !errors.Is(err, ErrEncoding) {
					t.Fatalf("error %v does not wrap ErrEncoding", err)
				}
				if got, _ := r.MarshalBinary(); !bytes.Equal(got, want) {
					t.Fatalf("refused input changed the receiver")
				}
				continue
			}
			if err := r.check(); err != nil {
				t.Fatalf("decoded sketch breaks its invariants: %v", err)
			}
			out, err := r.MarshalBinary()
			if err != nil || !bytes.Equal(out, in) {
				t.Fatalf("round trip: got %x (%v), want the input %x", out, err, in)
			}
			if e := r.Estimate(); math.IsNaN(e) || e < 0 {
				t.Fatalf("estimate %v", e)
			}
			var d HLL // the zero HLL decodes too
			if err := d.UnmarshalBinary(in); err != nil || d.Estimate() != r.Estimate() {
				t.Fatalf("zero receiver: %v, estimate %v, want %v", err, d.Estimate(), r.Estimate())
			}
			r.Insert(7) // the decoded sketch is usable
			if err := r.check(); err != nil {
				t.Fatalf("after an insertion: %v", err)
			}
		}
	})
}
