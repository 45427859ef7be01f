package workload

// Benchmarks of stream generation, each beside its floor: the simplest
// correct loop doing the same work, so a run prints the ratio of countsim
// to the floor side by side (compare runs with benchstat):
//
//	go test ./workload/ -run '^$' -bench 'ZipfRank|Stream(Chunk|At)' -count 8

import (
	"math"
	"math/rand/v2"
	"testing"
)

// floorZipf1 is the floor of Zipf.Rank at s = 1: rejection-inversion
// (Hörmann & Derflinger 1996) written for s = 1 alone, where H(x) = ln x,
// H⁻¹(y) = e^y and h(x) = 1/x, drawing straight from a PCG. Its ranks are
// Zipf(n, 1) but not always Zipf.Rank's: 1/k and e^(−ln k) differ in the
// last bit for some k, which moves a rare rejection (TestFloorZipf1).
type floorZipf1 struct {
	nf, hX1, hN, squeeze float64
}

func newFloorZipf1(n uint64) floorZipf1 {
	return floorZipf1{
		nf:      float64(n),
		hX1:     math.Log(1.5) - 1,
		hN:      math.Log(float64(n) + 0.5),
		squeeze: 2 - math.Exp(math.Log(2.5)-0.5),
	}
}

func (f *floorZipf1) rank(p *rand.PCG) uint64 {
	for {
		u := f.hN + float64(p.Uint64()<<11>>11)*0x1p-53*(f.hX1-f.hN)
		x := math.Exp(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > f.nf {
			k = f.nf
		}
		if k-x <= f.squeeze || u >= math.Log(k+0.5)-1/k {
			return uint64(k)
		}
	}
}

// TestFloorZipf1 checks the floor against Zipf.Rank on the same bits: it
// must draw the same rank nearly always (a difference needs a rejection
// test that 1/k and e^(−ln k) decide apart), so a floor that measures
// something else (a wrong hat, a missing rejection) fails.
func TestFloorZipf1(t *testing.T) {
	for _, n := range []uint64{2, 1000, 400_000_000} {
		z, err := NewZipf(n, 1)
		if err != nil {
			t.Fatal(err)
		}
		f := newFloorZipf1(n)
		pf, pz := rand.NewPCG(7, uint64(n)), rand.NewPCG(7, uint64(n))
		r := rand.New(pz)
		const draws = 200_000
		differ := 0
		for range draws {
			if f.rank(pf) != z.Rank(r) {
				differ++
				// Realign the two generators after a differing retry.
				*pf = *pz
			}
		}
		t.Logf("n=%d: %d of %d draws differ", n, differ, draws)
		if differ > draws/1000 {
			t.Errorf("n=%d: the floor and Zipf.Rank differ on %d of %d draws, want at most %d", n, differ, draws, draws/1000)
		}
	}
}

func BenchmarkZipfRank(b *testing.B) {
	for _, bc := range []struct {
		name  string
		s     float64
		n     uint64
		floor bool
	}{
		{"s=1/n=1e6", 1, 1_000_000, true},
		{"s=1/n=4e8", 1, 400_000_000, true},
		{"s=0/n=1e6", 0, 1_000_000, false},
		{"s=0.7/n=1e6", 0.7, 1_000_000, false},
		{"s=1.2/n=1e6", 1.2, 1_000_000, false},
		{"s=1.5/n=4e8", 1.5, 400_000_000, false},
	} {
		if bc.floor {
			b.Run(bc.name+"/impl=floor", func(b *testing.B) {
				f := newFloorZipf1(bc.n)
				p := rand.NewPCG(1, 2)
				b.ReportAllocs()
				var sink uint64
				for b.Loop() {
					sink += f.rank(p)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
				_ = sink
			})
		}
		b.Run(bc.name+"/impl=countsim", func(b *testing.B) {
			z, err := NewZipf(bc.n, bc.s)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			var sink uint64
			for b.Loop() {
				sink += z.Rank(r)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/event")
			_ = sink
		})
	}
}

// floorChunk is the floor of Stream.Chunk at s = 1, scrambled: the chunk's
// PCG, the floor's rank, the Scrambler's key and At by its definition,
// round(index·10^9/Rate).
func floorChunk(f *floorZipf1, scr Scrambler, p *rand.PCG, seed, labelHash uint64, i int, rate float64, buf []Event) []Event {
	p.Seed(chunkSeed(seed, labelHash, i))
	start := int64(i) * int64(len(buf))
	for j := range buf {
		index := start + int64(j)
		buf[j] = Event{
			At:    int64(math.Round(float64(index) * 1e9 / rate)),
			Key:   scr.Key(f.rank(p)),
			Delta: 1,
			ID:    uint64(index) + 1,
		}
	}
	return buf
}

// TestFloorChunk checks the floor of Stream.Chunk against Chunk: the same
// At, ID and Delta everywhere, and the same key on nearly every event (see
// TestFloorZipf1 for why not all).
func TestFloorChunk(t *testing.T) {
	cfg := StreamConfig{Seed: 3, Label: "floor", Events: 1 << 20, Keys: 1_000_000, S: 1, Scramble: true, Rate: 123_457}
	s := mustStream(t, cfg)
	f := newFloorZipf1(cfg.Keys)
	var p rand.PCG
	const chunk = 5
	want := s.Chunk(chunk, nil)
	got := floorChunk(&f, NewScrambler(cfg.Seed), &p, cfg.Seed, s.labelHash, chunk, cfg.Rate, make([]Event, len(want)))
	keys := 0
	for j := range want {
		g, w := got[j], want[j]
		if g.At != w.At || g.ID != w.ID || g.Delta != w.Delta || g.Op != w.Op || g.Actor != w.Actor {
			t.Fatalf("event %d: got %+v, want %+v", j, g, w)
		}
		if g.Key != w.Key {
			keys++
		}
	}
	t.Logf("%d of %d keys differ", keys, len(want))
	if keys > len(want)/1000 {
		t.Errorf("the floor's keys differ on %d of %d events, want at most %d", keys, len(want), len(want)/1000)
	}
}

func BenchmarkStreamChunk(b *testing.B) {
	for _, bc := range []struct {
		name     string
		s        float64
		keys     uint64
		scramble bool
		floor    bool
	}{
		{"s=1/n=1e6/scrambled", 1, 1_000_000, true, true},
		{"s=1/n=4e8/scrambled", 1, 400_000_000, true, true},
		{"s=1/n=1e6/plain", 1, 1_000_000, false, false},
		{"s=0/n=1e6/scrambled", 0, 1_000_000, true, false},
		{"s=0.7/n=1e9/scrambled", 0.7, MaxZipfN, true, false},
		{"s=1.2/n=4e8/scrambled", 1.2, 400_000_000, true, false},
	} {
		cfg := StreamConfig{Seed: 1, Label: "bench", Events: 1 << 30, Keys: bc.keys, S: bc.s,
			Scramble: bc.scramble, Rate: 1e6}
		if bc.floor {
			b.Run(bc.name+"/impl=floor", func(b *testing.B) {
				s := mustStream(b, cfg)
				f := newFloorZipf1(bc.keys)
				scr := NewScrambler(cfg.Seed)
				var p rand.PCG
				buf := make([]Event, DefaultChunkSize)
				i := 0
				b.ReportAllocs()
				for b.Loop() {
					floorChunk(&f, scr, &p, cfg.Seed, s.labelHash, i%s.Chunks(), cfg.Rate, buf)
					i++
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/DefaultChunkSize, "ns/event")
			})
		}
		b.Run(bc.name+"/impl=countsim", func(b *testing.B) {
			s := mustStream(b, cfg)
			buf := make([]Event, 0, DefaultChunkSize)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				buf = s.Chunk(i%s.Chunks(), buf)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/DefaultChunkSize, "ns/event")
		})
	}
}

// BenchmarkStreamAt times the clock of Stream.Chunk alone, At of 65,536
// events: impl=floor is the definition, int64(math.Round(i·10^9/Rate)),
// impl=countsim is roundTime, the same values for less; impl=reciprocal
// multiplies by 10^9/Rate instead of dividing, which is not the same value
// for every i and Rate, and is here only to show what the division costs.
// Rate 10^6 makes every time whole, Rate 12,345 leaves fractions.
func BenchmarkStreamAt(b *testing.B) {
	for _, rc := range []struct {
		name string
		rate float64
	}{{"rate=1e6", 1e6}, {"rate=12345", 12_345}} {
		rate := rc.rate
		for _, impl := range []string{"floor", "countsim", "reciprocal"} {
			b.Run(rc.name+"/impl="+impl, func(b *testing.B) {
				at := make([]int64, DefaultChunkSize)
				q := 1e9 / rate
				start := int64(1e9)
				b.ReportAllocs()
				for b.Loop() {
					switch impl {
					case "floor":
						for j := range at {
							at[j] = int64(math.Round(float64(start+int64(j)) * 1e9 / rate))
						}
					case "countsim":
						for j := range at {
							at[j] = roundTime(float64(start+int64(j)) * 1e9 / rate)
						}
					case "reciprocal":
						for j := range at {
							at[j] = int64(math.Round(float64(start+int64(j)) * q))
						}
					}
					start += DefaultChunkSize
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/DefaultChunkSize, "ns/event")
			})
		}
	}
}
