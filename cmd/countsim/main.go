package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"countsim/metrics"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/strategies"
)

// command is one subcommand, after cmd/go's base.Command.
type command struct {
	Name      string
	UsageLine string
	Short     string
	Long      string
	// Run executes the command; flags is already defined by setFlags and
	// parsed, args are what follows the flags.
	Run      func(ctx context.Context, env *cmdEnv, args []string) error
	SetFlags func(fs *flag.FlagSet, env *cmdEnv)
}

// cmdEnv is what a command writes to and its parsed flags.
type cmdEnv struct {
	// ctx is the command's context, for the steps that are given no other
	// (preparing a scenario: prepareScenario); nil means none.
	ctx            context.Context
	stdout, stderr io.Writer
	out            string            // run -out
	memLimit       int64             // run/plan/validate -mem (bytes)
	with           []string          // run/plan/validate -with: on-demand designs to include
	sets           []scenarios.Set   // -set PATH=VALUE: overrides of every scenario's keys
	format         string            // run -format: what run prints on stdout
	quiet          bool              // run -q: no progress lines
	progress       bool              // run -progress: progress lines even when stderr is not a terminal
	prog           *progress         // run: the progress printer, once made (progressPrinter)
	junit          string            // check -junit: where to write JUnit XML
	tol            float64           // diff -tol: the relative change that counts
	store          redisstore.Config // run -store, -pace, -keep
	stores         []*lazyStore      // the real stores the prepared scenarios use
	realStores     bool              // run: scenarios are prepared with their real stores
	cpuProfile     string            // run -cpuprofile: where to write a CPU profile of the run
	write          string            // size -write: where to write the sized scenario
	runs           int               // size -runs: the trial runs a design's search may take
	template       string            // render: the template the run is for, named in its manifest
}

var commands = []*command{cmdRun, cmdCheck, cmdDiff, cmdPlan, cmdSize, cmdValidate, cmdList, cmdSample, cmdRender, cmdVersion}

// usageError is bad usage: exit 2. hint, when not empty, is printed on
// the lines after the error: where to read more.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	// After the first Ctrl-C the run winds down and writes what it measured;
	// a second one stops the process at once.
	context.AfterFunc(ctx, stop)
	err := run(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode reports err and maps it to the process's exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintln(stderr, "countsim:", err)
	var ue *usageError
	var se *scenarios.Error
	if errors.As(err, &ue) && ue.hint != "" {
		fmt.Fprintln(stderr, ue.hint)
	}
	if errors.As(err, &ue) || errors.As(err, &se) {
		return 2
	}
	return 1
}

// run is the whole CLI, testable: it parses args and runs one subcommand.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		printUsage(stderr)
		return &usageError{msg: "no command given"}
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" {
		printUsage(stdout)
		return nil
	}
	if name == "help" {
		return help(stdout, args[1:])
	}
	if name == "-version" || name == "--version" { // as `countsim version`
		name = cmdVersion.Name
	}
	for _, c := range commands {
		if c.Name != name {
			continue
		}
		env := &cmdEnv{ctx: ctx, stdout: stdout, stderr: stderr}
		fs := c.flags(env, stderr)
		rest, err := c.parse(fs, args[1:])
		if err != nil {
			return err
		}
		return c.Run(ctx, env, rest)
	}
	return &usageError{msg: fmt.Sprintf("unknown command %q%s", name, scenarios.DidYouMean(name, commandNames())),
		hint: "run 'countsim help' for usage"}
}

// commandNames lists the commands' names, in the usage's order.
func commandNames() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.Name)
	}
	return names
}

// parse parses the command's flags off args (parseArgs). A bad flag is
// one line, as go says it: the flag package's error (with the nearest
// flag to one not defined), the command's usage line, and where to read
// more; -h prints the command's whole manual.
func (c *command) parse(fs *flag.FlagSet, args []string) ([]string, error) {
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard) // the flag package prints its error and the usage: run says them itself
	rest, err := parseArgs(fs, args)
	fs.Usage = usage
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage()
		return nil, err
	case err != nil:
		msg := c.Name + ": " + err.Error()
		if bad, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
			var names []string
			fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
			if near := scenarios.Closest(strings.TrimPrefix(bad, "-"), names); near != "" {
				msg += "; did you mean -" + near + "?"
			}
		}
		return nil, &usageError{msg: msg, hint: "usage: countsim " + c.UsageLine + "\nrun 'countsim help " + c.Name + "' for details"}
	}
	return rest, nil
}

// parseArgs parses fs from args, where flags may stand before, between or
// after the other arguments (`run search -out DIR -q` is `run -out DIR -q
// search`), and returns the other arguments in order. "--" ends the flags:
// what follows it is an argument whatever it looks like.
//
// The flag package stops at the first argument that is not a flag, so
// args are first split by its own rules: "-" alone is an argument; a flag
// that is not boolean and has no "=value" takes the next word as its value,
// even one that starts with "-" or is "--". (Parsing again after each
// argument cannot tell a "--" that ended the flags from one given as
// a flag's value.) The flags are then parsed at once, so a bad flag is
// the flag package's own error, and -h its help.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return parsedArgs(fs, flags, append(rest, args[i+1:]...))
		case len(a) < 2 || a[0] != '-':
			rest = append(rest, a)
		default:
			flags = append(flags, a)
			if takesValue(fs, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return parsedArgs(fs, flags, rest)
}

// parsedArgs parses the flags and returns rest.
func parsedArgs(fs *flag.FlagSet, flags, rest []string) ([]string, error) {
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	if len(fs.Args()) > 0 { // cannot happen: every word of flags is a flag or a flag's value
		return nil, fmt.Errorf("unexpected %q among the flags", fs.Args()[0])
	}
	return rest, nil
}

// takesValue reports whether the flag word arg ("-name" or "--name") takes
// the next word as its value: a flag of fs that is not boolean, given
// without "=value". An unknown flag takes none (parsing it fails anyway).
func takesValue(fs *flag.FlagSet, arg string) bool {
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	if strings.Contains(name, "=") {
		return false
	}
	f := fs.Lookup(name)
	if f == nil {
		return false
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return !ok || !b.IsBoolFlag()
}

// flags returns the command's flag set, bound to env, whose Usage writes
// the command's manual to out.
func (c *command) flags(env *cmdEnv, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("countsim "+c.Name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: countsim %s\n\n%s\n", c.UsageLine, strings.TrimSpace(c.Long))
		if hasFlags(fs) {
			fmt.Fprintln(fs.Output(), "\nflags:")
			fs.PrintDefaults()
		}
	}
	if c.SetFlags != nil {
		c.SetFlags(fs, env)
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "countsim turns questions about counting at scale into measured numbers.")
	fmt.Fprintln(w, "\nusage: countsim COMMAND [flags] [args]   (flags may follow the args too; -- ends them)\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.Name, c.Short)
	}
	fmt.Fprintln(w, "\n'countsim help COMMAND' describes a command; 'countsim help scenario' lists every key of a scenario file.")
}

// help is `countsim help [COMMAND | scenario]`.
func help(w io.Writer, args []string) error {
	switch {
	case len(args) == 0:
		printUsage(w)
		return nil
	case len(args) > 1:
		return &usageError{msg: "help takes one topic: a command or scenario"}
	case args[0] == "scenario":
		return writeReference(w)
	case args[0] == "help":
		printUsage(w)
		return nil
	}
	for _, c := range commands {
		if c.Name == args[0] {
			c.flags(&cmdEnv{}, w).Usage()
			return nil
		}
	}
	topics := append(commandNames(), "scenario")
	return &usageError{msg: fmt.Sprintf("help: unknown topic %q (allowed: %s)%s", args[0], strings.Join(topics, ", "), scenarios.DidYouMean(args[0], topics))}
}

// writeReference prints every key a scenario file may hold, generated from
// the schema the loader decodes by.
func writeReference(w io.Writer) error {
	fmt.Fprintln(w, "The keys of a scenario file (YAML), in file order. A key's path joins its")
	fmt.Fprintln(w, "mappings with '.', and a list's entries with '[]'. Unknown keys, wrong types")
	fmt.Fprintln(w, "and values out of range are refused with the file, the line and what is allowed.")
	fmt.Fprintln(w, "A design's own parameters (strategies[].params) are listed by 'countsim list'.")
	for _, k := range scenarios.Reference() {
		head := k.Path + "  (" + k.Type
		switch k.Default {
		case "":
		case "required":
			head += ", required"
		default:
			head += ", default " + k.Default
		}
		if k.Kinds != "" {
			head += "; " + k.Kinds + " only"
		}
		fmt.Fprintf(w, "\n%s)\n    %s\n", head, k.Doc)
		if k.Allowed != "" {
			fmt.Fprintf(w, "    allowed: %s\n", k.Allowed)
		}
	}
	return writeMetricNames(w)
}

// writeMetricNames ends the reference with the metrics each design type
// reports, and the truth: the names an expect: or shows: item takes.
func writeMetricNames(w io.Writer) error {
	all, err := builtinMetrics()
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nThe metrics an expect: or shows: item names, by design type, as the built-in")
	fmt.Fprintln(w, "scenarios measure them ('countsim list TYPE' says which scenario measures which;")
	fmt.Fprintln(w, "the truth's are those of a scenario's own expect:).")
	for _, t := range append([]string{""}, strategies.TypeNames()...) {
		name := t
		if t == "" {
			name = "truth"
		}
		fmt.Fprintf(w, "\n%s\n", name)
		writeWrapped(w, "    ", 4, metricUnion(all, t))
	}
	return nil
}

// plural is n and a noun, the noun in the plural unless n is 1: "1
// design", "3 designs", "12,205,000 events". The plural adds "s".
func plural[N int | int64](n N, noun string) string {
	if n != 1 {
		noun += "s"
	}
	return metrics.Format(float64(n)) + " " + noun
}

// pluralNoun is the noun alone, in the plural unless n is 1.
func pluralNoun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}

// memFlag adds the -mem flag shared by the commands that prepare scenarios.
// designFlags are the flags of every command that prepares scenarios:
// the memory limit and the on-demand designs to include.
func designFlags(fs *flag.FlagSet, env *cmdEnv) {
	memFlag(fs, env)
	fs.Func("set", "override a key of every scenario named, as `PATH=VALUE` (assumptions.key_capacity=5000, steps[views].workload.phases[0].rate=400000, strategies[cm].params.epsilon=0.001); checked as the file's own keys are; repeat for more", func(s string) error {
		set, err := scenarios.ParseSet(s)
		if err != nil {
			return err
		}
		env.sets = append(env.sets, set)
		return nil
	})
	fs.Func("with", "include the on-demand design `NAME` (a design marked on_demand: true); repeat or separate by commas", func(s string) error {
		for name := range strings.SplitSeq(s, ",") {
			if name = strings.TrimSpace(name); name == "" {
				return fmt.Errorf("-with %q: want design names separated by commas", s)
			}
			env.with = append(env.with, name)
		}
		return nil
	})
}

func memFlag(fs *flag.FlagSet, env *cmdEnv) {
	fs.Func("mem", "refuse scenarios needing more than this many `GiB` for truth and designs (default 12)", func(s string) error {
		g, err := strconv.ParseFloat(s, 64)
		if err != nil || !(g*(1<<30) >= 1) || g > 1<<30 {
			return fmt.Errorf("-mem %q: want a number of GiB from 1e-9 to 2^30", s)
		}
		env.memLimit = int64(g * (1 << 30))
		return nil
	})
}
