package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
)

// handPosts is a team's log of likes and its posts table, written by hand,
// and the test's own account of them: each post's likes a second.
type handPosts struct {
	log, table string
	names      []string
	followers  []uint64
	protected  []bool
	created    []float64 // s from the run's start
	perSec     []map[int64]int
	length     int64 // whole seconds
}

// writeHandPosts writes a posts table of 12 posts (string names, Unix
// times with a fraction, followers from 3 to 250,000, one protected) and a
// CSV of likes by user ids (strings): a trickle on every post but one, a
// burst of 25 likes a second for 5 s on the 3-follower post, one of 14 a
// second for 3 s on a 4,000-follower post, and one of 12 in one second on
// the largest account's, each over a key's capacity of 10.
func writeHandPosts(t *testing.T, dir string) *handPosts {
	t.Helper()
	const t0 = 1_767_225_600 // 2026-01-01T00:00:00Z
	hp := &handPosts{log: filepath.Join(dir, "likes.csv"), table: filepath.Join(dir, "posts.csv")}
	followers := []uint64{120, 3, 4000, 250_000, 60, 1500, 9, 700, 30_000, 15, 2200, 80}
	var tab strings.Builder
	tab.WriteString("post,author_followers,created_at,followers_only\n")
	for j, f := range followers {
		name := fmt.Sprintf("p-%02x", 7*j+3)
		c := 0.3 + 2.5*float64(j)
		prot := j == 5 // 1,500 followers, counted 0.5 times: one stripe, not two
		hp.names, hp.followers, hp.protected, hp.created = append(hp.names, name), append(hp.followers, f), append(hp.protected, prot), append(hp.created, c)
		hp.perSec = append(hp.perSec, map[int64]int{})
		p := 0
		if prot {
			p = 1
		}
		fmt.Fprintf(&tab, "%s,%d,%d.%03d,%d\n", name, f, t0+int64(c), int64(c*1000)%1000, p)
	}
	type like struct {
		at   float64
		post int
	}
	var likes []like
	rng := rand.New(rand.NewPCG(25, 16))
	for j := range followers {
		if j == 11 { // never liked: it holds its stripes all the same
			continue
		}
		for at := hp.created[j] + 0.1; at < 100; at += 0.5 + 3*rng.Float64() {
			likes = append(likes, like{at, j})
		}
	}
	burst := func(j int, from, secs, perSec int) {
		for s := range secs {
			for i := range perSec {
				likes = append(likes, like{float64(from+s) + (float64(i)+0.5)/float64(perSec), j})
			}
		}
	}
	burst(1, 20, 5, 25)
	burst(2, 12, 3, 14)
	burst(3, 40, 1, 12)
	sort.SliceStable(likes, func(a, b int) bool { return likes[a].at < likes[b].at })
	var b strings.Builder
	b.WriteString("post,user,ts\n")
	for _, l := range likes {
		ms := int64(l.at * 1000)
		fmt.Fprintf(&b, "%s,user-%d,%d.%03d\n", hp.names[l.post], rng.IntN(500), t0+ms/1000, ms%1000)
		hp.perSec[l.post][ms/1000]++
		hp.length = max(hp.length, ms/1000+1)
	}
	for path, text := range map[string]string{hp.table: tab.String(), hp.log: b.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return hp
}

const handPostsScenario = `name: hand-posts
seed: 3
workload:
  file: %s
  key: post
  time: ts
  actor: user
  as: posts
  posts_file: %s
  followers: author_followers
  created: created_at
  protected: followers_only
cluster: {nodes: 2, key_capacity: 10}
strategies:
  - {name: one, type: striped, params: {stripes: 1}}
  - {name: predicted, type: striped, params: {stripes: 1, predict: "0:1, 1000:2, 100000:8", protected_factor: 0.5}}
  - {name: grow, type: striped, params: {stripes: 1, grow_above: 10, shrink_below: 2}}
`

// TestLogPostsHandWritten: a log of likes by user ids and its posts table,
// replayed as posts, give the stripes each design holds, the posts and
// seconds over a key's capacity on one stripe, and the post followed — the
// smallest account whose likes passed a key's capacity in a second — with
// its busiest second and its seconds over, all as the test works them out
// from the lines it wrote; and the plans are the table's own figures.
func TestLogPostsHandWritten(t *testing.T) {
	hp := writeHandPosts(t, t.TempDir())
	st := prepare(t, fmt.Sprintf(handPostsScenario, hp.log, hp.table), engine.Options{})
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	value := func(design string, m metrics.Metric) float64 {
		t.Helper()
		return *find(t, rep.Results, design, m).Value
	}
	// The test's account: one stripe's seconds over 10 likes, each post's
	// first K by the prediction, the followed post.
	var over, postsOver, held, likes int
	small, jump := -1, int64(0)
	for j, per := range hp.perSec {
		n := 0
		first := int64(-1)
		for s, c := range per {
			likes += c
			if c > 10 {
				n++
				if first < 0 || s < first {
					first = s
				}
			}
		}
		over += n
		if n > 0 {
			postsOver++
		}
		f := float64(hp.followers[j])
		if hp.protected[j] {
			f *= 0.5
		}
		switch {
		case f >= 100_000:
			held += 8
		case f >= 1000:
			held += 2
		default:
			held++
		}
		if first >= 0 && first*1e9 <= hp.length*1e9-postsWatchAfter && (small < 0 || hp.followers[j] < hp.followers[small]) {
			small, jump = j, first
		}
	}
	if small != 1 || jump != 20 {
		t.Fatalf("the test's followed post %d from %d s; it wrote the burst on post 1 at 20 s", small, jump)
	}
	peak := slices.Max(mapValues(hp.perSec[small]))
	smallOver := 0
	for _, c := range hp.perSec[small] {
		if c > 10 {
			smallOver++
		}
	}
	for _, c := range []struct {
		design string
		m      metrics.Metric
		want   float64
	}{
		{"truth", metrics.Writes, float64(likes)},
		{"truth", metrics.Posts, 12},
		{"truth", metrics.ViralPeak, float64(peak)},
		{"truth", metrics.ViralStripesNeeded, 3},
		{"one", metrics.StripesHeld, 12},
		{"one", metrics.PostsOverCapacity, float64(postsOver)},
		{"one", metrics.SecondsOverCapacity, float64(over)},
		{"one", metrics.ViralOverCapacity, float64(smallOver)},
		{"one", metrics.CountError, 0},
		{"predicted", metrics.StripesHeld, float64(held)},
		{"predicted", metrics.ViralStripesFirst, 1},
	} {
		if got := value(c.design, c.m); got != c.want {
			t.Errorf("%s %s: %v, the test's %v", c.design, c.m, got, c.want)
		}
	}
	if postsOver != 3 || over != 9 || held != 22 {
		t.Errorf("the test's own account: %d posts and %d seconds over, %d stripes predicted; it wrote 3, 9 and 22", postsOver, over, held)
	}
	// Growth: the small post's K doubles to the 3 stripes its 25 likes a
	// second need (4), and holds more than one stripe.
	if got := value("grow", metrics.ViralStripesMax); got < 4 {
		t.Errorf("grow: the followed post reached K %v, want at least 4", got)
	}
	if got := value("grow", metrics.ViralOverCapacity); got >= float64(smallOver) {
		t.Errorf("grow: %v seconds over on the followed post, no fewer than one stripe's %d", got, smallOver)
	}
	// Plans: the table's posts, not an estimate; no law of a post's rate.
	if p := find(t, rep.Results, "one", metrics.StripesHeld).Plan; p == nil || *p != 12 {
		t.Errorf("one: stripes held planned %v, want the table's 12 posts × 1", p)
	}
	if p := find(t, rep.Results, "grow", metrics.StripesHeld).Plan; p != nil {
		t.Errorf("grow: stripes held planned %v from a log, which holds no post's rate", *p)
	}
	if !slices.ContainsFunc(rep.Notes, func(s string) bool {
		return strings.HasPrefix(s, fmt.Sprintf("The log was read whole at Prepare: %s likes of 12 posts of the table (11 of them liked) over %d s", metrics.Format(float64(likes)), hp.length)) &&
			strings.Contains(s, "the post followed is the smallest account's whose likes passed a key's capacity × headroom, 10,")
	}) {
		t.Errorf("notes %q: want the log's own figures and how the post followed was found", rep.Notes)
	}
}

func mapValues(m map[int64]int) []int {
	var out []int
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
