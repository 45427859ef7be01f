package workload

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// Each statistical check of this file fails a correct build with
// probability at most pScores = 10^−7 (χ² quantiles, exact binomial tails,
// and zScores ≈ 5.33 sd for normal ones); there are six, so all together
// fail less than once in a million runs. The other checks are exact.
const pScores = 1e-7

var zScores = distuv.UnitNormal.Quantile(1 - pScores/2)

// scoreConfig is matchConfig's day (143,650 writes over 3.5 s, 3,000
// reads/s, 10^6 players at s = 1) as a leaderboard: increments of 1..10
// points, 30% absolute scores of 0..5.
func scoreConfig() ScoreConfig {
	return ScoreConfig{Timed: matchConfig(), DeltaMin: 1, DeltaMax: 10, SetShare: 0.3, SetMax: 5}
}

func mustScores(t testing.TB, cfg ScoreConfig) *Scores {
	t.Helper()
	s, err := NewScores(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewScoresErrors(t *testing.T) {
	for _, tt := range []struct {
		edit func(*ScoreConfig)
		want string
	}{
		{func(c *ScoreConfig) { c.DeltaMin = 0 }, "scores delta_min 0 not in 1..delta_max (10)"},
		{func(c *ScoreConfig) { c.DeltaMin = -3 }, "scores delta_min -3 not in 1..delta_max (10)"},
		{func(c *ScoreConfig) { c.DeltaMin = 11 }, "scores delta_min 11 not in 1..delta_max (10)"},
		{func(c *ScoreConfig) { c.DeltaMax = 0 }, "scores delta_max 0 not in 1..2^32"},
		{func(c *ScoreConfig) { c.DeltaMax = MaxScorePoints + 1 }, "scores delta_max 4294967297 not in 1..2^32"},
		{func(c *ScoreConfig) { c.SetShare = -0.1 }, "scores set_share -0.1 not in [0, 1]"},
		{func(c *ScoreConfig) { c.SetShare = 1.5 }, "scores set_share 1.5 not in [0, 1]"},
		{func(c *ScoreConfig) { c.SetShare = math.NaN() }, "scores set_share NaN not in [0, 1]"},
		{func(c *ScoreConfig) { c.SetMax = -1 }, "scores set_max -1 not in 0..2^32"},
		{func(c *ScoreConfig) { c.SetMax = MaxScorePoints + 1 }, "scores set_max 4294967297 not in 0..2^32"},
		{func(c *ScoreConfig) { c.Timed.Keys = 0 }, "timed keys 0 not in [1, 1e9]"},
		{func(c *ScoreConfig) {
			// 10^9 writes/s for 10^4 s: 10^13 writes... above the Timed
			// limit, so 10^11 writes of 2^32 points instead.
			c.Timed.Phases = []Phase{{Duration: 100_000 * 1e9, Rate: 1e6, To: 1e6}}
			c.DeltaMax = MaxScorePoints
		}, "scores expect 1e+11 writes of up to 4294967296 points"},
	} {
		cfg := scoreConfig()
		tt.edit(&cfg)
		s, err := NewScores(cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "workload: ") {
			t.Errorf("got (%v, %v), want an error containing %q", s, err, tt.want)
		}
	}
	for _, edit := range []func(*ScoreConfig){
		func(c *ScoreConfig) { c.DeltaMin, c.DeltaMax = 1, 1 },
		func(c *ScoreConfig) { c.DeltaMin, c.DeltaMax = MaxScorePoints, MaxScorePoints },
		func(c *ScoreConfig) { c.SetShare, c.SetMax = 0, 0 },
		func(c *ScoreConfig) { c.SetShare, c.SetMax = 1, MaxScorePoints },
	} {
		cfg := scoreConfig()
		edit(&cfg)
		if _, err := NewScores(cfg); err != nil {
			t.Errorf("%+v: got %v, want no error", cfg, err)
		}
	}
}

func TestScoresConfig(t *testing.T) {
	cfg := scoreConfig()
	cfg.Timed.Window = 0
	s := mustScores(t, cfg)
	got := s.Config()
	if got.Timed.Window != DefaultWindow || got.DeltaMin != 1 || got.DeltaMax != 10 || got.SetShare != 0.3 || got.SetMax != 5 {
		t.Errorf("Config: got %+v, want the config with Window %d", got, DefaultWindow)
	}
	got.Timed.Phases[0].Rate = 12345
	if s.Config().Timed.Phases[0].Rate == 12345 {
		t.Errorf("Config: the Phases slice is shared with the stream, want a copy")
	}
	if w := s.ExpectedWrites(); w != 143_650 {
		t.Errorf("ExpectedWrites: got %v, want 143650", w)
	}
	if m := s.MeanDelta(); m != 5.5 {
		t.Errorf("MeanDelta: got %v, want 5.5", m)
	}
	if e := s.ExpectedSets(); math.Abs(e-0.3*143_650) > 1e-6 {
		t.Errorf("ExpectedSets: got %v, want %v", e, 0.3*143_650)
	}
	if Set.String() != "set" || Write.String() != "write" || Read.String() != "read" || Write != 0 || Read != 1 {
		t.Errorf("Op: got %v=%d %v=%d %v=%d, want write=0 read=1 set", Write, Write, Read, Read, Set, Set)
	}
}

// TestScoresAgainstTimed checks a Scores stream against its Timed stream,
// with resends, for both arrivals: the same events but for the writes' Op
// and Delta; reads untouched; every change in range; and a resend (same ID)
// carrying its original's change, key and actor.
func TestScoresAgainstTimed(t *testing.T) {
	for _, arr := range []Arrivals{Even, Poisson} {
		t.Run(arr.String(), func(t *testing.T) {
			cfg := scoreConfig()
			cfg.Timed = busyConfig(arr)
			cfg.Timed.Resend = 0.2
			s := mustScores(t, cfg)
			got, want := sequential(s), timedAll(t, mustTimed(t, cfg.Timed))
			if len(got) != len(want) {
				t.Fatalf("got %d events, want the Timed stream's %d", len(got), len(want))
			}
			byID := map[uint64]Event{}
			resends := 0
			for i, e := range got {
				w := want[i]
				if w.Op == Read {
					if e != w {
						t.Fatalf("event %d: got %+v, want the Timed read %+v", i, e, w)
					}
					continue
				}
				if e.At != w.At || e.Key != w.Key || e.Actor != w.Actor || e.ID != w.ID {
					t.Fatalf("event %d: got %+v, want the Timed write %+v but for Op and Delta", i, e, w)
				}
				switch e.Op {
				case Write:
					if e.Delta < cfg.DeltaMin || e.Delta > cfg.DeltaMax {
						t.Fatalf("event %d: got increment %d, want in [%d, %d]", i, e.Delta, cfg.DeltaMin, cfg.DeltaMax)
					}
				case Set:
					if e.Delta < 0 || e.Delta > cfg.SetMax {
						t.Fatalf("event %d: got set %d, want in [0, %d]", i, e.Delta, cfg.SetMax)
					}
				default:
					t.Fatalf("event %d: got Op %v for a write, want write or set", i, e.Op)
				}
				if o, ok := byID[e.ID]; ok {
					resends++
					if o.Op != e.Op || o.Delta != e.Delta || o.Key != e.Key || o.Actor != e.Actor {
						t.Fatalf("event %d, ID %#x: got resend %+v, want its original %+v but for At", i, e.ID, e, o)
					}
				}
				byID[e.ID] = e
			}
			// About 0.2 of 143,650 writes are resent; far more than 1,000.
			if resends < 1000 {
				t.Errorf("got %d resends, want the stream's ~%.0f", resends, 0.2*s.ExpectedWrites())
			}
		})
	}
}

// TestScoresDeterminism builds the same stream twice, and once by four
// goroutines taking chunks in a shuffled order: identical. Another seed
// draws other changes.
func TestScoresDeterminism(t *testing.T) {
	cfg := scoreConfig()
	cfg.Timed = busyConfig(Poisson)
	s := mustScores(t, cfg)
	want := sequential(s)
	if again := sequential(mustScores(t, cfg)); !slices.Equal(again, want) {
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
	// The same writes with another label draw their changes independently:
	// two changes agree with probability 0.7²/10 + 0.3²/6 = 0.064 (ops and
	// deltas; keys and times are redrawn too, so compare by ID: Even IDs
	// do not depend on the label).
	c := cfg
	c.Timed.Arrivals, cfg.Timed.Arrivals = Even, Even
	c.Timed.Label = "other"
	a, b := sequential(mustScores(t, cfg)), sequential(mustScores(t, c))
	ops := map[uint64]Event{}
	for _, e := range a {
		ops[e.ID] = e
	}
	n, same := 0, 0
	for _, e := range b {
		if o, ok := ops[e.ID]; ok && e.Op != Read {
			n++
			if o.Op == e.Op && o.Delta == e.Delta {
				same++
			}
		}
	}
	if limit := 0.064*float64(n) + zScores*math.Sqrt(0.064*float64(n)); n < 100_000 || float64(same) > limit {
		t.Errorf("another label: got %d of %d changes equal, want <= %.0f of > 100000", same, n, limit)
	}
}

// TestScoresGolden pins a digest of scoreConfig's stream with busyConfig's
// resends: it changes only when the stream's definition does.
func TestScoresGolden(t *testing.T) {
	cfg := scoreConfig()
	cfg.Timed = busyConfig(Poisson)
	const want uint64 = 0xc125e05e32cccdd6
	if got := digest(sequential(mustScores(t, cfg))); got != want {
		t.Errorf("digest: got %#x, want %#x", got, want)
	}
}

// uniformChi2 returns Pearson's χ² of integer values against the uniform
// law on [lo, hi] over bins bins of (nearly) equal width, each with its
// exact probability, and the critical value at pScores.
func uniformChi2(t *testing.T, values []int64, lo, hi int64, bins int) (x2, crit float64) {
	t.Helper()
	w := hi - lo + 1
	edge := func(b int) int64 { return lo + int64(b)*w/int64(bins) } // bin b is [edge(b), edge(b+1))
	counts, p := make([]int64, bins), make([]float64, bins)
	for b := range bins {
		p[b] = float64(edge(b+1)-edge(b)) / float64(w)
	}
	for _, v := range values {
		if v < lo || v > hi {
			t.Fatalf("got %d, want in [%d, %d]", v, lo, hi)
		}
		counts[int((v-lo)*int64(bins)/w)]++ // the b with edge(b) ≤ v < edge(b+1)
	}
	return chiSquare(counts, p), distuv.ChiSquared{K: float64(bins - 1)}.Quantile(1 - pScores)
}

// TestScoresUniform checks the law of the points by Pearson's χ²: the
// increments over their 10 values, the absolute scores over their 6, and
// increments over a range of 3·2^30 values in 12 bins, where a 32-bit
// modulo would favour the first third twice over.
func TestScoresUniform(t *testing.T) {
	big := scoreConfig()
	big.DeltaMin, big.DeltaMax, big.SetShare = 7, 7+3<<30-1, 0
	for _, c := range []struct {
		name   string
		cfg    ScoreConfig
		op     Op
		lo, hi int64
		bins   int
	}{
		{"increments", scoreConfig(), Write, 1, 10, 10},
		{"sets", scoreConfig(), Set, 0, 5, 6},
		{"wide increments", big, Write, big.DeltaMin, big.DeltaMax, 12},
	} {
		var values []int64
		for _, e := range sequential(mustScores(t, c.cfg)) {
			if e.Op == c.op {
				values = append(values, e.Delta)
			}
		}
		// 143,650 writes: ≥ 40,000 of each kind, ≥ 3,000 a bin.
		x2, crit := uniformChi2(t, values, c.lo, c.hi, c.bins)
		t.Logf("%s: χ² %.1f over %d bins from %d values (critical %.1f)", c.name, x2, c.bins, len(values), crit)
		if x2 > crit {
			t.Errorf("%s: got χ² %.1f over %d bins, want <= %.1f", c.name, x2, c.bins, crit)
		}
	}
}

// TestScoresUniformPower runs TestScoresUniform's χ² on deliberately
// skewed draws of the same size, which it must reject: an off-by-one that
// never draws DeltaMax (its bin empty: χ² ≈ N/9 ≈ 11,000), and a 32-bit
// modulo over 3·2^30 values (the first quarter of 2^32 counted twice:
// χ² ≈ N/8 ≈ 12,500), against critical values near 50.
func TestScoresUniformPower(t *testing.T) {
	const n = 100_000
	src := SplitMix(99)
	small, wide := make([]int64, n), make([]int64, n)
	const w = 3 << 30
	for i := range n {
		hi, _ := bits.Mul64(src.Uint64(), 9) // 1..9, not 1..10
		small[i] = 1 + int64(hi)
		wide[i] = int64(uint64(uint32(src.Uint64())) % w)
	}
	x2, crit := uniformChi2(t, small, 1, 10, 10)
	t.Logf("off-by-one: χ² %.0f (critical %.1f)", x2, crit)
	if x2 <= crit {
		t.Errorf("off-by-one: got χ² %.1f, want > %.1f", x2, crit)
	}
	if x2, crit := uniformChi2(t, wide, 0, w-1, 12); x2 <= crit {
		t.Errorf("32-bit modulo: got χ² %.1f, want > %.1f", x2, crit)
	}
	// uniformN itself, on the same range: accepted.
	for i := range n {
		wide[i] = int64(uniformN(&src, w))
	}
	if x2, crit := uniformChi2(t, wide, 0, w-1, 12); x2 > crit {
		t.Errorf("uniformN(%d): got χ² %.1f, want <= %.1f", w, x2, crit)
	}
}

// TestScoresSetShare counts the absolute scores among the writes, which
// Even arrivals fix at 143,650: Binomial(143,650, SetShare), within
// zScores sd (exact at 0 and 1).
func TestScoresSetShare(t *testing.T) {
	for _, share := range []float64{0, 0.3, 1} {
		cfg := scoreConfig()
		cfg.SetShare = share
		var writes, sets int
		for _, e := range sequential(mustScores(t, cfg)) {
			switch e.Op {
			case Set:
				sets++
				fallthrough
			case Write:
				writes++
			}
		}
		mean := share * float64(writes)
		if d := math.Abs(float64(sets) - mean); writes != 143_650 || d > zScores*math.Sqrt(mean*(1-share)) {
			t.Errorf("set_share %v: got %d sets of %d writes, want %.0f ± %.0f of 143650", share, sets, writes, mean, zScores*math.Sqrt(mean*(1-share)))
		}
	}
}

// TestScoresTies: 1,000 players, uniform activity, 20,000 increments of 1
// or 2 points. A player with m changes scores in [m, 2m], and m ≤ k for
// every player but with probability 1000·P(Binomial(20000, 1/1000) > k) ≤
// pScores, so the scores take at most 2k + 1 values and, by pigeonhole, at
// most 2k + 1 players hold a score of their own: at least 1000 − (2k + 1)
// (about 890) share theirs. Points drawn from a wide range would tie
// almost never.
func TestScoresTies(t *testing.T) {
	const players, n = 1000, 20_000
	cfg := ScoreConfig{
		Timed: TimedConfig{
			Seed: 3, Label: "league", Keys: players, S: 0, Arrivals: Even,
			Phases: []Phase{{Duration: 2e9, Rate: n / 2, To: n / 2}},
		},
		DeltaMin: 1, DeltaMax: 2,
	}
	score := make([]int64, players+1)
	for _, e := range sequential(mustScores(t, cfg)) {
		score[e.Key] += e.Delta
	}
	bin := distuv.Binomial{N: n, P: 1.0 / players}
	k := 0
	for players*bin.Survival(float64(k)) > pScores {
		k++
	}
	holders := map[int64]int{}
	for _, v := range score[1:] {
		holders[v]++
	}
	shared := 0
	for _, c := range holders {
		if c > 1 {
			shared += c
		}
	}
	want := players - (2*k + 1)
	t.Logf("%d players share a score, %d distinct scores; bound %d (k = %d)", shared, len(holders), want, k)
	if shared < want {
		t.Errorf("got %d of %d players sharing a score, want >= %d", shared, players, want)
	}
}

// TestScoresActivity checks that the players' activity is the Timed
// stream's Zipf: the hottest player (rank 1, unscrambled) makes
// Binomial(143,650, P(1)) of the changes, P(1) = 1/H(10^6, 1) ≈ 0.0695.
func TestScoresActivity(t *testing.T) {
	cfg := scoreConfig()
	cfg.Timed.Scramble = false
	s := mustScores(t, cfg)
	var writes, hot int64
	for _, e := range sequential(s) {
		if e.Op != Read {
			writes++
			if e.Key == 1 {
				hot++
			}
		}
	}
	if d := freqZ(hot, int(writes), s.Timed().Prob(1)); d > zScores {
		t.Errorf("player 1: got %d of %d changes, want %.0f (%.1f sd off)", hot, writes, s.Timed().Prob(1)*float64(writes), d)
	}
}

func TestScoresChunkNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops generators at random under -race")
	}
	cfg := scoreConfig()
	cfg.Timed = busyConfig(Poisson)
	s := mustScores(t, cfg)
	var buf []Event
	for i := range s.Chunks() {
		buf = s.Chunk(i, buf)
	}
	i := 0
	if allocs := testing.AllocsPerRun(100, func() {
		buf = s.Chunk(i%s.Chunks(), buf)
		i++
	}); allocs != 0 {
		t.Errorf("got %v allocs per Chunk with a big enough buffer, want 0", allocs)
	}
}

// BenchmarkScoresChunk puts a Scores chunk beside its Timed chunk (the
// floor: the same events without the changes): a fantasy league's peak at
// 50,000 changes/s over 2·10^7 players at s = 1, with 5,000 rank queries/s
// and 1% resends.
func BenchmarkScoresChunk(b *testing.B) {
	cfg := ScoreConfig{
		Timed: TimedConfig{
			Seed: 1, Label: "bench", Keys: 20_000_000, S: 1, Scramble: true, Arrivals: Poisson,
			Phases: []Phase{{Duration: 60_000 * msNs, Rate: 50_000, To: 50_000}},
			Reads:  5_000, Resend: 0.01, ResendDelay: 100 * msNs,
		},
		DeltaMin: 1, DeltaMax: 25, SetShare: 0.01, SetMax: 1000,
	}
	s := mustScores(b, cfg)
	for _, impl := range []struct {
		name  string
		chunk func(int, []Event) []Event
	}{{"timed", s.Timed().Chunk}, {"scores", s.Chunk}} {
		b.Run(fmt.Sprintf("impl=%s", impl.name), func(b *testing.B) {
			buf := make([]Event, 0, 10_000)
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

// TestScoresStandings: the standings are uniform on [0, StartMax] by the
// same χ² as the changes, a pure function of the rank (the same on a second
// stream of the same config, different under another seed), and 0 without
// Standings; a start_max beyond 2^32 is refused.
func TestScoresStandings(t *testing.T) {
	cfg := scoreConfig()
	cfg.Standings, cfg.StartMax = true, 99
	s, again := mustScores(t, cfg), mustScores(t, cfg)
	other := cfg
	other.Timed.Seed++
	o := mustScores(t, other)
	values := make([]int64, 0, 50_000)
	same := 0
	for rank := uint64(1); rank <= 50_000; rank++ {
		v := s.StartScore(rank)
		if v != again.StartScore(rank) {
			t.Fatalf("rank %d: %d, then %d", rank, v, again.StartScore(rank))
		}
		if v == o.StartScore(rank) {
			same++
		}
		values = append(values, v)
	}
	if same > 50_000/100*2 { // 1% expected to agree by chance
		t.Fatalf("another seed gives the same standing for %d of 50,000 players", same)
	}
	x2, crit := uniformChi2(t, values, 0, 99, 20)
	if x2 > crit {
		t.Errorf("standings: χ² %.1f over 20 bins, want <= %.1f", x2, crit)
	}
	if v := mustScores(t, scoreConfig()).StartScore(7); v != 0 {
		t.Errorf("without standings: %d", v)
	}
	cfg.StartMax = MaxScorePoints + 1
	if _, err := NewScores(cfg); err == nil {
		t.Errorf("start_max 2^32+1 accepted")
	}
}
