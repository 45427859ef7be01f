package plots

// A symmetric log axis, for signed values over orders of magnitude: a
// curve's Y on a log axis that has values below 0 (a signed count error of
// −2,000 beside +65,000, which a linear axis flattens onto 0 and a log axis
// cannot hold). The axis is log10(1 + |y|) on each side of 0, linear
// within ±1 (Webber's bi-symmetric log, 2013; matplotlib's "symlog").

import (
	"math"

	"gonum.org/v1/plot"

	"countsim/metrics"
)

// symLog is the transform of the axis: sign(y)·log10(1 + |y|).
func symLog(y float64) float64 {
	return math.Copysign(math.Log10(1+math.Abs(y)), y)
}

// symLogScale normalises by symLog.
type symLogScale struct{}

var _ plot.Normalizer = symLogScale{}

func (symLogScale) Normalize(min, max, x float64) float64 {
	lo, hi := symLog(min), symLog(max)
	return (symLog(x) - lo) / (hi - lo)
}

// symLogTicks labels 0 and ±1, ±10, ±100… in the range, with unlabelled
// ticks at 2 to 9 times each power.
type symLogTicks struct{}

func (symLogTicks) Ticks(min, max float64) []plot.Tick {
	var ts []plot.Tick
	in := func(v float64) bool { return v >= min && v <= max }
	if in(0) {
		ts = append(ts, plot.Tick{Value: 0, Label: "0"})
	}
	top := math.Ceil(math.Log10(math.Max(math.Abs(min), math.Abs(max)) + 1))
	for k := 0.0; k <= top; k++ {
		p := math.Pow(10, k)
		for _, sign := range []float64{-1, 1} {
			if v := sign * p; in(v) {
				ts = append(ts, plot.Tick{Value: v, Label: metrics.Format(v)})
			}
			for m := 2.0; m <= 9; m++ {
				if v := sign * m * p; in(v) {
					ts = append(ts, plot.Tick{Value: v})
				}
			}
		}
	}
	return ts
}
