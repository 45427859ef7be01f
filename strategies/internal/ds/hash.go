package ds

import "math/bits"

// Hashing shared by the designs. Every hash is seeded from Env.Seed, so the
// same seed builds the same design and a different seed an independent one:
// a design derives its per-row and per-table seeds from Env.Seed with
// workload's SplitMix64 generator (workload.SplitMix), so nearby seeds still
// give unrelated hashes, and its tables index with workload.Mix64(key ^
// seed), SplitMix64's finaliser. The count-min sketch hashes a key once, to
// three Mix64 of it, and derives its rows from them (CountMin); the seeded
// XXH64 below serves HLL and the hot counters' stripes.

// Reduce maps a uniform 64-bit hash to [0, n) by Lemire's fast range
// reduction: the high word of h·n. It uses the hash's high bits, with a
// bias below n/2^64.
func Reduce(h, n uint64) uint64 {
	hi, _ := bits.Mul64(h, n)
	return hi
}

// The XXH64 constants (Collet, xxHash).
const (
	xxPrime1 uint64 = 11400714785074694791
	xxPrime2 uint64 = 14029467366897019727
	xxPrime3 uint64 = 1609587929392839161
	xxPrime4 uint64 = 9650029242287828579
	xxPrime5 uint64 = 2870177450012600261
)

// XXH64 of the 16 bytes rowSeed‖key (both little-endian, hash seed 0) is a
// seeded hash of a key: each seed gives its own hash function. HLL hashes
// its ids with it, and the hot counters pick a key's stripes with it. It is
// computed in three steps so that nothing is recomputed per event that does
// not depend on the event:
//
//	RowState(rowSeed)  once per seed, when the design is built
//	KeyLane(key)       once per event
//	RowHash(st, lane)  once per seed and event
//
// RowHash(RowState(s), KeyLane(k)) == xxhash.Sum64(le(s)‖le(k)) exactly; a
// test pins it against github.com/cespare/xxhash/v2.

// xxRound0 is XXH64's round(0, v).
func xxRound0(v uint64) uint64 { return bits.RotateLeft64(v*xxPrime2, 31) * xxPrime1 }

// RowState is XXH64's state after the first 8-byte lane, rowSeed, of a
// 16-byte input.
func RowState(rowSeed uint64) uint64 {
	h := xxPrime5 + 16
	h ^= xxRound0(rowSeed)
	return bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
}

// KeyLane is XXH64's processing of the second lane, the key.
func KeyLane(key uint64) uint64 { return xxRound0(key) }

// RowHash finishes XXH64: the second lane, then the avalanche.
func RowHash(state, lane uint64) uint64 {
	h := state ^ lane
	h = bits.RotateLeft64(h, 27)*xxPrime1 + xxPrime4
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

// NextPow2 returns the least power of two ≥ n (1 for n ≤ 1).
func NextPow2(n uint64) uint64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(n-1)
}
