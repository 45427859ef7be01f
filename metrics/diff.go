package metrics

import (
	"fmt"
	"math"
)

// ChangeKind says how a row differs between two runs.
type ChangeKind string

const (
	// Moved: the measured value changed beyond the tolerance.
	Moved ChangeKind = "moved"
	// Replanned: the plan beside the row changed.
	Replanned ChangeKind = "plan"
	// Appeared: a row the old run did not have.
	Appeared ChangeKind = "appeared"
	// Vanished: a row the new run does not have.
	Vanished ChangeKind = "vanished"
	// Timed: a timing row, compared as a ratio; never a change of results.
	Timed ChangeKind = "timing"
)

// Change is one row that differs between two runs' results.
type Change struct {
	Kind     ChangeKind
	Key      string   // scenario/strategy metric (scale), and #n for the n-th row of that name
	Old, New *float64 // the values (the plans for Replanned); nil where absent
}

// String says the change in one line.
func (c Change) String() string {
	switch c.Kind {
	case Appeared:
		return fmt.Sprintf("appeared  %s: %s", c.Key, show(c.New))
	case Vanished:
		return fmt.Sprintf("vanished  %s: was %s", c.Key, show(c.Old))
	case Timed:
		return fmt.Sprintf("timing    %s: %s → %s (×%.2f)", c.Key, show(c.Old), show(c.New), *c.New / *c.Old)
	}
	line := fmt.Sprintf("%-9s %s: %s → %s", string(c.Kind), c.Key, show(c.Old), show(c.New))
	if c.Old != nil && c.New != nil && *c.Old != 0 {
		line += fmt.Sprintf(" (%+.2f%%)", 100*(*c.New-*c.Old)/math.Abs(*c.Old))
	}
	return line
}

func show(v *float64) string {
	if v == nil {
		return "—"
	}
	return Format(*v)
}

// Diff compares two runs' result rows as benchstat compares benchmarks:
// rows are matched by scenario, strategy, metric, scale and stat (the n-th
// row of those with the n-th); a measured value that moved by more than tol
// relative to the larger of the two (0: any change), a plan that changed,
// and rows that appeared or vanished are changes. Timing rows (read off a
// clock, in either run) whose values both exist, the old one not 0, come
// back as Timed, for their ratio; they are never changes of results. The
// changes come in the new run's order, then what vanished in the old run's.
func Diff(old, new []Result, tol float64) []Change {
	ids := func(rs []Result) ([]rowID, map[rowID]Result) {
		list := make([]rowID, len(rs))
		byID := map[rowID]Result{}
		seen := map[rowID]int{}
		for i, r := range rs {
			first := rowID{r.Scenario, r.Strategy, r.Metric, r.Scale, r.Stat, 0}
			id := first
			id.n = seen[first]
			seen[first]++
			list[i], byID[id] = id, r
		}
		return list, byID
	}
	oldIDs, oldBy := ids(old)
	newIDs, newBy := ids(new)
	var out []Change
	for _, id := range newIDs {
		n, k := newBy[id], id.String()
		o, ok := oldBy[id]
		switch {
		case !ok:
			out = append(out, Change{Kind: Appeared, Key: k, New: n.Value})
			if n.Value == nil {
				out[len(out)-1].New = n.Plan
			}
			continue
		case n.Timing || o.Timing:
			if n.Value != nil && o.Value != nil && *o.Value != 0 {
				out = append(out, Change{Kind: Timed, Key: k, Old: o.Value, New: n.Value})
			}
			continue
		}
		if moved(o.Value, n.Value, tol) {
			out = append(out, Change{Kind: Moved, Key: k, Old: o.Value, New: n.Value})
		}
		if moved(o.Plan, n.Plan, 0) {
			out = append(out, Change{Kind: Replanned, Key: k, Old: o.Plan, New: n.Plan})
		}
	}
	for _, id := range oldIDs {
		if _, ok := newBy[id]; !ok {
			o := oldBy[id]
			c := Change{Kind: Vanished, Key: id.String(), Old: o.Value}
			if o.Value == nil {
				c.Old = o.Plan
			}
			out = append(out, c)
		}
	}
	return out
}

// rowID is what pairs a row with its counterpart in the other run: its
// names, and which row of those names it is (n = 0 for the first). The
// names are compared apart, not as the key they print as: "s/d" and "x"
// are not "s" and "d/x".
type rowID struct {
	scenario, strategy string
	metric             Metric
	scale              Scale
	stat               string
	n                  int
}

// String is the change's Key: "scenario/strategy metric (scale)", the stat
// after the scale, and #n+1 for all but the first row of those names.
func (id rowID) String() string {
	k := fmt.Sprintf("%s/%s %s (%s)", id.scenario, id.strategy, id.metric, id.scale)
	if id.stat != "" {
		k = fmt.Sprintf("%s/%s %s (%s, %s)", id.scenario, id.strategy, id.metric, id.scale, id.stat)
	}
	if id.n > 0 {
		k = fmt.Sprintf("%s #%d", k, id.n+1)
	}
	return k
}

// moved reports whether two optional numbers differ: one absent, or apart
// by more than tol of the larger magnitude.
func moved(a, b *float64, tol float64) bool {
	if a == nil || b == nil {
		return (a == nil) != (b == nil)
	}
	if *a == *b {
		return false
	}
	return math.Abs(*a-*b) > tol*math.Max(math.Abs(*a), math.Abs(*b))
}
