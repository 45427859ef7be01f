package workload

import (
	"math"
	"strconv"
	"testing"
)

// A planted stream holds the planted key exactly Plant times, spread
// evenly (its k-th write at ⌈k·Events/Plant⌉ − 1, so two planted writes are
// ⌊Events/Plant⌋ or ⌈Events/Plant⌉ apart), and every other event is the
// stream's without the plant; ChunkRanks gives the planted writes rank
// Keys + 1 and every event the rank RankOf gives its key. Over plants of
// 1, a few, many and every event, the default key and one given, chunks of
// several sizes and scrambled or not.
func TestStreamPlant(t *testing.T) {
	for _, c := range []struct {
		events, plant int64
		chunk         int
		key           uint64
		scramble      bool
	}{
		{100_003, 400, 4096, 0, true},
		{100_003, 1, 4096, 0, true},
		{5_000, 5_000, 64, 0, false},
		{10_007, 3_333, 1000, 0xfeedface12345678, true},
		{10_007, 97, 999, 2_000_000, false},
	} {
		cfg := testConfig()
		cfg.Events, cfg.ChunkSize, cfg.Scramble, cfg.Keys = c.events, c.chunk, c.scramble, 50_000
		plain := sequential(mustStream(t, cfg))
		cfg.Plant, cfg.PlantKey = c.plant, c.key
		s := mustStream(t, cfg)
		key := s.PlantedKey()
		if c.key != 0 && key != c.key {
			t.Fatalf("%+v: planted key %d, want %d", c, key, c.key)
		}
		if s.Planted() != c.plant || s.Ranks() != cfg.Keys+1 {
			t.Fatalf("%+v: Planted %d, Ranks %d", c, s.Planted(), s.Ranks())
		}
		var buf []Event
		var ranks []uint32
		var at []int64
		for i := range s.Chunks() {
			buf, ranks = s.ChunkRanks(i, buf, ranks)
			for j, e := range buf {
				index := int64(i)*int64(c.chunk) + int64(j)
				if ranks[j] != uint32(s.RankOf(e.Key)) {
					t.Fatalf("%+v: event %d rank %d, RankOf its key %d", c, index, ranks[j], s.RankOf(e.Key))
				}
				if e.Key == key {
					at = append(at, index)
					if ranks[j] != uint32(cfg.Keys+1) {
						t.Fatalf("%+v: planted event %d of rank %d", c, index, ranks[j])
					}
					continue
				}
				if e != plain[index] {
					t.Fatalf("%+v: event %d is %+v, without the plant %+v", c, index, e, plain[index])
				}
			}
		}
		if int64(len(at)) != c.plant {
			t.Fatalf("%+v: the planted key written %d times, want %d", c, len(at), c.plant)
		}
		lo, hi := c.events/c.plant, (c.events+c.plant-1)/c.plant
		for k, i := range at {
			if want := int64(math.Ceil(float64(k+1)*float64(c.events)/float64(c.plant))) - 1; i != want {
				t.Fatalf("%+v: planted write %d at %d, want %d", c, k+1, i, want)
			}
			if k > 0 && (i-at[k-1] < lo || i-at[k-1] > hi) {
				t.Fatalf("%+v: planted writes %d apart at %d, want %d..%d", c, i-at[k-1], i, lo, hi)
			}
		}
		// The key space stays a bijection: the plant's rank and the rank
		// of the key it displaces swap.
		for _, r := range []uint64{1, 2, cfg.Keys, cfg.Keys + 1, cfg.Keys + 2, s.naturalRank(key), 0} {
			if got := s.RankOf(s.KeyOf(r)); got != r {
				t.Errorf("%+v: RankOf(KeyOf(%d)) = %d", c, r, got)
			}
		}
		if s.KeyOf(cfg.Keys+1) != key || s.RankOf(key) != cfg.Keys+1 {
			t.Errorf("%+v: KeyOf(keys+1) %d, RankOf(planted) %d", c, s.KeyOf(cfg.Keys+1), s.RankOf(key))
		}
		var sum float64
		for r := uint64(1); r <= s.Ranks(); r++ {
			sum += s.Prob(r)
		}
		if math.Abs(sum-1) > 1e-9 || s.Prob(cfg.Keys+1) != float64(c.plant)/float64(c.events) {
			t.Errorf("%+v: Prob sums to %v, the plant's %v", c, sum, s.Prob(cfg.Keys+1))
		}
	}
}

// A plant out of range, a plant key without a plant and a plant key the
// stream draws are refused, saying what is allowed.
func TestStreamPlantErrors(t *testing.T) {
	drawn := mustStream(t, testConfig()).KeyOf(7)
	checkRefused(t, testConfig, NewStream, []refusal[StreamConfig]{
		{"plant<0", func(c *StreamConfig) { c.Plant = -1 }, "workload: stream plant -1 not in [0, events 100003]"},
		{"plant>events", func(c *StreamConfig) { c.Plant = 100_004 }, "workload: stream plant 100004 not in [0, events 100003]"},
		{"key without plant", func(c *StreamConfig) { c.PlantKey = 5 }, "workload: stream plant key 5 given without plant (allowed: a plant of at least 1 write)"},
		{"key drawn", func(c *StreamConfig) { c.Plant, c.PlantKey = 10, drawn },
			"workload: stream plant key " + strconv.FormatUint(drawn, 10) + " is the key of rank 7, which the stream draws (allowed: a key whose rank is not in 1..1000000)"},
		{"key drawn unscrambled", func(c *StreamConfig) { c.Plant, c.PlantKey, c.Scramble = 10, 999_999, false },
			"workload: stream plant key 999999 is the key of rank 999999, which the stream draws (allowed: a key whose rank is not in 1..1000000)"},
	})
}

// Chunk allocates nothing with a plant either, its planted writes found
// by one comparison an event.
func TestStreamPlantNoAlloc(t *testing.T) {
	cfg := testConfig()
	cfg.Plant = 400
	s := mustStream(t, cfg)
	buf := make([]Event, 0, cfg.ChunkSize)
	if n := testing.AllocsPerRun(10, func() { buf = s.Chunk(3, buf) }); n != 0 {
		t.Errorf("Chunk of a planted stream: %v allocations, want 0", n)
	}
}
