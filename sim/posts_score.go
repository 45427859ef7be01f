package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"fmt"
	"math"
	"slices"
)

// What a posts run measures of each design (posts.go): its final counts
// and its cluster's load as a timed stream's; the stripes the population
// held, and those held by posts one key would have carried; the posts and
// post-seconds over a key's capacity; and the followed post — the viral
// post of the smallest account — second by second.

// postsWatch is what the ticks take of each design while the stream is
// fed: each design on its own lane, so each touches its own entries only.
type postsWatch struct {
	sharded []strategies.Sharded
	cum     [][]int64   // per design: cum[j] = Σ first K of posts 0..j−1
	next    []int       // per design: the posts created before its last tick
	live    [][]float64 // per design: stripes live at each second's end
	smallK  [][]int32   // per design: the followed post's live K at each tick
}

// watch sets the run's ticks, every postsTick, at which each Sharded
// design's K of the followed post and its stripes live are taken: the
// stripes of every post created so far as created, plus what growth added.
func (k *postsKind) watch(r *engine.ClusterRun) *postsWatch {
	n := len(r.Designs)
	w := &postsWatch{sharded: make([]strategies.Sharded, n), cum: make([][]int64, n), next: make([]int, n),
		live: make([][]float64, n), smallK: make([][]int32, n)}
	for i, d := range r.Designs {
		sh, ok := d.(strategies.Sharded)
		if !ok {
			continue
		}
		w.sharded[i] = sh
		cum := make([]int64, len(k.posts)+1)
		for j, p := range k.posts {
			cum[j+1] = cum[j] + int64(sh.FirstStripes(p.Actor()))
		}
		w.cum[i] = cum
	}
	for t := postsTick; t <= k.length; t += postsTick {
		r.Ticks = append(r.Ticks, t)
	}
	r.NextTick = make([]int, n)
	r.Tick = func(i int, at int64) {
		sh := w.sharded[i]
		if sh == nil {
			return
		}
		for w.next[i] < len(k.posts) && k.posts[w.next[i]].Created < at {
			w.next[i]++
		}
		if k.small >= 0 {
			p := &k.posts[k.small]
			live, _ := sh.Stripes(p.Key)
			if live == 0 {
				live = sh.FirstStripes(p.Actor())
			}
			if p.Created >= at {
				live = 0
			}
			w.smallK[i] = append(w.smallK[i], int32(live))
		}
		if at%cluster.Second == 0 {
			w.live[i] = append(w.live[i], float64(w.cum[i][w.next[i]]+sh.Grown()))
		}
	}
	return w
}

// measure adds what design i of a posts run measured, beside what
// keyed.score adds of its counts. It stops with ctx's error when ctx ends
// first (looking every stopEvery posts), the rows after then left out.
func (k *postsKind) measure(ctx context.Context, s *engine.Scorer, r *engine.ClusterRun, tr *postsTruth, w *postsWatch, i int) error {
	k.clusters.Rows(s, r, i, false, k.length)
	if pc, ok := r.Designs[i].(strategies.PointCounter); ok {
		var final, want int64
		j := 0
		for key, c := range tr.All() {
			if engine.Stopped(ctx, j) {
				return ctx.Err()
			}
			j++
			final += int64(pc.Count(key))
			want += int64(c)
		}
		s.Add(metrics.FinalCount, float64(final), "events", metrics.PlanOf(float64(want)),
			"sum of the design's counts once served; plan: the truth")
		s.Add(metrics.CountError, float64(final-want), "events", metrics.PlanOf(0), "final − truth")
	}
	sh, c := w.sharded[i], r.Clusters[i]
	if sh == nil || c == nil {
		return nil
	}
	capa := r.Steady[i].KeyCapacity
	head := k.headroom()
	var held, unneeded, postsOver, secsOver int64
	var over, smallOver []int
	for j := range k.posts {
		if engine.Stopped(ctx, j) {
			return ctx.Err()
		}
		p := &k.posts[j]
		h := k.held(sh, j)
		held += int64(h)
		if float64(tr.posts[j].peak) <= capa*head {
			unneeded += int64(h - 1)
		}
		if tr.posts[j].count == 0 {
			continue
		}
		over = overSeconds(c, sh, p.Key, h, capa, over[:0])
		if len(over) > 0 {
			postsOver++
			secsOver += int64(len(over))
		}
		if j == k.small {
			smallOver = slices.Clone(over)
		}
	}
	posts := float64(len(k.posts))
	s.Add(metrics.StripesHeld, float64(held), "stripes", s.Plan(metrics.StripesHeld),
		"Σ over the posts of the most stripes each held (store keys created, liked or not); plan: posts × E[K] as created, or where K grows Σ over the posts of E[the most K] under each post's rate")
	s.Add(metrics.StripesPerPost, engine.Round(float64(held)/max(posts, 1), 4), "stripes", s.Plan(metrics.StripesPerPost),
		"stripes held / posts: the keys a read sums")
	s.Add(metrics.StripesUnneeded, float64(unneeded), "stripes",
		nil, fmt.Sprintf("stripes beyond one held by posts whose busiest second stayed within %s likes (a key at the headroom): memory and read fan-out spent on counters that never got hot", metrics.Format(capa*head)))
	if lv := w.live[i]; len(lv) > 0 {
		s.Add(metrics.StripesLiveMax, slices.Max(lv), "stripes", nil, "the most stripes live at once over the posts, at a second's end")
	}
	s.Add(metrics.PostsOverCapacity, float64(postsOver), "posts", nil,
		fmt.Sprintf("posts one of whose stripes took more than a key's capacity, %s increments, in some second", metrics.Format(capa)))
	s.Add(metrics.SecondsOverCapacity, float64(secsOver), "s", nil, "Σ over the posts of their seconds with a stripe over a key's capacity")
	if k.small >= 0 {
		k.followed(s, r, tr, w, i, smallOver, capa)
	}
	k.liveSeries(s, w, i)
	return nil
}

// headroom is the share of a key's capacity planned for: 1 without one.
func (k *postsKind) headroom() float64 {
	if h := k.clusters.Headroom; h > 0 && h <= 1 {
		return h
	}
	return 1
}

// held is the most stripes design sh gave post j: as created, or more if
// it grew.
func (k *postsKind) held(sh strategies.Sharded, j int) int {
	p := &k.posts[j]
	_, h := sh.Stripes(p.Key)
	return max(h, sh.FirstStripes(p.Actor()))
}

// overSeconds appends to buf the seconds, ascending and each once, in
// which one of the key's stripes 0..held−1 took more than capa writes.
func overSeconds(c *cluster.Cluster, sh strategies.Sharded, key uint64, held int, capa float64, buf []int) []int {
	for j := range held {
		c.KeySeconds(sh.StripeKey(key, j), func(sec int, writes, _ uint32) {
			if float64(writes) > capa {
				buf = append(buf, sec)
			}
		})
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// followed adds the rows and series of the followed post on design i: its
// K from creation to its most, its seconds over a key's capacity, the time
// from its jump until K reached the stripes its busiest second needs, the
// queue and the delay on its stripes.
func (k *postsKind) followed(s *engine.Scorer, r *engine.ClusterRun, tr *postsTruth, w *postsWatch, i int, over []int, capa float64) {
	sh, c := w.sharded[i], r.Clusters[i]
	p := &k.posts[k.small]
	first, held := sh.FirstStripes(p.Actor()), k.held(sh, k.small)
	need := int(math.Ceil(float64(tr.posts[k.small].peak) / capa))
	who := fmt.Sprintf("the followed post (%s followers, viral at %s s)", metrics.Format(float64(p.Followers)), metrics.Format(float64(p.ViralAt)/1e9))
	s.Add(metrics.ViralStripesFirst, float64(first), "stripes", nil, who+": its K when created")
	s.Add(metrics.ViralStripesMax, float64(held), "stripes", nil, "the most K it reached")
	rescue := math.NaN()
	if first >= need {
		rescue = 0
	} else {
		for m, kk := range w.smallK[i] {
			at := int64(m+1) * postsTick
			if at > p.ViralAt && int(kk) >= need {
				rescue = float64(at-p.ViralAt) / 1e9
				break
			}
		}
	}
	note := fmt.Sprintf("seconds in which one of its stripes took more than %s increments", metrics.Format(capa))
	if math.IsNaN(rescue) {
		note += fmt.Sprintf("; its K never reached the %d stripes its busiest second needs", need)
	}
	s.Add(metrics.ViralOverCapacity, float64(len(over)), "s", nil, note)
	if !math.IsNaN(rescue) {
		s.Add(metrics.ViralRescue, engine.Round(rescue, 1), "s", s.Plan(metrics.ViralRescue),
			fmt.Sprintf("from its jump until K ≥ %d, the stripes its busiest second needs, taken every %s s", need, metrics.Format(float64(postsTick)/1e9)))
	}
	var queue int64
	var delay float64
	for j := range held {
		if l, ok := c.KeyLoad(sh.StripeKey(p.Key, j)); ok {
			queue, delay = max(queue, l.MaxQueued), max(delay, l.MaxDelay)
		}
	}
	s.Add(metrics.ViralQueueMax, float64(queue), "ops", nil, "the most likes queued on one of its stripes at once")
	s.Add(metrics.ViralDelayMax, engine.Round(delay/1e9, 6), "s", nil, "the longest a like of it waited in a stripe's queue")

	// Its K and its busiest stripe, second by second, from just before the
	// jump: the seconds are counted from the jump.
	lo, hi := k.followedWindow()
	x := make([]float64, 0, hi-lo)
	kSer := make([]float64, 0, hi-lo)
	busiest := make([]float64, hi-lo)
	for j := range held {
		c.KeySeconds(sh.StripeKey(p.Key, j), func(sec int, writes, _ uint32) {
			if sec >= lo && sec < hi {
				busiest[sec-lo] = max(busiest[sec-lo], float64(writes))
			}
		})
	}
	per := int(cluster.Second / postsTick)
	for sec := lo; sec < hi; sec++ {
		x = append(x, float64(sec+1)-float64(p.ViralAt)/1e9)
		kk := 0.0
		if m := (sec+1)*per - 1; m < len(w.smallK[i]) {
			kk = float64(w.smallK[i][m])
		}
		kSer = append(kSer, kk)
	}
	name := s.D.Name()
	s.Rep.Series = append(s.Rep.Series,
		metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: name, Name: "viral-stripes", Kind: metrics.Curve,
			Title: "stripes K of the small account's viral post", XLabel: "seconds from its jump", YLabel: "stripes",
			X: x, Y: kSer, Marks: []metrics.Mark{{Label: fmt.Sprintf("needed at its peak: %d", need), Value: float64(need), Axis: "y"}}},
		metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: name, Name: "viral-load", Kind: metrics.Curve,
			Title: "increments a second on the busiest stripe of the small account's viral post", XLabel: "seconds from its jump",
			YLabel: "increments/s (log)", LogY: true, X: x, Y: busiest, Marks: engine.KeyLoadMarks(capa, k.clusters.Headroom)})
}

// followedWindow is the seconds [lo, hi) the followed post's series show:
// from 30 s before its jump to the input's end of it (four half-lives
// after, for the generator), within the run.
func (k *postsKind) followedWindow() (lo, hi int) {
	p := &k.posts[k.small]
	lo = int(max(p.Created, p.ViralAt-30e9) / cluster.Second)
	hi = int(min((k.length+cluster.Second-1)/cluster.Second, k.in.watchEnd(p)/cluster.Second+1))
	return lo, max(hi, lo+1)
}

// likesSeries is the followed post's likes a second over its window, the
// truth's line on the viral-load chart.
func (k *postsKind) likesSeries(rep *engine.Report, tr *postsTruth) {
	if k.small < 0 {
		return
	}
	lo, hi := k.followedWindow()
	p := &k.posts[k.small]
	var x, y []float64
	for sec := lo; sec < hi; sec++ {
		x = append(x, float64(sec+1)-float64(p.ViralAt)/1e9)
		y = append(y, tr.smallBy[sec])
	}
	rep.Series = append(rep.Series, metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Strategy: "likes (" + k.rows.TruthName + ")",
		Name: "viral-load", Kind: metrics.Curve, Title: "increments a second on the busiest stripe of the small account's viral post",
		XLabel: "seconds from its jump", YLabel: "increments/s (log)", LogY: true, X: x, Y: y})
}

// liveSeries is design i's stripes live over the run.
func (k *postsKind) liveSeries(s *engine.Scorer, w *postsWatch, i int) {
	lv := w.live[i]
	if len(lv) == 0 {
		return
	}
	x := make([]float64, len(lv))
	for j := range x {
		x[j] = float64(j + 1)
	}
	s.Rep.Series = append(s.Rep.Series, metrics.Series{Scenario: s.Scenario, Step: s.Step, Strategy: s.D.Name(), Name: "stripes-live",
		Kind: metrics.Curve, Title: "stripes live over all posts", XLabel: "simulated second", YLabel: "stripes (log)", LogY: true, X: x, Y: lv})
}
