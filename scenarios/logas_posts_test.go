package scenarios

import "testing"

// TestLogPostsKeys: the keys of a log replayed as posts — its posts table
// and the table's columns, the run's start and span, the post followed and
// its jump — are read and defaulted, and refused where they do not hold
// together, at their line; a posts log runs on a cluster, never with
// faults, and its keys are refused with any other as.
func TestLogPostsKeys(t *testing.T) {
	head := "name: l\nstrategies: [{name: a, type: striped}]\ncluster: {nodes: 2, key_capacity: 100}\nworkload:\n  file: likes.csv\n  key: post\n  time: ts\n  as: posts\n"
	scn, err := Parse("cases/x.yaml", []byte(head+"  posts_file: t/posts.csv\n  protected: closed\n  from: \"2026-01-01T00:00:00Z\"\n  span: 3m\n  follow: \"post #3\"\n  follow_at: 12.5s\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := scn.Run.(*Log)
	from, given := l.PostsFrom()
	if l.PostsPath("cases/x.yaml") != "cases/t/posts.csv" || l.Followers != "followers" || l.Created != "created" || l.Protected != "closed" ||
		!given || from.Unix() != 1_767_225_600 || l.Span != 180e9 || l.Follow != "post #3" || l.FollowAt != 12_500_000_000 {
		t.Errorf("read %+v, from %v (%v); want the table at cases/t/posts.csv, columns followers and created by default, closed, the start, 3m, post #3 at 12.5 s", l.LogPosts, from, given)
	}
	if scn, err = Parse("cases/x.yaml", []byte(head+"  posts_file: p.csv\n")); err != nil {
		t.Fatal(err)
	} else if _, given := scn.Run.(*Log).PostsFrom(); given || scn.Run.(*Log).Span != 0 || scn.Run.(*Log).Follow != "" {
		t.Errorf("defaults: from given %v, span %d, follow %q; want none", given, scn.Run.(*Log).Span, scn.Run.(*Log).Follow)
	}
	for _, c := range []struct {
		text string
		line int
		want string
	}{
		{head, 4, "as: posts needs the posts table"},
		{head + "  posts_file: p.csv\n  follow_at: 3s\n", 10, "given without follow"},
		{head + "  posts_file: p.csv\n  from: yesterday\n", 10, `"yesterday" is not an RFC 3339 time`},
		{head + "  posts_file: p.csv\n  created: fans\n  followers: fans\n", 10, `"fans" is the followers column too`},
		{head + "  posts_file: p.csv\n  span: 0s\n", 10, "out of range"},
		{head + "  posts_file: p.csv\nfaults: [{at: 1s, kind: node-loss, node: 0}]\n", 10, "a posts run takes no faults"},
		{"name: l\nstrategies: [{name: a, type: striped}]\nworkload:\n  file: likes.csv\n  key: post\n  as: posts\n  posts_file: p.csv\n", 3, "needs the time column of the likes"},
		{"name: l\nstrategies: [{name: a, type: exact}]\nworkload:\n  file: x.csv\n  key: k\n  posts_file: p.csv\n", 6, "posts_file: is for as: posts, and this log is replayed as count"},
	} {
		_, err := Parse("cases/x.yaml", []byte(c.text))
		mustError(t, err, "cases/x.yaml", c.line, c.want)
	}
}
