package frequency

import (
	"errors"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// line is the line of the parameter key in params, 0 if it is not there.
func line(params []scenarios.Param, key string) int {
	for _, p := range params {
		if p.Key == key {
			return p.Pos.Line
		}
	}
	return 0
}

// p is a parameter given at a line of a file.
func p(key string, v any, line int) scenarios.Param {
	return scenarios.Param{Key: key, Value: v, Pos: scenarios.Pos{File: "s.yaml", Line: line}}
}

// A design's parameters are decoded by the scenario decoder, by their tags:
// a value its tag refuses is a *scenarios.Error at the parameter's line
// whose message names the key's path and what is allowed; a rule across
// keys is a *ParamError naming the type and the key at fault (whose line
// the runner finds).
func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		typ     string
		params  []scenarios.Param
		key     string // the key at fault
		rule    bool   // a rule across keys (a *ParamError), else a decoder's refusal
		line    int
		wantMsg string // a substring of Error()
	}{
		{"epsilon out of range", "count-min", []scenarios.Param{p("epsilon", 1.5, 7), p("delta", 0.01, 8)}, "epsilon", false, 7,
			"s.yaml:7: params.epsilon: 1.5 is out of range (allowed: a number in (0,1))"},
		{"epsilon zero", "count-min", []scenarios.Param{p("epsilon", 0.0, 7), p("delta", 0.01, 8)}, "epsilon", false, 7, "params.epsilon: 0 is out of range"}, // written as 0: out of range, not left out
		{"delta one", "count-min", []scenarios.Param{p("epsilon", 0.1, 7), p("delta", int64(1), 8)}, "delta", false, 8, "params.delta: 1 is out of range"},
		{"delta negative", "count-min", []scenarios.Param{p("epsilon", 0.1, 7), p("delta", -0.5, 8)}, "delta", false, 8, "-0.5 is out of range"},
		{"unknown key", "count-min", []scenarios.Param{p("epsilom", 0.1, 3)}, "epsilom", false, 3,
			`params: unknown key "epsilom" (allowed: epsilon, delta, width, depth, conservative, top)`},
		{"width not an integer", "count-min", []scenarios.Param{p("width", 2.5, 4), p("depth", int64(3), 5)}, "width", false, 4, "params.width: 2.5 is not an integer (allowed: 1..268435456)"},
		{"depth a string", "count-min", []scenarios.Param{p("width", int64(100), 4), p("depth", "five", 5)}, "depth", false, 5, `params.depth: "five" is not an integer`},
		{"epsilon without delta", "count-min", []scenarios.Param{p("epsilon", 0.001, 2)}, "epsilon", true, 2, "count-min: parameter epsilon: given without delta"},
		{"delta without epsilon", "count-min", []scenarios.Param{p("delta", 0.01, 2)}, "delta", true, 2, "given without epsilon"},
		{"width without depth", "count-min", []scenarios.Param{p("width", int64(1000), 6)}, "width", true, 6, "given without depth"},
		{"depth without width", "count-min", []scenarios.Param{p("depth", int64(4), 6)}, "depth", true, 6, "given without width"},
		{"both pairs", "count-min", []scenarios.Param{p("epsilon", 0.001, 2), p("delta", 0.01, 3), p("width", int64(100), 4), p("depth", int64(4), 5)}, "width", true, 4,
			"either epsilon and delta or width and depth, not both"},
		{"neither pair", "count-min", nil, "", true, 0, "count-min: give epsilon and delta, or width and depth"},
		{"width negative", "count-min", []scenarios.Param{p("width", int64(-3), 4), p("depth", int64(4), 5)}, "width", false, 4, "-3 is out of range (allowed: 1..268435456)"},
		{"depth too deep", "count-min", []scenarios.Param{p("width", int64(10), 4), p("depth", int64(33), 5)}, "depth", false, 5, "33 is out of range (allowed: 1..32)"},
		{"epsilon too small", "count-min", []scenarios.Param{p("epsilon", 1e-9, 4), p("delta", 0.01, 5)}, "epsilon", true, 4, "needs width ⌈e/ε⌉ = 2718281829"},
		{"delta too small", "count-min", []scenarios.Param{p("epsilon", 0.01, 4), p("delta", 1e-20, 5)}, "delta", true, 5, "needs depth ⌈ln 1/δ⌉ = 47, more than 32"},
		{"top negative", "count-min", []scenarios.Param{p("epsilon", 0.01, 4), p("delta", 0.01, 5), p("top", int64(-1), 6)}, "top", false, 6, "-1 is out of range (allowed: 0..100000)"},
		{"top too big", "count-min", []scenarios.Param{p("epsilon", 0.01, 4), p("delta", 0.01, 5), p("top", 1e6, 6)}, "top", false, 6, "is out of range (allowed: 0..100000)"},
		{"conservative not a bool", "count-min", []scenarios.Param{p("conservative", "yes", 9)}, "conservative", false, 9, `params.conservative: "yes" is not a bool (allowed: true, false)`},
		{"given twice", "count-min", []scenarios.Param{p("epsilon", 0.01, 4), p("epsilon", 0.02, 5)}, "epsilon", false, 5, `key "epsilon" given twice`},
		{"counters zero", "space-saving", []scenarios.Param{p("counters", int64(0), 3)}, "counters", false, 3, "params.counters: 0 is out of range (allowed: 1..10000000)"},
		{"counters missing", "space-saving", nil, "counters", false, 0, `params: missing required key "counters" (allowed: 1..10000000)`},
		{"counters a float", "space-saving", []scenarios.Param{p("counters", 99.5, 3)}, "counters", false, 3, "99.5 is not an integer"},
		{"shards zero", "exact", []scenarios.Param{p("shards", int64(0), 11)}, "shards", false, 11, "params.shards: 0 is out of range (allowed: 1..1024)"},
		{"shards too many", "exact", []scenarios.Param{p("shards", int64(1025), 11)}, "shards", false, 11, "1025 is out of range"},
		{"exact unknown key", "exact", []scenarios.Param{p("shard", int64(2), 11)}, "shard", false, 11, `unknown key "shard" (allowed: shards)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, err := strategies.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			got, err := designtest.DecodeParams(typ, tt.params)
			var pe *strategies.ParamError
			var se *scenarios.Error
			switch {
			case tt.rule && errors.As(err, &pe):
				if pe.Type != tt.typ || pe.Key != tt.key || line(tt.params, pe.Key) != tt.line {
					t.Errorf("got type %q, key %q at line %d, want %q, %q, %d", pe.Type, pe.Key, line(tt.params, pe.Key), tt.typ, tt.key, tt.line)
				}
			case !tt.rule && errors.As(err, &se):
				if se.Pos.Line != tt.line || !strings.Contains(se.Msg, tt.key) {
					t.Errorf("got %q at line %d, want line %d naming %q", se.Msg, se.Pos.Line, tt.line, tt.key)
				}
			default:
				t.Fatalf("got %v (%v), want a rule's *ParamError %v", err, got, tt.rule)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("got %q, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// Decoding takes each field's default from its tag, then what was given.
func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		typ    string
		params []scenarios.Param
		want   strategies.Params
	}{
		{"count-min", []scenarios.Param{p("epsilon", 0.0001, 1), p("delta", 0.01, 2), p("top", int64(10), 3), p("conservative", true, 4)},
			&CountMinParams{Epsilon: 0.0001, Delta: 0.01, Top: 10, Conservative: true}},
		{"count-min", []scenarios.Param{p("width", 1e5, 1), p("depth", int64(4), 2)}, &CountMinParams{Width: 100000, Depth: 4}},
		{"space-saving", []scenarios.Param{p("counters", int64(1000), 1)}, &SpaceSavingParams{Counters: 1000}},
		{"exact", nil, &ExactParams{Shards: 1}},
		{"exact", []scenarios.Param{p("shards", int64(4), 1)}, &ExactParams{Shards: 4}},
		{"heavykeeper", []scenarios.Param{p("top", int64(10), 1)}, &HeavyKeeperParams{Top: 10, Width: 8, Depth: 7, Decay: 0.9}},
	}
	for _, tt := range tests {
		t.Run(tt.typ, func(t *testing.T) {
			typ, err := strategies.Lookup(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			p, err := designtest.DecodeParams(typ, tt.params)
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
			case *HeavyKeeperParams:
				if *p.(*HeavyKeeperParams) != *want {
					t.Errorf("got %+v, want %+v", p, want)
				}
			}
		})
	}
}

// The constructors refuse what the decoder refuses, by the same tags, the
// type named in the message.
func TestConstructorsRefuse(t *testing.T) {
	_, err1 := NewCountMin(CountMinParams{Epsilon: 1.5, Delta: 0.01}, 1)
	_, err2 := NewCountMinTopK(CountMinParams{Epsilon: 0.1, Delta: 0.01}, 1)
	_, err3 := NewSpaceSaving(SpaceSavingParams{}, 1)
	_, err4 := NewExact(ExactParams{}, 10, 1)
	_, err5 := NewCountMin(CountMinParams{Width: 100, Depth: 33}, 1)
	_, err6 := NewHeavyKeeper(HeavyKeeperParams{Top: 10, Width: 8, Depth: 7, Decay: 1}, 1)
	for _, tt := range []struct {
		err  error
		want string
	}{
		{err1, "count-min: parameter epsilon: 1.5 is out of range (allowed: a number in (0,1))"},
		{err2, "count-min: parameter top: 0: a heap needs top ≥ 1"},
		{err3, "space-saving: parameter counters: missing (allowed: 1..10000000)"},
		{err4, "exact: parameter shards: 0 is out of range (allowed: 1..1024)"},
		{err5, "count-min: parameter depth: 33 is out of range (allowed: 1..32)"},
		{err6, "heavykeeper: parameter decay: 1 is out of range (allowed: a number in (0,1))"},
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
			if d.Doc == "" || d.Kind == "" || d.Allowed == "" {
				t.Errorf("%s.%s: doc %q, kind %q, allowed %q", name, d.Key, d.Doc, d.Kind, d.Allowed)
			}
		}
	}
}
