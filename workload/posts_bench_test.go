package workload

// BenchmarkPostsChunk beside its floor: a plain loop writing the same
// number of events as the chunk holds, each with a uniform time in the
// window from a PCG, already in order (no sort).
//
//	go test ./workload/ -run '^$' -bench PostsChunk -count 8

import (
	"math/rand/v2"
	"testing"
)

func BenchmarkPostsChunk(b *testing.B) {
	// sparse: the tests' config, some 300 likes a window among 27,000
	// live posts; busy: a hundred times the like rate.
	busy := postsTestConfig()
	busy.LikeRate *= 100
	busy.ViralFloor *= 100
	for _, c := range []struct {
		name string
		cfg  PostsConfig
	}{{"sparse", postsTestConfig()}, {"busy", busy}} {
		b.Run("config="+c.name, func(b *testing.B) { benchPostsChunk(b, c.cfg) })
	}
}

func benchPostsChunk(b *testing.B, cfg PostsConfig) {
	p := newTestPosts(b, cfg)
	cfg = p.Config()
	// The busiest chunks are late, when most posts have been created.
	i := p.Chunks() * 3 / 4
	buf := p.Chunk(i, nil)
	n := len(buf)
	s, _ := p.window(i)
	alive := 0
	for j := range p.Len() {
		if pt := &p.posts[j]; pt.created < s+cfg.Window && pt.end() > s {
			alive++
		}
	}
	b.Run("impl=floor", func(b *testing.B) {
		b.ReportAllocs()
		var pcg rand.PCG
		for b.Loop() {
			pcg.Seed(1, uint64(i))
			buf = buf[:0]
			w := uint64(cfg.Window)
			for k := range n {
				at := s + int64(k)*cfg.Window/int64(n) + int64(pcg.Uint64()%(w/uint64(n)))
				buf = put(buf, at, 7, 1, uint64(k), Write)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
	})
	b.Run("impl=countsim", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf = p.Chunk(i, buf)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(alive), "ns/post")
		b.ReportMetric(float64(n), "events")
		b.ReportMetric(float64(alive), "posts")
	})
}
