package report

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"countsim/metrics"
)

// Run is everything a report shows of one run.
type Run struct {
	Partial   bool
	Scenarios []Scenario
	Manifest  []byte // manifest.json, shown last
	// ChartFont is the TrueType font the charts' SVGs are laid out in
	// (Liberation Sans), embedded once in report.html; nil: not embedded.
	ChartFont []byte
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
	Sweeps      []Sweep // the designs that are one entry swept over a parameter
	// Charts are the step's charts: the one marked Answer (else the
	// first) stands under the summary, the others fold under it.
	Charts []Chart
}

// Sweep is one entry of a scenario swept over a parameter: the designs it
// stands for, one a value, in the order swept. A summary of many designs
// groups them under the entry's name.
type Sweep struct {
	Name, Key string
	Members   []string // the designs' names, as in Step.Designs
	Values    []string // the parameter's value of each
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
	// Answer marks the chart that answers the step's question: it stands
	// first, under the summary.
	Answer bool
}

// answerFirst is charts with the one marked Answer first, else as they
// are.
func answerFirst(charts []Chart) []Chart {
	i := slices.IndexFunc(charts, func(c Chart) bool { return c.Answer })
	if i <= 0 {
		return charts
	}
	out := append([]Chart{charts[i]}, charts[:i]...)
	return append(out, charts[i+1:]...)
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
	{metrics.FaultFailedOps, "ops failed in store faults"},
	{metrics.LostOnFailover, "lost on a failover"},
	{metrics.FaultRecovery, "recovered after a store fault, s"},
	{metrics.OutageAvailability, "write availability in the outage"},
	{metrics.WriteAvailability, "write availability"},
	{metrics.WritesFailed, "writes failed (given up)"},
	{metrics.WritesLost, "writes lost"},
	{metrics.WritesCountedTwice, "writes counted twice"},
	{metrics.CountsDropped, "counts dropped by failed flushes"},
	{metrics.ReadAvailability, "read availability"},
	{metrics.ShownAgeMax, "oldest total a failed read showed, s"},
	{metrics.Messages, "messages sent"},
	{metrics.KeptUp, "kept pace on the real store"},
	{metrics.AchievedOps, "real store, ops/s achieved"},
	{metrics.LatencyP99, "real store, latency p99, s"},
	{metrics.StoreRanks, "ranks wrong on the real store"},
	{metrics.SigmaLargeN, "σ at large n, %"},
}

// Cell is one design's answer to one question of the summary.
type Cell struct {
	Value string // measured
	Plan  string // the plan beside it, where the row has one
	Mark  string // MarkHeld, MarkTrap, MarkFailed, or "" where nothing judged it
}

// Row is one question of a step's summary, or one part of it where a
// design measured the question several times (each day of an audience,
// each planted phrase, each statistic over trials): Part names which.
type Row struct {
	Question string
	Metric   metrics.Metric
	Part     string // "" for a question measured once a design
	Cells    []Cell // by design, as Step.Designs
}

// Label is the row's question with its part: "distinct count error, % — day 1".
func (r Row) Label() string {
	if r.Part == "" {
		return r.Question
	}
	return r.Question + " — " + r.Part
}

// Summary is the rows of a step's summary: one per question its designs
// answered, the designs' values side by side with their plans and marks.
// A question a design measured in several rows is a row a part, each
// named by its row's statistic or the head of its note ("day 1" of "day 1;
// plan: …", "burst" of "burst: from its start …"), so that every value
// says what it is.
func (sc *Scenario) Summary(st *Step) []Row {
	var rows []Row
	seen := map[metrics.Metric]bool{}
	add := func(metric metrics.Metric, question string) {
		if seen[metric] {
			return
		}
		seen[metric] = true
		// Each design's rows of the metric, and their parts' names.
		per := make([][]metrics.Result, len(st.Designs))
		several := false
		for i, d := range st.Designs {
			for _, r := range sc.Results {
				if r.Strategy == d && r.Metric == metric && r.Scale == metrics.Sim && r.Value != nil {
					per[i] = append(per[i], r)
				}
			}
			several = several || len(per[i]) > 1
		}
		var parts []string
		names := make([][]string, len(st.Designs))
		if several {
			for i, rs := range per {
				names[i] = partNames(rs)
				for _, n := range names[i] {
					if !slices.Contains(parts, n) {
						parts = append(parts, n)
					}
				}
			}
		} else {
			parts = []string{""}
		}
		for _, part := range parts {
			row := Row{Question: question, Metric: metric, Part: part, Cells: make([]Cell, len(st.Designs))}
			any := false
			for i, d := range st.Designs {
				for j, r := range per[i] {
					if several && names[i][j] != part {
						continue
					}
					c := &row.Cells[i]
					c.Value = metrics.Format(*r.Value)
					if r.Plan != nil {
						c.Plan = metrics.Format(*r.Plan)
					}
					c.Mark = mark(st.Verdicts, d, metric)
					any = true
					break
				}
			}
			if any {
				rows = append(rows, row)
			}
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

// partNames names the rows a design measured of one metric: each row's
// statistic over trials, else the head of its note, up to its first ";"
// or ":"; "row i" where that leaves two rows of one name or none.
func partNames(rs []metrics.Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		n := r.Stat
		if n == "" {
			n = r.Note
			if j := strings.IndexAny(n, ";:"); j >= 0 {
				n = n[:j]
			}
			n = strings.TrimSpace(n)
		}
		out[i] = n
	}
	for i, n := range out {
		if n == "" || slices.Index(out, n) != i {
			for j := range out {
				out[j] = fmt.Sprintf("row %d", j+1)
			}
			break
		}
	}
	return out
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

// sweepOf is the sweep design d is a member of, and its index there; nil
// when it is none's.
func (st *Step) sweepOf(d string) (*Sweep, int) {
	for i := range st.Sweeps {
		if j := slices.Index(st.Sweeps[i].Members, d); j >= 0 {
			return &st.Sweeps[i], j
		}
	}
	return nil, -1
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

// heading is a step's heading: its title (capitalised: "Step 1: one hot
// view counter" of "step 1: one hot view counter"), "Step NAME" without
// one, or the scenario's title for a scenario not told in steps.
func (st *Step) heading(sc *Scenario) string {
	if st.Name == "" {
		return sc.Title
	}
	if st.Title == "" {
		return "Step " + st.Name
	}
	r, n := utf8.DecodeRuneInString(st.Title)
	return string(unicode.ToUpper(r)) + st.Title[n:]
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

// text is a cell in one line: the value, the plan after a slash (or "=
// plan" where they are equal), and the mark.
func (c Cell) text() string {
	if c.Value == "" {
		return ""
	}
	s := c.Value
	switch c.Plan {
	case "":
	case c.Value:
		s += " = plan"
	default:
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
