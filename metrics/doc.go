// Package metrics holds what a countsim run measured and writes it out.
//
// Every number is a [Result]: the scenario, the strategy (design) it belongs
// to, the [Metric], its value and unit, the plan (the closed-form value)
// where one exists, and whether it was read off the wall clock. The metric
// vocabulary is declared once, in metricnames.go (metrics.Bytes,
// metrics.MaxOverestimate, …): the designs' plans, the runner's scorers and
// the report's headlines name a figure by the same variable, and [All] and
// [Known] read the list the declarations build. A [Series] is
// the data behind a chart: a distribution, a curve or one bar per strategy,
// with reference marks such as a bound.
//
// The writers render a []Result as a markdown table, CSV or JSON in a fixed
// order, so the same results give the same bytes; [WriteFile] puts any
// file in place atomically, never over an existing one. Helpers compute the
// statistics the runner needs: quantiles (one type-7 implementation,
// [QuantileSorted]), a log-bucketed histogram ([Hist]), top-K recall and
// precision.
//
// metrics imports no package of countsim; plots draws from it.
package metrics
