// Package size inverts the designs' plans: given a scenario's goals
// (scenarios.Goals, `goals:` — expectations such as
// `max_overestimate <= 0.0001 * N` with a confidence), it finds for each
// design of the scenario the smallest value of its size parameter (a
// count-min's width and depth, a summary's counters, a counter's stripes,
// an HLL's precision, a batching server's flush interval, the shards of an
// exact table) that meets every goal, and verifies it by trials on the
// scenario's own workload.
//
// The central function is [Size]: for each design it starts from the
// closed form where the design has one (its plan inverted: w = ⌈e·N/T⌉ and
// d = ⌈ln 1/δ⌉ for count-min, m = ⌈N/T⌉ for Space-Saving, K = ⌈peak/X⌉
// for stripes, p from (z·1.04/t)² for HLL), runs the design alone over
// the goals' trials (engine.Setup.RunEach, the seeds a run's trials take)
// and judges each goal: a per-key bound by the exact binomial test over
// keys and trials at the scenario's false-alarm level, a whole-answer goal
// only if it held in every trial, with the Clopper–Pearson upper bound on
// its failure rate. Where the closed form is missing or fails, it searches:
// geometric growth, then bisection, within a budget of trial runs.
//
// The package runs scenarios through sim/engine alone; the kinds of run
// register themselves in package sim, which a caller must link (the CLI
// does). Nothing here prints. Results depend only on the scenario and its
// seed.
package size
