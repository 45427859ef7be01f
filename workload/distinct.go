package workload

// DistinctIDs generates write events whose actors are distinct random
// 64-bit ids: the input of an accuracy profile of a distinct counter
// (HyperLogLog and its kin), which must know the exact number of distinct
// ids fed without keeping a set of them.
//
// The ids are the outputs of one SplitMix64 generator started at the seed
// (Steele, Lea and Flood 2014; see splitmix.go): the k-th id is
// Mix64(seed + k·γ). They never repeat within 2^64 draws: γ is odd, so the
// states seed + k·γ are distinct modulo 2^64 for 2^64 consecutive k, and
// Mix64 is a bijection, so distinct states give distinct ids. The count of
// distinct ids is therefore the count of events, exactly; and the ids look
// uniform to a sketch that hashes them (SplitMix64 passes BigCrush).
//
// Each event has Op Write, Delta 1, Actor the id, ID the running count
// (1, 2, … over all batches), and At 0, Key 0. A DistinctIDs is a plain
// value: it is not safe for concurrent use, and a copy repeats the
// sequence from the point of the copy.
type DistinctIDs struct {
	src SplitMix // the ids' generator
	n   uint64   // events generated so far
}

// NewDistinctIDs returns the generator of the ids of a seed. Different seeds
// give different sequences, but only the ids within one sequence are
// guaranteed distinct.
func NewDistinctIDs(seed uint64) DistinctIDs { return DistinctIDs{src: SplitMix(seed)} }

// Fill overwrites every event of batch with the next events of the
// sequence, in order. It allocates nothing and costs one Mix64 an event.
func (d *DistinctIDs) Fill(batch []Event) {
	src, n := d.src, d.n // locals, so the loop keeps them in registers
	for i := range batch {
		n++
		batch[i] = Event{Actor: src.Uint64(), Delta: 1, ID: n, Op: Write}
	}
	d.src, d.n = src, n
}

// Count returns the number of events generated so far: the ID of the last
// one, and the number of distinct ids among them.
func (d *DistinctIDs) Count() uint64 { return d.n }
