package scenarios

import (
	"fmt"
	"math"
	"reflect"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Design parameters are decoded by the decoder of every other key: a
// design's parameter struct carries the same tags as the scenario types
// (package schema's: key, range, oneof, default, doc), so a parameter takes
// its ranges, values and default from its tags, and a bad one is refused at
// its line with what is allowed, as any key of the file is. The raw values
// stay in Strategy.Params (the registry names the struct only once the
// type is known, and a sweep puts one of its values in place of one
// parameter) until DecodeParams fills the struct.

// DecodeParams decodes the parameters of the scenario's design entry i
// into dst, a pointer to its type's parameter struct: params is the
// entry's, or a sweep's member's. See [DecodeParams].
func (s *Scenario) DecodeParams(i int, params []Param, dst any) error {
	path := fmt.Sprintf("strategies[%d].params", i)
	if s.stepPath != "" {
		path = s.stepPath + "." + path
	}
	at := Pos{File: s.File}
	if i >= 0 && i < len(s.Strategies) {
		at = s.Strategies[i].Pos
	}
	return DecodeParams(path, at, params, dst)
}

// DecodeParams decodes raw design parameters into dst, a pointer to a
// struct whose fields carry package schema's tags: each field's default
// first, then each parameter, by the scalar forms, ranges and values of
// every scenario key; a field tagged required must be given. path names
// the parameters in messages ("strategies[1].params"), and at is where a
// required key that is missing is reported (the design's entry). An unknown key, a
// key given twice, a wrong type or a value out of range is an *Error at
// the parameter's position. A parameter's value is decoded as the YAML
// scalar it is written as: the loader kept it as an int64, a float64, a
// bool or a string by its tag, and a Param made in Go is read alike.
func DecodeParams(path string, at Pos, params []Param, dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("scenarios: DecodeParams into %T, not a pointer to a struct", dst))
	}
	v = v.Elem()
	sc := schemaOf(v.Type())
	file := at.File
	if file == "" && len(params) > 0 {
		file = params[0].Pos.File
	}
	d := newDecoder(file)
	for _, f := range sc.fields {
		if f.def != nil {
			if err := d.value(f, f.def, f.def, "default of "+f.Key, v.FieldByIndex(f.Index)); err != nil {
				panic(err) // a bad default tag: a programming error
			}
		}
	}
	seen := map[string]bool{}
	for _, p := range params {
		n := scalarNode(p)
		if p.Pos.Set != "" {
			d.setNodes[n] = p.Pos.Set // a -set gave it: the message names the -set
		}
		f := sc.field(p.Key)
		if f == nil {
			allowed := joinKeys(sc.keys())
			if allowed == "" {
				allowed = "none: the design takes no parameters"
			}
			e := Errorf(p.Pos, "%s: unknown key %q (allowed: %s)%s", path, p.Key, allowed, DidYouMean(p.Key, sc.keys()))
			e.Path = join(path, p.Key)
			return e
		}
		if seen[p.Key] {
			e := Errorf(p.Pos, "%s: key %q given twice", path, p.Key)
			e.Path = join(path, p.Key)
			return e
		}
		seen[p.Key] = true
		if err := d.value(f, n, n, join(path, p.Key), v.FieldByIndex(f.Index)); err != nil {
			return err
		}
	}
	for _, f := range sc.fields {
		if f.Required && !seen[f.Key] {
			e := Errorf(at, "%s: missing required key %q (allowed: %s)", path, f.Key, f.Allowed)
			e.Path = join(path, f.Key)
			return e
		}
	}
	return nil
}

// scalarNode is the YAML scalar of the parameter's value, at the
// parameter's position.
func scalarNode(p Param) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Line: p.Pos.Line, Column: p.Pos.Col}
	switch x := p.Value.(type) {
	case int:
		n.Tag, n.Value = "!!int", strconv.Itoa(x)
	case int64:
		n.Tag, n.Value = "!!int", strconv.FormatInt(x, 10)
	case float64:
		n.Tag, n.Value = "!!float", strconv.FormatFloat(x, 'g', -1, 64)
		switch {
		case math.IsNaN(x):
			n.Value = ".nan"
		case math.IsInf(x, 1):
			n.Value = ".inf"
		case math.IsInf(x, -1):
			n.Value = "-.inf"
		}
	case bool:
		n.Tag, n.Value = "!!bool", strconv.FormatBool(x)
	case string:
		n.Tag, n.Value, n.Style = "!!str", x, yaml.DoubleQuotedStyle
	case nil:
		n.Tag, n.Value = "!!null", ""
	default:
		n.Tag, n.Value = "!!str", fmt.Sprint(x)
	}
	return n
}
