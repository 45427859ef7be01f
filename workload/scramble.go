package workload

// A Scrambler maps ranks to keys by a seeded bijection on uint64, so the hot
// keys of a Zipf stream are spread over the whole key space instead of being
// the small ids 1, 2, 3 (which would flatter any design that hashes or
// shards by key range). Because the map is a bijection the pmf of the keys is
// exactly the pmf of the ranks, and Rank recovers the rank of any key.
//
// Key computes post ⊕ Mix64(rank ⊕ pre), where pre and post are derived from
// the seed by SplitMix64 (see splitmix.go for the citations). Each step is
// invertible: xor with a constant is its own inverse, and Mix64 is undone by
// unmix64 (x ⊕= x>>k is undone by x ⊕ x>>k ⊕ x>>2k ⊕ …, and multiplication
// by an odd constant by multiplication by its inverse modulo 2^64).
//
// A Scrambler is a small value: copy it freely and use it from any number of
// goroutines at once.
type Scrambler struct {
	pre, post uint64
}

// NewScrambler returns the Scrambler of a seed. Different seeds give
// unrelated bijections.
func NewScrambler(seed uint64) Scrambler {
	pre := SplitMix64(seed)
	return Scrambler{pre: pre, post: SplitMix64(pre)}
}

// Key returns the key of rank. Key is a bijection on uint64.
func (s Scrambler) Key(rank uint64) uint64 {
	return Mix64(rank^s.pre) ^ s.post
}

// Rank returns the rank whose Key is key: s.Rank(s.Key(r)) == r for every r.
func (s Scrambler) Rank(key uint64) uint64 {
	return unmix64(key^s.post) ^ s.pre
}
