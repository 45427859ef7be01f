package scenarios

import (
	"bytes"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// doc joins lines into a YAML text, so that a case's line numbers can be
// read off its index: lines[i] is line i+1.
func doc(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// valid is a small good scenario. Its lines:
//
//	1 # a comment
//	2 name: t
//	3 workload:
//	4   events: 1000
//	5   keys: 100
//	6 strategies:
//	7   - name: a
//	8     type: exact
var valid = []string{
	"# a comment",
	"name: t",
	"workload:",
	"  events: 1000",
	"  keys: 100",
	"strategies:",
	"  - name: a",
	"    type: exact",
}

// with returns valid with line n (1-based) replaced by repl: no line if
// repl is empty, several if it holds several.
func with(n int, repl ...string) string { return cut(n, n, repl...) }

// cut returns valid with lines from..to (1-based, inclusive) replaced by repl.
func cut(from, to int, repl ...string) string {
	lines := slices.Clone(valid)
	lines = slices.Replace(lines, from-1, to, repl...)
	return doc(lines...)
}

// plus returns valid followed by more lines (the first is line 9).
func plus(more ...string) string { return doc(append(slices.Clone(valid), more...)...) }

// mustError checks that err is an *Error in file at line whose message
// holds every one of want.
func mustError(t *testing.T, err error, file string, line int, want ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got error %v (%T), want an *Error", err, err)
	}
	msg := err.Error()
	if e.Pos.File != file {
		t.Errorf("got file %q, want %q (%s)", e.Pos.File, file, msg)
	}
	if e.Pos.Line != line {
		t.Errorf("got line %d, want %d (%s)", e.Pos.Line, line, msg)
	}
	prefix := file + ":" + strconv.Itoa(line) + ": "
	if line == 0 {
		prefix = file + ": "
	}
	if !strings.HasPrefix(msg, prefix) {
		t.Errorf("got %q, want it to start with %q", msg, prefix)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("got %q, want it to contain %q", msg, w)
		}
	}
}

func TestParseErrors(t *testing.T) {
	const (
		workloadKeys = "(allowed: events, keys, distribution, s, scramble, rate, batch)"
		topKeys      = "name, title, description, seed, assumptions, workload, questions, strategies"
	)
	cases := []struct {
		name string
		yaml string
		line int
		want []string
	}{
		// The document as a whole.
		{"empty", "", 1, []string{"empty file", topKeys}},
		{"comments only", "# nothing\n# here\n", 1, []string{"empty file", topKeys}},
		{"empty document", "---\n", 1, []string{"empty document", topKeys}},
		{"list", "- name: t\n", 1, []string{"the document is a list, not a mapping", topKeys}},
		{"scalar", "\n\nhello\n", 3, []string{`the document is "hello", not a mapping`}},
		{"two documents", plus("---", "name: u"), 9, []string{"second YAML document", "one document per file"}},
		{"syntax", with(4, "  events: [1000"), 4, []string{"YAML syntax"}},
		{"syntax line 1", "name: a: b\n", 1, []string{"YAML syntax: mapping values are not allowed"}},
		{"control character", with(5, "  keys: 1\x01"), 5, []string{"YAML syntax: control characters"}},
		{"bad utf-8", with(7, "  - name: \xff"), 7, []string{"YAML syntax", "UTF-8"}},
		{"undefined alias", with(5, "  keys: *n"), 5, []string{"unknown anchor 'n'"}},

		// Unknown and repeated keys.
		{"unknown top key", plus("evnets: 5"), 9, []string{`unknown key "evnets"`, "(allowed: " + topKeys + ")"}},
		{"unknown workload key", with(4, "  evnets: 1000"), 4, []string{`workload: unknown key "evnets" ` + workloadKeys}},
		{"unknown strategy key", plus("    parms: {}"), 9, []string{`strategies[0]: unknown key "parms" (allowed: name, type, params)`}},
		{"unknown assumption", plus("assumptions:", "  event: 5"), 10, []string{`assumptions: unknown key "event" (allowed: events, keys, entry_bytes, server_bytes, data_fraction, counter_bytes, kth_count)`}},
		{"unknown question", plus("questions: {top: 1, bottom: 2}"), 9, []string{`questions: unknown key "bottom" (allowed: top)`}},
		{"merge key", plus("questions:", "  <<: {top: 1}"), 10, []string{"questions: merge keys (<<) are not allowed"}},
		{"repeated top key", plus("name: u"), 9, []string{`key "name" given twice (first at line 2)`}},
		{"repeated workload key", with(5, "  keys: 100", "  events: 5"), 6, []string{`workload: key "events" given twice (first at line 4)`}},
		{"repeated param", plus("    params: {k: 1, k: 2}"), 9, []string{`strategies[0].params: key "k" given twice`}},
		{"list as key", plus("? [a]", ": 1"), 9, []string{"a list as a key is not allowed"}},

		// Missing keys name the enclosing mapping.
		{"missing name", with(2), 2, []string{`missing required key "name"`}},
		{"missing workload", cut(3, 5, "seed: 1"), 2, []string{`missing required key "workload"`}},
		{"missing events", with(4), 3, []string{`workload: missing required key "events"`}},
		{"missing keys", with(5), 3, []string{`workload: missing required key "keys"`}},
		{"null workload", cut(3, 5, "workload:"), 3, []string{`workload: missing required key "events"`}},
		{"missing strategies", doc("name: t", "workload: {events: 1, keys: 1}"), 1, []string{`missing required key "strategies"`}},
		{"null strategies", cut(7, 8), 6, []string{"strategies: at least one strategy is required", "name, type, params"}},
		{"empty strategies", cut(6, 8, "strategies: []"), 6, []string{"strategies: at least one strategy is required"}},
		{"missing strategy name", cut(7, 8, "  - type: exact"), 7, []string{`strategies[0]: missing required key "name"`}},
		{"missing strategy type", plus("  - name: b"), 9, []string{`strategies[1]: missing required key "type"`}},

		// Wrong shapes.
		{"workload list", cut(3, 5, "workload: [1, 2]"), 3, []string{"workload: a list is not a mapping", workloadKeys[len("(allowed: "):]}},
		{"strategies mapping", cut(7, 8, "  a: exact"), 7, []string{"strategies: a mapping is not a list", "name, type, params"}},
		{"strategy scalar", cut(7, 8, "  - exact"), 7, []string{`strategies[0]: "exact" is not a mapping`, "name, type, params"}},
		{"params list", plus("    params: [1, 2]"), 9, []string{"strategies[0].params: a list is not a mapping", "numbers, bools or strings"}},
		{"param mapping", plus("    params:", "      shards: {n: 4}"), 10, []string{"strategies[0].params.shards: a mapping is not allowed", "(allowed: an integer, a number, true, false or a string)"}},
		{"param list", plus("    params:", "      shards: [4]"), 10, []string{"strategies[0].params.shards: a list is not allowed"}},
		{"param null", plus("    params:", "      shards:"), 10, []string{"strategies[0].params.shards: missing value"}},
		{"param nan", plus("    params:", "      epsilon: .nan"), 10, []string{"strategies[0].params.epsilon: .nan is not allowed (allowed: finite numbers)"}},
		{"param date", plus("    params:", "      start: 2024-01-02"), 10, []string{"strategies[0].params.start: 2024-01-02 is not a number, bool or string", "quote it"}},
		{"param too big", plus("    params:", "      n: 18446744073709551615"), 10, []string{"strategies[0].params.n: 18446744073709551615 is out of range", "9223372036854775807"}},
		{"param empty key", plus("    params:", `      "": 1`), 10, []string{"strategies[0].params: empty key"}},
		{"param octal", plus("    params:", "      shards: 04"), 10, []string{"strategies[0].params.shards: 04 has a leading zero", "octal", "(allowed: 4, or 0o4 for octal)"}},

		// Integers.
		{"events float", with(4, "  events: 2.5"), 4, []string{"workload.events: 2.5 is not an integer (allowed: 1..1e10)"}},
		{"events string", with(4, `  events: "1000"`), 4, []string{`workload.events: "1000" is not an integer (allowed: 1..1e10)`}},
		{"events tagged string", with(4, `  events: !!str 1000`), 4, []string{`workload.events: "1000" is not an integer`}},
		{"events bool", with(4, "  events: true"), 4, []string{"workload.events: true is not an integer"}},
		{"events list", with(4, "  events: [1]"), 4, []string{"workload.events: a list is not an integer"}},
		{"events null", with(4, "  events:"), 4, []string{"workload.events: missing value (allowed: 1..1e10)"}},
		{"events zero", with(4, "  events: 0"), 4, []string{"workload.events: 0 is out of range (allowed: 1..1e10)"}},
		{"events negative", with(4, "  events: -5"), 4, []string{"workload.events: -5 is out of range (allowed: 1..1e10)"}},
		{"events too many", with(4, "  events: 10_000_000_001"), 4, []string{"workload.events: 10_000_000_001 is out of range (allowed: 1..1e10)"}},
		{"events 1e11", with(4, "  events: 1e11"), 4, []string{"workload.events: 1e11 is out of range"}},
		{"events inf", with(4, "  events: .inf"), 4, []string{"workload.events: .inf is not an integer"}},
		{"events huge", with(4, "  events: 99999999999999999999999"), 4, []string{"out of range (allowed: 1..1e10)"}},
		{"events very long", with(4, "  events: 1"+strings.Repeat("0", 1000)), 4, []string{`workload.events: "1000000000000000000000000000000000000000…" is not an integer (allowed: 1..1e10)`}}, // beyond float64: YAML makes it a string
		{"events octal", with(4, "  events: 010"), 4, []string{"workload.events: 010 has a leading zero, which YAML reads as octal (allowed: 10, or 0o10 for octal)"}},
		{"events zero octal", with(4, "  events: 00"), 4, []string{"workload.events: 00 has a leading zero", "(allowed: 0, or 0o0 for octal)"}},
		{"param negative octal", plus("    params: {n: -017}"), 9, []string{"strategies[0].params.n: -017 has a leading zero", "(allowed: -17, or -0o17 for octal)"}},
		{"events bad int tag", with(4, "  events: !!int abc"), 4, []string{`workload.events: "abc" is not a valid !!int`}},
		{"keys zero", with(5, "  keys: 0"), 5, []string{"workload.keys: 0 is out of range (allowed: 1..1e9)"}},
		{"keys too many", with(5, "  keys: 1e9_1"), 5, []string{"workload.keys"}},
		{"keys 2e9", with(5, "  keys: 2_000_000_000"), 5, []string{"workload.keys: 2_000_000_000 is out of range (allowed: 1..1e9)"}},
		{"batch zero", with(5, "  keys: 100", "  batch: 0"), 6, []string{"workload.batch: 0 is out of range (allowed: 1..1048576)"}},
		{"batch too big", with(5, "  keys: 100", "  batch: 1048577"), 6, []string{"workload.batch: 1048577 is out of range (allowed: 1..1048576)"}},
		{"top too big", plus("questions:", "  top: 10001"), 10, []string{"questions.top: 10001 is out of range (allowed: 0..10000)"}},
		{"top negative", plus("questions:", "  top: -1"), 10, []string{"questions.top: -1 is out of range (allowed: 0..10000)"}},
		{"top float", plus("questions:", "  top: 9.5"), 10, []string{"questions.top: 9.5 is not an integer (allowed: 0..10000)"}},
		{"seed string", plus(`seed: "abc"`), 9, []string{`seed: "abc" is not a non-negative integer (allowed: 0..18446744073709551615)`}},
		{"seed plain string", plus("seed: abc"), 9, []string{`seed: "abc" is not a non-negative integer`}},
		{"seed negative", plus("seed: -1"), 9, []string{"seed: -1 is out of range (allowed: 0..18446744073709551615)"}},
		{"seed too big", plus("seed: 18446744073709551616"), 9, []string{"seed: 18446744073709551616 is out of range"}},
		{"seed float", plus("seed: 1.5"), 9, []string{"seed: 1.5 is not a non-negative integer"}},

		// Numbers.
		{"s negative", with(5, "  keys: 100", "  s: -0.5"), 6, []string{"workload.s: -0.5 is out of range (allowed: a number >= 0)"}},
		{"s inf", with(5, "  keys: 100", "  s: .inf"), 6, []string{"workload.s: .inf is out of range (allowed: a number >= 0)"}},
		{"s nan", with(5, "  keys: 100", "  s: .nan"), 6, []string{"workload.s: .nan is out of range"}},
		{"s string", with(5, "  keys: 100", "  s: one"), 6, []string{`workload.s: "one" is not a number (allowed: a number >= 0)`}},
		{"s with uniform", with(5, "  keys: 100", "  distribution: uniform", "  s: 1.1"), 7, []string{"workload.s: applies only to distribution zipf"}},
		{"rate zero", with(5, "  keys: 100", "  rate: 0"), 6, []string{"workload.rate: 0 is out of range (allowed: a number > 0"}},
		{"rate negative", with(5, "  keys: 100", "  rate: -1e6"), 6, []string{"workload.rate: -1e6 is out of range"}},
		{"assumption zero", plus("assumptions:", "  events: 0"), 10, []string{"assumptions.events: 0 is out of range (allowed: a number > 0)"}},
		{"assumption string", plus("assumptions:", "  keys: many"), 10, []string{`assumptions.keys: "many" is not a number (allowed: a number > 0)`}},
		{"assumption null", plus("assumptions:", "  entry_bytes:"), 10, []string{"assumptions.entry_bytes: missing value (allowed: a number > 0)"}},
		{"data fraction zero", plus("assumptions:", "  data_fraction: 0"), 10, []string{"assumptions.data_fraction: 0 is out of range (allowed: a number in (0,1])"}},
		{"data fraction above 1", plus("assumptions:", "  data_fraction: 1.5"), 10, []string{"assumptions.data_fraction: 1.5 is out of range (allowed: a number in (0,1])"}},
		{"assumption negative", plus("assumptions: {server_bytes: -64e9}"), 9, []string{"assumptions.server_bytes: -64e9 is out of range"}},

		// Bools, strings and names.
		{"scramble yes", with(5, "  keys: 100", "  scramble: yes"), 6, []string{`workload.scramble: "yes" is not a bool (allowed: true, false)`}},
		{"scramble 1", with(5, "  keys: 100", "  scramble: 1"), 6, []string{"workload.scramble: 1 is not a bool (allowed: true, false)"}},
		{"distribution", with(5, "  keys: 100", "  distribution: pareto"), 6, []string{`workload.distribution: "pareto" is not allowed (allowed: zipf, uniform)`}},
		{"distribution number", with(5, "  keys: 100", "  distribution: 3"), 6, []string{"workload.distribution: 3 is not a string (allowed: zipf, uniform"}},
		{"name upper case", with(2, "name: Search Day"), 2, []string{`name: "Search Day" is not allowed (allowed: lower-case letters, digits and '-'`}},
		{"name dash", with(2, "name: -x"), 2, []string{`name: "-x" is not allowed`}},
		{"name empty", with(2, `name: ""`), 2, []string{`name: "" is not allowed`}},
		{"name too long", with(2, "name: "+strings.Repeat("a", 65)), 2, []string{"is not allowed", "at most 64 characters"}},
		{"name number", with(2, "name: 12"), 2, []string{"name: 12 is not a string", "quotes"}},
		{"name null", with(2, "name:"), 2, []string{"name: missing value (allowed: lower-case letters"}},
		{"strategy name", with(7, "  - name: Count_Min"), 7, []string{`strategies[0].name: "Count_Min" is not allowed (allowed: lower-case letters`}},
		{"strategy name twice", plus("  - name: b", "    type: exact", "  - name: a", "    type: count-min"), 11, []string{`strategies[2]: name "a" used twice (first at line 7`}},
		{"strategy type empty", with(8, `    type: ""`), 8, []string{`strategies[0].type: empty (allowed: a design type`}},
		{"strategy type list", with(8, "    type: [exact]"), 8, []string{`strategies[0].type: a list is not a string`}},
		{"title two lines", plus("title: |", "  one", "  two"), 9, []string{"title: more than one line (allowed: one line of text"}},
		{"title bool", plus("title: true"), 9, []string{"title: true is not a string (allowed: one line of text; put it in quotes"}},
		{"description mapping", plus("description: {a: 1}"), 9, []string{"description: a mapping is not a string (allowed: text)"}},

		// Anchors, aliases and tags.
		{"anchor", with(4, "  events: &n 1000"), 4, []string{"workload.events: anchors and aliases are not allowed"}},
		{"alias", with(5, "  keys: &n 100", "other: *n"), 5, []string{"workload.keys: anchors and aliases are not allowed"}},
		{"anchored mapping", with(3, "workload: &w"), 3, []string{"workload: anchors and aliases are not allowed"}},
		{"custom tag", with(4, "  events: !big 1000"), 4, []string{"workload.events: tag !big is not allowed", "!!int"}},
		{"binary tag", plus("    params: {blob: !!binary aGVsbG8=}"), 9, []string{"strategies[0].params.blob: tag !!binary is not allowed"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("cases/x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("got a scenario %+v, want an error\n%s", s, c.yaml)
			}
			if s != nil {
				t.Errorf("got a scenario beside the error")
			}
			mustError(t, err, "cases/x.yaml", c.line, c.want...)
		})
	}
}

func TestParseTooLarge(t *testing.T) {
	data := []byte(plus("description: |", "  "+strings.Repeat("x", maxFileBytes)))
	_, err := Parse("big.yaml", data)
	mustError(t, err, "big.yaml", 0, "larger than 1048576 bytes", "at most 1 MiB")
}

func TestParseValid(t *testing.T) {
	cases := []struct {
		name  string
		yaml  string
		check func(*Scenario) (got, want any)
	}{
		{"defaults", doc(valid...), func(s *Scenario) (any, any) {
			w := s.Workload
			w.Pos = Pos{}
			return []any{s.Seed, w, s.Questions.Top, s.Title, s.Assumptions.Events},
				[]any{uint64(1), Workload{Events: 1000, Keys: 100, Distribution: "zipf", S: 1, Scramble: true, Rate: 1e6, Batch: 4096}, 0, "", 0.0}
		}},
		{"underscores", with(4, "  events: 2_000_000_000"), func(s *Scenario) (any, any) { return s.Workload.Events, int64(2e9) }},
		{"integer-valued float", with(4, "  events: 1e7"), func(s *Scenario) (any, any) { return s.Workload.Events, int64(1e7) }},
		{"integer-valued float with point", with(4, "  events: 10000000.0"), func(s *Scenario) (any, any) { return s.Workload.Events, int64(1e7) }},
		{"max events", with(4, "  events: 1e10"), func(s *Scenario) (any, any) { return s.Workload.Events, int64(1e10) }},
		{"hex", with(5, "  keys: 0x10"), func(s *Scenario) (any, any) { return s.Workload.Keys, uint64(16) }},
		{"octal 0o", with(5, "  keys: 0o17"), func(s *Scenario) (any, any) { return s.Workload.Keys, uint64(15) }},
		{"zero", with(5, "  keys: 0x1", "  s: 0"), func(s *Scenario) (any, any) { return s.Workload.S, 0.0 }},
		{"max seed", plus("seed: 18446744073709551615"), func(s *Scenario) (any, any) { return s.Seed, uint64(math.MaxUint64) }},
		{"seed zero", plus("seed: 0"), func(s *Scenario) (any, any) { return s.Seed, uint64(0) }},
		{"seed float", plus("seed: 1e3"), func(s *Scenario) (any, any) { return s.Seed, uint64(1000) }},
		{"uniform", with(5, "  keys: 100", "  distribution: uniform", "  scramble: false"), func(s *Scenario) (any, any) {
			return []any{s.Workload.Distribution, s.Workload.Scramble}, []any{"uniform", false}
		}},
		{"rate and batch", with(5, "  keys: 100", "  rate: 2.5e5", "  batch: 1048576"), func(s *Scenario) (any, any) {
			return []any{s.Workload.Rate, s.Workload.Batch}, []any{2.5e5, 1 << 20}
		}},
		{"int s", with(5, "  keys: 100", "  s: 2"), func(s *Scenario) (any, any) { return s.Workload.S, 2.0 }},
		{"null questions", plus("questions:"), func(s *Scenario) (any, any) {
			return []any{s.Questions.Top, s.Questions.Pos.Line}, []any{0, 9}
		}},
		{"absent sections point at the document", doc(valid...), func(s *Scenario) (any, any) {
			return s.Questions.Pos, Pos{"x.yaml", 2, 1}
		}},
		{"null params", plus("    params:"), func(s *Scenario) (any, any) { return len(s.Strategies[0].Params), 0 }},
		{"tagged str", plus("title: !!str 12"), func(s *Scenario) (any, any) { return s.Title, "12" }},
		{"tagged float", with(5, "  keys: 100", "  s: !!float 1"), func(s *Scenario) (any, any) { return s.Workload.S, 1.0 }},
		{"title trimmed", plus("title: >", "  one line", ""), func(s *Scenario) (any, any) { return s.Title, "one line" }},
		{"description", plus("description: |", "  two", "  lines", ""), func(s *Scenario) (any, any) { return s.Description, "two\nlines" }},
		{"flow style", "{name: f, workload: {events: 5, keys: 5}, strategies: [{name: a, type: exact}]}\n", func(s *Scenario) (any, any) {
			return []any{s.Name, s.Workload.Events, s.Strategies[0].Name}, []any{"f", int64(5), "a"}
		}},
		{"explicit document markers", "---\n" + doc(valid...) + "...\n", func(s *Scenario) (any, any) { return s.Name, "t" }},
		{"data fraction 1", plus("assumptions: {data_fraction: 1}"), func(s *Scenario) (any, any) { return s.Assumptions.DataFraction, 1.0 }},
		{"digit name", with(2, "name: 2024-final"), func(s *Scenario) (any, any) { return s.Name, "2024-final" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("x.yaml", []byte(c.yaml))
			if err != nil {
				t.Fatalf("got error %v\n%s", err, c.yaml)
			}
			if got, want := c.check(s); !reflect.DeepEqual(got, want) {
				t.Errorf("got %#v, want %#v", got, want)
			}
		})
	}
}

func TestParams(t *testing.T) {
	src := plus(
		"    params:",              // 9
		"      zeta: 0.0001",       // 10
		"      alpha: 10",          // 11
		"      mid: true",          // 12
		"      mode: conservative", // 13
		`      quoted: "10"`,       // 14
		"      big: 1e6",           // 15
		"      neg: -3",            // 16
		"      under: 1_000",       // 17
		"  - name: b",              // 18
		"    type: count-min",      // 19
	)
	s, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{
		{"zeta", 0.0001, Pos{"p.yaml", 10, 7}},
		{"alpha", int64(10), Pos{"p.yaml", 11, 7}},
		{"mid", true, Pos{"p.yaml", 12, 7}},
		{"mode", "conservative", Pos{"p.yaml", 13, 7}},
		{"quoted", "10", Pos{"p.yaml", 14, 7}},
		{"big", 1e6, Pos{"p.yaml", 15, 7}},
		{"neg", int64(-3), Pos{"p.yaml", 16, 7}},
		{"under", int64(1000), Pos{"p.yaml", 17, 7}},
	}
	if got := s.Strategies[0].Params; !reflect.DeepEqual(got, want) {
		t.Errorf("got params\n%#v\nwant\n%#v", got, want)
	}
	if got := s.Strategies[1].Params; got != nil {
		t.Errorf("got params %#v for a strategy without params, want nil", got)
	}

	for _, c := range []struct {
		strategy int
		key      string
		want     Pos
	}{
		{0, "mode", Pos{"p.yaml", 13, 7}},
		{0, "absent", Pos{"p.yaml", 7, 5}},
		{1, "zeta", Pos{"p.yaml", 18, 5}},
		{2, "zeta", Pos{File: "p.yaml"}},
		{-1, "zeta", Pos{File: "p.yaml"}},
	} {
		if got := s.ParamPos(c.strategy, c.key); got != c.want {
			t.Errorf("ParamPos(%d, %q): got %v, want %v", c.strategy, c.key, got, c.want)
		}
	}
}

// TestSearch pins the built-in search day to the seed's figures.
func TestSearch(t *testing.T) {
	s, err := Builtin("search")
	if err != nil {
		t.Fatal(err)
	}
	if s.File != "builtin:search.yaml" {
		t.Errorf("got File %q, want builtin:search.yaml", s.File)
	}
	if s.Title == "" || strings.Count(s.Description, "\n") < 2 {
		t.Errorf("got title %q and description %q, want a title and a few lines", s.Title, s.Description)
	}
	got := *s
	got.Title, got.Description = "", ""
	got.Workload.Pos, got.Questions.Pos = Pos{}, Pos{}
	got.Strategies = slices.Clone(got.Strategies)
	for i := range got.Strategies {
		got.Strategies[i].Pos = Pos{}
		got.Strategies[i].Params = slices.Clone(got.Strategies[i].Params)
		for j := range got.Strategies[i].Params {
			got.Strategies[i].Params[j].Pos = Pos{}
		}
	}
	want := Scenario{
		File: "builtin:search.yaml",
		Name: "search",
		Seed: 1,
		Assumptions: Assumptions{
			Events:       2_000_000_000,
			Keys:         400_000_000,
			EntryBytes:   100,
			ServerBytes:  64_000_000_000,
			DataFraction: 0.5,
			CounterBytes: 4,
			KthCount:     14_000_000,
		},
		Workload: Workload{
			Events:       10_000_000,
			Keys:         1_000_000,
			Distribution: "zipf",
			S:            1,
			Scramble:     true,
			Rate:         1e6,
			Batch:        4096,
		},
		Questions: Questions{Top: 10},
		Strategies: []Strategy{
			{Name: "exact", Type: "exact", Params: []Param{{Key: "shards", Value: int64(4)}}},
			{Name: "count-min", Type: "count-min", Params: []Param{
				{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)},
			}},
			{Name: "space-saving", Type: "space-saving", Params: []Param{{Key: "counters", Value: int64(1000)}}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// TestBuiltins loads every built-in scenario and checks that its positions
// point at the lines that hold its keys.
func TestBuiltins(t *testing.T) {
	names := BuiltinNames()
	if !slices.Contains(names, "search") || !slices.IsSorted(names) {
		t.Fatalf("got built-in names %v, want a sorted list holding search", names)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			src, err := BuiltinSource(name)
			if err != nil {
				t.Fatal(err)
			}
			onDisk, err := os.ReadFile(name + ".yaml")
			if err != nil || !bytes.Equal(src, onDisk) {
				t.Errorf("BuiltinSource(%q) differs from %s.yaml (%v)", name, name, err)
			}
			s, err := Builtin(name)
			if err != nil {
				t.Fatal(err)
			}
			if s.Name != name {
				t.Errorf("got name %q in %s.yaml, want %q", s.Name, name, name)
			}
			lines := strings.Split(string(src), "\n")
			at := func(p Pos, key string) {
				t.Helper()
				if p.Line < 1 || p.Line > len(lines) || !strings.Contains(lines[p.Line-1], key+":") {
					t.Errorf("position %v does not point at %q", p, key)
				}
			}
			at(s.Workload.Pos, "workload")
			for _, st := range s.Strategies {
				at(st.Pos, "name")
				for _, p := range st.Params {
					at(p.Pos, p.Key)
				}
			}
		})
	}

	_, err := Builtin("nosuch")
	mustError(t, err, "nosuch", 0, "no built-in scenario", "(allowed: "+strings.Join(names, ", ")+")")
	_, err = BuiltinSource("../search")
	mustError(t, err, "../search", 0, "no built-in scenario")
}

func TestLoadAndResolve(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("mine.yaml", with(2, "name: mine"))
	noExt := write("plain", with(2, "name: plain"))
	bad := write("bad.yml", with(4, "  evnets: 5"))
	missing := filepath.Join(dir, "missing.yaml")

	s, err := Load(good)
	if err != nil || s.File != good || s.Name != "mine" {
		t.Fatalf("Load(%q): got %+v, %v", good, s, err)
	}
	_, err = Load(bad)
	mustError(t, err, bad, 4, `workload: unknown key "evnets"`)
	_, err = Load(missing)
	mustError(t, err, missing, 0, "no such file")
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load of a missing file: got %v, want it to wrap fs.ErrNotExist", err)
	}
	_, err = Load(dir)
	mustError(t, err, dir, 0, "directory")

	for _, c := range []struct {
		arg      string
		file     string // want File of the scenario, or of the error
		name     string // want Name ("" for an error)
		errLine  int
		errWants []string
	}{
		{arg: good, file: good, name: "mine"},
		{arg: noExt, file: noExt, name: "plain"},
		{arg: "search", file: "builtin:search.yaml", name: "search"},
		{arg: "builtin:search.yaml", file: "builtin:search.yaml", name: "search"},
		{arg: bad, file: bad, errLine: 4, errWants: []string{"unknown key"}},
		{arg: missing, file: missing, errWants: []string{"no such file"}},
		{arg: "nosuch.yml", file: "nosuch.yml", errWants: []string{"no such file"}},
		{arg: "nosuch", file: "nosuch", errWants: []string{"no such file and no built-in scenario", "search"}},
		{arg: dir, file: dir, errWants: []string{"no such file and no built-in scenario"}},
		{arg: "builtin:nosuch.yaml", file: "nosuch", errWants: []string{"no built-in scenario", "search"}},
	} {
		t.Run(filepath.Base(c.arg), func(t *testing.T) {
			s, err := Resolve(c.arg)
			if c.name == "" {
				mustError(t, err, c.file, c.errLine, c.errWants...)
				return
			}
			if err != nil {
				t.Fatalf("got error %v", err)
			}
			if s.File != c.file || s.Name != c.name {
				t.Errorf("got File %q, Name %q; want %q, %q", s.File, s.Name, c.file, c.name)
			}
		})
	}
}

func TestPosString(t *testing.T) {
	for _, c := range []struct {
		pos  Pos
		want string
	}{
		{Pos{"a.yaml", 3, 7}, "a.yaml:3:7"},
		{Pos{"a.yaml", 3, 0}, "a.yaml:3"},
		{Pos{File: "a.yaml"}, "a.yaml"},
	} {
		if got := c.pos.String(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

// FuzzParse checks that Parse never panics, that every error is an *Error
// in the file at a line the file has, and that whatever it accepts keeps the
// documented ranges. `go test` replays the seed corpus.
func FuzzParse(f *testing.F) {
	for _, name := range BuiltinNames() {
		src, err := BuiltinSource(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	for _, s := range []string{
		doc(valid...),
		"",
		"---\n---\n",
		"- [a, b]\n",
		"name: a: b\n",
		"a: &x [*x]\n",
		"a: &a [*a, *a]\nb: &b [*a, *a]\nc: [*b, *b]\n",
		"name: t\nworkload: {events: 1e10, keys: 0x3b9aca00, s: .inf}\nstrategies: [{name: a, type: b, params: {x: !!binary aGk=}}]\n",
		with(4, "  events: 010"),
		plus("    params: {a: 1, a: 2}"),
		plus("    params: {t: 2024-01-02, u: !!timestamp 2024-01-02}"),
		plus("? [a]", ": 1"),
		"\xef\xbb\xbfname: bom\n",
		"\xff\xfe",
		"{{{{{{{{{{{{{{{{{{{{",
		"name: t\n\t- x\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if lines := lineAt(data, len(data)); e.Pos.File != "fuzz.yaml" || e.Pos.Line < 0 || e.Pos.Line > lines+1 {
				t.Fatalf("got error position %+v for %d bytes of %d lines: %v", e.Pos, len(data), lines, err)
			}
			if s != nil {
				t.Fatalf("got a scenario beside error %v", err)
			}
			return
		}
		if !validName(s.Name) || len(s.Strategies) == 0 {
			t.Fatalf("accepted name %q with %d strategies", s.Name, len(s.Strategies))
		}
		w := s.Workload
		if w.Events < 1 || w.Events > maxEvents || w.Keys < 1 || w.Keys > maxKeys ||
			w.Batch < 1 || w.Batch > maxBatch || !(w.Rate > 0) || math.IsInf(w.Rate, 0) ||
			!(w.S >= 0) || math.IsInf(w.S, 0) || !slices.Contains(distributions, w.Distribution) {
			t.Fatalf("accepted workload %+v", w)
		}
		if s.Questions.Top < 0 || s.Questions.Top > maxTop {
			t.Fatalf("accepted top %d", s.Questions.Top)
		}
		seen := map[string]bool{}
		for _, st := range s.Strategies {
			if !validName(st.Name) || seen[st.Name] || st.Type == "" {
				t.Fatalf("accepted strategy %+v", st)
			}
			seen[st.Name] = true
			for _, p := range st.Params {
				switch v := p.Value.(type) {
				case int64, bool, string:
				case float64:
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("accepted param %+v", p)
					}
				default:
					t.Fatalf("accepted param %+v of type %T", p, v)
				}
			}
		}
	})
}
