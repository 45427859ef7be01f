// Package report writes what a person reads of a run: report.html, one
// self-contained page (styles inline, charts inline SVG, no script, nothing
// fetched: it opens from disk), report.md with the same structure, and the
// short summary a run prints.
//
// Each step opens with its question (its title and description), its
// summary and the one chart that answers it (Chart.Answer), side by side
// where the summary leaves room; its other charts fold under it. The
// summary has the designs as columns and the questions that matter as rows
// — error against its bound, memory, load against capacity, loss, what a
// real store achieved — or, past 8 designs and when the questions are
// fewer, the designs as rows (a swept entry's grouped under its name), so
// that it fits the page. Each value stands beside its plan and is marked
// where an expectation judged it: ✔ a bound held, ⚠ a trap shown on
// purpose (never ✔), ✘ a bound failed or a trap not shown, the Legend
// above the first table. A question a design measured several times (each
// day, each planted phrase) is a row a part, each named. Then every row and
// table, folded; the run's manifest last. report.html draws its ⏱ in SVG
// and embeds the charts' font, so that no glyph depends on the fonts of
// the machine that opens it.
//
// report imports metrics only; cmd/countsim gathers a [Run] from what sim
// returned and writes the files.
package report
