package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
)

// A recorded log of likes replayed as a posts run (workload: {file: …,
// as: posts}, issue 25): the posts run's own runner (posts.go), its table
// of posts from a second file, the posts table (posts_file: one line a
// post, in order of creation, its key, its author's followers, its
// creation time and whether it is protected), and its likes from the log,
// each like's author taken from the table (the Actor a design sizes a
// counter from). The designs, on the scenario's cluster, and the truth —
// each post's likes and busiest second, the stripes held, the seconds over
// a key's capacity, the followed post — are the synthetic run's.
//
// The log is read whole at Prepare, before anything runs: a like of a post
// the table lacks, a like before its post's creation or past the span is
// bad input there, at its line; and the run's figures are the log's own
// from the start — its posts, likes, span, each post's likes and busiest
// second (for the memory plan) — so that every plan is worked out for them
// and none is estimated. What a log does not hold is the law of a post's
// rate: the plan of the stripes a growing K holds, which sums over each
// post's rate, is left out (the stripes held are measured), and which post
// went viral and when is the truth's knowledge, which follow and follow_at
// may state (countsim sample writes them); without them the run follows
// the post of the smallest account whose likes in one second passed a
// key's capacity × headroom, from the start of that second.
//
// Time. The run's clock starts at from, or the whole second of the first
// post's creation; it lasts span, or to the end of the second of the last
// like (or creation). A log sampled from a posts run thus replays on the
// synthetic run's clock, to its end.

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
	if err := l.readTable(h.Ctx); err != nil {
		return nil, l.tableError(err)
	}
	l.cfg.Start = l.start
	head := k.clusters.Headroom
	if head <= 0 || head > 1 {
		head = 1
	}
	over := k.clusters.Cfg.KeyCapacity * head
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
	env.Keys = uint64(max(posts, 1))
	env.Events = int64(l.likes)
	env.Duration = k.length
	followers := make([]uint64, len(l.rows))
	var protected, peak float64
	for j, p := range l.rows {
		followers[j] = p.Followers
		if p.Protected {
			protected++
		}
		if p.Viral {
			peak = float64(l.counts[j].peak)
		}
	}
	slices.Sort(followers)
	env.Population = &strategies.Population{Counters: posts, Protected: protected / max(posts, 1), ViralPeak: peak,
		FollowersAtLeast: func(f uint64) float64 { // the table's share of posts with at least f followers
			i, _ := slices.BinarySearch(followers, f)
			return float64(len(followers)-i) / max(posts, 1)
		}}
	return k, nil
}

// readTable reads the posts table whole: each line a post, its followers
// from 0 to 10^9, its protection 0 or 1, in order of creation (a line
// earlier than the one before it is bad), no post twice, none before the
// clock's start.
func (l *postsLog) readTable(ctx context.Context) error {
	spec := l.spec
	cfg := workload.LogConfig{Path: l.tabPath, Format: spec.Format, Key: spec.Key, KeyID: spec.KeyID, Time: spec.Created,
		Start: time.Unix(0, 0), Delta: spec.Followers, ActorID: spec.Protected}
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	from, given := spec.PostsFrom()
	l.index = map[uint64]int32{}
	var lines []int64
	buf := make([]workload.Event, 0, 1) // one at a time: each with its line
	for {
		if engine.Stopped(ctx, len(l.rows)) {
			return ctx.Err()
		}
		b, err := r.Read(buf[:0])
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		e := &b[0]
		bad := func(format string, a ...any) error {
			return &workload.LogError{Path: l.tabPath, Line: r.Line(), Msg: fmt.Sprintf(format, a...)}
		}
		switch {
		case e.Delta < 0 || e.Delta > 1e9:
			return bad("followers %d not in 0..10^9 (column %s)", e.Delta, spec.Followers)
		case e.Actor > 1:
			return bad("protected %d is not 0 or 1 (column %s)", e.Actor, spec.Protected)
		}
		if j, dup := l.index[e.Key]; dup {
			return bad("the post of line %d is in the table again (allowed: one line a post)", lines[j])
		}
		if len(l.rows) == 0 && !given {
			from = time.Unix(e.At/1e9, 0)
		}
		created := e.At - from.UnixNano()
		if created < 0 {
			return bad("created at %s, before the run's start %s (allowed: from at or before the first post's creation)",
				time.Unix(0, e.At).UTC().Format(time.RFC3339Nano), from.UTC().Format(time.RFC3339Nano))
		}
		l.index[e.Key] = int32(len(l.rows))
		lines = append(lines, r.Line())
		l.rows = append(l.rows, workload.PostInfo{Key: e.Key, Created: created, Followers: uint64(e.Delta), Protected: e.Actor == 1, End: created})
	}
	if len(l.rows) == 0 {
		return fmt.Errorf("the posts table %s holds no post (allowed: a table of at least one line)", l.tabPath)
	}
	l.start = from
	return nil
}

// tableError is an error of the posts table as bad input: at its line, or
// at the workload's posts_file key for the file as a whole.
func (l *postsLog) tableError(err error) error {
	var le *workload.LogError
	switch {
	case errors.As(err, &le):
		return &scenarios.Error{Pos: scenarios.Pos{File: le.Path, Line: int(le.Line)}, Msg: le.Msg}
	case err == context.Canceled || err == context.DeadlineExceeded:
		return err
	}
	return scenarios.Errorf(l.spec.Pos, "workload.posts_file: %v", err)
}

// readLikes reads the log of likes whole, on the run's clock: each like's
// post in the table, at or after its creation, before the span's end. It
// counts each post's likes, its busiest second and its first second of
// more than over likes, and returns the last like's time.
func (l *postsLog) readLikes(ctx context.Context, over float64) (int64, error) {
	r, err := workload.OpenLog(l.cfg)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	l.counts = make([]postCount, len(l.rows))
	l.firstOver = make([]int64, len(l.rows))
	for j := range l.counts {
		l.counts[j].sec, l.firstOver[j] = -1, -1
	}
	var last int64
	buf := make([]workload.Event, 0, 1)
	for n := 0; ; n++ {
		if engine.Stopped(ctx, n) {
			return 0, ctx.Err()
		}
		b, err := r.Read(buf[:0])
		if err == io.EOF {
			return last, nil
		}
		if err != nil {
			return 0, err
		}
		e := &b[0]
		bad := func(format string, a ...any) error {
			return &workload.LogError{Path: l.cfg.Path, Line: r.Line(), Msg: fmt.Sprintf(format, a...)}
		}
		j, ok := l.index[e.Key]
		switch {
		case !ok:
			return 0, bad("a like of a post the posts table %s does not hold (allowed: a post of the table, by its %s)", l.tabPath, l.keyColumn())
		case e.At < l.rows[j].Created:
			return 0, bad("a like at %s s of a post created at %s s, later (allowed: likes from the post's creation on)",
				metrics.Format(float64(e.At)/1e9), metrics.Format(float64(l.rows[j].Created)/1e9))
		case l.spec.Span > 0 && e.At >= l.spec.Span:
			return 0, bad("a like at %s s, past the span %s s (allowed: likes within span)", metrics.Format(float64(e.At)/1e9), metrics.Format(float64(l.spec.Span)/1e9))
		}
		last = max(last, e.At)
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		c, d := &l.counts[j], uint64(e.Delta)
		if c.count == 0 {
			l.liked++
		}
		c.count += d
		l.likes += d
		if sec := e.At / 1e9; sec != c.sec {
			c.sec, c.cur = sec, 0
		}
		c.cur += uint32(d)
		c.peak = max(c.peak, c.cur)
		if float64(c.cur) > over && l.firstOver[j] < 0 {
			l.firstOver[j] = c.sec * 1e9
		}
		l.rows[j].End = e.At + 1
	}
}

func (l *postsLog) keyColumn() string {
	if l.spec.KeyID != "" {
		return "column " + l.spec.KeyID
	}
	return "column " + l.spec.Key
}

// followed marks the post to follow as viral at its jump: follow at
// follow_at, or at the start of its first second of more than over likes
// (a key's capacity × headroom); without follow, the post of the smallest
// account (the earliest on ties) whose likes passed over in a second
// leaving at least postsWatchAfter of the run. follow: none follows no
// post.
func (l *postsLog) followed(k *postsKind, over float64) error {
	spec := l.spec
	switch spec.Follow {
	case "none":
		l.follow = "no post is followed (follow: none)"
		return nil
	case "":
		small := -1
		for j, t := range l.firstOver {
			if t >= 0 && t <= k.length-postsWatchAfter && (small < 0 || l.rows[j].Followers < l.rows[small].Followers) {
				small = j
			}
		}
		if small < 0 {
			l.follow = fmt.Sprintf("no post's likes passed %s in a second a minute before the end: none is followed", metrics.Format(over))
			return nil
		}
		l.rows[small].Viral, l.rows[small].ViralAt = true, l.firstOver[small]
		l.follow = fmt.Sprintf("the post followed is that of the smallest account whose likes passed a key's capacity × headroom, %s, in a second, from the start of that second (no follow given)", metrics.Format(over))
		return nil
	}
	key := xxhash.Sum64String(spec.Follow)
	if spec.KeyID != "" {
		var err error
		if key, err = strconv.ParseUint(spec.Follow, 10, 64); err != nil {
			return scenarios.Errorf(spec.Pos, "workload.follow: %q is not a decimal id, as the key_id column holds (allowed: a post's key_id, or none)", spec.Follow)
		}
	}
	j, ok := l.index[key]
	if !ok {
		return scenarios.Errorf(spec.Pos, "workload.follow: %q is not a post of the posts table %s (allowed: a post of the table, or none)", spec.Follow, l.tabPath)
	}
	at := spec.FollowAt
	l.follow = "the post followed and its jump are the scenario's (follow, follow_at)"
	if at == 0 {
		if at = l.firstOver[j]; at < 0 {
			return scenarios.Errorf(spec.Pos, "workload.follow: the likes of %q never passed %s in a second, a key's capacity × headroom (allowed: follow_at, its jump's time)", spec.Follow, metrics.Format(over))
		}
		l.follow = "the post followed is the scenario's (follow), its jump the start of its first second over a key's capacity × headroom"
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
func (l *postsLog) viralKnown() bool                 { return false }

// watchEnd: the followed post's last like.
func (l *postsLog) watchEnd(p *workload.PostInfo) int64 { return p.End }

func (l *postsLog) fed(k *postsKind, rep *engine.Report, events int64, writes uint64, until int64) ([]metrics.Result, int, int) {
	k.lineup.Replan(rep, engine.Fed{Events: events, Of: float64(l.likes), Writes: float64(writes), Until: until})
	posts := 0
	for _, p := range k.posts {
		if p.Created < until {
			posts++
		}
	}
	return nil, posts, 0
}

func (l *postsLog) notes(rep *engine.Report) {
	rep.Note(fmt.Sprintf("The log was read whole at Prepare: %s likes of %s posts of the table (%s of them liked) over %s s from %s; every simulated-scale plan is worked out for them, from the start (the posts, their followers, the followed post's busiest second as its peak), none estimated. "+
		"The plan of the stripes a growing K holds sums over each post's rate over time, which a log does not hold: it is left out, the stripes held measured. Which posts went viral is the generator's knowledge: the viral posts are not counted; %s.",
		metrics.Format(float64(l.likes)), metrics.Format(float64(len(l.rows))), metrics.Format(float64(l.liked)),
		metrics.Format(float64(l.lineup.Env.Duration)/1e9), l.start.UTC().Format(time.RFC3339), l.follow))
}

func (l *postsLog) describe(k *postsKind) string {
	prot := ""
	if l.spec.Protected != "" {
		prot = ", protected in " + l.spec.Protected
	}
	return fmt.Sprintf("Recorded log replayed as posts: %s (%s, post column %s, timed by column %s), %s likes of %s posts over %s s from %s; the posts table %s (followers in column %s, created in %s%s); batches of %d.",
		l.cfg.Path, l.spec.Format, l.spec.Key, l.spec.Time, metrics.Format(float64(l.likes)), metrics.Format(float64(len(l.rows))),
		metrics.Format(float64(k.length)/1e9), l.start.UTC().Format(time.RFC3339), l.tabPath, l.spec.Followers, l.spec.Created, prot, l.spec.Batch)
}

// postsLogSource is the log's likes, each like's Actor its post's author.
type postsLogSource struct {
	*windowSource
	l *postsLog
}

func (s *postsLogSource) Chunk(i int, buf []workload.Event) []workload.Event {
	buf = s.windowSource.Chunk(i, buf)
	for j := range buf {
		if p, ok := s.l.post(buf[j].Key); ok {
			buf[j].Actor = p.Actor()
		}
	}
	return buf
}

// post is the table's post of key (every like's post is there: the log
// was read at Prepare).
func (l *postsLog) post(key uint64) (*workload.PostInfo, bool) {
	j, ok := l.index[key]
	if !ok {
		return nil, false
	}
	return &l.rows[j], true
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
