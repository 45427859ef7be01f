package distinct

import (
	"fmt"
)

// Redis's own string of a HyperLogLog (hyperloglog.c), the bytes a GET of a
// PFADD key reads: a 16-byte header — "HYLL", the encoding (0 dense, 1
// sparse), three zero bytes, the cached cardinality as 8 little-endian
// bytes whose top bit set means "stale" — then the 16,384 registers of
// p = 14:
//
//   - dense: 12,288 bytes, six bits a register, register i in bits
//     6i..6i+5 counted from the least significant bit of the first byte
//     (the layout of this package's own encoding); 12,304 bytes in all;
//   - sparse: run-length opcodes over the registers in order — ZERO
//     00xxxxxx (1..64 zero registers), XZERO 01xxxxxx yyyyyyyy (1..16,384
//     zeros, 14 bits), VAL 1vvvvvxx (1..4 registers of value 1..32) —
//     which Redis keeps while the string stays within hll-sparse-max-bytes
//     (3,000 by default, header included) and no register exceeds 32.
//
// An application that cannot merge keys on the server (on a Redis Cluster,
// keys of different slots) GETs each key and merges the registers itself:
// MergeRedisHLL. The simulated cluster answers such a GET with
// AppendRedisHLL, so that the bytes it moves are as many as Redis's.

const (
	redisHLLHeader   = 16
	redisHLLDense    = 0
	redisHLLSparse   = 1
	redisHLLRegs     = 1 << pfPrecision
	redisHLLDenseLen = redisHLLHeader + redisHLLRegs*6/8 // 12,304
	// redisHLLSparseMax is Redis's default hll-sparse-max-bytes.
	redisHLLSparseMax = 3000
	redisHLLMaxRank   = 64 - pfPrecision + 1 // 51: the largest register at p = 14
)

// AppendRedisHLL appends to dst the string Redis holds for a HyperLogLog
// with h's registers: sparse where Redis would keep it sparse (the
// shortest run-length form within 3,000 bytes, every register ≤ 32), dense
// otherwise, with the cached cardinality marked stale. Redis turns a key
// dense once and for all, so a key that was larger before a register grew
// may be dense on Redis where this is sparse; its registers are the same.
// h must be of precision 14, Redis's.
func AppendRedisHLL(dst []byte, h *HLL) ([]byte, error) {
	if h.p != pfPrecision {
		return dst, fmt.Errorf("hll: Redis's encoding holds p = %d, not %d", pfPrecision, h.p)
	}
	var regs [redisHLLRegs]uint8
	for i := range regs {
		regs[i] = h.register(uint32(i))
	}
	header := func(enc byte) []byte {
		return append(dst, 'H', 'Y', 'L', 'L', enc, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1<<7)
	}
	if n, ok := redisSparseLen(&regs); ok && redisHLLHeader+n <= redisHLLSparseMax {
		return appendRedisSparse(header(redisHLLSparse), &regs), nil
	}
	out := header(redisHLLDense)
	var packed [redisHLLRegs * 6 / 8]byte
	for i, r := range regs {
		bit := 6 * i
		packed[bit/8] |= r << (bit % 8)
		if bit%8 > 2 {
			packed[bit/8+1] |= r >> (8 - bit%8)
		}
	}
	return append(out, packed[:]...), nil
}

// redisSparseLen is the length of the sparse opcodes of regs, and false
// when a register exceeds 32 (VAL cannot hold it).
func redisSparseLen(regs *[redisHLLRegs]uint8) (int, bool) {
	n := 0
	for i := 0; i < len(regs); {
		j := i + 1
		for j < len(regs) && regs[j] == regs[i] {
			j++
		}
		run := j - i
		switch v := regs[i]; {
		case v > 32:
			return 0, false
		case v == 0 && run <= 64:
			n++
		case v == 0:
			n += 2
		default:
			n += (run + 3) / 4
		}
		i = j
	}
	return n, true
}

// appendRedisSparse appends the sparse opcodes of regs, every register ≤ 32.
func appendRedisSparse(dst []byte, regs *[redisHLLRegs]uint8) []byte {
	for i := 0; i < len(regs); {
		j := i + 1
		for j < len(regs) && regs[j] == regs[i] {
			j++
		}
		run := j - i
		switch v := regs[i]; {
		case v == 0 && run <= 64:
			dst = append(dst, byte(run-1)) // ZERO
		case v == 0:
			dst = append(dst, 0x40|byte((run-1)>>8), byte(run-1)) // XZERO
		default:
			for left := run; left > 0; left -= 4 {
				dst = append(dst, 0x80|(v-1)<<2|byte(min(left, 4)-1)) // VAL
			}
		}
		i = j
	}
	return dst
}

// MergeRedisHLL raises each of the 16,384 registers regs to the one of the
// Redis HyperLogLog string b where b's is larger: the union of the
// HyperLogLogs, as PFMERGE computes it, done by the application. It
// refuses, leaving regs unchanged, a string that is not Redis's dense or
// sparse HLL (a wrong magic, encoding or length, a sparse form that does
// not cover exactly 16,384 registers, a register above 51), with an error
// wrapping ErrEncoding; it never panics. O(16,384).
func MergeRedisHLL(regs []uint8, b []byte) error {
	if len(regs) != redisHLLRegs {
		return fmt.Errorf("hll: merging a Redis HLL into %d registers, want %d", len(regs), redisHLLRegs)
	}
	if len(b) < redisHLLHeader || string(b[:4]) != "HYLL" {
		return fmt.Errorf("%w: not a Redis HLL (no HYLL header in %d bytes)", ErrEncoding, len(b))
	}
	body := b[redisHLLHeader:]
	switch b[4] {
	case redisHLLDense:
		if len(b) != redisHLLDenseLen {
			return fmt.Errorf("%w: a dense Redis HLL of %d bytes, want %d", ErrEncoding, len(b), redisHLLDenseLen)
		}
		get := func(i int) uint8 {
			bit := 6 * i
			v := uint16(body[bit/8])
			if bit/8+1 < len(body) {
				v |= uint16(body[bit/8+1]) << 8
			}
			return uint8(v>>(bit%8)) & 63
		}
		for i := range regs {
			if get(i) > redisHLLMaxRank {
				return fmt.Errorf("%w: register %d of a dense Redis HLL is %d, above %d", ErrEncoding, i, get(i), redisHLLMaxRank)
			}
		}
		for i := range regs {
			regs[i] = max(regs[i], get(i))
		}
		return nil
	case redisHLLSparse:
		// Walk the opcodes twice: to check them, then to apply them.
		for apply := range 2 {
			idx := 0
			for k := 0; k < len(body); k++ {
				op := body[k]
				run, v := 0, uint8(0)
				switch {
				case op&0xc0 == 0: // ZERO
					run = int(op&0x3f) + 1
				case op&0xc0 == 0x40: // XZERO
					if k+1 == len(body) {
						return fmt.Errorf("%w: a sparse Redis HLL ends inside an XZERO", ErrEncoding)
					}
					k++
					run = (int(op&0x3f)<<8 | int(body[k])) + 1
				default: // VAL
					run, v = int(op&3)+1, (op>>2)&0x1f+1
				}
				if idx+run > redisHLLRegs {
					return fmt.Errorf("%w: a sparse Redis HLL covers more than %d registers", ErrEncoding, redisHLLRegs)
				}
				if apply == 1 && v > 0 {
					for i := idx; i < idx+run; i++ {
						regs[i] = max(regs[i], v)
					}
				}
				idx += run
			}
			if idx != redisHLLRegs {
				return fmt.Errorf("%w: a sparse Redis HLL covers %d registers, want %d", ErrEncoding, idx, redisHLLRegs)
			}
		}
		return nil
	}
	return fmt.Errorf("%w: Redis HLL encoding %d (allowed: 0 dense, 1 sparse)", ErrEncoding, b[4])
}

// estimateRegisters is Ertl's estimate over 16,384 registers, as a
// PFCOUNT of the union computes it.
func estimateRegisters(regs []uint8) float64 {
	var c [64]int
	hllDenseHistogram(regs, &c)
	return ertlEstimate(&c, pfPrecision, hllAlphaInf)
}
