package hot

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// A striped counter's K predicted when its key is created, after the
// sharded-counter seed (004): a post's counter takes its number of shards
// from its author's followers_count — the more followers, the more likes
// a second to expect — so that a celebrity's post starts with enough
// stripes and a small account's with one, instead of every counter paying
// for the largest. The event carries the followers in its Actor (the
// posts workload), read at the key's first event. Two rules:
//
//   - a table, "F1:K1,F2:K2,…": an author with at least Fi followers gets
//     Ki stripes (the largest Fi not above the followers; below F1,
//     stripes); both columns must increase;
//   - per_followers: N, K = ⌈followers / N⌉, for K ∝ followers.
//
// The seed's second predictor is the post's type: a protected post is
// liked by its followers only, so with protected_factor c its followers
// count as c·followers in either rule (the events mark a protected post
// with workload.ProtectedBit in the Actor).
//
// The prediction is clamped to stripes..max_stripes (1024 by default). It
// is a start, not a floor: with grow_above and shrink_below K then follows
// the load, which rescues the small account whose post goes viral.

// predictRule maps an author's followers to a counter's first K.
type predictRule struct {
	at        []uint64 // followers thresholds, increasing
	k         []int    // the K from each threshold on, increasing
	per       float64  // > 0: K = ⌈followers / per⌉ instead of the table
	protected float64  // a protected post's followers count × this, in (0, 1]
}

// PredictTable is the table rule of a counter's first K: an author with at
// least At[i] followers gets K[i] stripes (the largest At[i] not above the
// followers; below At[0], stripes), both columns increasing, K in
// 1..65536. Its text is "F1:K1,F2:K2,…"; the zero value is no table.
type PredictTable struct {
	At []uint64 // followers thresholds, increasing
	K  []int    // the K from each threshold on, increasing
}

// UnmarshalText reads a table, "F1:K1,F2:K2,…".
func (t *PredictTable) UnmarshalText(text []byte) error {
	var r PredictTable
	for i, pair := range strings.Split(string(text), ",") {
		f, k, ok := strings.Cut(strings.TrimSpace(pair), ":")
		fv, ferr := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		kv, kerr := strconv.Atoi(strings.TrimSpace(k))
		if !ok || ferr != nil || kerr != nil {
			return fmt.Errorf("pair %d %q is not FOLLOWERS:K", i+1, pair)
		}
		r.At, r.K = append(r.At, fv), append(r.K, kv)
	}
	if err := r.check(); err != nil {
		return err
	}
	*t = r
	return nil
}

// MarshalText writes the table as UnmarshalText reads it; a table not
// increasing, or with a K out of range, is an error.
func (t PredictTable) MarshalText() ([]byte, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	var b strings.Builder
	for i := range t.At {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d:%d", t.At[i], t.K[i])
	}
	return []byte(b.String()), nil
}

// check: as many K as thresholds, K in 1..65536, both columns increasing.
func (t PredictTable) check() error {
	if len(t.At) != len(t.K) {
		return fmt.Errorf("%d followers thresholds and %d K", len(t.At), len(t.K))
	}
	for i := range t.At {
		switch {
		case t.K[i] < 1 || t.K[i] > hotMaxStripes:
			return fmt.Errorf("pair %d: K %d not in 1..%d", i+1, t.K[i], hotMaxStripes)
		case i > 0 && t.At[i] <= t.At[i-1]:
			return fmt.Errorf("followers %d after %d: the rule is not increasing", t.At[i], t.At[i-1])
		case i > 0 && t.K[i] <= t.K[i-1]:
			return fmt.Errorf("K %d after %d: the rule is not increasing", t.K[i], t.K[i-1])
		}
	}
	return nil
}

// stripes is the K the rule predicts for a post of actor — its author's
// followers, with workload.ProtectedBit when it is protected (its
// followers then count × protected) — clamped to lo..hi.
func (r *predictRule) stripes(actor uint64, lo, hi int) int {
	f := float64(actor &^ workload.ProtectedBit)
	if actor&workload.ProtectedBit != 0 && r.protected > 0 {
		f *= r.protected
	}
	k := lo
	if r.per > 0 {
		k = r.perK(f)
	} else {
		for i, at := range r.at {
			if f >= float64(at) {
				k = r.k[i]
			}
		}
	}
	return min(max(k, lo), hi)
}

// perK is per_followers' K for f followers (as counted), before the clamp.
func (r *predictRule) perK(f float64) int {
	return int(min(math.Ceil(f/r.per), float64(hotMaxStripes)))
}

// String is the rule as a note says it.
func (r *predictRule) String() string {
	if r.per > 0 {
		return fmt.Sprintf("K = ⌈followers / %s⌉", strategies.Num(r.per))
	}
	var parts []string
	for i := range r.at {
		parts = append(parts, fmt.Sprintf("≥ %s followers: %d", strategies.Num(float64(r.at[i])), r.k[i]))
	}
	return strings.Join(parts, "; ")
}

// expected is E[K] of a counter's first K under a law of followers
// (atLeast(f) = P(F ≥ f)) with a share protected of the posts protected,
// clamped to lo..hi as stripes clamps it: (1 − protected)·E[K(F)] +
// protected·E[K(c·F)], c the rule's protected factor.
func (r *predictRule) expected(atLeast func(f uint64) float64, protected float64, lo, hi int) float64 {
	e := r.expectedScaled(atLeast, 1, lo, hi)
	if protected > 0 {
		e = (1-protected)*e + protected*r.expectedScaled(atLeast, r.protectedFactor(), lo, hi)
	}
	return e
}

// protectedFactor is what a protected post's followers count × (1 when
// not given).
func (r *predictRule) protectedFactor() float64 {
	if r.protected > 0 {
		return r.protected
	}
	return 1
}

// expectedScaled is E[K(c·F)]. K is non-decreasing in F, so E[K] = lo +
// Σ_{k=lo..hi−1} P(K > k): for a table, lo + Σ_i (K_i − K_{i−1})·P(c·F ≥
// F_i) over its clamped steps, P(F ≥ ⌈F_i/c⌉); for per_followers N, lo +
// Σ_k P(c·F > k·N), P(F ≥ ⌊k·N/c⌋ + 1) (F a whole number). Each bound on
// F is then moved to the least F at which stripes, in its float64
// arithmetic, steps (a step or two at most: 687 / 22.9 is
// 30.000000000000004, so 687 followers get 31 stripes at per_followers
// 22.9), so that the plan is the mean of the K the counters start with.
func (r *predictRule) expectedScaled(atLeast func(f uint64) float64, c float64, lo, hi int) float64 {
	e := float64(lo)
	// P(F ≥ x) for a real x, 0 beyond any uint64.
	from := func(x float64) float64 {
		if x >= math.MaxUint64 {
			return 0
		}
		return atLeast(uint64(max(x, 1)))
	}
	if r.per > 0 {
		for k := lo; k < hi; k++ {
			p := from(leastFollowers(math.Floor(float64(k)*r.per/c)+1, func(f float64) bool { return r.perK(f*c) > k }))
			if p == 0 {
				break
			}
			e += p
		}
		return e
	}
	prev := lo
	for i, at := range r.at {
		k := min(max(r.k[i], lo), hi)
		if k > prev {
			e += float64(k-prev) * from(leastFollowers(math.Ceil(float64(at)/c), func(f float64) bool { return f*c >= float64(at) }))
			prev = k
		}
	}
	return e
}

// leastFollowers returns the least whole number of followers f ≥ 1 for which
// steps(f) holds (steps is false then true as f grows), from a guess within
// a few of it. A guess of 2^53 or more is returned as it is: whole numbers
// there are not all float64 values (and no author has so many followers).
func leastFollowers(guess float64, steps func(f float64) bool) float64 {
	const exact = 1 << 53
	f := max(guess, 1)
	if f >= exact {
		return f
	}
	for i := 0; i < 4 && f > 1 && steps(f-1); i++ {
		f--
	}
	for i := 0; i < 4 && !steps(f); i++ {
		f++
	}
	return f
}

// FirstStripes is the K a key's counter starts with for a post of actor.
func (s *Striped) FirstStripes(actor uint64) int { return s.rule().first(actor) }

// Stripes returns the key's live K and the most it has had.
func (s *Striped) Stripes(key uint64) (live, held int) {
	if s.perKey {
		if slot := s.keys.Find(key, s.keySeed); slot >= 0 {
			return int(s.state[slot].k), int(s.state[slot].top)
		}
	}
	return 0, 0
}

// StripesFor is the most stripes a key of actor and of the peak rate
// gets.
func (s *Striped) StripesFor(actor uint64, peak float64) int {
	r := s.rule()
	return r.meanView(r.first(actor), peak)
}

// StripeKey is the store key of the key's stripe j.
func (s *Striped) StripeKey(key uint64, j int) uint64 { return stripeKey(key, j) }

// Grown is Σ over the keys seen of live K − first K.
func (s *Striped) Grown() int64 { return s.grown }

var _ strategies.Sharded = (*Striped)(nil)

// populationPlan: for a population of counters, the stripes they are
// created with — E[K] under the law of followers, per post and over the
// expected posts — where K stays as created; where K grows, the stripes
// they hold — Σ over the posts of E[the most K], each post's K a chain
// over its seconds under its own rate (striped_held.go) — and the seconds
// it takes a small account's viral post to reach the stripes its peak
// needs at a key's capacity.
func populationPlan(p *StripedParams, env strategies.Env) []strategies.PlanLine {
	pop := env.Population
	if pop == nil || pop.FollowersAtLeast == nil {
		return nil
	}
	lo, hi := p.Stripes, p.Stripes
	rule := p.predictRule()
	if rule != nil || p.GrowAbove > 0 {
		hi = p.maxStripes()
	}
	var lines []strategies.PlanLine
	if p.GrowAbove == 0 {
		ek, note := float64(lo), "K for every post"
		if rule != nil {
			ek = rule.expected(pop.FollowersAtLeast, pop.Protected, lo, hi)
			note = fmt.Sprintf("E[K(followers)] under the law of followers, K by %s, clamped to %d..%d", rule, lo, hi)
		}
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.StripesPerPost, Value: ek, Unit: "stripes", Note: note},
			strategies.PlanLine{Metric: metrics.StripesHeld, Value: pop.Counters * ek, Unit: "stripes",
				Note: fmt.Sprintf("posts × E[K] = %s × %.4g", strategies.Num(pop.Counters), ek)})
	}
	if p.GrowAbove > 0 && pop.Posts != nil && pop.Posts.Len() > 0 {
		lines = append(lines, grownPlan(p, pop)...)
	}
	if capa := env.Sim.KeyCapacity; p.GrowAbove > 0 && pop.ViralPeak > 0 && capa > 0 {
		need := int(strategies.CeilTidy(pop.ViralPeak / capa))
		k0 := lo
		if rule != nil {
			k0 = rule.stripes(1, lo, hi)
		}
		d := 0
		for k := k0; k < need && k < hi; k = min(2*k, hi) {
			d++
		}
		if min(k0<<d, hi) >= need && p.GrowAbove < capa {
			lines = append(lines, strategies.PlanLine{Metric: metrics.ViralRescue, Value: float64(d + 1), Unit: "s",
				Note: fmt.Sprintf("⌈log2(%d / %d)⌉ = %d doublings, one a second, + 1 s for the second K looks back on: a viral peak of %s/s needs ⌈%s / %s⌉ = %d stripes, from the %d of a 1-follower account",
					need, k0, d, strategies.Num(pop.ViralPeak), strategies.Num(pop.ViralPeak), strategies.Num(capa), need, k0)})
		}
	}
	return lines
}

// grownPlan: the stripes a population of growing counters holds, Σ over
// the posts (the run's table, or a sample of it) of E[the most K] under
// each post's rate, per post and in all, with the mean's view beside it.
func grownPlan(p *StripedParams, pop *strategies.Population) []strategies.PlanLine {
	r := p.growthRule()
	posts := pop.Posts
	n := posts.Len()
	var held, view float64
	for j := range n {
		held += r.heldLaw(posts, j).Mean
		view += float64(r.meanView(r.first(posts.Post(j).Actor()), posts.PeakRate(j)))
	}
	scale, over := pop.Scale, fmt.Sprintf("the %s posts of the table", strategies.Num(float64(n)))
	if scale <= 0 {
		scale = 1
	}
	if scale != 1 {
		over = fmt.Sprintf("a sample of %s posts drawn by the same law, × %.4g", strategies.Num(float64(n)), scale)
	}
	per := held / float64(n)
	return []strategies.PlanLine{
		{Metric: metrics.StripesPerPost, Value: per, Unit: "stripes",
			Note: fmt.Sprintf("E[the most K] a post over %s: its first K, doubled at a second whose busiest stripe took more than %s%s, each second's likes Poisson of its rate", over, strategies.Num(p.GrowAbove), shrinkNote(p))},
		{Metric: metrics.StripesHeld, Value: held * scale, Unit: "stripes",
			Note: fmt.Sprintf("Σ over %s of E[the most K] (a chain over each post's seconds, striped_held.go); the mean's view, the first K doubled while peak / K > %s, gives %s",
				over, strategies.Num(p.GrowAbove), strategies.Num(view*scale))},
	}
}

// shrinkNote says the shrink rule in a plan's note, or nothing.
func shrinkNote(p *StripedParams) string {
	if p.ShrinkBelow <= 0 {
		return ""
	}
	return fmt.Sprintf(" and halved at one whose busiest took fewer than %s", strategies.Num(p.ShrinkBelow))
}
