// Package render writes a worked example as prose from a template: a
// Markdown file (Go's text/template) whose front matter names the
// scenarios behind it and whose every number is a call — a design's plan
// of a metric, its measured value, the plan's formula as the plan states
// it, a ratio or difference of two, a formatting — so that no number in
// the page is typed by hand.
//
// The central types are Template (a parsed file: its front matter and its
// text), Data (what a template may name: each step's designs, metrics and
// rows, before a run or after it) and Page (a rendered file: its text and
// its figures measured with a tolerance). Execute renders a Template
// against Data; run against the plans alone (Data.Measured false) it is the
// first pass that refuses a name no step has, with the template's
// file:line and what is allowed, before anything runs. Compare tells the
// sentences of a rendered page whose numbers have moved, a measured figure
// being allowed to move within its tolerance ({{measured … | within "5%"}}).
//
// Nothing here runs a scenario, prints or exits: cmd/countsim prepares and
// runs the scenarios and hands their rows over. The built-in templates
// (Builtin, BuiltinNames) are embedded from templates/.
package render
