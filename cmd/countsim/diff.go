package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"countsim/metrics"
)

var cmdDiff = &command{
	Name:      "diff",
	UsageLine: "diff [-tol FRACTION] OLD NEW",
	Short:     "compare two runs' results.json: what moved, what was replanned, what appeared or vanished",
	Long: `
Diff compares two runs' results (results.json, or a report folder holding one)
as benchstat compares benchmarks. Rows are matched by scenario, design, metric
and scale. It lists every measured value that moved by more than -tol of the
larger of the two (0, the default: any change), every plan that changed, and
rows that appeared or vanished, then the timing rows (ns per event: read off
a clock) as ratios, which never count as a change: one run of each is noisy.

It prints "no change" and exits 0 when no row other than a timing row
differs, and exits 1 otherwise, so a CI can pin a golden run.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		fs.Float64Var(&env.tol, "tol", 0, "count a value as moved only beyond this `FRACTION` of the larger (0..1)")
	},
	Run: runDiff,
}

// runDiff is `countsim diff`.
func runDiff(ctx context.Context, env *cmdEnv, args []string) error {
	if len(args) != 2 {
		return &usageError{msg: "diff: name two results.json files or report folders (OLD NEW)"}
	}
	if !(env.tol >= 0 && env.tol <= 1) {
		return &usageError{msg: fmt.Sprintf("-tol %v: want a fraction from 0 to 1", env.tol)}
	}
	var runs [2][]metrics.Result
	for i, arg := range args {
		rs, err := readResults(arg)
		if err != nil {
			return &usageError{msg: err.Error()}
		}
		runs[i] = rs
	}
	changes := metrics.Diff(runs[0], runs[1], env.tol)
	changed, timed := 0, 0
	for _, c := range changes {
		if c.Kind == metrics.Timed {
			timed++
			continue
		}
		changed++
		fmt.Fprintln(env.stdout, c)
	}
	if changed == 0 {
		fmt.Fprintf(env.stdout, "no change: %s compared\n", plural(len(runs[1]), "row"))
	}
	if timed > 0 {
		fmt.Fprintf(env.stdout, "\ntiming rows, new ÷ old (one run of each is noisy: compare repeated runs with benchstat before reading anything into them):\n")
		var logSum float64
		for _, c := range changes {
			if c.Kind == metrics.Timed {
				fmt.Fprintln(env.stdout, c)
				logSum += math.Log(*c.New / *c.Old)
			}
		}
		fmt.Fprintf(env.stdout, "geometric mean ×%.2f over %s\n", math.Exp(logSum/float64(timed)), plural(timed, "timing row"))
	}
	if changed > 0 {
		return fmt.Errorf("%s changed between %s and %s", plural(changed, "row"), args[0], args[1])
	}
	return nil
}

// readResults reads a results.json, or the one in a report folder.
func readResults(path string) ([]metrics.Result, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, "results.json")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("diff: %v (allowed: a results.json file or a report folder holding one)", err)
	}
	defer f.Close()
	rs, err := metrics.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("diff: %s: %v", path, err)
	}
	return rs, nil
}
