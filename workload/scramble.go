package workload

// A Scrambler maps ranks to keys by a seeded bijection on uint64, so the hot
// keys of a Zipf stream are spread over the whole key space instead of being
// the small ids 1, 2, 3 (which would flatter any design that hashes or
// shards by key range). Because the map is a bijection the pmf of the keys is
// exactly the pmf of the ranks, and Rank recovers the rank of any key.
//
// Key computes post ⊕ mix(rank ⊕ pre), where pre and post are derived from the
// seed and mix is the splitmix64 finaliser (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014; the constants are
// from Stafford's "Mix13" variant of MurmurHash3's fmix64). Each step is
// invertible: xor with a constant is its own inverse, x ⊕= x>>k is undone by
// x ⊕ x>>k ⊕ x>>2k ⊕ …, and multiplication by an odd constant is undone by
// multiplication by its inverse modulo 2^64.
//
// A Scrambler is a small value: copy it freely and use it from any number of
// goroutines at once.
type Scrambler struct {
	pre, post uint64
}

const (
	mixMul1 = 0xbf58476d1ce4e5b9
	mixMul2 = 0x94d049bb133111eb
	golden  = 0x9e3779b97f4a7c15 // 2^64 / φ, splitmix64's increment
)

var (
	mixMul1Inv = inverseOdd(mixMul1)
	mixMul2Inv = inverseOdd(mixMul2)
)

// NewScrambler returns the Scrambler of a seed. Different seeds give
// unrelated bijections.
func NewScrambler(seed uint64) Scrambler {
	pre := splitmix64(seed)
	return Scrambler{pre: pre, post: splitmix64(pre)}
}

// Key returns the key of rank. Key is a bijection on uint64.
func (s Scrambler) Key(rank uint64) uint64 {
	return mix64(rank^s.pre) ^ s.post
}

// Rank returns the rank whose Key is key: s.Rank(s.Key(r)) == r for every r.
func (s Scrambler) Rank(key uint64) uint64 {
	return unmix64(key^s.post) ^ s.pre
}

// mix64 is the splitmix64 finaliser, a bijection on uint64.
func mix64(x uint64) uint64 {
	x = (x ^ x>>30) * mixMul1
	x = (x ^ x>>27) * mixMul2
	return x ^ x>>31
}

// unmix64 is the inverse of mix64.
func unmix64(x uint64) uint64 {
	x = unshift(x, 31) * mixMul2Inv
	x = unshift(x, 27) * mixMul1Inv
	return unshift(x, 30)
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

// splitmix64 returns the splitmix64 output for state x: a well-mixed 64-bit
// value, used to derive constants and generator seeds from user seeds.
func splitmix64(x uint64) uint64 {
	return mix64(x + golden)
}
