package render

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"countsim/metrics"
)

// Num is a number a call gave: a plan, a measurement, or one worked out of
// them (ratio, diff). A template prints it as metrics.Format does
// (thousands separated, four significant digits), or through a formatter.
type Num struct {
	V        float64
	Unit     string
	Measured bool // measured, or worked out of a measurement
	// Tol is how far a measurement may move before the page is stale
	// (within); nil: not at all, the figure is compared as text.
	Tol *Tol
	r   *renderer
}

// Tol is a tolerance: a share of the new value (Rel, "5%") or an amount
// (Abs, "200").
type Tol struct {
	Rel, Abs float64
	Text     string // as the template gave it
}

// holds reports whether old is within the tolerance of now.
func (t Tol) holds(old, now float64) bool {
	d := math.Abs(old - now)
	return d <= t.Abs || d <= t.Rel*math.Abs(now) || old == now
}

func (n Num) String() string { return n.fig(metrics.Format(n.V)) }

// fig is text, the number formatted, marked as a figure with a tolerance
// where it has one, so that Compare may let it move.
func (n Num) fig(text string) string {
	if n.Tol == nil || n.r == nil {
		return text
	}
	n.r.figs = append(n.r.figs, Figure{Value: n.V, Text: text, Tol: *n.Tol})
	return fmt.Sprintf("%c%d%c%s%c", markOpen, len(n.r.figs)-1, markMid, text, markClose)
}

// funcStubs are the functions a template may call, for parsing; Execute
// binds them to its renderer.
var funcStubs = (&renderer{}).funcs()

// funcs is the function map: the lookups, the arithmetic, the formatters.
// A formatter takes the number last, so that it ends a pipeline:
// {{plan "views" "striped-32" "utilisation" | pct}}.
func (r *renderer) funcs() map[string]any {
	return map[string]any{
		"plan":     r.plan,
		"measured": r.measured,
		"formula":  r.formula,
		"note":     r.note,
		"within":   r.within,
		"ratio":    func(a, b any) (Num, error) { return r.arith(a, b, func(x, y float64) float64 { return x / y }) },
		"diff":     func(a, b any) (Num, error) { return r.arith(a, b, func(x, y float64) float64 { return x - y }) },
		"sum":      func(a, b any) (Num, error) { return r.arith(a, b, func(x, y float64) float64 { return x + y }) },
		"times":    func(a, b any) (Num, error) { return r.arith(a, b, func(x, y float64) float64 { return x * y }) },
		"over":     func(b, a any) (Num, error) { return r.arith(a, b, func(x, y float64) float64 { return x / y }) },
		"num":      fmtWith(metrics.Format),
		"int":      fmtWith(func(v float64) string { return metrics.Format(math.Round(v)) }),
		"fixed":    r.fixed,
		"sig":      r.sig,
		"pct":      r.pct,
		"bytes":    fmtWith(Bytes),
		"words":    fmtWith(Words),
		"x":        fmtWith(func(v float64) string { return metrics.Format(math.Round(v)) + "×" }),
		"spread":   r.spread,
		"table":    r.table,
		"chart":    r.chart,
	}
}

// plan is {{plan STEP DESIGN METRIC [WHICH…]}}: the closed-form value.
func (r *renderer) plan(step, design, metric string, which ...string) (Num, error) {
	row, err := r.lookup(step, design, metric, true, which)
	if err != nil {
		return Num{}, err
	}
	return Num{V: *row.Plan, Unit: row.Unit, r: r}, nil
}

// measured is {{measured STEP DESIGN METRIC [WHICH…]}}: the value measured.
func (r *renderer) measured(step, design, metric string, which ...string) (Num, error) {
	row, err := r.lookup(step, design, metric, false, which)
	if err != nil {
		return Num{}, err
	}
	return Num{V: *row.Value, Unit: row.Unit, Measured: true, r: r}, nil
}

// spread is {{spread STEP DESIGN METRIC [WHICH…]}}: the least and the
// most a scenario run in trials measured, "62.1–62.9".
func (r *renderer) spread(step, design, metric string, which ...string) (string, error) {
	lo, err := r.lookup(step, design, metric, false, append(which, "min"))
	if err != nil {
		return "", err
	}
	hi, err := r.lookup(step, design, metric, false, append(which, "max"))
	if err != nil {
		return "", err
	}
	if !r.data.Measured {
		return "…", nil
	}
	return metrics.Format(*lo.Value) + "–" + metrics.Format(*hi.Value), nil
}

// placeholder stands for a row not there before the run: 1, so that
// arithmetic on it stays finite in the first pass.
var placeholder = 1.0

// lookup finds a call's row, or stands in for it before the run.
func (r *renderer) lookup(step, design, metric string, planned bool, which []string) (metrics.Result, error) {
	st, err := r.data.find(step)
	if err != nil {
		return metrics.Result{}, err
	}
	row, found, err := st.row(design, metric, planned, which)
	switch {
	case err != nil:
		return row, err
	case found:
		return row, nil
	case !r.data.Measured:
		return metrics.Result{Plan: &placeholder, Value: &placeholder, Note: "0 = 0"}, nil
	}
	what := "measurement"
	if planned {
		what = "plan"
	}
	return row, fmt.Errorf("%s %s %s has no %s%s", step, design, metric, what, whichText(which))
}

func whichText(which []string) string {
	if len(which) == 0 {
		return ""
	}
	return " (" + strings.Join(which, ", ") + ")"
}

// formulaRe matches the arithmetic a plan's note states: numbers and
// operators, possibly in ⌈ ⌉ or ( ), each number possibly followed by a
// unit, and the "= NUMBER" that ends it where the note gives one.
var formulaRe = regexp.MustCompile(`[⌈(]*[0-9][0-9,.]*(?: (?:s|ms|min|h|B|KB|MB|GB))?[⌉)]*(?: [×/+−*·] [⌈(]*[0-9][0-9,.]*(?: (?:s|ms|min|h|B|KB|MB|GB))?[⌉)]*)+(?: = [0-9][0-9,.]*%?)?`)

// formula is {{formula STEP DESIGN METRIC [WHICH…]}}: the arithmetic of
// the plan as its note states it ("200,000 / 32 = 6,250"), ended by the
// plan's value ("= 18,000") where the note does not say it.
func (r *renderer) formula(step, design, metric string, which ...string) (string, error) {
	row, err := r.lookup(step, design, metric, true, which)
	if err != nil {
		return "", err
	}
	f := balanced(formulaRe.FindString(row.Note))
	if f == "" {
		return "", fmt.Errorf("the plan of %s %s %s states no arithmetic with numbers: %q (use note for it)", step, design, metric, row.Note)
	}
	if !strings.Contains(f, " = ") {
		f += " = " + metrics.Format(*row.Plan)
	}
	return f, nil
}

// balanced drops the brackets of f that close none it opens, or open
// none it closes: "20,000 − 2,000)" of "max(0, 20,000 − 2,000)".
func balanced(f string) string {
	pairs := map[rune]rune{')': '(', '⌉': '⌈'}
	rs := []rune(f)
	keep := make([]bool, len(rs))
	var open []int
	for i, c := range rs {
		keep[i] = true
		switch c {
		case '(', '⌈':
			open = append(open, i)
		case ')', '⌉':
			if len(open) > 0 && rs[open[len(open)-1]] == pairs[c] {
				open = open[:len(open)-1]
			} else {
				keep[i] = false
			}
		}
	}
	for _, i := range open {
		keep[i] = false
	}
	var b strings.Builder
	for i, c := range rs {
		if keep[i] {
			b.WriteRune(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// note is {{note STEP DESIGN METRIC [WHICH…]}}: the plan's note whole.
func (r *renderer) note(step, design, metric string, which ...string) (string, error) {
	row, err := r.lookup(step, design, metric, true, which)
	return row.Note, err
}

// within is {{… | within "5%"}} or {{… | within "200"}}: a measured
// figure may move by that share of its new value, or that amount, before
// the page is stale.
func (r *renderer) within(tol any, n Num) (Num, error) {
	t, err := parseTol(tol)
	if err != nil {
		return n, err
	}
	if !n.Measured {
		return n, fmt.Errorf("within %s: the number is planned, not measured: a plan is exact", t.Text)
	}
	n.Tol = &t
	return n, nil
}

// parseTol reads "5%" (a share) or "200" (an amount).
func parseTol(tol any) (Tol, error) {
	s := strings.TrimSpace(fmt.Sprint(tol))
	rel := strings.HasSuffix(s, "%")
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSuffix(s, "%"), ",", ""), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		return Tol{}, fmt.Errorf("within %q: want a share (\"5%%\") or an amount (\"200\"), not negative", s)
	}
	if rel {
		return Tol{Rel: v / 100, Text: s}, nil
	}
	return Tol{Abs: v, Text: s}, nil
}

// num takes a call's argument as a Num: a Num, or a number written in
// the template.
func (r *renderer) num(a any) (Num, error) {
	switch v := a.(type) {
	case Num:
		return v, nil
	case int:
		return Num{V: float64(v), r: r}, nil
	case float64:
		return Num{V: v, r: r}, nil
	case string:
		f, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
		if err == nil {
			return Num{V: f, r: r}, nil
		}
	}
	return Num{}, fmt.Errorf("want a number (a plan, a measurement or a number written), got %T %v", a, a)
}

// arith works out a number of two: measured if either is.
func (r *renderer) arith(a, b any, op func(x, y float64) float64) (Num, error) {
	x, err := r.num(a)
	if err != nil {
		return Num{}, err
	}
	y, err := r.num(b)
	if err != nil {
		return Num{}, err
	}
	return Num{V: op(x.V, y.V), Measured: x.Measured || y.Measured, r: r}, nil
}

// fmtWith makes a formatter of f.
func fmtWith(f func(float64) string) func(any) (string, error) {
	return func(a any) (string, error) {
		n, err := (&renderer{}).num(a)
		if err != nil {
			return "", err
		}
		return n.fig(f(n.V)), nil
	}
}

// fixed is {{fixed DIGITS N}}: DIGITS decimals, thousands separated.
func (r *renderer) fixed(digits int, a any) (string, error) {
	n, err := r.num(a)
	if err != nil {
		return "", err
	}
	return n.fig(Fixed(n.V, digits)), nil
}

// sig is {{sig DIGITS N}}: DIGITS significant digits, thousands separated.
func (r *renderer) sig(digits int, a any) (string, error) {
	n, err := r.num(a)
	if err != nil {
		return "", err
	}
	return n.fig(Sig(n.V, digits)), nil
}

// pct is {{pct N}} or {{pct DIGITS N}}: a share as a percentage (0.625 →
// 62.5%; a number whose unit is already % is not multiplied), three
// significant digits or DIGITS decimals.
func (r *renderer) pct(args ...any) (string, error) {
	if len(args) == 0 || len(args) > 2 {
		return "", fmt.Errorf("pct: want N or DIGITS N")
	}
	n, err := r.num(args[len(args)-1])
	if err != nil {
		return "", err
	}
	v := n.V
	if n.Unit != "%" {
		v *= 100
	}
	if len(args) == 2 {
		d, ok := args[0].(int)
		if !ok || d < 0 || d > 10 {
			return "", fmt.Errorf("pct: DIGITS %v: want 0 to 10", args[0])
		}
		return n.fig(Fixed(v, d) + "%"), nil
	}
	return n.fig(Sig(v, 3) + "%"), nil
}
