package distinct

import (
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
)

// The binary form of an HLL, version 1. All integers are little-endian.
//
//	offset  size  field
//	0       4     magic "CSHL"
//	4       1     version, 1
//	5       1     p, 4..18
//	6       1     flags: bit 0 set = sparse; the other bits are 0
//	7       1     reserved, 0
//	8       8     seed
//	16            payload:
//	                dense:  m·6/8 bytes, the registers packed at 6 bits,
//	                        four in three bytes (register i is bits
//	                        6i..6i+5 of the payload), each ≤ q+1
//	                sparse: a uint32 count n ≤ 3m/32, then n uint32 pairs
//	                        index<<6 | rank, indexes strictly increasing,
//	                        index < m, rank in 1..q+1
//	end−4   4     CRC-32C (Castagnoli) of every byte before it
//
// The encoding is canonical: a sketch has exactly one, and decoding then
// encoding gives back the same bytes (the 6-bit fields use every bit of
// their three bytes, so packing is a bijection). The decoder checks the
// length that the header implies before it allocates anything (at most the
// m registers unpacked, a byte each as the sketch holds them, 262,144 bytes
// at p = 18, or the sparse table for 3m/32 pairs), so no length field can
// make it allocate much; it refuses truncated, oversize, corrupt and
// inconsistent input with an error wrapping ErrEncoding, and never panics. Decoding takes O(m) for a dense sketch and O(n) expected probes
// for n sparse pairs; a crafted encoding whose indexes crowd into few home
// slots can lengthen the probe runs to O(n²) probes at worst, n ≤ 3m/32
// (24,576 at p = 18): a bounded fraction of a second.

// ErrEncoding is wrapped by every error of a sketch decoder: input that is
// truncated, oversize, of an unknown format or version, fails its checksum,
// or holds values the sketch cannot hold.
var ErrEncoding = errors.New("strategies: invalid sketch encoding")

const (
	hllMagic      = "CSHL"
	hllVersion    = 1
	hllHeaderLen  = 16
	hllTrailerLen = 4
	hllFlagSparse = 1
)

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)

	_ encoding.BinaryMarshaler   = (*HLL)(nil)
	_ encoding.BinaryUnmarshaler = (*HLL)(nil)
)

// hllEncodedLen is the length of the encoding of a dense sketch at p, or of
// a sparse one holding n pairs.
func hllEncodedLen(p uint8, sparse bool, n int) int {
	if sparse {
		return hllHeaderLen + 4 + 4*n + hllTrailerLen
	}
	return hllHeaderLen + hllDenseBytes(int(p)) + hllTrailerLen
}

// MarshalBinary encodes the sketch in the versioned format above. It fails
// only for the zero HLL.
func (s *HLL) MarshalBinary() ([]byte, error) {
	if s.p == 0 {
		return nil, errors.New("hll: cannot encode a zero HLL (build one with NewHLL)")
	}
	sparse := s.dense == nil
	b := make([]byte, 0, hllEncodedLen(s.p, sparse, s.sp.n))
	b = append(b, hllMagic...)
	var flags byte
	if sparse {
		flags = hllFlagSparse
	}
	b = append(b, hllVersion, s.p, flags, 0)
	b = binary.LittleEndian.AppendUint64(b, s.seed)
	if sparse {
		pairs := make([]uint32, 0, s.sp.n)
		for _, e := range s.sp.slots {
			if e != 0 {
				pairs = append(pairs, e)
			}
		}
		slices.Sort(pairs) // index in the high bits: sorted by index
		b = binary.LittleEndian.AppendUint32(b, uint32(len(pairs)))
		for _, e := range pairs {
			b = binary.LittleEndian.AppendUint32(b, e)
		}
	} else {
		b = hllPack(b, s.dense)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli)), nil
}

// UnmarshalBinary replaces s with the sketch data encodes. On error, which
// wraps ErrEncoding, s is left unchanged. The zero HLL is a valid receiver.
func (s *HLL) UnmarshalBinary(data []byte) error {
	t, err := decodeHLL(data)
	if err != nil {
		return err
	}
	*s = *t
	return nil
}

func hllDecodeErr(format string, args ...any) error {
	return fmt.Errorf("hll: %w: "+format, append([]any{ErrEncoding}, args...)...)
}

// decodeHLL decodes and validates data; see the format above.
func decodeHLL(data []byte) (*HLL, error) {
	if len(data) < hllHeaderLen+hllTrailerLen {
		return nil, hllDecodeErr("truncated: %d bytes, less than the %d of a header and checksum", len(data), hllHeaderLen+hllTrailerLen)
	}
	if string(data[:4]) != hllMagic {
		return nil, hllDecodeErr("not an HLL encoding: magic %q, want %q", data[:4], hllMagic)
	}
	if v := data[4]; v != hllVersion {
		return nil, hllDecodeErr("version %d not supported (want %d)", v, hllVersion)
	}
	p := data[5]
	if p < hllMinP || p > hllMaxP {
		return nil, hllDecodeErr("precision %d not in %d..%d", p, hllMinP, hllMaxP)
	}
	flags := data[6]
	if flags&^hllFlagSparse != 0 || data[7] != 0 {
		return nil, hllDecodeErr("unknown flags %#x, reserved byte %#x", flags, data[7])
	}
	sparse := flags&hllFlagSparse != 0
	n := 0
	if sparse {
		if !hllSparseAllowed(p) {
			return nil, hllDecodeErr("sparse form at p = %d < %d", p, hllSparseMinP)
		}
		if len(data) < hllHeaderLen+4+hllTrailerLen {
			return nil, hllDecodeErr("truncated: %d bytes, no room for the sparse count", len(data))
		}
		c := binary.LittleEndian.Uint32(data[hllHeaderLen:])
		if c > uint32(hllSparseMaxEntries(p)) {
			return nil, hllDecodeErr("%d sparse pairs, more than the %d the sparse form holds at p = %d", c, hllSparseMaxEntries(p), p)
		}
		n = int(c)
	}
	switch want := hllEncodedLen(p, sparse, n); {
	case len(data) < want:
		return nil, hllDecodeErr("truncated: %d bytes, want %d", len(data), want)
	case len(data) > want:
		return nil, hllDecodeErr("oversize: %d bytes, want %d", len(data), want)
	}
	body, sum := data[:len(data)-hllTrailerLen], binary.LittleEndian.Uint32(data[len(data)-hllTrailerLen:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, hllDecodeErr("checksum %#08x, computed %#08x: corrupt", sum, got)
	}
	s := newHLL(p, binary.LittleEndian.Uint64(data[8:]))
	top := uint8(64 - p + 1)
	payload := body[hllHeaderLen:]
	if !sparse {
		d := make([]uint8, 1<<p)
		hllUnpack(d, payload)
		for i, r := range d {
			if r > top {
				return nil, hllDecodeErr("register %d holds %d, more than q+1 = %d", i, r, top)
			}
		}
		s.dense = d
		return s, nil
	}
	s.sp.init(hllSparseSlotsFor(n))
	prev := -1
	for i := range n {
		e := binary.LittleEndian.Uint32(payload[4+4*i:])
		idx, r := e>>6, uint8(e&63)
		switch {
		case idx >= 1<<p:
			return nil, hllDecodeErr("sparse pair %d: index %d not below m = %d", i, idx, 1<<p)
		case int(idx) <= prev:
			return nil, hllDecodeErr("sparse pair %d: index %d not above the previous %d", i, idx, prev)
		case r < 1 || r > top:
			return nil, hllDecodeErr("sparse pair %d: rank %d not in 1..%d", i, r, top)
		}
		prev = int(idx)
		s.sp.place(e)
	}
	return s, nil
}

// hllPack appends the registers d, each below 64, packed at 6 bits:
// register i at bits 6i..6i+5 of the output (little-endian), four registers
// in three bytes, len(d)·6/8 bytes; len(d) is a multiple of 8 (m ≥ 16).
// Eight registers, read as one little-endian word, close up into 48 bits in
// three steps, each moving the upper half of every lane down onto the
// lower: 16-bit lanes by 2 bits, 32-bit lanes by 4, the word by 8.
func hllPack(b []byte, d []uint8) []byte {
	n := len(b)
	b = slices.Grow(b, len(d)/8*6)[:n+len(d)/8*6]
	for out := b[n:]; len(d) >= 8 && len(out) >= 6; d, out = d[8:], out[6:] {
		w := binary.LittleEndian.Uint64(d)
		w = w&0x003f003f003f003f | w>>2&0x0fc00fc00fc00fc0
		w = w&0x00000fff00000fff | w>>4&0x00fff00000fff000
		w = w&0x0000000000ffffff | w>>8&0x0000ffffff000000
		binary.LittleEndian.PutUint32(out, uint32(w))
		binary.LittleEndian.PutUint16(out[4:], uint16(w>>32))
	}
	return b
}

// hllUnpack is the inverse of hllPack: it fills d, a multiple of 8 long,
// from the len(d)·6/8 bytes of packed, undoing hllPack's steps in reverse.
func hllUnpack(d []uint8, packed []byte) {
	for ; len(d) >= 8 && len(packed) >= 6; d, packed = d[8:], packed[6:] {
		w := uint64(binary.LittleEndian.Uint32(packed)) | uint64(binary.LittleEndian.Uint16(packed[4:]))<<32
		w = w&0x0000000000ffffff | w<<8&0x00ffffff00000000
		w = w&0x00000fff00000fff | w<<4&0x0fff00000fff0000
		w = w&0x003f003f003f003f | w<<2&0x3f003f003f003f00
		binary.LittleEndian.PutUint64(d, w)
	}
}
