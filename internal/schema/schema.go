package schema

import (
	"encoding"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxDuration is the longest duration any key takes: 24 hours, the longest
// a simulated stream may last.
const MaxDuration = int64(24 * time.Hour)

// DurationRule names the forms of a duration, for messages.
const DurationRule = `written as a Go duration such as "60s", "250ms" or "1m30s", or as a number of seconds such as 60 or 0.25`

// Rules of the string forms.
const (
	NameRule   = "lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters"
	LineRule   = "one line of text"
	LabelRule  = "one line of text, at most 64 characters"
	TextRule   = "text"
	MaxNameLen = 64
	MaxLabel   = 64
)

// Form is how a field's value is written and held.
type Form int

const (
	FormInt      Form = iota // int or int64: an integer in lo..hi
	FormUint                 // uint64: a non-negative integer in lo..hi
	FormWhole                // float64 holding a whole number in lo..hi
	FormNumber               // float64: a finite number in its range
	FormDuration             // int64 or time.Duration, ns: a Go duration or seconds, up to MaxDuration
	FormBool                 // bool
	FormString               // string: a name, line, label, text, one of a set, or plain
	FormText                 // a type with UnmarshalText: its own text form
	FormOther                // anything else: the caller decodes it
)

// Field is one tagged field of a struct.
type Field struct {
	Key        string
	Index      []int // of the Go field, for reflect.Value.FieldByIndex
	Type       reflect.Type
	Form       Form
	Str        string   // FormString: "name", "line", "label", "text" or ""
	Oneof      []string // FormString: the values allowed
	Names      []string // FormText: the values listed by the type's Names method
	Required   bool
	Default    string // the default as written; meaningful when HasDefault
	HasDefault bool
	DefaultDoc string  // the default as the reference shows it
	Lo, Hi     float64 // the range; for lists, of the entries
	LoOpen     bool    // Lo itself is excluded
	HiOpen     bool
	Range      string // the range tag as written
	Allowed    string // what is allowed, for messages and the reference
	Noun       string // what a value of the wrong type is not: "an integer"
	Doc        string
	Entry      string // a list's entry noun ("phase")
}

var (
	schemas      sync.Map // reflect.Type → []*Field
	durationType = reflect.TypeFor[time.Duration]()
	textType     = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Of returns the tagged fields of the struct type t, in declaration order,
// the fields of an embedded struct where it is embedded. Fields without a
// key tag are left out.
func Of(t reflect.Type) []*Field {
	if fs, ok := schemas.Load(t); ok {
		return fs.([]*Field)
	}
	var fs []*Field
	addFields(&fs, t, nil)
	v, _ := schemas.LoadOrStore(t, fs)
	return v.([]*Field)
}

func addFields(fs *[]*Field, t reflect.Type, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		switch {
		case sf.Anonymous && sf.Type.Kind() == reflect.Struct && sf.Tag.Get("key") == "":
			addFields(fs, sf.Type, idx)
		case sf.Tag.Get("key") != "":
			*fs = append(*fs, NewField(t, sf, idx))
		}
	}
}

// NewField reads the tags of sf, a field of owner at index. It panics on a
// malformed tag.
func NewField(owner reflect.Type, sf reflect.StructField, index []int) *Field {
	tag := sf.Tag
	f := &Field{
		Key:      tag.Get("key"),
		Index:    index,
		Type:     sf.Type,
		Required: tag.Get("required") == "true",
		Doc:      tag.Get("doc"),
		Entry:    tag.Get("entry"),
		Str:      tag.Get("type"),
		Range:    tag.Get("range"),
	}
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("schema: %s.%s: %s", owner.Name(), sf.Name, fmt.Sprintf(format, args...)))
	}
	if f.Doc == "" {
		bad("no doc tag")
	}
	rng := f.Range
	switch t := sf.Type; {
	case reflect.PointerTo(t).Implements(textType) && t.Kind() != reflect.Pointer:
		f.Form, f.Noun = FormText, "a string"
		if n, ok := reflect.Zero(t).Interface().(interface{ Names() []string }); ok {
			f.Names = n.Names()
			f.Allowed = strings.Join(f.Names, ", ")
		}
	case (f.Str == "duration" && t.Kind() == reflect.Int64) || t == durationType:
		f.Form, f.Str, f.Noun = FormDuration, "", "a duration"
		f.ParseRange(rng, bad)
		if math.IsInf(f.Hi, 1) {
			f.Hi = float64(MaxDuration)
		}
		hi := "at most " + FormatDuration(f.Hi)
		if f.HiOpen {
			hi = "below " + FormatDuration(f.Hi)
		}
		switch {
		case f.Lo > 0 && !f.LoOpen:
			f.Allowed = "a duration from " + FormatDuration(f.Lo) + " to " + FormatDuration(f.Hi) + ", " + DurationRule
		case f.Lo > 0 || f.LoOpen:
			f.Allowed = "a duration above " + FormatDuration(f.Lo) + " and " + hi + ", " + DurationRule
		default:
			f.Allowed = "a duration from 0 to " + FormatDuration(f.Hi) + ", " + DurationRule
		}
	case f.Str == "whole" && t.Kind() == reflect.Float64:
		f.Form, f.Str, f.Noun = FormWhole, "", "a whole number"
		f.ParseRange(rng, bad)
		f.Allowed = "a whole number, " + rng
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		f.Form, f.Noun, f.Allowed = FormInt, "an integer", rng
		f.ParseRange(rng, bad)
	case t.Kind() == reflect.Uint64:
		f.Form, f.Noun, f.Allowed = FormUint, "a non-negative integer", rng
		f.ParseRange(rng, bad)
	case t.Kind() == reflect.Float64:
		f.Form, f.Noun = FormNumber, "a number"
		f.ParseRange(rng, bad)
		f.Allowed = NumberRule(rng)
	case t.Kind() == reflect.Bool:
		f.Form, f.Noun, f.Allowed = FormBool, "a bool", "true, false"
	case t.Kind() == reflect.String:
		f.Form, f.Noun = FormString, "a string"
		if o := tag.Get("oneof"); o != "" {
			f.Oneof = strings.Split(o, ",")
			f.Allowed = strings.Join(f.Oneof, ", ")
		}
		switch f.Str {
		case "name":
			f.Allowed = NameRule
		case "line":
			f.Allowed = LineRule
		case "label":
			f.Allowed = LabelRule
		case "text":
			f.Allowed = TextRule
		case "":
		default:
			bad("unknown type %q", f.Str)
		}
	default:
		f.Form = FormOther
		f.Lo, f.Hi = 0, math.Inf(1)
		if rng != "" {
			f.ParseRange(rng, bad)
		}
	}
	if a := tag.Get("allowed"); a != "" {
		f.Allowed = a
	}
	if d, ok := tag.Lookup("default"); ok {
		f.Default, f.HasDefault, f.DefaultDoc = d, true, d
	}
	if d := tag.Get("defaultdoc"); d != "" {
		f.DefaultDoc = d
	}
	if f.Form != FormOther && f.Allowed == "" {
		bad("nothing says what is allowed")
	}
	return f
}

// ParseRange reads lo..hi, >x, >=x, (lo,hi], [lo,hi), (lo,hi) or [lo,hi]
// into the field's bounds; lo.. has no upper end. A duration's bounds may
// be Go durations (1000h), and are then ns. bad is called on a malformed
// range.
func (f *Field) ParseRange(r string, bad func(string, ...any)) {
	num := func(s string) float64 {
		s = strings.TrimSpace(s)
		x, err := strconv.ParseFloat(s, 64)
		if err != nil && f.Form == FormDuration {
			d, derr := time.ParseDuration(s)
			x, err = float64(d), derr
		}
		if err != nil {
			bad("range %q: %v", r, err)
		}
		return x
	}
	f.Lo, f.Hi = math.Inf(-1), math.Inf(1)
	switch {
	case r == "":
	case strings.HasPrefix(r, ">="):
		f.Lo = num(r[2:])
	case strings.HasPrefix(r, ">"):
		f.Lo, f.LoOpen = num(r[1:]), true
	case strings.Contains(r, ".."):
		lo, hi, _ := strings.Cut(r, "..")
		f.Lo = num(lo)
		if hi != "" {
			f.Hi = num(hi)
		}
	case len(r) > 2 && strings.ContainsRune("([", rune(r[0])) && strings.ContainsRune(")]", rune(r[len(r)-1])):
		lo, hi, ok := strings.Cut(r[1:len(r)-1], ",")
		if !ok {
			bad("range %q", r)
		}
		f.Lo, f.Hi, f.LoOpen, f.HiOpen = num(lo), num(hi), r[0] == '(', r[len(r)-1] == ')'
	default:
		bad("range %q", r)
	}
}

// NumberRule says in words what a number range allows.
func NumberRule(r string) string {
	switch {
	case strings.HasPrefix(r, ">="):
		return "a number >= " + r[2:]
	case strings.HasPrefix(r, ">"):
		return "a number > " + r[1:]
	case strings.Contains(r, ".."):
		lo, hi, _ := strings.Cut(r, "..")
		return "a number from " + lo + " to " + hi
	case r == "":
		return "a finite number"
	}
	return "a number in " + r
}

// InRange reports whether x lies in the field's range.
func (f *Field) InRange(x float64) bool {
	if x < f.Lo || x > f.Hi || f.LoOpen && x == f.Lo || f.HiOpen && x == f.Hi {
		return false
	}
	return !math.IsNaN(x)
}

// Kind is what a value of the field is, in a word or two, as the
// references print it: integer, whole number, number, duration, bool, or
// a string's form (name, line, label, text, string); "" for FormOther.
func (f *Field) Kind() string {
	switch f.Form {
	case FormInt, FormUint:
		return "integer"
	case FormWhole:
		return "whole number"
	case FormNumber:
		return "number"
	case FormDuration:
		return "duration"
	case FormBool:
		return "bool"
	case FormString:
		if f.Str != "" {
			return f.Str
		}
		return "string"
	case FormText:
		return "string"
	}
	return ""
}

// RangeText is the field's range as a reference's column shows it: the
// range tag as written ((0,1), 1..32), a duration's bounds as durations
// ((0,24h]), or for a field without a range what is allowed (its values).
func (f *Field) RangeText() string {
	switch {
	case f.Form == FormDuration:
		lo, hi := "[", "]"
		if f.LoOpen {
			lo = "("
		}
		if f.HiOpen {
			hi = ")"
		}
		return lo + FormatDuration(f.Lo) + "," + FormatDuration(f.Hi) + hi
	case f.Range != "":
		return f.Range
	}
	return f.Allowed
}

// Optional reports whether the field's zero value means "not given": it
// has no default and is not required, so a value built in Go that leaves
// it at zero leaves the choice to the code that reads it.
func (f *Field) Optional() bool { return !f.HasDefault && !f.Required }

// FormatDuration writes ns as a message does: 24h, 1000h, 30m, 1.5s.
func FormatDuration(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d == 0:
		return "0"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	}
	return d.String()
}

// FieldError is a value its field's tags refuse.
type FieldError struct {
	Key string // the field's key
	Msg string // what is wrong and what is allowed
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

// Check holds the struct v, or the struct v points to, to the tags of its
// fields: an integer, a number or a duration in its range, a string one of
// its values or of its form, a value of a text type one its MarshalText
// writes. A field that is Optional and left at its zero value is not
// given, and passes; a required field at its zero value is missing.
// Fields of FormOther are not checked. The error is a *FieldError.
func Check(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	for _, f := range Of(rv.Type()) {
		if err := f.check(rv.FieldByIndex(f.Index)); err != nil {
			return &FieldError{Key: f.Key, Msg: err.Error()}
		}
	}
	return nil
}

// check holds one field's value to its tags.
func (f *Field) check(v reflect.Value) error {
	if v.IsZero() {
		switch {
		case f.Required:
			return fmt.Errorf("missing (allowed: %s)", f.Allowed)
		case f.Optional():
			return nil
		}
	}
	outOfRange := func(x any) error { return fmt.Errorf("%v is out of range (allowed: %s)", x, f.Allowed) }
	switch f.Form {
	case FormInt:
		if x := v.Int(); !f.InRange(float64(x)) {
			return outOfRange(x)
		}
	case FormUint:
		if x := v.Uint(); !f.InRange(float64(x)) {
			return outOfRange(x)
		}
	case FormNumber, FormWhole:
		x := v.Float()
		if f.Form == FormWhole && x != math.Trunc(x) {
			return fmt.Errorf("%v is not %s (allowed: %s)", x, f.Noun, f.Allowed)
		}
		if math.IsInf(x, 0) || !f.InRange(x) {
			return outOfRange(x)
		}
	case FormDuration:
		if x := v.Int(); x < 0 || !f.InRange(float64(x)) {
			return outOfRange(time.Duration(x))
		}
	case FormString:
		if s := v.String(); f.Oneof != nil && !slices.Contains(f.Oneof, s) {
			return fmt.Errorf("%q is not allowed (allowed: %s)", s, f.Allowed)
		}
	case FormText:
		if m, ok := v.Interface().(encoding.TextMarshaler); ok {
			if _, err := m.MarshalText(); err != nil {
				return fmt.Errorf("%v (allowed: %s)", err, f.Allowed)
			}
		}
	}
	return nil
}
