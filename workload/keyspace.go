package workload

import "math/rand/v2"

// A keySpace is how a Stream and a Timed stream draw keys: a rank from
// Zipf(n, s) (rejection-inversion, see zipf.go), mapped to its key by the
// seed's Scrambler when the stream scrambles, else the key is the rank
// itself (1 the hottest). The map is a bijection, so the pmf of the keys is
// the pmf of the ranks.
//
// A key is drawn as keyOf(rankPCG(p)) or keyOf(rankSplitMix(g)). Both
// inline, so a loop that draws keys pays one call an event, no more than
// with a Zipf of its own, and holds the rank of every key it draws. Each
// stream brings its own randomness: a Stream draws ranks from a PCG per
// chunk (ChunkRand), a Timed stream from a SplitMix restarted at a hash of
// each event's ID. Either is drawn from directly, with no rand.Rand and so
// no interface call per draw, and gives exactly the ranks Zipf.Rank gives
// from rand.New of it. With one rank every key is hot: a caller may skip
// the draw, and whatever it costs to prepare the generator, and take hot
// (the Timed stream does; a Stream draws anyway, as ChunkRand promises).
//
// A keySpace is immutable after newKeySpace and safe for concurrent use;
// the generator passed to a draw is not.
type keySpace struct {
	zipf     *Zipf     // Zipf(n, s)
	scr      Scrambler // NewScrambler(seed)
	scramble bool      // key = scr.Key(rank), else key = rank
	single   bool      // n == 1: every key is hot
	hot      uint64    // keyOf(1)
}

// newKeySpace returns the key space of n ranks at exponent s, scrambled by
// the seed's Scrambler if asked. n and s are checked as NewZipf checks them.
// Set-up is O(1).
func newKeySpace(seed, n uint64, s float64, scramble bool) (keySpace, error) {
	z, err := NewZipf(n, s)
	if err != nil {
		return keySpace{}, err
	}
	k := keySpace{zipf: z, scr: NewScrambler(seed), scramble: scramble, single: n == 1}
	k.hot = k.keyOf(1)
	return k, nil
}

// rankPCG draws a rank in 1..n from p, the rank Zipf.Rank(rand.New(p))
// would draw: O(1) expected time.
func (k *keySpace) rankPCG(p *rand.PCG) uint64 { return k.zipf.rankPCG(p) }

// rankSplitMix draws a rank in 1..n from g, the rank
// Zipf.Rank(rand.New(g)) would draw: O(1) expected time.
func (k *keySpace) rankSplitMix(g *SplitMix) uint64 { return k.zipf.rankSplitMix(g) }

// keyOf returns the key of a rank: scr.Key(rank) when scrambling, else rank.
func (k *keySpace) keyOf(rank uint64) uint64 {
	if k.scramble {
		return k.scr.Key(rank)
	}
	return rank
}

// prob returns the probability of a rank, rank^−s / H(n, s), and 0 outside
// 1..n. It is also the probability of keyOf(rank).
func (k *keySpace) prob(rank uint64) float64 { return k.zipf.Prob(rank) }
