package frequency

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"countsim/strategies"
)

// Strict decoding through the registry: every refusal is a *ParamError that
// names the key, the line where the key was given, and what is allowed.
func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		params  []strategies.Param
		key     string
		line    int
		wantMsg string // a substring of Error()
	}{
		{"epsilon out of range", "count-min", []strategies.Param{{Key: "epsilon", Value: 1.5, Line: 7}, {Key: "delta", Value: 0.01, Line: 8}}, "epsilon", 7,
			"count-min: parameter epsilon: 1.5 not in (0,1)"},
		{"epsilon zero", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.0, Line: 7}, {Key: "delta", Value: 0.01, Line: 8}}, "epsilon", 7, "0 not in (0,1)"}, // written as 0: out of range, not left out
		{"delta one", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.1, Line: 7}, {Key: "delta", Value: int64(1), Line: 8}}, "delta", 8, "1 not in (0,1)"},
		{"delta negative", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.1, Line: 7}, {Key: "delta", Value: -0.5, Line: 8}}, "delta", 8, "-0.5 not in (0,1)"},
		{"unknown key", "count-min", []strategies.Param{{Key: "epsilom", Value: 0.1, Line: 3}}, "epsilom", 3,
			"unknown parameter (allowed: epsilon, delta, width, depth, conservative, top)"},
		{"width not an integer", "count-min", []strategies.Param{{Key: "width", Value: 2.5, Line: 4}, {Key: "depth", Value: int64(3), Line: 5}}, "width", 4, "2.5 is not an integer"},
		{"depth a string", "count-min", []strategies.Param{{Key: "width", Value: int64(100), Line: 4}, {Key: "depth", Value: "five", Line: 5}}, "depth", 5, `"five" (a string) is not an integer`},
		{"epsilon without delta", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.001, Line: 2}}, "epsilon", 2, "given without delta"},
		{"delta without epsilon", "count-min", []strategies.Param{{Key: "delta", Value: 0.01, Line: 2}}, "delta", 2, "given without epsilon"},
		{"width without depth", "count-min", []strategies.Param{{Key: "width", Value: int64(1000), Line: 6}}, "width", 6, "given without depth"},
		{"depth without width", "count-min", []strategies.Param{{Key: "depth", Value: int64(4), Line: 6}}, "depth", 6, "given without width"},
		{"both pairs", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.001, Line: 2}, {Key: "delta", Value: 0.01, Line: 3}, {Key: "width", Value: int64(100), Line: 4}, {Key: "depth", Value: int64(4), Line: 5}}, "width", 4,
			"either epsilon and delta or width and depth, not both"},
		{"neither pair", "count-min", nil, "", 0, "count-min: give epsilon and delta, or width and depth"},
		{"width zero", "count-min", []strategies.Param{{Key: "width", Value: int64(-3), Line: 4}, {Key: "depth", Value: int64(4), Line: 5}}, "width", 4, "-3 not in 1..268435456"},
		{"depth too deep", "count-min", []strategies.Param{{Key: "width", Value: int64(10), Line: 4}, {Key: "depth", Value: int64(33), Line: 5}}, "depth", 5, "33 not in 1..32"},
		{"epsilon too small", "count-min", []strategies.Param{{Key: "epsilon", Value: 1e-9, Line: 4}, {Key: "delta", Value: 0.01, Line: 5}}, "epsilon", 4, "needs width ⌈e/ε⌉ = 2718281829"},
		{"delta too small", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.01, Line: 4}, {Key: "delta", Value: 1e-20, Line: 5}}, "delta", 5, "needs depth ⌈ln 1/δ⌉ = 47, more than 32"},
		{"top negative", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.01, Line: 4}, {Key: "delta", Value: 0.01, Line: 5}, {Key: "top", Value: int64(-1), Line: 6}}, "top", 6, "-1 not in 0..100000"},
		{"top too big", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.01, Line: 4}, {Key: "delta", Value: 0.01, Line: 5}, {Key: "top", Value: 1e6, Line: 6}}, "top", 6, "1000000 not in 0..100000"},
		{"conservative not a bool", "count-min", []strategies.Param{{Key: "conservative", Value: "yes", Line: 9}}, "conservative", 9, "is not true or false"},
		{"given twice", "count-min", []strategies.Param{{Key: "epsilon", Value: 0.01, Line: 4}, {Key: "epsilon", Value: 0.02, Line: 5}}, "epsilon", 5, "given twice"},
		{"counters zero", "space-saving", []strategies.Param{{Key: "counters", Value: int64(0), Line: 3}}, "counters", 3, "space-saving: parameter counters: 0 not in 1..10000000"},
		{"counters missing", "space-saving", nil, "counters", 0, "0 not in 1..10000000"},
		{"counters a float", "space-saving", []strategies.Param{{Key: "counters", Value: 99.5, Line: 3}}, "counters", 3, "99.5 is not an integer"},
		{"shards zero", "exact", []strategies.Param{{Key: "shards", Value: int64(0), Line: 11}}, "shards", 11, "exact: parameter shards: 0 not in 1..1024"},
		{"shards too many", "exact", []strategies.Param{{Key: "shards", Value: int64(1025), Line: 11}}, "shards", 11, "1025 not in 1..1024"},
		{"exact unknown key", "exact", []strategies.Param{{Key: "shard", Value: int64(2), Line: 11}}, "shard", 11, "unknown parameter (allowed: shards)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := strategies.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			p, err := typ.Decode(tt.params)
			var pe *strategies.ParamError
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
		params []strategies.Param
		want   strategies.Params
	}{
		{"count-min", []strategies.Param{{Key: "epsilon", Value: 0.0001, Line: 1}, {Key: "delta", Value: 0.01, Line: 2}, {Key: "top", Value: int64(10), Line: 3}, {Key: "conservative", Value: true, Line: 4}},
			&CountMinParams{Epsilon: 0.0001, Delta: 0.01, Top: 10, Conservative: true, Written: cmEpsilon | cmDelta}},
		{"count-min", []strategies.Param{{Key: "width", Value: 1e5, Line: 1}, {Key: "depth", Value: int64(4), Line: 2}}, &CountMinParams{Width: 100000, Depth: 4, Written: cmWidth | cmDepth}},
		{"space-saving", []strategies.Param{{Key: "counters", Value: int64(1000), Line: 1}}, &SpaceSavingParams{Counters: 1000}},
		{"exact", nil, &ExactParams{Shards: 1}},
		{"exact", []strategies.Param{{Key: "shards", Value: int64(4), Line: 1}}, &ExactParams{Shards: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			typ, err := strategies.Lookup(tt.typ)
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
		var pe *strategies.ParamError
		if !errors.As(tt.err, &pe) || tt.err.Error() != tt.want {
			t.Errorf("got %v, want the *ParamError %q", tt.err, tt.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	if _, err := strategies.Lookup("count-max"); !errors.Is(err, strategies.ErrUnknownType) {
		t.Errorf("Lookup(count-max): got %v, want ErrUnknownType", err)
	}
	for _, name := range []string{"count-min", "space-saving", "exact"} {
		typ, err := strategies.Lookup(name)
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
		err := strategies.SetParam(reflect.ValueOf(&dst).Elem().Field(0), c.val)
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
	if k := strategies.KindName(reflect.TypeFor[time.Duration]()); k != "duration" {
		t.Errorf("kindName: got %q, want duration", k)
	}
}

// A parameter written as 0 is out of range, not left out: `epsilon: 0`
// names epsilon and its range (it read "delta given without epsilon").
func TestZeroWrittenIsNotAbsent(t *testing.T) {
	typ, err := strategies.Lookup("count-min")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		raw  []strategies.Param
		want string
	}{
		{[]strategies.Param{{Key: "epsilon", Value: int64(0)}, {Key: "delta", Value: 0.01}}, "parameter epsilon: 0 not in (0,1)"},
		{[]strategies.Param{{Key: "epsilon", Value: 0.001}, {Key: "delta", Value: 0.0}}, "parameter delta: 0 not in (0,1)"},
		{[]strategies.Param{{Key: "width", Value: int64(0)}, {Key: "depth", Value: int64(4)}}, "parameter width: 0 not in 1..268435456"},
		{[]strategies.Param{{Key: "width", Value: int64(100)}, {Key: "depth", Value: int64(0)}}, "parameter depth: 0 not in 1..32"},
		{[]strategies.Param{{Key: "delta", Value: 0.01}}, "parameter delta: given without epsilon"},
		{[]strategies.Param{{Key: "epsilon", Value: 0.0}, {Key: "width", Value: int64(10)}, {Key: "depth", Value: int64(2)}}, "not both"},
	} {
		_, err := typ.Decode(c.raw)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.raw, err, c.want)
		}
	}
}
