package workload

// Ratings streams: items rated on a star scale, a few items rated often
// and most rarely, for the ratings scenario of issue 10 (naive average,
// Bayesian average, Wilson lower bound).

import (
	"fmt"
	"math"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// MaxStarsWidth is the most steps a rating scale may span (ScaleMax −
// ScaleMin): a rating costs one draw a step.
const MaxStarsWidth = 10

// RatingsConfig describes a Ratings stream. Every field is checked by
// NewRatings.
type RatingsConfig struct {
	// Seed makes the stream reproducible: the same config gives the same
	// events byte for byte. The item keys depend on Seed alone (as a
	// Stream's: NewScrambler(Seed).Key(rank) when scrambled).
	Seed uint64
	// Label names the stream; with Seed it seeds the ratings and the items'
	// hidden qualities.
	Label string
	// Ratings is the number of rating events; it must be at least 1.
	Ratings int64
	// Items is the number of items n; it must be in [1, 10^9].
	Items uint64
	// S is the Zipf exponent of the items' popularity; it must be finite
	// and ≥ 0 (0 is uniform).
	S float64
	// Scramble maps the item of popularity rank r to the key
	// NewScrambler(Seed).Key(r); otherwise the key is r (1 the most rated).
	Scramble bool
	// ScaleMin and ScaleMax are the lowest and highest number of stars; it
	// must hold that 0 ≤ ScaleMin < ScaleMax ≤ ScaleMin + MaxStarsWidth.
	ScaleMin, ScaleMax int64
	// QualityMin and QualityMax bound the items' hidden qualities (their
	// mean stars), drawn uniformly between them; they must be finite with
	// ScaleMin ≤ QualityMin ≤ QualityMax ≤ ScaleMax.
	QualityMin, QualityMax float64
	// ChunkSize is the number of events per chunk; it must be ≥ 0, and 0
	// means DefaultChunkSize. It only cuts the sequence: the events are the
	// same whatever the chunk size.
	ChunkSize int
}

// Ratings is a stream of star ratings of items. Item popularity is Zipf:
// the item of rank r gets each rating with probability r^−s / H(n, s), so
// the head is rated thousands of times and the tail a handful of times or
// once. Each item has a hidden true quality, its mean star value, and each
// rating of it is drawn around that quality.
//
// The laws, exactly. With [lo, hi] the scale (ScaleMin, ScaleMax), w = hi −
// lo, and [qmin, qmax] the qualities:
//
//   - quality: item rank r has q(r) = qmin + (qmax − qmin)·u(r), where
//     u(r) = (SplitMix64(qbase ⊕ r) >> 11)·2^−53 is uniform on [0, 1) and
//     qbase a hash of (Seed, Label); so the qualities are uniform on
//     [qmin, qmax) and independent of popularity.
//   - stars: a rating of an item of quality q is lo + Binomial(w, p) with
//     p = (q − lo)/w: w coin flips, each heads with probability p (to within
//     2^−53), counted. Its mean is exactly q (to within w·2^−53) and its
//     variance w·p(1−p); on the 1..5 scale an item of quality 4.0 gets
//     5 stars with probability 0.75^4 = 0.316 and 4 or 5 with 0.738.
//   - up and down votes are not in the stream: a design that needs them
//     reads them off the stars (the Wilson design counts stars ≥ its `up`
//     parameter, 4 by default, as an up vote).
//
// Events. Event j (from 0) is Op Write, Key the item's key, Delta the
// stars, Actor 0, ID j + 1 and At j (ns: one rating a nanosecond; the
// ratings scenario does not use time).
//
// Determinism. Event j is a pure function of (Seed, Label, j): a SplitMix64
// generator started at Mix64(base ⊕ j), base a hash of (Seed, Label), draws
// the item's rank by rejection-inversion ([Zipf]) and then the w flips, each
// its next output's top 53 bits against p·2^53. So the chunk size only cuts
// the sequence, and chunks may be built in any order by any number of
// goroutines. NewRatings is O(1); a rating costs about 20 ns.
type Ratings struct {
	cfg    RatingsConfig
	keys   keySpace
	chunks int
	base   uint64 // event j's generator starts at Mix64(base ^ j)
	qbase  uint64 // item r's quality is drawn from SplitMix64(qbase ^ r)
	width  int64  // ScaleMax − ScaleMin
	qspan  float64
}

// NewRatings validates cfg and returns its stream.
func NewRatings(cfg RatingsConfig) (*Ratings, error) {
	if cfg.Ratings < 1 {
		return nil, fmt.Errorf("workload: ratings %d not >= 1", cfg.Ratings)
	}
	if cfg.Items < 1 || cfg.Items > MaxZipfN {
		return nil, fmt.Errorf("workload: ratings items %d not in [1, 1e9]", cfg.Items)
	}
	if math.IsNaN(cfg.S) || math.IsInf(cfg.S, 0) || cfg.S < 0 {
		return nil, fmt.Errorf("workload: ratings exponent s %v not a finite number >= 0", cfg.S)
	}
	if cfg.ScaleMin < 0 || cfg.ScaleMax <= cfg.ScaleMin || cfg.ScaleMax-cfg.ScaleMin > MaxStarsWidth {
		return nil, fmt.Errorf("workload: ratings scale %d..%d not a range of 1 to %d steps from 0 up",
			cfg.ScaleMin, cfg.ScaleMax, MaxStarsWidth)
	}
	lo, hi := float64(cfg.ScaleMin), float64(cfg.ScaleMax)
	if !(cfg.QualityMin >= lo && cfg.QualityMin <= cfg.QualityMax && cfg.QualityMax <= hi) { // NaN fails too
		return nil, fmt.Errorf("workload: ratings quality %v..%v not within the scale %d..%d, min <= max",
			cfg.QualityMin, cfg.QualityMax, cfg.ScaleMin, cfg.ScaleMax)
	}
	size, err := chunkSize("ratings", cfg.ChunkSize)
	if err != nil {
		return nil, err
	}
	cfg.ChunkSize = size
	chunks, err := chunkCount("ratings", cfg.Ratings, size)
	if err != nil {
		return nil, err
	}
	keys, err := newKeySpace(cfg.Seed, cfg.Items, cfg.S, cfg.Scramble)
	if err != nil {
		return nil, err // unreachable: Items and S were checked above
	}
	const (
		tag        = 0x726174696e677321 // "ratings!"
		qualityTag = 0x7175616c69747921 // "quality!"
	)
	label := xxhash.Sum64String(cfg.Label)
	return &Ratings{
		cfg:    cfg,
		keys:   keys,
		chunks: chunks,
		base:   SplitMix64(SplitMix64(cfg.Seed^tag) ^ label),
		qbase:  SplitMix64(SplitMix64(cfg.Seed^qualityTag) ^ label),
		width:  cfg.ScaleMax - cfg.ScaleMin,
		qspan:  cfg.QualityMax - cfg.QualityMin,
	}, nil
}

// Config returns the stream's config, with ChunkSize resolved (never 0).
func (s *Ratings) Config() RatingsConfig { return s.cfg }

// Chunks returns the number of chunks, ⌈Ratings/ChunkSize⌉.
func (s *Ratings) Chunks() int { return s.chunks }

// KeyOf returns the key of the item of popularity rank rank.
func (s *Ratings) KeyOf(rank uint64) uint64 { return s.keys.keyOf(rank) }

// RankOf returns the popularity rank of the item whose key is key: the
// inverse of KeyOf. A key the stream can draw has a rank in 1..Items.
func (s *Ratings) RankOf(key uint64) uint64 {
	if s.keys.scramble {
		return s.keys.scr.Rank(key)
	}
	return key
}

// Prob returns the probability that a rating is of the item of this rank:
// rank^−S / H(Items, S), and 0 outside 1..Items.
func (s *Ratings) Prob(rank uint64) float64 { return s.keys.prob(rank) }

// Quality returns the hidden quality (mean stars) of the item of this
// rank: qmin + (qmax − qmin)·u(rank), see Ratings.
func (s *Ratings) Quality(rank uint64) float64 {
	u := float64(SplitMix64(s.qbase^rank)>>11) * 0x1p-53
	return s.cfg.QualityMin + s.qspan*u
}

// UpProb returns the probability that a rating of an item of quality q has
// at least up stars: P(lo + Binomial(w, p) ≥ up), p = (q − lo)/w, computed
// from the binomial pmf (0 for up above the scale, 1 at or below its
// bottom).
func (s *Ratings) UpProb(q float64, up int64) float64 {
	w := int(s.width)
	p := (q - float64(s.cfg.ScaleMin)) / float64(w)
	var sum float64
	for k := int(max(0, up-s.cfg.ScaleMin)); k <= w; k++ {
		sum += binomial(w, k) * math.Pow(p, float64(k)) * math.Pow(1-p, float64(w-k))
	}
	return min(sum, 1)
}

// binomial returns C(n, k) for small n.
func binomial(n, k int) float64 {
	c := 1.0
	for i := range k {
		c = c * float64(n-i) / float64(i+1)
	}
	return c
}

// Chunk fills buf[:0] with the events of chunk i, in [0, Chunks()), and
// returns it: events [i·ChunkSize, min((i+1)·ChunkSize, Ratings)). It
// grows buf only when cap(buf) is below the chunk's length and otherwise
// allocates nothing. Chunk may be called from many goroutines at once,
// each with its own buf. It panics if i is out of range.
func (s *Ratings) Chunk(i int, buf []Event) []Event {
	if i < 0 || i >= s.chunks {
		panic(fmt.Sprintf("workload: ratings chunk %d not in [0, %d)", i, s.chunks))
	}
	size := int64(s.cfg.ChunkSize)
	start := int64(i) * size
	n := int(min(size, s.cfg.Ratings-start))
	buf = slices.Grow(buf[:0], n)[:n]
	lo, w := float64(s.cfg.ScaleMin), float64(s.width)
	for j := range buf {
		index := uint64(start) + uint64(j)
		g := SplitMix(Mix64(s.base ^ index))
		rank := s.keys.rankSplitMix(&g)
		cut := (s.Quality(rank) - lo) / w * 0x1p53 // p·2^53: heads iff a 53-bit draw is below it
		stars := s.cfg.ScaleMin
		for range s.width {
			if float64(g.Uint64()>>11) < cut {
				stars++
			}
		}
		buf[j] = Event{At: int64(index), Key: s.keys.keyOf(rank), Delta: stars, ID: index + 1, Op: Write}
	}
	return buf
}
