package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"countsim/metrics"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/strategies"
	_ "countsim/strategies/all" // every design type, for list and the runs
)

var cmdRun = &command{
	Name:      "run",
	UsageLine: "run [-out DIR] [-format summary|md|csv|json] [-mem GiB] [-with NAME] [-set PATH=VALUE] [-q | -progress] [-store URL [-pace real|max] [-keep]] [SCENARIO...]",
	Short:     "simulate scenarios, print a summary and write a report folder",
	Long: `
Run simulates each scenario (a YAML file, or a built-in name; none means every
built-in scenario but those marked on_demand), scores every design against
exact ground truth, writes a fresh folder under DIR holding report.html,
report.md, results.csv, results.json, manifest.json, plots/ and tables/, and
prints the results
on stdout: -format summary (the default) as a few lines a step — each
design's answers to the questions that matter, beside their plans, marked
✔ (a bound held), ⚠ (a trap shown on purpose) or ✘ (a bound failed, a trap
not shown) where an expectation judged them — then the folder's path; -format
md as a markdown table of every row a scenario, then the folder's path; csv or json as results.csv or results.json holds them,
and nothing else (the folder's path goes to stderr).

Every scenario is checked before anything runs or is written: bad input exits
with status 2 and writes nothing. Ctrl-C stops the run; what was measured is
written, marked partial, and the exit status is 1.

On stderr, run says which step it runs and, when the step is done, its wall
time and the events it fed. While a stream is fed, a status line every 2 s
tells the share done, the events fed, events/s, the time left (ETA), the
time taken and the design that has taken the most time; on a terminal it is
rewritten in place. Off a terminal (a CI job's log) run prints only the
line of each step done, unless -progress asks for all of it (a status a
line); -q silences it all.

-store URL (or a scenario's store: block) runs every design that lives on
servers a second time, as NAME@redis, on a real Redis server
(redis://host:port) or Redis Cluster (redis-cluster://host:port,…), beside
its simulated cluster: the same scorers, plus the rate achieved, the latency
of each op from its due time, and the ops on each node. A timed stream is
replayed at its own pace (-pace max: as fast as the store answers). Keys are
named countsim:RUN:DESIGN:… and deleted after the run unless -keep; nothing
else on the server is touched. A store that cannot be reached, or fails
mid-run, ends the run with status 1 (the report, if any, marked partial).
tools/redis-loopback starts a loopback server or a three-master cluster.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		fs.StringVar(&env.out, "out", "reports", "write the report folder under `DIR`")
		env.format = defaultFormat
		fs.Var(&choice{&env.format, stdoutFormats}, "format", "print the results on stdout as `FORMAT`: "+strings.Join(stdoutFormats, ", "))
		designFlags(fs, env)
		fs.BoolVar(&env.quiet, "q", false, "print no progress lines")
		fs.BoolVar(&env.progress, "progress", false, "print every progress line even when stderr is not a terminal (where, without it, run prints a line as each step is done)")
		storeFlags(fs, env)
		fs.StringVar(&env.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to `FILE` (for go tool pprof)")
	},
	Run: runRun,
}

var cmdPlan = &command{
	Name:      "plan",
	UsageLine: "plan [-mem GiB] [-with NAME] [-set PATH=VALUE] SCENARIO...",
	Short:     "print the closed-form numbers of each design, instantly",
	Long: `
Plan prints every design's closed-form numbers — at the scenario's full,
real-world scale and at the simulated scale — without simulating anything.`,
	SetFlags: designFlags,
	Run: func(ctx context.Context, env *cmdEnv, args []string) error {
		if len(args) == 0 {
			return &usageError{msg: "plan: name at least one scenario (countsim list shows the built-in ones)"}
		}
		setups, err := prepareAll(args, env)
		if err != nil {
			return err
		}
		for i, st := range setups {
			if i > 0 {
				fmt.Fprintln(env.stdout)
			}
			fmt.Fprintf(env.stdout, "# %s — plan\n\n%s\n\n", st.Scenario.Heading(), st.Describe())
			for _, line := range figureNotes(st.Scenario) {
				fmt.Fprintf(env.stdout, "%s\n\n", line)
			}
			if err := writePlan(env, st.Plan()); err != nil {
				return err
			}
		}
		return nil
	},
}

var cmdValidate = &command{
	Name:      "validate",
	UsageLine: "validate [-mem GiB] [-with NAME] [-set PATH=VALUE] SCENARIO...",
	Short:     "check scenario files strictly and write nothing",
	Long: `
Validate loads each scenario strictly — unknown keys, wrong types, values out
of range, unknown design types and parameters are errors naming the file and
line — and checks that the run would fit the memory limit.

Every scenario named is checked, whatever the others gave: a line for each
on stdout ("ok: FILE (SCENARIO, N designs)", one for each step of a scenario
told in steps), or its error on stderr. The exit status is 2 if any failed.`,
	SetFlags: designFlags,
	Run:      runValidate,
}

// runValidate is `countsim validate`.
func runValidate(ctx context.Context, env *cmdEnv, args []string) error {
	if len(args) == 0 {
		return &usageError{msg: "validate: name at least one scenario file"}
	}
	var setups []*sim.Setup
	var failed []error
	seen := map[string]string{}
	for _, arg := range args {
		sts, err := prepareScenario(arg, env, seen)
		if err != nil {
			failed = append(failed, err)
			if len(args) > 1 { // one alone is the command's error, printed once
				fmt.Fprintln(env.stderr, "countsim:", err)
			}
			continue
		}
		for _, st := range sts {
			fmt.Fprintf(env.stdout, "ok: %s (%s, %s)\n", st.Scenario.File, st.Scenario.ID(), plural(len(st.Scenario.Strategies), "design"))
		}
		setups = append(setups, sts...)
	}
	switch {
	case len(failed) == 0:
		return checkWith(env, setups)
	case len(args) == 1:
		return badInput(failed[0])
	}
	return &usageError{msg: fmt.Sprintf("validate: %d of %s failed", len(failed), plural(len(args), "scenario"))}
}

// badInput is err as an error that exits 2: it already is one (a scenario
// named with its file and line, bad usage), or it becomes bad usage (a
// file that cannot be read).
func badInput(err error) error {
	var ue *usageError
	var se *scenarios.Error
	if errors.As(err, &ue) || errors.As(err, &se) {
		return err
	}
	return &usageError{msg: err.Error()}
}

var cmdList = &command{
	Name:      "list",
	UsageLine: "list [TYPE]",
	Short:     "list the built-in scenarios and the design types with their parameters",
	Long: `
List prints the built-in scenarios (run them by name) and every registered
design type with its parameters, their defaults and allowed values.

List TYPE prints the design type TYPE alone: its parameters, and the names
of the metrics it reports — what an expect: or shows: item may name — as
each built-in scenario that runs it measures them (the kind of run adds its
own: a timed stream the load on the servers).`,
	Run: func(ctx context.Context, env *cmdEnv, args []string) error {
		switch {
		case len(args) > 1:
			return &usageError{msg: "list takes at most one design type"}
		case len(args) == 1:
			return listType(env.stdout, args[0])
		}
		w := env.stdout
		fmt.Fprintln(w, "Built-in scenarios:")
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		for _, name := range scenarios.BuiltinNames() {
			scn, err := scenarios.Builtin(name)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "  %s\t%s\n", name, scn.Title)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w, "\nDesign types ('countsim list TYPE' adds the metrics each reports):")
		for _, t := range strategies.Types() {
			fmt.Fprintf(w, "  %s — %s\n", t.Name, t.Summary)
			if err := writeParams(w, t, "      "); err != nil {
				return err
			}
		}
		return nil
	},
}

// writeParams prints a design type's parameters as a table, a line each:
// key, kind, range, default ("required" for one that must be given), doc.
func writeParams(w io.Writer, t *strategies.Type, indent string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range t.ParamDocs() {
		def := p.Default
		switch def {
		case "", "required":
		default:
			def = "default " + def
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\n", indent, p.Key, p.Kind, p.Range, def, p.Doc)
	}
	return tw.Flush()
}

// listType is `countsim list TYPE`: the type's parameters and the metrics
// the built-in scenarios measure of it.
func listType(w io.Writer, name string) error {
	t, err := strategies.Lookup(name)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("list: unknown design type %q (allowed: %s)%s", name,
			strings.Join(strategies.TypeNames(), ", "), scenarios.DidYouMean(name, strategies.TypeNames()))}
	}
	all, err := builtinMetrics()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s — %s\n\nParameters (strategies[].params):\n", t.Name, t.Summary)
	if len(t.ParamDocs()) == 0 {
		fmt.Fprintln(w, "  none")
	}
	if err := writeParams(w, t, "  "); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nMetrics (the names expect: and shows: take), as the built-in scenarios measure them:")
	groups, where := metricGroups(all, t.Name)
	if len(groups) == 0 {
		fmt.Fprintln(w, "  no built-in scenario runs it")
	}
	for i, g := range groups {
		fmt.Fprintf(w, "  %s:\n", strings.Join(where[i], ", "))
		writeWrapped(w, "      ", 6, g)
	}
	return nil
}

// prepareAll resolves and prepares every scenario before any is run, so bad
// input anywhere stops the command before it writes anything.
func prepareAll(args []string, env *cmdEnv) ([]*sim.Setup, error) {
	var setups []*sim.Setup
	seen := map[string]string{}
	for _, arg := range args {
		sts, err := prepareScenario(arg, env, seen)
		if err != nil {
			return nil, err
		}
		setups = append(setups, sts...)
	}
	for _, st := range setups {
		if scn := st.Scenario; len(scn.Strategies) == 0 { // goals alone: what size sizes
			at := scn.StepPos
			if at == (scenarios.Pos{}) {
				at = scenarios.Pos{File: scn.File, Line: 1}
			}
			return nil, scenarios.Errorf(at, "%s: no strategies to run (allowed: a strategies: list of designs; goals: without one is for countsim size, which sizes every design type that answers them)", scn.ID())
		}
	}
	if err := checkWith(env, setups); err != nil {
		return nil, err
	}
	return setups, nil
}

// prepareScenario resolves one scenario argument and prepares each of its
// steps. seen maps the names of the scenarios prepared before to their
// files: a name given twice is refused.
func prepareScenario(arg string, env *cmdEnv, seen map[string]string) ([]*sim.Setup, error) {
	scn, err := scenarios.Resolve(arg, env.sets...)
	if err != nil {
		return nil, err
	}
	if prev, dup := seen[scn.Name]; dup {
		return nil, &usageError{msg: fmt.Sprintf("scenario name %q given twice (%s and %s)", scn.Name, prev, scn.File)}
	}
	seen[scn.Name] = scn.File
	// The store: block's URL, held to what redisstore will dial (scenarios
	// checks only its form: it imports nothing of ours), before anything runs.
	for _, step := range append([]*scenarios.Scenario{scn}, scn.Steps...) {
		if s := step.Store; s != nil {
			if err := redisstore.CheckURL(s.URL); err != nil {
				return nil, scenarios.Errorf(s.Pos, "store.url: %v", err)
			}
		}
	}
	steps := scn.Steps
	if len(steps) == 0 {
		steps = []*scenarios.Scenario{scn}
	}
	ctx := env.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var setups []*sim.Setup
	for _, step := range steps {
		st, err := sim.PrepareContext(ctx, step, sim.Options{MemoryLimit: env.memLimit, With: env.with,
			Progress: env.progressFor(step.ID()), ProgressEvery: progressEvery, Store: env.storeFor(step)})
		if err != nil {
			return nil, err
		}
		setups = append(setups, st)
	}
	return setups, nil
}

// checkWith refuses a -with name that no prepared scenario marks on_demand.
func checkWith(env *cmdEnv, setups []*sim.Setup) error {
	var names []string // the on-demand designs, for the nearest to a name mistyped
	for _, st := range setups {
		for _, d := range st.Scenario.Strategies {
			if d.OnDemand && !slices.Contains(names, d.Name) {
				names = append(names, d.Name)
			}
		}
	}
	for _, name := range env.with {
		if !slices.ContainsFunc(setups, func(st *sim.Setup) bool { return onDemand(st.Scenario, name) }) {
			return &usageError{msg: fmt.Sprintf("-with %s: no design of that name is marked on_demand in the scenarios named%s", name, scenarios.DidYouMean(name, names))}
		}
	}
	return nil
}

// onDemand reports whether the scenario has an on-demand design by name.
func onDemand(scn *scenarios.Scenario, name string) bool {
	return slices.ContainsFunc(scn.Strategies, func(s scenarios.Strategy) bool { return s.OnDemand && s.Name == name })
}

// writePlan prints plan rows as an aligned table.
func writePlan(env *cmdEnv, rows []metrics.Result) error {
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "design\tmetric\tplan\tunit\tscale\t")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t  %s\n", r.Strategy, r.Metric, metrics.Format(r.Number()), r.Unit, r.Scale, r.Note)
	}
	return tw.Flush()
}

// scenarioArgs returns the scenarios to run: the arguments, or every built-in.
func scenarioArgs(args []string) ([]string, error) {
	if len(args) > 0 {
		return args, nil
	}
	return scenarios.DefaultBuiltins()
}

// figureNotes says, for a report's header, the -set overrides the file
// was run with, and which real-world figures the
// scenario simulated at a value other than the one it assumes (with the
// line of each: the plan at the simulated scale follows the simulation),
// and which figures the assumptions took from the simulation.
func figureNotes(scn *scenarios.Scenario) []string {
	var differ, taken []string
	for _, f := range scn.Figures {
		switch {
		case f.Differs():
			differ = append(differ, fmt.Sprintf("%s %s simulated (%s, %s) against %s assumed (assumptions.%s, %s)",
				f.Name, metrics.Format(f.Simulated), f.SimulatedAt, f.SimulatedPos, metrics.Format(f.Assumed), f.Name, f.AssumedAt))
		case f.Linked && f.AssumedAt.Line == 0:
			taken = append(taken, fmt.Sprintf("%s %s from %s", f.Name, metrics.Format(f.Simulated), f.SimulatedAt))
		}
	}
	var notes []string
	if len(scn.Sets) > 0 {
		notes = append(notes, "Changed on the command line, over the file: -set "+strings.Join(scn.Sets, ", -set ")+".")
	}
	if len(differ) > 0 {
		notes = append(notes, "Simulated otherwise than assumed: "+strings.Join(differ, "; ")+
			". Plans at the simulated scale follow the simulation; plans at full scale, the assumptions.")
	}
	if len(taken) > 0 {
		notes = append(notes, "Figures stated once, in the simulation: "+strings.Join(taken, "; ")+".")
	}
	return notes
}
