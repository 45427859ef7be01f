package scenarios

import (
	"math"
)

// The posts run (`workload: {posts: {rate, duration, followers, …}}`):
// thousands of like counters at once — posts created over simulated time,
// each by an author with a heavy-tailed number of followers, liked at a
// rate that follows the followers and decays, a share going viral whatever
// their followers (issue 16, the sharded-counter seed). The designs size
// each post's counter; the run scores them as a population on the
// simulated cluster.

// Limits of a posts run beyond its keys' ranges.
const maxPosts = 1 << 24 // posts a run expects: the table is held in memory

// Posts is a posts run.
type Posts struct {
	Stream PostsStream `key:"posts" required:"true" doc:"posts created over simulated time, each a like counter, liked in proportion to its author's followers, a share going viral (a posts run)"`
	Batch  int         `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Pos    Pos         // the workload key
}

// PostsStream is the population of posts and their likes.
type PostsStream struct {
	Rate            float64   `key:"rate" range:">0" required:"true" doc:"posts created a simulated second, a Poisson process"`
	Length          int64     `key:"duration" type:"duration" range:">0" required:"true" doc:"how long posts are created and liked, at most 24h"`
	Followers       Followers `key:"followers" required:"true" doc:"the law of a post's author's followers"`
	LikeRate        float64   `key:"like_rate" range:">=0" required:"true" doc:"likes a second per follower of the author at a post's creation, before noise (0.0005: a post of a 1,000,000-follower account starts at 500 likes a second)"`
	Noise           float64   `key:"noise" range:"[0,8]" default:"0" doc:"σ of a log-normal factor of mean 1 on each post's starting rate; 0: none"`
	HalfLife        int64     `key:"half_life" type:"duration" range:">0" required:"true" doc:"the time in which a post's like rate halves"`
	Protected       float64   `key:"protected" range:"[0,1]" default:"0" doc:"share of posts that are protected (followers only)"`
	ProtectedFactor float64   `key:"protected_factor" range:">=0" default:"1" doc:"what a protected post's starting rate is multiplied by"`
	Viral           *Viral    `key:"viral" doc:"a share of posts that go viral whatever their followers; none without it"`
	Pos             Pos       // the posts key
}

// Followers is the law of an author's followers: a Zipf over 1..max, or a
// log-normal (round(e^(μ+σZ)), median e^μ) clamped to 1..max.
type Followers struct {
	Law    string  `key:"law" oneof:"zipf,lognormal" required:"true" doc:"zipf (P(f) ∝ f^-s over 1..max) or lognormal (median and sigma of ln followers, clamped to 1..max)"`
	Max    uint64  `key:"max" range:"1..1e9" required:"true" doc:"the most followers an author has"`
	S      float64 `key:"s" range:"[0,10]" defaultdoc:"1, with law zipf" doc:"the Zipf exponent (law zipf)"`
	Median float64 `key:"median" range:">=1" doc:"the median followers, e^μ (law lognormal; required there)"`
	Sigma  float64 `key:"sigma" range:"[0,10]" doc:"σ of ln followers (law lognormal; required there)"`
	Pos    Pos     // the followers key
}

// Viral is the share of posts that go viral and how.
type Viral struct {
	Share  float64 `key:"share" range:"[0,1]" required:"true" doc:"share of posts that go viral, whatever their followers"`
	Factor float64 `key:"factor" range:">=1" required:"true" doc:"what a viral post's rate is multiplied by at its jump (of its rate then, or of floor if larger)"`
	Within int64   `key:"within" type:"duration" range:">0" required:"true" doc:"the jump falls uniformly within this long after the post's creation"`
	Floor  float64 `key:"floor" range:">=0" default:"0" doc:"likes a second: the least rate the jump multiplies, so a small account's viral post peaks at factor × floor"`
	Pos    Pos     // the viral key
}

func init() {
	defineKind(&kindDef{name: "posts", order: 9, key: "workload", marker: "posts", what: "posts liked over time",
		new: func() Run { return new(Posts) }})
}

func (p *Posts) Kind() string    { return "posts" }
func (p *Posts) Where() Pos      { return p.Pos }
func (p *Posts) Duration() int64 { return p.Stream.Length }

func (p *Posts) refuses(section string) string {
	switch section {
	case "faults":
		return "a posts run takes no faults"
	case "questions":
		return "a posts run asks no questions: it scores every post's counter"
	}
	return ""
}

// ExpectedPosts is the posts the run expects: rate × duration.
func (s *PostsStream) ExpectedPosts() float64 { return s.Rate * float64(s.Length) / 1e9 }

// Mu is μ of a log-normal law, ln median.
func (f *Followers) Mu() float64 { return math.Log(f.Median) }

func (p *Posts) simulates() []Figure {
	return []Figure{{Name: "keys", Simulated: p.Stream.ExpectedPosts(), SimulatedAt: "workload.posts"}}
}

// check: at most 24h and 2^24 posts.
func (s *PostsStream) check(r *rule) error {
	if s.Length > maxDuration {
		return r.failKey("duration", "%s (allowed: at most 24h)", durationText(s.Length))
	}
	if n := s.ExpectedPosts(); n > maxPosts {
		return r.failKey("rate", "the run would create about %.4g posts, more than 2^24 = 16,777,216 (allowed: a lower rate or a shorter duration)", n)
	}
	return nil
}

// check: s belongs to the Zipf, median and sigma to the log-normal, which
// needs both.
func (f *Followers) check(r *rule) error {
	zipf := f.Law == "zipf"
	for _, key := range []string{"s", "median", "sigma"} {
		if r.has(key) && zipf != (key == "s") {
			other := "lognormal"
			if !zipf {
				other = "zipf"
			}
			return r.fail(key, "belongs to law %s, not %s (allowed: s with law zipf; median and sigma with law lognormal)", other, f.Law)
		}
	}
	switch {
	case zipf && !r.has("s"):
		f.S = 1
	case !zipf && !r.has("median"):
		return r.failHere("law lognormal needs median (allowed: median ≥ 1 and sigma, e.g. median: 300, sigma: 2.5)")
	case !zipf && !r.has("sigma"):
		return r.failHere("law lognormal needs sigma (allowed: median ≥ 1 and sigma, e.g. median: 300, sigma: 2.5)")
	case !zipf && f.Median > float64(f.Max):
		return r.fail("median", "%v is above max %d (allowed: 1..max)", f.Median, f.Max)
	}
	return nil
}
