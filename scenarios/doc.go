// Package scenarios reads the YAML files that describe a countsim run: the
// real-world assumptions, what is simulated, the questions asked and the
// designs to compare. Its loader is strict: an unknown key, a repeated key,
// a wrong type, 2.5 where an integer goes or a value out of range is
// refused with an [*Error] that names the file, the line, the key and what
// is allowed.
//
// [Scenario] is the central type: its [Assumptions] (full-scale figures for
// the plan), its [Run] — one kind of run, a [*Stream] (a count of events),
// a [*Timed] stream (phases, reads, resends), an [*Audience] (viewers over
// days with exact overlaps), a [*Profile] (seeded trials at cardinalities
// on a log grid), a [*Board], [*Ratings], a [*Split] stream, [*Trending],
// a recorded [*Log] or [*Posts] (like counters created over time), picked
// once by the loader — its [Questions], the
// simulated store [Cluster], the [Fault]s injected during a timed stream,
// and one [Strategy] per design, whose [Param] values stay raw until the
// design's type is known: [DecodeParams] (or [Scenario.DecodeParams]) then
// decodes them into the type's parameter struct by the same decoder, tags
// and messages as every other key. A figure stated once serves both the plan
// and the simulation ([Figure], [Scenario.Simulated]). A scenario told in
// steps holds them in [Scenario.Steps]. Every part carries a [Pos], so a
// later check can still point at the line ([Scenario.ParamPos],
// [Scenario.KeyPos]).
//
// The format is stated once, in the tags of the types — the tag language
// and the check of a value are package internal/schema's, which the
// designs' parameters share; schema.go adds a scenario's own forms — and
// the decoder, its messages and [Reference] — every key with its type,
// default, range and meaning, which `countsim help scenario` prints — all
// derive from it. [Load] reads a file, [Parse] reads bytes, [Builtin] reads one of
// the scenarios embedded in the binary, and [Resolve] picks between them
// for a command-line argument.
//
// A Scenario is plain data: loads may run concurrently, and a loaded
// Scenario may be read from many goroutines as long as none changes it.
//
// scenarios imports no package of countsim but internal/schema (the tag
// language, which imports nothing) and is the only package that imports
// the YAML library. sim builds the run from a Scenario; the design types
// and their rules across parameters are package strategies'. The
// built-in files (search.yaml, ...) beside this one are the templates to
// copy.
package scenarios
