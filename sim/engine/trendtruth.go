package engine

import (
	"math"
	"slices"

	"countsim/strategies"
	"countsim/workload"
)

// The truth of a trending run (trending.go): every key's exact score under
// each law the designs estimate — a sliding window's count, kept by bucket
// with its totals, or an exponentially decayed score, kept at each key's
// last event — and at each checkpoint the exact top K of now, each plant's
// score, the window's distinct keys and actors, and each plant's count in
// each region against the regional designs' thresholds.

// TrendTruth is the exact score of every key under each law the designs
// estimate, and the true top K of now at each checkpoint.
//
// Each key is numbered in order of first sight (one map lookup an event,
// a slice index for a small key), and every law keeps its state in plain
// slices by that number: a window, each bucket's (key, count) list with
// the keys' totals; a decay, each key's score at its last event. The
// answers are those of a map a key and a bucket, taken in any order: the
// top K is ordered by score then key.
type TrendTruth struct {
	Laws   []TrendLaw
	checks []int64
	next   int // the next checkpoint
	k      int
	plants []uint64 // the planted keys, whose exact scores are kept
	// bit key mod 64 of each plant's key: an event's key without its bit
	// is no plant's
	plantBits uint64
	// the window laws' states and the decay laws', in law order
	wins   []*trendWindow
	decays []*trendDecay
	events int64
	// the keys numbered: keys[n] is key n; a key below smallKeys is found
	// at small[key] (its number + 1), any other in index
	keys   []uint64
	small  []int32
	index  keyIndex
	actors actorIndex
	// PlantCount is each plant's count over the stream.
	PlantCount []int64
	// regional counts of each plant, and for each threshold the regional
	// designs flag at, when each plant's count in each region reached it
	RegionCount [][]int64 // [plant][region]
	Thresholds  []int64
	Crossed     map[[3]int]int64 // {threshold, plant, region} → At
}

// smallKeys bounds the keys numbered by a slice index rather than the map:
// a background of ranks (unscrambled) is all small.
const smallKeys = 1 << 20

// actorIndex numbers actors as TrendTruth numbers keys.
type actorIndex struct {
	n     int32
	small []int32
	index map[uint64]int32
}

func (a *actorIndex) number(actor uint64) int32 {
	if actor < smallKeys {
		if actor >= uint64(len(a.small)) {
			a.small = append(a.small, make([]int32, int(actor)+1-len(a.small))...)
		}
		if n := a.small[actor]; n > 0 {
			return n - 1
		}
		a.small[actor] = a.n + 1
	} else {
		if n, ok := a.index[actor]; ok {
			return n
		}
		if a.index == nil {
			a.index = map[uint64]int32{}
		}
		a.index[actor] = a.n
	}
	a.n++
	return a.n - 1
}

// DistinctKeys is the number of keys written (a positive delta).
func (t *TrendTruth) DistinctKeys() int { return len(t.keys) }

// number is key's number, given the next one on first sight.
func (t *TrendTruth) number(key uint64) int32 {
	if key < smallKeys {
		if key >= uint64(len(t.small)) {
			t.small = append(t.small, make([]int32, int(key)+1-len(t.small))...)
		}
		if n := t.small[key]; n > 0 {
			return n - 1
		}
		t.small[key] = int32(len(t.keys)) + 1
	} else if !t.index.add(key, int32(len(t.keys))) {
		return t.index.at
	}
	t.keys = append(t.keys, key)
	for j := range t.Laws {
		t.Laws[j].grow()
	}
	return int32(len(t.keys) - 1)
}

// find is key's number, or -1 for a key never written.
func (t *TrendTruth) find(key uint64) int32 {
	if key < smallKeys {
		if key < uint64(len(t.small)) {
			return t.small[key] - 1
		}
		return -1
	}
	return t.index.find(key)
}

// keyIndex finds the number of a key (one at or above smallKeys): open
// addressing with linear probing from workload.Mix64(key) over slots
// holding the key and its number + 1, at most half full, doubling. A Go
// map cost the trending truth a fifth of its time here; slots of the
// number alone, the key then read in TrendTruth.keys, a second miss.
type keyIndex struct {
	slots []keySlot
	n     int
	at    int32 // the number add found
}

type keySlot struct {
	key uint64
	n   int32 // the key's number + 1; 0: an empty slot
}

// find returns key's number, or -1.
func (x *keyIndex) find(key uint64) int32 {
	if x.slots == nil {
		return -1
	}
	mask := uint64(len(x.slots) - 1)
	for i := workload.Mix64(key) & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.n == 0 {
			return -1
		}
		if s.key == key {
			return s.n - 1
		}
	}
}

// add numbers key n and returns true, unless it has a number: then it
// returns false with the number in at.
func (x *keyIndex) add(key uint64, n int32) bool {
	if 2*(x.n+1) > len(x.slots) {
		x.grow()
	}
	mask := uint64(len(x.slots) - 1)
	for i := workload.Mix64(key) & mask; ; i = (i + 1) & mask {
		s := &x.slots[i]
		if s.n == 0 {
			*s = keySlot{key: key, n: n + 1}
			x.n++
			return true
		}
		if s.key == key {
			x.at = s.n - 1
			return false
		}
	}
}

// grow doubles the slots (at least 1,024) and places every key held again.
func (x *keyIndex) grow() {
	old := x.slots
	x.slots = make([]keySlot, max(1024, 2*len(old)))
	mask := uint64(len(x.slots) - 1)
	for _, s := range old {
		if s.n == 0 {
			continue
		}
		i := workload.Mix64(s.key) & mask
		for x.slots[i].n != 0 {
			i = (i + 1) & mask
		}
		x.slots[i] = s
	}
}

// TrendLaw is one law's exact state and its answers.
type TrendLaw struct {
	Law strategies.TrendLaw
	win *trendWindow // a window's state; nil for a decay
	dec *trendDecay  // a decay's state; nil for a window
	// at each checkpoint: the Top K, and each plant's score
	Top    [][]strategies.Trend
	Plants [][]float64
	// a window's distinct keys and actors at each checkpoint
	DistinctKeys, DistinctActors []float64
}

// trendWindow is a window law's state: the buckets still held, each a list
// of (key, count) — a key once a bucket, but for events out of time order
// — and every key's total over them. A bucket below the oldest held when
// an event comes (an event out of order) is kept for good, as is its
// actors' presence.
type trendWindow struct {
	bucket, width int64 // a bucket's ns, and W, the window's buckets
	// the times whose bucket is curB, [lo, hi), while cur is held; else
	// none (lo > hi)
	lo, hi  int64
	buckets map[int64]*trendBucket
	free    []*trendBucket
	oldest  int64 // the oldest bucket index held
	gens    int64 // the buckets handed out so far, each its generation
	// the bucket of the last event, while it is held
	cur     *trendBucket
	curB    int64
	keys    []windowKey // by key number
	nonzero int         // keys whose total is not 0
	// by actor number: the newest bucket that holds the actor (MinInt64:
	// none), and whether a bucket held for good does
	actorMax   []int64
	actorStuck []bool
}

// windowKey is a key's total over a window's buckets held, and where its
// entry of the bucket of its last event is (one cache line for the three).
type windowKey struct {
	total int64
	gen   int64 // the generation of that bucket
	pos   int32 // the entry's place in it
}

type trendBucket struct {
	gen     int64
	entries []trendEntry
}

type trendEntry struct {
	key int32
	n   int64
}

// grow makes room for one more key number.
func (l *TrendLaw) grow() {
	if w := l.win; w != nil {
		w.keys = append(w.keys, windowKey{})
		return
	}
	l.dec.keys = append(l.dec.keys, decayed{})
}

type decayed struct {
	score float64
	at    int64
}

// trendDecay is a decay law's half-life and the factors
// 2^(−gap/h) of the gaps between a key's events met lately: the same
// gap, the same factor, looked up rather than worked out again (a key's
// gaps repeat: the heavy ones are a few ms).
type trendDecay struct {
	h    float64   // the half-life, ns
	keys []decayed // each key's score at its last event, by number
	memo [1 << decayMemoBits]decayFactor
}

const decayMemoBits = 10

// decayFactor is 2^(−gap/h), f, of a gap.
type decayFactor struct {
	gap int64
	f   float64
}

// factor is math.Exp2(−gap/h), from the memo when it holds gap.
func (d *trendDecay) factor(gap int64) float64 {
	m := &d.memo[uint64(gap)*0x9e3779b97f4a7c15>>(64-decayMemoBits)]
	if m.gap != gap {
		m.gap, m.f = gap, math.Exp2(-float64(gap)/d.h)
	}
	return m.f
}

func NewTrendTruth(laws []strategies.TrendLaw, checks []int64, k int, plants []uint64) *TrendTruth {
	t := &TrendTruth{checks: checks, k: k, plants: plants, PlantCount: make([]int64, len(plants))}
	for _, l := range laws {
		tl := TrendLaw{Law: l}
		if l.Window > 0 {
			tl.win = &trendWindow{bucket: l.Bucket, width: l.Window / l.Bucket, lo: 1, hi: 0, buckets: map[int64]*trendBucket{}, curB: math.MinInt64}
		} else {
			tl.dec = &trendDecay{h: float64(l.HalfLife)}
			for i := range tl.dec.memo { // every entry true: gap 0, factor 2^−0
				tl.dec.memo[i].f = math.Exp2(-float64(0) / tl.dec.h)
			}
		}
		t.Laws = append(t.Laws, tl)
		if tl.win != nil {
			t.wins = append(t.wins, tl.win)
		} else {
			t.decays = append(t.decays, tl.dec)
		}
	}
	for _, key := range plants {
		t.plantBits |= 1 << (key & 63)
	}
	return t
}

func (t *TrendTruth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		for t.next < len(t.checks) && e.At >= t.checks[t.next] {
			t.checkpoint(t.checks[t.next])
			t.next++
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		t.events++
		id := t.number(e.Key)
		for p, key := range t.plants {
			if t.plantBits&(1<<(e.Key&63)) == 0 {
				break
			}
			if e.Key != key {
				continue
			}
			t.PlantCount[p] += e.Delta
			if t.RegionCount == nil {
				continue
			}
			g := int(e.Actor % uint64(len(t.RegionCount[p]))) // the region as Regional.regionOf folds an actor
			before := t.RegionCount[p][g]
			t.RegionCount[p][g] += e.Delta
			for j, th := range t.Thresholds {
				if before < th && before+e.Delta >= th {
					t.Crossed[[3]int{j, p, g}] = e.At
				}
			}
		}
		if len(t.wins) > 0 {
			actor := t.actors.number(e.Actor)
			for _, w := range t.wins {
				w.add(e.At, id, actor, e.Delta)
			}
		}
		for _, l := range t.decays {
			d := &l.keys[id]
			d.score = d.score*l.factor(e.At-d.at) + float64(e.Delta)
			d.at = e.At
		}
	}
}

// add counts delta of key id by actor at time at.
func (w *trendWindow) add(at int64, id, actor int32, delta int64) {
	if at < w.lo || at >= w.hi {
		w.open(at / w.bucket)
	}
	b, c, k := w.curB, w.cur, &w.keys[id]
	if k.gen == c.gen {
		c.entries[k.pos].n += delta
	} else {
		k.gen, k.pos = c.gen, int32(len(c.entries))
		c.entries = append(c.entries, trendEntry{key: id, n: delta})
	}
	if k.total == 0 {
		w.nonzero++
	}
	if k.total += delta; k.total == 0 {
		w.nonzero--
	}
	for int(actor) >= len(w.actorMax) {
		w.actorMax = append(w.actorMax, math.MinInt64)
		w.actorStuck = append(w.actorStuck, false)
	}
	if b < w.oldest {
		w.actorStuck[actor] = true
	} else if b > w.actorMax[actor] {
		w.actorMax[actor] = b
	}
}

// open makes bucket b the current one, first dropping the buckets that
// fall out of the window of b.
func (w *trendWindow) open(b int64) {
	w.expire(b)
	c := w.buckets[b]
	if c == nil {
		if n := len(w.free); n > 0 {
			c, w.free = w.free[n-1], w.free[:n-1]
		} else {
			c = &trendBucket{}
		}
		w.gens++
		c.gen = w.gens
		w.buckets[b] = c
	}
	w.cur, w.curB = c, b
	w.lo, w.hi = bucketTimes(b, w.bucket)
}

// bucketTimes is [lo, hi), the times t whose bucket t/size (Go's division,
// towards 0) is b; none (lo > hi) where an end would overflow.
func bucketTimes(b, size int64) (lo, hi int64) {
	switch {
	case b == 0:
		return 1 - size, size
	case b > 0 && b < math.MaxInt64/size-1:
		return b * size, (b + 1) * size
	case b < 0 && b > math.MinInt64/size+1:
		return (b-1)*size + 1, b*size + 1
	}
	return 1, 0
}

// Finish takes the checkpoints after the last event.
func (t *TrendTruth) Finish() {
	for ; t.next < len(t.checks); t.next++ {
		t.checkpoint(t.checks[t.next])
	}
}

// expire drops the buckets that fall out of the window of bucket b: those
// before b − W + 1, subtracting their counts from the totals.
func (w *trendWindow) expire(b int64) {
	for ; w.oldest < b-w.width+1; w.oldest++ {
		c := w.buckets[w.oldest]
		if c == nil {
			continue
		}
		for _, x := range c.entries {
			k := &w.keys[x.key]
			if k.total == 0 {
				w.nonzero++
			}
			if k.total -= x.n; k.total == 0 {
				w.nonzero--
			}
		}
		c.entries = c.entries[:0]
		w.free = append(w.free, c)
		delete(w.buckets, w.oldest)
		if c == w.cur {
			w.cur, w.curB = nil, math.MinInt64
			w.lo, w.hi = 1, 0
		}
	}
}

// checkpoint takes every law's top K of now = c − 1 (the events before c).
func (t *TrendTruth) checkpoint(c int64) {
	now := c - 1
	for j := range t.Laws {
		l := &t.Laws[j]
		sel := newTrendSelect(t.k)
		plants := make([]float64, len(t.plants))
		if w := l.win; w != nil {
			w.expire(now / w.bucket)
			for id := range w.keys {
				if n := w.keys[id].total; n != 0 && !sel.beatsCount(n) {
					sel.offer(strategies.Trend{Key: t.keys[id], Score: float64(n)})
				}
			}
			for p, key := range t.plants {
				if id := t.find(key); id >= 0 {
					plants[p] = float64(w.keys[id].total)
				}
			}
			actors := 0
			for a, b := range w.actorMax {
				if w.actorStuck[a] || b >= w.oldest {
					actors++
				}
			}
			l.DistinctKeys = append(l.DistinctKeys, float64(w.nonzero))
			l.DistinctActors = append(l.DistinctActors, float64(actors))
		} else {
			for id, d := range l.dec.keys {
				if !sel.beats(d, now) {
					sel.offer(strategies.Trend{Key: t.keys[id], Score: l.dec.score(d, now)})
				}
			}
			for p, key := range t.plants {
				var d decayed
				if id := t.find(key); id >= 0 {
					d = l.dec.keys[id]
				}
				plants[p] = l.dec.score(d, now)
			}
		}
		l.Top = append(l.Top, sel.result())
		l.Plants = append(l.Plants, plants)
	}
}

// score is d's decayed score at now: d.score · 2^(−(now − d.at)/h).
func (d *trendDecay) score(x decayed, now int64) float64 {
	return x.score * math.Exp2(-float64(now-x.at)/d.h)
}

// beats reports whether the k best kept, k of them, all come before any
// score d can have at now, d's last event being at or before now: its
// score is d.score times 2^(−age/h) ≤ 1 (math.Exp2 within an ulp of it),
// so below d.score · (1 + 10^−7) + 2^−1000 (an underflow's error) — most
// keys of a skewed stream, whose 2^(−age/h) is then never worked out.
func (s *trendSelect) beats(d decayed, now int64) bool {
	return len(s.best) == s.k && d.at <= now && d.score*(1+1e-7)+0x1p-1000 < s.best[s.k-1].Score
}

// beatsCount reports whether the k best kept, k of them, all come before
// a window count of n, whatever its key: the worst kept has a larger one.
func (s *trendSelect) beatsCount(n int64) bool {
	return len(s.best) == s.k && float64(n) < s.best[s.k-1].Score
}

// trendSelect keeps the k best trends offered (score descending, key
// ascending), whatever the order they come in.
type trendSelect struct {
	k    int
	best []strategies.Trend // sorted best first
}

func TrendBefore(a, b strategies.Trend) bool {
	return a.Score > b.Score || a.Score == b.Score && a.Key < b.Key
}

// offer keeps t if it is among the k best offered so far.
func (s *trendSelect) offer(t strategies.Trend) {
	if len(s.best) == s.k && !TrendBefore(t, s.best[s.k-1]) {
		return
	}
	s.insert(t)
}

func (s *trendSelect) insert(t strategies.Trend) {
	i, _ := slices.BinarySearchFunc(s.best, t, func(a, b strategies.Trend) int {
		if TrendBefore(a, b) {
			return -1
		}
		return 1
	})
	s.best = slices.Insert(s.best, i, t)
	if len(s.best) > s.k {
		s.best = s.best[:s.k]
	}
}

func (s *trendSelect) result() []strategies.Trend { return s.best }

func newTrendSelect(k int) *trendSelect { return &trendSelect{k: k} }
