package scenarios

import "time"

// A log replayed as posts (as: posts): each write a like of a post (the
// key), the posts themselves — who wrote them, with how many followers,
// and when — from a second file, the posts table; the designs size each
// post's counter from its followers and the run scores them as a posts run
// does (issue 25). Which post to follow, and when it went viral, is the
// truth's knowledge that a team's log does not hold: follow and follow_at
// may state it (countsim sample writes them), else the run finds it in the
// likes.

// LogPosts is the keys of a log replayed as posts.
type LogPosts struct {
	PostsFile string `key:"posts_file" type:"line" doc:"as: posts: the posts table, a second file of the log's format: one line a post, in order of creation, with the log's key column (key, or key_id), the author's followers and the creation time; every post a like names must be there; a path relative to the scenario file"`
	Followers string `key:"followers" type:"line" default:"followers" doc:"as: posts: the posts table's column of the author's followers, a whole number from 0 to 10^9"`
	Created   string `key:"created" type:"line" default:"created" doc:"as: posts: the posts table's column of a post's creation time, read as the log's time column is (RFC 3339, or Unix time); a like before its post's creation is a bad line"`
	Protected string `key:"protected" type:"line" doc:"as: posts: the posts table's column saying a post is protected (followers only), 1, or 0 for a public one; default: no post is"`
	From      string `key:"from" type:"line" defaultdoc:"the whole second of the first post's creation" doc:"as: posts: the instant the run's clock starts, RFC 3339: a post created before it is a bad line"`
	Span      int64  `key:"span" type:"duration" range:">0" defaultdoc:"to the end of the second of the last like" doc:"as: posts: how long the run lasts from its start: a like at or after its end is a bad line"`
	Follow    string `key:"follow" type:"line" defaultdoc:"the post of the smallest account whose likes in one second passed a key's capacity × headroom" doc:"as: posts: the post to follow second by second, as in the key column (with key_id, its decimal id): the truth's knowledge of which post went viral, which a log does not hold (countsim sample writes it); none: no post is followed"`
	FollowAt  int64  `key:"follow_at" type:"duration" range:">=0" defaultdoc:"0: the start of its first second over a key's capacity × headroom" doc:"as: posts: when the followed post went viral (its jump), from the run's start: the time its growth is counted from"`
}

// refuses: what a posts run refuses.
func (p *LogPosts) refuses(section string) string { return new(Posts).refuses(section) }

// check: the posts table and a time column are needed, from is RFC 3339,
// and follow_at goes with follow.
func (p *LogPosts) check(l *Log, r *rule) error {
	switch {
	case p.PostsFile == "":
		return r.failHere("as: posts needs the posts table, whose lines give each post's followers and creation (allowed: posts_file: PATH)")
	case l.Time == "":
		return r.failHere("as: posts needs the time column of the likes: a post's likes a second are what its counter takes (allowed: time: COLUMN)")
	case r.has("follow_at") && p.Follow == "":
		return r.failKey("follow_at", "given without follow (allowed: remove follow_at, or give follow)")
	case p.Followers == p.Created:
		return r.failKey("created", "%q is the followers column too (allowed: a column of its own)", p.Created)
	}
	if p.From != "" {
		if _, err := time.Parse(time.RFC3339Nano, p.From); err != nil {
			return r.failKey("from", "%q is not an RFC 3339 time (allowed: e.g. 2026-01-01T00:00:00Z)", p.From)
		}
	}
	return nil
}

// PostsFrom is from as a time, and whether it is given.
func (p *LogPosts) PostsFrom() (time.Time, bool) {
	if p.From == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, p.From)
	return t, err == nil
}

// PostsPath is the posts table's path, relative to the scenario file's
// folder as the log's is.
func (p *LogPosts) PostsPath(scenarioFile string) string {
	return (&Log{File: p.PostsFile}).Path(scenarioFile)
}
