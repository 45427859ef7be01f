package workload

// The likes of the posts, a window at a time (posts.go): each live
// post's likes in the window drawn by a time change of its decaying rate,
// then sorted by time.

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"
)

// Chunk fills buf[:0] with the likes of chunk i, in [0, Chunks()), and
// returns them: those with At in [i·Window, min((i+1)·Window, Duration)),
// sorted by (At, ID). It grows buf only when cap(buf) is below the chunk's
// length and otherwise allocates nothing (in the steady state: its sort
// scratch, kept in a pool, grows to the busiest window once). Chunk may be
// called from many goroutines at once, each with its own buf. It panics if
// i is out of range, as indexing a slice would.
//
// Cost: O(log posts) to find the posts that may live in the window, O(1)
// for each of them, and an exponential gap, a logarithm and a sort's
// share for each like.
func (p *Posts) Chunk(i int, buf []Event) []Event {
	if i < 0 || i >= p.chunks {
		panic(fmt.Sprintf("workload: chunk %d not in [0, %d)", i, p.chunks))
	}
	s, e := p.window(i)
	lo := sort.Search(len(p.endMax), func(j int) bool { return p.endMax[j] > s })
	hi := sort.Search(len(p.created), func(j int) bool { return p.created[j] >= e })
	base, _ := chunkSeed(p.cfg.Seed, p.likeHash, i)
	id := uint64(i) << 32
	buf = buf[:0]
	for j := lo; j < hi; j++ {
		pt := &p.posts[j]
		if pt.end() <= s {
			continue
		}
		// The first decay, then the one after the jump, and their mass.
		d0 := p.segment(pt.r0, pt.created, max(s, pt.created), min(e, pt.cut0))
		var d1 decay
		if pt.viralAt != math.MaxInt64 {
			d1 = p.segment(pt.rv, pt.viralAt, max(s, pt.viralAt), min(e, pt.cut1))
		}
		mu := d0.mu + d1.mu
		if mu == 0 {
			continue
		}
		// The first point of the unit process is −ln u for the uniform u
		// in (0, 1] of the hash word; u ≤ 1 − 2μ puts it at or past μ
		// (−ln(1 − 2μ) ≥ 2μ, and the rounding of 1 − 2μ is below μ), so
		// most posts, whose window holds far less than a like, cost a
		// hash, an exp and this comparison. The rest of the points come
		// from a SplitMix started at the word.
		w := Mix64(base ^ uint64(j))
		u := float64(w>>11+1) * 0x1p-53
		if u <= 1-2*mu {
			continue
		}
		src := SplitMix(w)
		y := -math.Log(u)
		y, buf, id = p.likes(&src, y, pt, d0, buf, id)
		_, buf, id = p.likes(&src, y, pt, d1, buf, id)
	}
	p.sort(buf, s)
	return buf
}

// A decay is one segment [a, b) of a post's rate within a window: its rate
// ra at a (likes/ns) and its mass mu; mu = 0 when it is empty.
type decay struct {
	a, b   int64
	ra, mu float64
}

// segment returns the segment [a, b) of a decay of rate r at t0: one exp,
// and an expm1 unless it spans a whole window.
func (p *Posts) segment(r float64, t0, a, b int64) decay {
	if b <= a || r == 0 {
		return decay{}
	}
	ra := r * math.Exp(-p.lambda*float64(a-t0))
	f := p.windowDecay
	if b-a != p.cfg.Window {
		f = -math.Expm1(-p.lambda * float64(b-a))
	}
	return decay{a: a, b: b, ra: ra, mu: ra * f / p.lambda}
}

// likes appends the likes of segment d: the points of the unit-rate
// process below its mass, mapped to times; y is the first point, past the
// previous segments' mass. It returns the next point past this segment's
// mass, for the next segment.
func (p *Posts) likes(src *SplitMix, y float64, pt *post, d decay, out []Event, id uint64) (float64, []Event, uint64) {
	if d.mu == 0 {
		return y, out, id
	}
	k := p.lambda / d.ra
	for ; y < d.mu; y += expGap(src) {
		off := -math.Log1p(-y*k) / p.lambda
		at := clampTime(d.a+int64(off), d.a, d.b-1)
		id++
		out = put(out, at, pt.key, 1, id, Write)
		out[len(out)-1].Actor = pt.actor
	}
	return y - d.mu, out, id
}

// expGap returns an Exp(1) variate: −ln of a uniform on (0, 1] from the
// word's top 53 bits.
func expGap(src *SplitMix) float64 {
	return -math.Log(float64(src.Uint64()>>11+1) * 0x1p-53)
}

// sort sorts a chunk's likes, all with At in [s, s + Window), by (At,
// ID). Chunk appends them in increasing ID, so a stable sort by At
// suffices: a least-significant-digit radix sort on At − s, 11 bits a pass
// (3 passes for a window of 1 s), through a scratch buffer from a pool;
// below 256 likes, a comparison sort.
func (p *Posts) sort(buf []Event, s int64) {
	if len(buf) < 256 {
		slices.SortFunc(buf, func(a, b Event) int {
			if c := cmp.Compare(a.At, b.At); c != 0 {
				return c
			}
			return cmp.Compare(a.ID, b.ID)
		})
		return
	}
	const digit = 11
	passes := (bits.Len64(uint64(p.cfg.Window-1)) + digit - 1) / digit
	sp, _ := p.scratch.Get().(*[]Event)
	if sp == nil {
		sp = new([]Event)
	}
	tmp := slices.Grow((*sp)[:0], len(buf))[:len(buf)]
	src, dst := buf, tmp
	var count [1 << digit]int
	for pass := range passes {
		shift := uint(pass * digit)
		clear(count[:])
		for k := range src {
			count[uint64(src[k].At-s)>>shift&(1<<digit-1)]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for k := range src {
			d := uint64(src[k].At-s) >> shift & (1<<digit - 1)
			dst[count[d]] = src[k]
			count[d]++
		}
		src, dst = dst, src
	}
	if passes%2 == 1 {
		copy(buf, src)
	}
	*sp = tmp
	p.scratch.Put(sp)
}
