package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"countsim/internal/schema"
)

// level is a text type of the tests: low, high.
type level uint8

var levelNames = []string{"low", "high"}

func (l level) Names() []string { return levelNames }

func (l level) MarshalText() ([]byte, error) {
	if int(l) >= len(levelNames) {
		return nil, fmt.Errorf("level %d has no name", l)
	}
	return []byte(levelNames[l]), nil
}

func (l *level) UnmarshalText(b []byte) error {
	for i, n := range levelNames {
		if n == string(b) {
			*l = level(i)
			return nil
		}
	}
	return fmt.Errorf("no level %q", b)
}

// testParams are a design's parameters as the designs declare them.
type testParams struct {
	Width int           `key:"width" range:"1..100" required:"true" doc:"a width"`
	Rate  float64       `key:"rate" range:"(0,1)" default:"0.5" doc:"a rate"`
	Wait  time.Duration `key:"wait" range:"(0,1000h]" default:"1m" doc:"a wait"`
	On    bool          `key:"on" doc:"a switch"`
	Mode  string        `key:"mode" oneof:"a,b" default:"a" doc:"a mode"`
	Level level         `key:"level" default:"low" doc:"a level"`
}

func pr(key string, v any, line int) Param {
	return Param{Key: key, Value: v, Pos: Pos{File: "p.yaml", Line: line}}
}

func TestDecodeParams(t *testing.T) {
	var p testParams
	if err := DecodeParams("params", Pos{File: "p.yaml", Line: 1}, []Param{pr("width", int64(10), 2), pr("level", "high", 3), pr("wait", "2000h", 4)}, &p); err == nil ||
		!strings.Contains(err.Error(), `p.yaml:4: params.wait: "2000h" is out of range (allowed: a duration above 0 and at most 1000h`) {
		t.Errorf("a wait past its range: %v", err)
	}
	p = testParams{}
	if err := DecodeParams("params", Pos{File: "p.yaml", Line: 1}, []Param{pr("width", int64(10), 2), pr("level", "high", 3), pr("wait", 3600.0*500, 4)}, &p); err != nil {
		t.Fatal(err)
	}
	want := testParams{Width: 10, Rate: 0.5, Wait: 500 * time.Hour, Mode: "a", Level: 1}
	if p != want {
		t.Errorf("got %+v, want %+v (the defaults, then what was given)", p, want)
	}
	if err := schema.Check(&p); err != nil {
		t.Errorf("a decoded value fails its tags: %v", err)
	}
	for _, c := range []struct {
		name   string
		params []Param
		path   string
		line   int
		msg    string
	}{
		{"unknown", []Param{pr("width", int64(1), 2), pr("widht", int64(1), 3)}, "params.widht", 3, `params: unknown key "widht" (allowed: width, rate, wait, on, mode, level)`},
		{"twice", []Param{pr("width", int64(1), 2), pr("width", int64(2), 3)}, "params.width", 3, `params: key "width" given twice`},
		{"missing", []Param{pr("rate", 0.1, 2)}, "params.width", 1, `params: missing required key "width" (allowed: 1..100)`},
		{"at hi", []Param{pr("width", int64(101), 2)}, "params.width", 2, "params.width: 101 is out of range (allowed: 1..100)"},
		{"a fraction", []Param{pr("width", 1.5, 2)}, "params.width", 2, "params.width: 1.5 is not an integer"},
		{"a string for a number", []Param{pr("width", int64(1), 2), pr("rate", "half", 3)}, "params.rate", 3, `params.rate: "half" is not a number`},
		{"rate at the open hi", []Param{pr("width", int64(1), 2), pr("rate", int64(1), 3)}, "params.rate", 3, "params.rate: 1 is out of range (allowed: a number in (0,1))"},
		{"NaN", []Param{pr("width", int64(1), 2), pr("rate", math.NaN(), 3)}, "params.rate", 3, "params.rate: .nan is out of range"},
		{"a bool", []Param{pr("width", int64(1), 2), pr("on", "yes", 3)}, "params.on", 3, `params.on: "yes" is not a bool (allowed: true, false)`},
		{"one of", []Param{pr("width", int64(1), 2), pr("mode", "c", 3)}, "params.mode", 3, `params.mode: "c" is not allowed (allowed: a, b)`},
		{"a text type", []Param{pr("width", int64(1), 2), pr("level", "mid", 3)}, "params.level", 3, `params.level: "mid" is not allowed (allowed: low, high)`},
		{"a text type, not a string", []Param{pr("width", int64(1), 2), pr("level", int64(2), 3)}, "params.level", 3, `params.level: 2 is not a string`},
		{"a duration", []Param{pr("width", int64(1), 2), pr("wait", "soon", 3)}, "params.wait", 3, `params.wait: "soon" is not a duration`},
	} {
		var p testParams
		err := DecodeParams("params", Pos{File: "p.yaml", Line: 1}, c.params, &p)
		var e *Error
		if !errors.As(err, &e) || e.Path != c.path || e.Pos.Line != c.line || e.Pos.File != "p.yaml" || !strings.Contains(e.Msg, c.msg) {
			t.Errorf("%s: got %v (path %q), want p.yaml:%d at %s saying %q", c.name, err, pathOf(err), c.line, c.path, c.msg)
		}
	}
}

func pathOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Path
	}
	return ""
}

// A scenario's design entry decodes its params at their own lines, under
// the entry's path; a sweep's value stands in for its parameter.
func TestScenarioDecodeParams(t *testing.T) {
	s, err := Parse("d.yaml", []byte(`name: d
workload: {events: 1000, keys: 10}
strategies:
  - name: a
    type: t
    params: {width: 7, rate: 0.25}
  - name: b
    type: t
    params: {width: 500}
  - name: c
    type: t
    sweep: {width: [5, 0]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var p testParams
	if err := s.DecodeParams(0, s.Strategies[0].Params, &p); err != nil || p.Width != 7 || p.Rate != 0.25 {
		t.Errorf("a: %+v, %v", p, err)
	}
	err = s.DecodeParams(1, s.Strategies[1].Params, &testParams{})
	if err == nil || err.Error() != "d.yaml:9: strategies[1].params.width: 500 is out of range (allowed: 1..100)" {
		t.Errorf("b: %v", err)
	}
	sw := s.Strategies[2].Sweep
	if err := s.DecodeParams(2, []Param{sw.Param(0)}, &testParams{}); err != nil {
		t.Errorf("c, width 5: %v", err)
	}
	if err := s.DecodeParams(2, []Param{sw.Param(1)}, &testParams{}); err == nil || !strings.HasPrefix(err.Error(), "d.yaml:12: strategies[2].params.width: 0 is out of range") {
		t.Errorf("c, width 0: %v", err)
	}
	if err := s.DecodeParams(2, nil, &testParams{}); err == nil || !strings.HasPrefix(err.Error(), `d.yaml:10: strategies[2].params: missing required key "width"`) {
		t.Errorf("c without params: %v", err)
	}
}

// FuzzDecodeParams: whatever the raw parameters, decoding returns a value
// or an *Error, never panics; a value it accepts is one its tags accept
// (schema.Check, the check of values built in Go, a second reading of the
// same tags), and decoding what it accepted, written back, gives it again.
func FuzzDecodeParams(f *testing.F) {
	f.Add("width", int64(10), 0.5, "rate", "wait", "1m", true)
	f.Add("width", int64(0), math.Inf(1), "level", "level", "high", false)
	f.Add("mode", int64(-3), 1e300, "wait", "mode", "b", true)
	keys := []string{"width", "rate", "wait", "on", "mode", "level", "other"}
	f.Fuzz(func(t *testing.T, k1 string, i int64, x float64, k2, k3, s string, b bool) {
		// A key of the struct most of the time, anything otherwise.
		pick := func(k string) string {
			if len(k) > 0 && int(k[0])%8 < len(keys) {
				return keys[int(k[0])%8]
			}
			return k
		}
		params := []Param{pr(pick(k1), i, 1), pr(pick(k2), x, 2), pr(pick(k3), s, 3), pr("on", b, 4)}
		var p testParams
		err := DecodeParams("params", Pos{File: "p.yaml", Line: 1}, params, &p)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Pos.File != "p.yaml" || e.Path == "" {
				t.Fatalf("%v: not an *Error naming the file and the key", err)
			}
			return
		}
		if err := schema.Check(&p); err != nil {
			t.Fatalf("%+v decoded from %v, and its tags refuse it: %v", p, params, err)
		}
		level, _ := p.Level.MarshalText()
		again := []Param{pr("width", int64(p.Width), 1), pr("rate", p.Rate, 2), pr("wait", p.Wait.String(), 3), pr("on", p.On, 4), pr("mode", p.Mode, 5), pr("level", string(level), 6)}
		var q testParams
		if err := DecodeParams("params", Pos{File: "p.yaml", Line: 1}, again, &q); err != nil || q != p {
			t.Fatalf("%+v written back decodes to %+v, %v", p, q, err)
		}
	})
}
