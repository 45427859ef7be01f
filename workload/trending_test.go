package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

func trendConfig() TrendConfig {
	return TrendConfig{Seed: 3, Label: "trend", Rate: 2000, Duration: int64(10 * time.Minute), Keys: 10_000, S: 1, Scramble: true,
		Regions: 4, ChunkSize: 4096, Plants: []Plant{
			{Rank: 5000, Start: int64(2 * time.Minute), End: int64(6 * time.Minute), From: 0.05, To: 0.05, Region: -1},
			{Rank: 3000, Start: int64(4 * time.Minute), End: int64(8 * time.Minute), From: 0, To: 0.1, Region: 2},
		}}
}

// TestTrendingLaw: deterministic in any chunk order; the events evenly
// spaced before the duration; each plant's count within 5.33 sd of its
// expectation from the shares, the regional one's from its region's.
func TestTrendingLaw(t *testing.T) {
	s, err := NewTrending(trendConfig())
	if err != nil {
		t.Fatal(err)
	}
	want := sequential(s)
	got := make([][]Event, s.Chunks())
	for _, i := range rand.New(rand.NewPCG(4, 5)).Perm(s.Chunks()) {
		got[i] = s.Chunk(i, nil)
	}
	if !slices.Equal(slices.Concat(got...), want) {
		t.Fatal("chunks out of order differ")
	}
	if int64(len(want)) != 2000*600 || want[len(want)-1].At >= int64(10*time.Minute) {
		t.Fatalf("%d events, the last at %d", len(want), want[len(want)-1].At)
	}
	cfg := s.Config()
	for pi, p := range cfg.Plants {
		key := s.KeyOf(p.Rank)
		var n int64
		var expected float64
		for _, e := range want {
			sh := p.share(e.At, int(e.Actor))
			expected += sh + (1-sh)*s.Prob(p.Rank) // a plant keeps its background traffic
			if e.Key == key {
				n++
			}
		}
		if sd := math.Sqrt(expected); math.Abs(float64(n)-expected) > zScores*sd+1 {
			t.Errorf("plant %d: %d events, expected %.0f ± %.0f", pi, n, expected, zScores*sd)
		}
	}
}

func TestNewTrendingErrors(t *testing.T) {
	for _, c := range []func(*TrendConfig){
		func(c *TrendConfig) { c.Rate = 0 },
		func(c *TrendConfig) { c.Duration = 0 },
		func(c *TrendConfig) { c.Regions = 0 },
		func(c *TrendConfig) { c.Plants[0].Rank = 0 },
		func(c *TrendConfig) { c.Plants[0].End = c.Duration + 1 },
		func(c *TrendConfig) { c.Plants[0].Start = c.Plants[0].End },
		func(c *TrendConfig) { c.Plants[0].From = 1.5 },
		func(c *TrendConfig) { c.Plants[1].Region = 4 },
		func(c *TrendConfig) { c.Plants[0].From, c.Plants[0].To, c.Plants[1].To = 0.95, 0.95, 0.2 },
	} {
		cfg := trendConfig()
		c(&cfg)
		if _, err := NewTrending(cfg); err == nil {
			t.Errorf("accepted %+v", cfg)
		}
	}
}
