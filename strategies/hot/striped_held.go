package hot

import (
	"cmp"
	"math"
	"slices"

	"countsim/workload"
)

// The stripes a growing counter holds: the law of the most K a striped
// counter with grow_above reaches for one post of a posts run, whose likes
// are a Poisson process of the post's rate (workload.Posts), second by
// second (striped.go's controller).
//
// The controller, seen a second at a time. In second s the key's writes
// are Poisson of m_s = ∫ rate over the second, spread over its K stripes;
// the busiest stripe's count B decides the next K: 2K (at most max_stripes)
// if B > grow_above, K/2 (at least stripes) if B < shrink_below, else K; a
// second without a write has B = 0. With random or hash selection each
// stripe's count is Poisson(m_s/K), independent of the others' (a Poisson
// process thinned), so P(B ≤ b) = F(b; m_s/K)^K; with round-robin or
// least-loaded the counts differ by at most one, B = ⌈n/K⌉ for the second's
// n writes, so P(B ≤ b) = F(bK; m_s), F the Poisson distribution function.
// The key's state starts at its first write with its first K, and a
// decision is applied at the key's next write, which must come before the
// run ends: the chain below is a Markov chain over (K, the most K so far)
// second by second, from the post's creation, a grow counted only with the
// chance that a write follows within the run.
//
// What it leaves out, negligible once grow_above is a few tens: a grow
// applied together with idle halvings (the design records its top after
// them; it takes a second without a write right after one of more than
// grow_above writes, which a rate that decays by the half-life allows
// with a chance of the order of e^-grow_above), and that a grow's
// application conditions the seconds after it on a write. States of
// probability below 10^-18 are dropped, and the chain stops once no second
// left can hold more than grow_above writes with probability 10^-15 over
// all of them (Chernoff's bound on the Poisson tail at the post's highest
// rate to come).
//
// The mean's view (Sharded.StripesFor) doubles the first K while the peak
// rate over K is above grow_above: the chain's law when every count is its
// mean and every second whole. The chain adds what the Poisson counts add
// near a threshold (a post at 690 likes a second on one stripe grows with
// grow_above 700 with probability 0.74 in viral-posts) and what a first,
// partial second does (a post created late in a second with 3 stripes
// under shrink_below each halves to 1 at its next second, then doubles
// back, to 4).

// growthRule is what the law reads of a striped counter's parameters.
type growthRule struct {
	base, max              int
	sel                    StripeSelect
	growAbove, shrinkBelow float64
	predict                *predictRule
}

// growthRule is the parameters' rule of growth.
func (p StripedParams) growthRule() growthRule {
	r := growthRule{base: p.Stripes, max: p.Stripes, sel: p.Select, growAbove: p.GrowAbove, shrinkBelow: p.ShrinkBelow, predict: p.predictRule()}
	if p.GrowAbove > 0 || r.predict != nil {
		r.max = p.maxStripes()
	}
	return r
}

// rule is the counter's rule of growth, as its parameters gave it.
func (s *Striped) rule() growthRule {
	return growthRule{base: s.base, max: s.max, sel: s.sel, growAbove: s.growAbove, shrinkBelow: s.shrinkBelow, predict: s.predict}
}

// first is the K a key of actor starts with (Striped.FirstStripes).
func (r growthRule) first(actor uint64) int {
	if r.predict == nil {
		return r.base
	}
	return r.predict.stripes(actor, r.base, r.max)
}

// meanView is the most K in the mean's view for a first K and a peak rate
// (Striped.StripesFor).
func (r growthRule) meanView(k int, peak float64) int {
	for r.growAbove > 0 && peak/float64(k) > r.growAbove && k < r.max {
		k = min(2*k, r.max)
	}
	return k
}

// Held is the law of the most stripes a counter holds: its mean, and each
// value it takes with its probability, by stripes ascending (they sum to 1
// but for the states dropped, below 10^-18 each).
type Held struct {
	Mean     float64
	Outcomes []HeldOutcome
}

// HeldOutcome is one value of the most K and its probability.
type HeldOutcome struct {
	Stripes int
	P       float64
}

// heldLaw is the law of the most stripes the counter gives post j of
// posts. O(seconds × states) while a grow is possible, O(1) a post that
// never comes near grow_above.
func (r growthRule) heldLaw(posts *workload.Posts, j int) Held {
	p := posts.Post(j)
	first := r.first(p.Actor())
	if r.growAbove <= 0 {
		return Held{Mean: float64(first), Outcomes: []HeldOutcome{{first, 1}}}
	}
	g := int64(math.Floor(r.growAbove))  // B > grow_above ⟺ B ≥ g + 1
	b := int64(math.Ceil(r.shrinkBelow)) // B < shrink_below ⟺ B ≤ b − 1
	shrink := r.shrinkBelow > 0
	dur := posts.Config().Duration
	const second = int64(1e9)
	lastSec := (dur - 1) / second // the run's last second
	end := min(p.End, dur)

	type state struct {
		k, top int
		p      float64
	}
	var states, next []state
	add := func(k, top int, pr float64) {
		if pr < 1e-18 {
			return
		}
		for i := range next {
			if next[i].k == k && next[i].top == top {
				next[i].p += pr
				return
			}
		}
		next = append(next, state{k, top, pr})
	}
	even := r.sel == SelectRoundRobin || r.sel == SelectLeastLoaded
	// atMost is P(B ≤ c) and above P(B ≥ c) for K stripes and a second of
	// mean m, each worked out from its own tail.
	atMost := func(c int64, k int, m float64) float64 {
		if c < 0 {
			return 0
		}
		if even {
			return poissonCDF(c*int64(k), m)
		}
		return math.Pow(poissonCDF(c, m/float64(k)), float64(k))
	}
	above := func(c int64, k int, m float64) float64 {
		if even {
			return poissonTail((c-1)*int64(k)+1, m)
		}
		return -math.Expm1(float64(k) * math.Log1p(-poissonTail(c, m/float64(k))))
	}
	pending := 1.0 // no write yet: the key has no state
	for sec := p.Created / second; sec*second < end; sec++ {
		a := sec * second
		// Nothing ahead can grow K: stop. The most writes a second can
		// hold from here on is the highest rate to come × 1 s.
		peak := posts.RateAt(j, max(a, p.Created))
		if p.Viral && p.ViralAt >= a && p.ViralAt < dur {
			peak = max(peak, p.ViralRate)
		}
		left := float64((end-a)/second + 1)
		if left*poissonTailBound(g+1, peak) < 1e-15 {
			break
		}
		m := posts.Mass(j, a, a+second)
		// A decision from this second is applied only at a later write
		// within the run.
		applied := 0.0
		if sec < lastSec {
			applied = -math.Expm1(-posts.Mass(j, a+second, dur))
		}
		next = next[:0]
		step := func(k, top int, pr float64, first bool) {
			pg := above(g+1, k, m) // B ≥ g + 1
			ps := 0.0
			if shrink {
				ps = atMost(b-1, k, m) // B ≤ b − 1, an idle second included
			}
			stay := 1 - pg - ps
			if first { // the state starts at this second's first write
				none := math.Exp(-m)
				if shrink {
					ps -= none
				} else {
					stay -= none
				}
			}
			if nk := min(2*k, r.max); nk > k {
				add(nk, max(top, nk), pr*pg*applied)
				stay += pg * (1 - applied)
			} else {
				stay += pg
			}
			if nk := max(k/2, r.base); nk < k {
				add(nk, top, pr*ps)
			} else {
				stay += ps
			}
			add(k, top, pr*max(stay, 0))
		}
		for _, st := range states {
			step(st.k, st.top, st.p, false)
		}
		if pending > 0 {
			step(first, first, pending, true)
			pending *= math.Exp(-m)
		}
		states, next = next, states
	}
	// The most K's law: its states' tops, and the first K with what is
	// left (a post never written, or none whose grow was possible).
	var total float64
	for _, st := range states {
		total += st.p
	}
	if rest := 1 - total; rest > 0 {
		states = append(states, state{first, first, rest})
	}
	var h Held
	for _, st := range states {
		h.Mean += st.p * float64(st.top)
		i, found := slices.BinarySearchFunc(h.Outcomes, st.top, func(o HeldOutcome, k int) int { return cmp.Compare(o.Stripes, k) })
		if !found {
			h.Outcomes = slices.Insert(h.Outcomes, i, HeldOutcome{Stripes: st.top})
		}
		h.Outcomes[i].P += st.p
	}
	return h
}

// HeldLaw is the law of the most stripes the counter gives post j of posts
// (striped_held.go). A runner's test holds the stripes its posts held to
// it.
func (s *Striped) HeldLaw(posts *workload.Posts, j int) Held {
	return s.rule().heldLaw(posts, j)
}

// poissonTail is P(X ≥ c) for X Poisson(mu): P(c, mu), the regularized
// lower incomplete gamma function, from the side that computes it directly.
func poissonTail(c int64, mu float64) float64 {
	switch {
	case c <= 0:
		return 1
	case mu <= 0:
		return 0
	}
	a := float64(c)
	if mu < a+1 {
		return gammaSeries(a, mu)
	}
	return 1 - gammaFraction(a, mu)
}

// poissonTailBound is Chernoff's bound on P(X ≥ c) for X Poisson(mu):
// e^(−mu)·(e·mu/c)^c when c > mu, else 1.
func poissonTailBound(c int64, mu float64) float64 {
	x := float64(c)
	if x <= mu {
		return 1
	}
	if mu <= 0 {
		return 0
	}
	return math.Exp(-mu + x*(1+math.Log(mu/x)))
}

// poissonCDF is P(X ≤ c) for X Poisson(mu), c ≥ 0: Q(c+1, mu), the
// regularized upper incomplete gamma function, by its series where mu <
// c + 2 and its continued fraction elsewhere (Numerical Recipes, 3rd ed.,
// §6.2), each side computing its own small tail directly: 1e-15 relative.
func poissonCDF(c int64, mu float64) float64 {
	switch {
	case c < 0:
		return 0
	case mu <= 0:
		return 1
	}
	a := float64(c) + 1
	if mu < a+1 {
		return 1 - gammaSeries(a, mu)
	}
	return gammaFraction(a, mu)
}

// gammaSeries is P(a, x), the regularized lower incomplete gamma, by its
// series: e^(−x)·x^a/Γ(a+1)·Σ x^n/((a+1)…(a+n)), for x < a + 1.
func gammaSeries(a, x float64) float64 {
	lg, _ := math.Lgamma(a + 1)
	term, sum := 1.0, 1.0
	for n := 1.0; n < 1e7; n++ {
		term *= x / (a + n)
		sum += term
		if term < sum*1e-17 {
			break
		}
	}
	return min(1, sum*math.Exp(-x+a*math.Log(x)-lg))
}

// gammaFraction is Q(a, x), the regularized upper incomplete gamma, by
// Lentz's method on its continued fraction, for x ≥ a + 1.
func gammaFraction(a, x float64) float64 {
	const tiny = 1e-300
	lg, _ := math.Lgamma(a)
	bb := x + 1 - a
	c, d := 1/tiny, 1/bb
	h := d
	for i := 1.0; i < 1e7; i++ {
		an := -i * (i - a)
		bb += 2
		d = an*d + bb
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = bb + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return min(1, math.Exp(-x+a*math.Log(x)-lg)*h)
}
