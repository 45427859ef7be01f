package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
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
//
// A number may carry a byte unit (`bytes <= 1MB`, `bytes <= 12 KiB`:
// KB, MB, GB are powers of 1000, KiB, MiB, GiB of 1024), or be a multiple
// of a figure of the scenario (`max_overestimate <= 0.0001 * N`,
// `max_key_ops_per_s <= 0.7 * key_capacity`): N or events is the number of
// events the scenario simulates, any other name an assumptions key, as
// simulated (a linked figure takes the simulation's value). The figure is
// resolved once the whole scenario is read ([Scenario.resolveFigures]):
// Value is then Factor times it.
type Expectation struct {
	Text   string  // as written
	Metric string  // the metric's name
	Op     string  // <=, <, ==, >= or >
	Value  float64 // the number compared with, unless Plan or Other
	Plan   bool    // compare with the row's plan
	Other  string  // compare with this metric's measured value, for the same design
	Factor float64 // with Figure: Value is Factor × the figure
	Figure string  // a figure of the scenario (N, events or an assumptions key); "" for a plain number
	Trap   bool    // from a shows: list: a trap the scenario shows on purpose
	Pos    Pos     // the item's position
}

// showsKey is the key of the lists of traps.
const showsKey = "shows"

// Ops are the comparisons an expectation may make.
var Ops = []string{"<=", "<", "==", ">=", ">"}

const expectRule = "strings `metric op value`, `metric op plan`, `metric op metric` or `metric op NUMBER * FIGURE`, op one of <=, <, ==, >=, >, a value a number with an optional byte unit (" + byteUnitList + "), FIGURE N, events or an assumptions key: `undercounts == 0`, `max_overestimate <= plan`, `bytes <= 600_000`, `bytes <= 1MB`, `max_overestimate <= 0.0001 * N`, `planted_count > kth_true_count`"

var metricSyntax = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

var expectSyntax = regexp.MustCompile(`^([a-z][a-z0-9_]*)\s*(<=|>=|==|<|>)\s*(\S+|\S+\s*\*\s*\S+|\S+\s+[KMG]i?B)$`)

// scaledSyntax is a right-hand side NUMBER * FIGURE; unitSyntax a number
// with a byte unit.
var (
	scaledSyntax = regexp.MustCompile(`^(\S+?)\s*\*\s*(\S+)$`)
	unitSyntax   = regexp.MustCompile(`^(.*?)\s*([KMG]i?B)$`)
)

// byteUnits are the units a number of bytes may carry.
var byteUnits = map[string]float64{"KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}

const byteUnitList = "KB, MB, GB, KiB, MiB, GiB"

// number reads a finite number as an expectation writes it: digits with
// optional underscores, optionally a byte unit.
func number(s string) (float64, bool) {
	mult := 1.0
	if m := unitSyntax.FindStringSubmatch(s); m != nil {
		s, mult = m[1], byteUnits[m[2]]
	}
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.IsInf(v*mult, 0) {
		return 0, false
	}
	return v * mult, true
}

// ParseExpectation reads one expectation's text, as an expect: or shows: list holds it.
func ParseExpectation(text string) (Expectation, error) {
	m := expectSyntax.FindStringSubmatch(strings.TrimSpace(text))
	if m == nil {
		return Expectation{}, fmt.Errorf("%q is not an expectation (allowed: %s)", text, expectRule)
	}
	e := Expectation{Text: strings.TrimSpace(text), Metric: m[1], Op: m[2]}
	rhs := m[3]
	if rhs == "plan" {
		e.Plan = true
		return e, nil
	}
	if sm := scaledSyntax.FindStringSubmatch(rhs); sm != nil {
		f, ok := number(sm[1])
		if !ok || unitSyntax.MatchString(sm[1]) {
			return Expectation{}, fmt.Errorf("%q: %q is not a finite number to multiply %s by (allowed: %s)", text, sm[1], sm[2], expectRule)
		}
		if !metricSyntax.MatchString(sm[2]) && sm[2] != "N" {
			return Expectation{}, fmt.Errorf("%q: %q is not a figure's name (allowed: N, events or an assumptions key such as key_capacity; %s)", text, sm[2], expectRule)
		}
		e.Factor, e.Figure = f, sm[2]
		return e, nil
	}
	v, ok := number(rhs)
	if !ok && metricSyntax.MatchString(rhs) && !strings.EqualFold(rhs, "nan") && !strings.EqualFold(rhs, "inf") {
		e.Other = rhs
		return e, nil
	}
	if !ok {
		return Expectation{}, fmt.Errorf("%q: %q is not a finite number, plan, a metric's name or NUMBER * FIGURE (allowed: %s)", text, rhs, expectRule)
	}
	e.Value = v
	return e, nil
}

// figureNames are the figures an expectation's NUMBER * FIGURE may name
// beside the assumptions' keys.
var figureNames = []string{"N", "events"}

// FigureNames lists every name NUMBER * FIGURE takes: N, events and the
// assumptions' keys.
func FigureNames() []string {
	return append(slices.Clone(figureNames), schemaOf(reflect.TypeFor[Assumptions]()).keys()...)
}

// figure is the value of a figure an expectation names, as the scenario
// simulates it, and whether the scenario states it.
func (s *Scenario) figure(name string) (float64, bool) {
	sim := s.Simulated()
	if slices.Contains(figureNames, name) {
		name = "events"
	}
	v := assumption(&sim, name)
	if !v.IsValid() {
		return 0, false
	}
	return v.Float(), v.Float() != 0
}

// resolveFigure sets e.Value to e.Factor times the figure e names, or
// says, at e's line, that the scenario has no such figure.
func (s *Scenario) resolveFigure(e *Expectation) error {
	if e.Figure == "" {
		return nil
	}
	v, ok := s.figure(e.Figure)
	if !ok {
		if !slices.Contains(FigureNames(), e.Figure) {
			return Errorf(e.Pos, "%q: unknown figure %q (allowed: %s)%s", e.Text, e.Figure, strings.Join(FigureNames(), ", "), DidYouMean(e.Figure, FigureNames()))
		}
		return Errorf(e.Pos, "%q: the scenario states no %s, neither in its assumptions nor in what it simulates (allowed: a figure it states: assumptions.%s, or a plain number)", e.Text, e.Figure, e.Figure)
	}
	e.Value = e.Factor * v
	return nil
}

// resolveFigures resolves every NUMBER * FIGURE of the scenario's lists.
func (s *Scenario) resolveFigures() error {
	lists := [][]Expectation{s.Expect, s.Shows}
	for i := range s.Strategies {
		lists = append(lists, s.Strategies[i].Expect, s.Strategies[i].Shows)
	}
	if s.Goals != nil {
		lists = append(lists, s.Goals.Meet)
	}
	for _, l := range lists {
		for i := range l {
			if err := s.resolveFigure(&l[i]); err != nil {
				return err
			}
		}
	}
	return nil
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
