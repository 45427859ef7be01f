package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"countsim/metrics"
	"countsim/sim"
)

var cmdCheck = &command{
	Name:      "check",
	UsageLine: "check [-mem GiB] [-with NAME] [-set PATH=VALUE] [-junit FILE] [SCENARIO...]",
	Short:     "run scenarios and check every expectation: exit 0 if all hold, 1 if one fails",
	Long: `
Check runs each scenario (a YAML file or a built-in name; none means every
built-in scenario but those marked on_demand) and judges every item of its
expect: and shows: lists — under a design, on that design's measured
metrics; at the top of a scenario or step, on the truth's rows — against
what it measured: 'metric op value', 'metric op plan' or 'metric op metric',
op one of <=, <, ==, >=, >. An item holds when every measured row of its
metric does.

The two lists say different things. An expect: item is a bound or a goal
the design meets: PASS when it holds, FAIL when not. A shows: item is a
trap or a failure the scenario reproduces on purpose (count_error > 0 on
batching without dedup): SHOWN when it holds, NOT SHOWN when not.

It prints the legend, one line per bound, then one line per trap, apart
(verdict, scenario, design, expectation, measured, plan or the other
metric), then "N passed, M failed; T shown, U not shown". The exit status is
0 when every bound holds and every trap shows, 1 otherwise, 2 for bad input
(an unknown metric, a comparison with a plan the design does not have:
named with its file and line). -junit FILE also writes the verdicts as
JUnit XML, one testcase each (a trap's named "design: shows ..."), to a path
not yet taken or over check's own earlier JUnit report (CI re-runs in a
dirty workspace); any other file there is refused.
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
		if err := junitPlace(env.junit); err != nil {
			return err
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
	t := writeVerdicts(env.stdout, verdicts)
	if env.junit != "" {
		if err := writeJUnitFile(env.junit, func(w io.Writer) error { return writeJUnit(w, verdicts, took) }); err != nil {
			return err
		}
	}
	var bad []string
	if t.failed > 0 {
		bad = append(bad, fmt.Sprintf("%d of %s failed", t.failed, plural(t.passed+t.failed, "bound")))
	}
	if t.unshown > 0 {
		bad = append(bad, fmt.Sprintf("%d of %s not shown", t.unshown, plural(t.shown+t.unshown, "trap")))
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// checkLegend says what check's words mean, above its verdicts; the
// report's legend (package report) says the same of its marks.
const checkLegend = `PASS / FAIL          a bound or goal the design must meet (expect:) held, or did not
SHOWN / NOT SHOWN    a trap or failure the scenario reproduces on purpose (shows:) showed, or did not:
                     a shown trap is the worst figure of its design, not one to copy
`

// checkTally is what check counted: bounds that held and failed, traps
// shown and not.
type checkTally struct{ passed, failed, shown, unshown int }

// writeVerdicts prints the legend, the bounds' verdicts, the traps'
// verdicts apart, and the summary; it returns the counts.
func writeVerdicts(w io.Writer, verdicts []sim.Verdict) checkTally {
	io.WriteString(w, checkLegend)
	section := func(title string, trap bool) (held, missed int) {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, v := range verdicts {
			if v.Trap() != trap {
				continue
			}
			if held+missed == 0 {
				fmt.Fprintf(w, "\n%s\n", title)
				fmt.Fprintln(tw, "verdict\tscenario\tdesign\texpectation\tmeasured\tplan or other\t")
			}
			if v.Pass {
				held++
			} else {
				missed++
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Word(), v.Scenario, v.Design, v.Expect.Text, number(v.Measured), number(v.Plan), v.Why)
		}
		tw.Flush()
		return held, missed
	}
	var t checkTally
	t.passed, t.failed = section("Bounds and goals (expect:)", false)
	t.shown, t.unshown = section("Traps shown on purpose (shows:)", true)
	fmt.Fprintf(w, "\n%d passed, %d failed; %d shown, %d not shown\n", t.passed, t.failed, t.shown, t.unshown)
	return t
}

// number formats a value that may be absent.
func number(v *float64) string {
	if v == nil {
		return "—"
	}
	return metrics.Format(*v)
}

// junitSuitesName is the name of the root element of the JUnit reports
// check writes: how it tells its own earlier report from a user's file.
const junitSuitesName = "countsim check"

// junitPlace checks, before anything runs, that path may take check's
// JUnit report: its folder exists, and no file is there or the file there
// is an earlier JUnit report of check's own (CI re-runs in a dirty
// workspace). Any other file is refused: countsim never writes over what
// a user had.
func junitPlace(path string) error {
	if _, err := os.Stat(filepath.Dir(path)); err != nil {
		return &usageError{msg: fmt.Sprintf("-junit %s: no folder %s to write it in", path, filepath.Dir(path))}
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &usageError{msg: fmt.Sprintf("-junit %s: %v", path, err)}
	}
	if !fi.Mode().IsRegular() || !ownJUnit(path) {
		return &usageError{msg: fmt.Sprintf("-junit %s: already exists and is not a JUnit report countsim check wrote; countsim never writes over a file (allowed: a path not yet taken, or an earlier report of check's)", path)}
	}
	return nil
}

// ownJUnit reports whether the file at path is a JUnit report check wrote:
// XML whose root is <testsuites name="countsim check">, and nothing after.
func ownJUnit(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	var root struct {
		XMLName xml.Name
		Name    string `xml:"name,attr"`
	}
	dec := xml.NewDecoder(io.LimitReader(f, 64<<20))
	if err := dec.Decode(&root); err != nil || root.XMLName.Local != "testsuites" || root.Name != junitSuitesName {
		return false
	}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return true
		}
		if err != nil {
			return false
		}
		if cd, ok := tok.(xml.CharData); !ok || len(bytes.TrimSpace(cd)) > 0 {
			return false
		}
	}
}

// writeJUnitFile writes check's JUnit report at path: a new file, or in
// place of check's own earlier report (junitPlace said which), whole or
// not at all: the report is written beside it and renamed over it.
func writeJUnitFile(path string, write func(io.Writer) error) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return metrics.WriteFile(path, write)
	}
	if !ownJUnit(path) { // it changed since junitPlace looked
		return fmt.Errorf("-junit %s: no longer an earlier report of check's; not written over", path)
	}
	tmp := fmt.Sprintf("%s.%d.new", path, os.Getpid())
	if err := metrics.WriteFile(tmp, write); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// writeJUnit writes the verdicts as JUnit XML: a testsuite per scenario, a
// testcase per expectation — a bound or, named "design: shows …", a trap —
// and a failure element for each that failed or was not shown.
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
	all := testsuites{Name: junitSuitesName}
	for i, v := range verdicts {
		if len(all.Suites) == 0 || all.Suites[len(all.Suites)-1].Name != v.Scenario {
			all.Suites = append(all.Suites, testsuite{Name: v.Scenario})
		}
		s := &all.Suites[len(all.Suites)-1]
		name := v.Design + ": " + v.Expect.Text
		if v.Trap() {
			name = v.Design + ": shows " + v.Expect.Text
		}
		tc := testcase{Name: name, Classname: v.Scenario + "." + v.Design,
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
			if v.Trap() {
				msg = "trap not shown: " + msg
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
