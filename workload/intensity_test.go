package workload

import (
	"math"
	"testing"
)

// intensityCases are phase lists with every kind of segment: ramps up and
// down to 0, constant phases, a silence, and a single phase.
func intensityCases() map[string][]Phase {
	return map[string][]Phase{
		"match":    matchPhases(),
		"constant": {{Duration: 1e9, Rate: 1000, To: 1000}},
		"ramps":    {{Duration: 3e8, Rate: 0, To: 5000}, {Duration: 7e8, Rate: 5000, To: 0}},
		"silence":  {{Duration: 2e8, Rate: 300, To: 300}, {Duration: 5e8, Rate: 0, To: 0}, {Duration: 3e8, Rate: 10, To: 90}},
	}
}

func mustIntensity(t *testing.T, phases []Phase) *intensity {
	t.Helper()
	in := newIntensity(phases)
	if err := in.check(); err != nil {
		t.Fatal(err)
	}
	return &in
}

// TestIntensityCheck shows that check catches a broken intensity.
func TestIntensityCheck(t *testing.T) {
	for name, edit := range map[string]func(in *intensity){
		"gap":      func(in *intensity) { in.segs[2].start++ },
		"Λ jumps":  func(in *intensity) { in.segs[3].cum += 1 },
		"Λ falls":  func(in *intensity) { in.segs[1].cumEnd = in.segs[1].cum - 1 },
		"rate < 0": func(in *intensity) { in.segs[4].beta *= 2 },
		"end":      func(in *intensity) { in.end-- },
		"total":    func(in *intensity) { in.total++ },
	} {
		in := mustIntensity(t, matchPhases())
		edit(in)
		if err := in.check(); err == nil {
			t.Errorf("%s: check() = nil, want an error", name)
		}
	}
}

// TestIntensityInverse checks Λ against the trapezoids of the phases, and
// timeOf(y) = ⌊Λ⁻¹(y)⌋ by Λ(timeOf(y)) ≤ y < Λ(timeOf(y) + 1), to within
// the rounding of Λ (10^−9 relative is far above it).
func TestIntensityInverse(t *testing.T) {
	for name, phases := range intensityCases() {
		t.Run(name, func(t *testing.T) {
			in := mustIntensity(t, phases)
			tol := 1e-9 * max(in.total, 1)
			for x := int64(-1); x <= in.end+1; x += in.end / 997 {
				if got, want := in.cumAt(x), testCum(phases, float64(min(max(x, 0), in.end))); math.Abs(got-want) > tol {
					t.Fatalf("Λ(%d): got %v, want %v", x, got, want)
				}
			}
			hint := 0
			for i := range 10_000 {
				y := in.total * float64(i) / 10_000
				at := in.timeOf(y, &hint)
				if at < 0 || at >= in.end {
					t.Fatalf("timeOf(%v): got %d, want in [0, %d)", y, at, in.end)
				}
				if lo, hi := in.cumAt(at), in.cumAt(at+1); lo > y+tol || hi <= y-tol {
					t.Fatalf("timeOf(%v) = %d: Λ there %v and %v ns later, want them around y", y, at, lo, hi)
				}
			}
			if got := in.timeOf(in.total, &hint); got != in.end {
				t.Errorf("timeOf(total): got %d, want end %d", got, in.end)
			}
		})
	}
}

// TestIntensityFirst checks first(x) against its definition: the smallest
// k ≥ 1 with timeOf(k − ½) ≥ x.
func TestIntensityFirst(t *testing.T) {
	for name, phases := range intensityCases() {
		t.Run(name, func(t *testing.T) {
			in := mustIntensity(t, phases)
			hint := 0
			for _, x := range append([]int64{0, 1, in.end - 1, in.end}, steps(in.end, 1009)...) {
				k := in.first(x)
				if k < 1 || in.timeOf(float64(k)-0.5, &hint) < x {
					t.Fatalf("first(%d) = %d: event k at %d, want k >= 1 at or after x", x, k, in.timeOf(float64(k)-0.5, &hint))
				}
				if k > 1 && in.timeOf(float64(k-1)-0.5, &hint) >= x {
					t.Fatalf("first(%d) = %d: event k − 1 at %d, want before x", x, k, in.timeOf(float64(k-1)-0.5, &hint))
				}
			}
			if got, want := in.first(in.end)-1, int64(math.Round(in.total)); got != want {
				t.Errorf("events before the end: got %d, want Λ(end) = %v rounded", got, in.total)
			}
		})
	}
}

// steps returns n points evenly spread over [0, end).
func steps(end int64, n int) []int64 {
	xs := make([]int64, n)
	for i := range xs {
		xs[i] = end / int64(n) * int64(i)
	}
	return xs
}
