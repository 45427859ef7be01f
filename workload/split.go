package workload

// Split streams: events partitioned over nodes by something other than the
// item (issue 11) — by region, each with items of its own, or by app
// server, all sharing one law — with one planted item spread thinly over
// every node, so that an item heavy only in total can be planted.

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// MaxSplitNodes is the most nodes a split stream has.
const MaxSplitNodes = 4096

// SplitConfig describes a split stream. Every field is checked by
// NewSplit.
type SplitConfig struct {
	Seed  uint64
	Label string
	// Events is the total number of events, at least 1.
	Events int64
	// Nodes is the number of nodes, 1..MaxSplitNodes; an event's Actor is
	// its node, 0..Nodes−1.
	Nodes int
	// Keys is the number of ranks of a node's law, 1..10^9.
	Keys uint64
	// S holds the Zipf exponent of each node's law (finite, ≥ 0): one for
	// every node, or a single one they all share.
	S []float64
	// Own: each node has items of its own (regions: node r's rank j is the
	// item r·Keys + j); otherwise every node draws the same items (app
	// servers behind a load balancer: rank j is item j on every node).
	Own bool
	// Plant is the share of every node's events that go to one planted
	// item, the same on every node, in [0, 1).
	Plant float64
	// Scramble maps an item index to NewScrambler(Seed).Key(index);
	// otherwise the key is the index itself.
	Scramble bool
	// Rate is the number of events per simulated second (finite, > 0):
	// event i happens at round(i·10^9/Rate) ns.
	Rate float64
	// ChunkSize is the number of events per chunk (0: DefaultChunkSize).
	ChunkSize int
}

// Split is a deterministic split stream of Config().Events write events
// cut into Chunks() chunks; chunk i is a pure function of (Seed, Label, i)
// and the config.
//
// The law of an event, from the chunk's PCG: its node is uniform on
// 0..Nodes−1 (Lemire's multiply-shift of one word; its bias, at most
// Nodes/2^64, is below anything measurable); then with probability Plant
// (one word's top 53 bits against Plant·2^53) it is the planted item, and
// otherwise its rank is drawn from the node's Zipf law and mapped to an
// item: r·Keys + rank with Own, rank without. The planted item is the index
// one past the last (Nodes·Keys + 1 with Own, Keys + 1 without). Events
// are writes of Delta 1 with Actor the node and ID their index + 1.
type Split struct {
	cfg       SplitConfig
	zipfs     []*Zipf // one a distinct exponent
	law       []int   // law[r]: node r's index into zipfs
	scr       Scrambler
	plantCut  uint64 // an event is planted iff its word >> 11 < plantCut
	chunks    int
	labelHash uint64
}

// NewSplit validates cfg and returns its stream. Set-up is O(Nodes).
func NewSplit(cfg SplitConfig) (*Split, error) {
	if cfg.Events < 1 {
		return nil, fmt.Errorf("workload: split events %d not >= 1", cfg.Events)
	}
	if cfg.Nodes < 1 || cfg.Nodes > MaxSplitNodes {
		return nil, fmt.Errorf("workload: split nodes %d not in 1..%d", cfg.Nodes, MaxSplitNodes)
	}
	if cfg.Keys < 1 || cfg.Keys > MaxZipfN {
		return nil, fmt.Errorf("workload: split keys %d not in [1, 1e9]", cfg.Keys)
	}
	if len(cfg.S) != 1 && len(cfg.S) != cfg.Nodes {
		return nil, fmt.Errorf("workload: split has %d exponents for %d nodes (allowed: 1, or one a node)", len(cfg.S), cfg.Nodes)
	}
	if math.IsNaN(cfg.Plant) || cfg.Plant < 0 || cfg.Plant >= 1 {
		return nil, fmt.Errorf("workload: split plant %v not in [0, 1)", cfg.Plant)
	}
	if math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0) || cfg.Rate <= 0 {
		return nil, fmt.Errorf("workload: split rate %v events/s not a finite number > 0", cfg.Rate)
	}
	if last := float64(cfg.Events-1) * 1e9 / cfg.Rate; last >= math.MaxInt64 {
		return nil, fmt.Errorf("workload: split of %d events at %v events/s lasts beyond int64 time", cfg.Events, cfg.Rate)
	}
	size, err := chunkSize("split", cfg.ChunkSize)
	if err != nil {
		return nil, err
	}
	cfg.ChunkSize = size
	chunks, err := chunkCount("split", cfg.Events, size)
	if err != nil {
		return nil, err
	}
	cfg.S = slices.Clone(cfg.S)
	s := &Split{cfg: cfg, law: make([]int, cfg.Nodes), scr: NewScrambler(cfg.Seed), chunks: chunks,
		labelHash: xxhash.Sum64String(cfg.Label), plantCut: uint64(math.Ceil(math.Ldexp(cfg.Plant, 53)))}
	seen := map[float64]int{}
	for r := range cfg.Nodes {
		e := cfg.S[min(r, len(cfg.S)-1)]
		if math.IsNaN(e) || math.IsInf(e, 0) || e < 0 {
			return nil, fmt.Errorf("workload: split exponent s %v of node %d not a finite number >= 0", e, r)
		}
		j, ok := seen[e]
		if !ok {
			z, err := NewZipf(cfg.Keys, e)
			if err != nil {
				return nil, err
			}
			j = len(s.zipfs)
			seen[e] = j
			s.zipfs = append(s.zipfs, z)
		}
		s.law[r] = j
	}
	return s, nil
}

// Config returns the stream's config, ChunkSize resolved.
func (s *Split) Config() SplitConfig {
	cfg := s.cfg
	cfg.S = slices.Clone(cfg.S)
	return cfg
}

// Chunks returns the number of chunks.
func (s *Split) Chunks() int { return s.chunks }

// Items returns the number of items the stream can draw: Nodes·Keys (Own)
// or Keys, and the planted one.
func (s *Split) Items() uint64 {
	if s.cfg.Own {
		return uint64(s.cfg.Nodes)*s.cfg.Keys + 1
	}
	return s.cfg.Keys + 1
}

// keyOfIndex maps an item index (1..Items) to its key.
func (s *Split) keyOfIndex(index uint64) uint64 {
	if s.cfg.Scramble {
		return s.scr.Key(index)
	}
	return index
}

// ItemKey returns the key of node r's rank j (0 ≤ r < Nodes, 1 ≤ j ≤ Keys).
func (s *Split) ItemKey(r int, j uint64) uint64 {
	if s.cfg.Own {
		return s.keyOfIndex(uint64(r)*s.cfg.Keys + j)
	}
	return s.keyOfIndex(j)
}

// NodeOf returns the node whose own item key is (Own), or −1 for the
// planted item, for a key the stream never draws, and without Own.
func (s *Split) NodeOf(key uint64) int {
	if !s.cfg.Own {
		return -1
	}
	index := key
	if s.cfg.Scramble {
		index = s.scr.Rank(key)
	}
	if index < 1 || index >= s.Items() {
		return -1
	}
	return int((index - 1) / s.cfg.Keys)
}

// PlantedKey returns the key of the planted item.
func (s *Split) PlantedKey() uint64 { return s.keyOfIndex(s.Items()) }

// Chunk fills buf[:0] with the events of chunk i and returns it; it
// allocates only when buf is too small, may be called from many goroutines
// at once with their own bufs, and panics if i is out of range.
func (s *Split) Chunk(i int, buf []Event) []Event {
	if i < 0 || i >= s.chunks {
		panic(fmt.Sprintf("workload: split chunk %d not in [0, %d)", i, s.chunks))
	}
	size := int64(s.cfg.ChunkSize)
	start := int64(i) * size
	n := int(min(size, s.cfg.Events-start))
	buf = slices.Grow(buf[:0], n)[:n]
	var pcg rand.PCG
	pcg.Seed(chunkSeed(s.cfg.Seed, s.labelHash, i))
	nodes, planted := uint64(s.cfg.Nodes), s.PlantedKey()
	for j := range buf {
		index := start + int64(j)
		r, _ := bits.Mul64(pcg.Uint64(), nodes)
		var key uint64
		if s.plantCut > 0 && pcg.Uint64()>>11 < s.plantCut {
			key = planted
		} else {
			key = s.ItemKey(int(r), s.zipfs[s.law[r]].rankPCG(&pcg))
		}
		buf[j] = Event{At: roundTime(float64(index) * 1e9 / s.cfg.Rate), Key: key, Actor: r, Delta: 1, ID: uint64(index) + 1, Op: Write}
	}
	return buf
}

// Expected is an item and its expected count.
type Expected struct {
	Key   uint64
	Count float64
}

// ExpectedTop returns the k items of highest expected count over the whole
// stream, highest first (ties by key): the planted item's is Events·Plant;
// node r's rank j's is Events·(1 − Plant)/Nodes · P_r(j), summed over the
// nodes when they share their items.
func (s *Split) ExpectedTop(k int) []Expected {
	n, nodes := float64(s.cfg.Events), float64(s.cfg.Nodes)
	per := n * (1 - s.cfg.Plant) / nodes
	var all []Expected
	if s.cfg.Plant > 0 {
		all = append(all, Expected{s.PlantedKey(), n * s.cfg.Plant})
	}
	top := uint64(min(k, int(min(s.cfg.Keys, math.MaxInt32))))
	if s.cfg.Own {
		for r := range s.cfg.Nodes {
			for j := uint64(1); j <= top; j++ {
				all = append(all, Expected{s.ItemKey(r, j), per * s.zipfs[s.law[r]].Prob(j)})
			}
		}
	} else {
		for j := uint64(1); j <= top; j++ {
			var c float64
			for r := range s.cfg.Nodes {
				c += per * s.zipfs[s.law[r]].Prob(j)
			}
			all = append(all, Expected{s.ItemKey(0, j), c})
		}
	}
	slices.SortFunc(all, func(a, b Expected) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return all[:min(k, len(all))]
}

// ExpectedLocalKth returns, over the nodes, the smallest expected count
// on its node of a node's k-th own item, Events·(1 − Plant)/Nodes · P_r(k)
// (0 when a node has fewer than k items): a planted item whose share of a
// node, Events·Plant/Nodes, is below it is in no node's local top k.
func (s *Split) ExpectedLocalKth(k int) float64 {
	if k < 1 || uint64(k) > s.cfg.Keys {
		return 0
	}
	per := float64(s.cfg.Events) * (1 - s.cfg.Plant) / float64(s.cfg.Nodes)
	low := math.Inf(1)
	for r := range s.cfg.Nodes {
		low = min(low, per*s.zipfs[s.law[r]].Prob(uint64(k)))
	}
	return low
}

// ExpectedPlantedPerNode is the planted item's expected count on one node,
// Events·Plant/Nodes.
func (s *Split) ExpectedPlantedPerNode() float64 {
	return float64(s.cfg.Events) * s.cfg.Plant / float64(s.cfg.Nodes)
}
