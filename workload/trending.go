package workload

// Trending streams (issue 12): a background Zipf over phrases at a constant
// rate, spread over regions, and planted phrases whose share of the stream
// follows a stated course over simulated time — a burst, a phrase that was
// heavy and fades, a slow riser — so that when a design notices each can be
// scored.

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// Plant is one planted phrase: the background key of rank Rank, which
// between Start and End (ns) takes a share of the events going linearly
// from From to To (0 outside [Start, End)), in every region (Region −1) or
// in one.
type Plant struct {
	Rank       uint64
	Start, End int64
	From, To   float64
	Region     int
}

// share is the plant's share of an event at time t in region r.
func (p *Plant) share(t int64, r int) float64 {
	if t < p.Start || t >= p.End || p.Region >= 0 && p.Region != r {
		return 0
	}
	return p.From + (p.To-p.From)*float64(t-p.Start)/float64(p.End-p.Start)
}

// TrendConfig describes a trending stream; NewTrending checks every field.
type TrendConfig struct {
	Seed  uint64
	Label string
	// Rate is the events a simulated second, finite and > 0; event i
	// happens at round(i·10^9/Rate) ns.
	Rate float64
	// Duration is the stream's length in ns, > 0: the events before it.
	Duration int64
	// Keys, S and Scramble give the background law, as a Stream's.
	Keys     uint64
	S        float64
	Scramble bool
	// Regions is the number of regions, 1..4096: an event's Actor is its
	// region, drawn uniformly.
	Regions int
	// Plants are the planted phrases; in any region at any time their
	// shares add up to at most 1.
	Plants []Plant
	// ChunkSize is the events a chunk (0: DefaultChunkSize).
	ChunkSize int
}

// Trending is a deterministic trending stream cut into chunks, chunk i a
// pure function of (Seed, Label, i) and the config.
//
// The law of event i (At = round(i·10^9/Rate)): its region is uniform
// (Lemire's multiply-shift of one word of the chunk's PCG); one more word u
// picks a planted phrase when u falls among the plants' shares at (At,
// region), taken in order, and otherwise the event's rank is drawn from
// the background Zipf. A planted phrase keeps its background traffic as
// well. Events are writes of Delta 1 with ID i + 1.
type Trending struct {
	cfg       TrendConfig
	keys      keySpace
	events    int64
	chunks    int
	labelHash uint64
}

// NewTrending validates cfg and returns its stream.
func NewTrending(cfg TrendConfig) (*Trending, error) {
	if math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0) || cfg.Rate <= 0 {
		return nil, fmt.Errorf("workload: trending rate %v not a finite number > 0", cfg.Rate)
	}
	if cfg.Duration <= 0 {
		return nil, fmt.Errorf("workload: trending duration %d ns not > 0", cfg.Duration)
	}
	if cfg.Regions < 1 || cfg.Regions > 4096 {
		return nil, fmt.Errorf("workload: trending regions %d not in 1..4096", cfg.Regions)
	}
	events := int64(math.Ceil(float64(cfg.Duration) * cfg.Rate / 1e9))
	for events > 0 && roundTime(float64(events-1)*1e9/cfg.Rate) >= cfg.Duration {
		events--
	}
	if events < 1 || events > 1e11 {
		return nil, fmt.Errorf("workload: trending stream of %d events (allowed: 1..1e11)", events)
	}
	keys, err := newKeySpace(cfg.Seed, cfg.Keys, cfg.S, cfg.Scramble)
	if err != nil {
		return nil, err
	}
	for i, p := range cfg.Plants {
		switch {
		case p.Rank < 1 || p.Rank > cfg.Keys:
			return nil, fmt.Errorf("workload: plant %d: rank %d not in 1..%d", i, p.Rank, cfg.Keys)
		case p.Start < 0 || p.End <= p.Start || p.End > cfg.Duration:
			return nil, fmt.Errorf("workload: plant %d: [%d, %d) ns not within the stream's [0, %d)", i, p.Start, p.End, cfg.Duration)
		case !(p.From >= 0 && p.From <= 1 && p.To >= 0 && p.To <= 1):
			return nil, fmt.Errorf("workload: plant %d: shares %v, %v not in [0, 1]", i, p.From, p.To)
		case p.Region < -1 || p.Region >= cfg.Regions:
			return nil, fmt.Errorf("workload: plant %d: region %d not in -1..%d", i, p.Region, cfg.Regions-1)
		}
	}
	if m := maxShare(cfg.Plants, cfg.Regions); m > 1 {
		return nil, fmt.Errorf("workload: the plants take %.4g of a region's events at once, more than all", m)
	}
	size, err := chunkSize("trending", cfg.ChunkSize)
	if err != nil {
		return nil, err
	}
	cfg.ChunkSize = size
	chunks, err := chunkCount("trending", events, size)
	if err != nil {
		return nil, err
	}
	cfg.Plants = slices.Clone(cfg.Plants)
	return &Trending{cfg: cfg, keys: keys, events: events, chunks: chunks, labelHash: xxhash.Sum64String(cfg.Label)}, nil
}

// maxShare is the most the plants take of one region's events at once: the
// sum of their shares is linear between the plants' starts and ends, so it
// is largest at one of them.
func maxShare(plants []Plant, regions int) float64 {
	var most float64
	for r := range regions {
		for _, q := range plants {
			for _, t := range []int64{q.Start, q.End - 1} {
				var sum float64
				for i := range plants {
					sum += plants[i].share(t, r)
				}
				most = max(most, sum)
			}
		}
	}
	return most
}

// Config returns the stream's config, ChunkSize resolved.
func (s *Trending) Config() TrendConfig {
	cfg := s.cfg
	cfg.Plants = slices.Clone(cfg.Plants)
	return cfg
}

// Events returns the number of events.
func (s *Trending) Events() int64 { return s.events }

// Chunks returns the number of chunks.
func (s *Trending) Chunks() int { return s.chunks }

// KeyOf returns the key of a background rank; a plant's key is KeyOf(its
// Rank).
func (s *Trending) KeyOf(rank uint64) uint64 { return s.keys.keyOf(rank) }

// Prob returns the background probability of a rank.
func (s *Trending) Prob(rank uint64) float64 { return s.keys.prob(rank) }

// Chunk fills buf[:0] with chunk i's events and returns it; it allocates
// only when buf is too small and may be called from many goroutines at
// once with their own bufs.
func (s *Trending) Chunk(i int, buf []Event) []Event {
	if i < 0 || i >= s.chunks {
		panic(fmt.Sprintf("workload: trending chunk %d not in [0, %d)", i, s.chunks))
	}
	size := int64(s.cfg.ChunkSize)
	start := int64(i) * size
	n := int(min(size, s.events-start))
	buf = slices.Grow(buf[:0], n)[:n]
	var pcg rand.PCG
	pcg.Seed(chunkSeed(s.cfg.Seed, s.labelHash, i))
	regions := uint64(s.cfg.Regions)
	for j := range buf {
		index := start + int64(j)
		at := roundTime(float64(index) * 1e9 / s.cfg.Rate)
		r, _ := bits.Mul64(pcg.Uint64(), regions)
		u := float64(pcg.Uint64()>>11) / (1 << 53)
		rank := uint64(0)
		var cum float64
		for p := range s.cfg.Plants {
			if cum += s.cfg.Plants[p].share(at, int(r)); u < cum {
				rank = s.cfg.Plants[p].Rank
				break
			}
		}
		if rank == 0 {
			rank = s.keys.rankPCG(&pcg)
		}
		buf[j] = Event{At: at, Key: s.keys.keyOf(rank), Actor: r, Delta: 1, ID: uint64(index) + 1, Op: Write}
	}
	return buf
}
