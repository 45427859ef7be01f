package schema

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestParseRange reads every form of range, and InRange holds at, just
// inside and just outside each bound.
func TestParseRange(t *testing.T) {
	below, above := func(x float64) float64 { return math.Nextafter(x, math.Inf(-1)) }, func(x float64) float64 { return math.Nextafter(x, math.Inf(1)) }
	for _, c := range []struct {
		r              string
		lo, hi         float64
		loOpen, hiOpen bool
	}{
		{"", math.Inf(-1), math.Inf(1), false, false},
		{">=2", 2, math.Inf(1), false, false},
		{">2", 2, math.Inf(1), true, false},
		{"1..32", 1, 32, false, false},
		{"4..", 4, math.Inf(1), false, false},
		{"(0,1)", 0, 1, true, true},
		{"(0,1]", 0, 1, true, false},
		{"[0,1)", 0, 1, false, true},
		{"[-3, 5]", -3, 5, false, false},
	} {
		f := &Field{}
		f.ParseRange(c.r, func(format string, args ...any) { t.Fatalf("%q: "+format, append([]any{c.r}, args...)...) })
		if f.Lo != c.lo || f.Hi != c.hi || f.LoOpen != c.loOpen || f.HiOpen != c.hiOpen {
			t.Errorf("%q: got [%v %v] open %v %v, want [%v %v] open %v %v", c.r, f.Lo, f.Hi, f.LoOpen, f.HiOpen, c.lo, c.hi, c.loOpen, c.hiOpen)
		}
		for _, b := range []struct {
			x    float64
			want bool
		}{
			{c.lo, !c.loOpen}, {below(c.lo), false}, {above(c.lo), true},
			{c.hi, !c.hiOpen}, {above(c.hi), false}, {below(c.hi), true},
		} {
			if math.IsInf(b.x, 0) {
				continue
			}
			if got := f.InRange(b.x); got != b.want {
				t.Errorf("%q: InRange(%v) = %v, want %v", c.r, b.x, got, b.want)
			}
		}
		if f.InRange(math.NaN()) {
			t.Errorf("%q: NaN in range", c.r)
		}
	}
	for _, bad := range []string{"1..x", "(0;1)", "(0,1", "[a,1]", "~3"} {
		called := false
		(&Field{}).ParseRange(bad, func(string, ...any) { called = true })
		if !called {
			t.Errorf("%q: accepted", bad)
		}
	}
	// A duration's bounds may be written as durations.
	f := &Field{Form: FormDuration}
	f.ParseRange("(0,1000h]", func(format string, args ...any) { t.Fatalf(format, args...) })
	if f.Lo != 0 || f.Hi != float64(1000*time.Hour) || !f.LoOpen || f.HiOpen {
		t.Errorf("(0,1000h]: got %+v", f)
	}
}

// color is a text type of the tests: red, green.
type color uint8

var colorNames = []string{"red", "green"}

func (c color) Names() []string { return colorNames }

func (c color) MarshalText() ([]byte, error) {
	if int(c) >= len(colorNames) {
		return nil, fmt.Errorf("color %d has no name", c)
	}
	return []byte(colorNames[c]), nil
}

func (c *color) UnmarshalText(b []byte) error {
	for i, n := range colorNames {
		if n == string(b) {
			*c = color(i)
			return nil
		}
	}
	return fmt.Errorf("no color %q", b)
}

// every is a struct of every form.
type every struct {
	N    int           `key:"n" range:"1..10" required:"true" doc:"an integer"`
	U    uint64        `key:"u" range:"2..3" default:"2" doc:"an unsigned integer"`
	W    float64       `key:"w" type:"whole" range:"0..1e6" default:"5" doc:"a whole number"`
	X    float64       `key:"x" range:"(0,1)" doc:"a number, optional"`
	D    time.Duration `key:"d" range:">0" doc:"a duration, optional"`
	L    time.Duration `key:"l" range:"(0,1000h]" default:"1h" doc:"a long duration"`
	B    bool          `key:"b" doc:"a bool"`
	S    string        `key:"s" oneof:"a,b" default:"a" doc:"one of a set"`
	C    color         `key:"c" default:"red" doc:"a text type"`
	Skip int           // no key: not part of the format
}

func TestOf(t *testing.T) {
	fs := Of(reflect.TypeFor[every]())
	var keys []string
	for _, f := range fs {
		keys = append(keys, f.Key)
	}
	if got := strings.Join(keys, ","); got != "n,u,w,x,d,l,b,s,c" {
		t.Fatalf("keys %s", got)
	}
	forms := []Form{FormInt, FormUint, FormWhole, FormNumber, FormDuration, FormDuration, FormBool, FormString, FormText}
	for i, f := range fs {
		if f.Form != forms[i] {
			t.Errorf("%s: form %d, want %d", f.Key, f.Form, forms[i])
		}
	}
	if fs[4].Allowed != "a duration above 0 and at most 24h, "+DurationRule {
		t.Errorf("d allowed %q", fs[4].Allowed)
	}
	if fs[5].Allowed != "a duration above 0 and at most 1000h, "+DurationRule {
		t.Errorf("l allowed %q", fs[5].Allowed)
	}
	if fs[8].Allowed != "red, green" || len(fs[8].Names) != 2 {
		t.Errorf("c allowed %q names %v", fs[8].Allowed, fs[8].Names)
	}
	if !fs[3].Optional() || fs[0].Optional() || fs[1].Optional() {
		t.Error("Optional: x is, n (required) and u (a default) are not")
	}
	if Of(reflect.TypeFor[every]())[0] != fs[0] {
		t.Error("Of is not cached: a second call built new fields")
	}
}

// TestCheck holds a value of every form at and around its bounds.
func TestCheck(t *testing.T) {
	ok := every{N: 1, U: 2, W: 5, L: time.Hour, S: "a"}
	if err := Check(ok); err != nil {
		t.Fatalf("a valid value: %v", err)
	}
	if err := Check(&ok); err != nil {
		t.Fatalf("a pointer to a valid value: %v", err)
	}
	for _, c := range []struct {
		name string
		mod  func(e *every)
		key  string // "" for no error
		msg  string
	}{
		{"n at lo", func(e *every) { e.N = 1 }, "", ""},
		{"n at hi", func(e *every) { e.N = 10 }, "", ""},
		{"n above", func(e *every) { e.N = 11 }, "n", "11 is out of range (allowed: 1..10)"},
		{"n below", func(e *every) { e.N = -1 }, "n", "-1 is out of range"},
		{"n missing", func(e *every) { e.N = 0 }, "n", "missing (allowed: 1..10)"},
		{"u below", func(e *every) { e.U = 1 }, "u", "1 is out of range (allowed: 2..3)"},
		{"u zero, with a default", func(e *every) { e.U = 0 }, "u", "0 is out of range"},
		{"u at hi", func(e *every) { e.U = 3 }, "", ""},
		{"w a fraction", func(e *every) { e.W = 2.5 }, "w", "2.5 is not a whole number"},
		{"w above", func(e *every) { e.W = 2e6 }, "w", "is out of range"},
		{"x zero, optional", func(e *every) { e.X = 0 }, "", ""},
		{"x at the open lo", func(e *every) { e.X = math.SmallestNonzeroFloat64 }, "", ""},
		{"x at the open hi", func(e *every) { e.X = 1 }, "x", "1 is out of range (allowed: a number in (0,1))"},
		{"x NaN", func(e *every) { e.X = math.NaN() }, "x", "NaN is out of range"},
		{"x infinite", func(e *every) { e.X = math.Inf(1) }, "x", "is out of range"},
		{"d negative", func(e *every) { e.D = -time.Second }, "d", "-1s is out of range"},
		{"d at 24h", func(e *every) { e.D = 24 * time.Hour }, "", ""},
		{"d past 24h", func(e *every) { e.D = 24*time.Hour + 1 }, "d", "24h0m0.000000001s is out of range"},
		{"l at 1000h", func(e *every) { e.L = 1000 * time.Hour }, "", ""},
		{"l past 1000h", func(e *every) { e.L = 1001 * time.Hour }, "l", "out of range"},
		{"l zero, with a default", func(e *every) { e.L = 0 }, "l", "0s is out of range"},
		{"s not of the set", func(e *every) { e.S = "c" }, "s", `"c" is not allowed (allowed: a, b)`},
		{"s empty, with a default", func(e *every) { e.S = "" }, "s", `"" is not allowed`},
		{"c with no name", func(e *every) { e.C = 7 }, "c", "color 7 has no name (allowed: red, green)"},
		{"c green", func(e *every) { e.C = 1 }, "", ""},
	} {
		e := ok
		c.mod(&e)
		err := Check(&e)
		if c.key == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		fe, isFE := err.(*FieldError)
		if !isFE || fe.Key != c.key || !strings.Contains(fe.Msg, c.msg) {
			t.Errorf("%s: got %v, want a FieldError on %s containing %q", c.name, err, c.key, c.msg)
		}
	}
}

// TestNewFieldRefusesBadTags: a malformed tag is a programming error.
func TestNewFieldRefusesBadTags(t *testing.T) {
	type noDoc struct {
		A int `key:"a" range:"1..2"`
	}
	type badRange struct {
		A int `key:"a" range:"1..x" doc:"a"`
	}
	type badStr struct {
		A string `key:"a" type:"email" doc:"a"`
	}
	type nothingAllowed struct {
		A string `key:"a" doc:"a"`
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[noDoc](), reflect.TypeFor[badRange](), reflect.TypeFor[badStr](), reflect.TypeFor[nothingAllowed]()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%v: no panic", typ)
				}
			}()
			Of(typ)
		}()
	}
}

func TestFormatDuration(t *testing.T) {
	for ns, want := range map[time.Duration]string{0: "0", 24 * time.Hour: "24h", 1000 * time.Hour: "1000h", 30 * time.Minute: "30m", 1500 * time.Millisecond: "1.5s"} {
		if got := FormatDuration(float64(ns)); got != want {
			t.Errorf("%v: got %q, want %q", ns, got, want)
		}
	}
}

func TestNumberRule(t *testing.T) {
	for r, want := range map[string]string{">=0": "a number >= 0", ">0": "a number > 0", "1..5": "a number from 1 to 5", "": "a finite number", "(0,1)": "a number in (0,1)"} {
		if got := NumberRule(r); got != want {
			t.Errorf("%q: got %q, want %q", r, got, want)
		}
	}
}

// Kind and RangeText are what the references print of a field.
func TestKindAndRangeText(t *testing.T) {
	type named struct {
		N string `key:"n" type:"name" doc:"a name"`
	}
	fs := append(Of(reflect.TypeFor[every]()), Of(reflect.TypeFor[named]())...)
	want := []struct{ kind, rng string }{
		{"integer", "1..10"}, {"integer", "2..3"}, {"whole number", "0..1e6"}, {"number", "(0,1)"},
		{"duration", "(0,24h]"}, {"duration", "(0,1000h]"}, {"bool", "true, false"}, {"string", "a, b"},
		{"string", "red, green"}, {"name", NameRule},
	}
	for i, f := range fs {
		if f.Kind() != want[i].kind || f.RangeText() != want[i].rng {
			t.Errorf("%s: kind %q, range %q; want %q, %q", f.Key, f.Kind(), f.RangeText(), want[i].kind, want[i].rng)
		}
	}
	type window struct {
		W time.Duration `key:"w" range:">=0" doc:"a window from 0"`
	}
	if got := Of(reflect.TypeFor[window]())[0].RangeText(); got != "[0,24h]" {
		t.Errorf("a duration from 0, capped at 24h: %q, want [0,24h]", got)
	}
}
