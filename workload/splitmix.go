package workload

// SplitMix64, the one copy of it in countsim:
//
//	G. L. Steele Jr., D. Lea and C. H. Flood, "Fast splittable pseudorandom
//	number generators", OOPSLA 2014 (SplittableRandom's generator), in the
//	form of S. Vigna's splitmix64.c (https://prng.di.unimi.it/splitmix64.c).
//
// A generator's state walks the Weyl sequence s, s + γ, s + 2γ, … modulo 2^64
// with γ = 0x9e3779b97f4a7c15 = ⌊2^64/φ⌋ (odd), and each output is Mix64 of
// the state. Mix64 is the finaliser with D. Stafford's "Mix13" constants
// ("Better bit mixing: improving on MurmurHash3's 64-bit finalizer", 2011),
// a bijection on uint64. Since γ is odd, the 2^64 states of one period are
// all distinct, so a generator's outputs do not repeat within 2^64 draws.
//
// Mix64 also serves as a hash of uint64 keys (Mix64(key ⊕ seed)), and
// SplitMix64 as the way to derive seeds and constants from user seeds. None
// of this is cryptographic.

const (
	golden  = 0x9e3779b97f4a7c15 // γ = ⌊2^64/φ⌋, SplitMix64's increment
	mixMul1 = 0xbf58476d1ce4e5b9
	mixMul2 = 0x94d049bb133111eb
)

// The inverses of the multipliers modulo 2^64 (inverseOdd; a test checks
// them), as constants so that unmix64 inlines and loads nothing.
const (
	mixMul1Inv = 0x96de1b173f119089
	mixMul2Inv = 0x319642b2d24d8ec3
)

// Mix64 is the SplitMix64 finaliser (Stafford's Mix13): two rounds of
// xor-shift and multiplication by an odd constant, and a last xor-shift.
// It is a bijection on uint64 whose output bits each flip with probability
// close to 1/2 when one input bit flips. It inlines and costs a few ns.
func Mix64(x uint64) uint64 {
	x = (x ^ x>>30) * mixMul1
	x = (x ^ x>>27) * mixMul2
	return x ^ x>>31
}

// unmix64 is the inverse of Mix64: each step of Mix64 is invertible (see
// unshift and inverseOdd), so unmix64 undoes them in reverse order.
// The inverse of each xor-shift is written out (see unshift): it inlines
// and costs about what Mix64 does.
func unmix64(x uint64) uint64 {
	x = (x ^ x>>31 ^ x>>62) * mixMul2Inv
	x = (x ^ x>>27 ^ x>>54) * mixMul1Inv
	return x ^ x>>30 ^ x>>60
}

// unshift inverts x ⊕= x>>k: over GF(2), (1+S)^−1 = 1 + S + S² + … for the
// nilpotent shift S.
func unshift(y uint64, k uint) uint64 {
	x := y
	for sh := k; sh < 64; sh += k {
		x ^= y >> sh
	}
	return x
}

// inverseOdd returns the inverse of an odd m modulo 2^64 by Newton's
// iteration: m·m ≡ 1 (mod 8) gives 3 correct bits, and each step doubles them.
func inverseOdd(m uint64) uint64 {
	inv := m
	for range 5 { // 3 → 6 → 12 → 24 → 48 → 96 bits
		inv *= 2 - m*inv
	}
	return inv
}

// SplitMix64 returns the first output of a SplitMix64 generator at state x,
// Mix64(x + 0x9e3779b97f4a7c15): a well-mixed 64-bit value, used to derive
// constants and generator seeds from user seeds. It is a bijection on
// uint64, and what s.Uint64() returns first for s = SplitMix(x).
func SplitMix64(x uint64) uint64 {
	return Mix64(x + golden)
}

// SplitMix is the state of a SplitMix64 generator: SplitMix(seed) starts
// one, and its outputs are SplitMix64(seed), SplitMix64(seed + γ), … . Its
// period is 2^64, with no output repeated within it. *SplitMix is a
// math/rand/v2 Source: rand.New(&s) draws from it.
//
// A SplitMix is a plain value of 8 bytes: a copy repeats the sequence from
// the point of the copy, and it is not safe for concurrent use.
type SplitMix uint64

// Uint64 advances the state by γ and returns Mix64 of the new state: a
// uniformly distributed uint64. It inlines and never allocates.
func (s *SplitMix) Uint64() uint64 {
	*s += golden
	return Mix64(uint64(*s))
}
