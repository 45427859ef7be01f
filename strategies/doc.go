// Package strategies holds every counting design countsim compares, its plan
// (the closed-form numbers) and the registry that builds designs by type name.
//
// A design implements [Strategy] — Observe a batch of events, report the
// bytes it holds — and the small interfaces of the questions it can answer:
// [PointCounter] (the count of one key), [TopK] (the k heaviest keys). The
// runner finds a family by type assertion. Observe is the hot path: it
// allocates nothing in the steady state and makes no interface call per event.
// The frequency and top-K designs are [CountMin] (type "count-min"; with a
// heap, [CountMinTopK]), [SpaceSaving] ("space-saving") and [Exact] ("exact",
// optionally sharded), one file each, citing its algorithm and bounds.
//
// Each design registers once as a [Type]: a name, a parameter struct whose
// exported fields carry `param` tags (the YAML keys), strict decoding of raw
// parameters (unknown keys, wrong types and 2.5 for an integer are errors), a
// validating constructor that tests call without YAML, and a plan from the
// parameters and the scenario's full-scale [Assumptions].
//
// Strategies are not safe for concurrent use. strategies imports only
// countsim/workload; sim drives it and scores it against exact truth.
package strategies
