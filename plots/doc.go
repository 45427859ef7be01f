// Package plots draws the charts of a countsim report from metrics series.
//
// [Draw] groups []metrics.Series by (Scenario, Name) and writes one chart per
// group, DIR/<scenario>-<name>.svg and .png, with one histogram, line or bar
// set per strategy in the order the series come, and each Mark (a bound, a
// limit) as a dashed reference line named in the legend. [Chart] builds the
// *plot.Plot of one group without writing it, so tests can check the data
// fed to it.
//
// Bad data never panics: empty series, NaN and ±Inf, and values ≤ 0 on a
// log axis are dropped (and counted in the legend) or refused with an
// error. Files are written atomically and never over an existing file.
//
// Chart and Draw hold no shared state and are safe for concurrent use on
// different series and directories; one *plot.Plot must not be drawn by two
// goroutines at once (gonum/plot settles its axes while drawing). Fonts are the Liberation fonts embedded
// in gonum.org/v1/plot; no system font is needed. gonum/plot is imported by
// this package only; the report layout is in cmd/countsim.
package plots
