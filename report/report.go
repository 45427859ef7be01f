package report

import (
	"fmt"
	"strings"

	"countsim/metrics"
)

// Run is everything a report shows of one run.
type Run struct {
	Partial   bool
	Scenarios []Scenario
	Manifest  []byte // manifest.json, shown last
}

// Scenario is one scenario of the run: its steps (one, unnamed, for a
// scenario not told in steps), its rows, tables and charts.
type Scenario struct {
	Name, Title, File string
	Seed              uint64
	Steps             []Step
	Results           []metrics.Result
	Tables            []metrics.Table
	Charts            []Chart // charts of no step of the scenario's
}

// Step is one step of a scenario: what it simulates and its designs.
type Step struct {
	Name, Title string // "" for a scenario not told in steps
	Description string
	Describe    string   // one line: what the run simulated
	Notes       []string // what a reader must know that no row says
	Figures     []string // the linked figures' lines
	Designs     []string // the designs' names, in the scenario's order: the summary's columns
	Verdicts    []Verdict
	Charts      []Chart // the step's charts, after its summary
}

// Verdict is one expectation of a design, judged: a bound or goal of its
// expect: list, or a trap of its shows: list.
type Verdict struct {
	Design, Metric, Text string
	Pass                 bool // the bound held, or the trap showed
	Trap                 bool // a shows: item: holding, it shows a trap on purpose
}

// The marks of a summary's cells, and the legend that says them.
const (
	MarkHeld   = "✔" // every bound on the figure held
	MarkFailed = "✘" // a bound on it failed, or a trap it should show did not
	MarkTrap   = "⚠" // it shows a trap on purpose: the failure the scenario exists to show
)

// legend is what each mark says, with the class the HTML legend gives it.
var legend = []struct{ mark, class, says string }{
	{MarkHeld, "held", "a bound or goal the design meets held (expect:)"},
	{MarkTrap, "trap", "a trap or failure the scenario shows on purpose showed (shows:): the worst figure of its design, not one to copy"},
	{MarkFailed, "failed", "a bound failed, or a trap did not show"},
}

// Legend says the marks in a sentence; it stands above a report's first
// table.
var Legend = func() string {
	var parts []string
	for _, l := range legend {
		parts = append(parts, l.mark+" "+l.says)
	}
	return strings.Join(parts, "; ") + "."
}()

// Chart is one chart of a scenario: its title, its SVG (inlined in the
// HTML page) and its path in the report folder (linked from report.md).
type Chart struct {
	Title string
	SVG   []byte
	Path  string // relative to the report folder, with forward slashes
}

// headline is a row of a step's summary: a question and the metric that
// answers it.
type headline struct {
	metric   metrics.Metric
	question string
}

// headlines are the summary's questions, in order; a step shows those its
// designs measured, then any other metric an expectation names.
var headlines = []headline{
	{metrics.CountError, "final count − truth"},
	{metrics.Undercounts, "keys counted below the truth"},
	{metrics.MaxOverestimate, "largest overestimate"},
	{metrics.PlantedEstimate, "the planted key's estimate"},
	{metrics.PlantedExcess, "its excess over the true count"},
	{metrics.TopKRecall, "top-K recall"},
	{metrics.TopKCountBias, "top-K count error, mean"},
	{metrics.RelativeError, "distinct count error, %"},
	{metrics.RankErrorMean, "rank error, mean"},
	{metrics.RanksWrongCompetition, "competition ranks wrong"},
	{metrics.TrendRecall, "trending recall"},
	{metrics.FalseTrending, "false trending share"},
	{metrics.DetectLatency, "burst detected after, s"},
	{metrics.Bytes, "memory, bytes"},
	{metrics.TotalBytes, "memory, bytes (all parts)"},
	{metrics.MaxKeyOps, "busiest key, ops/s"},
	{metrics.Utilisation, "key utilisation"},
	{metrics.BacklogGrowth, "backlog growth, ops/s"},
	{metrics.MaxNodeOps, "busiest node, ops/s"},
	{metrics.StripesHeld, "stripes held, all posts"},
	{metrics.StripesPerPost, "stripes a post"},
	{metrics.PostsOverCapacity, "posts over a key's capacity"},
	{metrics.SecondsOverCapacity, "post-seconds over capacity"},
	{metrics.ViralOverCapacity, "viral post over capacity, s"},
	{metrics.ViralRescue, "viral post's stripes enough after, s"},
	{metrics.ViralQueueMax, "viral post's longest queue, likes"},
	{metrics.ReadOpsPerSec, "store reads, ops/s"},
	{metrics.StalenessMaxSec, "oldest count shown, s"},
	{metrics.LostOnCrash, "lost on a crash"},
	{metrics.Messages, "messages sent"},
	{metrics.KeptUp, "kept pace on the real store"},
	{metrics.AchievedOps, "real store, ops/s achieved"},
	{metrics.LatencyP99, "real store, latency p99, s"},
	{metrics.StoreRanks, "ranks wrong on the real store"},
	{metrics.SigmaLargeN, "σ at large n, %"},
}

// Cell is one design's answer to one question of the summary.
type Cell struct {
	Values []string // measured, one per row of the metric (days, checkpoints)
	Plan   string   // the plan beside it, when one row has one
	Mark   string   // MarkHeld, MarkTrap, MarkFailed, or "" where nothing judged it
}

// Row is one question of a step's summary.
type Row struct {
	Question string
	Metric   metrics.Metric
	Cells    []Cell // by design, as Step.Designs
}

// Summary is the rows of a step's summary: one per question its designs
// answered, the designs' values side by side with their plans and marks.
func (sc *Scenario) Summary(st *Step) []Row {
	var rows []Row
	seen := map[metrics.Metric]bool{}
	add := func(metric metrics.Metric, question string) {
		if seen[metric] {
			return
		}
		seen[metric] = true
		row := Row{Question: question, Metric: metric, Cells: make([]Cell, len(st.Designs))}
		any := false
		for i, d := range st.Designs {
			c := &row.Cells[i]
			for _, r := range sc.Results {
				if r.Strategy != d || r.Metric != metric || r.Scale != metrics.Sim || r.Value == nil {
					continue
				}
				if len(c.Values) < 4 {
					c.Values = append(c.Values, metrics.Format(*r.Value))
				}
				if r.Plan != nil && c.Plan == "" {
					c.Plan = metrics.Format(*r.Plan)
				}
				any = true
			}
			c.Mark = mark(st.Verdicts, d, metric)
		}
		if any {
			rows = append(rows, row)
		}
	}
	for _, h := range headlines {
		add(h.metric, h.question)
	}
	for _, v := range st.Verdicts {
		add(metrics.Metric(v.Metric), strings.ReplaceAll(v.Metric, "_", " "))
	}
	return rows
}

// mark is the cell of design on metric marked by its verdicts: ✘ when a
// bound failed or a trap did not show; else ⚠ when a trap showed, even
// beside a bound that held (a shown trap is never marked ✔); else ✔ when
// bounds held; "" when nothing judged it.
func mark(vs []Verdict, design string, metric metrics.Metric) string {
	m := ""
	for _, v := range vs {
		if v.Design != design || metrics.Metric(v.Metric) != metric {
			continue
		}
		switch {
		case !v.Pass:
			return MarkFailed
		case v.Trap:
			m = MarkTrap
		case m == "":
			m = MarkHeld
		}
	}
	return m
}

// failed lists the expectations of a step that did not hold: bounds that
// failed and traps that did not show.
func (st *Step) failed() []Verdict {
	var out []Verdict
	for _, v := range st.Verdicts {
		if !v.Pass {
			out = append(out, v)
		}
	}
	return out
}

// heading is a step's heading: its title, or the scenario's.
func (st *Step) heading(sc *Scenario) string {
	if st.Name == "" {
		return sc.Title
	}
	t := st.Title
	if t == "" {
		t = st.Name
	}
	return fmt.Sprintf("Step %s: %s", st.Name, t)
}

// anchor is an HTML id for a name.
func anchor(parts ...string) string {
	s := strings.ToLower(strings.Join(parts, "-"))
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '-'
	}, s)
}

// text is a cell in one line: the values, the plan after a slash, and
// the mark.
func (c Cell) text() string {
	if len(c.Values) == 0 {
		return ""
	}
	s := strings.Join(c.Values, " · ")
	if c.Plan != "" && len(c.Values) == 1 {
		s += " / " + c.Plan
	}
	if c.Mark != "" {
		s += " " + c.Mark
	}
	return s
}

// passed counts a step's bounds held and all, and its traps shown and
// all.
func (st *Step) passed() (held, bounds, shown, traps int) {
	for _, v := range st.Verdicts {
		switch {
		case v.Trap:
			traps++
			if v.Pass {
				shown++
			}
		default:
			bounds++
			if v.Pass {
				held++
			}
		}
	}
	return held, bounds, shown, traps
}

// judged reports whether any step of the run has a verdict.
func (r *Run) judged() bool {
	for _, sc := range r.Scenarios {
		for _, st := range sc.Steps {
			if len(st.Verdicts) > 0 {
				return true
			}
		}
	}
	return false
}

// tally says a step's verdicts in a sentence: "12 of 13 bounds hold; 2
// of 2 traps shown." ("" without verdicts).
func (st *Step) tally() string {
	held, bounds, shown, traps := st.passed()
	var parts []string
	if bounds > 0 {
		verb := "hold"
		if bounds == 1 {
			verb = "holds"
		}
		parts = append(parts, fmt.Sprintf("%d of %s %s", held, plural(bounds, "bound"), verb))
	}
	if traps > 0 {
		parts = append(parts, fmt.Sprintf("%d of %s shown", shown, plural(traps, "trap")))
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + "."
}

// why is a failed verdict in a few words: the bound, or the trap that did
// not show.
func (v Verdict) why() string {
	if v.Trap {
		return v.Text + " (trap not shown)"
	}
	return v.Text
}

// plural is "1 design", "2 designs".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
