// Countsim turns questions about counting at scale into measured numbers.
//
// A scenario (YAML) states the real-world assumptions and the designs to
// compare; countsim generates a seeded Zipf event stream, runs every design on
// the same events, scores every answer against exact ground truth, and writes
// tables and plots that put the plan (the closed-form number) beside the
// measurement.
//
// Usage:
//
//	countsim run [-out DIR] [-format summary|md|csv|json] [-with NAME] [-q | -progress]
//	             [-store URL [-pace real|max] [-keep]] [SCENARIO...]
//	                                        simulate, print a summary, write a report folder
//	countsim check [-junit FILE] [SCENARIO...]
//	                                        run and judge every expect: line; exit 1 if one fails
//	countsim diff [-tol F] OLD NEW          compare two runs' results.json; exit 1 if a row changed
//	countsim plan SCENARIO...               print the closed-form numbers alone, instantly
//	countsim validate SCENARIO...           check scenario files, write nothing
//	countsim list [TYPE]                    list the built-in scenarios and the design types;
//	                                        TYPE: its parameters and the metrics it reports
//	countsim sample [-o FILE] [-events N] [SCENARIO]
//	                                        write a small event log to replay (workload: {file: …})
//	countsim version                        the version, commit and Go that built it (or --version)
//
// Flags may come before or after the scenarios, as with the go command. A
// bad flag is one line, then the command's usage line and where to read
// more; a mistyped name (a scenario, key, design type, parameter, metric,
// flag, command) is refused with the nearest allowed one ("did you mean").
//
// A SCENARIO is a file path (anything ending in .yaml or .yml, or an existing
// file) or the name of a built-in scenario such as "search"; the built-ins
// are embedded, so they work from any folder. `countsim run` and `countsim
// check` with no scenario run every built-in one but those marked on_demand
// (the full search day).
//
// `countsim run -out DIR` writes a fresh folder under DIR — never over an old
// one — holding report.html (one self-contained page: a summary a step,
// the charts, every row), report.md, results.csv, results.json,
// manifest.json, plots/*.svg and *.png and tables/*.csv. The same scenario and seed give the same results,
// byte for byte, apart from the rows marked as timing.
//
// Exit codes: 0 success; 2 bad input or usage (the message names the file,
// line and what is allowed, and nothing is written); 1 any other failure,
// including a run stopped by Ctrl-C, whose folder then holds what was
// measured so far, marked partial, an expectation that failed (check) and a
// row that changed (diff). Ctrl-C stops a run within a second whatever it
// is doing; its stderr and summary say after how many events it stopped,
// and every plan beside a partial measurement is the plan for the events
// fed (the report's notes say so). Stopped before its scenario was
// prepared, a run writes nothing.
//
// Each subcommand takes -h for its flags.
package main
