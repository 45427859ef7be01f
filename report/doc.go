// Package report writes what a person reads of a run: report.html, one
// self-contained page (styles inline, charts inline SVG, no script, nothing
// fetched: it opens from disk), report.md with the same structure, and the
// short summary a run prints.
//
// Each scenario opens on its summary: per step, the designs as columns and
// the questions that matter as rows — error against its bound, memory, load
// against capacity, loss, what a real store achieved — each value beside
// its plan and marked where an expectation judged it: ✔ a bound held, ⚠ a
// trap shown on purpose (never ✔), ✘ a bound failed or a trap not shown,
// the Legend above the first table; then the charts, then every row and
// table, folded; the run's manifest last.
//
// report imports metrics only; cmd/countsim gathers a [Run] from what sim
// returned and writes the files.
package report
