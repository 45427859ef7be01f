package strategies

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Param is one raw parameter as a scenario file gave it. Value is an int64,
// float64, bool or string; Line is its line in the file (0 if unknown).
type Param struct {
	Key   string
	Value any
	Line  int
}

// ParamError is a parameter the design refuses: an unknown key, a wrong type
// or a value out of range. Line is the parameter's line where known.
type ParamError struct {
	Type string // design type
	Key  string // parameter key ("" for a rule about several keys)
	Line int
	Msg  string // what is wrong and what is allowed
}

func (e *ParamError) Error() string {
	if e.Key == "" {
		return fmt.Sprintf("%s: %s", e.Type, e.Msg)
	}
	return fmt.Sprintf("%s: parameter %s: %s", e.Type, e.Key, e.Msg)
}

// ParamErrorf builds a *ParamError for Validate methods.
func ParamErrorf(key, format string, args ...any) error {
	return &ParamError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

type paramField struct {
	key, doc string
	index    []int
	typ      reflect.Type
}

func paramFields(t reflect.Type) []paramField {
	var fs []paramField
	for i := range t.NumField() {
		f := t.Field(i)
		key := f.Tag.Get("param")
		if key == "" || !f.IsExported() {
			continue
		}
		fs = append(fs, paramField{key: key, doc: f.Tag.Get("doc"), index: f.Index, typ: f.Type})
	}
	return fs
}

// durationType is the type of duration parameters: written as a Go
// duration ("1s", "250ms") or a number of seconds.
var durationType = reflect.TypeFor[time.Duration]()

func KindName(t reflect.Type) string {
	if t == durationType {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "integer"
	case reflect.Float64, reflect.Float32:
		return "number"
	case reflect.Bool:
		return "bool"
	case reflect.String:
		return "string"
	}
	return t.Kind().String()
}

// writtenRecorder is a Params whose Validate tells a value written as its
// zero from one left out: decodeParams tells it each key a scenario gave.
type writtenRecorder interface {
	Wrote(key string)
}

// decodeParams sets the tagged fields of the struct p points to from raw,
// refusing unknown or repeated keys and values of the wrong type.
func decodeParams(typeName string, p Params, raw []Param) error {
	v := reflect.ValueOf(p).Elem()
	fields := paramFields(v.Type())
	seen := map[string]bool{}
	for _, r := range raw {
		fail := func(format string, args ...any) error {
			return &ParamError{Type: typeName, Key: r.Key, Line: r.Line, Msg: fmt.Sprintf(format, args...)}
		}
		i := slices.IndexFunc(fields, func(f paramField) bool { return f.key == r.Key })
		if i < 0 {
			keys := make([]string, len(fields))
			for j, f := range fields {
				keys[j] = f.key
			}
			allowed := strings.Join(keys, ", ")
			if allowed == "" {
				allowed = "none"
			}
			return fail("unknown parameter (allowed: %s)", allowed)
		}
		if seen[r.Key] {
			return fail("given twice")
		}
		seen[r.Key] = true
		if w, ok := p.(writtenRecorder); ok {
			w.Wrote(r.Key)
		}
		f := fields[i]
		dst := v.FieldByIndex(f.index)
		if err := SetParam(dst, r.Value); err != nil {
			return fail("%v", err)
		}
	}
	return nil
}

func SetParam(dst reflect.Value, val any) error {
	want := KindName(dst.Type())
	if dst.Type() == durationType {
		d, err := parseDuration(val)
		if err != nil {
			return err
		}
		dst.SetInt(int64(d))
		return nil
	}
	switch dst.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, ok := wholeNumber(val)
		if !ok || dst.OverflowInt(n) {
			return fmt.Errorf("%v is not an integer", describe(val))
		}
		dst.SetInt(n)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		n, ok := wholeNumber(val)
		if !ok || n < 0 || dst.OverflowUint(uint64(n)) {
			return fmt.Errorf("%v is not a non-negative integer", describe(val))
		}
		dst.SetUint(uint64(n))
	case reflect.Float64, reflect.Float32:
		switch x := val.(type) {
		case int64:
			dst.SetFloat(float64(x))
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("%v is not a finite number", x)
			}
			dst.SetFloat(x)
		default:
			return fmt.Errorf("%v is not a number", describe(val))
		}
	case reflect.Bool:
		b, ok := val.(bool)
		if !ok {
			return fmt.Errorf("%v is not true or false", describe(val))
		}
		dst.SetBool(b)
	case reflect.String:
		s, ok := val.(string)
		if !ok {
			return fmt.Errorf("%v is not a string", describe(val))
		}
		dst.SetString(s)
	default:
		return fmt.Errorf("cannot decode a %s parameter", want)
	}
	return nil
}

// wholeNumber accepts an int64, or a float64 with no fractional part written
// as an integer would be (1e4 is accepted, 2.5 is not).
func wholeNumber(val any) (int64, bool) {
	switch x := val.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<62 {
			return int64(x), true
		}
	}
	return 0, false
}

func describe(val any) string {
	switch x := val.(type) {
	case string:
		return fmt.Sprintf("%q (a string)", x)
	case bool:
		return fmt.Sprintf("%v (a bool)", x)
	case nil:
		return "an empty value"
	}
	return fmt.Sprint(val)
}

// typed names the design in a *ParamError that a Validate method returned,
// so that constructors called without the registry (tests, benchmarks) give
// the same message as Decode: "count-min: parameter epsilon: 1.5 not in (0,1)".
func WithType(typeName string, err error) error {
	var pe *ParamError
	if errors.As(err, &pe) && pe.Type == "" {
		pe.Type = typeName
	}
	return err
}

// parseDuration reads a duration parameter: a Go duration string ("1s",
// "1m30s") or a number of seconds (1, 0.25).
func parseDuration(val any) (time.Duration, error) {
	const allowed = `a Go duration such as "1s" or "250ms", or a number of seconds`
	var secs float64
	switch x := val.(type) {
	case string:
		d, err := time.ParseDuration(x)
		if err != nil {
			return 0, fmt.Errorf("%q is not a duration (allowed: %s)", x, allowed)
		}
		return d, nil
	case int64:
		secs = float64(x)
	case float64:
		secs = x
	default:
		return 0, fmt.Errorf("%v is not a duration (allowed: %s)", describe(val), allowed)
	}
	if math.IsNaN(secs) || math.Abs(secs) > float64(math.MaxInt64)/1e9 {
		return 0, fmt.Errorf("%v seconds is out of range", secs)
	}
	return time.Duration(math.Round(secs * 1e9)), nil
}
