package main

import (
	"context"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"countsim/metrics"
	"countsim/sim"
)

var cmdCheck = &command{
	Name:      "check",
	UsageLine: "check [-mem GiB] [-with NAME] [-junit FILE] [SCENARIO...]",
	Short:     "run scenarios and check every expectation: exit 0 if all hold, 1 if one fails",
	Long: `
Check runs each scenario (a YAML file or a built-in name; none means every
built-in scenario but those marked on_demand) and judges every expectation of
its expect: lists — under a design, on that design's measured metrics; at the
top of a scenario or step, on the truth's rows — against what it measured:
'metric op value' or 'metric op plan', op one of <=, <, ==, >=, >. An
expectation holds when every measured row of its metric does.

It prints one line per expectation (verdict, scenario, design, expectation,
measured, plan), then "N passed, M failed". The exit status is 0 when every
expectation holds, 1 when one fails, 2 for bad input (an unknown metric, a
comparison with a plan the design does not have: named with its file and
line). -junit FILE also writes the verdicts as JUnit XML, one testcase each,
to a path not yet taken (countsim never writes over a file).
No report folder is written.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		designFlags(fs, env)
		fs.StringVar(&env.junit, "junit", "", "also write the verdicts as JUnit XML to `FILE`")
	},
	Run: runCheck,
}

// runCheck is `countsim check`.
func runCheck(ctx context.Context, env *cmdEnv, args []string) error {
	names, err := scenarioArgs(args)
	if err != nil {
		return err
	}
	env.quiet = true // no progress lines: the verdicts are the output
	setups, err := prepareAll(names, env)
	if err != nil {
		return err
	}
	if env.junit != "" { // a place to write the verdicts, before anything runs
		if _, err := os.Stat(env.junit); err == nil {
			return &usageError{fmt.Sprintf("-junit %s: already exists, and countsim never writes over a file (allowed: a path not yet taken)", env.junit)}
		}
		if _, err := os.Stat(filepath.Dir(env.junit)); err != nil {
			return &usageError{fmt.Sprintf("-junit %s: no folder %s to write it in", env.junit, filepath.Dir(env.junit))}
		}
	}
	var verdicts []sim.Verdict
	var took []time.Duration
	for _, st := range setups {
		t0 := time.Now()
		rep, err := st.Run(ctx)
		if err != nil {
			return err
		}
		vs := st.Judge(rep)
		verdicts = append(verdicts, vs...)
		for range vs {
			took = append(took, time.Since(t0)/time.Duration(len(vs)))
		}
	}
	failed := writeVerdicts(env.stdout, verdicts)
	if env.junit != "" {
		if err := metrics.WriteFile(env.junit, func(w io.Writer) error { return writeJUnit(w, verdicts, took) }); err != nil {
			return err
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %s failed", failed, plural(len(verdicts), "expectation"))
	}
	return nil
}

// writeVerdicts prints a line per verdict and the summary; it returns how
// many failed.
func writeVerdicts(w io.Writer, verdicts []sim.Verdict) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "verdict\tscenario\tdesign\texpectation\tmeasured\tplan or other\t")
	failed := 0
	for _, v := range verdicts {
		verdict := "PASS"
		if !v.Pass {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", verdict, v.Scenario, v.Design, v.Expect.Text, number(v.Measured), number(v.Plan), v.Why)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d passed, %d failed\n", len(verdicts)-failed, failed)
	return failed
}

// number formats a value that may be absent.
func number(v *float64) string {
	if v == nil {
		return "—"
	}
	return metrics.Format(*v)
}

// writeJUnit writes the verdicts as JUnit XML: a testsuite per scenario, a
// testcase per expectation, a failure element for each that failed.
func writeJUnit(w io.Writer, verdicts []sim.Verdict, took []time.Duration) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		Classname string   `xml:"classname,attr"`
		File      string   `xml:"file,attr,omitempty"`
		Line      int      `xml:"line,attr,omitempty"`
		Time      string   `xml:"time,attr"`
		Failure   *failure `xml:"failure,omitempty"`
	}
	type testsuite struct {
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	type testsuites struct {
		XMLName  xml.Name    `xml:"testsuites"`
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Suites   []testsuite `xml:"testsuite"`
	}
	all := testsuites{Name: "countsim check"}
	for i, v := range verdicts {
		if len(all.Suites) == 0 || all.Suites[len(all.Suites)-1].Name != v.Scenario {
			all.Suites = append(all.Suites, testsuite{Name: v.Scenario})
		}
		s := &all.Suites[len(all.Suites)-1]
		tc := testcase{Name: v.Design + ": " + v.Expect.Text, Classname: v.Scenario + "." + v.Design,
			File: v.Expect.Pos.File, Line: v.Expect.Pos.Line, Time: fmt.Sprintf("%.3f", took[i].Seconds())}
		if !v.Pass {
			want := metrics.Format(v.Expect.Value)
			switch {
			case v.Expect.Plan:
				want = "the plan " + number(v.Plan)
			case v.Expect.Other != "":
				want = v.Expect.Other + " " + number(v.Plan)
			}
			msg := fmt.Sprintf("measured %s, want %s %s", number(v.Measured), v.Expect.Op, want)
			if v.Why != "" {
				msg = v.Why
			}
			tc.Failure = &failure{Message: msg, Text: fmt.Sprintf("%s:%d: %s %s: %s", v.Expect.Pos.File, v.Expect.Pos.Line, v.Design, v.Expect.Text, msg)}
			s.Failures++
			all.Failures++
		}
		s.Tests++
		all.Tests++
		s.Cases = append(s.Cases, tc)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
