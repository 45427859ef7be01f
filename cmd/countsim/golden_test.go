package main

// Golden tests of what the CLI prints, after cmd/go's testdata and
// benchstat's golden files: each case runs one command line in-process and
// compares its stdout and stderr, byte for byte, with
// testdata/golden/NAME.stdout and NAME.stderr. Its exit code and the class
// of its error are part of the case, in the table below, so that -update
// never accepts a change of exit status.
//
// An empty stream has no file: a golden file is never empty, and a stream
// whose file is absent must print nothing. So new output on a stream that
// was silent fails the test, as does a stream falling silent.
//
// go test ./cmd/countsim -run Golden -update rewrites the files from this
// build's output (and removes those of a stream now silent, and any file
// no case owns); review the change with git diff.
//
// What varies from run to run is normalised here, each by a rule of its
// own below (normaliseRun, maskTiming), and nothing else: every other byte
// is compared.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"countsim/scenarios"
)

// goldenDir holds the golden files; testdata/bad the bad scenario files the
// validate cases read.
const goldenDir = "testdata/golden"

// goldenCase is one command line and what it must print.
type goldenCase struct {
	name string   // the golden files' stem
	args []string // the command line; "$OUT" stands for a fresh t.TempDir()
	code int      // the exit code
	// class is the error's class, as errClass names it: "" none, "usage"
	// (a *usageError), "scenario" (a *scenarios.Error), "other".
	class string
	// normalise, if set, rewrites what varies from run to run in stdout and
	// stderr; out is the folder "$OUT" stood for.
	normalise func(t *testing.T, out, stdout, stderr string) (string, string)
}

// badFiles are the scenario files of testdata/bad, each refused for a
// reason of its own: a case each, validate-NAME.
var badFiles = []string{
	"unknown-param",     // shrads: 4 in exact's params
	"epsilon-range",     // count-min epsilon: 1.5, outside (0,1)
	"float-for-integer", // questions.top: 2.5
	"string-for-number", // workload.s: steep
	"unknown-type",      // type: space-savings
	"distribution-enum", // workload.distribution: pareto
	"tie-policy",        // sharded-board ties: olympic
	"null-key",          // a file of one `?`: a null key, once a crash
	"sweep-and-param",   // count-min width in sweep and in params
	"store-port",        // store.url: a cluster node on port 7H02
}

func goldenCases() []goldenCase {
	cases := []goldenCase{
		{name: "list", args: []string{"list"}},
		{name: "plan-search", args: []string{"plan", "search"}},
		{name: "help-scenario", args: []string{"help", "scenario"}},
		{name: "help-run", args: []string{"help", "run"}},
		{name: "help-size", args: []string{"help", "size"}},
		{name: "help-render", args: []string{"help", "render"}},
		{name: "help", args: []string{"help"}},
		{name: "validate-ok", args: []string{"validate", "testdata/small.yaml"}},
	}
	many := []string{"validate"}
	for _, f := range badFiles {
		path := "testdata/bad/" + f + ".yaml" // relative: the goldens name no machine's folders
		cases = append(cases, goldenCase{name: "validate-" + f, args: []string{"validate", path}, code: 2, class: "scenario"})
		many = append(many, path)
	}
	// Every file at once: each error on stderr, the good one on stdout,
	// then the count.
	cases = append(cases, goldenCase{name: "validate-many", args: append(many, "testdata/small.yaml"), code: 2, class: "usage"})
	// -q: no progress lines (there are none anyway, stderr not being a
	// terminal, but a golden should not rest on that); -out: the report
	// folder goes under a t.TempDir(), never ./reports.
	cases = append(cases, goldenCase{name: "run-small-csv", args: []string{"run", "-q", "-format", "csv", "-out", "$OUT", "testdata/small.yaml"},
		normalise: normaliseRun})
	return cases
}

// TestGoldenCLI runs every golden case, in parallel: run keeps no state
// between calls but its progress interval (progressEvery, changed only by
// a test that is not parallel, so never while these run) and the steps'
// peak memory (peaks, under a mutex, by step). The process's peak memory
// is shared, which normaliseRun allows for.
func TestGoldenCLI(t *testing.T) {
	before := treeState(t, ".")
	cases := goldenCases()
	t.Run("case", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.check(t)
			})
		}
	})
	checkNoStrays(t, cases)
	// Nothing was written in the package's folder (./reports above all):
	// what run writes goes under a t.TempDir(). -update writes the goldens.
	after := treeState(t, ".")
	golden := func(path string) bool {
		return *update && (path == goldenDir || strings.HasPrefix(path, goldenDir+"/"))
	}
	var changed []string
	for path, st := range after {
		if was, ok := before[path]; (!ok || was != st) && !golden(path) {
			changed = append(changed, path)
		}
	}
	for path := range before {
		if _, ok := after[path]; !ok && !golden(path) {
			changed = append(changed, path+" (removed)")
		}
	}
	if len(changed) > 0 {
		slices.Sort(changed)
		if len(changed) > 10 {
			changed = append(changed[:10], "…")
		}
		t.Errorf("the golden cases changed the package's folder, where they should write nothing:\n\t%s", strings.Join(changed, "\n\t"))
	}
}

// check runs the case and compares its output with the golden files.
func (c goldenCase) check(t *testing.T) {
	out := ""
	args := slices.Clone(c.args)
	for i, a := range args {
		if a == "$OUT" {
			if out == "" {
				out = t.TempDir()
			}
			args[i] = out
		}
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, args)
	code := exitCode(err, &stderr) // as main does: the error goes to stderr
	if code != c.code || errClass(err) != c.class {
		t.Errorf("countsim %s: exit %d, error class %q (%v); want exit %d, class %q",
			strings.Join(c.args, " "), code, errClass(err), err, c.code, c.class)
	}
	gotOut, gotErr := stdout.String(), stderr.String()
	if c.normalise != nil {
		gotOut, gotErr = c.normalise(t, out, gotOut, gotErr)
	}
	compareGolden(t, filepath.Join(goldenDir, c.name+".stdout"), gotOut)
	compareGolden(t, filepath.Join(goldenDir, c.name+".stderr"), gotErr)
}

// errClass names the class of a command's error, as exitCode maps it.
func errClass(err error) string {
	var ue *usageError
	var se *scenarios.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, flag.ErrHelp):
		return "help"
	case errors.As(err, &ue):
		return "usage"
	case errors.As(err, &se):
		return "scenario"
	}
	return "other"
}

// compareGolden compares got with the golden file path, which is absent
// when got is empty; with -update it rewrites the file first.
func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		var err error
		if got == "" {
			err = os.Remove(path)
			if errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		} else {
			err = os.WriteFile(path, []byte(got), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if got != "" {
			t.Errorf("%s does not exist, so the stream should be empty, but it holds:\n%s\n(rerun with -update if the output is meant)", path, got)
		}
		return
	case err != nil:
		t.Fatal(err)
	case len(want) == 0:
		t.Errorf("%s is empty: an empty stream has no golden file (remove it, or rerun with -update)", path)
		return
	}
	if d := firstDiff(got, string(want)); d != "" {
		t.Errorf("output differs from %s %s\n(rerun with go test -run Golden -update if the change is meant, and review git diff)", path, d)
	}
}

// firstDiff describes the first line where got and want differ, with the
// two lines before it, or returns "" if they are equal. Lines keep their
// "\n", so a missing final newline is a difference too; the differing
// lines are quoted, so are spaces and tabs.
func firstDiff(got, want string) string {
	if got == want {
		return ""
	}
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	line := func(ls []string) string {
		if i >= len(ls) || ls[i] == "" {
			return "(end of output)"
		}
		return fmt.Sprintf("%q", ls[i])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "at line %d (got %s, want %s):\n", i+1, plural(strings.Count(got, "\n"), "line"), plural(strings.Count(want, "\n"), "line"))
	for j := max(i-2, 0); j < i; j++ {
		fmt.Fprintf(&b, "       %4d | %s", j+1, w[j])
	}
	fmt.Fprintf(&b, "  got  %4d | %s\n", i+1, line(g))
	fmt.Fprintf(&b, "  want %4d | %s", i+1, line(w))
	return b.String()
}

// checkNoStrays fails on a file in goldenDir that no case owns (a case
// renamed or removed); -update removes it.
func checkNoStrays(t *testing.T, cases []goldenCase) {
	t.Helper()
	owned := map[string]bool{}
	for _, c := range cases {
		owned[c.name+".stdout"], owned[c.name+".stderr"] = true, true
	}
	files, err := os.ReadDir(goldenDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if owned[f.Name()] {
			continue
		}
		path := filepath.Join(goldenDir, f.Name())
		if *update {
			if err := os.Remove(path); err != nil {
				t.Error(err)
			}
			continue
		}
		t.Errorf("%s belongs to no golden case (rerun with -update to remove it)", path)
	}
}

// treeState is every file and folder under dir with its size, mode and
// modification time.
func treeState(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		m[filepath.ToSlash(path)] = fmt.Sprint(fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Run's volatile output, and nothing more:
//
//   - stderr's "countsim: report: DIR" names a t.TempDir() and the start
//     time (small-20260102-150405): the folder becomes $OUT, the time
//     YYYYMMDD-HHMMSS.
//   - run warns on stderr when the process's peak resident memory passed
//     the plan by 10%; the peak is the test process's, over every test run
//     in it so far, so whether the line appears at all depends on what ran
//     before. That line alone is dropped, by its whole text.
//   - stdout's CSV: the timing rows' values, see maskTiming.
var (
	reportStamp = regexp.MustCompile(`(countsim: report: \$OUT/[a-z0-9-]+)-[0-9]{8}-[0-9]{6}\n`)
	peakRSSLine = regexp.MustCompile(`(?m)^countsim: the peak resident memory, [0-9,]+ bytes, passed the plan of [0-9,]+ bytes by more than 10%\n`)
)

// normaliseRun normalises run -format csv's output.
func normaliseRun(t *testing.T, out, stdout, stderr string) (string, string) {
	t.Helper()
	if dirs, _ := filepath.Glob(filepath.Join(out, "small-*")); len(dirs) != 1 {
		t.Errorf("run -out %s: made %v, want one report folder there", out, dirs)
	}
	stderr = strings.ReplaceAll(stderr, out+string(filepath.Separator), "$OUT/")
	stderr = reportStamp.ReplaceAllString(stderr, "${1}-YYYYMMDD-HHMMSS\n")
	stderr = peakRSSLine.ReplaceAllString(stderr, "")
	return maskTiming(t, stdout), stderr
}

// timingMask stands for a timing row's value in a golden CSV.
const timingMask = "<timing>"

// maskTiming replaces the value cell of every row of results CSV whose
// timing column is "true" — the figures read off the clock (ns_per_event,
// events_per_s), which differ from run to run and machine to machine —
// by timingMask, in place: every other byte, the timing rows' other cells
// included, is left as it was written.
func maskTiming(t *testing.T, text string) string {
	t.Helper()
	r := csv.NewReader(strings.NewReader(text))
	header, err := r.Read()
	if err != nil {
		t.Fatalf("results CSV: %v", err)
	}
	value, timing := slices.Index(header, "measured"), slices.Index(header, "timing")
	if value < 0 || timing < 0 {
		t.Fatalf("results CSV header %q lacks measured or timing", header)
	}
	lines := strings.SplitAfter(text, "\n")
	masked := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("results CSV: %v", err)
		}
		switch rec[timing] {
		case "false":
			continue
		case "true":
		default:
			t.Fatalf("results CSV: timing %q, want true or false: %q", rec[timing], rec)
		}
		ln, col := r.FieldPos(value)
		l := lines[ln-1]
		v := rec[value]
		if v == "" || !strings.HasPrefix(l[col-1:], v+",") {
			t.Fatalf("results CSV line %d: timing value %q is not a plain cell: %q", ln, v, l)
		}
		lines[ln-1] = l[:col-1] + timingMask + l[col-1+len(v):]
		masked++
	}
	if masked == 0 {
		t.Errorf("results CSV: no timing row to mask; the timing column may have changed meaning")
	}
	return strings.Join(lines, "")
}

// The golden test's own failure message: the first line that differs,
// quoted, after the lines before it.
func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ got, want, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc\nd\n", "a\nb\nc\nD\n", "at line 4 (got 4 lines, want 4 lines):\n          2 | b\n          3 | c\n  got     4 | \"d\\n\"\n  want    4 | \"D\\n\""},
		{"a\n", "a\nb\n", "at line 2 (got 1 line, want 2 lines):\n          1 | a\n  got     2 | (end of output)\n  want    2 | \"b\\n\""},
		{"a\nb", "a\nb\n", "at line 2 (got 1 line, want 2 lines):\n          1 | a\n  got     2 | \"b\"\n  want    2 | \"b\\n\""},
		{"x\n", "", "at line 1 (got 1 line, want 0 lines):\n  got     1 | \"x\\n\"\n  want    1 | (end of output)"},
	} {
		if d := firstDiff(c.got, c.want); d != c.diff {
			t.Errorf("firstDiff(%q, %q):\n%s\nwant\n%s", c.got, c.want, d, c.diff)
		}
	}
}

// maskTiming masks the timing rows' values alone, whatever their notes hold.
func TestMaskTiming(t *testing.T) {
	in := "scenario,step,design,metric,measured,unit,plan,scale,timing,partial,stat,note\n" +
		"s,,d,bytes,2097152,B,2097152,sim,false,false,,\"a, b\"\n" +
		"s,,d,ns_per_event,25.63,ns,,sim,true,false,,\"Observe, CPU time\"\n"
	want := "scenario,step,design,metric,measured,unit,plan,scale,timing,partial,stat,note\n" +
		"s,,d,bytes,2097152,B,2097152,sim,false,false,,\"a, b\"\n" +
		"s,,d,ns_per_event,<timing>,ns,,sim,true,false,,\"Observe, CPU time\"\n"
	if got := maskTiming(t, in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
