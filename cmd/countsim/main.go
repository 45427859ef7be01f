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

	"countsim/scenarios"
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
	stdout, stderr io.Writer
	out            string // run -out
	memLimit       int64  // run/plan/validate -mem (bytes)
}

var commands = []*command{cmdRun, cmdPlan, cmdValidate, cmdList}

// usageError is bad usage: exit 2 with the command's usage.
type usageError struct{ msg string }

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
	if errors.As(err, &ue) || errors.As(err, &se) {
		return 2
	}
	return 1
}

// run is the whole CLI, testable: it parses args and runs one subcommand.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	if len(args) == 0 {
		printUsage(stderr)
		return &usageError{"no command given"}
	}
	name := args[0]
	if name == "-h" || name == "-help" || name == "--help" || name == "help" {
		printUsage(stdout)
		return nil
	}
	for _, c := range commands {
		if c.Name != name {
			continue
		}
		env := &cmdEnv{stdout: stdout, stderr: stderr}
		fs := flag.NewFlagSet("countsim "+c.Name, flag.ContinueOnError)
		fs.SetOutput(stderr)
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
		if err := fs.Parse(args[1:]); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return err
			}
			return &usageError{err.Error()}
		}
		return c.Run(ctx, env, fs.Args())
	}
	printUsage(stderr)
	return &usageError{fmt.Sprintf("unknown command %q", name)}
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "countsim turns questions about counting at scale into measured numbers.")
	fmt.Fprintln(w, "\nusage: countsim COMMAND [flags] [args]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-9s %s\n", c.Name, c.Short)
	}
	fmt.Fprintln(w, "\n'countsim COMMAND -h' describes a command.")
}

// memFlag adds the -mem flag shared by the commands that prepare scenarios.
func memFlag(fs *flag.FlagSet, env *cmdEnv) {
	fs.Func("mem", "refuse scenarios needing more than this many GiB for truth and designs (default 12)", func(s string) error {
		g, err := strconv.ParseFloat(s, 64)
		if err != nil || !(g*(1<<30) >= 1) || g > 1<<30 {
			return fmt.Errorf("-mem %q: want a number of GiB from 1e-9 to 2^30", s)
		}
		env.memLimit = int64(g * (1 << 30))
		return nil
	})
}
