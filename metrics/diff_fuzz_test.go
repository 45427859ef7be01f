package metrics

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// FuzzDiff checks Diff against a plain re-reading of its doc comment,
// written here with loops and no helper of diff.go: rows matched by
// scenario, strategy, metric, scale and stat, the n-th of those with the
// n-th; a value that moved by more than tol of the larger magnitude; a plan
// that differs at all; rows appearing or vanishing; timing rows a ratio
// (when both values exist and the old one is not 0), never a move; the new
// run's order, then what vanished in the old run's. It also checks that a
// run compared with itself shows no change but its timing rows.
//
// The rows are drawn from data, three bytes a row (more for a number drawn
// in full); their names from small sets that share separators ("s/d" and
// "d/x", a scale "sim, mean"), so that two different rows can print alike.
func FuzzDiff(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 0x80, 4}, 0.25)                                                         // 3 → 4 at exactly tol ¼: no change
	f.Add([]byte{0, 0, 3, 0, 0x80, 4}, math.Nextafter(0.25, 0))                                      // just below: moved
	f.Add([]byte{0, 0, 0x1b, 0, 0x80, 0x23, 0, 0, 3, 0x40, 0x80, 0x18}, 0.5)                         // a plan change, a second row, a full row
	f.Add([]byte{0x10, 1, 6, 0x60, 0x82, 5, 0x10, 0x81, 6, 0x9c}, 1.0)                               // stats, an int8, a row vanished
	f.Add([]byte{0, 4, 7, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0, 0x84, 7, 0, 0, 0, 0, 0, 0, 0, 0x40}, 0.0) // timing 1 → 2
	f.Fuzz(func(t *testing.T, data []byte, tol float64) {
		if math.IsNaN(tol) {
			return
		}
		tol = math.Abs(tol)
		if tol > 1 { // countsim diff takes 0..1
			tol = 1 / tol
		}
		old, new := drawRuns(data)
		got := Diff(old, new, tol)
		want := diffByHand(old, new, tol)
		if len(got) != len(want) {
			t.Fatalf("tol %v, old %s, new %s:\nDiff gave %d changes %v\nwant %d %v", tol, rowsText(old), rowsText(new), len(got), got, len(want), want)
		}
		for i := range got {
			if !sameChange(got[i], want[i]) {
				t.Fatalf("tol %v, old %s, new %s:\nchange %d: Diff gave %v, want %v", tol, rowsText(old), rowsText(new), i, got[i], want[i])
			}
		}
		for _, run := range [][]Result{old, new} {
			for _, c := range Diff(run, run, tol) {
				if c.Kind != Timed {
					t.Fatalf("a run compared with itself: %v", c)
				}
			}
		}
	})
}

// drawRuns reads two runs' rows from data. A row is three bytes: the
// scenario, strategy, metric, scale and stat; then which run, whether it is
// a timing row, and what its value and plan are (absent, 0, -0, 3, 4, -3,
// an int8 of the next byte, or a float64 of the next eight).
func drawRuns(data []byte) (old, new []Result) {
	scenarios := []string{"s", "s/d", "t", "s"}
	strategies := []string{"d", "x", "d/x", "d x"}
	metrics := []Metric{"x", "y", "x (sim)", "x"}
	scales := []Scale{Sim, Full, "sim, mean", Sim}
	stats := []string{"", "mean", "p95", ""}
	next := func() (byte, bool) {
		if len(data) == 0 {
			return 0, false
		}
		b := data[0]
		data = data[1:]
		return b, true
	}
	number := func(kind byte) *float64 {
		switch kind {
		case 0:
			return nil
		case 1:
			return Measured(0)
		case 2:
			return Measured(math.Copysign(0, -1))
		case 3:
			return Measured(3)
		case 4:
			return Measured(4)
		case 5:
			return Measured(-3)
		case 6:
			b, _ := next()
			return Measured(float64(int8(b)))
		}
		if len(data) < 8 {
			return Measured(1)
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(data))
		data = data[8:]
		if math.IsNaN(v) || math.IsInf(v, 0) { // results.json holds neither
			return Measured(math.MaxFloat64)
		}
		return Measured(v)
	}
	for n := 0; n < 64; n++ {
		a, ok1 := next()
		b, ok2 := next()
		c, ok3 := next()
		if !ok1 || !ok2 || !ok3 {
			break
		}
		r := Result{
			Scenario: scenarios[a&3], Strategy: strategies[a>>2&3], Metric: metrics[a>>4&3], Scale: scales[a>>6&3],
			Stat: stats[b&3], Timing: b&4 != 0, Unit: "u",
		}
		r.Value = number(c & 7)
		r.Plan = number(c >> 3 & 7)
		if b&0x80 == 0 {
			old = append(old, r)
		} else {
			new = append(new, r)
		}
	}
	return old, new
}

// diffByHand is Diff's doc comment, read plainly.
func diffByHand(old, new []Result, tol float64) []Change {
	type id struct {
		scenario, strategy string
		metric             Metric
		scale              Scale
		stat               string
		n                  int // 0 for the first row of these, 1 for the second…
	}
	ids := func(rs []Result) []id {
		var out []id
		for i, r := range rs {
			x := id{r.Scenario, r.Strategy, r.Metric, r.Scale, r.Stat, 0}
			for _, earlier := range rs[:i] {
				if earlier.Scenario == r.Scenario && earlier.Strategy == r.Strategy && earlier.Metric == r.Metric &&
					earlier.Scale == r.Scale && earlier.Stat == r.Stat {
					x.n++
				}
			}
			out = append(out, x)
		}
		return out
	}
	keyOf := func(x id) string {
		k := x.scenario + "/" + x.strategy + " " + string(x.metric) + " (" + string(x.scale)
		if x.stat != "" {
			k += ", " + x.stat
		}
		k += ")"
		if x.n > 0 {
			k += fmt.Sprintf(" #%d", x.n+1)
		}
		return k
	}
	differ := func(a, b *float64, tol float64) bool {
		if a == nil && b == nil {
			return false
		}
		if a == nil || b == nil {
			return true
		}
		d := *a - *b
		if d < 0 {
			d = -d
		}
		ma, mb := *a, *b
		if ma < 0 {
			ma = -ma
		}
		if mb < 0 {
			mb = -mb
		}
		larger := ma
		if mb > larger {
			larger = mb
		}
		return d > tol*larger
	}
	oldIDs, newIDs := ids(old), ids(new)
	var out []Change
	for i, n := range new {
		j := -1
		for k := range old {
			if oldIDs[k] == newIDs[i] {
				j = k
			}
		}
		key := keyOf(newIDs[i])
		if j < 0 {
			c := Change{Kind: Appeared, Key: key, New: n.Value}
			if n.Value == nil {
				c.New = n.Plan
			}
			out = append(out, c)
			continue
		}
		o := old[j]
		if o.Timing || n.Timing {
			if o.Value != nil && n.Value != nil && *o.Value != 0 {
				out = append(out, Change{Kind: Timed, Key: key, Old: o.Value, New: n.Value})
			}
			continue
		}
		if differ(o.Value, n.Value, tol) {
			out = append(out, Change{Kind: Moved, Key: key, Old: o.Value, New: n.Value})
		}
		if differ(o.Plan, n.Plan, 0) {
			out = append(out, Change{Kind: Replanned, Key: key, Old: o.Plan, New: n.Plan})
		}
	}
	for j, o := range old {
		found := false
		for i := range new {
			if newIDs[i] == oldIDs[j] {
				found = true
			}
		}
		if !found {
			c := Change{Kind: Vanished, Key: keyOf(oldIDs[j]), Old: o.Value}
			if o.Value == nil {
				c.Old = o.Plan
			}
			out = append(out, c)
		}
	}
	return out
}

// sameChange reports whether two changes are alike, the numbers bit for bit.
func sameChange(a, b Change) bool {
	same := func(x, y *float64) bool {
		return x == nil && y == nil || x != nil && y != nil && math.Float64bits(*x) == math.Float64bits(*y)
	}
	return a.Kind == b.Kind && a.Key == b.Key && same(a.Old, b.Old) && same(a.New, b.New)
}

// rowsText shows rows for a failure message.
func rowsText(rs []Result) string {
	num := func(v *float64) any {
		if v == nil {
			return "nil"
		}
		return *v
	}
	s := "["
	for _, r := range rs {
		s += fmt.Sprintf("{%q %q %q %q %q timing=%v value=%v plan=%v} ", r.Scenario, r.Strategy, r.Metric, r.Scale, r.Stat, r.Timing, num(r.Value), num(r.Plan))
	}
	return s + "]"
}
