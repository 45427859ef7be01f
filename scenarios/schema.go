package scenarios

// The schema of the scenario format, read from the tags of the types in
// scenario.go and the kinds' files (the tag language is described there).
// A type's schema is built once and drives three things: the decoder
// (decode.go), its error messages, and the reference (reference.go) that
// `countsim help scenario` prints. A key, its type, its range, its default
// and its meaning are written in one place: the field's tags.

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxDuration is the longest duration any key takes, and the longest a
// timed stream may last.
const maxDuration = int64(24 * time.Hour)

// durationRule names the forms of a duration, for messages.
const durationRule = `written as a Go duration such as "60s", "250ms" or "1m30s", or as a number of seconds such as 60 or 0.25`

// Rules of the string forms.
const (
	nameRule   = "lower-case letters, digits and '-', starting with a letter or digit, at most 64 characters"
	lineRule   = "one line of text"
	labelRule  = "one line of text, at most 64 characters"
	textRule   = "text"
	maxNameLen = 64
	maxLabel   = 64
)

// form is how a field's value is written and decoded.
type form int

const (
	formInt      form = iota // int or int64: an integer in lo..hi (≥ 0)
	formUint                 // uint64: a non-negative integer in lo..hi
	formWhole                // float64 holding a whole number in lo..hi
	formNumber               // float64: a finite number in its range
	formDuration             // int64 ns: a Go duration or seconds, up to 24h
	formBool                 // bool
	formString               // string: a name, line, label, text, one of a set, or plain
	formStruct               // a struct: a mapping with the struct's keys
	formOptional             // *struct: a mapping, nil when the key is absent
	formList                 // []struct: a list of mappings
	formParams               // []Param: a mapping of raw scalars
	formExpect               // []Expectation: a list of strings
	formSweep                // *Sweep: one parameter and a list of its values
	formRun                  // Run: the kind of run, given by one of the kinds' keys
)

// field is one key of a mapping.
type field struct {
	key      string
	index    []int // of the Go field, for reflect.Value.FieldByIndex
	form     form
	str      string   // formString: "name", "line", "label", "text" or ""
	oneof    []string // formString: the values allowed
	required bool
	def      *yaml.Node // the default, parsed from the tag; nil: the zero value
	defText  string     // the default as the reference shows it
	lo, hi   float64    // the range; for lists, of the entries
	loOpen   bool       // lo itself is excluded
	hiOpen   bool
	allowed  string // what is allowed, for messages and the reference
	noun     string // what a value of the wrong type is not: "an integer"
	doc      string
	entry    string  // formList: the noun of one entry ("phase")
	elem     *schema // formStruct, formOptional, formList
}

// schema is the keys of one struct type, in declaration order (the fields
// of an embedded struct where it is embedded).
type schema struct {
	typ    reflect.Type
	fields []*field
	pos    []int // the index of its Pos field, nil without one
}

// keys lists the schema's keys in order; a Run field stands for the keys
// of the kinds of run.
func (s *schema) keys() []string {
	var ks []string
	for _, f := range s.fields {
		if f.form == formRun {
			ks = append(ks, runKeys()...)
			continue
		}
		ks = append(ks, f.key)
	}
	return ks
}

// field returns the field of key, or nil.
func (s *schema) field(key string) *field {
	for _, f := range s.fields {
		if f.key == key {
			return f
		}
	}
	return nil
}

var (
	schemas    sync.Map // reflect.Type → *schema
	posType    = reflect.TypeFor[Pos]()
	runType    = reflect.TypeFor[Run]()
	paramType  = reflect.TypeFor[[]Param]()
	expectType = reflect.TypeFor[[]Expectation]()
	sweepType  = reflect.TypeFor[*Sweep]()
)

// schemaOf returns the schema of struct type t, building it on first use.
// A malformed tag is a programming error: it panics, and the tests that
// load every built-in scenario and print the reference catch it.
func schemaOf(t reflect.Type) *schema {
	if s, ok := schemas.Load(t); ok {
		return s.(*schema)
	}
	s := &schema{typ: t}
	addFields(s, t, nil)
	v, _ := schemas.LoadOrStore(t, s)
	return v.(*schema)
}

func addFields(s *schema, t reflect.Type, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		switch {
		case sf.Anonymous && sf.Type.Kind() == reflect.Struct:
			addFields(s, sf.Type, idx)
		case sf.Type == posType && sf.Name == "Pos" && len(index) == 0:
			s.pos = idx
		case sf.Type == runType:
			s.fields = append(s.fields, &field{index: idx, form: formRun, doc: sf.Tag.Get("doc")})
		case sf.Tag.Get("key") != "":
			s.fields = append(s.fields, newField(t, sf, idx))
		}
	}
}

func newField(owner reflect.Type, sf reflect.StructField, index []int) *field {
	tag := sf.Tag
	f := &field{
		key:      tag.Get("key"),
		index:    index,
		required: tag.Get("required") == "true",
		doc:      tag.Get("doc"),
		entry:    tag.Get("entry"),
		str:      tag.Get("type"),
	}
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("scenarios: %s.%s: %s", owner.Name(), sf.Name, fmt.Sprintf(format, args...)))
	}
	if f.doc == "" {
		bad("no doc tag")
	}
	rng := tag.Get("range")
	switch t := sf.Type; {
	case t == paramType:
		f.form = formParams
		f.allowed = "key: value pairs whose values are numbers, bools or strings"
	case t == expectType:
		f.form = formExpect
		f.allowed = expectRule
	case t == sweepType:
		f.form = formSweep
		f.allowed = sweepRule
	case f.str == "duration" && t.Kind() == reflect.Int64:
		f.form, f.str, f.noun = formDuration, "", "a duration"
		f.parseRange(rng, bad)
		f.hi = float64(maxDuration)
		if f.lo > 0 || f.loOpen {
			f.allowed = "a duration above 0 and at most 24h, " + durationRule
		} else {
			f.allowed = "a duration from 0 to 24h, " + durationRule
		}
	case f.str == "whole" && t.Kind() == reflect.Float64:
		f.form, f.str, f.noun = formWhole, "", "a whole number"
		f.parseRange(rng, bad)
		f.allowed = "a whole number, " + rng
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		f.form, f.noun, f.allowed = formInt, "an integer", rng
		f.parseRange(rng, bad)
	case t.Kind() == reflect.Uint64:
		f.form, f.noun, f.allowed = formUint, "a non-negative integer", rng
		f.parseRange(rng, bad)
	case t.Kind() == reflect.Float64:
		f.form, f.noun = formNumber, "a number"
		f.parseRange(rng, bad)
		f.allowed = numberRule(rng)
	case t.Kind() == reflect.Bool:
		f.form, f.noun, f.allowed = formBool, "a bool", "true, false"
	case t.Kind() == reflect.String:
		f.form, f.noun = formString, "a string"
		if o := tag.Get("oneof"); o != "" {
			f.oneof = strings.Split(o, ",")
			f.allowed = joinKeys(f.oneof)
		}
		switch f.str {
		case "name":
			f.allowed = nameRule
		case "line":
			f.allowed = lineRule
		case "label":
			f.allowed = labelRule
		case "text":
			f.allowed = textRule
		case "":
		default:
			bad("unknown type %q", f.str)
		}
	case t.Kind() == reflect.Struct:
		f.form, f.elem = formStruct, schemaOf(t)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		f.form, f.elem = formOptional, schemaOf(t.Elem())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		f.form, f.elem = formList, schemaOf(t.Elem())
		f.lo, f.hi = 0, math.Inf(1)
		if rng != "" {
			f.parseRange(rng, bad)
		}
		if f.entry == "" {
			bad("a list needs an entry tag")
		}
	default:
		bad("type %v cannot be decoded", t)
	}
	if a := tag.Get("allowed"); a != "" {
		f.allowed = a
	}
	if f.allowed == "" && f.elem == nil {
		bad("nothing says what is allowed")
	}
	if d, ok := tag.Lookup("default"); ok {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(d), &doc); err != nil || len(doc.Content) != 1 {
			bad("default %q is not one YAML value", d)
		}
		f.def, f.defText = doc.Content[0], d
	}
	if d := tag.Get("defaultdoc"); d != "" {
		f.defText = d
	}
	return f
}

// parseRange reads lo..hi, >x, >=x, (lo,hi], [lo,hi), (lo,hi) or [lo,hi].
// lo.. has no upper end.
func (f *field) parseRange(r string, bad func(string, ...any)) {
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			bad("range %q: %v", r, err)
		}
		return x
	}
	f.lo, f.hi = math.Inf(-1), math.Inf(1)
	switch {
	case r == "":
	case strings.HasPrefix(r, ">="):
		f.lo = num(r[2:])
	case strings.HasPrefix(r, ">"):
		f.lo, f.loOpen = num(r[1:]), true
	case strings.Contains(r, ".."):
		lo, hi, _ := strings.Cut(r, "..")
		f.lo = num(lo)
		if hi != "" {
			f.hi = num(hi)
		}
	case len(r) > 2 && strings.ContainsRune("([", rune(r[0])) && strings.ContainsRune(")]", rune(r[len(r)-1])):
		lo, hi, ok := strings.Cut(r[1:len(r)-1], ",")
		if !ok {
			bad("range %q", r)
		}
		f.lo, f.hi, f.loOpen, f.hiOpen = num(lo), num(hi), r[0] == '(', r[len(r)-1] == ')'
	default:
		bad("range %q", r)
	}
}

// numberRule says in words what a number range allows.
func numberRule(r string) string {
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

// inRange reports whether x lies in the field's range.
func (f *field) inRange(x float64) bool {
	if x < f.lo || x > f.hi || f.loOpen && x == f.lo || f.hiOpen && x == f.hi {
		return false
	}
	return !math.IsNaN(x)
}

// mappingRule says what a mapping of the schema allows.
func (s *schema) mappingRule() string { return "a mapping with keys " + joinKeys(s.keys()) }

// listRule says what a list field allows, with its count of entries.
func (f *field) listRule(withCount bool) string {
	if withCount && !math.IsInf(f.hi, 1) {
		return fmt.Sprintf("a list of %v..%v mappings with keys %s", f.lo, f.hi, joinKeys(f.elem.keys()))
	}
	return "a list of mappings with keys " + joinKeys(f.elem.keys())
}
