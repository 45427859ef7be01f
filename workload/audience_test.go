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
	"time"
)

// cricketDays are the worked example's two days (WORKED-EXAMPLES.md, cricket
// step 2), scaled by scale.
func cricketDays(scale int64) []Day {
	return []Day{
		{Viewers: 40 * scale},
		{Viewers: 38 * scale, Overlap: 30 * scale},
	}
}

func mustAudience(t testing.TB, cfg AudienceConfig) *Audience {
	t.Helper()
	a, err := NewAudience(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.check(); err != nil {
		t.Fatalf("check: %v", err)
	}
	return a
}

// audienceDays returns every event of every day, built in order by one
// goroutine.
func audienceDays(a *Audience) [][]Event {
	days := make([][]Event, a.Days())
	var buf []Event
	for d := range days {
		for i := range a.Chunks(d) {
			buf = a.Chunk(d, i, buf)
			days[d] = append(days[d], buf...)
		}
	}
	return days
}

// viewsByIndex counts the views of each viewer index in one day's events,
// failing on an Actor that is not the id of an index of the day.
func viewsByIndex(t *testing.T, a *Audience, d int, events []Event) map[uint64]int {
	t.Helper()
	lo, hi := a.Indices(d)
	views := make(map[uint64]int, hi-lo)
	for j, e := range events {
		idx := a.ViewerIndex(e.Actor)
		if idx < lo || idx >= hi || a.ViewerID(idx) != e.Actor {
			t.Fatalf("day %d event %d: got actor %#x of index %d, want the id of an index in [%d, %d)", d, j, e.Actor, idx, lo, hi)
		}
		views[idx]++
	}
	return views
}

// TestAudienceCricket checks the worked example at full scale from the
// layout alone: 40 M + 38 M viewers, 30 M on both days, 48 M in all, and
// adding the days' counts would claim 78 M.
func TestAudienceCricket(t *testing.T) {
	days := append(cricketDays(1_000_000), Day{Viewers: 35_000_000, Overlap: 33_000_000})
	a := mustAudience(t, AudienceConfig{Seed: 1, Label: "cricket", Days: days, Views: Views{Fixed: 1}})
	if a.Days() != 3 {
		t.Fatalf("got %d days, want 3", a.Days())
	}
	for _, tt := range []struct {
		days []int
		want int64
	}{
		{[]int{0}, 40_000_000},
		{[]int{1}, 38_000_000},
		{[]int{0, 1}, 48_000_000}, // 40 + 38 − 30
		{[]int{1, 0}, 48_000_000},
		{[]int{0, 0, 1, 1}, 48_000_000},
		{[]int{1, 2}, 40_000_000}, // 38 + 35 − 33
		{[]int{0, 2}, 50_000_000}, // [0, 40 M) ∪ [15 M, 50 M)
		{[]int{2, 0, 1}, 50_000_000},
		{nil, 0},
	} {
		if got := a.Union(tt.days...); got != tt.want {
			t.Errorf("Union(%v): got %d, want %d", tt.days, got, tt.want)
		}
	}
	if got := a.Distinct(0) + a.Distinct(1); got != 78_000_000 {
		t.Errorf("Distinct(0) + Distinct(1): got %d, want 78,000,000 (the sum that overcounts)", got)
	}
	for d, want := range [][2]uint64{{0, 40_000_000}, {10_000_000, 48_000_000}, {15_000_000, 50_000_000}} {
		if lo, hi := a.Indices(d); lo != want[0] || hi != want[1] {
			t.Errorf("Indices(%d): got [%d, %d), want [%d, %d)", d, lo, hi, want[0], want[1])
		}
		if got := a.Distinct(d); got != days[d].Viewers {
			t.Errorf("Distinct(%d): got %d, want %d", d, got, days[d].Viewers)
		}
		if got := a.Events(d); got != days[d].Viewers {
			t.Errorf("Events(%d) with 1 view each: got %d, want %d", d, got, days[d].Viewers)
		}
		if got, want := a.Chunks(d), int((days[d].Viewers+DefaultChunkSize-1)/DefaultChunkSize); got != want {
			t.Errorf("Chunks(%d): got %d, want %d", d, got, want)
		}
	}
	// Viewers on both day 0 and day 2 also watched day 1.
	if both := a.Distinct(0) + a.Distinct(2) - a.Union(0, 2); both != 25_000_000 {
		t.Errorf("viewers of days 0 and 2: got %d, want 25,000,000", both)
	}
	// The last chunk of day 1 ends the day: IDs run on from day 0.
	last := a.Chunk(1, a.Chunks(1)-1, nil)
	e := last[len(last)-1]
	if e.ID != 78_000_000 {
		t.Errorf("last event of day 1: got ID %d, want 78,000,000", e.ID)
	}
	if lo, hi := int64(audienceDayNs), int64(2*audienceDayNs); e.At < lo || e.At >= hi {
		t.Errorf("last event of day 1: got At %d, want in [%d, %d)", e.At, lo, hi)
	}

	fixed3 := mustAudience(t, AudienceConfig{Seed: 1, Days: cricketDays(1_000_000), Views: Views{Fixed: 3}})
	if got := fixed3.Events(0) + fixed3.Events(1); got != 3*78_000_000 {
		t.Errorf("events with 3 views each: got %d, want %d", got, 3*78_000_000)
	}
}

// TestAudienceEvents generates the example at 1/1000 scale with 3 views
// each and checks every event against a map.
func TestAudienceEvents(t *testing.T) {
	const views = 3
	cfg := AudienceConfig{Seed: 7, Label: "cricket", Days: cricketDays(1000), Views: Views{Fixed: views}, ChunkSize: 4099}
	a := mustAudience(t, cfg)
	all := audienceDays(a)
	var id uint64
	sets := make([]map[uint64]int, a.Days())
	for d, events := range all {
		v := cfg.Days[d].Viewers
		if got := int64(len(events)); got != a.Events(d) || got != views*v {
			t.Fatalf("day %d: got %d events, want Events() = %d = %d·%d", d, got, a.Events(d), views, v)
		}
		seen := make(map[uint64]int, v) // views so far by index
		for j, e := range events {
			id++
			if e.ID != id || e.Op != Write || e.Delta != 1 || e.Key != AudienceKey {
				t.Fatalf("day %d event %d: got ID %d op %v delta %d key %d, want ID %d write 1 key %d",
					d, j, e.ID, e.Op, e.Delta, e.Key, id, AudienceKey)
			}
			hi, lo := bits.Mul64(uint64(j), audienceDayNs)
			q, _ := bits.Div64(hi, lo, uint64(len(events)))
			if want := int64(d)*audienceDayNs + int64(q); e.At != want {
				t.Fatalf("day %d event %d: got At %d, want %d", d, j, e.At, want)
			}
			// Rounds: view k of every viewer comes before view k+1 of any.
			idx := a.ViewerIndex(e.Actor)
			if round := int64(j) / v; int64(seen[idx]) != round {
				t.Fatalf("day %d event %d (round %d): got the view %d of viewer %d, want view %d", d, j, round, seen[idx]+1, idx, round+1)
			}
			seen[idx]++
		}
		sets[d] = viewsByIndex(t, a, d, events)
		if int64(len(sets[d])) != v || a.Distinct(d) != v {
			t.Errorf("day %d: got %d distinct viewers (Distinct() = %d), want %d", d, len(sets[d]), a.Distinct(d), v)
		}
		for idx, n := range sets[d] {
			if n != views {
				t.Fatalf("day %d viewer %d: got %d views, want %d", d, idx, n, views)
			}
		}
	}
	both := 0
	for idx := range sets[1] {
		if _, ok := sets[0][idx]; ok {
			both++
		}
	}
	if both != 30_000 {
		t.Errorf("viewers of both days: got %d, want 30,000", both)
	}
	if got := int64(len(sets[0]) + len(sets[1]) - both); got != 48_000 || a.Union(0, 1) != got {
		t.Errorf("union: got %d from the events and %d from Union, want 48,000", got, a.Union(0, 1))
	}

	// Returning and fresh viewers are mixed evenly through the day: of the
	// first half of round 0 on day 1 (19,000 views), 30/38 should be
	// returning, 15,000. Round 0 in index order would give 19,000. The
	// Weyl order's step a/V follows the golden ratio's continued fraction,
	// whose first N points have star discrepancy N·D*_N ≤ 3 + 3.52·ln N ≈ 38
	// at N = 19,000 (Kuipers & Niederreiter, Uniform Distribution of
	// Sequences, ch. 2 thm 3.4 with partial quotients 1), so an interval gets
	// its share within 2·38; an i.i.d. random order would be off by about
	// √(19,000·0.79·0.21) ≈ 56 and sometimes by 300.
	returning := 0
	for _, e := range all[1][:19_000] {
		if a.ViewerIndex(e.Actor) < 40_000 {
			returning++
		}
	}
	if d := returning - 15_000; d < -100 || d > 100 {
		t.Errorf("first half of day 1's round 0: got %d returning viewers, want 15,000 ± 100", returning)
	}
}

// TestAudienceZipfViews checks the stratified Zipf numbers of views: the
// day's histogram is V·P(m) rounded, each count within 1, so the day's
// events are within (M−1)/2 of V·E[X] (one rounding of ±1/2 for each round
// r = 1..M−1). These are deterministic bounds, not sampling tolerances; an
// off-by-one in the rounds (P(X ≥ r) for P(X > r)) moves every viewer by a
// whole view.
func TestAudienceZipfViews(t *testing.T) {
	for _, tt := range []struct {
		max   uint64
		s     float64
		scale int64 // viewers: 40·scale and 38·scale
	}{{100, 1, 1000}, {100, 2, 1000}, {20, 0, 1000}, {1, 0.5, 1000}, {1000, 1.3, 100}} {
		t.Run(fmt.Sprintf("max=%d/s=%g", tt.max, tt.s), func(t *testing.T) {
			cfg := AudienceConfig{Seed: 3, Label: "zipf", Days: cricketDays(tt.scale), Views: Views{ZipfMax: tt.max, ZipfS: tt.s}, ChunkSize: 10_007}
			a := mustAudience(t, cfg)
			z, err := NewZipf(tt.max, tt.s) // max ≤ 1024: Prob's norm is the exact sum
			if err != nil {
				t.Fatal(err)
			}
			var mean float64
			for m := uint64(1); m <= tt.max; m++ {
				mean += float64(m) * z.Prob(m)
			}
			for d, events := range audienceDays(a) {
				v := float64(cfg.Days[d].Viewers)
				if int64(len(events)) != a.Events(d) {
					t.Fatalf("day %d: got %d events, Events() = %d", d, len(events), a.Events(d))
				}
				views := viewsByIndex(t, a, d, events)
				if int64(len(views)) != a.Distinct(d) {
					t.Fatalf("day %d: got %d distinct viewers, want %d", d, len(views), a.Distinct(d))
				}
				hist := make([]int, tt.max+1)
				for _, n := range views {
					if n < 1 || uint64(n) > tt.max {
						t.Fatalf("day %d: got a viewer with %d views, want 1..%d", d, n, tt.max)
					}
					hist[n]++
				}
				for m := uint64(1); m <= tt.max; m++ {
					if want := v * z.Prob(m); math.Abs(float64(hist[m])-want) > 1+1e-9*v {
						t.Errorf("day %d: got %d viewers with %d views, want %.3f ± 1", d, hist[m], m, want)
					}
				}
				tol := float64(tt.max-1)/2 + 1e-9*v*mean
				t.Logf("day %d: %.4f views per viewer, theory %.4f (tolerance %.2g)", d, float64(len(events))/v, mean, tol/v)
				if diff := float64(len(events)) - v*mean; math.Abs(diff) > tol {
					t.Errorf("day %d: got %d events = %.5f per viewer, want V·E[X] = %.1f ± %.1f (%.5f per viewer)",
						d, len(events), float64(len(events))/v, v*mean, tol, mean)
				}
			}
		})
	}
}

// TestAudienceHeavySpread checks that the heavy viewers are spread over
// the returning and the fresh viewers of a day in proportion.
func TestAudienceHeavySpread(t *testing.T) {
	cfg := AudienceConfig{Seed: 5, Label: "heavy", Days: cricketDays(1000), Views: Views{ZipfMax: 50, ZipfS: 1}}
	a := mustAudience(t, cfg)
	views := viewsByIndex(t, a, 1, audienceDays(a)[1])
	var heavy, heavyReturning int
	for idx, n := range views {
		if n >= 5 {
			heavy++
			if idx < 40_000 {
				heavyReturning++
			}
		}
	}
	// P(X ≥ 5) = 1 − H(4)/H(50) ≈ 0.54 of 38,000: about 20,400 heavy, the
	// first ranks of the Weyl order, of whom 30/38 should be returning:
	// within 2·(3 + 3.52·ln 20,400) ≈ 76 by the bound of TestAudienceEvents.
	// Heavy viewers taken in index order would be off by thousands.
	want := float64(heavy) * 30 / 38
	if d := float64(heavyReturning) - want; math.Abs(d) > 100 {
		t.Errorf("day 1: got %d of %d heavy viewers returning, want %.0f ± 100", heavyReturning, heavy, want)
	}
}

// TestAudienceUnionSmall compares Distinct, Union and the overlaps with maps
// built from the events of many small random audiences, every subset of
// days.
func TestAudienceUnionSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 300 {
		days := make([]Day, 1+r.IntN(5))
		for d := range days {
			days[d].Viewers = r.Int64N(30)
			if d > 0 && r.IntN(5) > 0 {
				days[d].Overlap = r.Int64N(min(days[d].Viewers, days[d-1].Viewers) + 1)
			}
		}
		views := Views{Fixed: 1 + r.IntN(3)}
		if r.IntN(2) == 0 {
			views = Views{ZipfMax: 1 + r.Uint64N(5), ZipfS: r.Float64() * 2}
		}
		cfg := AudienceConfig{Seed: r.Uint64(), Label: "small", Days: days, Views: views, ChunkSize: 1 + r.IntN(20)}
		a := mustAudience(t, cfg)
		sets := make([]map[uint64]int, len(days))
		for d, events := range audienceDays(a) {
			sets[d] = viewsByIndex(t, a, d, events)
			if int64(len(events)) != a.Events(d) || int64(len(sets[d])) != days[d].Viewers || a.Distinct(d) != days[d].Viewers {
				t.Fatalf("trial %d %+v day %d: got %d events (Events %d), %d viewers (Distinct %d), want %d viewers",
					trial, cfg, d, len(events), a.Events(d), len(sets[d]), a.Distinct(d), days[d].Viewers)
			}
			if d > 0 {
				both := 0
				for idx := range sets[d] {
					if _, ok := sets[d-1][idx]; ok {
						both++
					}
				}
				if int64(both) != days[d].Overlap {
					t.Fatalf("trial %d %+v day %d: got %d viewers also on day %d, want %d", trial, cfg, d, both, d-1, days[d].Overlap)
				}
			}
		}
		for mask := range 1 << len(days) {
			var ds []int
			union := map[uint64]bool{}
			for d := range days {
				if mask>>d&1 == 1 {
					ds = append(ds, d)
					for idx := range sets[d] {
						union[idx] = true
					}
				}
			}
			if got := a.Union(ds...); got != int64(len(union)) {
				t.Fatalf("trial %d %+v: Union(%v): got %d, want %d", trial, cfg, ds, got, len(union))
			}
		}
	}
}

// TestAudienceDeterminism builds every chunk of every day by four goroutines
// in a shuffled order and compares with one goroutine in order; the chunk
// size must not change the events either.
func TestAudienceDeterminism(t *testing.T) {
	for _, views := range []Views{{Fixed: 2}, {ZipfMax: 30, ZipfS: 1.1}} {
		cfg := AudienceConfig{Seed: 9, Label: "det", Days: append(cricketDays(500), Day{Viewers: 0}, Day{Viewers: 7000}),
			Views: views, ChunkSize: 3001}
		a := mustAudience(t, cfg)
		want := audienceDays(a)

		type job struct{ day, chunk int }
		var jobs []job
		for d := range a.Days() {
			for i := range a.Chunks(d) {
				jobs = append(jobs, job{d, i})
			}
		}
		rand.New(rand.NewPCG(1, 1)).Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		chunks := make([][][]Event, a.Days())
		for d := range chunks {
			chunks[d] = make([][]Event, a.Chunks(d))
		}
		next := make(chan job)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				var buf []Event
				for j := range next {
					buf = a.Chunk(j.day, j.chunk, buf)
					chunks[j.day][j.chunk] = slices.Clone(buf)
				}
			})
		}
		for _, j := range jobs {
			next <- j
		}
		close(next)
		wg.Wait()
		other := cfg
		other.ChunkSize = 0
		b := mustAudience(t, other)
		again := audienceDays(b)
		for d := range want {
			if got := slices.Concat(chunks[d]...); !slices.Equal(got, want[d]) {
				t.Errorf("views %+v day %d: 4 goroutines in shuffled order: got different events than 1 in order", views, d)
			}
			if !slices.Equal(again[d], want[d]) {
				t.Errorf("views %+v day %d: chunk size %d and %d: got different events", views, d, cfg.ChunkSize, DefaultChunkSize)
			}
		}
	}
}

// TestAudienceSeedLabel checks what the seed and the label change: the seed
// changes the viewer ids; the label changes the order of the rounds and
// which viewers are heavy, but not the ids.
func TestAudienceSeedLabel(t *testing.T) {
	base := AudienceConfig{Seed: 1, Label: "a", Days: cricketDays(100), Views: Views{ZipfMax: 10, ZipfS: 1}}
	a := mustAudience(t, base)
	other := base
	other.Label = "b"
	b := mustAudience(t, other)
	other = base
	other.Seed = 2
	c := mustAudience(t, other)
	for i := range uint64(1000) {
		if a.ViewerID(i) != b.ViewerID(i) {
			t.Fatalf("viewer %d: got ids %#x and %#x for labels a and b, want one id per seed", i, a.ViewerID(i), b.ViewerID(i))
		}
		if a.ViewerID(i) == c.ViewerID(i) {
			t.Errorf("viewer %d: got id %#x for seeds 1 and 2, want different ids", i, a.ViewerID(i))
		}
		if a.ViewerID(i) == NewScrambler(base.Seed).Key(i) {
			t.Errorf("viewer %d: got the key of rank %d of a stream of the same seed, want unrelated ids", i, i)
		}
	}
	if got, want := a.ViewerID(12345), NewScrambler(base.Seed^ViewerSeedTag).Key(12345); got != want {
		t.Errorf("ViewerID(12345): got %#x, want %#x", got, want)
	}
	da, db := audienceDays(a), audienceDays(b)
	for d := range da {
		if slices.Equal(da[d][:100], db[d][:100]) {
			t.Errorf("day %d: labels a and b give the same order", d)
		}
		va, vb := viewsByIndex(t, a, d, da[d]), viewsByIndex(t, b, d, db[d])
		differ := 0
		for idx, n := range va {
			if vb[idx] != n {
				differ++
			}
		}
		if differ == 0 {
			t.Errorf("day %d: labels a and b make the same viewers heavy", d)
		}
	}
}

func TestAudienceViewerID(t *testing.T) {
	a := mustAudience(t, AudienceConfig{Seed: 42, Days: []Day{{Viewers: 1}}, Views: Views{Fixed: 1}})
	seen := make(map[uint64]uint64, 100_000)
	for i := range uint64(100_000) {
		id := a.ViewerID(i)
		if j, ok := seen[id]; ok {
			t.Fatalf("viewers %d and %d: got the same id %#x", j, i, id)
		}
		seen[id] = i
		if a.ViewerIndex(id) != i {
			t.Fatalf("ViewerIndex(ViewerID(%d)): got %d", i, a.ViewerIndex(id))
		}
	}
	for _, i := range []uint64{math.MaxUint64, 1 << 63} {
		if a.ViewerIndex(a.ViewerID(i)) != i {
			t.Errorf("ViewerIndex(ViewerID(%d)): got %d", i, a.ViewerIndex(a.ViewerID(i)))
		}
	}
}

func TestNewAudienceErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(*AudienceConfig)
		want string
	}{
		{"no days", func(c *AudienceConfig) { c.Days = nil }, "workload: audience has no days"},
		{"too many days", func(c *AudienceConfig) { c.Days = make([]Day, 106_752) },
			"workload: audience has 106752 days, more than 106751 (the last would end beyond int64 time)"},
		{"viewers<0", func(c *AudienceConfig) { c.Days[1].Viewers = -1 }, "workload: audience days[1] viewers -1 not >= 0"},
		{"overlap on day 0", func(c *AudienceConfig) { c.Days[0].Overlap = 5 },
			"workload: audience days[0] overlap 5 not 0 (there is no previous day)"},
		{"overlap<0", func(c *AudienceConfig) { c.Days[1].Overlap = -3 }, "workload: audience days[1] overlap -3 not >= 0"},
		{"overlap>viewers", func(c *AudienceConfig) { c.Days[1].Overlap = 39 },
			"workload: audience days[1] overlap 39 > its viewers 38"},
		{"overlap>previous", func(c *AudienceConfig) { c.Days[0].Viewers = 20 },
			"workload: audience days[1] overlap 30 > the previous day's viewers 20"},
		{"fixed<0", func(c *AudienceConfig) { c.Views.Fixed = -1 }, "workload: audience views fixed -1 not in [0, 65536]"},
		{"fixed>max", func(c *AudienceConfig) { c.Views.Fixed = MaxViews + 1 }, "workload: audience views fixed 65537 not in [0, 65536]"},
		{"fixed and zipf", func(c *AudienceConfig) { c.Views.ZipfMax = 10 },
			"workload: audience views fixed 3 with zipf max 10 and s 0: set fixed or zipf, not both"},
		{"fixed and s", func(c *AudienceConfig) { c.Views.ZipfS = 1 },
			"workload: audience views fixed 3 with zipf max 0 and s 1: set fixed or zipf, not both"},
		{"no views", func(c *AudienceConfig) { c.Views = Views{} },
			"workload: audience views zipf max 0 not in [1, 65536] (or set fixed >= 1)"},
		{"zipf max>max", func(c *AudienceConfig) { c.Views = Views{ZipfMax: MaxViews + 1} },
			"workload: audience views zipf max 65537 not in [1, 65536] (or set fixed >= 1)"},
		{"s<0", func(c *AudienceConfig) { c.Views = Views{ZipfMax: 10, ZipfS: -1} },
			"workload: audience views zipf exponent s -1 not a finite number >= 0"},
		{"s=NaN", func(c *AudienceConfig) { c.Views = Views{ZipfMax: 10, ZipfS: math.NaN()} },
			"workload: audience views zipf exponent s NaN not a finite number >= 0"},
		{"s=Inf", func(c *AudienceConfig) { c.Views = Views{ZipfMax: 10, ZipfS: math.Inf(1)} },
			"workload: audience views zipf exponent s +Inf not a finite number >= 0"},
		{"chunk<0", func(c *AudienceConfig) { c.ChunkSize = -1 }, "workload: audience chunk size -1 not >= 0 (0 means 65536)"},
		{"indices", func(c *AudienceConfig) {
			c.Days = []Day{{Viewers: math.MaxInt64}, {Viewers: math.MaxInt64, Overlap: math.MaxInt64 - 1}}
		}, "workload: audience needs more than 9223372036854775807 viewer indices"},
		{"events of a day", func(c *AudienceConfig) { c.Days = []Day{{Viewers: math.MaxInt64 / 2}} },
			"workload: audience days[0]: 4611686018427387903 viewers make more than 9223372036854775807 events"},
		{"events", func(c *AudienceConfig) {
			c.Days = []Day{{Viewers: math.MaxInt64 / 4}, {Viewers: math.MaxInt64 / 4}}
		}, "workload: audience has more than 9223372036854775807 events"},
		{"round tables", func(c *AudienceConfig) {
			c.Views = Views{ZipfMax: MaxViews} // uniform: every round of a big day is full
			c.Days = make([]Day, 300)
			for d := range c.Days {
				c.Days[d].Viewers = 1_000_000 + int64(d)
			}
		}, "workload: audience round tables need 19661100 entries (8 bytes each), more than 16777216: use fewer day sizes or a smaller zipf max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := AudienceConfig{Seed: 1, Days: cricketDays(1), Views: Views{Fixed: 3}}
			tt.edit(&cfg)
			a, err := NewAudience(cfg)
			if err == nil {
				t.Fatalf("got an audience, nil; want error %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got error %q, want %q", err, tt.want)
			}
			if a != nil {
				t.Errorf("got an audience with the error, want nil")
			}
		})
	}
}

// TestAudienceEdges covers the largest accepted values and the empty cases.
func TestAudienceEdges(t *testing.T) {
	// P(X > 1) ≈ 2^−40 at s = 40: about 2^23 of 2^63 − 2^30 viewers make 2
	// views or more, and the day's events still fit in an int64.
	const v = math.MaxInt64 - 1<<30
	big := mustAudience(t, AudienceConfig{Days: []Day{{Viewers: v}}, Views: Views{ZipfMax: 3, ZipfS: 40}})
	if extra := big.Events(0) - v; extra < 1<<22 || extra > 1<<24 {
		t.Errorf("s = 40: got %d events beyond round 0, want about 2^23", extra)
	}
	last := big.Chunk(0, big.Chunks(0)-1, nil)
	if e := last[len(last)-1]; e.At != audienceDayNs-1 || e.ID != uint64(big.Events(0)) {
		t.Errorf("last event of %d: got At %d ID %d, want At %d ID %d", big.Events(0), e.At, e.ID, audienceDayNs-1, big.Events(0))
	}
	one := mustAudience(t, AudienceConfig{Days: []Day{{Viewers: 1}, {}, {Viewers: 2}}, Views: Views{Fixed: MaxViews}})
	if one.Events(0) != MaxViews || one.Chunks(0) != 1 || one.Events(1) != 0 || one.Chunks(1) != 0 || one.Events(2) != 2*MaxViews {
		t.Errorf("got events %d, %d, %d and chunks %d, %d, want %d, 0, %d and 1, 0",
			one.Events(0), one.Events(1), one.Events(2), one.Chunks(0), one.Chunks(1), MaxViews, 2*MaxViews)
	}
	if got := one.Union(0, 1, 2); got != 3 {
		t.Errorf("Union over an empty day: got %d, want 3", got)
	}
	days := make([]Day, audienceMaxDays)
	days[len(days)-1].Viewers = 1
	far := mustAudience(t, AudienceConfig{Days: days, Views: Views{Fixed: 2}})
	if e := far.Chunk(len(days)-1, 0, nil)[1]; e.At != math.MaxInt64/audienceDayNs*audienceDayNs-audienceDayNs/2 {
		t.Errorf("last day: got At %d, want %d", e.At, math.MaxInt64/audienceDayNs*audienceDayNs-audienceDayNs/2)
	}
	// Days of one size share their round table.
	same := make([]Day, 1000)
	for d := range same {
		same[d] = Day{Viewers: 40_000_000, Overlap: min(int64(d), 1) * 20_000_000}
	}
	zipf := mustAudience(t, AudienceConfig{Days: same, Views: Views{ZipfMax: MaxViews, ZipfS: 1}})
	if &zipf.days[0].cum[0] != &zipf.days[999].cum[0] || zipf.Events(0) != zipf.Events(999) {
		t.Errorf("days of one size: got separate round tables or different events (%d, %d)", zipf.Events(0), zipf.Events(999))
	}
	all := make([]int, len(same))
	for d := range all {
		all[d] = len(all) - 1 - d
	}
	if got := zipf.Union(all...); got != 40_000_000+999*20_000_000 {
		t.Errorf("Union of all days: got %d, want %d", got, 40_000_000+999*20_000_000)
	}
	if got := zipf.Union(0, 2, 999); got != 3*40_000_000 {
		t.Errorf("Union(0, 2, 999): got %d, want %d (disjoint days)", got, 3*40_000_000)
	}
	if all[0] != 999 {
		t.Errorf("Union sorted its argument: got all[0] = %d, want 999", all[0])
	}
	cfg := far.Config()
	cfg.Days[0].Viewers = 99
	if far.Config().Days[0].Viewers != 0 || cfg.ChunkSize != DefaultChunkSize {
		t.Errorf("Config: got a shared Days slice or chunk size %d, want a copy and %d", cfg.ChunkSize, DefaultChunkSize)
	}
}

func TestAudienceChunkBuffer(t *testing.T) {
	a := mustAudience(t, AudienceConfig{Seed: 1, Days: cricketDays(100), Views: Views{Fixed: 1}, ChunkSize: 1000})
	buf := make([]Event, 7, 2000)
	got := a.Chunk(0, 0, buf)
	if len(got) != 1000 || &got[0] != &buf[:1][0] {
		t.Errorf("chunk 0 into cap 2000: got len %d (same array %v), want 1000 in buf", len(got), &got[0] == &buf[:1][0])
	}
	if got = a.Chunk(1, a.Chunks(1)-1, got); len(got) != 800 {
		t.Errorf("last chunk of day 1: got %d events, want 800", len(got))
	}
	for _, tt := range []struct {
		day, chunk int
		want       string
	}{
		{-1, 0, "audience day -1 not in [0, 2)"},
		{2, 0, "audience day 2 not in [0, 2)"},
		{1, -1, "audience day 1 chunk -1 not in [0, 4)"},
		{1, 4, "audience day 1 chunk 4 not in [0, 4)"},
	} {
		func() {
			defer func() {
				msg, _ := recover().(string)
				if !strings.Contains(msg, tt.want) {
					t.Errorf("Chunk(%d, %d): got panic %q, want one with %q", tt.day, tt.chunk, msg, tt.want)
				}
			}()
			a.Chunk(tt.day, tt.chunk, nil)
		}()
	}
	func() {
		defer func() {
			if msg, _ := recover().(string); !strings.Contains(msg, "audience day 5 not in [0, 2)") {
				t.Errorf("Union(0, 5): got panic %q, want one naming the range", msg)
			}
		}()
		a.Union(0, 5)
	}()
}

// TestAudienceChunkNoAlloc needs no race-detector skip: Chunk uses no pool.
func TestAudienceChunkNoAlloc(t *testing.T) {
	for _, views := range []Views{{Fixed: 3}, {ZipfMax: 100, ZipfS: 1}} {
		a := mustAudience(t, AudienceConfig{Seed: 1, Days: cricketDays(1000), Views: views, ChunkSize: 4096})
		buf := make([]Event, 0, 4096)
		i := 0
		allocs := testing.AllocsPerRun(50, func() {
			buf = a.Chunk(i%2, i%a.Chunks(i%2), buf)
			i++
		})
		if allocs != 0 {
			t.Errorf("views %+v: got %v allocs per Chunk with a big enough buffer, want 0", views, allocs)
		}
	}
}

// TestAudienceGolden pins a digest of a small audience: it changes only
// when the audience's definition changes on purpose (then update the
// constant and say so in the commit).
func TestAudienceGolden(t *testing.T) {
	const want = 0x7c198f6779b453c1
	cfg := AudienceConfig{Seed: 2024, Label: "golden", Days: cricketDays(100), Views: Views{ZipfMax: 20, ZipfS: 1}, ChunkSize: 777}
	if got := digest(slices.Concat(audienceDays(mustAudience(t, cfg))...)); got != want {
		t.Errorf("digest of the golden audience: got %#x, want %#x", got, want)
	}
}

// The worked example's two days: 40 M and 38 M viewers, 30 M on both.
// Nothing is generated to know the sizes; Chunk makes the events on demand.
func ExampleAudience() {
	a, err := NewAudience(AudienceConfig{
		Seed:  1,
		Label: "cricket",
		Days: []Day{
			{Viewers: 40_000_000},
			{Viewers: 38_000_000, Overlap: 30_000_000},
		},
		Views: Views{Fixed: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("distinct: day 1 %d, day 2 %d; union %d; sum %d\n",
		a.Distinct(0), a.Distinct(1), a.Union(0, 1), a.Distinct(0)+a.Distinct(1))
	lo, hi := a.Indices(1)
	fmt.Printf("day 2 is viewers [%d, %d): %d events in %d chunks\n", lo, hi, a.Events(1), a.Chunks(1))
	for _, e := range a.Chunk(1, 0, nil)[:3] {
		fmt.Printf("id %d at %v: viewer %d → actor %#016x\n", e.ID, time.Duration(e.At), a.ViewerIndex(e.Actor), e.Actor)
	}
	// Output:
	// distinct: day 1 40000000, day 2 38000000; union 48000000; sum 78000000
	// day 2 is viewers [10000000, 48000000): 76000000 events in 1160 chunks
	// id 80000001 at 24h0m0s: viewer 11032203 → actor 0xa398e90f2decfbff
	// id 80000002 at 24h0m0.001136842s: viewer 34517494 → actor 0x6f982a6438b86742
	// id 80000003 at 24h0m0.002273684s: viewer 20002785 → actor 0x650dc96e1fc4f86b
}

func BenchmarkAudienceChunk(b *testing.B) {
	for _, bc := range []struct {
		name  string
		views Views
	}{
		{"views=fixed1", Views{Fixed: 1}},
		{"views=fixed3", Views{Fixed: 3}},
		{"views=zipf/max=100/s=1", Views{ZipfMax: 100, ZipfS: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := mustAudience(b, AudienceConfig{Seed: 1, Label: "bench", Days: cricketDays(1_000_000), Views: bc.views})
			buf := make([]Event, 0, DefaultChunkSize)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				buf = a.Chunk(1, i%a.Chunks(1), buf)
				i++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/DefaultChunkSize, "ns/event")
		})
	}
}
