package strategies

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Strict decoding through the registry: every refusal is a *ParamError that
// names the key, the line where the key was given, and what is allowed.
func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		params  []Param
		key     string
		line    int
		wantMsg string // a substring of Error()
	}{
		{"epsilon out of range", "count-min", []Param{{"epsilon", 1.5, 7}, {"delta", 0.01, 8}}, "epsilon", 7,
			"count-min: parameter epsilon: 1.5 not in (0,1)"},
		{"epsilon zero", "count-min", []Param{{"epsilon", 0.0, 7}, {"delta", 0.01, 8}}, "epsilon", 7, "0 not in (0,1)"}, // written as 0: out of range, not left out
		{"delta one", "count-min", []Param{{"epsilon", 0.1, 7}, {"delta", int64(1), 8}}, "delta", 8, "1 not in (0,1)"},
		{"delta negative", "count-min", []Param{{"epsilon", 0.1, 7}, {"delta", -0.5, 8}}, "delta", 8, "-0.5 not in (0,1)"},
		{"unknown key", "count-min", []Param{{"epsilom", 0.1, 3}}, "epsilom", 3,
			"unknown parameter (allowed: epsilon, delta, width, depth, conservative, top)"},
		{"width not an integer", "count-min", []Param{{"width", 2.5, 4}, {"depth", int64(3), 5}}, "width", 4, "2.5 is not an integer"},
		{"depth a string", "count-min", []Param{{"width", int64(100), 4}, {"depth", "five", 5}}, "depth", 5, `"five" (a string) is not an integer`},
		{"epsilon without delta", "count-min", []Param{{"epsilon", 0.001, 2}}, "epsilon", 2, "given without delta"},
		{"delta without epsilon", "count-min", []Param{{"delta", 0.01, 2}}, "delta", 2, "given without epsilon"},
		{"width without depth", "count-min", []Param{{"width", int64(1000), 6}}, "width", 6, "given without depth"},
		{"depth without width", "count-min", []Param{{"depth", int64(4), 6}}, "depth", 6, "given without width"},
		{"both pairs", "count-min", []Param{{"epsilon", 0.001, 2}, {"delta", 0.01, 3}, {"width", int64(100), 4}, {"depth", int64(4), 5}}, "width", 4,
			"either epsilon and delta or width and depth, not both"},
		{"neither pair", "count-min", nil, "", 0, "count-min: give epsilon and delta, or width and depth"},
		{"width zero", "count-min", []Param{{"width", int64(-3), 4}, {"depth", int64(4), 5}}, "width", 4, "-3 not in 1..268435456"},
		{"depth too deep", "count-min", []Param{{"width", int64(10), 4}, {"depth", int64(33), 5}}, "depth", 5, "33 not in 1..32"},
		{"epsilon too small", "count-min", []Param{{"epsilon", 1e-9, 4}, {"delta", 0.01, 5}}, "epsilon", 4, "needs width ⌈e/ε⌉ = 2718281829"},
		{"delta too small", "count-min", []Param{{"epsilon", 0.01, 4}, {"delta", 1e-20, 5}}, "delta", 5, "needs depth ⌈ln 1/δ⌉ = 47, more than 32"},
		{"top negative", "count-min", []Param{{"epsilon", 0.01, 4}, {"delta", 0.01, 5}, {"top", int64(-1), 6}}, "top", 6, "-1 not in 0..100000"},
		{"top too big", "count-min", []Param{{"epsilon", 0.01, 4}, {"delta", 0.01, 5}, {"top", 1e6, 6}}, "top", 6, "1000000 not in 0..100000"},
		{"conservative not a bool", "count-min", []Param{{"conservative", "yes", 9}}, "conservative", 9, "is not true or false"},
		{"given twice", "count-min", []Param{{"epsilon", 0.01, 4}, {"epsilon", 0.02, 5}}, "epsilon", 5, "given twice"},
		{"counters zero", "space-saving", []Param{{"counters", int64(0), 3}}, "counters", 3, "space-saving: parameter counters: 0 not in 1..10000000"},
		{"counters missing", "space-saving", nil, "counters", 0, "0 not in 1..10000000"},
		{"counters a float", "space-saving", []Param{{"counters", 99.5, 3}}, "counters", 3, "99.5 is not an integer"},
		{"shards zero", "exact", []Param{{"shards", int64(0), 11}}, "shards", 11, "exact: parameter shards: 0 not in 1..1024"},
		{"shards too many", "exact", []Param{{"shards", int64(1025), 11}}, "shards", 11, "1025 not in 1..1024"},
		{"exact unknown key", "exact", []Param{{"shard", int64(2), 11}}, "shard", 11, "unknown parameter (allowed: shards)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			p, err := typ.Decode(tt.params)
			var pe *ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v (%v), want a *ParamError", err, p)
			}
			if pe.Type != tt.typ || pe.Key != tt.key || pe.Line != tt.line {
				t.Errorf("got type %q, key %q, line %d, want %q, %q, %d", pe.Type, pe.Key, pe.Line, tt.typ, tt.key, tt.line)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		typ    string
		params []Param
		want   Params
	}{
		{"count-min", []Param{{"epsilon", 0.0001, 1}, {"delta", 0.01, 2}, {"top", int64(10), 3}, {"conservative", true, 4}},
			&CountMinParams{Epsilon: 0.0001, Delta: 0.01, Top: 10, Conservative: true, written: cmEpsilon | cmDelta}},
		{"count-min", []Param{{"width", 1e5, 1}, {"depth", int64(4), 2}}, &CountMinParams{Width: 100000, Depth: 4, written: cmWidth | cmDepth}},
		{"space-saving", []Param{{"counters", int64(1000), 1}}, &SpaceSavingParams{Counters: 1000}},
		{"exact", nil, &ExactParams{Shards: 1}},
		{"exact", []Param{{"shards", int64(4), 1}}, &ExactParams{Shards: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			typ, err := Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			p, err := typ.Decode(tt.params)
			if err != nil {
				t.Fatal(err)
			}
			switch want := tt.want.(type) {
			case *CountMinParams:
				if *p.(*CountMinParams) != *want {
					t.Errorf("got %+v, want %+v", p, want)
				}
			case *SpaceSavingParams:
				if *p.(*SpaceSavingParams) != *want {
					t.Errorf("got %+v, want %+v", p, want)
				}
			case *ExactParams:
				if *p.(*ExactParams) != *want {
					t.Errorf("got %+v, want %+v", p, want)
				}
			}
		})
	}
}

// The constructors refuse what Decode refuses, with the same message.
func TestConstructorsRefuse(t *testing.T) {
	_, err1 := NewCountMin(CountMinParams{Epsilon: 1.5, Delta: 0.01}, 1)
	_, err2 := NewCountMinTopK(CountMinParams{Epsilon: 0.1, Delta: 0.01}, 1)
	_, err3 := NewSpaceSaving(SpaceSavingParams{}, 1)
	_, err4 := NewExact(ExactParams{}, 10, 1)
	for _, tt := range []struct {
		err  error
		want string
	}{
		{err1, "count-min: parameter epsilon: 1.5 not in (0,1)"},
		{err2, "count-min: parameter top: 0: a heap needs top ≥ 1"},
		{err3, "space-saving: parameter counters: 0 not in 1..10000000"},
		{err4, "exact: parameter shards: 0 not in 1..1024"},
	} {
		var pe *ParamError
		if !errors.As(tt.err, &pe) || tt.err.Error() != tt.want {
			t.Errorf("got %v, want the *ParamError %q", tt.err, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	if _, err := Lookup("count-max"); !errors.Is(err, ErrUnknownType) {
		t.Errorf("Lookup(count-max): got %v, want ErrUnknownType", err)
	}
	for _, name := range []string{"count-min", "space-saving", "exact"} {
		typ, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if typ.Summary == "" {
			t.Errorf("%s: no summary", name)
		}
		for _, d := range typ.ParamDocs() {
			if d.Doc == "" || d.Kind == "" {
				t.Errorf("%s.%s: doc %q, kind %q", name, d.Key, d.Doc, d.Kind)
			}
		}
	}
}

func TestDurationParams(t *testing.T) {
	type p struct {
		D time.Duration `param:"d" doc:"a duration"`
	}
	for _, c := range []struct {
		val     any
		want    time.Duration
		wantErr string
	}{
		{"1s", time.Second, ""}, {"250ms", 250 * time.Millisecond, ""}, {int64(2), 2 * time.Second, ""},
		{0.5, 500 * time.Millisecond, ""}, {"1x", 0, `"1x" is not a duration`}, {true, 0, "is not a duration"},
	} {
		var dst p
		err := setParam(reflect.ValueOf(&dst).Elem().Field(0), c.val)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%v: got error %v, want %q", c.val, err, c.wantErr)
			}
			continue
		}
		if err != nil || dst.D != c.want {
			t.Errorf("%v: got %v (%v), want %v", c.val, dst.D, err, c.want)
		}
	}
	if k := kindName(reflect.TypeFor[time.Duration]()); k != "duration" {
		t.Errorf("kindName: got %q, want duration", k)
	}
}

// A parameter written as 0 is out of range, not left out: `epsilon: 0`
// names epsilon and its range (it read "delta given without epsilon").
func TestZeroWrittenIsNotAbsent(t *testing.T) {
	typ, err := Lookup("count-min")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		raw  []Param
		want string
	}{
		{[]Param{{Key: "epsilon", Value: int64(0)}, {Key: "delta", Value: 0.01}}, "parameter epsilon: 0 not in (0,1)"},
		{[]Param{{Key: "epsilon", Value: 0.001}, {Key: "delta", Value: 0.0}}, "parameter delta: 0 not in (0,1)"},
		{[]Param{{Key: "width", Value: int64(0)}, {Key: "depth", Value: int64(4)}}, "parameter width: 0 not in 1..268435456"},
		{[]Param{{Key: "width", Value: int64(100)}, {Key: "depth", Value: int64(0)}}, "parameter depth: 0 not in 1..32"},
		{[]Param{{Key: "delta", Value: 0.01}}, "parameter delta: given without epsilon"},
		{[]Param{{Key: "epsilon", Value: 0.0}, {Key: "width", Value: int64(10)}, {Key: "depth", Value: int64(2)}}, "not both"},
	} {
		_, err := typ.Decode(c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.raw, err, c.want)
		}
	}
}
