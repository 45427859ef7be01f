package hot

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// heldPosts is a posts stream whose counters sit near grow_above: 600
// posts in 2 minutes whose first rate is about 45 likes a second (authors
// of about 90,000 followers, little spread), a few of them viral (factor
// 4, floor 20), against grow_above 50: a post grows once or not by the
// luck of its Poisson likes, the viral ones several times.
func heldPosts(t *testing.T, seed uint64) *workload.Posts {
	t.Helper()
	p, err := workload.NewPostsContext(context.Background(), workload.PostsConfig{
		Seed: seed, Label: "held", Duration: 120e9, PostRate: 5,
		Followers: workload.FollowerLaw{Kind: "lognormal", Mu: math.Log(90_000), Sigma: 0.25, Max: 2_000_000},
		LikeRate:  0.0005, Noise: 0.15, HalfLife: 30e9, Protected: 0.2, ProtectedFactor: 0.5,
		ViralShare: 0.03, ViralFactor: 4, ViralFloor: 20, ViralWithin: 40e9,
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// heldOf runs s over the posts' likes and returns the most stripes each
// post held (its first K if it was never liked), as the posts run counts
// them.
func heldOf(t *testing.T, s *Striped, posts *workload.Posts) []int {
	t.Helper()
	var buf []workload.Event
	for i := range posts.Chunks() {
		buf = posts.Chunk(i, buf)
		s.Observe(buf)
	}
	if err := s.check(); err != nil {
		t.Fatal(err)
	}
	held := make([]int, posts.Len())
	for j := range held {
		p := posts.Post(j)
		_, h := s.Stripes(p.Key)
		held[j] = max(h, s.FirstStripes(p.Actor()))
	}
	return held
}

// TestHeldLaw holds the stripes a growing counter's posts held to the law
// of striped_held.go, over four designs (random, round-robin and
// least-loaded selection, with and without shrinking, a table and
// per_followers) and three seeds: every post's most K is a value its law
// gives a positive probability, and their sum lies in the central
// interval of the sum's law that holds all but 10^-6 of it. The posts'
// likes are independent Poisson processes, so their most K are
// independent and the sum's law is the convolution of theirs, worked out
// here exactly (the states the law drops, below 10^-18 each, aside). The
// mean's view, which ignores that the counts are Poisson, falls outside
// the same interval on most of these streams.
func TestHeldLaw(t *testing.T) {
	const alpha = 1e-6
	var viewOutside, cases int
	for _, c := range []struct {
		name string
		p    StripedParams
	}{
		{"random/shrink", StripedParams{Stripes: 1, GrowAbove: 50, ShrinkBelow: 20}},
		{"round-robin/shrink", StripedParams{Stripes: 1, Select: SelectRoundRobin, GrowAbove: 50, ShrinkBelow: 20}},
		{"random/table", StripedParams{Stripes: 1, Predict: table(t, "0:1, 100000:2, 200000:4"), ProtectedFactor: 0.5, GrowAbove: 50}},
		{"least-loaded/per", StripedParams{Stripes: 1, Select: SelectLeastLoaded, PerFollowers: 80_000, GrowAbove: 50, ShrinkBelow: 25, MaxStripes: 16}},
	} {
		for seed := range uint64(3) {
			t.Run(fmt.Sprintf("%s/seed=%d", c.name, seed), func(t *testing.T) {
				posts := heldPosts(t, seed+1)
				s, err := NewStriped(c.p, designtest.NewMemStore(t), seed)
				if err != nil {
					t.Fatal(err)
				}
				held := heldOf(t, s, posts)
				sum := []float64{1} // the law of the sum so far, by its value
				var got, want, view float64
				uncertain := 0
				for j, h := range held {
					law := s.HeldLaw(posts, j)
					if !slices.ContainsFunc(law.Outcomes, func(o HeldOutcome) bool { return o.Stripes == h && o.P > 0 }) {
						t.Errorf("post %d (%+v): held %d stripes, which its law %+v does not give", j, posts.Post(j), h, law.Outcomes)
					}
					if len(law.Outcomes) > 1 {
						uncertain++
					}
					top := law.Outcomes[len(law.Outcomes)-1].Stripes
					next := make([]float64, len(sum)+top)
					for v, p := range sum {
						for _, o := range law.Outcomes {
							next[v+o.Stripes] += p * o.P
						}
					}
					sum = next
					got += float64(h)
					want += law.Mean
					view += float64(s.StripesFor(posts.Post(j).Actor(), posts.PeakRate(j)))
				}
				lo, hi := centralInterval(sum, alpha)
				t.Logf("%d posts, %d of uncertain K: held %v, law's mean %.1f, its interval %d..%d, mean's view %v", len(held), uncertain, got, want, lo, hi, view)
				if got < float64(lo) || got > float64(hi) {
					t.Errorf("held %v stripes, outside %d..%d, which holds all but %v of the law of the sum (mean %.2f)", got, lo, hi, alpha, want)
				}
				if uncertain < 100 {
					t.Errorf("only %d posts of uncertain K: the stream does not test the law near grow_above", uncertain)
				}
				cases++
				if view < float64(lo) || view > float64(hi) {
					viewOutside++
				}
			})
		}
	}
	if viewOutside < cases/2 {
		t.Errorf("the mean's view is within the interval in %d of %d cases: the stream cannot tell the law from it", cases-viewOutside, cases)
	}
}

// centralInterval is the least lo and the most hi such that P(X < lo) and
// P(X > hi) are each at most alpha/2, for X of law p (p[v] = P(X = v)).
func centralInterval(p []float64, alpha float64) (lo, hi int) {
	var below float64
	for lo = 0; lo < len(p) && below+p[lo] <= alpha/2; lo++ {
		below += p[lo]
	}
	var above float64
	for hi = len(p) - 1; hi > 0 && above+p[hi] <= alpha/2; hi-- {
		above += p[hi]
	}
	return lo, hi
}

// The law's arithmetic: the Poisson tails against sums of the mass
// function, and a fixed K's law its K.
func TestHeldLawPieces(t *testing.T) {
	for _, c := range []struct {
		k  int64
		mu float64
	}{{0, 3}, {5, 3}, {700, 650}, {700, 720}, {40, 0.5}, {2000, 1800}, {10, 30}} {
		var cdf float64
		lp := -c.mu
		for i := int64(0); i <= c.k; i++ {
			if i > 0 {
				lp += math.Log(c.mu / float64(i))
			}
			cdf += math.Exp(lp)
		}
		if got := poissonCDF(c.k, c.mu); math.Abs(got-cdf) > 1e-12*math.Max(cdf, 1e-300)+1e-15 {
			t.Errorf("poissonCDF(%d, %v) = %v, the sum %v", c.k, c.mu, got, cdf)
		}
		if got, want := poissonTail(c.k+1, c.mu), 1-cdf; math.Abs(got-want) > 1e-12 {
			t.Errorf("poissonTail(%d, %v) = %v, want %v", c.k+1, c.mu, got, want)
		}
		if b := poissonTailBound(c.k+1, c.mu); b < poissonTail(c.k+1, c.mu) {
			t.Errorf("Chernoff's bound %v below the tail %v at %d, %v", b, poissonTail(c.k+1, c.mu), c.k+1, c.mu)
		}
	}
	// A small tail, from its own side: P(X ≥ 701) for mean 500.
	var tail float64
	lp := -500.0
	for i := 1; i <= 2000; i++ {
		lp += math.Log(500 / float64(i))
		if i >= 701 {
			tail += math.Exp(lp)
		}
	}
	if got := poissonTail(701, 500); math.Abs(got-tail) > 1e-9*tail {
		t.Errorf("poissonTail(701, 500) = %v, the sum %v", got, tail)
	}
	posts := heldPosts(t, 1)
	s, err := NewStriped(StripedParams{Stripes: 4}, designtest.NewMemStore(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	if law := s.HeldLaw(posts, 0); law.Mean != 4 || !slices.Equal(law.Outcomes, []HeldOutcome{{4, 1}}) {
		t.Errorf("fixed K = 4: law %+v; want 4 always", law)
	}
}

// The plan of a growing design over a population with its posts: the
// stripes held, Σ of the law's means, and per post.
func TestGrownPlan(t *testing.T) {
	posts := heldPosts(t, 2)
	p := StripedParams{Stripes: 1, GrowAbove: 50, ShrinkBelow: 20}
	s, err := NewStriped(p, designtest.NewMemStore(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	var want float64
	for j := range posts.Len() {
		want += s.HeldLaw(posts, j).Mean
	}
	for _, scale := range []float64{1, 3} {
		env := strategies.Env{Population: &strategies.Population{Counters: 600, FollowersAtLeast: posts.FollowersAtLeast, Posts: posts, Scale: scale}}
		var held, per float64
		for _, l := range stripedPlan(&p, env) {
			switch l.Metric {
			case metrics.StripesHeld:
				held = l.Value
			case metrics.StripesPerPost:
				per = l.Value
			}
		}
		if math.Abs(held-want*scale) > 1e-9*want || math.Abs(per-want/float64(posts.Len())) > 1e-12 {
			t.Errorf("scale %v: plan held %v, per post %v; want %v, %v", scale, held, per, want*scale, want/float64(posts.Len()))
		}
	}
}
