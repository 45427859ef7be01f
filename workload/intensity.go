package workload

// The piecewise intensity of a Timed stream: a rate(t) that is linear on
// each phase, and its integral Λ(t) = ∫_0^t rate, the expected number of
// events before t, which is piecewise quadratic.
//
// Λ⁻¹ on a ramp solves α·u + β·u²/2 = c by u = 2c / (α + √(α² + 2βc)), the
// form without cancellation (α the rate at the phase's start, β its slope).
// A time is that real number floored to whole ns, so an event at
// Λ⁻¹(y) ∈ [a, b) has At in [a, b) for whole a and b.

import (
	"fmt"
	"math"
)

// An intensity is a piecewise linear rate over [0, end) and its integral
// Λ, the expected number of events before a time.
type intensity struct {
	segs  []segment
	end   int64   // ns
	total float64 // Λ(end)
}

// A segment is one phase of an intensity.
type segment struct {
	start, dur     int64   // ns
	cum, cumEnd    float64 // Λ at the start and at the end
	alpha, beta    float64 // rate at the start in events/ns, slope in events/ns²
	alpha2, period float64 // α², and 1/α in ns when β = 0
}

// newIntensity returns the intensity of the phases laid end to end from
// time 0, in O(len(phases)).
func newIntensity(phases []Phase) intensity {
	in := intensity{segs: make([]segment, len(phases))}
	for p, ph := range phases {
		dur := float64(ph.Duration)
		sg := segment{
			start: in.end,
			dur:   ph.Duration,
			cum:   in.total,
			alpha: ph.Rate / 1e9,
			beta:  (ph.To - ph.Rate) / 1e9 / dur,
		}
		sg.alpha2 = float64(sg.alpha * sg.alpha)
		if sg.beta == 0 && sg.alpha > 0 {
			sg.period = 1e9 / ph.Rate
		}
		sg.cumEnd = sg.cum + sg.area(dur)
		in.segs[p] = sg
		in.end += ph.Duration
		in.total = sg.cumEnd
	}
	return in
}

// check validates the invariants that Λ, Λ⁻¹ and first rely on: the
// segments tile [0, end) in order, Λ starts at 0, never decreases within or
// across segments, and ends at total; the rates are ≥ 0 at both ends of
// every segment.
func (in *intensity) check() error {
	var at int64
	var cum float64
	for p, sg := range in.segs {
		switch {
		case sg.start != at || sg.dur <= 0:
			return fmt.Errorf("segment %d: [%d, +%d) does not follow %d", p, sg.start, sg.dur, at)
		case sg.cum != cum || sg.cumEnd < sg.cum:
			return fmt.Errorf("segment %d: Λ from %v to %v after %v", p, sg.cum, sg.cumEnd, cum)
		case sg.alpha < 0 || sg.alpha+sg.beta*float64(sg.dur) < -1e-12*sg.alpha:
			return fmt.Errorf("segment %d: rate from %v to %v events/ns", p, sg.alpha, sg.alpha+sg.beta*float64(sg.dur))
		}
		at, cum = sg.start+sg.dur, sg.cumEnd
	}
	if at != in.end || cum != in.total {
		return fmt.Errorf("segments end at %d with Λ %v, want %d and %v", at, cum, in.end, in.total)
	}
	return nil
}

// area returns ∫_0^u of the segment's rate: α·u + β·u²/2. The float64
// conversions forbid fused multiply-adds, as in zipf.go, so every machine
// rounds alike.
func (sg *segment) area(u float64) float64 {
	return float64(u * float64(sg.alpha+float64(0.5*sg.beta*u)))
}

// inv returns the u ≥ 0 with area(u) = c, for 0 ≤ c ≤ area(dur):
// c/α on a constant segment, 2c/(α + √(α² + 2βc)) on a ramp.
func (sg *segment) inv(c float64) float64 {
	if c <= 0 {
		return 0
	}
	if sg.beta == 0 {
		return float64(c * sg.period)
	}
	disc := sg.alpha2 + float64(2*sg.beta*c)
	if disc < 0 {
		disc = 0 // rounding at the very end of a ramp down to 0
	}
	return 2 * c / (sg.alpha + math.Sqrt(disc))
}

// segAtTime returns the segment holding time x in [0, end).
func (in *intensity) segAtTime(x int64) int {
	lo, hi := 0, len(in.segs)-1
	for lo < hi { // the last segment with start ≤ x
		mid := int(uint(lo+hi+1) >> 1)
		if in.segs[mid].start <= x {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// segAtY returns the segment with cum ≤ y < cumEnd (segments where the rate
// is 0 throughout hold no y), or len(segs) when y ≥ total.
func (in *intensity) segAtY(y float64) int {
	lo, hi := 0, len(in.segs)
	for lo < hi { // the first segment with cumEnd > y
		mid := int(uint(lo+hi) >> 1)
		if in.segs[mid].cumEnd > y {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// cumAt returns Λ(x), clamped to [0, total] outside [0, end].
func (in *intensity) cumAt(x int64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= in.end {
		return in.total
	}
	sg := &in.segs[in.segAtTime(x)]
	return sg.cum + sg.area(float64(x-sg.start))
}

// timeOf returns ⌊Λ⁻¹(y)⌋ in ns, or end when y ≥ total. *hint is a segment
// index to try first (consecutive calls mostly stay in one segment); timeOf
// updates it.
func (in *intensity) timeOf(y float64, hint *int) int64 {
	p := *hint
	if p >= len(in.segs) || !(in.segs[p].cum <= y && y < in.segs[p].cumEnd) {
		p = in.segAtY(y)
		*hint = p
		if p == len(in.segs) {
			return in.end
		}
	}
	sg := &in.segs[p]
	u := sg.inv(y - sg.cum)
	if !(u < float64(sg.dur)) {
		return sg.start + sg.dur
	}
	return sg.start + int64(u)
}

// first returns the smallest k ≥ 1 whose Even time ⌊Λ⁻¹(k − ½)⌋ is ≥ x,
// for x in [0, end]: events k < first(x) happen before x. It starts from
// the exact answer ⌈Λ(x) + ½⌉ and corrects it against timeOf, so that a
// chunk's events are exactly those whose computed time falls in its window
// and consecutive windows share their boundary's first.
func (in *intensity) first(x int64) int64 {
	k := max(int64(math.Ceil(in.cumAt(x)+0.5)), 1)
	hint := 0
	for k > 1 && in.timeOf(float64(k-1)-0.5, &hint) >= x {
		k--
	}
	for in.timeOf(float64(k)-0.5, &hint) < x {
		k++
	}
	return k
}
