package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"countsim/metrics"
	"countsim/render"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/sim/engine"
)

const renderUsage = "render [-out FILE] [-reports DIR] [-set PATH=VALUE] [-mem GiB] [-q] TEMPLATE | render -list | render -check FILE"

// renderFlags are render's own flags.
type renderFlags struct {
	out     string // -out FILE
	reports string // -reports DIR
	list    bool   // -list
	check   bool   // -check: the argument is a rendered page to check
}

var cmdRender = &command{
	Name:      "render",
	UsageLine: renderUsage,
	Short:     "write a worked example as prose from a template, every number planned or measured",
	Long: `
Render turns a template into a page of prose whose every number comes from a
run: TEMPLATE is a Markdown file (Go's text/template), or the name of a
built-in one (render -list names them). Its front matter names the scenarios
behind it:

    ---
    scenarios: cricket-final, search
    ---

and its text calls functions for the numbers. STEP is a step's name, a
scenario's (one not told in steps) or SCENARIO/STEP; DESIGN a design's name
or the truth's (truth, truth-STEP); WHICH, optional, picks one of several
rows: sim or full (the scale of a plan; a plan is taken at full scale where
it has one), mean, min, p50, p95 or max (of a scenario run in trials), or a
word of the row's note ("union", "day 1").

    {{plan STEP DESIGN METRIC [WHICH…]}}      the closed-form value
    {{measured STEP DESIGN METRIC [WHICH…]}}  the value measured
    {{formula STEP DESIGN METRIC [WHICH…]}}   the plan's arithmetic, as its note states it ("200,000 / 32 = 6,250")
    {{note STEP DESIGN METRIC [WHICH…]}}      the plan's note, whole
    {{spread STEP DESIGN METRIC [WHICH…]}}    the least and the most measured over trials ("6,400–6,610")
    {{ratio A B}} {{diff A B}} {{sum A B}} {{times A B}}   A/B, A−B, A+B, A×B: worked out of two numbers
    {{… | over B}}       the number piped in, divided by B
    {{… | within "5%"}}  a measured figure may move by 5% of its new value (or "200": by 200) before the page is stale
    {{… | int}} {{… | num}} {{… | fixed 1}} {{… | sig 3}} {{… | pct}} {{… | pct 1}} {{… | bytes}} {{… | words}} {{… | x}}
        formats: rounded with thousands separated; as the tables (four significant digits);
        1 decimal; 3 significant digits; a share as a percentage; with 1 decimal;
        12.3 KB, 320 MB; 48 million; 26,042×
    {{table STEP METRIC…}}  a Markdown table: a row a design, a column a metric, measured (plan)
    {{chart STEP NAME}}     the run's chart NAME of the step (key-load, backlog…), as an image

Every call is checked against the prepared scenarios before anything runs: a
step, design or metric they do not have is refused with the template's
file:line and what is allowed, exit 2 (a call that several rows answer is
known only once they are measured: refused the same way after the run, no
page written). Then the scenarios run as by
countsim run — the report folder is written under -reports (by default the
folder of -out, or ./reports), its manifest naming the template — and the
page is written to -out (or stdout), the charts copied beside it as
NAME-STEP-CHART.png. Its last line is a stamp: the template, the -set
overrides, and the measured figures given a tolerance.

-out never overwrites a file, unless that file is a page rendered from the
same template: its stamp (last line) names the same built-in, or the same
template file.

render -check FILE renders the template FILE was made from again (with the
-set overrides its stamp records, then those given) and compares the two
sentence by sentence: a figure given a tolerance may have moved within it,
nothing else may. It prints each sentence that moved, as FILE has it (-)
and as it is now (+), and exits 1; 0 when the page is up to date. It writes
nothing: the run's report goes to a temporary folder, removed after.`,
	SetFlags: func(fs *flag.FlagSet, env *cmdEnv) {
		rf := &renderFlags{}
		renderOpts.Lock()
		renderOpts.m[env] = rf
		renderOpts.Unlock()
		fs.StringVar(&rf.out, "out", "", "write the page to `FILE` (default stdout)")
		fs.StringVar(&rf.reports, "reports", "", "write the run's report folder under `DIR` (default: -out's folder, or reports)")
		fs.BoolVar(&rf.list, "list", false, "list the built-in templates")
		fs.BoolVar(&rf.check, "check", false, "take the argument as a rendered page: render its template again, and exit 1 if its numbers moved")
		designFlags(fs, env)
		fs.BoolVar(&env.quiet, "q", false, "print no progress lines")
	},
	Run: runRender,
}

// renderOpts holds each command environment's render flags (SetFlags
// makes them, runRender takes them; cmdEnv, shared by every command, stays
// as it is).
var renderOpts = struct {
	sync.Mutex
	m map[*cmdEnv]*renderFlags
}{m: map[*cmdEnv]*renderFlags{}}

// runRender is `countsim render`.
func runRender(ctx context.Context, env *cmdEnv, args []string) error {
	renderOpts.Lock()
	rf := renderOpts.m[env]
	delete(renderOpts.m, env)
	renderOpts.Unlock()
	switch {
	case rf.list:
		if len(args) > 0 || rf.check || rf.out != "" {
			return &usageError{msg: "render -list takes nothing else"}
		}
		for _, name := range render.BuiltinNames() {
			fmt.Fprintln(env.stdout, name)
		}
		return nil
	case rf.check:
		if len(args) != 1 || rf.out != "" {
			return &usageError{msg: "render -check takes one rendered page, and no -out: the template is the one the page names",
				hint: "usage: countsim " + renderUsage}
		}
		return renderCheck(ctx, env, args[0])
	case len(args) != 1:
		return &usageError{msg: "render: name one template (a file, or a built-in: countsim render -list)", hint: "usage: countsim " + renderUsage}
	}
	t, ref, err := loadTemplate(args[0], "")
	if err != nil {
		return err
	}
	stampRef := ref
	if rf.out != "" && !strings.HasPrefix(ref, render.BuiltinPrefix) {
		// The stamp names the template from the page's folder, so that
		// -check finds it wherever the two move together.
		if rel, err := filepath.Rel(filepath.Dir(rf.out), ref); err == nil {
			stampRef = filepath.ToSlash(rel)
		}
	}
	if err := checkRenderOut(rf.out, ref); err != nil {
		return err
	}
	reports := rf.reports
	switch {
	case reports != "":
	case rf.out != "":
		reports = filepath.Dir(rf.out)
	default:
		reports = "reports"
	}
	var sets []string
	for _, s := range env.sets {
		sets = append(sets, s.Arg)
	}
	page, dir, err := renderRun(ctx, env, t, reports, chartPrefix(rf.out))
	if err != nil {
		return err
	}
	doc, err := page.Document(stampRef, sets)
	if err != nil {
		return err
	}
	if rf.out == "" {
		_, err := io.WriteString(env.stdout, doc)
		fmt.Fprintf(env.stderr, "countsim: report: %s\n", dir)
		return err
	}
	if err := os.MkdirAll(filepath.Dir(rf.out), 0o755); err != nil {
		return err
	}
	// A page of the same template is replaced, with its charts; a new
	// page is written beside nothing of the same name.
	_, err = os.Stat(rf.out)
	replace := err == nil
	for _, c := range page.Charts {
		b, err := os.ReadFile(c.From)
		if err != nil {
			return err
		}
		if err := writePageFile(filepath.Join(filepath.Dir(rf.out), c.To), b, replace); err != nil {
			return err
		}
	}
	if err := writePageFile(rf.out, []byte(doc), replace); err != nil {
		return err
	}
	fmt.Fprintf(env.stderr, "countsim: wrote %s (%s, %s); report: %s\n", rf.out, plural(len(page.Figures), "figure")+" with a tolerance", plural(len(page.Charts), "chart"), dir)
	return nil
}

// chartPrefix is what the copies of a page's charts are named from: the
// page's file name less .md; "" for a page on stdout, which links to the
// report folder's charts instead.
func chartPrefix(out string) string {
	if out == "" {
		return ""
	}
	return strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
}

// loadTemplate reads the template arg names: a file (relative to base
// when base is not ""), or a built-in's name (builtin:NAME too). ref is
// how a stamp names it: builtin:NAME, or the file's path.
func loadTemplate(arg, base string) (t *render.Template, ref string, err error) {
	path := arg
	if base != "" && !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	name, isBuiltin := strings.CutPrefix(arg, render.BuiltinPrefix)
	if src, err := os.ReadFile(path); err == nil && !isBuiltin {
		t, err := render.Parse(path, src)
		return t, path, err
	} else if !errors.Is(err, fs.ErrNotExist) && !isBuiltin {
		return nil, "", err
	}
	if !slices.Contains(render.BuiltinNames(), name) {
		if isBuiltin || !strings.ContainsAny(arg, `/\.`) {
			_, err := render.Builtin(name)
			return nil, "", &usageError{msg: "render: " + err.Error()}
		}
		return nil, "", &usageError{msg: fmt.Sprintf("render: no template file %s, and no built-in of that name (allowed: %s)", path, strings.Join(render.BuiltinNames(), ", "))}
	}
	t, err = render.Builtin(name)
	return t, render.BuiltinPrefix + name, err
}

// checkRenderOut refuses an -out that holds a file other than a page
// rendered from the same template (ref as loadTemplate gives it).
func checkRenderOut(out, ref string) error {
	if out == "" {
		return nil
	}
	b, err := os.ReadFile(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return &usageError{msg: fmt.Sprintf("-out %s: %v", out, err)}
	}
	_, stamp, ok, err := render.ReadDocument(string(b))
	if !ok || err != nil {
		return &usageError{msg: fmt.Sprintf("-out %s: the file exists and is not a page countsim render wrote (allowed: a new file, or a page rendered from %s)", out, ref)}
	}
	was := stamp.Template
	if !strings.HasPrefix(was, render.BuiltinPrefix) && !filepath.IsAbs(was) {
		was = filepath.Join(filepath.Dir(out), was)
	}
	if !sameTemplate(was, ref) {
		return &usageError{msg: fmt.Sprintf("-out %s: the file is a page rendered from %s, not from %s: it is left as it is (allowed: a new file, or a page of the same template)", out, stamp.Template, ref)}
	}
	return nil
}

// sameTemplate reports whether two references name one template.
func sameTemplate(a, b string) bool {
	if strings.HasPrefix(a, render.BuiltinPrefix) || strings.HasPrefix(b, render.BuiltinPrefix) {
		return a == b
	}
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

// renderRun prepares the template's scenarios, checks every call against
// them (the first pass), runs them into a report folder under reports,
// and renders the page from the rows. It returns the page and the folder.
func renderRun(ctx context.Context, env *cmdEnv, t *render.Template, reports, prefix string) (*render.Page, string, error) {
	var names []string
	for _, s := range t.Scenarios {
		if strings.HasSuffix(s, ".yaml") || strings.HasSuffix(s, ".yml") || strings.ContainsAny(s, `/\`) {
			if dir := filepath.Dir(t.File); !strings.HasPrefix(t.File, render.BuiltinPrefix) && !filepath.IsAbs(s) {
				s = filepath.Join(dir, s)
			}
		}
		names = append(names, s)
	}
	env.realStores = true
	setups, err := prepareAll(names, env)
	if err != nil {
		var se *scenarios.Error
		if !errors.As(err, &se) || se.Pos.File == "" {
			return nil, "", fmt.Errorf("%s:%d: %w", t.File, t.ScenariosLine, err)
		}
		return nil, "", err
	}
	opts := render.Options{ChartPrefix: prefix}
	if _, err := render.Execute(t, planData(setups), opts); err != nil {
		return nil, "", err
	}
	env.out = reports
	env.template = t.File
	if err := checkOut(env); err != nil {
		return nil, "", err
	}
	ran, err := execRun(ctx, env, setups)
	if err != nil {
		return nil, "", err
	}
	if ran.partial {
		return nil, "", fmt.Errorf("run stopped (%v): the report in %s is partial, and no page is written", ran.runErr, ran.dir)
	}
	page, err := render.Execute(t, runData(setups, ran), opts)
	if err != nil {
		return nil, "", err
	}
	return page, ran.dir, nil
}

// planData is what a template may name of the prepared setups, before
// anything runs: their designs, the metrics each reports or plans, and
// their plans.
func planData(setups []*sim.Setup) *render.Data {
	d := &render.Data{}
	for _, st := range setups {
		s := &render.Step{Scenario: st.Scenario.Name, Step: st.Scenario.Step, Metrics: map[string][]string{}}
		truth := engine.TruthName(st.Scenario)
		s.Designs = append(s.Designs, truth)
		s.Metrics[truth] = metricStrings(st.Kind.Reports(nil))
		for i := range st.Members {
			m := &st.Members[i]
			s.Designs = append(s.Designs, m.Name())
			s.Metrics[m.Name()] = metricStrings(st.Kind.Reports(m))
		}
		s.Rows = st.Plan()
		addMetrics(s, s.Rows)
		d.Steps = append(d.Steps, s)
	}
	return d
}

// addMetrics adds to what the step may be asked the metrics of rows.
func addMetrics(s *render.Step, rows []metrics.Result) {
	for _, r := range rows {
		if !slices.Contains(s.Designs, r.Strategy) {
			s.Designs = append(s.Designs, r.Strategy)
		}
		if !slices.Contains(s.Metrics[r.Strategy], string(r.Metric)) {
			s.Metrics[r.Strategy] = append(s.Metrics[r.Strategy], string(r.Metric))
		}
	}
}

// runData is planData once the run is done: each step's rows as the
// report folder holds them, and its charts.
func runData(setups []*sim.Setup, ran *ran) *render.Data {
	d := planData(setups)
	d.Measured = true
	for _, s := range d.Steps {
		s.Rows = nil
		for _, r := range ran.results {
			if r.Scenario == s.Scenario && r.Step == s.Step {
				s.Rows = append(s.Rows, r)
			}
		}
		addMetrics(s, s.Rows)
		s.Charts = map[string]string{}
		for _, f := range ran.charts {
			if f.Scenario != s.Scenario || f.Step != s.Step {
				continue
			}
			for _, p := range f.Paths {
				if strings.HasSuffix(p, ".png") { // drawn in the temporary folder: the same name in the published one
					s.Charts[f.Chart] = filepath.Join(ran.dir, "plots", filepath.Base(p))
				}
			}
		}
	}
	return d
}

// renderCheck is `countsim render -check FILE`.
func renderCheck(ctx context.Context, env *cmdEnv, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("render -check: %v", err)}
	}
	text, stamp, ok, err := render.ReadDocument(string(b))
	switch {
	case err != nil:
		return &usageError{msg: fmt.Sprintf("render -check %s: %v", file, err)}
	case !ok:
		return &usageError{msg: fmt.Sprintf("render -check %s: no stamp on its last line: not a page countsim render wrote", file)}
	}
	base := filepath.Dir(file)
	if strings.HasPrefix(stamp.Template, render.BuiltinPrefix) {
		base = ""
	}
	t, _, err := loadTemplate(stamp.Template, base)
	if err != nil {
		return err
	}
	sets, err := scenarios.ParseSets(stamp.Set)
	if err != nil {
		return &usageError{msg: fmt.Sprintf("render -check %s: its stamp's set: %v", file, err)}
	}
	env.sets = append(sets, env.sets...)
	tmp, err := os.MkdirTemp("", "countsim-render-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	page, _, err := renderRun(ctx, env, t, tmp, chartPrefix(file))
	if err != nil {
		return err
	}
	changes := render.Compare(text, stamp, page)
	if len(changes) == 0 {
		fmt.Fprintf(env.stdout, "ok: %s is up to date with %s (%s)\n", file, stamp.Template, plural(len(page.Figures), "figure")+" within a tolerance")
		return nil
	}
	for _, c := range changes {
		fmt.Fprintf(env.stdout, "%s:%d:\n", file, c.Line)
		if c.Old != "" {
			fmt.Fprintf(env.stdout, "- %s\n", c.Old)
		}
		if c.New != "" {
			fmt.Fprintf(env.stdout, "+ %s\n", c.New)
		}
	}
	return fmt.Errorf("render -check: %s is stale: %s moved (render it again: countsim render -out %s %s)",
		file, plural(len(changes), "sentence"), file, stamp.Template)
}

// writePageFile writes b to path atomically: never over a file
// (metrics.WriteFile) unless replace (metrics.ReplaceFile).
func writePageFile(path string, b []byte, replace bool) error {
	if replace {
		return metrics.ReplaceFile(path, writeBytes(b))
	}
	return metrics.WriteFile(path, writeBytes(b))
}
