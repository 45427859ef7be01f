package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A recorded log of likes replayed as a posts run (workload: {file: …,
// as: posts}, issue 25): the posts runner (posts.go) with its table from a
// second file, the posts table (one line a post, in order of creation: its
// key, its author's followers, its creation, its protection), its likes
// from the log, each like's Actor its post's author from the table (what a
// design sizes a counter from). The designs, on the scenario's cluster,
// and the truth are the synthetic run's.
//
// Both files are read whole at Prepare: a like of a post the table lacks,
// before its creation or past the span is bad input there, at its line,
// and every figure — posts, likes, span, each post's likes and busiest
// second (for the memory plan) — is the log's own from the start, none
// estimated. A log holds no law of a post's rate: the plan of the stripes
// a growing K holds, which sums over it, is left out. Which post went viral
// and when is the truth's knowledge: follow and follow_at may state it
// (countsim sample writes them); else the run follows the post of the
// smallest account whose likes passed a key's capacity × headroom in a
// second, from that second. The clock starts at from, or the whole second
// of the first post's creation, and lasts span, or to the end of the
// second of the last like or post: a sampled log replays on the synthetic
// run's clock.

func init() {
	defineLogAs("posts", newLogPosts)
	defineSampler("posts", samplePosts)
}

// postsLog is a log of likes and its posts table as a posts run's input.
type postsLog struct {
	*logBase
	lineup  *engine.Lineup
	rows    []workload.PostInfo
	counts  []postCount // each post's likes and busiest second, read at Prepare
	likes   uint64
	liked   int
	start   time.Time
	tabPath string
	index   map[uint64]int32 // a post's key → its row
	// firstOver is the start of each post's first second of more than a
	// key's capacity × headroom likes, ns; −1 for none.
	firstOver []int64
	follow    string // how the followed post was found, for the notes
	src       *logSource
}

func newLogPosts(h *engine.Harness, b *logBase) (engine.Kind, error) {
	spec := b.spec
	k, err := newPostsOn(h, spec.Pos, 0, spec.Batch)
	if err != nil {
		return nil, err
	}
	l := &postsLog{logBase: b, lineup: h.Lineup, tabPath: spec.PostsPath(h.Scn.File)}
	if err := l.readTable(h.Ctx); err != nil { // a line's error at its line; stopped, Prepare says so instead
		if le := (*workload.LogError)(nil); !errors.As(err, &le) {
			return nil, scenarios.Errorf(spec.Pos, "workload.posts_file: %v", err)
		}
		return nil, b.badInput(err)
	}
	l.cfg.Start = l.start
	over := k.clusters.Cfg.KeyCapacity * k.headroom()
	last, err := l.readLikes(h.Ctx, over)
	if err != nil {
		return nil, b.badInput(err)
	}
	k.length = spec.Span
	if k.length == 0 {
		k.length = (max(last, l.rows[len(l.rows)-1].Created)/1e9 + 1) * 1e9
	}
	if err := l.followed(k, over); err != nil {
		return nil, err
	}
	k.in = l
	posts := float64(len(l.rows))
	k.keyed = newKeyed(h, uint64(posts), float64(l.likes), nil, "no law of one key: posts")
	env := &h.Lineup.Env
	env.Keys, env.Events, env.Duration = uint64(posts), int64(l.likes), k.length
	followers, pop := make([]uint64, len(l.rows)), &strategies.Population{Counters: posts}
	for j, p := range l.rows {
		followers[j] = p.Followers
		if p.Protected {
			pop.Protected += 1 / posts
		}
		if p.Viral {
			pop.ViralPeak = float64(l.counts[j].peak)
		}
	}
	slices.Sort(followers)
	env.Population = pop
	pop.FollowersAtLeast = func(f uint64) float64 { // the table's share of posts with at least f followers
		i, _ := slices.BinarySearch(followers, f)
		return float64(len(followers)-i) / posts
	}
	return k, nil
}

// readTable reads the posts table whole: each line a post, its followers
// from 0 to 10^9, its protection 0 or 1, in order of creation (the
// reader refuses a line earlier than the one before it), no post twice,
// none before the clock's start.
func (l *postsLog) readTable(ctx context.Context) error {
	spec := l.spec
	cfg := workload.LogConfig{Path: l.tabPath, Format: spec.Format, Key: spec.Key, KeyID: spec.KeyID, Time: spec.Created,
		Start: time.Unix(0, 0), Delta: spec.Followers, ActorID: spec.Protected}
	from, given := spec.PostsFrom()
	l.index = map[uint64]int32{}
	var lines []int64
	err := engine.EachLine(ctx, cfg, func(e *workload.Event, line int64, bad func(string, ...any) error) error {
		if j, dup := l.index[e.Key]; dup {
			return bad("the post of line %d is in the table again (allowed: one line a post)", lines[j])
		}
		if len(l.rows) == 0 && !given {
			from = time.Unix(e.At/1e9, 0)
		}
		created := e.At - from.UnixNano()
		switch {
		case e.Delta < 0 || e.Delta > 1e9:
			return bad("followers %d not in 0..10^9 (column %s)", e.Delta, spec.Followers)
		case e.Actor > 1:
			return bad("protected %d is not 0 or 1 (column %s)", e.Actor, spec.Protected)
		case created < 0:
			return bad("created before the run's start %s (allowed: from at or before the first post's creation)", from.UTC().Format(time.RFC3339Nano))
		}
		l.index[e.Key] = int32(len(l.rows))
		lines = append(lines, line)
		l.rows = append(l.rows, workload.PostInfo{Key: e.Key, Created: created, Followers: uint64(e.Delta), Protected: e.Actor == 1, End: created})
		return nil
	})
	if err == nil && len(l.rows) == 0 {
		err = fmt.Errorf("the posts table %s holds no post (allowed: a table of at least one line)", l.tabPath)
	}
	l.start = from
	return err
}

// readLikes reads the log of likes whole on the run's clock, each like's
// post in the table, from its creation on, before the span's end: it
// counts each post's likes, its busiest second and its first second of
// more than over likes, and returns the last like's time.
func (l *postsLog) readLikes(ctx context.Context, over float64) (last int64, err error) {
	l.counts, l.firstOver = make([]postCount, len(l.rows)), make([]int64, len(l.rows))
	for j := range l.counts {
		l.counts[j].sec, l.firstOver[j] = -1, -1
	}
	key := cmp.Or(l.spec.KeyID, l.spec.Key)
	return last, engine.EachLine(ctx, l.cfg, func(e *workload.Event, _ int64, bad func(string, ...any) error) error {
		j, ok := l.index[e.Key]
		switch {
		case !ok:
			return bad("a like of a post the posts table %s does not hold (allowed: a post of the table, by its column %s)", l.tabPath, key)
		case e.At < l.rows[j].Created:
			return bad("a like at %s s of a post created at %s s, later (allowed: likes from the post's creation on)",
				metrics.Format(float64(e.At)/1e9), metrics.Format(float64(l.rows[j].Created)/1e9))
		case l.spec.Span > 0 && e.At >= l.spec.Span:
			return bad("a like at %s s, past the span %s s (allowed: likes within span)", metrics.Format(float64(e.At)/1e9), metrics.Format(float64(l.spec.Span)/1e9))
		}
		last = max(last, e.At)
		if e.Op != workload.Write || e.Delta <= 0 {
			return nil
		}
		c, d := &l.counts[j], uint64(e.Delta)
		if c.count == 0 {
			l.liked++
		}
		c.count, l.likes = c.count+d, l.likes+d
		if sec := e.At / 1e9; sec != c.sec {
			c.sec, c.cur = sec, 0
		}
		c.cur += uint32(d)
		c.peak = max(c.peak, c.cur)
		if float64(c.cur) > over && l.firstOver[j] < 0 {
			l.firstOver[j] = c.sec * 1e9
		}
		l.rows[j].End = e.At + 1
		return nil
	})
}

// followed marks the post to follow as viral at its jump: follow, or
// else the post of the smallest account (the earliest on ties) whose likes
// passed over (a key's capacity × headroom) in a second leaving at least
// postsWatchAfter of the run; at follow_at, or else the start of its first
// second over. follow: none follows no post.
func (l *postsLog) followed(k *postsKind, over float64) error {
	spec, j := l.spec, -1
	l.follow = "the post followed and its jump are the scenario's (follow, follow_at)"
	switch spec.Follow {
	case "none":
		l.follow = "no post is followed (follow: none)"
		return nil
	case "":
		for i, t := range l.firstOver {
			if t >= 0 && t <= k.length-postsWatchAfter && (j < 0 || l.rows[i].Followers < l.rows[j].Followers) {
				j = i
			}
		}
		l.follow = fmt.Sprintf("the post followed is the smallest account's whose likes passed a key's capacity × headroom, %s, in a second, from that second (no follow given)", metrics.Format(over))
		if j < 0 {
			l.follow = fmt.Sprintf("no post's likes passed %s in a second a minute before the end: none is followed", metrics.Format(over))
			return nil
		}
	default:
		key, err := xxhash.Sum64String(spec.Follow), error(nil)
		if spec.KeyID != "" {
			key, err = strconv.ParseUint(spec.Follow, 10, 64)
		}
		i, ok := l.index[key]
		if err != nil || !ok {
			return scenarios.Errorf(spec.Pos, "workload.follow: %q is not a post of the posts table %s (allowed: a post as the key column names it, with key_id its decimal id; or none)", spec.Follow, l.tabPath)
		}
		j = int(i)
	}
	at := cmp.Or(spec.FollowAt, l.firstOver[j])
	if at < 0 {
		return scenarios.Errorf(spec.Pos, "workload.follow: the likes of %q never passed %s in a second, a key's capacity × headroom (allowed: follow_at, its jump's time)", spec.Follow, metrics.Format(over))
	}
	l.rows[j].Viral, l.rows[j].ViralAt = true, at
	return nil
}

func (l *postsLog) table(context.Context) ([]workload.PostInfo, error) { return l.rows, nil }

// stream is the log's likes in windows of a generated posts stream's
// chunks, each like's Actor its post's author (followers, and whether the
// post is protected) from the table.
func (l *postsLog) stream() engine.Source {
	l.src = l.source()
	return &postsLogSource{windowSource: &windowSource{logSource: l.src, window: workload.DefaultPostsWindow}, l: l}
}

func (l *postsLog) bad() error {
	if l.src != nil && l.src.err != nil {
		return l.badInput(l.src.err)
	}
	return nil
}

// load: every post of the table, its likes as the log holds them and its
// busiest second as its peak rate.
func (l *postsLog) load(each func(p workload.PostInfo, likes, peak float64)) float64 {
	for j, p := range l.rows {
		each(p, float64(l.counts[j].count), float64(l.counts[j].peak))
	}
	return 1
}

// plan: a log has no law of its posts or its likes, so no plan of them.
func (l *postsLog) plan(*postsKind) []metrics.Result { return nil }

// watchEnd: the followed post's last like.
func (l *postsLog) watchEnd(p *workload.PostInfo) int64 { return p.End }

func (l *postsLog) fed(k *postsKind, rep *engine.Report, events int64, writes uint64, until int64) ([]metrics.Result, int, int) {
	k.lineup.Replan(rep, engine.Fed{Events: events, Of: float64(l.likes), Writes: float64(writes), Until: until})
	return nil, sort.Search(len(k.posts), func(j int) bool { return k.posts[j].Created >= until }), 0 // the table is in order of creation
}

func (l *postsLog) notes(rep *engine.Report) {
	rep.Note(fmt.Sprintf("The log was read whole at Prepare: %s likes of %s posts of the table (%s of them liked) over %s s from %s; every simulated-scale plan is worked out for them, from the start (the posts, their followers, the followed post's busiest second as its peak), none estimated. "+
		"The plan of the stripes a growing K holds sums over each post's rate over time, which a log does not hold: it is left out, the stripes held measured. Which posts went viral is the generator's knowledge: the viral posts are not counted; %s.",
		metrics.Format(float64(l.likes)), metrics.Format(float64(len(l.rows))), metrics.Format(float64(l.liked)),
		metrics.Format(float64(l.lineup.Env.Duration)/1e9), l.start.UTC().Format(time.RFC3339), l.follow))
}

func (l *postsLog) describe(k *postsKind) string {
	return fmt.Sprintf("Recorded log replayed as posts: %s (%s, post column %s, timed by column %s), %s likes of %s posts over %s s from %s; the posts table %s (followers in column %s, created in %s, protected in %s); batches of %d.",
		l.cfg.Path, l.spec.Format, l.spec.Key, l.spec.Time, metrics.Format(float64(l.likes)), metrics.Format(float64(len(l.rows))),
		metrics.Format(float64(k.length)/1e9), l.start.UTC().Format(time.RFC3339), l.tabPath, l.spec.Followers, l.spec.Created, cmp.Or(l.spec.Protected, "none"), l.spec.Batch)
}

// postsLogSource is the log's likes, each like's Actor its post's author.
type postsLogSource struct {
	*windowSource
	l *postsLog
}

func (s *postsLogSource) Chunk(i int, buf []workload.Event) []workload.Event {
	buf = s.windowSource.Chunk(i, buf)
	for j := range buf {
		if p, ok := s.l.index[buf[j].Key]; ok { // every like's post is there: the log was read at Prepare
			buf[j].Actor = s.l.rows[p].Actor()
		}
	}
	return buf
}

// samplePosts samples a posts run: its whole stream of likes (refused
// past n events), a post named by its creation ("post #1" the first), each
// like's Actor the stream's (its author's followers, with
// workload.ProtectedBit when protected), which the replay takes from the
// table instead; and the posts table as a second file of the same columns,
// a line a post: its creation as the time, its author's followers as the
// delta and its protection (0 or 1) as the actor id. The replay is told
// the run's start and span, and the post it follows with its jump — the
// generator's knowledge, which a log of likes does not hold; where no post
// is followed, the expectations on the rescue, which the followed post's
// busiest second plans on a log, are left out.
func samplePosts(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Posts)
	h := &engine.Harness{Ctx: context.Background(), Scn: scn, Lineup: &engine.Lineup{}}
	kk, err := newPostsKind(h)
	if err != nil {
		return nil, err
	}
	k := kk.(*postsKind)
	g := k.in.(*postsGen)
	if likes := g.sample.ExpectedLikes() * g.scale; likes > float64(n) {
		return nil, fmt.Errorf("%s holds about %s likes, more than the %s asked: a posts run's answers are its whole stream's (allowed: -events of at least %s)",
			scn.ID(), metrics.Format(math.Round(likes)), metrics.Format(float64(n)), metrics.Format(math.Ceil(likes*1.01)))
	}
	if err := k.Draw(); err != nil {
		return nil, err
	}
	names := SampleNames{Key: func(key uint64) string { return "post #" + strconv.Itoa(int(k.index[key])+1) }}
	follow, at := strconv.Quote("none"), "0s"
	if k.small >= 0 {
		p := k.posts[k.small]
		follow, at = strconv.Quote(strconv.FormatUint(p.Key, 10)), strconv.FormatInt(p.ViralAt, 10)+"ns"
	}
	out := &Sampled{As: "posts", Keys: [][2]string{{"actor_id", ""}, {"batch", strconv.Itoa(spec.Batch)},
		{"from", strconv.Quote(workload.LogTimeBase().Format(time.RFC3339Nano))}, {"span", strconv.FormatInt(k.length, 10) + "ns"},
		{"follow", follow}, {"follow_at", at}}}
	if k.small < 0 { // no post followed: no viral peak to plan a rescue from
		out.Keys = out.Keys[:len(out.Keys)-1]
		out.Unjudged = []string{string(metrics.ViralRescue)}
	}
	var buf []workload.Event
	for i := range g.src.Chunks() {
		buf = g.src.Chunk(i, buf)
		if out.Events += int64(len(buf)); out.Events > n {
			return nil, fmt.Errorf("%s holds more than the %s events asked: a posts run's answers are its whole stream's (allowed: a larger -events)", scn.ID(), metrics.Format(float64(n)))
		}
		if err := each(buf, names); err != nil {
			return nil, err
		}
	}
	out.Files = append(out.Files, SampleFile{Key: "posts_file", Suffix: "-posts",
		Keys: [][2]string{{"followers", "delta"}, {"created", "time"}, {"protected", "actor_id"}},
		Write: func(each func([]workload.Event, SampleNames) error) error {
			for lo := 0; lo < len(k.posts); lo += loadPiece {
				buf = buf[:0]
				for j := lo; j < min(lo+loadPiece, len(k.posts)); j++ {
					p := &k.posts[j]
					e := workload.Event{At: p.Created, Key: p.Key, ID: uint64(j + 1), Delta: int64(p.Followers), Op: workload.Write}
					if p.Protected {
						e.Actor = 1
					}
					buf = append(buf, e)
				}
				if err := each(buf, names); err != nil {
					return err
				}
			}
			return nil
		}})
	return out, nil
}
