package distinct

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
)

// registersOf is h's 16,384 registers, a byte each.
func registersOf(h *HLL) []uint8 {
	regs := make([]uint8, 1<<14)
	for i := range regs {
		regs[i] = h.register(uint32(i))
	}
	return regs
}

// TestRedisHLLBytes: the strings of hyperloglog.c's own examples — an empty
// HLL is XZERO:16384; registers 1000, 1020 and 1021 at 2, 3 and 3 are
// XZERO:1000 VAL:2,1 ZERO:19 VAL:3,2 XZERO:15362 — and a register above 32
// (beyond VAL) makes the string dense, 12,304 bytes.
func TestRedisHLLBytes(t *testing.T) {
	header := func(enc byte) string { return "HYLL" + string([]byte{enc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80}) }
	h := newHLL(14, 1)
	h.dense = make([]uint8, 1<<14)
	b, err := AppendRedisHLL(nil, h)
	if err != nil || string(b) != header(1)+"\x7f\xff" {
		t.Errorf("empty: %q, %v; want the header and XZERO:16384", b, err)
	}
	h.setMax(1000, 2)
	h.setMax(1020, 3)
	h.setMax(1021, 3)
	b, _ = AppendRedisHLL([]byte("kept"), h)
	want := "kept" + header(1) + string([]byte{0x40 | 999>>8, 999 & 0xff, 0x80 | 1<<2, 18, 0x80 | 2<<2 | 1, 0x40 | 15361>>8, 15361 & 0xff})
	if string(b) != want {
		t.Errorf("three registers: % x, want % x", b, want)
	}
	h.setMax(5, 33)
	b, _ = AppendRedisHLL(nil, h)
	if len(b) != 12_304 || b[4] != 0 {
		t.Errorf("a register of 33: %d bytes, encoding %d; want dense, 12,304", len(b), b[4])
	}
	regs := make([]uint8, 1<<14)
	if err := MergeRedisHLL(regs, b); err != nil || regs[5] != 33 || regs[1000] != 2 || regs[1021] != 3 || regs[1022] != 0 {
		t.Errorf("decoding it: %v, registers 5, 1000, 1021, 1022 = %v", err, []uint8{regs[5], regs[1000], regs[1021], regs[1022]})
	}
	if _, err := AppendRedisHLL(nil, newHLL(12, 1)); err == nil {
		t.Error("an HLL of p = 12 in Redis's encoding: no error")
	}
}

// TestRedisHLLRoundTrip: for sketches of 0 to 10^6 ids, the string decodes
// to exactly the sketch's registers; it is sparse while short (under
// 3,000 bytes), dense after; merging two strings gives the registers of
// the merged sketch.
func TestRedisHLLRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 14))
	var prev *HLL
	for _, n := range []int{0, 1, 10, 100, 1000, 2000, 5000, 50_000, 1_000_000} {
		h, _ := NewHLL(HLLParams{Precision: 14}, 3)
		for range n {
			h.Insert(r.Uint64())
		}
		b, err := AppendRedisHLL(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		if sparse := b[4] == 1; sparse != (len(b) <= 3000) || !sparse && len(b) != 12_304 {
			t.Errorf("n=%d: %d bytes, encoding %d", n, len(b), b[4])
		}
		got := make([]uint8, 1<<14)
		if err := MergeRedisHLL(got, b); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if want := registersOf(h); !slices.Equal(got, want) {
			t.Fatalf("n=%d: the registers decoded differ from the sketch's", n)
		}
		if est := estimateRegisters(got); est != h.Estimate() {
			t.Errorf("n=%d: estimate of the registers %v, the sketch's %v", n, est, h.Estimate())
		}
		if prev != nil {
			pb, _ := AppendRedisHLL(nil, prev)
			if err := MergeRedisHLL(got, pb); err != nil {
				t.Fatal(err)
			}
			u := h.clone()
			if err := u.Merge(prev); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, registersOf(u)) {
				t.Errorf("n=%d: merging two strings is not the union's registers", n)
			}
		}
		prev = h
	}
}

// TestRedisHLLRefused: what is not Redis's HLL is refused with
// ErrEncoding, the registers left as they were.
func TestRedisHLLRefused(t *testing.T) {
	h, _ := NewHLL(HLLParams{Precision: 14}, 3)
	for i := range uint64(100) {
		h.Insert(i)
	}
	sparse, _ := AppendRedisHLL(nil, h)
	for i := range uint64(100_000) {
		h.Insert(i)
	}
	dense, _ := AppendRedisHLL(nil, h)
	high := slices.Clone(dense)
	high[16] = 52 // register 0 above 51
	edit := func(b []byte, f func([]byte) []byte) []byte { return f(slices.Clone(b)) }
	for name, b := range map[string][]byte{
		"empty":          nil,
		"short":          sparse[:15],
		"magic":          edit(sparse, func(b []byte) []byte { b[0] = 'X'; return b }),
		"encoding 2":     edit(sparse, func(b []byte) []byte { b[4] = 2; return b }),
		"dense short":    dense[:len(dense)-1],
		"dense long":     append(slices.Clone(dense), 0),
		"register 52":    high,
		"sparse short":   sparse[:len(sparse)-1],
		"sparse long":    append(slices.Clone(sparse), 0),
		"sparse xzero":   append(slices.Clone(sparse[:16]), 0x40),
		"sparse as many": append(slices.Clone(sparse[:16]), 0x7f, 0xff, 0x00),
	} {
		regs := make([]uint8, 1<<14)
		regs[7] = 9
		err := MergeRedisHLL(regs, b)
		if !errors.Is(err, ErrEncoding) {
			t.Errorf("%s: %v, want ErrEncoding", name, err)
		}
		if regs[7] != 9 || slices.ContainsFunc(regs[8:], func(r uint8) bool { return r != 0 }) || regs[0] != 0 {
			t.Errorf("%s: the registers changed", name)
		}
	}
	if err := MergeRedisHLL(make([]uint8, 100), sparse); err == nil || errors.Is(err, ErrEncoding) {
		t.Errorf("100 registers: %v, want an error of the caller's, not the string's", err)
	}
}

// FuzzMergeRedisHLL: any bytes are a documented error (the registers
// unchanged) or registers of at most 51; a string that decodes, encoded
// from those registers, decodes to them again.
func FuzzMergeRedisHLL(f *testing.F) {
	h, _ := NewHLL(HLLParams{Precision: 14}, 1)
	for i := range uint64(300) {
		h.Insert(i)
	}
	s, _ := AppendRedisHLL(nil, h)
	f.Add(s)
	f.Add([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xff"))
	f.Add([]byte("HYLL\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		regs := make([]uint8, 1<<14)
		if err := MergeRedisHLL(regs, b); err != nil {
			if !errors.Is(err, ErrEncoding) || slices.ContainsFunc(regs, func(r uint8) bool { return r != 0 }) {
				t.Fatalf("%v, registers changed: %v", err, !errors.Is(err, ErrEncoding))
			}
			return
		}
		if slices.ContainsFunc(regs, func(r uint8) bool { return r > 51 }) {
			t.Fatal("a register above 51 decoded")
		}
		g := newHLL(14, 1)
		g.dense = slices.Clone(regs)
		again, err := AppendRedisHLL(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		back := make([]uint8, 1<<14)
		if err := MergeRedisHLL(back, again); err != nil || !bytes.Equal(back, regs) {
			t.Fatalf("re-encoded registers decode to others (%v)", err)
		}
	})
}
