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
	"sync"

	"go.yaml.in/yaml/v3"

	"countsim/internal/schema"
)

// The tag language, the scalar forms and their ranges are package
// schema's (internal/schema), which the designs' parameters share; this
// file adds the forms of a scenario's own: nested mappings, lists, the
// design parameters, expectations, sweeps and the kind of run.

// maxDuration is the longest duration any key takes, and the longest a
// timed stream may last.
const maxDuration = schema.MaxDuration

// form is how a field's value is written and decoded: package schema's
// scalar forms, then a scenario's own.
type form = schema.Form

const (
	formInt      = schema.FormInt      // int or int64: an integer in lo..hi (≥ 0)
	formUint     = schema.FormUint     // uint64: a non-negative integer in lo..hi
	formWhole    = schema.FormWhole    // float64 holding a whole number in lo..hi
	formNumber   = schema.FormNumber   // float64: a finite number in its range
	formDuration = schema.FormDuration // int64 ns: a Go duration or seconds, up to 24h
	formBool     = schema.FormBool     // bool
	formString   = schema.FormString   // string: a name, line, label, text, one of a set, or plain
	formText     = schema.FormText     // a type with UnmarshalText (a tie policy, a read path)
)

const (
	formStruct   form = schema.FormOther + 1 + iota // a struct: a mapping with the struct's keys
	formOptional                                    // *struct: a mapping, nil when the key is absent
	formList                                        // []struct: a list of mappings
	formParams                                      // []Param: a mapping of raw scalars
	formExpect                                      // []Expectation: a list of strings
	formSweep                                       // *Sweep: one parameter and a list of its values
	formRun                                         // Run: the kind of run, given by one of the kinds' keys
	formInts                                        // []int: a list of integers, each in the field's range
)

// field is one key of a mapping: its tags as package schema reads them,
// and how this decoder decodes it.
type field struct {
	*schema.Field
	form form
	def  *yaml.Node // the default, parsed from the tag; nil: the zero value
	elem *mapping   // formStruct, formOptional, formList
}

// mapping is the keys of one struct type, in declaration order (the fields
// of an embedded struct where it is embedded).
type mapping struct {
	typ    reflect.Type
	fields []*field
	pos    []int // the index of its Pos field, nil without one
}

// keys lists the schema's keys in order; a Run field stands for the keys
// of the kinds of run.
func (s *mapping) keys() []string {
	var ks []string
	for _, f := range s.fields {
		if f.form == formRun {
			ks = append(ks, runKeys()...)
			continue
		}
		ks = append(ks, f.Key)
	}
	return ks
}

// field returns the field of key, or nil. The run's field has no key of
// its own: no key finds it, not even "".
func (s *mapping) field(key string) *field {
	for _, f := range s.fields {
		if f.Key == key && f.form != formRun {
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
func schemaOf(t reflect.Type) *mapping {
	if s, ok := schemas.Load(t); ok {
		return s.(*mapping)
	}
	s := &mapping{typ: t}
	addFields(s, t, nil)
	v, _ := schemas.LoadOrStore(t, s)
	return v.(*mapping)
}

func addFields(s *mapping, t reflect.Type, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		idx := append(append([]int(nil), index...), i)
		switch {
		case sf.Anonymous && sf.Type.Kind() == reflect.Struct:
			addFields(s, sf.Type, idx)
		case sf.Type == posType && sf.Name == "Pos" && len(index) == 0:
			s.pos = idx
		case sf.Type == runType:
			s.fields = append(s.fields, &field{Field: &schema.Field{Index: idx, Doc: sf.Tag.Get("doc")}, form: formRun})
		case sf.Tag.Get("key") != "":
			s.fields = append(s.fields, newField(t, sf, idx))
		}
	}
}

func newField(owner reflect.Type, sf reflect.StructField, index []int) *field {
	f := &field{Field: schema.NewField(owner, sf, index)}
	bad := func(format string, args ...any) {
		panic(fmt.Sprintf("scenarios: %s.%s: %s", owner.Name(), sf.Name, fmt.Sprintf(format, args...)))
	}
	switch t := sf.Type; {
	case f.Field.Form != schema.FormOther:
		f.form = f.Field.Form
	case t == paramType:
		f.form = formParams
		f.Allowed = "key: value pairs whose values are numbers, bools or strings"
	case t == expectType:
		f.form = formExpect
		f.Allowed = expectRule
	case t == sweepType:
		f.form = formSweep
		f.Allowed = sweepRule
	case t.Kind() == reflect.Struct:
		f.form, f.elem = formStruct, schemaOf(t)
	case t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct:
		f.form, f.elem = formOptional, schemaOf(t.Elem())
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Int:
		f.form, f.Noun = formInts, "an integer"
		f.Allowed = "a list of integers, each " + f.Range
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		f.form, f.elem = formList, schemaOf(t.Elem())
		if f.Entry == "" {
			bad("a list needs an entry tag")
		}
	default:
		bad("type %v cannot be decoded", t)
	}
	if a := sf.Tag.Get("allowed"); a != "" {
		f.Allowed = a
	}
	if f.Allowed == "" && f.elem == nil {
		bad("nothing says what is allowed")
	}
	if f.HasDefault {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(f.Default), &doc); err != nil || len(doc.Content) != 1 {
			bad("default %q is not one YAML value", f.Default)
		}
		f.def = doc.Content[0]
	}
	return f
}

// mappingRule says what a mapping of the schema allows.
func (s *mapping) mappingRule() string { return "a mapping with keys " + joinKeys(s.keys()) }

// listRule says what a list field allows, with its count of entries.
func (f *field) listRule(withCount bool) string {
	if withCount && !math.IsInf(f.Hi, 1) {
		return fmt.Sprintf("a list of %v..%v mappings with keys %s", f.Lo, f.Hi, joinKeys(f.elem.keys()))
	}
	return "a list of mappings with keys " + joinKeys(f.elem.keys())
}
