package workload

import (
	"fmt"
	"math"
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
}

// A Stream is a deterministic sequence of Config().Events write events cut
// into Chunks() chunks. Chunk i is a pure function of (Seed, Label, i) and
// the config: chunks may be built in any order, by any number of goroutines,
// and the stream is the same whatever GOMAXPROCS or the worker count.
//
// Every event has Op Write, Delta 1, Actor 0, ID = its global index + 1
// (unique, from 1) and a Key drawn from Zipf(Keys, S), scrambled if asked.
type Stream struct {
	cfg       StreamConfig
	keys      keySpace
	chunks    int
	labelHash uint64
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
	return s, nil
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
	for j := range buf {
		index := start + int64(j)
		rank := s.keys.rankPCG(&pcg)
		buf[j] = Event{
			At:    roundTime(float64(index) * 1e9 / s.cfg.Rate),
			Key:   s.keys.keyOf(rank),
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
// stream scrambles, else rank.
func (s *Stream) KeyOf(rank uint64) uint64 { return s.keys.keyOf(rank) }

// RankOf returns the rank whose key is key: the inverse of KeyOf, a
// bijection on uint64. A key the stream can draw has a rank in 1..Keys.
func (s *Stream) RankOf(key uint64) uint64 {
	if s.keys.scramble {
		return s.keys.scr.Rank(key)
	}
	return key
}

// Prob returns the probability that an event of the stream has this rank:
// rank^−S / H(Keys, S), and 0 outside 1..Keys.
func (s *Stream) Prob(rank uint64) float64 { return s.keys.prob(rank) }

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
