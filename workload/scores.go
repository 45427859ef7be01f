package workload

// Scores streams: a leaderboard's score changes, on the writes of a Timed
// stream (issue 10).

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/cespare/xxhash/v2"
)

// MaxScorePoints is the largest DeltaMax and SetMax of a Scores stream,
// 2^32 points: with at most 2^40 expected writes (a Timed stream's limit)
// and NewScores's check on their total, every player's score fits an int64.
const MaxScorePoints = 1 << 32

// maxScoreTotal bounds ExpectedWrites·DeltaMax: 2^61, a factor 4 below
// int64's range, room for every write to be resent once and for a Poisson
// count twice its mean (beyond reach at the means where the bound binds).
const maxScoreTotal = 1 << 61

// ScoreConfig describes a Scores stream. Every field is checked by
// NewScores.
type ScoreConfig struct {
	// Timed gives the players (its keys, Zipf over Keys ranks), the times
	// of their score changes (its writes), the rank queries (its reads) and
	// the resends. Its Seed and Label seed the changes too.
	Timed TimedConfig
	// DeltaMin and DeltaMax bound an increment: a whole number of points
	// drawn uniformly from [DeltaMin, DeltaMax]. DeltaMin must be ≥ 1 (a
	// change of 0 points is no change) and DeltaMax in DeltaMin..2^32.
	DeltaMin, DeltaMax int64
	// SetShare is the probability that a change is an absolute score
	// (Op Set) instead of an increment; it must be in [0, 1].
	SetShare float64
	// SetMax bounds an absolute score, drawn uniformly from [0, SetMax];
	// it must be in 0..2^32.
	SetMax int64
	// Standings, when true, gives every player of the key space a score
	// before the stream (StartScore): the board as it stood when the
	// stream began. StartMax bounds it, in 0..2^32.
	Standings bool
	StartMax  int64
}

// Scores is a leaderboard's stream: the players are the keys of a Timed
// stream (20,000,000 at full scale, their activity Zipf, so a few play all
// day) and its writes are their score changes, at its rate and times.
//
// The law of a change. Each write of the Timed stream becomes, with
// probability SetShare, an absolute score (Op Set, Delta uniform on
// [0, SetMax]: the player's score is now Delta), and otherwise an increment
// (Op Write, Delta uniform on [DeltaMin, DeltaMax]), independently of
// everything else. Points are whole, as a fantasy league awards them, so
// players often tie. Reads stay reads (a rank query of that player, Delta
// 0) and every other field (At, Key, Actor, ID) is the Timed stream's.
//
// Determinism. A change is a pure function of (Seed, Label, ID): a
// SplitMix64 generator started at Mix64(base ⊕ ID), base a hash of (Seed,
// Label) apart from the Timed stream's own, draws the choice (its first
// output's top 53 bits against SetShare·2^53, exact for 0 and 1) and then
// the points, exactly uniform by Lemire's multiply-and-reject ("Fast random
// integer generation in an interval", ACM TOMACS 2019), a second draw once
// in 2^32 at worst. So a resend (same ID) carries its original's change,
// and Chunk, like the Timed stream's, is a pure function of (config, i):
// chunks may be built in any order by any number of goroutines.
type Scores struct {
	cfg    ScoreConfig
	t      *Timed
	base   uint64 // a change's generator starts at Mix64(base ^ ID)
	setCut uint64 // a change is a Set iff its first output >> 11 < setCut
	dw, sw uint64 // widths DeltaMax − DeltaMin + 1 and SetMax + 1
	start  uint64 // a standing's generator starts at Mix64(start ^ rank)
}

// NewScores validates cfg and returns its stream.
func NewScores(cfg ScoreConfig) (*Scores, error) {
	if cfg.DeltaMax < 1 || cfg.DeltaMax > MaxScorePoints {
		return nil, fmt.Errorf("workload: scores delta_max %d not in 1..2^32", cfg.DeltaMax)
	}
	if cfg.DeltaMin < 1 || cfg.DeltaMin > cfg.DeltaMax {
		return nil, fmt.Errorf("workload: scores delta_min %d not in 1..delta_max (%d)", cfg.DeltaMin, cfg.DeltaMax)
	}
	if math.IsNaN(cfg.SetShare) || cfg.SetShare < 0 || cfg.SetShare > 1 {
		return nil, fmt.Errorf("workload: scores set_share %v not in [0, 1]", cfg.SetShare)
	}
	if cfg.SetMax < 0 || cfg.SetMax > MaxScorePoints {
		return nil, fmt.Errorf("workload: scores set_max %d not in 0..2^32", cfg.SetMax)
	}
	if cfg.StartMax < 0 || cfg.StartMax > MaxScorePoints {
		return nil, fmt.Errorf("workload: scores start_max %d not in 0..2^32", cfg.StartMax)
	}
	t, err := NewTimed(cfg.Timed)
	if err != nil {
		return nil, err
	}
	if n := t.ExpectedWrites() * float64(cfg.DeltaMax); n > maxScoreTotal {
		return nil, fmt.Errorf("workload: scores expect %.4g writes of up to %d points, %.4g in all, more than 2^61 (int64 scores)",
			t.ExpectedWrites(), cfg.DeltaMax, n)
	}
	cfg.Timed = t.Config()
	const scoreTag = 0x73636f7265446c74 // "scoreDlt"
	return &Scores{
		cfg:    cfg,
		t:      t,
		base:   SplitMix64(SplitMix64(cfg.Timed.Seed^scoreTag) ^ xxhash.Sum64String(cfg.Timed.Label)),
		setCut: uint64(math.Ceil(math.Ldexp(cfg.SetShare, 53))),
		dw:     uint64(cfg.DeltaMax - cfg.DeltaMin + 1),
		sw:     uint64(cfg.SetMax + 1),
		start:  SplitMix64(SplitMix64(cfg.Timed.Seed^0x7374616e64696e67) ^ xxhash.Sum64String(cfg.Timed.Label)), // "standing"
	}, nil
}

// Config returns the stream's config, its Timed part as Timed.Config
// returns it (Window resolved, Phases a copy).
func (s *Scores) Config() ScoreConfig {
	cfg := s.cfg
	cfg.Timed = s.t.Config()
	return cfg
}

// Timed returns the underlying Timed stream: its writes' times and keys,
// Prob and KeyOf of the players.
func (s *Scores) Timed() *Timed { return s.t }

// Chunks returns the number of chunks, the Timed stream's.
func (s *Scores) Chunks() int { return s.t.Chunks() }

// ExpectedWrites returns the expected number of score changes (increments
// and sets, resends not counted): the Timed stream's expected writes.
func (s *Scores) ExpectedWrites() float64 { return s.t.ExpectedWrites() }

// ExpectedSets returns the expected number of absolute scores among them,
// ExpectedWrites·SetShare.
func (s *Scores) ExpectedSets() float64 { return s.t.ExpectedWrites() * s.cfg.SetShare }

// MeanDelta returns the mean points of an increment, (DeltaMin +
// DeltaMax)/2.
func (s *Scores) MeanDelta() float64 {
	return (float64(s.cfg.DeltaMin) + float64(s.cfg.DeltaMax)) / 2
}

// Chunk fills buf[:0] with the events of chunk i, in [0, Chunks()): the
// Timed stream's chunk i with each write's Op and Delta replaced by its
// change, in place. It allocates as Timed.Chunk does (nothing in the
// steady state with a big enough buf), may be called from many goroutines
// at once, each with its own buf, and panics if i is out of range.
func (s *Scores) Chunk(i int, buf []Event) []Event {
	buf = s.t.Chunk(i, buf)
	for j := range buf {
		if e := &buf[j]; e.Op == Write {
			e.Op, e.Delta = s.change(e.ID)
		}
	}
	return buf
}

// change returns the Op and Delta of the write with this ID.
func (s *Scores) change(id uint64) (Op, int64) {
	src := SplitMix(Mix64(s.base ^ id))
	if src.Uint64()>>11 < s.setCut {
		return Set, int64(uniformN(&src, s.sw))
	}
	return Write, s.cfg.DeltaMin + int64(uniformN(&src, s.dw))
}

// uniformN returns a uniform draw from [0, n), 1 ≤ n ≤ 2^32, by Lemire's
// method: the high word of x·n for a uniform x, rejecting the n − 2^64 mod
// n lowest values of the low word, which would make some results likelier.
func uniformN(src *SplitMix, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n // 2^64 mod n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// StartScore returns the score the player of the given rank (1..Keys)
// stands at before the stream, with Standings: uniform on [0, StartMax]
// (Lemire's method from a SplitMix64 started at Mix64(start ⊕ rank)), a
// pure function of (Seed, Label, rank), independent of the player's
// activity and of the changes. Without Standings it is 0 for every player
// and no player stands on the board before the stream.
func (s *Scores) StartScore(rank uint64) int64 {
	if !s.cfg.Standings {
		return 0
	}
	src := SplitMix(Mix64(s.start ^ rank))
	return int64(uniformN(&src, uint64(s.cfg.StartMax)+1))
}
