package workload

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/cespare/xxhash/v2"
)

// MaxViews is the largest number of views a viewer can make in a day: the
// bound on Views.Fixed and Views.ZipfMax.
const MaxViews = 1 << 16

// AudienceKey is the Key of every audience event: the one video watched.
const AudienceKey uint64 = 1

// audienceDayNs is the length of an audience day, 24 h in ns.
const audienceDayNs = 24 * 60 * 60 * 1_000_000_000

// audienceMaxDays is the largest number of days whose events all happen
// before int64 time runs out (day d covers [d, d+1)·24 h).
const audienceMaxDays = math.MaxInt64 / audienceDayNs

// Day is one day of an audience.
type Day struct {
	// Viewers is the number of distinct viewers that day; it must be ≥ 0.
	Viewers int64
	// Overlap is how many of them also watched the previous day. It must be
	// in [0, min(Viewers, previous day's Viewers)], and 0 on the first day.
	Overlap int64
}

// Views says how many view events each viewer makes on each day it
// watches. Set Fixed, or ZipfMax (and ZipfS), not both.
type Views struct {
	// Fixed ≥ 1 gives every viewer exactly Fixed views a day; it must be in
	// [0, MaxViews], and 0 selects the Zipf numbers below.
	Fixed int
	// ZipfS is the exponent s of the Zipf numbers of views; it must be finite
	// and ≥ 0 (0 is uniform on 1..ZipfMax). It must be 0 when Fixed ≥ 1.
	ZipfS float64
	// ZipfMax is the largest number of views M; with Fixed 0 it must be in
	// [1, MaxViews], and 0 when Fixed ≥ 1. A day of V viewers then has
	// exactly round(V·P(X > r)) viewers with more than r views for each
	// r ≥ 0, where P(X = m) = m^−s / H(M, s) on 1..M is the Zipf pmf of
	// [Zipf.Prob] (see Audience for which viewers). So the number of viewers
	// with m views is within 1 of V·P(X = m), and the day's events are within
	// (M−1)/2 of V·E[X]: stratified, not sampled.
	ZipfMax uint64
}

// AudienceConfig describes the viewers of several days and their views.
// Every field is checked by NewAudience.
type AudienceConfig struct {
	// Seed makes the audience reproducible. Viewer ids depend on Seed alone:
	// ViewerID(i) = NewScrambler(Seed ^ ViewerSeedTag).Key(i).
	Seed uint64
	// Label names the audience; with Seed it picks which viewers are the
	// heavy ones each day (Zipf views) and the order of each round.
	Label string
	// Days are the days in order, at least one and at most 106,751 (day d
	// covers [d·24 h, (d+1)·24 h) of simulated time, which must fit in int64).
	Days []Day
	// Views is the number of views each viewer makes a day.
	Views Views
	// ChunkSize is the number of events per chunk; it must be ≥ 0, and 0
	// means DefaultChunkSize. It only cuts each day's sequence: the events
	// are the same whatever the chunk size.
	ChunkSize int
}

// ViewerSeedTag is xored into AudienceConfig.Seed to seed the viewer-id
// scrambler, so that viewer i of an audience and rank i of a Stream of the
// same seed get unrelated ids.
const ViewerSeedTag = 0x766965776572735f // "viewers_"

// An Audience is a deterministic set of viewers over several days, with
// exact per-day sizes and overlaps, and the view events they make. It is
// immutable after NewAudience and safe for concurrent use; Chunk(day, i) is
// a pure function of the config and (day, i), so chunks may be built in any
// order by any number of goroutines.
//
// Viewer indices. Viewers are numbered 0, 1, 2, … in order of their first
// day. With V_d and O_d the Viewers and Overlap of Days[d], day 0 is the
// indices [0, V_0), and day d is the last O_d indices of day d−1 followed by
// V_d − O_d fresh indices after the highest one used so far. By induction
// every day is one interval ([Audience.Indices]): with N_d the number of
// indices used by days 0..d (N_−1 = 0),
//
//	day d = [N_(d−1) − O_d, N_d),   N_d = N_(d−1) + V_d − O_d,
//
// and both ends are non-decreasing in d (as O_d ≤ V_(d−1)). So each viewer
// watches on a run of consecutive days, the returning viewers of a day are
// the most recent viewers of the day before, and the union of any days is
// exact interval arithmetic ([Audience.Union]): nothing needs generating to
// know the truth. A viewer's id is [Audience.ViewerID] of its index.
//
// Views. A day of V viewers is generated in rounds: round r (from 0) holds
// one view of each of the n_r viewers with more than r views, so round 0 has
// everyone once, a viewer's k views fall in rounds 0..k−1, and they are
// interleaved with everyone else's. With Fixed views n_r = V for r < Fixed.
// With Zipf views n_r = round(V·P(X > r)) for X ~ Zipf(ZipfMax, ZipfS): the
// day's histogram of views is the Zipf histogram V·P(m) rounded, not a
// sample of it (stratified, without sampling noise), so Events is exact and
// known from the config alone, and a chunk finds its place in O(log rounds).
//
// Order within a round. Position p ∈ [0, V) of a day is the viewer of index
// lo + p, where [lo, hi) = Indices(day). Round r visits the ranks
// q = 0 … n_r−1 at positions p(q) = (b + a·q) mod V: a Weyl sequence whose
// step a is the first integer ≥ max(1, ⌊V·(√5−1)/2⌋) coprime to V (so p is a
// bijection, and the viewers of every round are spread evenly over the
// returning and the fresh ones) and whose offset b < V comes from (Seed,
// Label, day). Rank 0 makes the most views, and whether a viewer is heavy
// does not follow its index or whether it returns.
//
// Costs. Distinct, Union, Events and Chunks never generate events: they
// cost O(1), Union O(k log k) for k days. NewAudience costs O(days) for
// Fixed views. For Zipf views it costs O(ZipfMax + days·log ZipfMax +
// sizes·rounds) and keeps a table of 8 bytes per round for each distinct
// day size (rounds ≤ ZipfMax); it refuses a config whose tables would pass
// 2^24 entries (128 MiB). Chunk costs O(log rounds) plus about 2 ns per event.
type Audience struct {
	cfg   AudienceConfig
	days  []audienceDay
	scr   Scrambler
	total int64 // events over all days
}

// audienceDay is the precomputed layout of one day.
type audienceDay struct {
	first   uint64  // the day's viewers are indices [first, first+viewers)
	viewers uint64  // V
	events  int64   // Σ n_r
	cum     []int64 // Zipf views: cum[r] = events before round r, up to cum[rounds] = events; nil for Fixed
	chunks  int
	firstID uint64 // ID of the day's first event
	step    uint64 // a: coprime to viewers, < viewers (0 when viewers ≤ 1)
	offset  uint64 // b < viewers
	dayQ    uint64 // audienceDayNs / events: At advances dayQ or dayQ+1 per event
	dayR    uint64 // audienceDayNs % events
}

// NewAudience validates cfg and returns its audience.
func NewAudience(cfg AudienceConfig) (*Audience, error) {
	if len(cfg.Days) == 0 {
		return nil, fmt.Errorf("workload: audience has no days")
	}
	if len(cfg.Days) > audienceMaxDays {
		return nil, fmt.Errorf("workload: audience has %d days, more than %d (the last would end beyond int64 time)",
			len(cfg.Days), audienceMaxDays)
	}
	var used int64 // N: viewer indices used so far
	for d, day := range cfg.Days {
		switch {
		case day.Viewers < 0:
			return nil, fmt.Errorf("workload: audience days[%d] viewers %d not >= 0", d, day.Viewers)
		case d == 0 && day.Overlap != 0:
			return nil, fmt.Errorf("workload: audience days[0] overlap %d not 0 (there is no previous day)", day.Overlap)
		case day.Overlap < 0:
			return nil, fmt.Errorf("workload: audience days[%d] overlap %d not >= 0", d, day.Overlap)
		case day.Overlap > day.Viewers:
			return nil, fmt.Errorf("workload: audience days[%d] overlap %d > its viewers %d", d, day.Overlap, day.Viewers)
		case d > 0 && day.Overlap > cfg.Days[d-1].Viewers:
			return nil, fmt.Errorf("workload: audience days[%d] overlap %d > the previous day's viewers %d",
				d, day.Overlap, cfg.Days[d-1].Viewers)
		}
		fresh := day.Viewers - day.Overlap
		if used > math.MaxInt64-fresh {
			return nil, fmt.Errorf("workload: audience needs more than %d viewer indices", int64(math.MaxInt64))
		}
		used += fresh
	}
	tails, err := audienceTails(cfg.Views)
	if err != nil {
		return nil, err
	}
	if cfg.ChunkSize, err = chunkSize("audience", cfg.ChunkSize); err != nil {
		return nil, err
	}
	cfg.Days = slices.Clone(cfg.Days)

	a := &Audience{
		cfg:  cfg,
		days: make([]audienceDay, len(cfg.Days)),
		scr:  NewScrambler(cfg.Seed ^ ViewerSeedTag),
	}
	const tag = 0x61756469656e6365 // "audience"
	base := SplitMix64(SplitMix64(cfg.Seed^tag) ^ xxhash.Sum64String(cfg.Label))
	if tails != nil { // check the size of the round tables before making them
		entries := 0
		for v := range audienceSizes(cfg.Days) {
			entries += audienceRounds(v, tails) + 1
		}
		if entries > maxAudienceRounds {
			return nil, fmt.Errorf("workload: audience round tables need %d entries (8 bytes each), more than %d: use fewer day sizes or a smaller zipf max",
				entries, maxAudienceRounds)
		}
	}
	tables := map[int64][]int64{} // shared by days of the same size
	used = 0
	for d, day := range cfg.Days {
		ad := &a.days[d]
		ad.first = uint64(used - day.Overlap)
		used += day.Viewers - day.Overlap
		ad.viewers = uint64(day.Viewers)
		if tails == nil {
			if f := int64(cfg.Views.Fixed); day.Viewers > math.MaxInt64/f {
				return nil, fmt.Errorf("workload: audience days[%d]: %d viewers make more than %d events", d, day.Viewers, int64(math.MaxInt64))
			}
			ad.events = day.Viewers * int64(cfg.Views.Fixed)
		} else {
			cum, ok := tables[day.Viewers]
			if !ok {
				if cum, err = audienceCum(day.Viewers, tails); err != nil {
					return nil, fmt.Errorf("workload: audience days[%d]: %w", d, err)
				}
				tables[day.Viewers] = cum
			}
			ad.cum, ad.events = cum, cum[len(cum)-1]
		}
		if a.total > math.MaxInt64-ad.events {
			return nil, fmt.Errorf("workload: audience has more than %d events", int64(math.MaxInt64))
		}
		ad.firstID = uint64(a.total) + 1
		a.total += ad.events
		chunks := ad.events / int64(cfg.ChunkSize)
		if ad.events%int64(cfg.ChunkSize) != 0 {
			chunks++
		}
		if chunks > math.MaxInt {
			return nil, fmt.Errorf("workload: audience days[%d] of %d events in chunks of %d has more chunks than an int holds",
				d, ad.events, cfg.ChunkSize)
		}
		ad.chunks = int(chunks)
		ad.step = weylStep(ad.viewers)
		if ad.viewers > 0 {
			ad.offset = SplitMix64(base^uint64(d)) % ad.viewers
		}
		if ad.events > 0 {
			ad.dayQ, ad.dayR = audienceDayNs/uint64(ad.events), audienceDayNs%uint64(ad.events)
		}
	}
	return a, nil
}

// audienceTails validates v and returns, for Zipf views, tails[r] = P(X > r)
// for r in 0..M (tails[0] = 1, tails[M] = 0), summed smallest term first;
// for Fixed views it returns nil.
func audienceTails(v Views) ([]float64, error) {
	if v.Fixed < 0 || v.Fixed > MaxViews {
		return nil, fmt.Errorf("workload: audience views fixed %d not in [0, %d]", v.Fixed, MaxViews)
	}
	if v.Fixed > 0 {
		if v.ZipfMax != 0 || v.ZipfS != 0 {
			return nil, fmt.Errorf("workload: audience views fixed %d with zipf max %d and s %v: set fixed or zipf, not both",
				v.Fixed, v.ZipfMax, v.ZipfS)
		}
		return nil, nil
	}
	if v.ZipfMax < 1 || v.ZipfMax > MaxViews {
		return nil, fmt.Errorf("workload: audience views zipf max %d not in [1, %d] (or set fixed >= 1)", v.ZipfMax, MaxViews)
	}
	s := v.ZipfS
	if math.IsNaN(s) || math.IsInf(s, 0) || s < 0 {
		return nil, fmt.Errorf("workload: audience views zipf exponent s %v not a finite number >= 0", s)
	}
	m := int(v.ZipfMax)
	tails := make([]float64, m+1)
	var sum float64 // Σ_{k > r} k^−s
	for r := m - 1; r >= 0; r-- {
		sum += math.Pow(float64(r+1), -s)
		tails[r] = sum
	}
	for r := range tails {
		tails[r] /= sum
	}
	return tails, nil
}

// maxAudienceRounds bounds the entries of an audience's round tables (one
// per round per distinct day size, with Zipf views): 2^24, 128 MiB.
const maxAudienceRounds = 1 << 24

// audienceSizes returns the distinct Viewers of days.
func audienceSizes(days []Day) map[int64]bool {
	sizes := make(map[int64]bool)
	for _, d := range days {
		sizes[d.Viewers] = true
	}
	return sizes
}

// audienceRound returns n_r, the number of viewers of a day of v viewers in
// round r, in [0, v] and non-increasing in r: v for r = 0, else
// round(v·tails[r]) (0 from r = M on).
func audienceRound(v int64, tails []float64, r int) int64 {
	switch {
	case r == 0:
		return v
	case r >= len(tails):
		return 0
	}
	// float64(v) may round v: clamp so that n stays in [0, v].
	if f := math.Round(float64(v) * tails[r]); f < float64(v) {
		return int64(f)
	}
	return v
}

// audienceRounds returns the number of non-empty rounds of a day of v
// viewers with Zipf views, in O(log M).
func audienceRounds(v int64, tails []float64) int {
	if v == 0 {
		return 0
	}
	lo, hi := 0, len(tails) // n_lo ≥ 1 (n_0 = v), n_hi = 0
	for hi-lo > 1 {
		mid := int(uint(lo+hi) / 2)
		if audienceRound(v, tails, mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// audienceCum returns the cumulative event counts of a day of v viewers
// with Zipf views: cum[r] is the number of events before round r, and
// cum[rounds] the day's events.
func audienceCum(v int64, tails []float64) ([]int64, error) {
	rounds := audienceRounds(v, tails)
	cum := make([]int64, rounds+1)
	for r := range rounds {
		n := audienceRound(v, tails, r)
		if cum[r] > math.MaxInt64-n {
			return nil, fmt.Errorf("%d viewers make more than %d events", v, int64(math.MaxInt64))
		}
		cum[r+1] = cum[r] + n
	}
	return cum, nil
}

// weylStep returns the step a of the day's Weyl sequence: the first integer
// ≥ ⌊v·(√5−1)/2⌋ (and ≥ 1) coprime to v, for v ≥ 2; 0 for v ≤ 1.
func weylStep(v uint64) uint64 {
	if v <= 1 {
		return 0
	}
	a := max(1, uint64(float64(v)*0.6180339887498949))
	for gcd(a, v) != 1 {
		a++
		if a == v {
			a = 1
		}
	}
	return a
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Config returns the audience's config, with ChunkSize resolved (never 0)
// and its own copy of Days.
func (a *Audience) Config() AudienceConfig {
	cfg := a.cfg
	cfg.Days = slices.Clone(cfg.Days)
	return cfg
}

// Days returns the number of days.
func (a *Audience) Days() int { return len(a.days) }

// day returns the layout of day d and panics if d is out of range.
func (a *Audience) day(d int) *audienceDay {
	if d < 0 || d >= len(a.days) {
		panic(fmt.Sprintf("workload: audience day %d not in [0, %d)", d, len(a.days)))
	}
	return &a.days[d]
}

// Distinct returns the exact number of distinct viewers of day d, in
// [0, Days()): Days[d].Viewers.
func (a *Audience) Distinct(d int) int64 { return int64(a.day(d).viewers) }

// Indices returns the viewer indices of day d: the interval [lo, hi), of
// length Distinct(d). See Audience for the layout.
func (a *Audience) Indices(d int) (lo, hi uint64) {
	ad := a.day(d)
	return ad.first, ad.first + ad.viewers
}

// Union returns the exact number of distinct viewers who watched on at least
// one of the given days, in any order, repeats allowed (0 for no days). It
// holds for any set of days, consecutive or not: each day is an interval of
// viewer indices and Union measures their union. For two consecutive days
// it is Viewers + Viewers − Overlap; for days d < e, Distinct(d) +
// Distinct(e) − Union(d, e) is how many watched on both (and, as viewers
// watch on runs of consecutive days, on every day between). Cost
// O(k log k) for k days.
func (a *Audience) Union(days ...int) int64 {
	ds := slices.Clone(days)
	slices.Sort(ds) // both ends of the intervals are non-decreasing in the day
	var total, end uint64
	for _, d := range ds {
		lo, hi := a.Indices(d)
		lo = max(lo, end)
		if hi > lo {
			total += hi - lo
			end = hi
		}
	}
	return int64(total)
}

// Events returns the exact number of view events of day d: the sum over the
// day's viewers of their views (Viewers·Fixed for Fixed views).
func (a *Audience) Events(d int) int64 { return a.day(d).events }

// Chunks returns the number of chunks of day d, ⌈Events(d)/ChunkSize⌉ (0 for
// a day without viewers).
func (a *Audience) Chunks(d int) int { return a.day(d).chunks }

// ViewerID returns the 64-bit id of viewer number index, the Actor of its
// events: NewScrambler(Seed ^ ViewerSeedTag).Key(index). It is a bijection
// on uint64, so distinct viewers never share an id.
func (a *Audience) ViewerID(index uint64) uint64 { return a.scr.Key(index) }

// ViewerIndex inverts ViewerID: a.ViewerIndex(a.ViewerID(i)) == i.
func (a *Audience) ViewerIndex(id uint64) uint64 { return a.scr.Rank(id) }

// Chunk fills buf[:0] with the view events of chunk i, in [0, Chunks(day)),
// of day day, in [0, Days()), and returns it.
//
// The day's events are the rounds described at Audience, in order: with
// c_r = n_0 + … + n_(r−1) the events of the rounds before r, event j (from
// 0) of the day is in round r when c_r ≤ j < c_(r+1), and is a view of the
// viewer of rank j − c_r. Chunk i holds events
// [i·ChunkSize, min((i+1)·ChunkSize, Events(day))). Every event has Op
// Write, Delta 1, Key AudienceKey, Actor the viewer's ViewerID, ID = 1 + the
// number of events of the audience before it (unique over all days, from 1)
// and At = day·24 h + ⌊j·24 h / Events(day)⌋ ns: evenly spread over the day,
// non-decreasing, and increasing while a day has at most 8.64·10^13 events.
//
// It grows buf only when cap(buf) is below the chunk's length and otherwise
// allocates nothing. Chunk may be called from many goroutines at once, each
// with its own buf. It panics if day or i is out of range.
func (a *Audience) Chunk(day, i int, buf []Event) []Event {
	ad := a.day(day)
	if i < 0 || i >= ad.chunks {
		panic(fmt.Sprintf("workload: audience day %d chunk %d not in [0, %d)", day, i, ad.chunks))
	}
	size := int64(a.cfg.ChunkSize)
	start := int64(i) * size
	n := int(min(size, ad.events-start))
	buf = slices.Grow(buf[:0], n)[:n]

	// The round r of event start, its rank q in the round and the position
	// of that rank.
	v := ad.viewers
	r, q := int(start/int64(v)), uint64(start%int64(v))
	if ad.cum != nil {
		var found bool
		if r, found = slices.BinarySearch(ad.cum, start); !found {
			r--
		}
		q = uint64(start - ad.cum[r])
	}
	hi, lo := bits.Mul64(ad.step, q) // < v² as step, q < v, so hi < v
	_, pos := bits.Div64(hi, lo, v)
	if pos += ad.offset; pos >= v {
		pos -= v
	}
	// At = dayStart + ⌊j·D/E⌋, stepped exactly as a quotient and remainder.
	hi, lo = bits.Mul64(uint64(start), audienceDayNs) // start < E, so hi < E
	at, rem := bits.Div64(hi, lo, uint64(ad.events))
	at += uint64(day) * audienceDayNs
	id := ad.firstID + uint64(start)

	first, step, offset := ad.first, ad.step, ad.offset
	for j := 0; j < n; {
		left := min(int64(n-j), ad.roundEnd(r)-start-int64(j)) // events left in the chunk and the round
		seg := buf[j : j+int(left)]
		_, at, rem = fillViews(seg, a.scr, first, pos, step, v, at, rem, ad.dayQ, ad.dayR, uint64(ad.events), id)
		id += uint64(len(seg))
		j += len(seg)
		r++
		pos = offset // rank 0 of the next round
	}
	return buf
}

// roundEnd returns the number of events of the day's rounds 0..r.
func (ad *audienceDay) roundEnd(r int) int64 {
	if ad.cum == nil {
		return int64(r+1) * int64(ad.viewers) // ≤ events: no overflow
	}
	return ad.cum[r+1]
}

// fillViews writes consecutive events of one round into seg: the views of
// the viewers at positions pos, pos+step, … (mod v) of a day whose first
// index is first, with IDs from id, At from at (+ rem/e) stepping by
// dayQ + dayR/e. It returns the position, At and remainder that follow.
func fillViews(seg []Event, scr Scrambler, first, pos, step, v, at, rem, dayQ, dayR, e, id uint64) (uint64, uint64, uint64) {
	for k := range seg {
		ev := &seg[k]
		ev.At = int64(at)
		ev.Key = AudienceKey
		ev.Actor = scr.Key(first + pos)
		ev.Delta = 1
		ev.ID = id + uint64(k)
		ev.Op = Write
		at += dayQ
		if rem += dayR; rem >= e {
			rem -= e
			at++
		}
		if pos += step; pos >= v {
			pos -= v
		}
	}
	return pos, at, rem
}

// check verifies the audience's internal invariants and returns the first
// one broken, or nil.
func (a *Audience) check() error {
	var used, total uint64
	var prevFirst uint64
	for d, ad := range a.days {
		day := a.cfg.Days[d]
		switch {
		case ad.viewers != uint64(day.Viewers):
			return fmt.Errorf("day %d: %d viewers, config says %d", d, ad.viewers, day.Viewers)
		case ad.first != used-uint64(day.Overlap):
			return fmt.Errorf("day %d: first index %d, want %d − %d", d, ad.first, used, day.Overlap)
		case ad.first < prevFirst:
			return fmt.Errorf("day %d: first index %d below the previous day's %d", d, ad.first, prevFirst)
		case ad.cum == nil && ad.events != day.Viewers*int64(a.cfg.Views.Fixed):
			return fmt.Errorf("day %d: %d events, want %d viewers × %d", d, ad.events, day.Viewers, a.cfg.Views.Fixed)
		case ad.cum != nil && (ad.cum[0] != 0 || ad.cum[len(ad.cum)-1] != ad.events):
			return fmt.Errorf("day %d: cum %v… does not run from 0 to %d events", d, ad.cum[:min(len(ad.cum), 3)], ad.events)
		case (ad.cum == nil) != (a.cfg.Views.Fixed > 0):
			return fmt.Errorf("day %d: a round table with fixed views %d, or none with zipf", d, a.cfg.Views.Fixed)
		case ad.firstID != total+1:
			return fmt.Errorf("day %d: first ID %d, want %d", d, ad.firstID, total+1)
		case int64(ad.chunks) != ad.events/int64(a.cfg.ChunkSize)+min(1, ad.events%int64(a.cfg.ChunkSize)):
			return fmt.Errorf("day %d: %d chunks for %d events", d, ad.chunks, ad.events)
		case ad.viewers > 1 && (ad.step == 0 || ad.step >= ad.viewers || gcd(ad.step, ad.viewers) != 1):
			return fmt.Errorf("day %d: step %d not coprime to %d viewers", d, ad.step, ad.viewers)
		case ad.viewers > 0 && ad.offset >= ad.viewers:
			return fmt.Errorf("day %d: offset %d not below %d viewers", d, ad.offset, ad.viewers)
		}
		for r := 1; r < len(ad.cum); r++ {
			n := ad.cum[r] - ad.cum[r-1]
			if n <= 0 || uint64(n) > ad.viewers || (r > 1 && n > ad.cum[r-1]-ad.cum[r-2]) {
				return fmt.Errorf("day %d: round %d has %d viewers, want in [1, %d] and non-increasing", d, r-1, n, ad.viewers)
			}
		}
		if len(ad.cum) > 1 && uint64(ad.cum[1]) != ad.viewers {
			return fmt.Errorf("day %d: round 0 has %d viewers, want all %d", d, ad.cum[1], ad.viewers)
		}
		used += uint64(day.Viewers - day.Overlap)
		total += uint64(ad.events)
		prevFirst = ad.first
	}
	if total != uint64(a.total) {
		return fmt.Errorf("%d events in all, days sum to %d", a.total, total)
	}
	return nil
}
