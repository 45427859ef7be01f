package main

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Flags may follow the arguments, as with the go command; "--" ends them.
func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args []string
		out  string
		q    bool
		n    int
		rest []string
	}{
		{args: []string{"search", "-out", "D", "-q"}, out: "D", q: true, rest: []string{"search"}},
		{args: []string{"-out", "D", "-q", "search"}, out: "D", q: true, rest: []string{"search"}},
		{args: []string{"a", "-q", "b", "-out=D", "c", "--n", "3"}, out: "D", q: true, n: 3, rest: []string{"a", "b", "c"}},
		{args: []string{"-q", "--", "search", "-n", "4"}, q: true, rest: []string{"search", "-n", "4"}},
		{args: []string{"a", "--", "--"}, rest: []string{"a", "--"}},
		// A flag that takes a value takes the next word, even "--" or one
		// that starts with "-", as the flag package does.
		{args: []string{"-out", "--", "search", "-q"}, out: "--", q: true, rest: []string{"search"}},
		{args: []string{"x", "-out", "-q"}, out: "-q", rest: []string{"x"}},
		{args: []string{"-", "-q=false", "y"}, rest: []string{"-", "y"}},
		{args: nil, rest: nil},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		out := fs.String("out", "", "")
		q := fs.Bool("q", false, "")
		n := fs.Int("n", 0, "")
		rest, err := parseArgs(fs, c.args)
		if err != nil || *out != c.out || *q != c.q || *n != c.n || !slices.Equal(rest, c.rest) {
			t.Errorf("%q: got -out %q -q %v -n %d, args %q (%v); want -out %q -q %v -n %d, args %q",
				c.args, *out, *q, *n, rest, err, c.out, c.q, c.n, c.rest)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"search", "-nosuch"}, "flag provided but not defined: -nosuch"},
		{[]string{"search", "-out"}, "flag needs an argument: -out"},
		{[]string{"search", "-n", "x"}, `invalid value "x" for flag -n`},
		{[]string{"search", "---q"}, "bad flag syntax: ---q"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.String("out", "", "")
		fs.Bool("q", false, "")
		fs.Int("n", 0, "")
		if _, err := parseArgs(fs, c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.args, err, c.want)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseArgs(fs, []string{"search", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h after an argument: got %v, want flag.ErrHelp", err)
	}
}

// Every command takes its flags after its arguments too.
func TestFlagsAfterArguments(t *testing.T) {
	// run: the folder and -q after the scenario.
	out := filepath.Join(t.TempDir(), "after")
	stdout, stderr, code := cli(t, "run", "testdata/small.yaml", "-out", out, "-q")
	if code != 0 {
		t.Fatalf("run SCENARIO -out DIR -q: exit %d: %s", code, stderr)
	}
	if dirs, _ := filepath.Glob(filepath.Join(out, "small-*")); len(dirs) != 1 || !strings.Contains(stdout, "report: "+dirs[0]) {
		t.Errorf("run SCENARIO -out %s: folders %v, stdout %q", out, dirs, stdout)
	}
	if _, err := os.Stat("reports"); err == nil {
		t.Errorf("run SCENARIO -out DIR wrote ./reports: -out was not taken")
	}
	// plan and validate: -mem after the scenario still refuses a run over it.
	if _, stderr, code := cli(t, "plan", "search", "-mem", "0.0001"); code != 2 || !strings.Contains(stderr, "more than the limit") {
		t.Errorf("plan search -mem 0.0001: exit %d, %q; want 2, over the limit", code, stderr)
	}
	if _, stderr, code := cli(t, "validate", "testdata/small.yaml", "-mem", "0.0000001"); code != 2 || !strings.Contains(stderr, "more than the limit") {
		t.Errorf("validate FILE -mem: exit %d, %q; want 2, over the limit", code, stderr)
	}
	// check: -junit after the scenario writes the file.
	junit := filepath.Join(t.TempDir(), "j.xml")
	if _, stderr, code := cli(t, "check", smallWith(t, `["undercounts == 0"]`), "-junit", junit); code != 0 {
		t.Errorf("check FILE -junit: exit %d: %s", code, stderr)
	} else if _, err := os.Stat(junit); err != nil {
		t.Errorf("check FILE -junit %s: %v", junit, err)
	}
	// diff: -tol after the two runs.
	dirs, _ := filepath.Glob(filepath.Join(out, "small-*"))
	if _, stderr, code := cli(t, "diff", dirs[0], dirs[0], "-tol", "2"); code != 2 || !strings.Contains(stderr, "-tol 2") {
		t.Errorf("diff OLD NEW -tol 2: exit %d, %q; want 2, -tol refused", code, stderr)
	}
	// "--" ends the flags: what follows is a scenario, here one that does not exist.
	if _, stderr, code := cli(t, "validate", "--", "-q"); code != 2 || !strings.Contains(stderr, "-q: no such file") {
		t.Errorf("validate -- -q: exit %d, %q; want 2, no scenario -q", code, stderr)
	}
	// A bad flag after the arguments: exit 2, with the command's usage.
	_, stderr, code = cli(t, "run", "testdata/small.yaml", "-nosuch")
	if code != 2 || !strings.Contains(stderr, "flag provided but not defined: -nosuch") || !strings.Contains(stderr, "usage: countsim run") {
		t.Errorf("run FILE -nosuch: exit %d, %q; want 2 and the usage", code, stderr)
	}
}

// A bad flag is one error line, as go says it: the error (with the
// nearest flag to one not defined), the command's usage line, and where
// to read more — never the whole manual; nothing is written.
func TestBadFlagIsShort(t *testing.T) {
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string // in the first line
	}{
		{[]string{"run", "-out", out, "-progres", "testdata/small.yaml"}, "run: flag provided but not defined: -progres; did you mean -progress?"},
		{[]string{"run", "-out", out, "--qq", "testdata/small.yaml"}, "run: flag provided but not defined: -qq; did you mean -q?"},
		{[]string{"run", "-out", out, "-zzzzzz", "testdata/small.yaml"}, "run: flag provided but not defined: -zzzzzz"},
		{[]string{"run", "-out", out, "-format", "mdd", "testdata/small.yaml"}, `invalid value "mdd" for flag -format: allowed: summary, md, csv, json; did you mean "md"?`},
		{[]string{"plan", "-mem", "12junk", "search"}, `plan: invalid value "12junk" for flag -mem`},
		{[]string{"check", "-junitt", "x.xml", "search"}, "check: flag provided but not defined: -junitt; did you mean -junit?"},
	} {
		stdout, stderr, code := cli(t, c.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		name := c.args[0]
		if code != 2 || stdout != "" || len(lines) != 3 || !strings.HasPrefix(lines[0], "countsim: ") || !strings.Contains(lines[0], c.want) ||
			lines[1] != "usage: countsim "+commandByName(t, name).UsageLine || lines[2] != "run 'countsim help "+name+"' for details" {
			t.Errorf("countsim %v: exit %d, stdout %q, stderr:\n%s\nwant 2, 3 lines, the first with %q", c.args, code, stdout, stderr, c.want)
		}
		if strings.Contains(c.want, "not defined: -zzzzzz") && strings.Contains(lines[0], "did you mean") {
			t.Errorf("countsim %v: %q suggests a flag nothing like it", c.args, lines[0])
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a bad flag wrote %d entries under -out", len(entries))
	}
	// A mistyped scenario or on-demand design: the nearest, exit 2, one
	// line, nothing written.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-out", out, "serch"}, "countsim: serch: no such file and no built-in scenario by that name (allowed: a path to a .yaml file, or one of "},
		{[]string{"run", "-out", out, "-with", "exat", "search-full-day"}, "countsim: -with exat: no design of that name is marked on_demand in the scenarios named"},
	} {
		stdout, stderr, code := cli(t, c.args...)
		if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, c.want) || !strings.HasSuffix(stderr, "; did you mean \""+map[string]string{"serch": "search", "search-full-day": "exact"}[c.args[len(c.args)-1]]+"\"?\n") {
			t.Errorf("countsim %v: exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a mistyped name wrote %d entries under -out", len(entries))
	}
	// An unknown command or help topic: the nearest, and where to look.
	if _, stderr, code := cli(t, "rnu", "search"); code != 2 || stderr != "countsim: unknown command \"rnu\"; did you mean \"run\"?\nrun 'countsim help' for usage\n" {
		t.Errorf("countsim rnu: exit %d, %q", code, stderr)
	}
	if _, stderr, code := cli(t, "help", "scenarios"); code != 2 || !strings.HasSuffix(stderr, "(allowed: run, check, diff, plan, size, validate, list, sample, render, version, scenario); did you mean \"scenario\"?\n") {
		t.Errorf("countsim help scenarios: exit %d, %q", code, stderr)
	}
}

// --version and -version are `countsim version`.
func TestVersionFlag(t *testing.T) {
	want, _, code := cli(t, "version")
	if code != 0 || !strings.HasPrefix(want, "countsim ") {
		t.Fatalf("version: exit %d, %q", code, want)
	}
	for _, arg := range []string{"--version", "-version"} {
		if out, stderr, code := cli(t, arg); code != 0 || out != want || stderr != "" {
			t.Errorf("countsim %s: exit %d, %q, %q; want version's %q", arg, code, out, stderr, want)
		}
	}
}

// The flags that take a quantity name its unit in the usage, and a
// choice its values: -mem GiB, -pace real|max.
func TestFlagUnits(t *testing.T) {
	out, _, _ := cli(t, "help", "run")
	for _, want := range []string{"\n  -mem GiB\n", "\n  -pace real|max\n", "\n  -out DIR\n", "\n  -format FORMAT\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help run lacks %q", want)
		}
	}
	if strings.Contains(out, " value\n") {
		t.Errorf("help run names a flag's value \"value\":\n%s", out)
	}
}

// commandByName is the command called name.
func commandByName(t *testing.T, name string) *command {
	t.Helper()
	for _, c := range commands {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no command %s", name)
	return nil
}
