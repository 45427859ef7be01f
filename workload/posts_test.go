package workload

import (
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Statistical bounds here are 5.5σ of a normal approximation (a two-sided
// tail of 3.8·10^−8 each): with fewer than 20 such checks a run, a correct
// build fails less than once in a million runs. Counts are Poisson or
// binomial with means in the thousands or more, where the normal
// approximation holds.
const postsZ = 5.5

// postsTestConfig is an hour of posts at 10 a second (36,000 posts), Zipf
// followers up to a million, a 10-minute half-life, a fifth protected and
// 5% viral within half an hour: some 1.04 M likes.
func postsTestConfig() PostsConfig {
	return PostsConfig{
		Seed:            42,
		Label:           "posts-test",
		Duration:        3600e9,
		PostRate:        10,
		Followers:       FollowerLaw{Kind: "zipf", Max: 1_000_000, S: 1.1},
		LikeRate:        1e-6,
		Noise:           0.5,
		HalfLife:        600e9,
		Protected:       0.2,
		ProtectedFactor: 0.3,
		ViralShare:      0.05,
		ViralFactor:     20,
		ViralWithin:     1800e9,
		ViralFloor:      0.01,
	}
}

func newTestPosts(t testing.TB, cfg PostsConfig) *Posts {
	t.Helper()
	p, err := NewPosts(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// allLikes returns every chunk's likes, concatenated in chunk order.
func allLikes(p *Posts) []Event {
	var all, buf []Event
	for i := range p.Chunks() {
		buf = p.Chunk(i, buf)
		all = append(all, buf...)
	}
	return all
}

// within fails t unless got is within postsZ·sd of want.
func within(t *testing.T, what string, got, want, sd float64) {
	t.Helper()
	if math.Abs(got-want) > postsZ*sd {
		t.Errorf("%s: got %.6g, want %.6g ± %.3g (%.1fσ)", what, got, want, postsZ*sd, math.Abs(got-want)/sd)
	}
}

func TestPostsTable(t *testing.T) {
	cfg := postsTestConfig()
	p := newTestPosts(t, cfg)
	posts := p.Posts()
	n := float64(len(posts))

	// Creations: a Poisson process of PostRate over Duration.
	mean := cfg.PostRate * float64(cfg.Duration) / 1e9
	within(t, "posts", n, mean, math.Sqrt(mean))

	z, err := NewZipf(cfg.Followers.Max, cfg.Followers.S)
	if err != nil {
		t.Fatal(err)
	}
	var ones, prot, viral, early float64
	var logNoise, noisy float64
	keys := map[uint64]bool{}
	lambda := math.Ln2 / float64(cfg.HalfLife)
	for j, q := range posts {
		if j > 0 && q.Created < posts[j-1].Created || q.Created < 0 || q.Created >= cfg.Duration {
			t.Fatalf("post %d created at %d, after %d, not in [0, %d)", j, q.Created, posts[max(j-1, 0)].Created, cfg.Duration)
		}
		if q.Created < cfg.Duration/2 {
			early++
		}
		if keys[q.Key] {
			t.Fatalf("post %d: key %#x repeated", j, q.Key)
		}
		keys[q.Key] = true
		if q.Followers < 1 || q.Followers > cfg.Followers.Max {
			t.Fatalf("post %d: %d followers not in [1, %d]", j, q.Followers, cfg.Followers.Max)
		}
		if q.Followers == 1 {
			ones++
		}
		base := float64(q.Followers) * cfg.LikeRate
		if q.Protected {
			prot++
			base *= cfg.ProtectedFactor
		}
		logNoise += math.Log(q.Rate0 / base)
		noisy++
		if got := p.RateAt(j, q.Created); math.Abs(got-q.Rate0) > 1e-12*q.Rate0 {
			t.Fatalf("post %d: rate at creation %v, Rate0 %v", j, got, q.Rate0)
		}
		if p.RateAt(j, q.Created-1) != 0 {
			t.Fatalf("post %d: rate %v before creation", j, p.RateAt(j, q.Created-1))
		}
		if !q.Viral {
			continue
		}
		viral++
		if q.ViralAt < q.Created || q.ViralAt >= q.Created+cfg.ViralWithin {
			t.Fatalf("post %d: jump at %d not in [%d, %d)", j, q.ViralAt, q.Created, q.Created+cfg.ViralWithin)
		}
		// The jump: factor × max(the rate then, the floor).
		then := q.Rate0 * math.Exp(-lambda*float64(q.ViralAt-q.Created))
		want := cfg.ViralFactor * max(then, cfg.ViralFloor)
		if math.Abs(q.ViralRate-want) > 1e-9*want {
			t.Fatalf("post %d: rate after the jump %v, want %v × max(%v, %v) = %v", j, q.ViralRate, cfg.ViralFactor, then, cfg.ViralFloor, want)
		}
		if q.ViralAt < q.End {
			if got := p.RateAt(j, q.ViralAt); math.Abs(got-want) > 1e-9*want {
				t.Fatalf("post %d: RateAt the jump %v, want %v", j, got, want)
			}
			if p.PeakRate(j) < want*(1-1e-12) {
				t.Fatalf("post %d: peak rate %v below the jump's %v", j, p.PeakRate(j), want)
			}
		}
	}
	binom := func(what string, got, p float64) {
		t.Helper()
		within(t, what, got, n*p, math.Sqrt(n*p*(1-p)))
	}
	binom("posts created in the first half", early, 0.5)
	binom("posts with 1 follower", ones, z.Prob(1))
	binom("protected posts", prot, cfg.Protected)
	binom("viral posts", viral, cfg.ViralShare)
	// ln N = σZ − σ²/2: mean −σ²/2, sd σ.
	within(t, "mean log noise", logNoise/noisy, -cfg.Noise*cfg.Noise/2, cfg.Noise/math.Sqrt(noisy))
}

// TestPostsLognormal checks the lognormal law: with e^Mu = 1000.5,
// round(e^X) ≤ 1000 exactly when X < Mu, half the time (Max is far above).
func TestPostsLognormal(t *testing.T) {
	cfg := postsTestConfig()
	cfg.Followers = FollowerLaw{Kind: "lognormal", Max: 1e9, Mu: math.Log(1000.5), Sigma: 2}
	p := newTestPosts(t, cfg)
	var below, n float64
	for _, q := range p.Posts() {
		n++
		if q.Followers <= 1000 {
			below++
		}
	}
	within(t, "followers below the median", below, n/2, math.Sqrt(n/4))

	// Clamped to Max.
	cfg.Followers.Max = 50
	p = newTestPosts(t, cfg)
	var at50 float64
	for _, q := range p.Posts() {
		if q.Followers > 50 {
			t.Fatalf("%d followers above max 50", q.Followers)
		}
		if q.Followers == 50 {
			at50++
		}
	}
	// P(round(e^X) ≥ 50) = P(X ≥ ln 49.5) = Φ(−(ln 49.5 − Mu)/σ) ≈ 0.93.
	pr := 0.5 * math.Erfc((math.Log(49.5)-cfg.Followers.Mu)/cfg.Followers.Sigma/math.Sqrt2)
	within(t, "followers clamped to 50", at50, n*pr, math.Sqrt(n*pr*(1-pr)))
}

// closedMass is ∫ over [a, b) of post q's uncut rate, from the model's
// formulas written out again, independent of the stream's code.
func closedMass(cfg PostsConfig, q PostInfo, a, b int64) float64 {
	h := float64(cfg.HalfLife) / 1e9 // s
	decay := func(r float64, t0, a, b int64) float64 {
		if b <= a {
			return 0
		}
		x, y := float64(a-t0)/1e9, float64(b-t0)/1e9
		return r * h / math.Ln2 * (math.Pow(2, -x/h) - math.Pow(2, -y/h))
	}
	jump := int64(math.MaxInt64)
	if q.Viral {
		jump = q.ViralAt
	}
	m := decay(q.Rate0, q.Created, max(a, q.Created), min(b, jump))
	if q.Viral {
		m += decay(q.ViralRate, q.ViralAt, max(a, q.ViralAt), b)
	}
	return m
}

func TestPostsLikes(t *testing.T) {
	cfg := postsTestConfig()
	p := newTestPosts(t, cfg)
	posts := p.Posts()
	all := allLikes(p)
	index := map[uint64]int{}
	for j, q := range posts {
		index[q.Key] = j
	}

	// The whole run against the model's integral, written out apart from
	// the stream's code (the cut changes each post's by at most 10^−9).
	want := 0.0
	for _, q := range posts {
		want += closedMass(cfg, q, 0, cfg.Duration)
	}
	if got := p.ExpectedLikes(); math.Abs(got-want) > 1e-9*want+float64(len(posts))*PostsCut {
		t.Errorf("ExpectedLikes %v, closed form %v", got, want)
	}
	within(t, "likes", float64(len(all)), want, math.Sqrt(want))
	t.Logf("%d posts, %d likes, %.0f expected", len(posts), len(all), want)

	// The decay: the likes in a post's first half-life, N1, are twice
	// those in its second, N2: N1 − 2·N2 has mean 0 and variance
	// E[N1] + 4·E[N2] ≈ N1 + 4·N2. Non-viral posts whose two half-lives
	// fall within the run.
	// The jump: the likes in the quarter half-life after each jump
	// against the closed form.
	hl := cfg.HalfLife
	var n1, n2, afterJump, wantJump float64
	type span struct{ a, b int64 }
	first, second, jump := map[int]span{}, map[int]span{}, map[int]span{}
	for j, q := range posts {
		switch {
		case !q.Viral && q.Created+2*hl < cfg.Duration:
			first[j] = span{q.Created, q.Created + hl}
			second[j] = span{q.Created + hl, q.Created + 2*hl}
		case q.Viral && q.ViralAt+hl/4 < cfg.Duration:
			jump[j] = span{q.ViralAt, q.ViralAt + hl/4}
			wantJump += closedMass(cfg, q, q.ViralAt, q.ViralAt+hl/4)
		}
	}
	in := func(s span, at int64) bool { return at >= s.a && at < s.b }
	for _, ev := range all {
		j, ok := index[ev.Key]
		if !ok {
			t.Fatalf("like of unknown key %#x", ev.Key)
		}
		if want := posts[j].Followers | map[bool]uint64{true: ProtectedBit}[posts[j].Protected]; ev.Actor != want || ev.Actor != posts[j].Actor() {
			t.Fatalf("like of post %d: actor %#x, want its %d followers (protected %v)", j, ev.Actor, posts[j].Followers, posts[j].Protected)
		}
		if ev.At < posts[j].Created || ev.At >= posts[j].End {
			t.Fatalf("like of post %d at %d, outside its life [%d, %d)", j, ev.At, posts[j].Created, posts[j].End)
		}
		if s, ok := first[j]; ok && in(s, ev.At) {
			n1++
		}
		if s, ok := second[j]; ok && in(s, ev.At) {
			n2++
		}
		if s, ok := jump[j]; ok && in(s, ev.At) {
			afterJump++
		}
	}
	within(t, "first half-life − 2 × second", n1-2*n2, 0, math.Sqrt(n1+4*n2))
	within(t, "likes in a quarter half-life after the jumps", afterJump, wantJump, math.Sqrt(wantJump))
	t.Logf("decay: %v then %v; after the jumps %v, %.0f expected", n1, n2, afterJump, wantJump)
}

// TestPostsMass checks Mass and RateAt against each other: Simpson's rule
// on RateAt over pieces where the rate is smooth.
func TestPostsMass(t *testing.T) {
	cfg := postsTestConfig()
	p := newTestPosts(t, cfg)
	posts := p.Posts()
	checked := 0
	for j, q := range posts {
		if j%97 != 0 {
			continue
		}
		cuts := []int64{q.Created, q.End}
		if q.Viral && q.ViralAt < q.End {
			cuts = []int64{q.Created, q.ViralAt, q.End}
		}
		num := 0.0
		for k := 1; k < len(cuts); k++ {
			a, b := cuts[k-1], cuts[k]
			const steps = 2000
			hstep := float64(b-a) / steps
			sum := 0.0
			for s := 0; s <= steps; s++ {
				w := 2.0
				switch {
				case s == 0 || s == steps:
					w = 1
				case s%2 == 1:
					w = 4
				}
				at := a + int64(float64(s)*hstep)
				if s == steps {
					at = b - 1
				}
				sum += w * p.RateAt(j, at)
			}
			num += sum * hstep / 3 / 1e9
		}
		got := p.Mass(j, 0, cfg.Duration)
		if math.Abs(got-num) > 1e-6*num+1e-9 {
			t.Errorf("post %d: Mass %v, Simpson on RateAt %v", j, got, num)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("checked %d posts", checked)
	}
}

func TestPostsChunks(t *testing.T) {
	cfg := postsTestConfig()
	cfg.Duration = 600e9
	cfg.Window = 250e6
	p := newTestPosts(t, cfg)
	fwd := make([][]Event, p.Chunks())
	for i := range p.Chunks() {
		fwd[i] = p.Chunk(i, nil)
		s, e := int64(i)*cfg.Window, min(int64(i+1)*cfg.Window, cfg.Duration)
		for k, ev := range fwd[i] {
			if ev.At < s || ev.At >= e {
				t.Fatalf("chunk %d: like at %d outside [%d, %d)", i, ev.At, s, e)
			}
			if k > 0 && !timedLess(&fwd[i][k-1], &ev) {
				t.Fatalf("chunk %d: likes %d and %d not in (At, ID) order", i, k-1, k)
			}
			if ev.Op != Write || ev.Delta != 1 || ev.ID>>32 != uint64(i) {
				t.Fatalf("chunk %d: like %+v", i, ev)
			}
		}
	}
	// IDs unique over the stream.
	ids := map[uint64]bool{}
	for _, c := range fwd {
		for _, ev := range c {
			if ids[ev.ID] {
				t.Fatalf("id %#x repeated", ev.ID)
			}
			ids[ev.ID] = true
		}
	}
	// Backwards, into one reused buffer, and by 4 goroutines at once:
	// the same likes byte for byte; so from a second stream of the config.
	buf := make([]Event, 0, 1<<16)
	for i := p.Chunks() - 1; i >= 0; i-- {
		buf = p.Chunk(i, buf)
		if !slices.Equal(buf, fwd[i]) {
			t.Fatalf("chunk %d backwards differs", i)
		}
	}
	q := newTestPosts(t, cfg)
	var wg sync.WaitGroup
	bad := make([]int, 4)
	for w := range 4 {
		wg.Go(func() {
			var b []Event
			bad[w] = -1
			for i := w; i < q.Chunks(); i += 4 {
				if b = q.Chunk(i, b); !slices.Equal(b, fwd[i]) {
					bad[w] = i
					return
				}
			}
		})
	}
	wg.Wait()
	for _, i := range bad {
		if i >= 0 {
			t.Fatalf("chunk %d differs when built concurrently", i)
		}
	}
	// Another label: other posts and likes.
	cfg.Label += "'"
	r := newTestPosts(t, cfg)
	if r.Len() > 0 && p.Len() > 0 && r.Posts()[0] == p.Posts()[0] {
		t.Errorf("labels %q and %q drew the same first post", cfg.Label, postsTestConfig().Label)
	}
}

func TestPostsChunkAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under -race")
	}
	p := newTestPosts(t, postsTestConfig())
	buf := make([]Event, 0, 1<<20)
	i := p.Chunks() / 2
	if allocs := testing.AllocsPerRun(20, func() { buf = p.Chunk(i, buf) }); allocs != 0 {
		t.Errorf("Chunk allocates %v times with a large buffer", allocs)
	}
	if len(buf) == 0 {
		t.Errorf("chunk %d is empty", i)
	}
}

// TestPostsBadConfig checks that every field out of range is refused and
// the error says what is allowed.
func TestPostsBadConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(*PostsConfig)
		want string
	}{
		{"duration", func(c *PostsConfig) { c.Duration = 0 }, "duration 0 ns not > 0"},
		{"post rate", func(c *PostsConfig) { c.PostRate = 0 }, "post rate 0 posts/s not a finite number > 0"},
		{"post rate nan", func(c *PostsConfig) { c.PostRate = math.NaN() }, "not a finite number > 0"},
		{"too many posts", func(c *PostsConfig) { c.PostRate = 1e4 }, "more than 2^24"},
		{"law", func(c *PostsConfig) { c.Followers.Kind = "pareto" }, `"pareto" not "zipf" or "lognormal"`},
		{"max 0", func(c *PostsConfig) { c.Followers.Max = 0 }, "followers max 0 not in [1, 1e9]"},
		{"max big", func(c *PostsConfig) { c.Followers.Max = 2e9 }, "not in [1, 1e9]"},
		{"zipf s", func(c *PostsConfig) { c.Followers.S = -1 }, "zipf exponent s -1 not a finite number >= 0"},
		{"sigma", func(c *PostsConfig) { c.Followers = FollowerLaw{Kind: "lognormal", Max: 10, Sigma: -1} }, "sigma -1 not a finite number >= 0"},
		{"mu", func(c *PostsConfig) { c.Followers = FollowerLaw{Kind: "lognormal", Max: 10, Mu: math.Inf(1)} }, "mu +Inf not a finite number"},
		{"like rate", func(c *PostsConfig) { c.LikeRate = -1 }, "like rate -1 likes/s per follower not a finite number >= 0"},
		{"noise", func(c *PostsConfig) { c.Noise = -0.1 }, "noise sigma -0.1 not in [0, 8]"},
		{"half-life", func(c *PostsConfig) { c.HalfLife = 0 }, "half-life 0 ns not > 0"},
		{"protected", func(c *PostsConfig) { c.Protected = -0.1 }, "protected share -0.1 not in [0, 1]"},
		{"protected > 1", func(c *PostsConfig) { c.Protected = 1.5 }, "protected share 1.5 not in [0, 1]"},
		{"protected factor", func(c *PostsConfig) { c.ProtectedFactor = -1 }, "protected factor -1 not a finite number >= 0"},
		{"viral share", func(c *PostsConfig) { c.ViralShare = 1.01 }, "viral share 1.01 not in [0, 1]"},
		{"viral share nan", func(c *PostsConfig) { c.ViralShare = math.NaN() }, "viral share NaN not in [0, 1]"},
		{"viral factor", func(c *PostsConfig) { c.ViralFactor = 0.5 }, "viral factor 0.5 not a finite number >= 1"},
		{"viral within", func(c *PostsConfig) { c.ViralWithin = 0 }, "viral within 0 ns not > 0"},
		{"viral floor", func(c *PostsConfig) { c.ViralFloor = -1 }, "viral floor -1 likes/s not a finite number >= 0"},
		{"window", func(c *PostsConfig) { c.Window = -1 }, "window -1 ns not >= 0"},
		{"chunks", func(c *PostsConfig) { c.Window = 1 }, "more than 2^31-1"},
		{"window likes", func(c *PostsConfig) { c.LikeRate = 1e3; c.Window = 1e12 }, "more than 2^31"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := postsTestConfig()
			c.edit(&cfg)
			_, err := NewPosts(cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "workload: posts ") {
				t.Errorf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	// Without viral posts, the viral factor and span are not needed.
	cfg := postsTestConfig()
	cfg.ViralShare, cfg.ViralFactor, cfg.ViralWithin = 0, 0, 0
	if _, err := NewPosts(cfg); err != nil {
		t.Errorf("no viral posts: %v", err)
	}
}

// TestPostsRadixSort checks the sort of a chunk of thousands of likes (the
// radix path; small chunks take a comparison sort): in (At, ID) order, and
// the same multiset as the likes drawn (their IDs 1..n of the chunk).
func TestPostsRadixSort(t *testing.T) {
	cfg := postsTestConfig()
	cfg.Duration, cfg.LikeRate = 1200e9, cfg.LikeRate*100
	cfg.Window = 3e9 // 32 bits of At − start: three passes, the last partial
	p := newTestPosts(t, cfg)
	i := p.Chunks() - 1
	buf := p.Chunk(i, nil)
	if len(buf) < 1000 {
		t.Fatalf("chunk %d holds %d likes, want thousands", i, len(buf))
	}
	seen := make([]bool, len(buf)+1)
	for k, ev := range buf {
		if k > 0 && !timedLess(&buf[k-1], &ev) {
			t.Fatalf("likes %d and %d not in (At, ID) order: %+v, %+v", k-1, k, buf[k-1], ev)
		}
		n := ev.ID - uint64(i)<<32
		if n < 1 || n > uint64(len(buf)) || seen[n] {
			t.Fatalf("like %d: id %#x not new in the chunk's 1..%d", k, ev.ID, len(buf))
		}
		seen[n] = true
	}
}

// FollowersAtLeast against the share of the drawn table, for both laws:
// the table's posts are independent draws, so the share at each threshold
// is within 6 binomial σ of the law's (a false failure once in 10^8 per
// threshold), while a law off by one follower (the rounding's ½) or by the
// wrong exponent is further than that at 2^16 posts.
func TestPostsFollowersAtLeast(t *testing.T) {
	for _, law := range []FollowerLaw{
		{Kind: "zipf", Max: 1e8, S: 1.1},
		{Kind: "zipf", Max: 5000, S: 0.6},
		{Kind: "lognormal", Max: 1e8, Mu: math.Log(300), Sigma: 2.5},
		{Kind: "lognormal", Max: 1e4, Mu: 1, Sigma: 1},
	} {
		p, err := NewPosts(PostsConfig{Seed: 3, Label: "followers", Duration: 1 << 16 * 1e9 / 64, PostRate: 64, Followers: law,
			LikeRate: 0, HalfLife: 1e9})
		if err != nil {
			t.Fatal(err)
		}
		n := float64(p.Len())
		for _, f := range []uint64{1, 2, 3, 5, 10, 30, 100, 1000, 5000, 1e5, 1e7} {
			var at int
			for j := range p.Len() {
				if p.Post(j).Followers >= f {
					at++
				}
			}
			want := p.FollowersAtLeast(f)
			if sd := math.Sqrt(n * want * (1 - want)); math.Abs(float64(at)-n*want) > 6*sd+1e-9 {
				t.Errorf("%+v: %d of %.0f posts with ≥ %d followers, law says %.6g (%.1f expected, σ %.1f)", law, at, n, f, want, n*want, sd)
			}
		}
		if got := p.FollowersAtLeast(law.Max + 1); got != 0 {
			t.Errorf("%+v: P(F ≥ max+1) = %v, want 0", law, got)
		}
	}
	// The Zipf's exact sum and its Euler–Maclaurin tail agree across 64.
	p, _ := NewPosts(PostsConfig{Seed: 1, Duration: 1e9, PostRate: 1, Followers: FollowerLaw{Kind: "zipf", Max: 1000, S: 1}, HalfLife: 1e9})
	a, b := p.FollowersAtLeast(64), p.FollowersAtLeast(65)
	if want := (1 / 64.0) / Harmonic(1000, 1); math.Abs(a-b-want) > 1e-12 {
		t.Errorf("P(F = 64) = %v, want %v", a-b, want)
	}
}
