// Package scenarios reads the YAML files that describe a countsim run: the
// real-world assumptions, the simulated stream, the questions asked and the
// designs to compare. Its loader is strict: an unknown key, a repeated key, a
// wrong type, 2.5 where an integer goes or a value out of range is refused
// with an [*Error] that names the file, the line, the key and what is allowed.
//
// [Scenario] is the central type: [Assumptions] (full-scale figures for the
// plan), [Workload] (the stream to simulate: a count of events, timed
// [Phase]s with reads and resends, or an [Audience] of viewers over days
// with exact overlaps) or instead a [Profile] (seeded trials at
// cardinalities on a log grid), [Questions], the simulated store [Cluster],
// the [Fault]s injected during a timed stream, and one [Strategy] per
// design, whose [Param] values stay raw (int64, float64, bool or string)
// because the design's registry decodes them. A scenario told in steps
// (the cricket final: a hot counter, then unique viewers) holds them in
// [Scenario.Steps], each step a Scenario of its own with the file's name,
// seed and assumptions. Every part carries a [Pos], so a later check can
// still point at the line ([Scenario.ParamPos]). [Load]
// reads a file, [Parse] reads bytes, [Builtin] reads one of the scenarios
// embedded in the binary (search, ...), and [Resolve] picks between them for
// a command-line argument.
//
// A Scenario is plain data: the loader shares nothing between calls, so
// loads may run concurrently, and a loaded Scenario may be read from many
// goroutines as long as none changes it.
//
// scenarios imports no package of countsim and is the only package that
// imports the YAML library. sim builds the run from a Scenario; the design
// types and their parameters are checked in package strategies. The built-in
// files (search.yaml, ...) beside this one are the templates to copy.
package scenarios
