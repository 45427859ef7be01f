package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"iter"
	"math"
	"unsafe"
)

// The posts run: thousands of like counters at once (issue 16, the
// sharded-counter seed). Posts are created all run long by authors with a
// heavy-tailed number of followers (workload.Posts); every design sizes
// each post's counter — a fixed K, a K predicted from the followers, with
// or without growth — on a simulated cluster of its own. The run scores the
// population: the stripes held and those held by posts that never got hot,
// the posts and seconds over a key's capacity, the load on each node; and
// it follows one post, the viral post of the smallest account, second by
// second — its likes, its K, its busiest stripe, how long growth took to
// give it the stripes its peak needs (posts_score.go).

// postsKind runs with the keyed questions' pieces (a post's likes are a
// key's count), a feeder, and each design's cluster.
type postsKind struct {
	keyed
	feeder   engine.Feeder
	clusters engine.Clusters
	spec     *scenarios.Posts
	cfg      workload.PostsConfig
	// sample is the table the memory plan and the designs' figures are
	// worked out from, before anything as large as the run is drawn: the
	// table itself when the run expects at most postsSampleMax posts, else
	// the posts of the same law at a rate scale times lower (a thinned
	// Poisson process: the same law of a post, fewer of them).
	sample *workload.Posts
	scale  float64
	// Drawn by draw, once Prepare has checked the run fits in memory.
	src   *workload.Posts
	posts []workload.PostInfo
	index map[uint64]int32 // a post's key → its index in the table
	viral int              // posts whose jump falls within the run
	// small is the followed post: the viral post of the smallest account
	// (the earliest on ties) whose jump leaves at least postsWatchAfter of
	// the run; −1 when there is none.
	small int
	// prep is Prepare's context, which drawing the table looks at.
	prep context.Context
}

// postsTick is how often each design's K of the followed post and its
// stripes live in all are taken.
const postsTick = int64(100e6)

// postsWatchAfter is the least of the run the followed post's jump must
// leave, to see what growth does.
const postsWatchAfter = int64(60e9)

// postsSampleMax is the most posts the sample of a posts run holds: a
// table drawn in milliseconds, whose sums estimate the table's within a
// few percent (TestPostsPlanFromSample: 1.6% at 295,200 posts, 0.4% at
// 16 M). A run of more posts plans its designs from the sample too (the
// posts and likes expected); the table's own rows are the table's.
const postsSampleMax = 1 << 16

// newPosts draws a table of posts (workload.NewPosts); a test counts what
// it is asked to draw.
var newPosts = workload.NewPostsContext

func init() { engine.DefineKind("posts", newPostsKind) }

func newPostsKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Posts)
	w := spec.Stream
	cfg := workload.PostsConfig{
		Seed: h.Scn.Seed, Label: streamLabel, Duration: w.Length, PostRate: w.Rate,
		Followers: workload.FollowerLaw{Kind: w.Followers.Law, Max: w.Followers.Max, S: w.Followers.S},
		LikeRate:  w.LikeRate, Noise: w.Noise, HalfLife: w.HalfLife, Protected: w.Protected, ProtectedFactor: w.ProtectedFactor,
	}
	if w.Followers.Law == "lognormal" {
		cfg.Followers.Mu, cfg.Followers.Sigma = w.Followers.Mu(), w.Followers.Sigma
	}
	var viralPeak float64
	if v := w.Viral; v != nil {
		cfg.ViralShare, cfg.ViralFactor, cfg.ViralWithin, cfg.ViralFloor = v.Share, v.Factor, v.Within, v.Floor
		viralPeak = v.Factor * v.Floor
	}
	if h.Scn.Cluster == nil {
		return nil, scenarios.Errorf(spec.Pos, "a posts run needs cluster: its counters live on the simulated cluster (allowed: add cluster: with nodes and key_capacity)")
	}
	cl, err := h.Clusters()
	if err != nil {
		return nil, err
	}
	k := &postsKind{feeder: h.Feeder, clusters: cl, spec: spec, cfg: cfg, scale: 1, small: -1, prep: h.Ctx}
	scfg := cfg
	if n := w.ExpectedPosts(); n > postsSampleMax {
		k.scale = n / postsSampleMax
		scfg.PostRate = cfg.PostRate / k.scale
	}
	if k.sample, err = newPosts(h.Ctx, scfg); err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err) // stopped: Prepare says so instead
	}
	posts := float64(k.sample.Len()) * k.scale
	likes := k.sample.ExpectedLikes() * k.scale
	k.keyed = newKeyed(h, uint64(math.Round(posts)), likes, nil, "no law of one key: posts")
	env := &h.Lineup.Env
	env.Keys = uint64(max(math.Round(posts), 1))
	env.Events = int64(math.Round(likes))
	env.Duration = w.Length
	env.Population = &strategies.Population{Counters: w.ExpectedPosts(), FollowersAtLeast: k.sample.FollowersAtLeast, Protected: w.Protected, ViralPeak: viralPeak,
		Posts: k.sample, Scale: k.scale}
	return k, nil
}

// Draw draws the table of posts — the sample itself when it is the table —
// and finds the viral posts and the one to follow. Prepare calls it once
// the memory plan, worked out from the sample, fits; stopped, it returns
// an error and Prepare says the run was stopped instead.
func (k *postsKind) Draw() error {
	src := k.sample
	if k.scale != 1 {
		var err error
		if src, err = newPosts(k.prep, k.cfg); err != nil {
			return scenarios.Errorf(k.spec.Pos, "workload: %v", err)
		}
		k.keys, k.writes = uint64(src.Len()), src.ExpectedLikes()
	}
	w := k.spec.Stream
	posts, err := src.PostsContext(k.prep)
	if err != nil {
		return err
	}
	k.src, k.posts = src, posts
	k.index = make(map[uint64]int32, engine.TruthHint(uint64(len(k.posts)))) // grown past the hint: a make of 2^24 entries cannot stop
	for j, p := range k.posts {
		if engine.Stopped(k.prep, j) {
			return k.prep.Err()
		}
		k.index[p.Key] = int32(j)
		if !p.Viral || p.ViralAt >= w.Length {
			continue
		}
		k.viral++
		if p.ViralAt > w.Length-postsWatchAfter {
			continue
		}
		if k.small < 0 || p.Followers < k.posts[k.small].Followers {
			k.small = j
		}
	}
	return nil
}

func (k *postsKind) Describe() string {
	w := k.spec.Stream
	law := fmt.Sprintf("Zipf s = %g", w.Followers.S)
	if w.Followers.Law == "lognormal" {
		law = fmt.Sprintf("log-normal, median %s, σ %g", metrics.Format(w.Followers.Median), w.Followers.Sigma)
	}
	return fmt.Sprintf("Posts: %s posts over %s s (%s a second), followers %s up to %s, %s likes expected, halving every %s s; %s viral.",
		metrics.Format(float64(len(k.posts))), metrics.Format(float64(w.Length)/1e9), metrics.Format(w.Rate), law,
		metrics.Format(float64(w.Followers.Max)), metrics.Format(math.Round(k.src.ExpectedLikes())),
		metrics.Format(float64(w.HalfLife)/1e9), engine.Count(float64(k.viral), "post"))
}

func (k *postsKind) Accepts(t *strategies.Type) error {
	return engine.OnlyFamily(t, strategies.FamilyPointCounter, "count each post's likes", "a posts run")
}

// Memory: the truth (a count and its busiest second a post, the index),
// the followed post's seconds, and each design's cluster — its keys, at
// most a post's likes and at most the stripes the design would give it,
// and its key-seconds, at most the likes and the keys × the post's life.
// A post's likes are bounded by their mean + 6σ + 1 (Poisson). The
// clusters grow all run long, one small allocation at a time, so the heap
// runs up to its GC target, twice what is live (GOGC 100): they count
// twice. Measured without that: the built-in viral-posts peaked at 630 MB
// against a plan of 439 MB. It is worked out from the sample, before the
// table is drawn: a run that cannot fit is refused without drawing it
// (its sums over the sample's posts, times scale).
func (k *postsKind) Memory() (int64, int64) {
	posts := float64(k.sample.Len()) * k.scale
	need := int64(posts * float64(int64(unsafe.Sizeof(postCount{}))+48+int64(unsafe.Sizeof(workload.PostInfo{}))))
	need += 8 * (k.spec.Stream.Length/1e9 + 1)
	probes := k.probes()
	for _, sh := range probes {
		var keys, secs float64
		for j := range k.sample.Len() {
			p := k.sample.Post(j)
			m := k.sample.Mass(j, 0, k.spec.Stream.Length)
			likes := m + 6*math.Sqrt(m) + 1
			kk := 1.0
			if sh != nil {
				kk = float64(sh.StripesFor(p.Actor(), k.sample.PeakRate(j)))
			}
			keys += min(likes, kk)
			secs += min(likes, kk*(float64(p.End-p.Created)/1e9+1))
		}
		keys, secs = keys*k.scale, secs*k.scale
		need += 2 * (int64(keys)*cluster.KeyBytes + int64(secs*18)) // key-seconds: 12 bytes, their slices growing by half
	}
	return need, 1
}

// probes builds each design on an empty cluster, to ask a Sharded one the
// stripes it gives a post before anything runs; nil entries for the others.
func (k *postsKind) probes() []strategies.Sharded {
	out := make([]strategies.Sharded, len(k.lineup.Members))
	for i, d := range k.lineup.Members {
		env := k.lineup.Env
		env.Store = k.clusters.New()
		if built, err := d.Build(env); err == nil {
			out[i], _ = built.(strategies.Sharded)
		}
	}
	return out
}

// Plan: the posts and likes the run expects, the viral posts whose jump
// falls within it, and the stripes a small account's viral post needs at
// its peak at a key's capacity.
func (k *postsKind) Plan() []metrics.Result {
	w := k.spec.Stream
	row := func(m metrics.Metric, v float64, unit, note string) metrics.Result {
		return k.rows.Plan(strategies.PlanLine{Metric: m, Value: v, Unit: unit, Note: note})
	}
	rows := []metrics.Result{
		row(metrics.Posts, w.ExpectedPosts(), "posts", "rate × duration"),
		row(metrics.Writes, math.Round(k.src.ExpectedLikes()), "events", "Σ over the posts of ∫ rate dt"),
	}
	if v := w.Viral; v != nil && v.Share > 0 {
		rows = append(rows, row(metrics.ViralPosts, k.viralExpected(), "posts", "share × posts whose jump falls within the run"))
		if capa := k.clusters.Cfg.KeyCapacity; v.Floor > 0 {
			peak := v.Factor * v.Floor
			rows = append(rows,
				row(metrics.ViralPeak, peak, "likes/s", "factor × floor: a small account's viral post at its jump"),
				row(metrics.ViralStripesNeeded, math.Ceil(peak/capa), "stripes", fmt.Sprintf("⌈peak / key capacity⌉ = ⌈%s / %s⌉", metrics.Format(peak), metrics.Format(capa))))
		}
	}
	return rows
}

// viralExpected is share × rate × ∫_0^D P(c + U·W < D) dc: D − W/2 when W ≤
// D, D²/(2W) otherwise (c a post's creation, U uniform, W within), for the
// run's length D.
func (k *postsKind) viralExpected() float64 { return k.viralWithin(k.spec.Stream.Length) }

// viralWithin is viralExpected for the first until ns of the run.
func (k *postsKind) viralWithin(until int64) float64 {
	w := k.spec.Stream
	d, win := float64(until)/1e9, float64(w.Viral.Within)/1e9
	span := d - win/2
	if win > d {
		span = d * d / (2 * win)
	}
	return w.Viral.Share * w.Rate * span
}

// postCount is what the truth keeps of a post: its likes, and its busiest
// second.
type postCount struct {
	count uint64
	sec   int64  // the second cur counts
	cur   uint32 // likes in that second
	peak  uint32 // the most likes in one second
}

// postsTruth is the exact truth of a posts run: each post's likes by its
// index in the table, its busiest second, and the followed post's likes
// second by second.
type postsTruth struct {
	index   map[uint64]int32
	keys    []uint64
	posts   []postCount
	n       uint64
	small   int32
	smallBy []float64 // the followed post's likes in each second of the run
}

func newPostsTruth(k *postsKind) *postsTruth {
	t := &postsTruth{index: k.index, keys: make([]uint64, len(k.posts)), posts: make([]postCount, len(k.posts)), small: int32(k.small)}
	for j, p := range k.posts {
		t.keys[j] = p.Key
		t.posts[j].sec = -1
	}
	if k.small >= 0 {
		t.smallBy = make([]float64, (k.spec.Stream.Length+cluster.Second-1)/cluster.Second)
	}
	return t
}

func (t *postsTruth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		j, ok := t.index[e.Key]
		if !ok {
			continue // not a post of the table: the stream holds none
		}
		p := &t.posts[j]
		d := uint64(e.Delta)
		p.count += d
		t.n += d
		if sec := e.At / cluster.Second; sec != p.sec {
			p.sec, p.cur = sec, 0
		}
		p.cur += uint32(d)
		p.peak = max(p.peak, p.cur)
		if j == t.small {
			t.smallBy[e.At/cluster.Second] += float64(d)
		}
	}
}

func (t *postsTruth) Count(key uint64) uint64 {
	if j, ok := t.index[key]; ok {
		return t.posts[j].count
	}
	return 0
}

func (t *postsTruth) Distinct(ctx context.Context) (int, error) {
	n := 0
	for j := range t.posts {
		if engine.Stopped(ctx, j) {
			return 0, ctx.Err()
		}
		if t.posts[j].count > 0 {
			n++
		}
	}
	return n, nil
}

func (t *postsTruth) Top(ctx context.Context, k int) ([]engine.KeyCount, error) {
	return engine.TopOf(ctx, t.All(), k)
}

// Ready: the table of posts is read as it is.
func (t *postsTruth) Ready(context.Context) error { return nil }

// All yields the posts liked, in the table's order.
func (t *postsTruth) All() iter.Seq2[uint64, uint64] {
	return func(yield func(uint64, uint64) bool) {
		for j := range t.posts {
			if c := t.posts[j].count; c > 0 && !yield(t.keys[j], c) {
				return
			}
		}
	}
}

func (k *postsKind) Run(ctx context.Context) (*engine.Report, error) {
	w := k.spec.Stream
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := newPostsTruth(k)
	r, err := k.clusters.NewRun(ctx, k.lineup, tr, nil)
	if err != nil {
		return nil, err
	}
	watch := k.watch(r)
	events, err := k.feeder.Feed(ctx, r.Run, k.src, k.spec.Batch)
	if err == nil {
		for i := range r.Designs { // the ticks after the last event
			for ; r.NextTick[i] < len(r.Ticks); r.NextTick[i]++ {
				r.Tick(i, r.Ticks[r.NextTick[i]])
			}
		}
		r.Finish(w.Length)
	} else {
		r.TakeSteady(r.FedUntil + 1) // what was fed
	}
	rep := &engine.Report{Partial: err != nil}
	plans := k.Plan()
	plan := func(m metrics.Metric) *float64 {
		for _, row := range plans {
			if row.Metric == m {
				return row.Plan
			}
		}
		return nil
	}
	until, posts, viral := w.Length, len(k.posts), k.viral
	if rep.Partial { // every plan for the first until ns, which were fed
		until = max(r.FedUntil, 1)
		k.lineup.Replan(rep, engine.Fed{Events: events, Of: k.src.ExpectedLikes(), Writes: float64(tr.n), Until: until})
		likes := metrics.PlanOf(0)
		posts, viral = 0, 0
		for j := range k.posts {
			if engine.Stopped(sctx, j) {
				likes = nil
				break
			}
			p := &k.posts[j]
			if p.Created < until {
				posts++
				*likes += k.src.Mass(j, 0, until)
			}
			if p.Viral && p.ViralAt < until {
				viral++
			}
		}
		if likes != nil {
			*likes = math.Round(*likes)
		}
		plans = []metrics.Result{{Metric: metrics.Writes, Plan: likes}, {Metric: metrics.Posts, Plan: metrics.PlanOf(w.Rate * float64(until) / 1e9)}}
		if v := w.Viral; v != nil && v.Share > 0 {
			plans = append(plans, metrics.Result{Metric: metrics.ViralPosts, Plan: metrics.PlanOf(k.viralWithin(until))})
		}
	}
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "every like fed")
	k.rows.Truth(rep, metrics.Writes, float64(tr.n), "events", plan(metrics.Writes), "likes; plan Σ ∫ rate dt over the posts")
	k.rows.Truth(rep, metrics.Posts, float64(posts), "posts", plan(metrics.Posts), "posts created; plan rate × duration")
	if w.Viral != nil && w.Viral.Share > 0 {
		k.rows.Truth(rep, metrics.ViralPosts, float64(viral), "posts", plan(metrics.ViralPosts), "posts whose jump fell within the run")
	}
	if k.small >= 0 && k.posts[k.small].ViralAt < until { // the followed post's jump was fed
		p := k.posts[k.small]
		peak := float64(tr.posts[k.small].peak)
		capa := k.clusters.Cfg.KeyCapacity
		k.rows.Truth(rep, metrics.ViralPeak, peak, "likes/s", metrics.PlanOf(engine.Round(p.ViralRate, 1)),
			fmt.Sprintf("the followed post (%s followers, viral at %s s): its busiest second of likes; plan its rate just after the jump",
				metrics.Format(float64(p.Followers)), metrics.Format(float64(p.ViralAt)/1e9)))
		k.rows.Truth(rep, metrics.ViralStripesNeeded, math.Ceil(peak/capa), "stripes", metrics.PlanOf(math.Ceil(p.ViralRate/capa)),
			fmt.Sprintf("⌈busiest second / key capacity %s⌉: the stripes that carry its peak", metrics.Format(capa)))
	}
	k.score(sctx, rep, r.Run, tr, events, func(s *engine.Scorer, i int) {
		if err == nil && k.measure(sctx, s, r, tr, watch, i) != nil {
			rep.Cut("the posts' stripes and the followed post's rows")
		}
	}, nil)
	if err == nil {
		k.likesSeries(rep, tr)
	}
	return rep, engine.StoppedScoring(ctx, rep, err)
}
