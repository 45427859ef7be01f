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
// key's count), a feeder, and each design's cluster, on what its input
// gives it: the table of posts, their likes and the figures of its plans.
type postsKind struct {
	keyed
	feeder   engine.Feeder
	clusters engine.Clusters
	in       postsInput
	length   int64 // the run's length, ns
	batch    int
	// Drawn by draw, once Prepare has checked the run fits in memory.
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

// postsInput is where a posts run takes what it is made of — the posts
// generator (postsGen, below) or a recorded log of likes and its posts
// table (postsLog, log_posts.go): the run, its truth, its designs and
// their scoring are the posts kind's, whichever it is.
type postsInput interface {
	describe(k *postsKind) string
	// table is the posts, in order of creation; it looks at ctx.
	table(ctx context.Context) ([]workload.PostInfo, error)
	// stream is the likes, afresh; bad the error of a stream that could
	// not be read to its end (a bad line of a log), as bad input.
	stream() engine.Source
	bad() error
	// load hands each post the memory plan is worked out from, its likes
	// (a bound) and highest rate a second, and says how many each stands for.
	load(each func(p workload.PostInfo, likes, peak float64)) (scale float64)
	// plan is the truth's plans (of the viral posts where they are known);
	// fed those for the first until ns fed, with the posts created and gone
	// viral by then, the designs replanned.
	plan(k *postsKind) []metrics.Result
	fed(k *postsKind, rep *engine.Report, events int64, writes uint64, until int64) (plans []metrics.Result, posts, viral int)
	watchEnd(p *workload.PostInfo) int64 // the end of the followed post's window, ns
	notes(rep *engine.Report)            // what the input says of itself
}

// postsGen is the posts generator: the law of the posts and their likes.
type postsGen struct {
	spec *scenarios.Posts
	cfg  workload.PostsConfig
	// sample is the table the memory plan and the designs' figures are
	// worked out from, before anything as large as the run is drawn: the
	// table itself when the run expects at most postsSampleMax posts, else
	// the posts of the same law at a rate scale times lower (a thinned
	// Poisson process: the same law of a post, fewer of them).
	sample *workload.Posts
	scale  float64
	src    *workload.Posts // drawn by table
	k      *postsKind
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
	k, err := newPostsOn(h, spec.Pos, w.Length, spec.Batch)
	if err != nil {
		return nil, err
	}
	g := &postsGen{spec: spec, cfg: cfg, scale: 1, k: k}
	k.in = g
	scfg := cfg
	if n := w.ExpectedPosts(); n > postsSampleMax {
		g.scale = n / postsSampleMax
		scfg.PostRate = cfg.PostRate / g.scale
	}
	if g.sample, err = newPosts(h.Ctx, scfg); err != nil {
		return nil, scenarios.Errorf(spec.Pos, "workload: %v", err) // stopped: Prepare says so instead
	}
	posts := float64(g.sample.Len()) * g.scale
	likes := g.sample.ExpectedLikes() * g.scale
	k.keyed = newKeyed(h, uint64(math.Round(posts)), likes, nil, "no law of one key: posts")
	env := &h.Lineup.Env
	env.Keys = uint64(max(math.Round(posts), 1))
	env.Events = int64(math.Round(likes))
	env.Duration = w.Length
	env.Population = &strategies.Population{Counters: w.ExpectedPosts(), FollowersAtLeast: g.sample.FollowersAtLeast, Protected: w.Protected, ViralPeak: viralPeak,
		Posts: g.sample, Scale: g.scale}
	return k, nil
}

// newPostsOn is a posts run of length ns on the scenario's cluster, which
// it needs, refused at pos without one.
func newPostsOn(h *engine.Harness, pos scenarios.Pos, length int64, batch int) (*postsKind, error) {
	if h.Scn.Cluster == nil {
		return nil, scenarios.Errorf(pos, "a posts run needs cluster: its counters live on the simulated cluster (allowed: add cluster: with nodes and key_capacity)")
	}
	cl, err := h.Clusters()
	if err != nil {
		return nil, err
	}
	return &postsKind{feeder: h.Feeder, clusters: cl, length: length, batch: batch, small: -1, prep: h.Ctx}, nil
}

// table draws the table of posts: the sample itself when it is the table.
func (g *postsGen) table(ctx context.Context) ([]workload.PostInfo, error) {
	g.src = g.sample
	if g.scale != 1 {
		var err error
		if g.src, err = newPosts(ctx, g.cfg); err != nil {
			return nil, scenarios.Errorf(g.spec.Pos, "workload: %v", err)
		}
		g.k.keys, g.k.writes = uint64(g.src.Len()), g.src.ExpectedLikes()
	}
	return g.src.PostsContext(ctx)
}

func (g *postsGen) stream() engine.Source { return g.src }
func (g *postsGen) bad() error            { return nil }
func (g *postsGen) notes(*engine.Report)  {}
func (g *postsGen) viralKnown() bool {
	return g.spec.Stream.Viral != nil && g.spec.Stream.Viral.Share > 0
}

// watchEnd: four half-lives after the jump.
func (g *postsGen) watchEnd(p *workload.PostInfo) int64 { return p.ViralAt + 4*g.spec.Stream.HalfLife }

// load: the sample's posts, a post's likes bounded by their mean + 6σ + 1
// (Poisson).
func (g *postsGen) load(each func(p workload.PostInfo, likes, peak float64)) float64 {
	for j := range g.sample.Len() {
		m := g.sample.Mass(j, 0, g.spec.Stream.Length)
		each(g.sample.Post(j), m+6*math.Sqrt(m)+1, g.sample.PeakRate(j))
	}
	return g.scale
}

// Draw draws the table of posts and finds the viral posts and the one to
// follow. Prepare calls it once the memory plan, worked out before the
// table is drawn, fits; stopped, it returns an error and Prepare says the
// run was stopped instead.
func (k *postsKind) Draw() error {
	posts, err := k.in.table(k.prep)
	if err != nil {
		return err
	}
	k.posts = posts
	k.index = make(map[uint64]int32, engine.TruthHint(uint64(len(k.posts)))) // grown past the hint: a make of 2^24 entries cannot stop
	for j, p := range k.posts {
		if engine.Stopped(k.prep, j) {
			return k.prep.Err()
		}
		k.index[p.Key] = int32(j)
		if !p.Viral || p.ViralAt >= k.length {
			continue
		}
		k.viral++
		if p.ViralAt > k.length-postsWatchAfter {
			continue
		}
		if k.small < 0 || p.Followers < k.posts[k.small].Followers {
			k.small = j
		}
	}
	return nil
}

func (k *postsKind) Describe() string { return k.in.describe(k) }

func (g *postsGen) describe(k *postsKind) string {
	w := g.spec.Stream
	law := fmt.Sprintf("Zipf s = %g", w.Followers.S)
	if w.Followers.Law == "lognormal" {
		law = fmt.Sprintf("log-normal, median %s, σ %g", metrics.Format(w.Followers.Median), w.Followers.Sigma)
	}
	return fmt.Sprintf("Posts: %s posts over %s s (%s a second), followers %s up to %s, %s likes expected, halving every %s s; %s viral.",
		metrics.Format(float64(len(k.posts))), metrics.Format(float64(w.Length)/1e9), metrics.Format(w.Rate), law,
		metrics.Format(float64(w.Followers.Max)), metrics.Format(math.Round(g.src.ExpectedLikes())),
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
	var posts float64
	scale := k.in.load(func(workload.PostInfo, float64, float64) { posts++ })
	posts *= scale
	need := int64(posts * float64(int64(unsafe.Sizeof(postCount{}))+48+int64(unsafe.Sizeof(workload.PostInfo{}))))
	need += 8 * (k.length/1e9 + 1)
	probes := k.probes()
	for _, sh := range probes {
		var keys, secs float64
		k.in.load(func(p workload.PostInfo, likes, peak float64) {
			kk := 1.0
			if sh != nil {
				kk = float64(sh.StripesFor(p.Actor(), peak))
			}
			keys += min(likes, kk)
			secs += min(likes, kk*(float64(p.End-p.Created)/1e9+1))
		})
		keys, secs = keys*scale, secs*scale
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
func (k *postsKind) Plan() []metrics.Result { return k.in.plan(k) }

func (g *postsGen) plan(k *postsKind) []metrics.Result {
	w := g.spec.Stream
	row := func(m metrics.Metric, v float64, unit, note string) metrics.Result {
		return k.rows.Plan(strategies.PlanLine{Metric: m, Value: v, Unit: unit, Note: note})
	}
	rows := []metrics.Result{
		row(metrics.Posts, w.ExpectedPosts(), "posts", "rate × duration"),
		row(metrics.Writes, math.Round(g.src.ExpectedLikes()), "events", "Σ over the posts of ∫ rate dt"),
	}
	if v := w.Viral; v != nil && v.Share > 0 {
		rows = append(rows, row(metrics.ViralPosts, g.viralWithin(w.Length), "posts", "share × posts whose jump falls within the run"))
		if capa := k.clusters.Cfg.KeyCapacity; v.Floor > 0 {
			peak := v.Factor * v.Floor
			rows = append(rows,
				row(metrics.ViralPeak, peak, "likes/s", "factor × floor: a small account's viral post at its jump"),
				row(metrics.ViralStripesNeeded, math.Ceil(peak/capa), "stripes", fmt.Sprintf("⌈peak / key capacity⌉ = ⌈%s / %s⌉", metrics.Format(peak), metrics.Format(capa))))
		}
	}
	return rows
}

// viralWithin is the viral posts expected within the first D = until ns
// of the run: share × rate × ∫_0^D P(c + U·W < D) dc, D − W/2 when W ≤ D,
// D²/(2W) otherwise (c a post's creation, U uniform, W within).
func (g *postsGen) viralWithin(until int64) float64 {
	w := g.spec.Stream
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
		t.smallBy = make([]float64, (k.length+cluster.Second-1)/cluster.Second)
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
	sctx, release := engine.Scoring(ctx)
	defer release()
	tr := newPostsTruth(k)
	r, err := k.clusters.NewRun(ctx, k.lineup, tr, nil)
	if err != nil {
		return nil, err
	}
	watch := k.watch(r)
	events, err := k.feeder.Feed(ctx, r.Run, k.in.stream(), k.batch)
	if bad := k.in.bad(); bad != nil {
		return nil, bad // bad input: nothing is reported
	}
	if err == nil {
		for i := range r.Designs { // the ticks after the last event
			for ; r.NextTick[i] < len(r.Ticks); r.NextTick[i]++ {
				r.Tick(i, r.Ticks[r.NextTick[i]])
			}
		}
		r.Finish(k.length)
	} else {
		r.TakeSteady(r.FedUntil + 1) // what was fed
	}
	rep := &engine.Report{Partial: err != nil}
	k.in.notes(rep)
	plans := k.Plan()
	until, posts, viral := k.length, len(k.posts), k.viral
	if rep.Partial { // every plan for the first until ns, which were fed
		until = max(r.FedUntil, 1)
		plans, posts, viral = k.in.fed(k, rep, events, tr.n, until)
	}
	plan := func(m metrics.Metric, note, planNote string) (*float64, string) {
		for _, row := range plans {
			if row.Metric == m && row.Plan != nil {
				return row.Plan, note + planNote
			}
		}
		return nil, note
	}
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "every like fed")
	p, note := plan(metrics.Writes, "likes", "; plan Σ ∫ rate dt over the posts")
	k.rows.Truth(rep, metrics.Writes, float64(tr.n), "events", p, note)
	p, note = plan(metrics.Posts, "posts created", "; plan rate × duration")
	k.rows.Truth(rep, metrics.Posts, float64(posts), "posts", p, note)
	if p, note = plan(metrics.ViralPosts, "posts whose jump fell within the run", ""); p != nil {
		k.rows.Truth(rep, metrics.ViralPosts, float64(viral), "posts", p, note)
	}
	if k.small >= 0 && k.posts[k.small].ViralAt < until { // the followed post's jump was fed
		p := k.posts[k.small]
		peak := float64(tr.posts[k.small].peak)
		capa := k.clusters.Cfg.KeyCapacity
		var rate, need *float64
		note := ""
		if p.ViralRate > 0 {
			rate, need = metrics.PlanOf(engine.Round(p.ViralRate, 1)), metrics.PlanOf(math.Ceil(p.ViralRate/capa))
			note = "; plan its rate just after the jump"
		}
		k.rows.Truth(rep, metrics.ViralPeak, peak, "likes/s", rate,
			fmt.Sprintf("the followed post (%s followers, viral at %s s): its busiest second of likes%s",
				metrics.Format(float64(p.Followers)), metrics.Format(float64(p.ViralAt)/1e9), note))
		k.rows.Truth(rep, metrics.ViralStripesNeeded, math.Ceil(peak/capa), "stripes", need,
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

// fed: every plan for the first until ns fed.
func (g *postsGen) fed(k *postsKind, rep *engine.Report, events int64, writes uint64, until int64) ([]metrics.Result, int, int) {
	w := g.spec.Stream
	k.lineup.Replan(rep, engine.Fed{Events: events, Of: g.src.ExpectedLikes(), Writes: float64(writes), Until: until})
	likes := metrics.PlanOf(0)
	posts, viral := 0, 0
	for j := range k.posts {
		if engine.Stopped(k.prep, j) {
			likes = nil
			break
		}
		p := &k.posts[j]
		if p.Created < until {
			posts++
			*likes += g.src.Mass(j, 0, until)
		}
		if p.Viral && p.ViralAt < until {
			viral++
		}
	}
	if likes != nil {
		*likes = math.Round(*likes)
	}
	plans := []metrics.Result{{Metric: metrics.Writes, Plan: likes}, {Metric: metrics.Posts, Plan: metrics.PlanOf(w.Rate * float64(until) / 1e9)}}
	if v := w.Viral; v != nil && v.Share > 0 {
		plans = append(plans, metrics.Result{Metric: metrics.ViralPosts, Plan: metrics.PlanOf(g.viralWithin(until))})
	}
	return plans, posts, viral
}
