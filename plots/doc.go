// Package plots draws the charts of a countsim report from metrics series.
//
// [Draw] groups []metrics.Series by (Scenario, Step, Name) and writes one
// chart per group, drawn on every core and returned in the groups' order
// (names sorted as a person reads them: width-300 before width-1000), DIR/<scenario>-<step>-<name>.svg and .png
// (DIR/<scenario>-<name>.* outside steps), titled "scenario / step — what
// it shows" so that a chart taken out of the report keeps its context. A
// chart holds one histogram, line or bar set per strategy in the order the
// series come, and each Mark (a bound, a limit) as a dashed reference line
// named in the legend; series of one group with different Panels are one
// figure of a panel each, on the same axes' ranges. [Chart] builds the
// *plot.Plot of a group of one panel without writing it, so tests can check
// the data fed to it.
//
// A chart shows what its data hold: a curve over a geometric sweep (30,
// 100 … 3,000) is on a log X axis and its points in the order of X; a log axis keeps a slot for zeros
// before its log range (a histogram's zeros are a bar of their own there),
// a linear value axis holds 0, and a chart with nothing to compare (every
// bar or point of one value) is refused. Bad data never panics: empty
// series, NaN and ±Inf, and values < 0 on a log axis are dropped (and
// counted in the legend) or refused with an error. Files are written
// atomically and never over an existing file.
//
// Chart and Draw hold no shared state and are safe for concurrent use on
// different series and directories; one *plot.Plot must not be drawn by two
// goroutines at once (gonum/plot settles its axes while drawing). Fonts are the Liberation fonts embedded
// in gonum.org/v1/plot; no system font is needed for a PNG, and [Font] is
// the one an SVG names, for a page that inlines the SVGs to embed. gonum/plot is imported by
// this package only; the report layout is in cmd/countsim.
package plots
