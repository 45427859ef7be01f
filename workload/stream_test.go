package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cespare/xxhash/v2"
)

// testConfig is a small stream used by several tests.
func testConfig() StreamConfig {
	return StreamConfig{
		Seed:      2024,
		Label:     "views",
		Events:    100_003, // not a multiple of the chunk size: a short last chunk
		Keys:      1_000_000,
		S:         1.0,
		Scramble:  true,
		Rate:      250_000,
		ChunkSize: 4096,
	}
}

func mustStream(t testing.TB, cfg StreamConfig) *Stream {
	t.Helper()
	s, err := NewStream(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chunked is a stream cut into chunks: Stream, Timed, Scores.
type chunked interface {
	Chunks() int
	Chunk(i int, buf []Event) []Event
}

// sequential returns the whole stream built by one goroutine in order.
func sequential(s chunked) []Event {
	var all, buf []Event
	for i := range s.Chunks() {
		buf = s.Chunk(i, buf)
		all = append(all, buf...)
	}
	return all
}

// digest hashes every field of every event in order.
func digest(events []Event) uint64 {
	h := xxhash.New()
	var b [41]byte
	for _, e := range events {
		for i, v := range []uint64{uint64(e.At), e.Key, e.Actor, uint64(e.Delta), e.ID} {
			for j := range 8 {
				b[8*i+j] = byte(v >> (8 * j))
			}
		}
		b[40] = byte(e.Op)
		h.Write(b[:])
	}
	return h.Sum64()
}

func TestNewStreamErrors(t *testing.T) {
	checkRefused(t, testConfig, NewStream, []refusal[StreamConfig]{
		{"events=0", func(c *StreamConfig) { c.Events = 0 }, "workload: stream events 0 not >= 1"},
		{"events<0", func(c *StreamConfig) { c.Events = -5 }, "workload: stream events -5 not >= 1"},
		{"keys=0", func(c *StreamConfig) { c.Keys = 0 }, "workload: stream keys 0 not in [1, 1e9]"},
		{"keys>1e9", func(c *StreamConfig) { c.Keys = 2e9 }, "workload: stream keys 2000000000 not in [1, 1e9]"},
		{"s<0", func(c *StreamConfig) { c.S = -1 }, "workload: stream exponent s -1 not a finite number >= 0"},
		{"s=NaN", func(c *StreamConfig) { c.S = math.NaN() }, "workload: stream exponent s NaN not a finite number >= 0"},
		{"s=Inf", func(c *StreamConfig) { c.S = math.Inf(1) }, "workload: stream exponent s +Inf not a finite number >= 0"},
		{"rate=0", func(c *StreamConfig) { c.Rate = 0 }, "workload: stream rate 0 events/s not a finite number > 0"},
		{"rate<0", func(c *StreamConfig) { c.Rate = -3 }, "workload: stream rate -3 events/s not a finite number > 0"},
		{"rate=NaN", func(c *StreamConfig) { c.Rate = math.NaN() }, "workload: stream rate NaN events/s not a finite number > 0"},
		{"rate=Inf", func(c *StreamConfig) { c.Rate = math.Inf(1) }, "workload: stream rate +Inf events/s not a finite number > 0"},
		{"chunk<0", func(c *StreamConfig) { c.ChunkSize = -1 }, "workload: stream chunk size -1 not >= 0 (0 means 65536)"},
		{"too long", func(c *StreamConfig) { c.Events = 1e12; c.Rate = 1e-3 },
			"workload: stream of 1000000000000 events at 0.001 events/s lasts 1e+24 ns, beyond int64 time (9.22e+18 ns)"},
	})
}

// refusal is a config edit that the constructor must refuse with want.
type refusal[C any] struct {
	name string
	edit func(*C)
	want string
}

// checkRefused applies each edit to a fresh base config and wants exactly
// the error message, and no stream with it.
func checkRefused[C, R any](t *testing.T, base func() C, build func(C) (*R, error), cases []refusal[C]) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base()
			tt.edit(&cfg)
			s, err := build(cfg)
			if err == nil {
				t.Fatalf("got a stream, nil; want error %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
			if s != nil {
				t.Errorf("got a stream with the error, want nil")
			}
		})
	}
}

func TestStreamConfig(t *testing.T) {
	cfg := testConfig()
	cfg.ChunkSize = 0
	s := mustStream(t, cfg)
	want := cfg
	want.ChunkSize = DefaultChunkSize
	if got := s.Config(); got != want {
		t.Errorf("Config(): got %+v, want %+v", got, want)
	}
	for _, tt := range []struct {
		events int64
		chunk  int
		want   int
	}{{1, 1, 1}, {1, 65536, 1}, {65536, 0, 1}, {65537, 0, 2}, {100_003, 4096, 25}, {10, 3, 4}, {9, 3, 3}} {
		cfg := testConfig()
		cfg.Events, cfg.ChunkSize = tt.events, tt.chunk
		if got := mustStream(t, cfg).Chunks(); got != tt.want {
			t.Errorf("events %d, chunk size %d: got %d chunks, want %d", tt.events, tt.chunk, got, tt.want)
		}
	}
}

// TestStreamEvents checks every field of every event of a whole stream.
func TestStreamEvents(t *testing.T) {
	cfg := testConfig()
	s := mustStream(t, cfg)
	events := sequential(s)
	if int64(len(events)) != cfg.Events {
		t.Fatalf("got %d events, want %d", len(events), cfg.Events)
	}
	scr := NewScrambler(cfg.Seed)
	for i, e := range events {
		if e.ID != uint64(i)+1 {
			t.Fatalf("event %d: got ID %d, want %d", i, e.ID, i+1)
		}
		if e.Op != Write || e.Delta != 1 || e.Actor != 0 {
			t.Fatalf("event %d: got op %v delta %d actor %d, want write 1 0", i, e.Op, e.Delta, e.Actor)
		}
		if want := int64(math.Round(float64(i) * 1e9 / cfg.Rate)); e.At != want {
			t.Fatalf("event %d: got At %d, want %d", i, e.At, want)
		}
		if i > 0 && e.At <= events[i-1].At {
			t.Fatalf("event %d: got At %d after %d, want increasing", i, e.At, events[i-1].At)
		}
		if rank := scr.Rank(e.Key); rank < 1 || rank > cfg.Keys {
			t.Fatalf("event %d: got key %#x of rank %d, want a rank in [1, %d]", i, e.Key, rank, cfg.Keys)
		}
		if e.Key != s.KeyOf(scr.Rank(e.Key)) {
			t.Fatalf("event %d: KeyOf disagrees with NewScrambler(Seed)", i)
		}
		if r := s.RankOf(e.Key); r != scr.Rank(e.Key) || s.KeyOf(r) != e.Key {
			t.Fatalf("event %d: RankOf(%#x) = %d, not the inverse of KeyOf", i, e.Key, r)
		}
	}
	// The hottest key is KeyOf(1), and its share is P(1) = 1/H(10^6, 1)
	// ≈ 0.0695 within 5.33 binomial sd (see the tolerances in zipf_test.go).
	count := 0
	for _, e := range events {
		if e.Key == s.KeyOf(1) {
			count++
		}
	}
	if d := freqZ(int64(count), len(events), s.Prob(1)); d > zTail {
		t.Errorf("key of rank 1: got %d of %d events, want %.0f (%.1f sd off)", count, len(events), s.Prob(1)*float64(len(events)), d)
	}
}

// TestStreamChunkRand checks that chunk i's keys are exactly the ranks that
// Zipf.Rank draws from ChunkRand(Seed, Label, i), so a user can rebuild any
// chunk from the documented pieces.
func TestStreamChunkRand(t *testing.T) {
	cfg := testConfig()
	s := mustStream(t, cfg)
	z, err := NewZipf(cfg.Keys, cfg.S)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, s.Chunks() - 1} {
		r := ChunkRand(cfg.Seed, cfg.Label, i)
		for j, e := range s.Chunk(i, nil) {
			if want := s.KeyOf(z.Rank(r)); e.Key != want {
				t.Fatalf("chunk %d event %d: got key %#x, want %#x", i, j, e.Key, want)
			}
		}
	}
}

// TestStreamDeterminism builds the same stream by one goroutine in order
// and by four goroutines taking chunks in a shuffled order: the events must
// be identical. The same config built twice must agree too.
func TestStreamDeterminism(t *testing.T) {
	for _, scramble := range []bool{false, true} {
		cfg := testConfig()
		cfg.Scramble = scramble
		s := mustStream(t, cfg)
		want := sequential(s)

		chunks := make([][]Event, s.Chunks())
		order := rand.New(rand.NewPCG(5, 5)).Perm(s.Chunks())
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
		for _, i := range order {
			next <- i
		}
		close(next)
		wg.Wait()
		if got := slices.Concat(chunks...); !slices.Equal(got, want) {
			t.Errorf("scramble=%v: 4 goroutines in shuffled order: got a different stream than 1 goroutine in order", scramble)
		}
		if again := sequential(mustStream(t, cfg)); !slices.Equal(again, want) {
			t.Errorf("scramble=%v: same config twice: got different streams", scramble)
		}
	}
}

// TestStreamIndependence checks that the label and the seed each change the
// ranks drawn, while the label leaves the rank→key map alone.
func TestStreamIndependence(t *testing.T) {
	base := testConfig()
	ranks := func(cfg StreamConfig) []uint64 {
		s := mustStream(t, cfg)
		scr := NewScrambler(cfg.Seed)
		var rs []uint64
		for _, e := range s.Chunk(0, nil) {
			rs = append(rs, scr.Rank(e.Key))
		}
		return rs
	}
	// Two independent Zipf(10^6, 1) draws agree with probability
	// Σ P(k)² ≈ ζ(2)/H² ≈ 0.008: about 33 of 4096.
	agree := func(a, b []uint64) int {
		n := 0
		for i := range a {
			if a[i] == b[i] {
				n++
			}
		}
		return n
	}
	r0 := ranks(base)
	other := base
	other.Label = "views2"
	if n := agree(r0, ranks(other)); n > 100 {
		t.Errorf("labels %q and %q: got %d of %d ranks equal, want about 33", base.Label, other.Label, n, len(r0))
	}
	other = base
	other.Seed++
	if n := agree(r0, ranks(other)); n > 100 {
		t.Errorf("seeds %d and %d: got %d of %d ranks equal, want about 33", base.Seed, other.Seed, n, len(r0))
	}
	other = base
	other.Label = "reads"
	a, b := mustStream(t, base), mustStream(t, other)
	for rank := uint64(1); rank <= 10; rank++ {
		if a.KeyOf(rank) != b.KeyOf(rank) {
			t.Errorf("rank %d: got keys %#x and %#x for labels %q and %q, want one key per seed", rank, a.KeyOf(rank), b.KeyOf(rank), base.Label, other.Label)
		}
	}
	// Distinct chunks of one stream get distinct generators.
	seen := map[[2]uint64]int{}
	for i := range 10_000 {
		hi, lo := chunkSeed(base.Seed, xxhash.Sum64String(base.Label), i)
		if j, ok := seen[[2]uint64{hi, lo}]; ok {
			t.Fatalf("chunks %d and %d: got the same PCG seed", j, i)
		}
		seen[[2]uint64{hi, lo}] = i
	}
}

// TestStreamGolden pins a digest of a whole stream: it changes only when the
// stream's definition changes on purpose (then update the constant and say
// so in the commit).
func TestStreamGolden(t *testing.T) {
	const want = 0x73d7e54bd294d44a
	if got := digest(sequential(mustStream(t, testConfig()))); got != want {
		t.Errorf("digest of testConfig's stream: got %#x, want %#x", got, want)
	}
}

func TestStreamUnscrambled(t *testing.T) {
	cfg := testConfig()
	cfg.Scramble = false
	cfg.Keys = 10
	cfg.S = 0
	s := mustStream(t, cfg)
	for _, e := range s.Chunk(0, nil) {
		if e.Key < 1 || e.Key > 10 {
			t.Fatalf("got key %d, want a rank in [1, 10]", e.Key)
		}
	}
	if got := s.KeyOf(7); got != 7 {
		t.Errorf("KeyOf(7): got %d, want 7", got)
	}
	if got := s.Prob(7); got != 0.1 {
		t.Errorf("Prob(7): got %v, want 0.1", got)
	}
}

func TestStreamChunkBuffer(t *testing.T) {
	s := mustStream(t, testConfig())
	last := s.Chunks() - 1
	wantLast := int(testConfig().Events) - last*testConfig().ChunkSize

	buf := make([]Event, 7, 5000)
	got := s.Chunk(0, buf)
	if len(got) != 4096 || &got[0] != &buf[:1][0] {
		t.Errorf("chunk 0 into cap 5000: got len %d (same array %v), want 4096 in buf", len(got), &got[0] == &buf[:1][0])
	}
	if got = s.Chunk(last, got); len(got) != wantLast {
		t.Errorf("last chunk: got %d events, want %d", len(got), wantLast)
	}
	if got = s.Chunk(1, make([]Event, 0, 10)); len(got) != 4096 {
		t.Errorf("chunk 1 into cap 10: got %d events, want 4096", len(got))
	}
	for _, i := range []int{-1, s.Chunks()} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, fmt.Sprintf("chunk %d not in [0, %d)", i, s.Chunks())) {
					t.Errorf("Chunk(%d): got panic %q, want one naming the range", i, msg)
				}
			}()
			s.Chunk(i, nil)
		}()
	}
}

func TestStreamChunkNoAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops generators at random under -race")
	}
	s := mustStream(t, testConfig())
	buf := make([]Event, 0, testConfig().ChunkSize)
	i := 0
	allocs := testing.AllocsPerRun(50, func() {
		buf = s.Chunk(i%s.Chunks(), buf)
		i++
	})
	if allocs != 0 {
		t.Errorf("got %v allocs per Chunk with a big enough buffer, want 0", allocs)
	}
}

// TestRoundTime checks roundTime against int64(math.Round(y)) at the
// values where a cheaper rounding goes wrong (just below a half, halves,
// the ends of the exact integers, 2^63 less an ulp) and at random values of
// every magnitude up to 2^63, half of them exact halves.
func TestRoundTime(t *testing.T) {
	ys := []float64{0, math.Copysign(0, -1), 0.5, math.Nextafter(0.5, 0), math.Nextafter(0.5, 1), 1, 1.5, 2.5,
		math.Nextafter(1.5, 0), 1<<52 - 0.5, 1<<52 - 1.5, 1 << 52, 1<<52 + 1, 1<<53 - 1, 1 << 53, 1<<53 + 2,
		1 << 62, math.Nextafter(1<<63, 0), 4503599627370495.5, 12345.499999999998}
	r := rand.New(rand.NewPCG(5, 6))
	for range 1_000_000 {
		y := math.Ldexp(r.Float64(), r.IntN(64))
		if r.IntN(2) == 0 {
			y = math.Floor(y) + 0.5
		}
		if y < 1<<63 {
			ys = append(ys, y)
		}
	}
	for _, y := range ys {
		if got, want := roundTime(y), int64(math.Round(y)); got != want {
			t.Fatalf("roundTime(%v): got %d, want %d", y, got, want)
		}
	}
	// A cheaper rounding the test must catch: int64(y + 0.5) is wrong just
	// below a half and at the top of the exact halves.
	for _, y := range []float64{math.Nextafter(0.5, 0), 1<<52 + 1} {
		if int64(y+0.5) == int64(math.Round(y)) {
			t.Errorf("int64(%v + 0.5) = round(%v): the test's hard values are not hard", y, y)
		}
	}
}

// ChunkRanks gives Chunk's events and, beside each, the rank of its key.
func TestStreamChunkRanks(t *testing.T) {
	for _, scramble := range []bool{false, true} {
		s, err := NewStream(StreamConfig{Seed: 9, Label: "events", Events: 10_000, Keys: 1e9, S: 1.1, Scramble: scramble, Rate: 1e6, ChunkSize: 3000})
		if err != nil {
			t.Fatal(err)
		}
		var ranks []uint32
		var evs []Event
		for i := range s.Chunks() {
			want := s.Chunk(i, nil)
			evs, ranks = s.ChunkRanks(i, evs, ranks)
			if !slices.Equal(evs, want) || len(ranks) != len(want) {
				t.Fatalf("scramble %v, chunk %d: ChunkRanks' events differ from Chunk's (%d ranks for %d events)", scramble, i, len(ranks), len(want))
			}
			for j, e := range evs {
				if uint64(ranks[j]) != s.RankOf(e.Key) || ranks[j] < 1 {
					t.Fatalf("scramble %v, chunk %d, event %d: rank %d, want RankOf = %d", scramble, i, j, ranks[j], s.RankOf(e.Key))
				}
			}
		}
	}
}
