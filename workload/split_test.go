package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func splitConfig() SplitConfig {
	return SplitConfig{Seed: 5, Label: "split", Events: 400_000, Nodes: 8, Keys: 10_000, S: []float64{1},
		Own: true, Plant: 0.008, Scramble: true, Rate: 1e6, ChunkSize: 4096}
}

func mustSplit(t *testing.T, cfg SplitConfig) *Split {
	t.Helper()
	s, err := NewSplit(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSplitDeterminism: chunks built in a shuffled order equal the
// sequential stream; another seed gives another stream.
func TestSplitDeterminism(t *testing.T) {
	s := mustSplit(t, splitConfig())
	want := sequential(s)
	order := rand.New(rand.NewPCG(1, 2)).Perm(s.Chunks())
	got := make([][]Event, s.Chunks())
	for _, i := range order {
		got[i] = s.Chunk(i, nil)
	}
	if !slices.Equal(slices.Concat(got...), want) {
		t.Fatal("chunks built out of order differ")
	}
	other := splitConfig()
	other.Seed++
	if digest(sequential(mustSplit(t, other))) == digest(want) {
		t.Fatal("another seed gives the same stream")
	}
}

// TestSplitLaw: nodes uniform (χ² over the 8 nodes), the planted share
// within 5.33 sd of Plant, every key a node's own item or the planted one,
// and each node's first rank near its expected count.
func TestSplitLaw(t *testing.T) {
	s := mustSplit(t, splitConfig())
	ev := sequential(s)
	cfg := s.Config()
	nodes := make([]int64, cfg.Nodes)
	own := map[uint64]int{}
	for r := range cfg.Nodes {
		for j := uint64(1); j <= cfg.Keys; j++ {
			own[s.ItemKey(r, j)] = r
		}
	}
	var planted int64
	counts := map[uint64]int64{}
	for _, e := range ev {
		nodes[e.Actor]++
		counts[e.Key]++
		if e.Key == s.PlantedKey() {
			planted++
			if s.NodeOf(e.Key) != -1 {
				t.Fatalf("NodeOf(the planted item) = %d, want -1", s.NodeOf(e.Key))
			}
			continue
		}
		if got := s.NodeOf(e.Key); got != int(e.Actor) {
			t.Fatalf("NodeOf(%d) = %d, want its node %d", e.Key, got, e.Actor)
		}
		if r, ok := own[e.Key]; !ok || r != int(e.Actor) {
			t.Fatalf("event %d on node %d has key %d, not one of the node's items", e.ID, e.Actor, e.Key)
		}
	}
	p := make([]float64, cfg.Nodes)
	for i := range p {
		p[i] = 1 / float64(cfg.Nodes)
	}
	if x2, crit := chiSquare(nodes, p), 50.0; x2 > crit { // χ²(7) quantile at 1 − 1e-7 ≈ 49.5
		t.Errorf("nodes: χ² %.1f over 8 nodes, want <= %.1f", x2, crit)
	}
	n := float64(cfg.Events)
	if sd := math.Sqrt(n * cfg.Plant * (1 - cfg.Plant)); math.Abs(float64(planted)-n*cfg.Plant) > zScores*sd {
		t.Errorf("planted %d, expected %.0f ± %.0f", planted, n*cfg.Plant, zScores*sd)
	}
	for _, e := range s.ExpectedTop(10) {
		if sd := math.Sqrt(e.Count); math.Abs(float64(counts[e.Key])-e.Count) > zScores*sd+1 {
			t.Errorf("key %d: %d events, expected %.0f ± %.0f", e.Key, counts[e.Key], e.Count, zScores*sd)
		}
	}
}

// TestSplitTrap: the default config plants an item below every node's
// 10th own item but, in total, above the global 10th of the others.
func TestSplitTrap(t *testing.T) {
	s := mustSplit(t, splitConfig())
	if per, bar := s.ExpectedPlantedPerNode(), s.ExpectedLocalKth(10); per >= bar {
		t.Fatalf("planted %.0f a node, not below the local 10th %.0f", per, bar)
	}
	top := s.ExpectedTop(10)
	found := false
	for _, e := range top {
		found = found || e.Key == s.PlantedKey()
	}
	if !found {
		t.Fatalf("planted item not in the expected global top 10: %+v", top)
	}
	shared := splitConfig()
	shared.Own = false
	sh := mustSplit(t, shared)
	if a, b := sh.ItemKey(0, 7), sh.ItemKey(5, 7); a != b {
		t.Fatalf("shared items differ by node: %d, %d", a, b)
	}
}

func TestNewSplitErrors(t *testing.T) {
	for _, c := range []func(*SplitConfig){
		func(c *SplitConfig) { c.Events = 0 },
		func(c *SplitConfig) { c.Nodes = 0 },
		func(c *SplitConfig) { c.Nodes = MaxSplitNodes + 1 },
		func(c *SplitConfig) { c.Keys = 0 },
		func(c *SplitConfig) { c.S = []float64{1, 2} },
		func(c *SplitConfig) { c.S = []float64{-1} },
		func(c *SplitConfig) { c.Plant = 1 },
		func(c *SplitConfig) { c.Rate = 0 },
		func(c *SplitConfig) { c.ChunkSize = -1 },
	} {
		cfg := splitConfig()
		c(&cfg)
		if _, err := NewSplit(cfg); err == nil {
			t.Errorf("accepted %+v", cfg)
		}
	}
}
