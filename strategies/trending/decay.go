package trending

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Exponential decay by forward decay: G. Cormode, V. Shkapenyuk, D.
// Srivastava and B. Xu, "Forward decay: a practical time decay model for
// streaming systems", ICDE 2009.
//
// A key's decayed score at now is Σ Delta · 2^(−(now − At)/h) over its
// events (TrendLaw): a count loses half its value every half-life h. Naive
// decay multiplies every stored count by 2^(−Δ/h) at every tick. Forward
// decay writes the same score as
//
//	2^(−(now − L)/h) · Σ Delta · 2^((At − L)/h)
//
// for a landmark L (the first event's time): an event adds its weight
// Delta · 2^((At − L)/h) to its key's stored sum, and a query multiplies by
// the one factor 2^(−(now − L)/h). Nothing stored is rescaled per tick, and
// the ordering of keys by score is their ordering by stored sum, so the
// top k needs no arithmetic until it is answered.
//
// Overflow. The weights grow as 2^((At − L)/h); a float64 holds up to
// 2^1023. An event whose exponent (At − L)/h reaches decayMoveAt = 512 half-
// lives first moves the landmark forward by k = ⌊(At − L)/h⌋ whole half-
// lives, which multiplies every stored sum by 2^−k: an exact power of two
// (math.Ldexp), so the move loses no precision. That is the only rescale;
// it is O(keys) and happens at most once per 512 half-lives of stream time.
// A stored sum is then below 2^512 · N for N the sum of all deltas (< 2^63),
// far from overflow. At the seed's half-life of 30 minutes a simulated week
// is 336 half-lives and never moves the landmark; at one minute it moves
// every 8.5 hours. A key that has seen nothing for about 1,000 half-lives
// has a score below 2^−1000 of its count: a move that underflows its sum to
// 0 drops it (it could no longer be told from an empty slot).
//
// Cost. The factor 2^((At − L)/h) is one exp2 per distinct event time
// (events of one timestamp share it): a table of 2^(i/1024) and a short
// polynomial. Then one float add into the key's slot. Measured against
// plain counting (BenchmarkDecayObserve, a timed Zipf stream over 10^6
// keys, an event every 14 ms of simulated time): math.Exp2 in the table's
// loop took 2.8× the floor; exp2 1.85×; the weights of 256 events computed
// first, then the table's loop as short as the floor's, so that its cache
// misses overlap as much, 1.4×.
// Precision: the exponents are computed from int64 ns differences below 2^53
// and stay below 512 in magnitude, so a score carries a relative error of
// order 512 · ln 2 · 2^−52 ≈ 1e-13 (tested against naive decay to 1e-9).
//
// Two variants, two types: counters = 0 keeps every key's stored sum in an
// open-addressing table (DecayExact, here); counters = m > 0 keeps a
// Space-Saving summary of the decayed weights (DecaySpaceSaving,
// decay_spacesaving.go).

// DecayParams are the parameters of exponential decay.
type DecayParams struct {
	// HalfLife is h, the time in which a count loses half its value, in
	// (0, 1000h].
	HalfLife time.Duration `key:"half_life" range:"(0,1000h]" default:"30m" doc:"the time in which a count loses half its value"`
	// Counters is 0 to keep every key's decayed weight exactly, or m,
	// 1..10,000,000, for a Space-Saving summary of m decayed counters.
	Counters int `key:"counters" range:"0..10000000" defaultdoc:"0: every key's decayed weight, exactly" doc:"m: a Space-Saving summary of m counters of decayed weights"`
}

const (
	decayMaxHalfLife = 1000 * time.Hour
	decayMoveAt      = 512 // half-lives past the landmark that move it
)

// forwardClock is the landmark and the factor of forward decay, shared by
// both variants.
type forwardClock struct {
	h     int64   // the half-life, ns
	inv   float64 // 1/h
	land  int64   // the landmark L
	set   bool    // L is set: an event has been counted
	at    int64   // the time of the last factor computed
	f     float64 // 2^((at − L)/h), or 0 before any
	moves int     // landmark moves so far
}

func newForwardClock(h time.Duration) forwardClock {
	return forwardClock{h: int64(h), inv: 1 / float64(h)}
}

// start sets the landmark at the first counted event of batch, if not set.
func (c *forwardClock) start(batch []workload.Event) {
	if c.set {
		return
	}
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
			c.land, c.set = e.At, true
			c.at, c.f = e.At, 1
			return
		}
	}
}

// factor returns 2^((t − L)/h), first moving the landmark (and calling
// rescale(k) to multiply every stored sum by 2^−k) if t is decayMoveAt or
// more half-lives past it. An event more than 1,000 half-lives before the
// landmark gets the smallest positive weight rather than 0, which would
// read as an empty slot. The hot loops write out the common case, x in
// [−1000, decayMoveAt): exp2(x).
func (c *forwardClock) factor(t int64, rescale func(k int)) float64 {
	x := float64(t-c.land) * c.inv
	if x >= decayMoveAt {
		k := (t - c.land) / c.h
		c.land += k * c.h
		c.moves++
		rescale(int(k))
		x = float64(t-c.land) * c.inv
	}
	if x < -1000 {
		return math.SmallestNonzeroFloat64
	}
	return exp2(x)
}

// exp2Table holds 2^(i/1024), i = 0..1023: 8 KB, of which a stream in
// time order reads one line at a time.
var exp2Table = func() (t [1024]float64) {
	for i := range t {
		t[i] = math.Exp2(float64(i) / 1024)
	}
	return t
}()

// exp2 is 2^x for x in [−1022, 1023], within a few ulps: x = e + i/1024 + r
// with r in [0, 1/1024), and 2^x = 2^e · 2^(i/1024) (exp2Table) · e^(r ln 2)
// (Taylor to the 4th power: the 5th term is below 2^−59). Cheaper than
// math.Exp2, which handles every special case.
func exp2(x float64) float64 {
	y := x * 1024 // exact
	k := int64(y)
	if float64(k) > y { // floor, for x < 0
		k--
	}
	r := (y - float64(k)) * (math.Ln2 / 1024) // y − k is exact
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24))))
	return math.Float64frombits(uint64(k>>10+1023)<<52) * exp2Table[k&1023] * p
}

// decay returns 2^(−(now − L)/h) split as m·2^−n, m in (1/2, 1], so that
// a query far past the landmark underflows only where the score does:
// scale(sum) = Ldexp(sum·m, −n).
func (c *forwardClock) decay(now int64) (float64, int) {
	x := float64(now-c.land) * c.inv
	n := math.Floor(x)
	if n > math.MaxInt32 {
		return 0, 0
	}
	return math.Exp2(n - x), int(n)
}

// scaleSum turns a stored sum into its score, given decay's m and n.
func scaleSum(sum, m float64, n int) float64 { return math.Ldexp(sum*m, -n) }

// DecayExact keeps every key's forward-decayed sum: the exact decayed score
// of every key at any time. A Trending design. Not safe for concurrent use.
type DecayExact struct {
	clock forwardClock
	tab   ds.DecayTable
	w     [256]float64 // the weights of a part of a batch (Observe)
}

// decayPartBytes is the memory of DecayExact's weights of a part of a batch.
const decayPartBytes = int64(unsafe.Sizeof(DecayExact{}.w))

// NewDecayExact returns an empty exact decayed counter of half-life h sized
// for about keysHint keys (it grows past that); seed seeds the table's hash.
func NewDecayExact(h time.Duration, keysHint, seed uint64) (*DecayExact, error) {
	if err := strategies.ValidateWith("decay", &DecayParams{HalfLife: h}); err != nil {
		return nil, err
	}
	st := workload.SplitMix(seed ^ 0x6465636179746162) // "decaytab"
	d := &DecayExact{clock: newForwardClock(h)}
	d.tab.Init(ds.TableLen(keysHint), st.Uint64())
	return d, nil
}

// Law returns the decay law: the half-life.
func (d *DecayExact) Law() strategies.TrendLaw { return strategies.TrendLaw{HalfLife: d.clock.h} }

// Bytes returns the memory of the table, 16 B a slot, and of the weights
// of a part of a batch (2 KB).
func (d *DecayExact) Bytes() int64 {
	return d.tab.Bytes() + decayPartBytes
}

// Len returns the number of keys held.
func (d *DecayExact) Len() int { return d.tab.N }

// Observe adds every write event's positive Delta, weighted by
// 2^((At − L)/h), to its key's stored sum; other events are ignored. One
// exp2 per distinct event time; no allocation unless the table grows.
func (d *DecayExact) Observe(batch []workload.Event) {
	c := &d.clock
	c.start(batch)
	at, f := c.at, c.f
	land, inv := c.land, c.inv
	t := &d.tab
	w := &d.w
	for lo := 0; lo < len(batch); lo += len(w) {
		part := batch[lo:min(lo+len(w), len(batch))]
		// The weights first, then the table: the table's loop, whose
		// cache misses dominate, stays as short as plain counting's, so
		// that as many of its misses overlap.
		for i := range part {
			e := &part[i]
			w[i] = 0
			if e.Op != workload.Write || e.Delta <= 0 {
				continue
			}
			if e.At != at {
				// c.factor written out for the common case, which then inlines.
				if x := float64(e.At-land) * inv; x < decayMoveAt && x >= -1000 {
					f = exp2(x)
				} else {
					f = c.factor(e.At, d.rescale)
					if moved := c.land - land; moved != 0 {
						// The weights of this part so far are in the old landmark's units.
						for j := range i {
							w[j] = math.Ldexp(w[j], -int(moved/c.h))
						}
						land = c.land
					}
				}
				at = e.At
			}
			w[i] = float64(e.Delta) * f
		}
		slots, mask, seed := t.Slots, t.Mask, t.Seed
		for i := range part {
			wi := w[i]
			if wi == 0 {
				continue
			}
			key := part[i].Key
			h := workload.Mix64(key ^ seed)
			for j := h & mask; ; j = (j + 1) & mask {
				s := &slots[j]
				if math.Float64bits(s.Count) == 0 { // one integer test: a sum is never −0 or NaN
					t.Insert(s, h, key, wi)
					slots, mask = t.Slots, t.Mask // insert may have doubled the table
					break
				}
				if s.Key == key {
					s.Count += wi
					break
				}
			}
		}
	}
	c.at, c.f = at, f
}

// rescale multiplies every stored sum by 2^−k: a landmark move by k
// half-lives. It drops keys, never moves the slots array.
func (d *DecayExact) rescale(k int) { rescaleDecay(&d.tab, -k) }

// Score returns key's decayed score at now (0 for a key never seen).
func (d *DecayExact) Score(key uint64, now int64) float64 {
	m, n := d.clock.decay(now)
	return scaleSum(d.tab.Find(workload.Mix64(key^d.tab.Seed), key).Count, m, n)
}

// Trending returns the k keys of highest decayed score at now, score
// descending then key ascending: a bounded heap over every key, O(keys log k).
func (d *DecayExact) Trending(k int, now int64) []strategies.Trend {
	if k <= 0 {
		return []strategies.Trend{}
	}
	h := make(trendHeap, 0, min(k, d.tab.N))
	for _, s := range d.tab.Slots {
		if s.Count != 0 {
			h.offer(k, strategies.Trend{Key: s.Key, Score: s.Count})
		}
	}
	return h.scores(d.clock.decay(now))
}

// check validates the table's invariants and that every stored sum is
// finite and positive.
func (d *DecayExact) check() error {
	if err := d.tab.Check(); err != nil {
		return fmt.Errorf("decay: %w", err)
	}
	return nil
}

// trendHeap is a bounded min-heap of Trends by score (ties: the larger key
// is worse), whose root is the worst kept.
type trendHeap []strategies.Trend

func worseTrend(a, b *strategies.Trend) bool {
	return a.Score < b.Score || a.Score == b.Score && a.Key > b.Key
}

// offer keeps t if it is among the k best offered so far. O(log k). It is
// ds.KeepBest written out with worseTrend called by name: through KeepBest's
// function value every trend offered escaped to the heap, an allocation a
// key at every query.
func (h *trendHeap) offer(k int, t strategies.Trend) {
	s := *h
	switch {
	case len(s) < k:
		s = append(s, t)
		for j := len(s) - 1; j > 0; {
			p := (j - 1) / 2
			if !worseTrend(&s[j], &s[p]) {
				break
			}
			s[j], s[p] = s[p], s[j]
			j = p
		}
	case len(s) > 0 && worseTrend(&s[0], &t):
		s[0] = t
		for j := 0; ; {
			c := 2*j + 1
			if c >= len(s) {
				break
			}
			if r := c + 1; r < len(s) && worseTrend(&s[r], &s[c]) {
				c = r
			}
			if !worseTrend(&s[c], &s[j]) {
				break
			}
			s[j], s[c] = s[c], s[j]
			j = c
		}
	}
	*h = s
}

// scores turns the stored sums kept into scores (scaleSum with m, n) and
// sorts them in answer order: score descending, then key ascending.
func (h trendHeap) scores(m float64, n int) []strategies.Trend {
	out := []strategies.Trend(h)
	for i := range out {
		out[i].Score = scaleSum(out[i].Score, m, n)
	}
	slices.SortFunc(out, func(a, b strategies.Trend) int {
		switch {
		case worseTrend(&b, &a):
			return -1
		case worseTrend(&a, &b):
			return 1
		}
		return 0
	})
	return out
}

// rescaleDecay multiplies every sum of t by 2^e (e < 0: a landmark move)
// and deletes the keys whose sum underflows to 0 (slotTable.DeleteAt).
// O(slots); it never moves the slots array.
func rescaleDecay(t *ds.DecayTable, e int) {
	const gone = -1 // a sum that underflowed: still occupied until deleted
	dead := 0
	for i := range t.Slots {
		if s := &t.Slots[i]; s.Count != 0 {
			if s.Count = math.Ldexp(s.Count, e); s.Count == 0 {
				s.Count = gone
				dead++
			}
		}
	}
	// Delete the dead slots by backward shift. A shift moves keys only into
	// the hole behind them, so rescanning the hole finds a dead key moved
	// into it; a pass that wraps past the end is caught by the next pass.
	for dead > 0 {
		for i := uint64(0); i <= t.Mask && dead > 0; {
			if t.Slots[i].Count == gone {
				t.DeleteAt(i)
				dead--
				continue
			}
			i++
		}
	}
}

func init() {
	strategies.Define("decay", "exponentially decayed counts with a half-life, by forward decay (Cormode et al.): every key exactly, or a Space-Saving of m decayed counters",
		func(p *DecayParams, env strategies.Env) (strategies.Strategy, error) {
			if p.Counters > 0 {
				return NewDecaySpaceSaving(p.HalfLife, p.Counters, env.Seed)
			}
			return NewDecayExact(p.HalfLife, env.Keys, env.Seed)
		},
		decayPlan, strategies.Answers(strategies.FamilyTrending))
}

// decayPlan gives the seed's example with the design's own half-life — A,
// 1,000 searches 60 minutes ago and none since, and B, 300 searches one
// minute ago — the keys tracked and the bytes.
func decayPlan(p *DecayParams, env strategies.Env) []strategies.PlanLine {
	h := float64(p.HalfLife)
	hl := p.HalfLife.String()
	lines := []strategies.PlanLine{
		{Metric: metrics.DecayExampleA, Value: strategies.Tidy(1000 * math.Exp2(-float64(time.Hour)/h)), Unit: "searches",
			Note: "1,000 searches 60 min ago, none since: 1,000 · 2^(−60 min/h), h = " + hl},
		{Metric: metrics.DecayExampleB, Value: strategies.Tidy(300 * math.Exp2(-float64(time.Minute)/h)), Unit: "searches",
			Note: "300 searches 1 min ago: 300 · 2^(−1 min/h), h = " + hl},
	}
	if p.Counters > 0 {
		return append(lines,
			strategies.PlanLine{Metric: metrics.KeysTracked, Value: float64(p.Counters), Unit: "keys", Note: "m counters"},
			strategies.PlanLine{Metric: metrics.Bytes, Value: float64(decaySpaceSavingBytes(p.Counters)), Unit: "B",
				Note: "m·(32 B counter + 4 B heap place) + key index of 12 B × the power of two ≥ 2m"})
	}
	return append(lines,
		strategies.PlanLine{Metric: metrics.KeysTracked, Value: float64(env.Keys), Unit: "keys", Note: "every key of the stream"},
		strategies.PlanLine{Metric: metrics.Bytes, Value: float64(int64(ds.TableLen(env.Keys))*ds.ExactSlotBytes + decayPartBytes), Unit: "B",
			Note: "16 B × the power of two ≥ 4/3 of the keys, and 2 KB of weights"})
}

// TrendScore is key's decayed score at now.
func (d *DecayExact) TrendScore(key uint64, now int64) float64 { return d.Score(key, now) }

var _ strategies.TrendScorer = (*DecayExact)(nil)
