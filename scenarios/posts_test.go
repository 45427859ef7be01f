package scenarios

import (
	"fmt"
	"math"
	"testing"
)

// checkAccepted: what FuzzParse may accept of a posts run.
func (p *Posts) checkAccepted(s *Scenario) error {
	w := p.Stream
	f := w.Followers
	law := f.Law == "zipf" && f.S >= 0 && f.Median == 0 && f.Sigma == 0 ||
		f.Law == "lognormal" && f.Median >= 1 && f.Median <= float64(f.Max) && f.Sigma >= 0
	viral := w.Viral == nil || w.Viral.Share >= 0 && w.Viral.Share <= 1 && w.Viral.Factor >= 1 && w.Viral.Within > 0 && w.Viral.Floor >= 0
	if !(w.Rate > 0) || w.Length <= 0 || w.Length > maxDuration || w.ExpectedPosts() > maxPosts || !law || f.Max < 1 || f.Max > 1e9 ||
		!(w.LikeRate >= 0) || w.Noise < 0 || w.Noise > 8 || w.HalfLife <= 0 || w.Protected < 0 || w.Protected > 1 ||
		!(w.ProtectedFactor >= 0) || !viral || p.Batch < 1 || p.Batch > 1<<20 || s.Faults != nil || p.Pos.Line < 1 {
		return fmt.Errorf("posts %+v, followers %+v, viral %+v, faults %v", p, f, w.Viral, s.Faults)
	}
	return nil
}

const postsHead = "name: p\nstrategies: [{name: a, type: striped, params: {stripes: 1}}]\ncluster: {nodes: 2, key_capacity: 1000}\nworkload:\n  posts:\n"

// TestPostsWorkload: posts picks the posts run; its defaults; the law of
// followers with its own keys.
func TestPostsWorkload(t *testing.T) {
	s, err := Parse("cases/p.yaml", []byte(postsHead+`    rate: 5
    duration: 30m
    followers: {law: lognormal, median: 300, sigma: 2.5, max: 20_000_000}
    like_rate: 0.001
    half_life: 2m
    viral: {share: 0.001, factor: 50, within: 5m, floor: 90}
`))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := s.Run.(*Posts)
	if !ok {
		t.Fatalf("run %T, want *Posts", s.Run)
	}
	w := p.Stream
	if w.Rate != 5 || w.Length != 1800e9 || w.HalfLife != 120e9 || w.LikeRate != 0.001 || w.Noise != 0 || w.Protected != 0 ||
		w.ProtectedFactor != 1 || p.Batch != 4096 || p.Duration() != 1800e9 || w.ExpectedPosts() != 9000 {
		t.Errorf("posts %+v", p)
	}
	if f := w.Followers; f.Law != "lognormal" || f.Max != 2e7 || math.Abs(f.Mu()-math.Log(300)) > 1e-12 || f.Sigma != 2.5 {
		t.Errorf("followers %+v", f)
	}
	if v := w.Viral; v == nil || v.Share != 0.001 || v.Factor != 50 || v.Within != 300e9 || v.Floor != 90 {
		t.Errorf("viral %+v", v)
	}
	z, err := Parse("cases/p.yaml", []byte(postsHead+"    rate: 1\n    duration: 1m\n    followers: {law: zipf, max: 1000}\n    like_rate: 0.01\n    half_life: 1m\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f := z.Run.(*Posts).Stream.Followers; f.S != 1 || z.Run.(*Posts).Stream.Viral != nil {
		t.Errorf("zipf followers %+v: s defaults to 1, no viral", f)
	}
}

// TestPostsWorkloadErrors: a negative share, a law with the other law's
// keys or without its own, too many posts: the line and what is allowed.
func TestPostsWorkloadErrors(t *testing.T) {
	body := "    rate: 500\n    like_rate: 0.001\n    half_life: 2m\n"
	for _, c := range []struct {
		name, more string
		line       int
		want       string
	}{
		{"negative viral share", "    duration: 30m\n    followers: {law: zipf, max: 1000}\n    viral: {share: -0.1, factor: 50, within: 5m}\n", 11, "viral.share: -0.1 is out of range (allowed: a number in [0,1])"},
		{"share above one", "    followers: {law: zipf, max: 1000}\n    protected: 1.5\n", 10, "protected: 1.5 is out of range (allowed: a number in [0,1])"},
		{"factor below one", "    followers: {law: zipf, max: 1000}\n    viral: {share: 0.1, factor: 0.5, within: 5m}\n", 10, "viral.factor: 0.5 is out of range"},
		{"sigma with zipf", "    followers: {law: zipf, max: 1000, sigma: 2}\n", 9, "belongs to law lognormal, not zipf"},
		{"s with lognormal", "    followers: {law: lognormal, max: 1000, median: 30, sigma: 1, s: 1}\n", 9, "belongs to law zipf, not lognormal"},
		{"lognormal without median", "    followers: {law: lognormal, max: 1000, sigma: 1}\n", 9, "law lognormal needs median"},
		{"median above max", "    followers: {law: lognormal, max: 1000, median: 5000, sigma: 1}\n", 9, "5000 is above max 1000"},
		{"unknown law", "    followers: {law: pareto, max: 1000}\n", 9, "allowed: zipf, lognormal"},
		{"no followers", "    duration: 30m\n", 5, `missing required key "followers"`},
		{"too many posts", "    followers: {law: zipf, max: 1000}\n    duration: 24h\n", 6, "more than 2^24"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("cases/x.yaml", []byte(postsHead+body+c.more))
			mustError(t, err, "cases/x.yaml", c.line, c.want)
		})
	}
}
