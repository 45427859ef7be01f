package workload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// DefaultChunkSize is the number of events in a chunk when
// StreamConfig.ChunkSize is 0.
const DefaultChunkSize = 65536

// StreamConfig describes a Zipf stream of writes. Every field is checked by
// NewStream.
type StreamConfig struct {
	// Seed makes the stream reproducible: the same config gives the same
	// events byte for byte.
	Seed uint64
	// Label names the stream. Streams with different labels draw
	// independent ranks; the rank→key map depends on Seed alone, so two
	// labelled streams of one seed agree on which key is hot.
	Label string
	// Events is the total number of events; it must be at least 1.
	Events int64
	// Keys is the number of distinct ranks n; it must be in [1, 10^9].
	Keys uint64
	// S is the Zipf exponent; it must be finite and ≥ 0 (0 is uniform).
	S float64
	// Scramble maps rank r to NewScrambler(Seed).Key(r); otherwise the key
	// is the rank itself (1 the hottest).
	Scramble bool
	// Rate is the number of events per simulated second; it must be finite
	// and > 0. Event i (from 0) happens at round(i·10^9/Rate) ns.
	Rate float64
	// ChunkSize is the number of events per chunk; it must be ≥ 0, and 0
	// means DefaultChunkSize. It is part of the stream's identity: the same
	// seed with another chunk size gives other events.
	ChunkSize int
	// Plant is the writes of one planted key, a key of known true count
	// beside the Zipf's (the practice question's dish searched 400
	// times): it must be in [0, Events], and 0 plants nothing. The
	// planted writes are spread evenly over the stream, the k-th (from
	// 1) at index ⌈k·Events/Plant⌉ − 1, each taking the place of the draw
	// at its index: every other event is the one the stream holds without
	// the plant.
	Plant int64
	// PlantKey is the planted key; 0 means the key of rank Keys + 1 (a
	// key the Zipf never draws). A key given must not be one the stream
	// draws: its rank (the scrambler's inverse of it when the stream
	// scrambles, else the key itself) must be outside 1..Keys. It needs
	// Plant.
	PlantKey uint64
}

// A Stream is a deterministic sequence of Config().Events write events cut
// into Chunks() chunks. Chunk i is a pure function of (Seed, Label, i) and
// the config: chunks may be built in any order, by any number of goroutines,
// and the stream is the same whatever GOMAXPROCS or the worker count.
//
// Every event has Op Write, Delta 1, Actor 0, ID = its global index + 1
// (unique, from 1) and a Key drawn from Zipf(Keys, S), scrambled if asked,
// but the Plant events of the planted key, which has rank Keys + 1.
type Stream struct {
	cfg       StreamConfig
	keys      keySpace
	chunks    int
	labelHash uint64
	// With a plant: the planted key, and the rank the key space gives it
	// (its rank and that of the key of rank Keys + 1 are swapped, so that
	// RankOf and KeyOf stay a bijection).
	plantKey  uint64
	plantRank uint64
}

// NewStream validates cfg and returns its stream. Set-up is O(1).
func NewStream(cfg StreamConfig) (*Stream, error) {
	if cfg.Events < 1 {
		return nil, fmt.Errorf("workload: stream events %d not >= 1", cfg.Events)
	}
	if cfg.Keys < 1 || cfg.Keys > MaxZipfN {
		return nil, fmt.Errorf("workload: stream keys %d not in [1, 1e9]", cfg.Keys)
	}
	if math.IsNaN(cfg.S) || math.IsInf(cfg.S, 0) || cfg.S < 0 {
		return nil, fmt.Errorf("workload: stream exponent s %v not a finite number >= 0", cfg.S)
	}
	if math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0) || cfg.Rate <= 0 {
		return nil, fmt.Errorf("workload: stream rate %v events/s not a finite number > 0", cfg.Rate)
	}
	if last := float64(cfg.Events-1) * 1e9 / cfg.Rate; last >= math.MaxInt64 {
		return nil, fmt.Errorf("workload: stream of %d events at %v events/s lasts %.3g ns, beyond int64 time (%.3g ns)",
			cfg.Events, cfg.Rate, last, float64(math.MaxInt64))
	}
	size, err := chunkSize("stream", cfg.ChunkSize)
	if err != nil {
		return nil, err
	}
	cfg.ChunkSize = size
	chunks, err := chunkCount("stream", cfg.Events, size)
	if err != nil {
		return nil, err
	}
	keys, err := newKeySpace(cfg.Seed, cfg.Keys, cfg.S, cfg.Scramble)
	if err != nil {
		return nil, err // unreachable: Keys and S were checked above
	}
	s := &Stream{
		cfg:       cfg,
		keys:      keys,
		chunks:    chunks,
		labelHash: xxhash.Sum64String(cfg.Label),
	}
	switch {
	case cfg.Plant < 0 || cfg.Plant > cfg.Events:
		return nil, fmt.Errorf("workload: stream plant %d not in [0, events %d]", cfg.Plant, cfg.Events)
	case cfg.Plant == 0 && cfg.PlantKey != 0:
		return nil, fmt.Errorf("workload: stream plant key %d given without plant (allowed: a plant of at least 1 write)", cfg.PlantKey)
	case cfg.Plant > 0:
		s.plantKey = keys.keyOf(cfg.Keys + 1)
		s.plantRank = cfg.Keys + 1
		if cfg.PlantKey != 0 {
			s.plantKey, s.plantRank = cfg.PlantKey, s.naturalRank(cfg.PlantKey)
			if s.plantRank >= 1 && s.plantRank <= cfg.Keys {
				return nil, fmt.Errorf("workload: stream plant key %d is the key of rank %d, which the stream draws (allowed: a key whose rank is not in 1..%d)",
					cfg.PlantKey, s.plantRank, cfg.Keys)
			}
		}
	}
	return s, nil
}

// naturalRank is the rank of a key in the key space, the plant aside.
func (s *Stream) naturalRank(key uint64) uint64 {
	if s.keys.scramble {
		return s.keys.scr.Rank(key)
	}
	return key
}

// Planted returns the writes of the planted key (Plant), 0 without one.
func (s *Stream) Planted() int64 { return s.cfg.Plant }

// PlantedKey returns the planted key; without a plant, 0 (and no key is
// planted).
func (s *Stream) PlantedKey() uint64 { return s.plantKey }

// Ranks returns the ranks of the stream's keys, the most ChunkRanks gives:
// Keys, and one more, the planted key's, with a plant.
func (s *Stream) Ranks() uint64 {
	if s.cfg.Plant > 0 {
		return s.cfg.Keys + 1
	}
	return s.cfg.Keys
}

// plantIndex returns the index of the k-th planted event (k from 1):
// ⌈k·Events/Plant⌉ − 1, in 128-bit arithmetic.
func (s *Stream) plantIndex(k int64) int64 {
	n, p := uint64(s.cfg.Events), uint64(s.cfg.Plant)
	hi, lo := bits.Mul64(uint64(k), n)
	lo, carry := bits.Add64(lo, p-1, 0)
	q, _ := bits.Div64(hi+carry, lo, p) // k·Events/Plant ≤ Events: no overflow
	return int64(q) - 1
}

// plantedBefore returns the planted events of index below i: ⌊i·Plant/Events⌋.
func (s *Stream) plantedBefore(i int64) int64 {
	hi, lo := bits.Mul64(uint64(i), uint64(s.cfg.Plant))
	q, _ := bits.Div64(hi, lo, uint64(s.cfg.Events)) // ≤ Plant
	return int64(q)
}

// Config returns the stream's config, with ChunkSize resolved (never 0).
func (s *Stream) Config() StreamConfig { return s.cfg }

// Chunks returns the number of chunks, ⌈Events/ChunkSize⌉.
func (s *Stream) Chunks() int { return s.chunks }

// Chunk fills buf[:0] with the events of chunk i, in [0, Chunks()), and
// returns it. It grows buf only when cap(buf) is below the chunk's length
// (ChunkSize, or less for the last chunk) and otherwise allocates nothing.
// Chunk may be called from many goroutines at once, each with its own buf.
// It panics if i is out of range, as indexing a slice would.
func (s *Stream) Chunk(i int, buf []Event) []Event {
	buf, _ = s.chunk(i, buf, nil)
	return buf
}

// ChunkRanks is Chunk, and fills ranks[:0] with the rank of each event's
// key too: ranks[j] = RankOf(events[j].Key), in 1..Keys (at most 10^9, so
// it fits 32 bits). The stream draws ranks and maps them to keys, so this
// costs a store an event: a truth by rank reads 4 bytes an event instead
// of working out the inverse of the scrambler. It grows ranks as Chunk
// grows buf.
func (s *Stream) ChunkRanks(i int, buf []Event, ranks []uint32) ([]Event, []uint32) {
	if ranks == nil {
		ranks = []uint32{}
	}
	return s.chunk(i, buf, ranks)
}

// chunk fills buf, and ranks unless it is nil.
func (s *Stream) chunk(i int, buf []Event, ranks []uint32) ([]Event, []uint32) {
	if i < 0 || i >= s.chunks {
		panic(fmt.Sprintf("workload: chunk %d not in [0, %d)", i, s.chunks))
	}
	size := int64(s.cfg.ChunkSize)
	start := int64(i) * size
	n := int(min(size, s.cfg.Events-start))
	buf = slices.Grow(buf[:0], n)[:n]
	if ranks != nil {
		ranks = slices.Grow(ranks[:0], n)[:n]
	}

	// The chunk's generator, ChunkRand(…, i)'s PCG, lives on the stack and
	// is drawn from directly: the same ranks as Zipf.Rank(ChunkRand(…, i))
	// without an interface call per draw.
	var pcg rand.PCG
	pcg.Seed(chunkSeed(s.cfg.Seed, s.labelHash, i))
	// The next planted event's index, −1 when none is left: the k-th.
	next, k := int64(-1), int64(0)
	if s.cfg.Plant > 0 {
		if k = s.plantedBefore(start) + 1; k <= s.cfg.Plant {
			next = s.plantIndex(k)
		}
	}
	for j := range buf {
		index := start + int64(j)
		rank := s.keys.rankPCG(&pcg) // drawn even where a planted write takes its place
		key := s.keys.keyOf(rank)
		if index == next {
			key, rank = s.plantKey, s.cfg.Keys+1
			if k++; k <= s.cfg.Plant {
				next = s.plantIndex(k)
			} else {
				next = -1
			}
		}
		buf[j] = Event{
			At:    roundTime(float64(index) * 1e9 / s.cfg.Rate),
			Key:   key,
			Delta: 1,
			ID:    uint64(index) + 1,
			Op:    Write,
		}
		if ranks != nil {
			ranks[j] = uint32(rank)
		}
	}
	return buf, ranks
}

// roundTime returns int64(math.Round(y)) for y in [0, 2^63), which holds
// every event time of a Stream (NewStream refuses a last event at 2^63 ns
// or later), at the cost of a truncation and a comparison, where
// math.Round takes a dozen integer steps (BenchmarkStreamAt). It is exact:
// i = int64(y) truncates; float64(i) is exact, since i has no more
// significant bits than y; so is y − float64(i), a difference of two
// floats within a factor of 2 of each other (Sterbenz) or y itself when
// i = 0; so the comparison with ½ rounds half away from zero as
// math.Round does.
func roundTime(y float64) int64 {
	i := int64(y)
	if y-float64(i) >= 0.5 {
		i++
	}
	return i
}

// KeyOf returns the key of a rank: NewScrambler(Seed).Key(rank) when the
// stream scrambles, else rank; with a plant, the planted key for rank
// Keys + 1 (and, when the planted key was given, the key of rank Keys + 1
// for the planted key's own rank: the two swap).
func (s *Stream) KeyOf(rank uint64) uint64 {
	if s.cfg.Plant > 0 {
		switch rank {
		case s.cfg.Keys + 1:
			return s.plantKey
		case s.plantRank:
			return s.keys.keyOf(s.cfg.Keys + 1)
		}
	}
	return s.keys.keyOf(rank)
}

// RankOf returns the rank whose key is key: the inverse of KeyOf, a
// bijection on uint64. A key the stream can draw has a rank in 1..Keys,
// the planted key Keys + 1.
func (s *Stream) RankOf(key uint64) uint64 {
	r := s.naturalRank(key)
	if s.cfg.Plant > 0 {
		switch {
		case key == s.plantKey:
			return s.cfg.Keys + 1
		case r == s.cfg.Keys+1:
			return s.plantRank
		}
	}
	return r
}

// Prob returns the share of the stream's events that have this rank:
// rank^−S / H(Keys, S), and 0 outside 1..Keys; with a plant, that times
// (1 − Plant/Events) for the draws it leaves, and Plant/Events for rank
// Keys + 1.
func (s *Stream) Prob(rank uint64) float64 {
	if s.cfg.Plant == 0 {
		return s.keys.prob(rank)
	}
	share := float64(s.cfg.Plant) / float64(s.cfg.Events)
	if rank == s.cfg.Keys+1 {
		return share
	}
	return (1 - share) * s.keys.prob(rank)
}

// ChunkRand returns the generator of chunk i of the stream (seed, label): a
// PCG seeded from a mix of the seed, the xxhash of the label and the chunk
// index, and of nothing else (never a worker id). A Stream draws chunk i's
// ranks from exactly this generator, as Zipf.Rank does (it takes the PCG's
// words directly, which gives the same ranks).
func ChunkRand(seed uint64, label string, chunk int) *rand.Rand {
	return rand.New(rand.NewPCG(chunkSeed(seed, xxhash.Sum64String(label), chunk)))
}

// chunkSeed mixes (seed, label hash, chunk) into a PCG seed. Each step is
// SplitMix64 of an xor, so for a fixed seed and label distinct chunks get
// distinct seeds; the tag keeps these seeds apart from NewScrambler(seed)'s
// constants.
func chunkSeed(seed, labelHash uint64, chunk int) (hi, lo uint64) {
	const tag = 0x636f756e7473696d // "countsim"
	a := SplitMix64(seed ^ tag)
	a = SplitMix64(a ^ labelHash)
	hi = SplitMix64(a ^ uint64(chunk))
	lo = SplitMix64(hi)
	return hi, lo
}

// chunkSize resolves a stream's chunk size: DefaultChunkSize for 0, an
// error naming the stream (what) below 0.
func chunkSize(what string, size int) (int, error) {
	switch {
	case size < 0:
		return 0, fmt.Errorf("workload: %s chunk size %d not >= 0 (0 means %d)", what, size, DefaultChunkSize)
	case size == 0:
		return DefaultChunkSize, nil
	}
	return size, nil
}

// chunkCount is the chunks of events events in chunks of size, refused
// when an int cannot hold it.
func chunkCount(what string, events int64, size int) (int, error) {
	chunks := (events-1)/int64(size) + 1
	if chunks > math.MaxInt {
		return 0, fmt.Errorf("workload: %s of %d events in chunks of %d has more chunks than an int holds", what, events, size)
	}
	return int(chunks), nil
}
