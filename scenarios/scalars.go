package scenarios

// Scalars: how the decoder reads one value of a field — an integer, a
// number, a duration, a bool or a string of a form — and how a message
// shows a node. Each refuses what its field does not allow with the
// field's own words for what is allowed.

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"countsim/internal/schema"
)

var octalLooking = regexp.MustCompile(`^[-+]?0[0-9_]+$`)

// scalar decodes the scalar n as the YAML library types it: int, int64,
// uint64, float64, bool, string, time.Time or nil.
func (d *decoder) scalar(n *yaml.Node, path string) (any, error) {
	tag := n.ShortTag()
	if tag == "!!int" && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 && octalLooking.MatchString(n.Value) {
		sign, digits := "", strings.TrimLeft(n.Value, "+-0_")
		if n.Value[0] == '-' {
			sign = "-"
		}
		if digits == "" {
			digits = "0"
		}
		return nil, d.fail(n, path, "%s has a leading zero, which YAML reads as octal (allowed: %s%s, or %s0o%s for octal)",
			n.Value, sign, digits, sign, digits)
	}
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, d.fail(n, path, "%s is not a valid %s", strconv.Quote(truncate(n.Value)), tag)
	}
	return x, nil
}

// numeric reads a plain scalar tagged as an integer or a float as a
// float64 (integers beyond 2^53 rounded) or, when it is one, a uint64: a
// missing value, a non-scalar or another tag is an error of type.
func (d *decoder) numeric(n *yaml.Node, path string, f *field) (x float64, u uint64, isUint bool, err error) {
	wrongType := func() error { return d.fail(n, path, "%s is not %s (allowed: %s)", describe(n), f.Noun, f.Allowed) }
	if err := d.plain(n, path); err != nil {
		return 0, 0, false, err
	}
	if isNull(n) {
		return 0, 0, false, d.fail(n, path, "missing value (allowed: %s)", f.Allowed)
	}
	if n.Kind != yaml.ScalarNode {
		return 0, 0, false, wrongType()
	}
	if tag := n.ShortTag(); tag != "!!int" && tag != "!!float" {
		return 0, 0, false, wrongType()
	}
	v, err := d.scalar(n, path)
	if err != nil {
		return 0, 0, false, err
	}
	switch v := v.(type) {
	case int:
		return float64(v), uint64(v), v >= 0, nil
	case int64:
		return float64(v), uint64(v), v >= 0, nil
	case uint64:
		return float64(v), v, true, nil
	case float64:
		return v, 0, false, nil
	}
	return 0, 0, false, wrongType()
}

// unsigned decodes an integer field in the field's range lo..hi (≥ 0).
func (d *decoder) unsigned(n *yaml.Node, path string, f *field) (uint64, error) {
	wrongType := func() error { return d.fail(n, path, "%s is not %s (allowed: %s)", describe(n), f.Noun, f.Allowed) }
	outOfRange := func() error { return d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), f.Allowed) }
	x, u, isUint, err := d.numeric(n, path, f)
	if err != nil {
		return 0, err
	}
	if !isUint {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0) || x != math.Trunc(x):
			return 0, wrongType()
		case x < 0 || x >= 1<<64:
			return 0, outOfRange()
		}
		u = uint64(x)
	}
	// The bounds are whole numbers; hi ≥ 2^64 means no upper bound.
	if float64(u) < f.Lo || f.Hi < 1<<64 && u > uint64(f.Hi) {
		return 0, outOfRange()
	}
	return u, nil
}

// number decodes a finite number field in its range; a whole-number field
// also refuses a fraction.
func (d *decoder) number(n *yaml.Node, path string, f *field) (float64, error) {
	x, _, _, err := d.numeric(n, path, f)
	if err != nil {
		return 0, err
	}
	if f.form == formWhole && !math.IsInf(x, 0) && x != math.Trunc(x) {
		return 0, d.fail(n, path, "%s is not %s (allowed: %s)", describe(n), f.Noun, f.Allowed)
	}
	if math.IsInf(x, 0) || !f.InRange(x) {
		return 0, d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), f.Allowed)
	}
	return x, nil
}

// duration decodes a duration field in ns, in its range up to 24h: a
// string that time.ParseDuration reads, or a number of seconds (rounded to
// the ns).
func (d *decoder) duration(n *yaml.Node, path string, f *field) (int64, error) {
	if err := d.plain(n, path); err != nil {
		return 0, err
	}
	if isNull(n) {
		return 0, d.fail(n, path, "missing value (allowed: %s)", f.Allowed)
	}
	wrongType := func() error { return d.fail(n, path, "%s is not a duration (allowed: %s)", describe(n), f.Allowed) }
	outOfRange := func() error { return d.fail(n, path, "%s is out of range (allowed: %s)", describe(n), f.Allowed) }
	if n.Kind != yaml.ScalarNode {
		return 0, wrongType()
	}
	var ns int64
	switch n.ShortTag() {
	case "!!str":
		x, err := time.ParseDuration(n.Value)
		if err != nil {
			return 0, wrongType()
		}
		ns = int64(x)
	case "!!int", "!!float":
		sec, _, _, err := d.numeric(n, path, f)
		if err != nil {
			return 0, err
		}
		if math.IsNaN(sec) || sec < 0 || sec > f.Hi/1e9 {
			return 0, outOfRange()
		}
		ns = int64(math.Round(sec * 1e9))
	default:
		return 0, wrongType()
	}
	if !f.InRange(float64(ns)) {
		return 0, outOfRange()
	}
	return ns, nil
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, error) {
	const allowed = "true, false"
	if err := d.plain(n, path); err != nil {
		return false, err
	}
	if isNull(n) {
		return false, d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		if x, err := d.scalar(n, path); err != nil {
			return false, err
		} else if b, ok := x.(bool); ok {
			return b, nil
		}
	}
	return false, d.fail(n, path, "%s is not a bool (allowed: %s)", describe(n), allowed)
}

// str decodes a string field; allowed describes what may go there.
func (d *decoder) str(n *yaml.Node, path, allowed string) (string, error) {
	if err := d.plain(n, path); err != nil {
		return "", err
	}
	if isNull(n) {
		return "", d.fail(n, path, "missing value (allowed: %s)", allowed)
	}
	if n.Kind != yaml.ScalarNode {
		return "", d.fail(n, path, "%s is not a string (allowed: %s)", describe(n), allowed)
	}
	if n.ShortTag() != "!!str" {
		return "", d.fail(n, path, "%s is not a string (allowed: %s; put it in quotes to make it one)", describe(n), allowed)
	}
	return n.Value, nil
}

// text decodes a string field by its form: a name, one line, a label,
// text, one of a set, or any string.
func (d *decoder) text(n *yaml.Node, path string, f *field) (string, error) {
	s, err := d.str(n, path, f.Allowed)
	if err != nil {
		return "", err
	}
	notAllowed := func() error { return d.fail(n, path, "%s is not allowed (allowed: %s)", describe(n), f.Allowed) }
	switch f.Str {
	case "name":
		if !validName(s) {
			return "", notAllowed()
		}
	case "line":
		s = strings.TrimSpace(s)
		if strings.ContainsAny(s, "\r\n") {
			return "", d.fail(n, path, "more than one line (allowed: one line of text; use description for more)")
		}
	case "label":
		s = strings.TrimSpace(s)
		if s == "" || strings.ContainsAny(s, "\r\n") || utf8.RuneCountInString(s) > schema.MaxLabel {
			return "", notAllowed()
		}
	case "text":
		s = strings.TrimSpace(s)
	}
	if f.Oneof != nil && !slices.Contains(f.Oneof, s) {
		return "", d.fail(n, path, "%q is not allowed (allowed: %s)%s", s, f.Allowed, DidYouMean(s, f.Oneof))
	}
	return s, nil
}

func validName(s string) bool {
	if s == "" || len(s) > schema.MaxNameLen || s[0] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe shows a node in a message: a scalar as written (quoted if it is
// a string), a collection by its kind.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		if isNull(n) {
			return "an empty value"
		}
		v := truncate(n.Value)
		if n.ShortTag() == "!!str" {
			return strconv.Quote(v)
		}
		return v
	}
	return "a document"
}

// truncate shortens s to 40 characters for a message.
func truncate(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
