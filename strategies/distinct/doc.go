// Package distinct holds the designs that count distinct ids: the unique
// viewers of the cricket final over two days (seeds/000 step 2).
//
// [HLL] ("hll") is HyperLogLog (Flajolet et al.) with Ertl's estimator,
// 2^p six-bit registers, sparse until dense pays, within 1.04/√m; it
// merges into the union and encodes to bytes and back (a corrupt encoding
// is an error, never a panic). [ExactDistinct] ("exact-distinct") is the
// exact set, 8 B an id; [PFHLL] ("redis-hll") is Redis's own HLL through
// the store (PFADD, PFCOUNT, PFMERGE); [WindowedHLL] ("windowed-hll") an
// HLL a bucket over a sliding window.
//
// Designs are not safe for concurrent use.
//
// The contracts ([strategies.Distinct], [strategies.DistinctUnion],
// [strategies.WindowDistinct]) are package strategies'.
package distinct
