package sim

import (
	"context"
	"math"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies/hot"
)

// postsYAML is a small posts run: 2,400 posts in 2 minutes on keys of 300
// increments a second, a few of them viral (20 × 40 = 800 likes a second:
// 3 stripes), 30% of them protected (liked at 0.3 of the rate), under one
// stripe for all, eight for all, a prediction from the followers that
// counts a protected post's at 0.3, and the prediction with growth.
const postsYAML = `name: posts
seed: 7
assumptions: {key_capacity: 300, headroom: 0.7}
workload:
  posts:
    rate: 20
    duration: 2m
    followers: {law: lognormal, median: 100, sigma: 2, max: 1_000_000}
    like_rate: 0.002
    noise: 0.3
    half_life: 20s
    protected: 0.3
    protected_factor: 0.3
    viral: {share: 0.005, factor: 20, floor: 40, within: 30s}
cluster: {nodes: 4}
strategies:
  - {name: one, type: striped, params: {stripes: 1}}
  - {name: eight, type: striped, params: {stripes: 8}}
  - {name: predicted, type: striped, params: {stripes: 1, predict: "0:1,100000:2,200000:4,400000:8", protected_factor: 0.3}}
  - {name: grow, type: striped, params: {stripes: 1, predict: "0:1,100000:2,200000:4,400000:8", grow_above: 210, shrink_below: 100}}
`

// predictedK is the test's own reading of the rule above, a protected
// post's followers counting 0.3 times.
func predictedK(followers uint64, protected bool) int {
	f := float64(followers)
	if protected {
		f *= 0.3
	}
	switch {
	case f >= 400000:
		return 8
	case f >= 200000:
		return 4
	case f >= 100000:
		return 2
	}
	return 1
}

// TestPostsRun holds a posts run's population figures to ground truth
// worked out here from the stream and the table: every count exact; the
// stripes held, as created, K for everyone or the rule's K post by post;
// the stripes of posts one key would have carried; with one stripe a post,
// the posts and post-seconds over a key's capacity are those whose likes
// in a second passed it, which the cluster must agree with; the viral post
// of the smallest account swamps one stripe, and growth gives it the
// stripes its peak needs within the plan.
func TestPostsRun(t *testing.T) {
	st := prepare(t, postsYAML, engine.Options{})
	k := st.Kind.(*postsKind)
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs := rep.Results
	if k.small < 0 {
		t.Fatal("no viral post to follow: the scenario must have one")
	}
	// The stream read again: likes per post and second.
	capa, head := 300.0, 0.7
	perSec := map[[2]uint64]uint32{}
	for i := range k.in.(*postsGen).src.Chunks() {
		for _, e := range k.in.(*postsGen).src.Chunk(i, nil) {
			perSec[[2]uint64{e.Key, uint64(e.At / 1e9)}]++
		}
	}
	peak := map[uint64]uint32{}
	var over, overSecs int
	overPost := map[uint64]bool{}
	for ks, n := range perSec {
		peak[ks[0]] = max(peak[ks[0]], n)
		if float64(n) > capa {
			overSecs++
			if !overPost[ks[0]] {
				overPost[ks[0]] = true
				over++
			}
		}
	}
	posts := len(k.posts)
	var heldPredicted, hotPosts int
	for _, p := range k.posts {
		heldPredicted += predictedK(p.Followers, p.Protected)
		if float64(peak[p.Key]) > capa*head {
			hotPosts++
		}
	}
	for _, c := range []struct {
		design string
		metric metrics.Metric
		want   float64
	}{
		{"one", "stripes_held", float64(posts)},
		{"eight", "stripes_held", float64(8 * posts)},
		{"predicted", "stripes_held", float64(heldPredicted)},
		{"one", "stripes_unneeded", 0},
		{"eight", "stripes_unneeded", float64(7 * (posts - hotPosts))},
		{"one", "posts_over_capacity", float64(over)},
		{"one", "seconds_over_capacity", float64(overSecs)},
		{"eight", "posts_over_capacity", 0},
		{"eight", "stripes_live_max", float64(8 * posts)},
		{"predicted", "stripes_live_max", float64(heldPredicted)},
		{"one", "viral_stripes_max", 1},
		{"eight", "viral_rescue_s", 0},
	} {
		if got := find(t, rs, c.design, c.metric).Number(); got != c.want {
			t.Errorf("%s %s: got %v, want %v", c.design, c.metric, got, c.want)
		}
	}
	for _, d := range []string{"one", "eight", "predicted", "grow"} {
		if got := find(t, rs, d, "count_error").Number(); got != 0 {
			t.Errorf("%s: count error %v", d, got)
		}
	}
	if over == 0 {
		t.Fatal("no post went over a key's capacity on one stripe: the test shows nothing")
	}
	// The followed post: one stripe stays swamped; growth reaches what its
	// busiest second needs within the plan, and holds it over capacity for
	// a few seconds at most.
	need := math.Ceil(float64(peak[k.posts[k.small].Key]) / capa)
	if got := find(t, rs, engine.TruthName(st.Scenario), "viral_stripes_needed").Number(); got != need || need < 2 {
		t.Errorf("viral_stripes_needed %v, want %v (≥ 2)", got, need)
	}
	rescue := find(t, rs, "grow", "viral_rescue_s")
	if rescue.Plan == nil || rescue.Number() > *rescue.Plan || *rescue.Plan != 3 {
		t.Errorf("grow: rescued after %v s, plan %v (want 3: 1 → 2 → 4 stripes, + 1 s)", rescue.Number(), rescue.Plan)
	}
	if g, o := find(t, rs, "grow", "viral_over_capacity_s").Number(), find(t, rs, "one", "viral_over_capacity_s").Number(); g > 3 || o < 10 {
		t.Errorf("viral post over capacity: %v s with growth, %v s on one stripe", g, o)
	}
	for _, r := range rs {
		if r.Strategy == "one" && r.Metric == "viral_rescue_s" {
			t.Errorf("one stripe never reaches %v stripes, yet a rescue time %v", need, r.Number())
		}
	}
	if !strings.Contains(find(t, rs, "one", "viral_over_capacity_s").Note, "never reached") {
		t.Error("one stripe's over-capacity row does not say its K never reached the need")
	}
	// The plan of the stripes held as created: E[K] under the law, within
	// 6σ of the table's posts (K − E[K] has σ at most 3.5 for K in 1..8).
	pl := find(t, rs, "predicted", "stripes_held")
	if pl.Plan == nil || math.Abs(*pl.Plan-float64(heldPredicted)) > 6*3.5*math.Sqrt(float64(posts)) {
		t.Errorf("predicted stripes held %v, plan %v", heldPredicted, pl.Plan)
	}
	// The plan of the stripes held where K grows: Σ over the table's posts
	// of the mean of each post's law (hot.Striped.HeldLaw), and the
	// measurement within the central interval of the law of the sum —
	// the convolution of the posts' laws, independent (their likes are
	// independent Poisson processes) — that holds all but 10^-6 of it.
	grow := find(t, rs, "grow", "stripes_held")
	law, err := hot.NewStriped(hot.StripedParams{Stripes: 1, Predict: mustTable(t, "0:1,100000:2,200000:4,400000:8"), GrowAbove: 210, ShrinkBelow: 100},
		newTestCluster(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	sum, mean := []float64{1}, 0.0
	for j := range k.posts {
		h := law.HeldLaw(k.in.(*postsGen).src, j)
		mean += h.Mean
		next := make([]float64, len(sum)+h.Outcomes[len(h.Outcomes)-1].Stripes)
		for v, p := range sum {
			for _, o := range h.Outcomes {
				next[v+o.Stripes] += p * o.P
			}
		}
		sum = next
	}
	lo, below := 0, 0.0
	for ; below+sum[lo] <= 5e-7; lo++ {
		below += sum[lo]
	}
	hi, above := len(sum)-1, 0.0
	for ; above+sum[hi] <= 5e-7; hi-- {
		above += sum[hi]
	}
	t.Logf("grow: %v stripes held, law's mean %.2f, its interval %d..%d", grow.Number(), mean, lo, hi)
	if grow.Plan == nil || math.Abs(*grow.Plan-mean) > 1e-9*mean || grow.Number() < float64(lo) || grow.Number() > float64(hi) {
		t.Errorf("grow: stripes held %v, plan %v; want the plan Σ E[most K] = %v and the measurement in %d..%d", grow.Number(), grow.Plan, mean, lo, hi)
	}
	if pp := find(t, rs, "grow", "stripes_per_post"); pp.Plan == nil || math.Abs(*pp.Plan-mean/float64(posts)) > 1e-12 {
		t.Errorf("grow: stripes per post plan %v, want %v", pp.Plan, mean/float64(posts))
	}
	for _, name := range []string{"viral-stripes", "viral-load", "stripes-live"} {
		if len(seriesOf(rep, name, "grow")) != 1 {
			t.Errorf("no %s series for grow", name)
		}
	}
}

// mustTable reads a predict table.
func mustTable(t *testing.T, text string) hot.PredictTable {
	t.Helper()
	var tab hot.PredictTable
	if err := tab.UnmarshalText([]byte(text)); err != nil {
		t.Fatal(err)
	}
	return tab
}

// newTestCluster is a simulated cluster for a design built in a test.
func newTestCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(cluster.Config{Nodes: 4, KeyCapacity: 300})
	if err != nil {
		t.Fatal(err)
	}
	return c
}
