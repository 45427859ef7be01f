package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Each statistical check of this file fails a correct build with
// probability at most pScores = 10^−7 (χ² quantiles and zScores ≈ 5.33 sd
// for normal ones); there are five, so together they fail far less than
// once in a million runs. The other checks are exact.

// ratingsConfig is a small ratings stream: 200,003 ratings (a short last
// chunk) of 5,000 items at s = 1 on 1..5 stars, qualities in [2, 4.8].
func ratingsConfig() RatingsConfig {
	return RatingsConfig{Seed: 10, Label: "ratings", Ratings: 200_003, Items: 5_000, S: 1, Scramble: true,
		ScaleMin: 1, ScaleMax: 5, QualityMin: 2, QualityMax: 4.8, ChunkSize: 4096}
}

func mustRatings(t testing.TB, cfg RatingsConfig) *Ratings {
	t.Helper()
	s, err := NewRatings(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewRatingsErrors(t *testing.T) {
	checkRefused(t, ratingsConfig, NewRatings, []refusal[RatingsConfig]{
		{"ratings=0", func(c *RatingsConfig) { c.Ratings = 0 }, "workload: ratings 0 not >= 1"},
		{"items=0", func(c *RatingsConfig) { c.Items = 0 }, "workload: ratings items 0 not in [1, 1e9]"},
		{"items>1e9", func(c *RatingsConfig) { c.Items = 2e9 }, "workload: ratings items 2000000000 not in [1, 1e9]"},
		{"s<0", func(c *RatingsConfig) { c.S = -1 }, "workload: ratings exponent s -1 not a finite number >= 0"},
		{"s=NaN", func(c *RatingsConfig) { c.S = math.NaN() }, "workload: ratings exponent s NaN not a finite number >= 0"},
		{"scale min<0", func(c *RatingsConfig) { c.ScaleMin = -1 }, "workload: ratings scale -1..5 not a range of 1 to 10 steps from 0 up"},
		{"scale empty", func(c *RatingsConfig) { c.ScaleMax = 1 }, "workload: ratings scale 1..1 not a range of 1 to 10 steps from 0 up"},
		{"scale wide", func(c *RatingsConfig) { c.ScaleMax = 12 }, "workload: ratings scale 1..12 not a range of 1 to 10 steps from 0 up"},
		{"quality below", func(c *RatingsConfig) { c.QualityMin = 0.5 }, "workload: ratings quality 0.5..4.8 not within the scale 1..5, min <= max"},
		{"quality above", func(c *RatingsConfig) { c.QualityMax = 7 }, "workload: ratings quality 2..7 not within the scale 1..5, min <= max"},
		{"quality reversed", func(c *RatingsConfig) { c.QualityMin, c.QualityMax = 4, 3 }, "workload: ratings quality 4..3 not within the scale 1..5, min <= max"},
		{"quality NaN", func(c *RatingsConfig) { c.QualityMax = math.NaN() }, "workload: ratings quality 2..NaN not within the scale 1..5, min <= max"},
		{"chunk<0", func(c *RatingsConfig) { c.ChunkSize = -1 }, "workload: ratings chunk size -1 not >= 0 (0 means 65536)"},
	})
}

// TestRatingsDeterminism: the same config gives the same events; four
// goroutines taking chunks in a shuffled order give them too; another chunk
// size cuts the same sequence; another seed gives another one.
func TestRatingsDeterminism(t *testing.T) {
	cfg := ratingsConfig()
	s := mustRatings(t, cfg)
	want := sequential(s)
	if len(want) != int(cfg.Ratings) {
		t.Fatalf("got %d events, want %d", len(want), cfg.Ratings)
	}
	if again := sequential(mustRatings(t, cfg)); !slices.Equal(again, want) {
		t.Errorf("same config twice: got different streams")
	}
	chunks := make([][]Event, s.Chunks())
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			var buf []Event
			for i := range next {
				buf = s.Chunk(i, buf)
				chunks[i] = slices.Clone(buf)
			}
		})
	}
	for _, i := range rand.New(rand.NewPCG(7, 7)).Perm(s.Chunks()) {
		next <- i
	}
	close(next)
	wg.Wait()
	if got := slices.Concat(chunks...); !slices.Equal(got, want) {
		t.Errorf("4 goroutines in shuffled order: got a different stream than 1 goroutine in order")
	}
	c := cfg
	c.ChunkSize = 1000
	if got := sequential(mustRatings(t, c)); !slices.Equal(got, want) {
		t.Errorf("chunk size 1000: got a different sequence than chunk size 4096")
	}
	c = cfg
	c.Seed++
	other := sequential(mustRatings(t, c))
	same := 0
	for i := range other {
		if other[i] == want[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("seed+1: %d of %d events identical (keys are 64-bit scrambled ids)", same, len(want))
	}
}

// TestRatingsEvents: every event's fields as documented, the stars on the
// scale, the keys those of ranks 1..Items.
func TestRatingsEvents(t *testing.T) {
	cfg := ratingsConfig()
	s := mustRatings(t, cfg)
	for j, e := range sequential(s) {
		if e.Op != Write || e.ID != uint64(j)+1 || e.At != int64(j) || e.Actor != 0 {
			t.Fatalf("event %d: %+v", j, e)
		}
		if e.Delta < cfg.ScaleMin || e.Delta > cfg.ScaleMax {
			t.Fatalf("event %d: %d stars, off the scale %d..%d", j, e.Delta, cfg.ScaleMin, cfg.ScaleMax)
		}
		if r := s.RankOf(e.Key); r < 1 || r > cfg.Items || s.KeyOf(r) != e.Key {
			t.Fatalf("event %d: key %#x of rank %d", j, e.Key, r)
		}
	}
	for r := uint64(1); r <= cfg.Items; r++ {
		if q := s.Quality(r); q < cfg.QualityMin || q >= cfg.QualityMax {
			t.Fatalf("rank %d: quality %v outside [%v, %v)", r, q, cfg.QualityMin, cfg.QualityMax)
		}
	}
	c := cfg
	c.Scramble = false
	for _, e := range sequential(mustRatings(t, c))[:1000] {
		if e.Key < 1 || e.Key > cfg.Items {
			t.Fatalf("unscrambled key %d not a rank", e.Key)
		}
	}
}

// TestRatingsLaw holds the stream to its laws. Over all N ratings, the sum
// of (stars − q) has mean 0 and variance Σ w·p(1−p): within zScores sd.
// A per-star law is then checked on the most rated item: its histogram
// against lo + Binomial(4, p) by Pearson's χ² (4 dof), and its share of
// ratings against its Zipf probability. The qualities are uniform on
// [qmin, qmax): a χ² over 10 equal bins of the 5,000 items. A rating law
// off by one star, a p of (q − lo)/(w+1), a quality law on the wrong range
// or a popularity not Zipf fails one of them.
func TestRatingsLaw(t *testing.T) {
	cfg := ratingsConfig()
	cfg.Ratings = 1_000_000
	if testing.Short() {
		cfg.Ratings = 300_000
	}
	s := mustRatings(t, cfg)
	w := float64(cfg.ScaleMax - cfg.ScaleMin)
	var dev, variance float64
	hot := s.KeyOf(1)
	var hist [5]int64
	var hotN int64
	for _, e := range sequential(s) {
		q := s.Quality(s.RankOf(e.Key))
		p := (q - 1) / w
		dev += float64(e.Delta) - q
		variance += w * p * (1 - p)
		if e.Key == hot {
			hist[e.Delta-1]++
			hotN++
		}
	}
	if z := math.Abs(dev) / math.Sqrt(variance); z > zScores {
		t.Errorf("Σ(stars − quality) = %.1f, %.1f sd from 0", dev, z)
	}
	if d := freqZ(hotN, int(cfg.Ratings), s.Prob(1)); d > zScores {
		t.Errorf("item 1: %d of %d ratings, want %.0f (%.1f sd off)", hotN, cfg.Ratings, s.Prob(1)*float64(cfg.Ratings), d)
	}
	p := (s.Quality(1) - 1) / w
	var x2 float64
	for k := range 5 {
		want := float64(hotN) * binomial(4, k) * math.Pow(p, float64(k)) * math.Pow(1-p, float64(4-k))
		x2 += (float64(hist[k]) - want) * (float64(hist[k]) - want) / want
	}
	if crit := (distuv.ChiSquared{K: 4}).Quantile(1 - pScores); x2 > crit {
		t.Errorf("item 1 (quality %.3f): stars %v, χ² = %.1f > %.1f against 1 + Binomial(4, %.3f)", s.Quality(1), hist, x2, crit, p)
	}
	var bins [10]float64
	for r := uint64(1); r <= cfg.Items; r++ {
		bins[int((s.Quality(r)-cfg.QualityMin)/(cfg.QualityMax-cfg.QualityMin)*10)]++
	}
	var qx2 float64
	want := float64(cfg.Items) / 10
	for _, n := range bins {
		qx2 += (n - want) * (n - want) / want
	}
	if crit := (distuv.ChiSquared{K: 9}).Quantile(1 - pScores); qx2 > crit {
		t.Errorf("qualities in 10 bins %v: χ² = %.1f > %.1f against uniform", bins, qx2, crit)
	}
}

// TestRatingsUpProb: P(stars ≥ up) from the binomial pmf, at the example
// of the doc comment and at the ends.
func TestRatingsUpProb(t *testing.T) {
	s := mustRatings(t, ratingsConfig())
	for _, c := range []struct {
		q    float64
		up   int64
		want float64
	}{
		{4, 5, math.Pow(0.75, 4)},
		{4, 4, math.Pow(0.75, 4) + 4*math.Pow(0.75, 3)*0.25},
		{3, 4, 5.0 / 16},
		{2.5, 1, 1},
		{2.5, 6, 0},
		{5, 5, 1},
	} {
		if got := s.UpProb(c.q, c.up); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("UpProb(%v, %d) = %v, want %v", c.q, c.up, got, c.want)
		}
	}
}

func TestRatingsChunkNoAlloc(t *testing.T) {
	s := mustRatings(t, ratingsConfig())
	buf := s.Chunk(0, nil)
	i := 0
	if allocs := testing.AllocsPerRun(50, func() {
		buf = s.Chunk(i%s.Chunks(), buf)
		i++
	}); allocs != 0 {
		t.Errorf("got %v allocs per Chunk with a big enough buffer, want 0", allocs)
	}
}

// BenchmarkRatingsChunk puts a ratings chunk beside a Stream chunk of the
// same keys (the floor: the Zipf draw and key without the quality and the
// stars).
func BenchmarkRatingsChunk(b *testing.B) {
	cfg := ratingsConfig()
	cfg.Items, cfg.Ratings = 100_000, 1_000_000
	s := mustRatings(b, cfg)
	st := mustStream(b, StreamConfig{Seed: cfg.Seed, Label: "bench", Events: cfg.Ratings, Keys: cfg.Items, S: 1, Scramble: true,
		Rate: 1e9, ChunkSize: cfg.ChunkSize})
	for _, impl := range []struct {
		name  string
		chunk func(int, []Event) []Event
	}{{"floor", st.Chunk}, {"ratings", s.Chunk}} {
		b.Run(fmt.Sprintf("impl=%s", impl.name), func(b *testing.B) {
			buf := make([]Event, 0, cfg.ChunkSize)
			var events, i int
			b.ReportAllocs()
			for b.Loop() {
				buf = impl.chunk(i%s.Chunks(), buf)
				events += len(buf)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
		})
	}
}
