package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/sim/size"
)

var cmdSize = &command{
	Name:      "size",
	UsageLine: "size [-format table|md|csv|json] [-out DIR] [-write FILE] [-runs N] [-q] [-mem GiB] [-with NAME] [-set PATH=VALUE] SCENARIO",
	Short:     "find each design's smallest size that meets the scenario's goals, verified by trials",
	Long: `
Size reads a scenario's goals (goals: meet: ["max_overestimate <= 0.0001 * N",
"topk_recall == 1", "bytes <= 1MB", …], in expect:'s grammar, with a
confidence and the trials that show it) and, for each design the scenario
lists (its type and fixed parameters; the size parameter is size's to
choose) — or, where it lists no strategies, for one design of every type
size knows that the workload runs — finds the smallest size that meets every goal whose metric it
reports (the others do not apply to it, and the table says so): count-min's width
and depth, Space-Saving's or Misra-Gries's counters, HeavyKeeper's width,
an exact table's shards, a hot counter's stripes, batching's flush
interval, HLL's precision. It starts from the closed form — the design's
plan inverted (w = ⌈e·N/T⌉ and d = ⌈ln 1/δ⌉, m = ⌈N/T⌉, K = ⌈peak/X⌉,
p from (z·1.04/t)²) — and verifies it by trials on the scenario's own
workload: a per-key bound (max_overestimate) holds when the exact binomial
test over keys and trials says so at the scenario's false_alarm; any other
goal must hold in every trial, and the Clopper–Pearson upper bound on its
failure rate is printed. Where the closed form is missing or fails, size
searches (doubling, then bisection) within -runs trial runs a design.

It prints, for each step with goals, a table cheapest first: design, type,
the size found, bytes, the plan's figure, what was measured (the worst over
the trials) and the verdict; a goal no design meets is said, with the
closest design and by how much it misses. -format md, csv or json prints
the same rows as run's formats do. The frontier charts (each design's
measured figure against its bytes, the goal as a line, the chosen size
marked) go to a fresh folder under -out. -write FILE writes the chosen
designs as a ready scenario, the goals as their expectations, that run and
check take; an existing FILE is refused (status 2) and nothing is written.
The exit status is 1 when no design meets a step's goals.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		env.format = "table"
		fs.Var(&choice{&env.format, sizeFormats}, "format", "print the sizes as `FORMAT`: "+strings.Join(sizeFormats, ", "))
		fs.StringVar(&env.out, "out", "reports", "write the frontier charts in a fresh folder under `DIR`")
		fs.StringVar(&env.write, "write", "", "write the chosen designs as a ready scenario to `FILE` (never over an existing file)")
		fs.IntVar(&env.runs, "runs", size.DefaultMaxRuns, "the trial runs one design's search may take, at most")
		fs.BoolVar(&env.quiet, "q", false, "print no progress lines")
		designFlags(fs, env)
	},
	Run: runSize,
}

var sizeFormats = []string{"table", "md", "csv", "json"}

// runSize is `countsim size`.
func runSize(ctx context.Context, env *cmdEnv, args []string) error {
	if len(args) != 1 {
		return &usageError{msg: "size: name one scenario with goals (the built-in sizing has them)"}
	}
	if env.runs < 1 {
		return &usageError{msg: fmt.Sprintf("size: -runs %d: want at least 1", env.runs)}
	}
	if env.write != "" {
		if _, err := os.Lstat(env.write); err == nil {
			return &usageError{msg: fmt.Sprintf("size: -write %s: the file exists (allowed: a new file; size never writes over one)", env.write)}
		}
	}
	setups, err := prepareScenario(args[0], env, map[string]string{})
	if err != nil {
		return err
	}
	if err := checkWith(env, setups); err != nil {
		return err
	}
	var all []size.Sized
	var sized []*scenarios.Scenario
	for _, st := range setups {
		step := st.Scenario
		if step.Goals == nil {
			continue
		}
		t0 := time.Now()
		got, err := size.Size(ctx, step, size.Options{Engine: sim.Options{MemoryLimit: env.memLimit, With: env.with}, MaxRuns: env.runs})
		if err != nil {
			return err
		}
		runs := 0
		for _, s := range got {
			runs += s.Runs
		}
		if !env.quiet {
			fmt.Fprintf(env.stderr, "countsim: sized %s: %s, %s in %s\n", step.ID(), plural(len(got), "design"), plural(runs, "trial run"), time.Since(t0).Round(time.Millisecond))
		}
		all = append(all, got...)
		sized = append(sized, step)
	}
	if len(sized) == 0 {
		return &usageError{msg: fmt.Sprintf("size: %s has no goals (allowed: a scenario, or a step, with goals: {meet: [...]}; countsim help size)", args[0])}
	}
	if err := writeSizes(env, sized, all); err != nil {
		return err
	}
	dir, notes, err := drawFrontiers(env.out, sized, all)
	if err != nil {
		return err
	}
	for _, n := range notes {
		if !env.quiet {
			fmt.Fprintf(env.stderr, "countsim: frontier chart %s\n", n)
		}
	}
	if dir != "" && !env.quiet {
		fmt.Fprintf(env.stderr, "countsim: frontier charts: %s\n", dir)
	}
	if env.write != "" {
		if err := writeSizedScenario(env, sized[0], all); err != nil {
			return err
		}
		fmt.Fprintf(env.stderr, "countsim: wrote %s\n", env.write)
	}
	var unmet []string
	for _, st := range sized {
		if !slices.ContainsFunc(all, func(s size.Sized) bool { return s.Scenario == st.ID() && s.Found != nil }) {
			unmet = append(unmet, st.ID())
		}
	}
	if len(unmet) > 0 {
		return fmt.Errorf("size: no design meets the goals of %s", strings.Join(unmet, ", "))
	}
	return nil
}

// sizeRow is one design's line of the table, as every format prints it.
type sizeRow struct {
	Scenario string         `json:"scenario"`
	Design   string         `json:"design"`
	Type     string         `json:"type"`
	Knob     string         `json:"knob,omitempty"`
	Size     string         `json:"size"`
	Params   map[string]any `json:"params,omitempty"`
	Bytes    *float64       `json:"bytes,omitempty"`
	Plan     string         `json:"plan"`
	PlanSize *float64       `json:"plan_size,omitempty"`
	Measured string         `json:"measured"`
	Verdict  string         `json:"verdict"`
	Runs     int            `json:"trial_runs"`
	Goals    []goalCheck    `json:"goals,omitempty"`
}

// goalCheck is one goal judged at the size reported.
type goalCheck struct {
	Goal  string  `json:"goal"`
	Worst float64 `json:"worst"`
	Pass  bool    `json:"pass"`
	Note  string  `json:"note"`
}

func sizeRows(steps []*scenarios.Scenario, all []size.Sized) []sizeRow {
	conf := map[string][2]float64{}
	for _, st := range steps {
		conf[st.ID()] = [2]float64{st.Goals.Confidence, st.FalseAlarm}
	}
	var rows []sizeRow
	for _, s := range all {
		r := sizeRow{Scenario: s.Scenario, Design: s.Design, Type: s.Type, Knob: s.Knob, Plan: s.ClosedNote, Runs: s.Runs}
		if s.Closed > 0 {
			r.PlanSize = &s.Closed
		}
		p := s.Chosen()
		switch {
		case s.Skipped != "":
			r.Verdict = "not sized: " + s.Skipped
		case p == nil:
			r.Verdict = "not sized: no candidate ran"
		case s.Found != nil:
			r.Verdict = "meets every goal"
			if len(s.Unanswered) > 0 {
				r.Verdict += " it answers (not " + strings.Join(s.Unanswered, ", ") + ")"
			}
		default:
			r.Verdict = "MISSES: " + missText(p)
		}
		if p != nil {
			r.Size = sizeText(s, p)
			r.Params = map[string]any{}
			for _, q := range p.Params {
				r.Params[q.Key] = q.Value
			}
			if p.Bytes > 0 {
				r.Bytes = &p.Bytes
			}
			var ms []string
			c := conf[s.Scenario]
			for _, ch := range p.Checks {
				r.Goals = append(r.Goals, goalCheck{Goal: ch.Goal.Text, Worst: ch.Worst, Pass: ch.Pass, Note: ch.Note(c[0], c[1])})
				if ch.PerKey {
					ms = append(ms, fmt.Sprintf("%s %s, %s of %s keys over, p = %.3g", ch.Goal.Metric, metrics.Format(ch.Worst), metrics.Format(ch.Over), metrics.Format(ch.Keys), ch.P))
				} else if !ch.Measured {
					ms = append(ms, ch.Goal.Metric+" not measured: does not apply")
				} else {
					ms = append(ms, fmt.Sprintf("%s %s (held in %d of %s, fail ≤ %.2g)", ch.Goal.Metric, metrics.Format(ch.Worst), ch.Trials-ch.Failed, plural(ch.Trials, "trial"), ch.Upper))
				}
			}
			if p.Err != "" {
				ms = append(ms, p.Err)
			}
			r.Measured = strings.Join(ms, "; ")
		}
		rows = append(rows, r)
	}
	return rows
}

// sizeText is the size as the table says it: the knob and what was set
// beside it.
func sizeText(s size.Sized, p *size.Point) string {
	var parts []string
	for _, q := range p.Params {
		if q.Key == s.Knob || !slices.ContainsFunc(s.Entry.Params, func(e scenarios.Param) bool { return e.Key == q.Key && e.Value == q.Value }) {
			v := fmt.Sprint(q.Value)
			if n, ok := q.Value.(int64); ok {
				v = metrics.Format(float64(n))
			}
			parts = append(parts, q.Key+" "+v)
		}
	}
	return strings.Join(parts, ", ")
}

// missText says which goals failed at p and by how much.
func missText(p *size.Point) string {
	if p.Err != "" {
		return p.Err
	}
	var out []string
	for _, c := range p.Checks {
		if !c.Pass {
			out = append(out, fmt.Sprintf("%s: worst %s, %.3g%% past %s", c.Goal.Text, metrics.Format(c.Worst), 100*c.Miss, metrics.Format(c.Goal.Value)))
		}
	}
	return strings.Join(out, "; ")
}

// writeSizes prints the rows in env.format, each step's goals first, and
// a line for each step whose goals no design met.
func writeSizes(env *cmdEnv, steps []*scenarios.Scenario, all []size.Sized) error {
	rows := sizeRows(steps, all)
	w := env.stdout
	switch env.format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"scenario", "design", "type", "size", "bytes", "plan_size", "plan", "measured", "verdict", "trial_runs"})
		for _, r := range rows {
			cw.Write([]string{r.Scenario, r.Design, r.Type, r.Size, num(r.Bytes), num(r.PlanSize), r.Plan, r.Measured, r.Verdict, fmt.Sprint(r.Runs)})
		}
		cw.Flush()
		return cw.Error()
	}
	for i, st := range steps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		heading := st.Heading()
		if heading == "" {
			heading = st.ID()
		}
		fmt.Fprintf(w, "# %s — size to: %s\n\n", heading, st.Goals)
		var tw io.Writer = w
		var tab *tabwriter.Writer
		sep := "\t"
		if env.format == "md" {
			fmt.Fprintln(w, "| design | type | size | bytes | plan | measured (worst over trials) | verdict |")
			fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
		} else {
			tab = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			tw = tab
			fmt.Fprintln(tw, "design\ttype\tsize\tbytes\tplan\tmeasured (worst over trials)\tverdict")
		}
		met := false
		for _, r := range rows {
			if r.Scenario != st.ID() {
				continue
			}
			met = met || strings.HasPrefix(r.Verdict, "meets every goal")
			cells := []string{r.Design, r.Type, r.Size, num(r.Bytes), r.Plan, r.Measured, r.Verdict}
			if env.format == "md" {
				fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
			} else {
				fmt.Fprintln(tw, strings.Join(cells, sep))
			}
		}
		if tab != nil {
			if err := tab.Flush(); err != nil {
				return err
			}
		}
		if !met {
			fmt.Fprintf(w, "\nNo design meets %s.%s\n", st.Goals, closestText(st.ID(), all))
		}
		if trials, ok := wholeAnswerTrials(st.ID(), all); ok {
			c := st.Goals.Confidence
			fmt.Fprintf(w, "\nA whole-answer goal must hold in every trial (%d here), and the bound printed beside it is its failure rate's (Clopper–Pearson at %g): to show that rate under %.3g takes %s without a failure (goals: trials: %d).\n",
				trials, c, 1-c, plural(size.TrialsToShow(c), "trial"), size.TrialsToShow(c))
		}
	}
	return nil
}

// closestText names the design that missed the goals by least.
func closestText(id string, all []size.Sized) string {
	for _, s := range all { // sorted: the closest unmet first after those met
		if s.Scenario == id && s.Closest != nil {
			return fmt.Sprintf(" Closest: %s at %s, which misses %s.", s.Design, sizeText(s, s.Closest), missText(s.Closest))
		}
	}
	return ""
}

func num(v *float64) string {
	if v == nil {
		return ""
	}
	return metrics.Format(*v)
}

// writeSizedScenario writes the chosen designs of every step sized as a
// ready scenario at env.write, the goals as their expectations.
func writeSizedScenario(env *cmdEnv, scn *scenarios.Scenario, all []size.Sized) error {
	data, err := scenarios.SourceOf(scn)
	if err != nil {
		return err
	}
	designs := map[string][]scenarios.SizedEntry{}
	for _, s := range all {
		p := s.Chosen()
		if s.Skipped != "" || p == nil || p.Err != "" {
			continue
		}
		step := ""
		if i := strings.Index(s.Scenario, "/"); i >= 0 {
			step = s.Scenario[i+1:]
		}
		var goals []string
		for _, c := range p.Checks {
			if c.Measured {
				goals = append(goals, c.Goal.Text)
			}
		}
		verdict := "meets every goal"
		if s.Found == nil {
			verdict = "the closest, MISSES: " + missText(p)
		}
		designs[step] = append(designs[step], scenarios.SizedEntry{Name: s.Design, Type: s.Type, Params: p.Params, Expect: goals,
			Comment: fmt.Sprintf("countsim size: %s; %s over %s", sizeText(s, p), verdict, plural(s.Runs, "trial run"))})
	}
	out, err := scenarios.WriteSized(scn.File, data, env.sets, scn.Name+"-sized", designs)
	if err != nil {
		return err
	}
	err = metrics.WriteFile(env.write, writeBytes(out))
	if errors.Is(err, fs.ErrExist) {
		return &usageError{msg: fmt.Sprintf("size: -write %s: the file exists (allowed: a new file; size never writes over one)", env.write)}
	}
	return err
}

// wholeAnswerTrials reports whether a design of step id was judged on a
// whole-answer goal (one that must hold in every trial), and over how many
// trials.
func wholeAnswerTrials(id string, all []size.Sized) (int, bool) {
	for _, s := range all {
		if p := s.Chosen(); s.Scenario == id && p != nil {
			for _, c := range p.Checks {
				if c.Measured && !c.PerKey {
					return c.Trials, true
				}
			}
		}
	}
	return 0, false
}
