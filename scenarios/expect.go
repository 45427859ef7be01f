package scenarios

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Expectation is one assertion of an `expect:` or a `shows:` list, on a
// metric the run
// measures for a design (or, at the top of a scenario or step, for the
// truth): `metric op value`, `metric op plan` or `metric op other`, where
// op is one of <=, <, ==, >=, >, plan is the closed-form number printed
// beside the measurement and other is another metric the run measures for
// the same design (`planted_node_max < local_kth_min`). Whether the metrics
// exist, and the plan, is checked when the scenario is prepared (package
// sim); here only its form.
//
// The two lists say different things of the same grammar. An `expect:`
// item says a design meets its bound or its goal (`count_error == 0`); a
// `shows:` item (Trap) says the scenario reproduces a trap or a failure on
// purpose (`count_error > 0` on batching without dedup): holding, it shows
// the trap, and a reader must never take it for a design that works.
type Expectation struct {
	Text   string  // as written
	Metric string  // the metric's name
	Op     string  // <=, <, ==, >= or >
	Value  float64 // the number compared with, unless Plan or Other
	Plan   bool    // compare with the row's plan
	Other  string  // compare with this metric's measured value, for the same design
	Trap   bool    // from a shows: list: a trap the scenario shows on purpose
	Pos    Pos     // the item's position
}

// showsKey is the key of the lists of traps.
const showsKey = "shows"

// Ops are the comparisons an expectation may make.
var Ops = []string{"<=", "<", "==", ">=", ">"}

const expectRule = "strings `metric op value`, `metric op plan` or `metric op metric`, op one of <=, <, ==, >=, >: `undercounts == 0`, `max_overestimate <= plan`, `bytes <= 600_000`, `planted_count > kth_true_count`"

var metricSyntax = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var expectSyntax = regexp.MustCompile(`^([a-z][a-z0-9_]*)\s*(<=|>=|==|<|>)\s*(\S+)$`)

// ParseExpectation reads one expectation's text, as an expect: or shows: list holds it.
func ParseExpectation(text string) (Expectation, error) {
	m := expectSyntax.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return Expectation{}, fmt.Errorf("%q is not an expectation (allowed: %s)", text, expectRule)
	}
	e := Expectation{Text: strings.TrimSpace(text), Metric: m[1], Op: m[2]}
	if m[3] == "plan" {
		e.Plan = true
		return e, nil
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[3], "_", ""), 64)
	if err != nil && metricSyntax.MatchString(m[3]) && !strings.EqualFold(m[3], "nan") && !strings.EqualFold(m[3], "inf") {
		e.Other = m[3]
		return e, nil
	}
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return Expectation{}, fmt.Errorf("%q: %q is not a finite number, plan or a metric's name (allowed: %s)", text, m[3], expectRule)
	}
	e.Value = v
	return e, nil
}

// Holds reports whether measured stands in the expectation's relation to
// rhs (its Value, or the plan).
func (e Expectation) Holds(measured, rhs float64) bool {
	switch e.Op {
	case "<=":
		return measured <= rhs
	case "<":
		return measured < rhs
	case "==":
		return measured == rhs
	case ">=":
		return measured >= rhs
	case ">":
		return measured > rhs
	}
	return false
}

// expectations decodes an `expect:` or, with trap, a `shows:` list: a
// sequence of strings.
func (d *decoder) expectations(vn *yaml.Node, path string, trap bool) ([]Expectation, error) {
	if err := d.plain(vn, path); err != nil {
		return nil, err
	}
	if isNull(vn) {
		return nil, nil
	}
	if vn.Kind != yaml.SequenceNode {
		return nil, d.fail(vn, path, "%s is not a list (allowed: a list of %s)", describe(vn), expectRule)
	}
	var out []Expectation
	for i, item := range vn.Content {
		ipath := fmt.Sprintf("%s[%d]", path, i)
		if err := d.plain(item, ipath); err != nil {
			return nil, err
		}
		if item.Kind != yaml.ScalarNode || item.Tag != "!!str" {
			return nil, d.fail(item, ipath, "%s is not a string (allowed: %s)", describe(item), expectRule)
		}
		e, err := ParseExpectation(item.Value)
		if err != nil {
			return nil, d.fail(item, ipath, "%v", err)
		}
		e.Pos, e.Trap = d.pos(item), trap
		out = append(out, e)
	}
	return out, nil
}

// Sweep varies one parameter of a design over a list of values
// (`sweep: {width: [500, 1000, 2000]}`): the design is run once a value,
// on the same events, and the report draws each measured error against
// memory (or against the value) with the plan's curve beside it.
type Sweep struct {
	Key    string // the parameter varied
	Values []any  // its values, decoded as parameters are: int64, float64, bool or string
	Pos    Pos    // the sweep's key
	At     []Pos  // each value's position
}

// Param is the parameter of the sweep's value j, for a design's params in
// place of the one the entry gives.
func (s *Sweep) Param(j int) Param {
	return Param{Key: s.Key, Value: s.Values[j], Pos: s.At[j]}
}

const sweepRule = "a mapping of one parameter to a list of 2 to 50 of its values, such as {width: [500, 1000, 2000]}"

// sweep decodes a `sweep:` mapping.
func (d *decoder) sweep(vn *yaml.Node, path string) (*Sweep, error) {
	if err := d.plain(vn, path); err != nil {
		return nil, err
	}
	if vn.Kind != yaml.MappingNode || len(vn.Content) != 2 {
		return nil, d.fail(vn, path, "%s is not a sweep (allowed: %s)", describe(vn), sweepRule)
	}
	k, list := vn.Content[0], vn.Content[1]
	key, err := d.key(k, path, map[string]*yaml.Node{})
	if err != nil {
		return nil, err
	}
	ipath := join(path, key)
	if list.Kind != yaml.SequenceNode || len(list.Content) < 2 || len(list.Content) > 50 {
		return nil, d.fail(list, ipath, "%s is not a list of 2 to 50 values (allowed: %s)", describe(list), sweepRule)
	}
	s := &Sweep{Key: key, Pos: d.pos(k)}
	for i, item := range list.Content {
		v, err := d.param(item, fmt.Sprintf("%s[%d]", ipath, i))
		if err != nil {
			return nil, err
		}
		s.Values = append(s.Values, v)
		s.At = append(s.At, d.pos(item))
	}
	return s, nil
}
