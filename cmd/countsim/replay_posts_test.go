package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// viralPostsSmall is viral-posts scaled down to 3 minutes of a post a
// second (180 posts), likes halving every 10 s, followers up to 2 M, and
// one post in 33 going viral within a minute at 15 × 90 likes a second:
// some 117,000 likes, a post followed.
var viralPostsSmall = []string{
	"duration: 30m", "duration: 3m",
	"rate: 5             # posts", "rate: 1             # posts",
	"half_life: 2m", "half_life: 10s",
	"max: 20_000_000}", "max: 2_000_000}",
	"viral: {share: 0.001, factor: 50, floor: 90, within: 5m}", "viral: {share: 0.03, factor: 15, floor: 90, within: 1m}",
}

// TestPostsSampleReplaysTheSyntheticRun: viral-posts scaled down, sampled
// (CSV; gzipped NDJSON) with its posts table as a second file and replayed
// as posts by the scenario sample -replay writes, gives every design the
// same measured rows as the synthetic run: the stripes held and unneeded,
// the posts and seconds over a key's capacity, the followed post's K, its
// seconds over and its rescue, the load on each cluster. Only plans
// differ, the log's from its table, which a note says.
func TestPostsSampleReplaysTheSyntheticRun(t *testing.T) {
	if testing.Short() {
		t.Skip("an acceptance run: viral-posts sampled and replayed, four runs (the race-free pass runs it)")
	}
	dir := t.TempDir()
	scaled := scaledBuiltin(t, dir, "viral-posts", "viral-posts-small", viralPostsSmall...)
	for _, c := range []struct{ format, log string }{{"csv", "likes.csv"}, {"ndjson", "likes.ndjson.gz"}} {
		t.Run(c.format, func(t *testing.T) {
			log, replay := filepath.Join(dir, c.log), filepath.Join(dir, "replay-"+c.format+".yaml")
			stdout, stderr, code := cli(t, "sample", "-events", "200000", "-format", c.format, "-o", log, "-replay", replay, scaled)
			if code != 0 {
				t.Fatalf("sample: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "wrote its posts_file to ") {
				t.Errorf("sample did not say where the posts table went:\n%s", stdout)
			}
			text, err := os.ReadFile(replay)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"  as: posts\n", "  posts_file: likes-posts.", "  followers: delta\n", "  created: time\n",
				"  protected: actor_id\n", "  span: 180000000000ns\n", "  follow: \"", "  follow_at: "} {
				if !strings.Contains(string(text), want) {
					t.Errorf("the replay scenario lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(string(text), "actor_id: actor_id") {
				t.Errorf("the replay reads the likes' actor, which the table gives:\n%s", text)
			}
			synthetic := syntheticOf(t, dir, "viral-posts-synthetic-"+c.format, scaled, "", replay)
			replaysAs(t, "posts "+c.format, filepath.Join(dir, c.format), synthetic, replay, 100,
				[]string{"fixed-1 posts_over_capacity sim", "fixed-1 viral_over_capacity_s sim", "predicted-grow stripes_held sim",
					"predicted-grow viral_rescue_s sim", "per-followers-grow stripes_unneeded sim"},
				"The log was read whole at Prepare", "(follow, follow_at)")
		})
	}
}

// TestPostsLogBadInput: a log replayed as posts refuses bad input with the
// file and line where it is — a like of a post the table lacks, a like
// before its post's creation, followers that are not a number or past
// 10^9, a protection neither 0 nor 1, a post twice in the table, a table
// out of order, a followed post the table lacks — exit 2, and nothing
// written.
func TestPostsLogBadInput(t *testing.T) {
	const table = "post,fans,made,closed\npa,10,1767225600.5,0\npb,%s,1767225601.0,%s\n%s"
	const log = "post,ts\npa,1767225600.7\npb,1767225602.0\n%s,%s\npa,1767225603.0\n"
	scenario := "name: bad-posts\nseed: 1\nworkload:\n  file: likes.csv\n  key: post\n  time: ts\n  as: posts\n  posts_file: posts.csv\n" +
		"  followers: fans\n  created: made\n  protected: closed\n%scluster: {nodes: 2, key_capacity: 10}\nstrategies:\n  - {name: one, type: striped, params: {stripes: 1}}\n"
	for _, c := range []struct {
		name, fans, closed, more, post, at, follow string
		where, want                                string
	}{
		{"good", "40", "1", "", "pb", "1767225602.5", "", "", ""},
		{"a like of a post not in the table", "40", "0", "", "pc", "1767225602.5", "", "likes.csv:4:", "a like of a post the posts table"},
		{"a like before its post", "40", "0", "pc,1,1767225605,0\n", "pc", "1767225602.5", "", "likes.csv:4:", "of a post created at 5 s, later"},
		{"followers not a number", "many", "0", "", "pb", "1767225602.5", "", "posts.csv:3:", `"many" is not a decimal int64`},
		{"followers past 10^9", "2000000000", "0", "", "pb", "1767225602.5", "", "posts.csv:3:", "followers 2000000000 not in 0..10^9"},
		{"protected 2", "40", "2", "", "pb", "1767225602.5", "", "posts.csv:3:", "protected 2 is not 0 or 1"},
		{"a post twice", "40", "0", "pa,3,1767225601.5,0\n", "pb", "1767225602.5", "", "posts.csv:4:", "the post of line 2 is in the table again"},
		{"a table out of order", "40", "0", "pc,3,1767225600.0,0\n", "pb", "1767225602.5", "", "posts.csv:4:", "before the latest time"},
		{"a followed post not in the table", "40", "0", "", "pb", "1767225602.5", "  follow: pz\n", "bad-posts.yaml:", `workload.follow: "pz" is not a post`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"posts.csv": fmt.Sprintf(table, c.fans, c.closed, c.more), "likes.csv": fmt.Sprintf(log, c.post, c.at),
				"bad-posts.yaml": fmt.Sprintf(scenario, c.follow)}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			file, out := filepath.Join(dir, "bad-posts.yaml"), filepath.Join(dir, "reports")
			for _, args := range [][]string{{"run", "-q", "-out", out, file}, {"validate", file}} {
				_, errOut, code := cli(t, args...)
				if c.want == "" {
					if code != 0 {
						t.Fatalf("%s: exit %d: %s", args[0], code, errOut)
					}
					continue
				}
				if code != 2 || !strings.Contains(errOut, c.where) || !strings.Contains(errOut, c.want) {
					t.Errorf("%s: exit %d, %q; want exit 2, %q and %q", args[0], code, errOut, c.where, c.want)
				}
			}
			if _, err := os.Stat(out); c.want != "" && !os.IsNotExist(err) {
				t.Errorf("run wrote %s on bad input", out)
			}
		})
	}
}
