package workload

// Posts: thousands of like counters at once (issue 16, seed 004's sharded
// counters). Posts are created over simulated time, each by an author with
// some number of followers; a post's like rate starts in proportion to its
// author's followers, with noise, and halves every half-life; a share of
// posts goes viral whatever their followers, their rate jumping at a random
// time.
//
// The model of post j, created at c with f followers:
//
//	rate(t) = R0 · 2^(−(t − c)/H)        for c ≤ t < V (or for ever),
//	rate(t) = Rv · 2^(−(t − V)/H)        for t ≥ V (viral posts),
//	R0 = f · LikeRate · N · (ProtectedFactor if protected),
//	Rv = ViralFactor · max(R0 · 2^(−(V − c)/H), ViralFloor),
//
// N = exp(σZ − σ²/2) a log-normal factor of mean 1 (Z standard normal, σ =
// Noise) and V uniform on [c, c + ViralWithin). Each of the two decays is
// cut where what remains of it, R·H/ln 2 · 2^(−(t − t0)/H), falls below
// PostsCut likes, and every rate is 0 from Duration on: a post costs a
// chunk nothing once it is spent, and the likes drawn are exactly those of
// the stated (cut) rate, whose integral ExpectedLikes gives.
//
// The likes of a post are an inhomogeneous Poisson process of intensity
// rate(t), drawn window by window by time change (E. Çinlar, "Introduction
// to Stochastic Processes", 1975), as a Timed stream's are: the points of
// a unit-rate process on [0, Λ) by exponential gaps, Λ the window's ∫ rate,
// mapped to times by the inverse of the integrated rate, which for a decay
// from rate r at a is closed: t = a − ln(1 − y·λ/r)/λ, λ = ln 2/H. The
// superposition of the posts' processes is the stream; a chunk sorts it.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/cespare/xxhash/v2"
)

// DefaultPostsWindow is the simulated time of a Posts chunk, in ns, when
// PostsConfig.Window is 0: 1 s.
const DefaultPostsWindow int64 = 1_000_000_000

// PostsCut is the likes still to come below which a post's decay is cut
// (its rate is 0 from there on): 10^−9 likes.
const PostsCut = 1e-9

// Limits of a Posts stream. The table is held in memory (some 100 bytes a
// post), so a stream expects at most 2^24 (16.8 M) posts. A chunk numbers
// its likes in 32 bits, so a window's likes are bounded by 2^31 (by the
// sum of the posts' peak rates) and there are fewer than 2^31 chunks.
const (
	maxPostsExpected = 1 << 24
	maxPostsWindow   = 1 << 31
	maxPostsChunks   = 1<<31 - 1
	maxPostsLikes    = 1 << 40
	maxPostsNoise    = 8
)

// FollowerLaw is the law of a post's author's followers.
type FollowerLaw struct {
	// Kind is "zipf" or "lognormal".
	Kind string
	// Max is the most followers an author has; it must be in [1, 10^9].
	Max uint64
	// S is the Zipf exponent: P(f) ∝ f^−S over 1..Max. It must be finite
	// and ≥ 0 (0 is uniform). Zipf only.
	S float64
	// Mu and Sigma are those of ln(followers): followers are
	// round(exp(Mu + Sigma·Z)) clamped to 1..Max, so the median is about
	// e^Mu. Mu must be finite, Sigma finite and ≥ 0. Lognormal only.
	Mu, Sigma float64
}

// PostsConfig describes a Posts stream. Every field is checked by NewPosts.
type PostsConfig struct {
	// Seed makes the stream reproducible: the same config gives the same
	// posts and likes byte for byte.
	Seed uint64
	// Label names the stream: streams with different labels draw
	// independent posts and likes.
	Label string
	// Duration is the simulated time of the stream, in ns; it must be > 0.
	// Posts are created over [0, Duration) and liked until Duration.
	Duration int64
	// PostRate is the rate of the Poisson process of post creations, in
	// posts a second; it must be finite and > 0, and expect at most 2^24
	// posts over Duration.
	PostRate float64
	// Followers is the law of each post's author's followers.
	Followers FollowerLaw
	// LikeRate is a post's like rate at creation, in likes a second per
	// follower, before noise; it must be finite and ≥ 0.
	LikeRate float64
	// Noise is σ of the log-normal factor of mean 1 on a post's rate at
	// creation; it must be in [0, 8], and 0 means none.
	Noise float64
	// HalfLife is the time in ns in which a post's rate halves; it must be
	// > 0.
	HalfLife int64
	// Protected is the share of posts that are protected (followers
	// only); it must be in [0, 1]. A protected post's rate at creation is
	// ProtectedFactor times the public one. Whether a post is protected
	// and whether it goes viral are independent.
	Protected float64
	// ProtectedFactor must be finite and ≥ 0.
	ProtectedFactor float64
	// ViralShare is the share of posts that go viral whatever their
	// followers; it must be in [0, 1].
	ViralShare float64
	// ViralFactor is what a viral post's rate is multiplied by at its
	// jump, applied to its rate then or to ViralFloor, whichever is
	// larger; it must be finite and ≥ 1 when ViralShare > 0.
	ViralFactor float64
	// ViralWithin is the span after creation in which a viral post's jump
	// falls, uniformly, in ns; it must be > 0 when ViralShare > 0. A jump
	// at or after Duration does not happen within the stream.
	ViralWithin int64
	// ViralFloor is the least rate, in likes a second, that the jump
	// multiplies; it must be finite and ≥ 0.
	ViralFloor float64
	// Window is the simulated time of a chunk, in ns; it must be ≥ 0, and
	// 0 means DefaultPostsWindow. It is part of the stream's identity: the
	// same seed with another window gives other like times.
	Window int64
}

// ProtectedBit is set in a like's Actor when its post is protected
// (followers only); the rest of Actor is the author's followers (at most
// 10^9).
const ProtectedBit = uint64(1) << 63

// PostInfo is one post of the table.
type PostInfo struct {
	Key       uint64  // the post's counter: Mix64 of a hash of (Seed, Label) and the post's index
	Created   int64   // ns
	Followers uint64  // the author's
	Protected bool    // followers only: rate × ProtectedFactor
	Viral     bool    // drawn to go viral (the jump happens only if ViralAt < Duration)
	ViralAt   int64   // ns, the jump's time; 0 unless Viral
	Rate0     float64 // likes a second at creation
	ViralRate float64 // likes a second just after the jump; 0 unless Viral
	End       int64   // ns: the rate is 0 from End on (its decays cut, or Duration)
}

// Actor is the Actor of the post's likes: its followers, with ProtectedBit
// when it is protected.
func (p PostInfo) Actor() uint64 {
	if p.Protected {
		return p.Followers | ProtectedBit
	}
	return p.Followers
}

// post is a row of the table as Chunk reads it: rates in likes per ns.
type post struct {
	created int64
	cut0    int64 // end of the first decay: min(V, its cut, Duration)
	viralAt int64 // V, or MaxInt64 when the post does not go viral
	cut1    int64 // end of the decay after the jump (≤ Duration); viralAt when none
	r0, rv  float64
	key     uint64
	actor   uint64 // followers, | ProtectedBit when protected: the likes' Actor
	prot    bool
}

// end is the time from which the post's rate is 0.
func (p *post) end() int64 { return max(p.cut0, p.cut1) }

// A Posts stream is a deterministic table of posts and the sequence of
// their likes over Duration ns of simulated time, cut into Chunks()
// windows of Window ns. The table is drawn once, by NewPosts; chunk i is a
// pure function of the config and i: chunks may be built in any order, by
// any number of goroutines, and the stream is the same whatever GOMAXPROCS
// or the worker count.
//
// Events. A like has Op Write, Delta 1, Key the post's key, Actor the
// author's followers with ProtectedBit set when the post is protected (so
// that a design may size the counter from the event, as the seed's
// followers_count and post_type), and ID i<<32 + k for the k-th like (from 1) that chunk i draws,
// in the order of the posts' indices and then of time: unique. A chunk is
// sorted by (At, ID).
//
// Randomness. The likes of post j in window i come from a SplitMix started
// at a hash of (Seed, Label, i, j), so no post's draws depend on another's.
type Posts struct {
	cfg      PostsConfig
	posts    []post
	created  []int64 // posts[j].created, for the search of a window's last post
	endMax   []int64 // max over k ≤ j of posts[k].end(), non-decreasing
	chunks   int
	likeHash uint64  // the likes' generators derive from (Seed, likeHash, i)
	lambda   float64 // ln 2/HalfLife, per ns
	// windowDecay is 1 − e^(−λ·Window): the share of what remains of a
	// decay that a whole window takes.
	windowDecay float64
	expected    float64
	scratch     sync.Pool // of *[]Event, the radix sort's
}

// NewPosts validates cfg and draws the posts' table: O(posts).
func NewPosts(cfg PostsConfig) (*Posts, error) { return NewPostsContext(context.Background(), cfg) }

// NewPostsContext is NewPosts, stopping with ctx's error when ctx ends
// before the table is drawn: it looks every 65,536 posts (2^24 posts take
// seconds).
func NewPostsContext(ctx context.Context, cfg PostsConfig) (*Posts, error) {
	fin := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	share := func(x float64) bool { return !math.IsNaN(x) && x >= 0 && x <= 1 }
	fl := cfg.Followers
	switch {
	case cfg.Duration <= 0:
		return nil, fmt.Errorf("workload: posts duration %d ns not > 0", cfg.Duration)
	case !fin(cfg.PostRate) || cfg.PostRate <= 0:
		return nil, fmt.Errorf("workload: posts post rate %v posts/s not a finite number > 0", cfg.PostRate)
	case fl.Kind != "zipf" && fl.Kind != "lognormal":
		return nil, fmt.Errorf("workload: posts follower law %q not \"zipf\" or \"lognormal\"", fl.Kind)
	case fl.Max < 1 || fl.Max > MaxZipfN:
		return nil, fmt.Errorf("workload: posts followers max %d not in [1, 1e9]", fl.Max)
	case fl.Kind == "zipf" && (!fin(fl.S) || fl.S < 0):
		return nil, fmt.Errorf("workload: posts followers zipf exponent s %v not a finite number >= 0", fl.S)
	case fl.Kind == "lognormal" && !fin(fl.Mu):
		return nil, fmt.Errorf("workload: posts followers lognormal mu %v not a finite number", fl.Mu)
	case fl.Kind == "lognormal" && (!fin(fl.Sigma) || fl.Sigma < 0):
		return nil, fmt.Errorf("workload: posts followers lognormal sigma %v not a finite number >= 0", fl.Sigma)
	case !fin(cfg.LikeRate) || cfg.LikeRate < 0:
		return nil, fmt.Errorf("workload: posts like rate %v likes/s per follower not a finite number >= 0", cfg.LikeRate)
	case math.IsNaN(cfg.Noise) || cfg.Noise < 0 || cfg.Noise > maxPostsNoise:
		return nil, fmt.Errorf("workload: posts noise sigma %v not in [0, %d]", cfg.Noise, maxPostsNoise)
	case cfg.HalfLife <= 0:
		return nil, fmt.Errorf("workload: posts half-life %d ns not > 0", cfg.HalfLife)
	case !share(cfg.Protected):
		return nil, fmt.Errorf("workload: posts protected share %v not in [0, 1]", cfg.Protected)
	case !fin(cfg.ProtectedFactor) || cfg.ProtectedFactor < 0:
		return nil, fmt.Errorf("workload: posts protected factor %v not a finite number >= 0", cfg.ProtectedFactor)
	case !share(cfg.ViralShare):
		return nil, fmt.Errorf("workload: posts viral share %v not in [0, 1]", cfg.ViralShare)
	case cfg.ViralShare > 0 && (!fin(cfg.ViralFactor) || cfg.ViralFactor < 1):
		return nil, fmt.Errorf("workload: posts viral factor %v not a finite number >= 1 (viral share %v)", cfg.ViralFactor, cfg.ViralShare)
	case cfg.ViralShare > 0 && cfg.ViralWithin <= 0:
		return nil, fmt.Errorf("workload: posts viral within %d ns not > 0 (viral share %v)", cfg.ViralWithin, cfg.ViralShare)
	case !fin(cfg.ViralFloor) || cfg.ViralFloor < 0:
		return nil, fmt.Errorf("workload: posts viral floor %v likes/s not a finite number >= 0", cfg.ViralFloor)
	case cfg.Window < 0:
		return nil, fmt.Errorf("workload: posts window %d ns not >= 0 (0 means %d)", cfg.Window, DefaultPostsWindow)
	}
	if cfg.Window == 0 {
		cfg.Window = DefaultPostsWindow
	}
	if n := cfg.PostRate * float64(cfg.Duration) / 1e9; n > maxPostsExpected {
		return nil, fmt.Errorf("workload: posts at %v posts/s over %d ns expect %.4g posts, more than 2^24", cfg.PostRate, cfg.Duration, n)
	}
	chunks := (cfg.Duration-1)/cfg.Window + 1
	if chunks > maxPostsChunks {
		return nil, fmt.Errorf("workload: posts stream of %d ns in windows of %d ns has %d chunks, more than 2^31-1",
			cfg.Duration, cfg.Window, chunks)
	}
	p := &Posts{cfg: cfg, chunks: int(chunks), lambda: math.Ln2 / float64(cfg.HalfLife)}
	p.windowDecay = -math.Expm1(-p.lambda * float64(cfg.Window))
	if err := p.draw(ctx); err != nil {
		return nil, err
	}
	return p, nil
}

// Tags that set the table's and the likes' generators apart from each
// other and from other streams'.
const (
	postsTableTag = 0x706f73747354626c // "postsTbl"
	postsLikeTag  = 0x706f7374734c696b // "postsLik"
	postsKeyTag   = 0x706f7374734b6579 // "postsKey"
)

// draw draws the table from a PCG of (Seed, Label): the creations by
// exponential gaps, then for each post its followers, noise, protection,
// virality and jump time, in that order.
func (p *Posts) draw(ctx context.Context) error {
	cfg := &p.cfg
	lh := xxhash.Sum64String(cfg.Label)
	p.likeHash = SplitMix64(lh ^ postsLikeTag)
	keyBase := SplitMix64(SplitMix64(cfg.Seed^postsKeyTag) ^ lh)
	r := rand.New(rand.NewPCG(chunkSeed(cfg.Seed, SplitMix64(lh^postsTableTag), 0)))
	var zipf *Zipf
	if cfg.Followers.Kind == "zipf" {
		var err error
		if zipf, err = NewZipf(cfg.Followers.Max, cfg.Followers.S); err != nil {
			return err // unreachable: Max and S were checked
		}
	}
	perNs := cfg.PostRate / 1e9
	n := cfg.PostRate * float64(cfg.Duration) / 1e9
	p.posts = make([]post, 0, int(n+6*math.Sqrt(n)+16))
	noiseShift := cfg.Noise * cfg.Noise / 2
	t := 0.0
	for j := 0; ; j++ {
		if j&(1<<16-1) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		t += r.ExpFloat64() / perNs
		if t >= float64(cfg.Duration) {
			break
		}
		c := int64(t)
		var f uint64
		if zipf != nil {
			f = zipf.Rank(r)
		} else {
			x := math.Round(math.Exp(cfg.Followers.Mu + cfg.Followers.Sigma*r.NormFloat64()))
			f = uint64(min(max(x, 1), float64(cfg.Followers.Max)))
		}
		r0 := float64(f) * cfg.LikeRate
		if cfg.Noise > 0 {
			r0 *= math.Exp(cfg.Noise*r.NormFloat64() - noiseShift)
		}
		prot := r.Float64() < cfg.Protected
		if prot {
			r0 *= cfg.ProtectedFactor
		}
		pt := post{created: c, r0: r0 / 1e9, key: Mix64(keyBase ^ uint64(j)), actor: f, prot: prot, viralAt: math.MaxInt64}
		if prot {
			pt.actor |= ProtectedBit
		}
		if r.Float64() < cfg.ViralShare {
			pt.viralAt = c + int64(r.Float64()*float64(cfg.ViralWithin))
			if pt.viralAt < c { // overflow past int64 time: never within the stream
				pt.viralAt = math.MaxInt64
			}
			pt.rv = cfg.ViralFactor * max(pt.r0*math.Exp(-p.lambda*float64(pt.viralAt-c)), cfg.ViralFloor/1e9)
			if pt.viralAt == math.MaxInt64 {
				pt.rv = 0
			}
		}
		// Each decay is cut where what remains falls below PostsCut.
		pt.cut0 = min(p.cutAt(c, pt.r0), pt.viralAt, cfg.Duration)
		pt.cut1 = pt.viralAt
		if pt.viralAt < cfg.Duration {
			pt.cut1 = max(min(p.cutAt(pt.viralAt, pt.rv), cfg.Duration), pt.viralAt)
		}
		p.posts = append(p.posts, pt)
	}
	p.created = make([]int64, len(p.posts))
	p.endMax = make([]int64, len(p.posts))
	var em int64
	var peak float64 // Σ peak rates, likes/ns: a bound on any window's rate
	for j := range p.posts {
		if j&(1<<16-1) == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		pt := &p.posts[j]
		p.created[j] = pt.created
		em = max(em, min(pt.end(), cfg.Duration))
		p.endMax[j] = em
		p.expected += p.mass(pt, 0, cfg.Duration)
		peak += p.peak(pt)
	}
	if n := peak * float64(cfg.Window); n > maxPostsWindow {
		return fmt.Errorf("workload: posts peak rates sum to %.4g likes/s, up to %.4g likes in a window of %d ns, more than 2^31",
			peak*1e9, n, cfg.Window)
	}
	if p.expected > maxPostsLikes {
		return fmt.Errorf("workload: posts expect %.4g likes, more than 2^40", p.expected)
	}
	return nil
}

// cutAt returns the time from which what remains of a decay of rate r
// (likes/ns) at t0 falls below PostsCut: t0 + ln(r/(λ·cut))/λ, at least t0,
// and MaxInt64 beyond int64 time.
func (p *Posts) cutAt(t0 int64, r float64) int64 {
	life := math.Log(r/(p.lambda*PostsCut)) / p.lambda
	switch {
	case !(life > 0): // also r = 0 (−Inf)
		return t0
	case life >= float64(math.MaxInt64-t0):
		return math.MaxInt64
	}
	return t0 + int64(math.Ceil(life))
}

// peak returns the post's highest rate in likes/ns while it lives.
func (p *Posts) peak(pt *post) float64 {
	m := 0.0
	if pt.cut0 > pt.created {
		m = pt.r0
	}
	if pt.cut1 > pt.viralAt {
		m = max(m, pt.rv)
	}
	return m
}

// decayMass returns ∫ over [a, b) of a decay of rate r at t0: r·e^(−λ(a −
// t0))·(1 − e^(−λ(b − a)))/λ, and 0 when b ≤ a.
func (p *Posts) decayMass(r float64, t0, a, b int64) float64 {
	if b <= a || r == 0 {
		return 0
	}
	ra := r * math.Exp(-p.lambda*float64(a-t0))
	return -ra * math.Expm1(-p.lambda*float64(b-a)) / p.lambda
}

// mass returns ∫ rate over [a, b) of a post: its two cut decays.
func (p *Posts) mass(pt *post, a, b int64) float64 {
	m := p.decayMass(pt.r0, pt.created, max(a, pt.created), min(b, pt.cut0))
	if pt.viralAt != math.MaxInt64 {
		m += p.decayMass(pt.rv, pt.viralAt, max(a, pt.viralAt), min(b, pt.cut1))
	}
	return m
}

// Config returns the stream's config, with Window resolved (never 0).
func (p *Posts) Config() PostsConfig { return p.cfg }

// Chunks returns the number of chunks, ⌈Duration/Window⌉.
func (p *Posts) Chunks() int { return p.chunks }

// Len returns the number of posts in the table.
func (p *Posts) Len() int { return len(p.posts) }

// window returns chunk i's window [start, end).
func (p *Posts) window(i int) (start, end int64) {
	start = int64(i) * p.cfg.Window
	return start, start + min(p.cfg.Window, p.cfg.Duration-start)
}

// Posts returns a copy of the table, in order of creation (the post's
// index j is its place here).
func (p *Posts) Posts() []PostInfo {
	out, _ := p.PostsContext(context.Background())
	return out
}

// PostsContext is Posts, stopping with ctx's error when ctx ends first:
// it looks every 65,536 posts.
func (p *Posts) PostsContext(ctx context.Context) ([]PostInfo, error) {
	out := make([]PostInfo, len(p.posts))
	for j := range p.posts {
		if j&(1<<16-1) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		out[j] = p.Post(j)
	}
	return out, nil
}

// Post returns post j of the table, j in [0, Len()).
func (p *Posts) Post(j int) PostInfo {
	pt := &p.posts[j]
	info := PostInfo{
		Key:       pt.key,
		Created:   pt.created,
		Followers: pt.actor &^ ProtectedBit,
		Protected: pt.prot,
		Rate0:     pt.r0 * 1e9,
		End:       min(pt.end(), p.cfg.Duration),
	}
	if pt.viralAt != math.MaxInt64 {
		info.Viral, info.ViralAt, info.ViralRate = true, pt.viralAt, pt.rv*1e9
	}
	return info
}

// RateAt returns post j's like rate at t, in likes a second: 0 before its
// creation, where a decay is cut and from Duration on.
func (p *Posts) RateAt(j int, t int64) float64 {
	pt := &p.posts[j]
	switch {
	case t >= pt.viralAt:
		if t < pt.cut1 {
			return pt.rv * math.Exp(-p.lambda*float64(t-pt.viralAt)) * 1e9
		}
	case t >= pt.created && t < pt.cut0:
		return pt.r0 * math.Exp(-p.lambda*float64(t-pt.created)) * 1e9
	}
	return 0
}

// Mass returns ∫ post j's rate over [a, b), in likes: its expected likes
// with At in [a, b).
func (p *Posts) Mass(j int, a, b int64) float64 { return p.mass(&p.posts[j], a, b) }

// ExpectedLikes returns Σ ∫ rate over [0, Duration): the expected number of
// likes of the stream.
func (p *Posts) ExpectedLikes() float64 { return p.expected }

// PeakRate returns post j's highest rate within the stream, in likes a
// second: its rate at creation, or just after its jump if larger.
func (p *Posts) PeakRate(j int) float64 { return p.peak(&p.posts[j]) * 1e9 }

// FollowersAtLeast returns P(F ≥ f) under the stream's follower law: the
// share of posts whose author has at least f followers, for a plan that
// sizes counters from followers. For a Zipf over 1..Max it is
// 1 − H(f−1, s)/H(Max, s) (H by Euler–Maclaurin above 63 terms, O(1)); for
// a log-normal, whose draws are round(e^(μ+σZ)) clamped to 1..Max, it is
// P(e^(μ+σZ) ≥ f − ½) = ½·erfc((ln(f − ½) − μ)/(σ√2)) for 1 < f ≤ Max.
func (p *Posts) FollowersAtLeast(f uint64) float64 {
	fl := p.cfg.Followers
	switch {
	case f <= 1:
		return 1
	case f > fl.Max:
		return 0
	}
	if fl.Kind == "zipf" {
		h := func(n uint64) float64 {
			if n < emHead {
				return harmonicSum(n, fl.S)
			}
			return harmonicEM(n, fl.S)
		}
		return max(0, 1-h(f-1)/h(fl.Max))
	}
	x := math.Log(float64(f) - 0.5)
	if fl.Sigma == 0 {
		if x <= fl.Mu {
			return 1
		}
		return 0
	}
	return math.Erfc((x-fl.Mu)/(fl.Sigma*math.Sqrt2)) / 2
}
