package scenarios

import (
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"search", "search", 0},
		{"serch", "search", 1},   // an insertion
		{"searchh", "search", 1}, // a deletion
		{"seerch", "search", 1},  // a substitution
		{"evnets", "events", 1},  // a swap of neighbours
		{"ca", "abc", 3},         // optimal string alignment: no substring edited twice
		{"kitten", "sitting", 3},
		{"épsilon", "epsilon", 1}, // runes, not bytes
	} {
		if got := EditDistance(c.a, c.b); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := EditDistance(c.b, c.a); got != c.want {
			t.Errorf("EditDistance(%q, %q) = %d, want %d (symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestClosest(t *testing.T) {
	names := BuiltinNames()
	for _, c := range []struct {
		name    string
		allowed []string
		want    string
	}{
		{"serch", names, "search"},
		{"Serch", names, "search"}, // case does not count
		{"search-splt", names, "search-split"},
		{"ratign", names, "ratings"},    // a swap and a deletion: 2 edits of 7 runes
		{"search", names, ""},           // a name allowed is no mistake
		{"zzz", names, ""},              // nothing near
		{"q", []string{"q", "out"}, ""}, // given as it is
		{"qq", []string{"out", "q"}, "q"},
		{"epsilom", []string{"epsilon", "delta", "width", "depth"}, "epsilon"},
		{"with", []string{"width", "depth"}, "width"},
		{"dept", []string{"delta", "depth"}, "depth"}, // the nearer of two
		{"abc", []string{"abd", "abe"}, "abd"},        // of two as near, the first
		{"x", nil, ""},
	} {
		if got := Closest(c.name, c.allowed); got != c.want {
			t.Errorf("Closest(%q, %v) = %q, want %q", c.name, c.allowed, got, c.want)
		}
	}
	if got := DidYouMean("serch", names); got != `; did you mean "search"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", names); got != "" {
		t.Errorf("DidYouMean(zzz) = %q, want nothing", got)
	}
}

// Every message that refuses a name the loader knows ends with the
// nearest allowed one: a built-in scenario, a key of the file, a design's
// parameter; and still names the file, the line and what is allowed.
func TestDidYouMeanInMessages(t *testing.T) {
	_, err := Resolve("serch")
	if err == nil || !strings.Contains(err.Error(), "no such file and no built-in scenario by that name") ||
		!strings.Contains(err.Error(), "(allowed: a path to a .yaml file, or one of ") || !strings.HasSuffix(err.Error(), `; did you mean "search"?`) {
		t.Errorf("Resolve(serch): %v", err)
	}
	if _, err := Resolve("qwertyuiop"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("Resolve(qwertyuiop): %v, want no suggestion", err)
	}
	if _, err := BuiltinSource("likse"); err == nil || !strings.HasSuffix(err.Error(), `; did you mean "likes"?`) {
		t.Errorf("BuiltinSource(likse): %v", err)
	}
	src := "name: x\nseed: 1\nworkload:\n  evnets: 10\n  keys: 5\nstrategies: [{name: e, type: exact}]\n"
	_, err = Parse("x.yaml", []byte(src))
	if err == nil || !strings.HasPrefix(err.Error(), "x.yaml:4: ") || !strings.Contains(err.Error(), `unknown key "evnets" (allowed: `) ||
		!strings.HasSuffix(err.Error(), `; did you mean "events"?`) {
		t.Errorf("a mistyped workload key: %v", err)
	}
	src = "name: x\nsede: 1\nworkload: {events: 10, keys: 5}\nstrategies: [{name: e, type: exact}]\n"
	if _, err = Parse("x.yaml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "x.yaml:2: ") || !strings.HasSuffix(err.Error(), `; did you mean "seed"?`) {
		t.Errorf("a mistyped top-level key: %v", err)
	}
	src = "name: x\nworkload: {events: 10, keys: 5, distribution: zpif}\nstrategies: [{name: e, type: exact}]\n"
	if _, err = Parse("x.yaml", []byte(src)); err == nil || !strings.HasPrefix(err.Error(), "x.yaml:2: ") || !strings.Contains(err.Error(), "(allowed: zipf, uniform)") ||
		!strings.HasSuffix(err.Error(), `; did you mean "zipf"?`) {
		t.Errorf("a mistyped value: %v", err)
	}
	type params struct {
		Epsilon float64 `key:"epsilon" range:"(0,1)" doc:"ε"`
		Depth   int     `key:"depth" range:"1..32" doc:"d"`
	}
	var p params
	err = DecodeParams("strategies[0].params", Pos{File: "x.yaml", Line: 3}, []Param{{Key: "epsilom", Value: 0.1, Pos: Pos{File: "x.yaml", Line: 4}}}, &p)
	if err == nil || err.Error() != `x.yaml:4: strategies[0].params: unknown key "epsilom" (allowed: epsilon, depth); did you mean "epsilon"?` {
		t.Errorf("a mistyped parameter: %v", err)
	}
}
