package strategies

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrNeedsCluster is returned when a design that lives on servers is built
// without a store: "striped needs a cluster (add cluster: to the scenario)".
var ErrNeedsCluster = errors.New("needs a cluster (add cluster: to the scenario)")

// NeedsCluster is the error of a design built without a store.
func NeedsCluster(typeName string) error { return fmt.Errorf("%s %w", typeName, ErrNeedsCluster) }

// Num formats a plan number for a note: whole numbers with thousands
// separators (200,000), others to one decimal from 10 up (28.6) and to
// three significant digits below (0.625).
func Num(x float64) string {
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, math.Abs(r)) && math.Abs(r) < 1e15 {
		s := strconv.FormatInt(int64(math.Abs(r)), 10)
		var b strings.Builder
		if r < 0 {
			b.WriteByte('-')
		}
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	if math.Abs(x) >= 10 {
		whole := math.Trunc(x)
		return Num(whole) + strconv.FormatFloat(math.Abs(x-whole), 'f', 1, 64)[1:]
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// Pct formats a share as a percentage: 0.625 → "62.5%".
func Pct(x float64) string { return Num(100*x) + "%" }

// AtBothScales returns the lines f works out from the figures as
// simulated, then those it works out from the full-scale figures, marked
// Full. The hot-counter plans take their rates from the figures (the peak
// on the hot key, the reads, a key's capacity): the simulated-scale lines,
// which the runner puts beside the measurements, come from what the
// scenario simulated, never from an assumption it did not simulate.
func AtBothScales(env Env, f func(a Assumptions) []PlanLine) []PlanLine {
	lines := f(env.Sim)
	for _, l := range f(env.Full) {
		l.Full = true
		lines = append(lines, l)
	}
	return lines
}

// Secs formats a duration in ns as seconds for a note.
func Secs(ns int64) string { return Num(float64(ns)/1e9) + " s" }

// CeilTidy is ⌈x⌉, except that x within a relative 1e-12 of an integer n
// gives n: ln(1/e^-5) computes as 5.000000000000001, and must give depth 5.
func CeilTidy(x float64) float64 {
	if r := math.Round(x); math.Abs(x-r) <= 1e-12*math.Max(1, math.Abs(r)) {
		return r
	}
	return math.Ceil(x)
}

// Tidy rounds x to an integer when it is within a relative 1e-12 of one, so
// that ε·N = 0.0001 · 1e7 reads 1,000, not 1,000.0000000000001.
func Tidy(x float64) float64 {
	if r := math.Round(x); math.Abs(x-r) <= 1e-12*math.Max(1, math.Abs(r)) {
		return r
	}
	return x
}

// Round5 rounds a probability to 5 decimals: 1 − e^-4 = 0.98168.
func Round5(x float64) float64 { return math.Round(x*1e5) / 1e5 }
