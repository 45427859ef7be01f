package scenarios

import (
	"bytes"
	"errors"
	"fmt"
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

// timed is a small good timed scenario: 70 s of phases, 13,250,000
// expected writes. Its lines:
//
//	 1 name: t
//	 2 workload:
//	 3   keys: 100
//	 4   phases:
//	 5     - name: ramp
//	 6       duration: 10s
//	 7       rate: 50000
//	 8       to: 200000
//	 9     - duration: 60
//	10       rate: 200000
//	11 strategies:
//	12   - name: a
//	13     type: exact
var timed = []string{
	"name: t",
	"workload:",
	"  keys: 100",
	"  phases:",
	"    - name: ramp",
	"      duration: 10s",
	"      rate: 50000",
	"      to: 200000",
	"    - duration: 60",
	"      rate: 200000",
	"strategies:",
	"  - name: a",
	"    type: exact",
}

// twith, tcut and tplus are with, cut and plus for timed (tplus's first
// line is line 14).
func twith(n int, repl ...string) string { return tcut(n, n, repl...) }

func tcut(from, to int, repl ...string) string {
	return doc(slices.Replace(slices.Clone(timed), from-1, to, repl...)...)
}

func tplus(more ...string) string { return doc(append(slices.Clone(timed), more...)...) }

// edit returns base with lines from..to (1-based, inclusive) replaced by
// repl.
func edit(base []string, from, to int, repl ...string) string {
	return doc(slices.Replace(slices.Clone(base), from-1, to, repl...)...)
}

// audience is a small good scenario with an audience: 40 viewers on day 1,
// 38 on day 2 of whom 30 watched day 1. Its lines:
//
//	 1 name: t
//	 2 workload:
//	 3   audience:
//	 4     days:
//	 5       - viewers: 40
//	 6       - viewers: 38
//	 7         overlap: 30
//	 8 strategies:
//	 9   - name: a
//	10     type: hll
var audience = []string{
	"name: t",
	"workload:",
	"  audience:",
	"    days:",
	"      - viewers: 40",
	"      - viewers: 38",
	"        overlap: 30",
	"strategies:",
	"  - name: a",
	"    type: hll",
}

// awith, acut and aplus are with, cut and plus for audience (aplus's first
// line is line 11).
func awith(n int, repl ...string) string { return edit(audience, n, n, repl...) }

func acut(from, to int, repl ...string) string { return edit(audience, from, to, repl...) }

func aplus(more ...string) string { return doc(append(slices.Clone(audience), more...)...) }

// profile is a small good scenario with a profile. Its lines:
//
//	1 name: t
//	2 profile:
//	3   max: 1e6
//	4 strategies:
//	5   - name: a
//	6     type: hll
var profile = []string{
	"name: t",
	"profile:",
	"  max: 1e6",
	"strategies:",
	"  - name: a",
	"    type: hll",
}

// pwith and pplus are with and plus for profile (pplus's first line is
// line 7).
func pwith(n int, repl ...string) string { return edit(profile, n, n, repl...) }

func pplus(more ...string) string { return doc(append(slices.Clone(profile), more...)...) }

// stepped is a small good scenario in two steps, a count stream and a
// profile. Its lines:
//
//	 1 name: t
//	 2 steps:
//	 3   - name: a
//	 4     workload: {events: 10, keys: 1}
//	 5     strategies:
//	 6       - name: x
//	 7         type: exact
//	 8   - name: b
//	 9     profile: {max: 100}
//	10     strategies:
//	11       - name: y
//	12         type: hll
var stepped = []string{
	"name: t",
	"steps:",
	"  - name: a",
	"    workload: {events: 10, keys: 1}",
	"    strategies:",
	"      - name: x",
	"        type: exact",
	"  - name: b",
	"    profile: {max: 100}",
	"    strategies:",
	"      - name: y",
	"        type: hll",
}

// swith, scut and splus are with, cut and plus for stepped (splus's first
// line is line 13).
func swith(n int, repl ...string) string { return edit(stepped, n, n, repl...) }

func scut(from, to int, repl ...string) string { return edit(stepped, from, to, repl...) }

func splus(more ...string) string { return doc(append(slices.Clone(stepped), more...)...) }

// timedStep is a step with a timed stream of 10 s at 1,000 writes a second
// named name, with strategy sname; more follows its workload (the step's
// entry is its first line).
func timedStep(name, sname string, more ...string) []string {
	lines := []string{
		"  - name: " + name,
		"    workload: {keys: 1, phases: [{duration: 10s, rate: 1000}]}",
	}
	lines = append(lines, more...)
	return append(lines, "    strategies: [{name: "+sname+", type: exact}]")
}

// manySteps returns n step entries, one line each.
func manySteps(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("  - {name: s%d, workload: {events: 1, keys: 1}, strategies: [{name: x%d, type: exact}]}", i, i)
	}
	return lines
}

// manyDays returns n audience days of one viewer each.
func manyDays(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "      - {viewers: 1}"
	}
	return lines
}

// manyPhases returns n phase entries of 1 s at rate 1.
func manyPhases(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = "    - {duration: 1s, rate: 1}"
	}
	return lines
}

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

// str, tim, aud and prof return the scenario's run as the kind the case
// expects, or nil.
func str(s *Scenario) *Stream   { r, _ := s.Run.(*Stream); return r }
func tim(s *Scenario) *Timed    { r, _ := s.Run.(*Timed); return r }
func aud(s *Scenario) *Audience { r, _ := s.Run.(*Audience); return r }
func prof(s *Scenario) *Profile { r, _ := s.Run.(*Profile); return r }

// keysOf lists the keys of a mapping of type T.
func keysOf[T any]() []string { return schemaOf(reflect.TypeFor[T]()).keys() }

// bare returns a copy of s and its steps without what the loader keeps for
// later lookups and the report: the keys' positions and the linked figures.
func bare(s *Scenario) *Scenario {
	c := *s
	c.keys, c.stepPath, c.Figures, c.Steps = nil, "", nil, nil
	if c.Trials == 1 && c.FalseAlarm == 1e-6 { // the defaults: TestTrials reads them
		c.Trials, c.FalseAlarm = 0, 0
	}
	for _, st := range s.Steps {
		c.Steps = append(c.Steps, bare(st))
	}
	return &c
}

func TestParseErrors(t *testing.T) {
	const (
		workloadKeys = "(allowed: events, keys, distribution, s, scramble, rate, batch, plant, phases, arrivals, reads, resend, resend_delay, audience, scores, checked, ratings, top, few, enough, nodes, trending, file, format, key, key_id, time, actor, actor_id, id, event_id, delta, op, tolerance, skip_bad, as, day, only, checkpoint, regions, phrases, watch, score, standings, standings_score, stars, scale, items, node, node_count, posts_file, followers, created, protected, from, span, follow, follow_at, posts)"
		topKeys      = "name, title, description, seed, on_demand, assumptions, store, workload, profile, questions, cluster, faults, strategies, expect, shows, trials, false_alarm, goals, steps"
		phaseKeys    = "name, duration, rate, to"
		faultKeys    = "at, kind, server, node, for, share, servers, nodes, delay, lag"
		durations    = `written as a Go duration such as "60s", "250ms" or "1m30s", or as a number of seconds such as 60 or 0.25)`
		positiveDur  = "(allowed: a duration above 0 and at most 24h, " + durations
		anyDur       = "(allowed: a duration from 0 to 24h, " + durations
		timedOnly    = "needs phases, a timed stream (allowed: remove "
		oneStream    = "(allowed: one of events for a count stream, phases for a timed stream, audience for viewers over days, scores for a leaderboard, ratings for items rated on a star scale, nodes for a split stream, trending for phrases over time with planted bursts, file for a recorded log or posts for posts liked over time)"
		notAudience  = "(allowed: remove "
		profileKeys  = "min, max, points_per_octave, trials"
		stepKeys     = "name, title, description, assumptions, workload, profile, questions, cluster, faults, strategies, expect, shows, trials, false_alarm, goals"
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
		{"utf-16 little-endian", "\xff\xfen\x00a\x00m\x00e\x00:\x00 \x00t\x00\n\x00", 1, []string{"the file is UTF-16 text (allowed: UTF-8 text; save the file as UTF-8)"}},
		{"utf-16 big-endian", "\xfe\xff\x20\x28\x20\x28", 1, []string{"the file is UTF-16 text"}},
		{"undefined alias", with(5, "  keys: *n"), 5, []string{"unknown anchor 'n'"}},

		// Unknown and repeated keys.
		{"unknown top key", plus("evnets: 5"), 9, []string{`unknown key "evnets"`, "(allowed: " + topKeys + ")"}},
		{"unknown workload key", with(4, "  evnets: 1000"), 4, []string{`workload: unknown key "evnets" ` + workloadKeys}},
		{"plant above events", with(5, "  keys: 100", "  plant: {count: 1001}"), 6, []string{"workload.plant: count 1001 is more than the stream's 1000 events (allowed: 1..events)"}},
		{"plant without count", with(5, "  keys: 100", "  plant: {key: 5}"), 6, []string{`workload.plant: missing required key "count"`}},
		{"plant count zero", with(5, "  keys: 100", "  plant: {count: 0}"), 6, []string{"workload.plant.count: 0 is out of range (allowed: 1..1e10)"}},
		{"plant key zero", with(5, "  keys: 100", "  plant: {count: 4, key: 0}"), 6, []string{"workload.plant.key: 0 is out of range (allowed: 1..)"}},
		{"plant in a split stream", with(5, "  keys: 100", "  nodes: {count: 4}", "  plant: {count: 4}"), 7, []string{"workload.plant: needs events, a count stream (allowed: remove plant, or give events instead of nodes)"}},
		{"expect not a list", plus("    expect: bytes <= 5"), 9, []string{"strategies[0].expect: ", "is not a list", "metric op value"}},
		{"expect not a string", plus("    expect: [5]"), 9, []string{"strategies[0].expect[0]: ", "is not a string"}},
		{"expect bad op", plus("    expect: [\"bytes <> 5\"]"), 9, []string{`strategies[0].expect[0]: "bytes <> 5" is not an expectation`, "op one of <=, <, ==, >=, >"}},
		{"expect bad value", plus("    expect: [\"bytes <= 12lots\"]"), 9, []string{`"12lots" is not a finite number, plan, a metric's name or NUMBER * FIGURE`}},
		{"unknown strategy key", plus("    parms: {}"), 9, []string{`strategies[0]: unknown key "parms" (allowed: name, type, params, on_demand, expect, shows, sweep)`}},
		{"unknown assumption", plus("assumptions:", "  event: 5"), 10, []string{`assumptions: unknown key "event" (allowed: events, keys, entry_bytes, server_bytes, data_fraction, counter_bytes, kth_count, peak_rate, read_rate, key_capacity, headroom, app_servers)`}},
		{"unknown question", plus("questions: {top: 1, bottom: 2}"), 9, []string{`questions: unknown key "bottom" (allowed: top)`}},
		{"merge key", plus("questions:", "  <<: {top: 1}"), 10, []string{"questions: merge keys (<<) are not allowed"}},
		{"repeated top key", plus("name: u"), 9, []string{`key "name" given twice (first at line 2)`}},
		{"repeated workload key", with(5, "  keys: 100", "  events: 5"), 6, []string{`workload: key "events" given twice (first at line 4)`}},
		{"repeated param", plus("    params: {k: 1, k: 2}"), 9, []string{`strategies[0].params: key "k" given twice`}},
		{"list as key", plus("? [a]", ": 1"), 9, []string{"a list as a key is not allowed"}},

		// Missing keys name the enclosing mapping.
		{"missing name", with(2), 2, []string{`missing required key "name"`}},
		{"missing workload", cut(3, 5, "seed: 1"), 2, []string{`missing required key "workload" or "profile" (allowed: workload, the stream to simulate; profile, seeded trials at cardinalities on a log grid; or steps, each with one of them)`}},
		{"missing events", with(4), 3, []string{"cases/x.yaml:3: workload needs events (a count stream), phases (a timed stream), audience (viewers over days), scores (a leaderboard), ratings (items rated on a star scale), nodes (a split stream), trending (phrases over time with planted bursts), file (a recorded log) or posts (posts liked over time) (allowed: events: 1..1e10; or phases: a list of 1..1000 mappings with keys " + phaseKeys + "; or audience: a mapping with keys days, views, views_max, views_s; or scores: a mapping with keys delta_min, delta_max, set_share, set_max, start_max; or ratings: a mapping with keys items, ratings, s, scale, quality; or nodes: a mapping with keys count, by, plant, skews; or trending: a mapping with keys keys, distribution, s, scramble, rate, duration, regions, checkpoint, plants; or file: one line of text; or posts: a mapping with keys rate, duration, followers, like_rate, noise, half_life, protected, protected_factor, viral)"}},
		{"missing keys", with(5), 3, []string{`workload: missing required key "keys"`}},
		{"missing keys of a timed stream", twith(3), 2, []string{`workload: missing required key "keys"`}},
		{"null workload", cut(3, 5, "workload:"), 3, []string{"workload needs events (a count stream), phases (a timed stream), audience (viewers over days), scores (a leaderboard), ratings (items rated on a star scale), nodes (a split stream), trending (phrases over time with planted bursts), file (a recorded log) or posts (posts liked over time)"}},
		{"only keys", cut(3, 5, "workload: {keys: 5}"), 3, []string{"workload needs events (a count stream), phases (a timed stream), audience (viewers over days), scores (a leaderboard), ratings (items rated on a star scale), nodes (a split stream), trending (phrases over time with planted bursts), file (a recorded log) or posts (posts liked over time)"}},
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
		// Assumptions of hot counters.
		{"peak rate zero", plus("assumptions:", "  peak_rate: 0"), 10, []string{"assumptions.peak_rate: 0 is out of range (allowed: a number > 0)"}},
		{"read rate negative", plus("assumptions: {read_rate: -5000}"), 9, []string{"assumptions.read_rate: -5000 is out of range (allowed: a number > 0)"}},
		{"key capacity string", plus("assumptions:", "  key_capacity: 10k"), 10, []string{`assumptions.key_capacity: "10k" is not a number (allowed: a number > 0)`}},
		{"headroom zero", plus("assumptions:", "  headroom: 0"), 10, []string{"assumptions.headroom: 0 is out of range (allowed: a number in (0,1])"}},
		{"headroom percent", plus("assumptions:", "  headroom: 70"), 10, []string{"assumptions.headroom: 70 is out of range (allowed: a number in (0,1])"}},
		{"app servers fraction", plus("assumptions:", "  app_servers: 2.5"), 10, []string{"assumptions.app_servers: 2.5 is not a whole number (allowed: a whole number, 1..1e9)"}},
		{"app servers zero", plus("assumptions:", "  app_servers: 0"), 10, []string{"assumptions.app_servers: 0 is out of range (allowed: a whole number, 1..1e9)"}},
		{"app servers too many", plus("assumptions:", "  app_servers: 2e9"), 10, []string{"assumptions.app_servers: 2e9 is out of range (allowed: a whole number, 1..1e9)"}},
		{"app servers string", plus("assumptions:", `  app_servers: "200"`), 10, []string{`assumptions.app_servers: "200" is not a whole number`}},
		{"app servers null", plus("assumptions:", "  app_servers:"), 10, []string{"assumptions.app_servers: missing value (allowed: a whole number, 1..1e9)"}},

		// A count stream or a timed stream.
		{"events then phases", with(5, "  keys: 100", "  phases:", "    - {duration: 1s, rate: 1}"), 6, []string{"workload.phases: events is given too, at line 4 " + oneStream}},
		{"phases then events", twith(10, "      rate: 200000", "  events: 1000"), 11, []string{"workload.events: phases is given too, at line 4 " + oneStream}},
		{"phases then bad events", twith(10, "      rate: 200000", "  events: -5"), 11, []string{"workload.events: phases is given too, at line 4"}},
		{"reads with events", with(5, "  keys: 100", "  reads: 5000"), 6, []string{"workload.reads: " + timedOnly + "reads, or give phases instead of events)"}},
		{"resend with events", with(5, "  keys: 100", "  resend: 0.1"), 6, []string{"workload.resend: " + timedOnly + "resend, or give phases"}},
		{"resend delay with events", with(5, "  keys: 100", "  resend_delay: 1s"), 6, []string{"workload.resend_delay: " + timedOnly + "resend_delay, or give phases"}},
		{"arrivals with events", with(5, "  keys: 100", "  arrivals: even"), 6, []string{"workload.arrivals: " + timedOnly + "arrivals, or give phases"}},
		{"first timed key with events", with(5, "  keys: 100", "  resend: 0.1", "  reads: 1"), 6, []string{"workload.resend: " + timedOnly + "resend"}},
		{"rate with phases", twith(3, "  keys: 100", "  rate: 1e6"), 4, []string{"workload.rate: a timed stream takes its rates from phases (allowed: remove rate, or give events or file instead of phases)"}},
		{"rate after phases", twith(10, "      rate: 200000", "  rate: 5"), 11, []string{"workload.rate: a timed stream takes its rates from phases"}},

		// Phases.
		{"phases null", tcut(4, 10, "  phases:"), 4, []string{"workload.phases: at least one phase is required (allowed: a list of 1..1000 mappings with keys " + phaseKeys + ")"}},
		{"phases empty", tcut(4, 10, "  phases: []"), 4, []string{"workload.phases: at least one phase is required"}},
		{"phases mapping", tcut(5, 10, "    ramp: {duration: 1s, rate: 1}"), 5, []string{"workload.phases: a mapping is not a list (allowed: a list of mappings with keys " + phaseKeys + ")"}},
		{"phases scalar", tcut(4, 10, "  phases: ramp"), 4, []string{`workload.phases: "ramp" is not a list`}},
		{"phase scalar", tcut(9, 10, "    - 60s"), 9, []string{`workload.phases[1]: "60s" is not a mapping (allowed: a mapping with keys ` + phaseKeys + ")"}},
		{"phase list", tcut(9, 10, "    - [60s, 1]"), 9, []string{"workload.phases[1]: a list is not a mapping"}},
		{"phase null", tcut(9, 10, "    - ~"), 9, []string{`workload.phases[1]: missing required key "duration"`}},
		{"phase unknown key", twith(8, "      too: 200000"), 8, []string{`workload.phases[0]: unknown key "too" (allowed: ` + phaseKeys + ")"}},
		{"phase repeated key", twith(8, "      rate: 1"), 8, []string{`workload.phases[0]: key "rate" given twice (first at line 7)`}},
		{"phase missing duration", tcut(9, 10, "    - rate: 200000"), 9, []string{`workload.phases[1]: missing required key "duration"`}},
		{"phase missing rate", tcut(9, 10, "    - duration: 60"), 9, []string{`workload.phases[1]: missing required key "rate"`}},
		{"phases anchored", twith(4, "  phases: &p"), 4, []string{"workload.phases: anchors and aliases are not allowed"}},
		{"phase anchored", twith(9, "    - &p", "      duration: 60"), 9, []string{"workload.phases[1]: anchors and aliases are not allowed"}},
		{"too many phases", tcut(4, 10, append([]string{"  phases:"}, manyPhases(1001)...)...), 1005, []string{"workload.phases: more than 1000 phases (allowed: 1..1000 phases)"}},
		{"phase name empty", twith(5, `    - name: ""`), 5, []string{`workload.phases[0].name: "" is not allowed (allowed: one line of text, at most 64 characters)`}},
		{"phase name blank", twith(5, `    - name: "  "`), 5, []string{`workload.phases[0].name: "  " is not allowed`}},
		{"phase name number", twith(5, "    - name: 12"), 5, []string{"workload.phases[0].name: 12 is not a string (allowed: one line of text, at most 64 characters; put it in quotes"}},
		{"phase name two lines", twith(5, `    - name: "a\nb"`), 5, []string{`workload.phases[0].name: "a\nb" is not allowed`}},
		{"phase name too long", twith(5, "    - name: "+strings.Repeat("é", 65)), 5, []string{"workload.phases[0].name:", "is not allowed (allowed: one line of text, at most 64 characters)"}},
		{"phase rate negative", twith(7, "      rate: -1"), 7, []string{"workload.phases[0].rate: -1 is out of range (allowed: a number >= 0)"}},
		{"phase rate string", twith(7, "      rate: fast"), 7, []string{`workload.phases[0].rate: "fast" is not a number (allowed: a number >= 0`}},
		{"phase rate inf", twith(7, "      rate: .inf"), 7, []string{"workload.phases[0].rate: .inf is out of range"}},
		{"phase rate null", twith(7, "      rate:"), 7, []string{"workload.phases[0].rate: missing value (allowed: a number >= 0"}},
		{"phase to negative", twith(8, "      to: -200000"), 8, []string{"workload.phases[0].to: -200000 is out of range (allowed: a number >= 0)"}},

		// Durations.
		{"duration zero", twith(6, "      duration: 0"), 6, []string{"workload.phases[0].duration: 0 is out of range " + positiveDur}},
		{"duration 0s", twith(6, "      duration: 0s"), 6, []string{`workload.phases[0].duration: "0s" is out of range ` + positiveDur}},
		{"duration negative", twith(6, "      duration: -5s"), 6, []string{`workload.phases[0].duration: "-5s" is out of range`}},
		{"duration negative seconds", twith(6, "      duration: -1"), 6, []string{"workload.phases[0].duration: -1 is out of range"}},
		{"duration unit", twith(6, "      duration: 5 sec"), 6, []string{`workload.phases[0].duration: "5 sec" is not a duration ` + positiveDur}},
		{"duration no unit", twith(6, "      duration: 1m30"), 6, []string{`workload.phases[0].duration: "1m30" is not a duration`}},
		{"duration quoted number", twith(6, `      duration: "60"`), 6, []string{`workload.phases[0].duration: "60" is not a duration`}},
		{"duration empty string", twith(6, `      duration: ""`), 6, []string{`workload.phases[0].duration: "" is not a duration`}},
		{"duration bool", twith(6, "      duration: true"), 6, []string{"workload.phases[0].duration: true is not a duration"}},
		{"duration list", twith(6, "      duration: [10s]"), 6, []string{"workload.phases[0].duration: a list is not a duration"}},
		{"duration null", twith(6, "      duration:"), 6, []string{"workload.phases[0].duration: missing value " + positiveDur}},
		{"duration date", twith(6, "      duration: 2024-01-02"), 6, []string{"workload.phases[0].duration: 2024-01-02 is not a duration"}},
		{"duration inf", twith(6, "      duration: .inf"), 6, []string{"workload.phases[0].duration: .inf is out of range"}},
		{"duration nan", twith(6, "      duration: .nan"), 6, []string{"workload.phases[0].duration: .nan is out of range"}},
		{"duration over 24h", twith(6, "      duration: 25h"), 6, []string{`workload.phases[0].duration: "25h" is out of range`}},
		{"duration seconds over 24h", twith(6, "      duration: 86401"), 6, []string{"workload.phases[0].duration: 86401 is out of range"}},
		{"duration huge", twith(6, "      duration: 1e300"), 6, []string{"workload.phases[0].duration: 1e300 is out of range"}},
		{"duration beyond int64", twith(6, "      duration: 99999999999999999999"), 6, []string{"workload.phases[0].duration: 99999999999999999999 is out of range"}},
		{"duration overflows", twith(6, "      duration: 9999999999h"), 6, []string{`workload.phases[0].duration: "9999999999h" is not a duration`}},
		{"duration below a ns", twith(6, "      duration: 1e-12"), 6, []string{"workload.phases[0].duration: 1e-12 is out of range"}},
		{"duration octal", twith(6, "      duration: 010"), 6, []string{"workload.phases[0].duration: 010 has a leading zero", "(allowed: 10, or 0o10 for octal)"}},
		{"duration tag", twith(6, "      duration: !secs 10"), 6, []string{"workload.phases[0].duration: tag !secs is not allowed"}},
		{"resend delay negative", twith(3, "  keys: 100", "  resend_delay: -1ms"), 4, []string{`workload.resend_delay: "-1ms" is out of range ` + anyDur}},
		{"resend delay word", twith(3, "  keys: 100", "  resend_delay: soon"), 4, []string{`workload.resend_delay: "soon" is not a duration ` + anyDur}},

		// The totals of a timed stream.
		{"phases over 24h", tcut(4, 10, "  phases:", "    - {duration: 13h, rate: 1}", "    - {duration: 13h, rate: 1}"), 4, []string{"workload.phases: the phases last 26h0m0s in all (allowed: at most 24h in all)"}},
		{"no phase with a rate", tcut(5, 10, "    - {duration: 10s, rate: 0}", "    - {duration: 10s, rate: 0, to: 0}"), 4, []string{"workload.phases: no phase has a rate above 0 (allowed: at least one phase with rate or to > 0)"}},
		{"too many writes", tcut(5, 10, "    - {duration: 24h, rate: 1e6}"), 4, []string{"workload.phases: the stream would hold about 8.64e+10 events (8.64e+10 writes + 0 reads), more than 1e10 (allowed: at most 1e10 events"}},
		{"too many reads", tcut(3, 10, "  keys: 100", "  reads: 2e5", "  phases:", "    - {duration: 24h, rate: 1}"), 5, []string{"workload.phases: the stream would hold about 1.728e+10 events (8.64e+04 writes + 1.728e+10 reads), more than 1e10"}},
		{"one read over 1e10", tcut(3, 10, "  keys: 100", "  reads: 500_000.000_1", "  phases:", "    - {duration: 10000, rate: 0, to: 1e6}"), 5, []string{"workload.phases: the stream would hold about 1e+10 events (5e+09 writes + 5e+09 reads), more than 1e10"}},
		{"writes overflow", tcut(5, 10, "    - {duration: 24h, rate: 1.7e308, to: 1.7e308}"), 4, []string{"workload.phases: the stream would hold about +Inf events"}},

		// The other keys of a timed stream.
		{"arrivals", twith(3, "  keys: 100", "  arrivals: burst"), 4, []string{`workload.arrivals: "burst" is not allowed (allowed: even, poisson)`}},
		{"arrivals number", twith(3, "  keys: 100", "  arrivals: 1"), 4, []string{"workload.arrivals: 1 is not a string (allowed: even, poisson"}},
		{"resend 1", twith(3, "  keys: 100", "  resend: 1"), 4, []string{"workload.resend: 1 is out of range (allowed: a number in [0,1))"}},
		{"resend negative", twith(3, "  keys: 100", "  resend: -0.1"), 4, []string{"workload.resend: -0.1 is out of range (allowed: a number in [0,1)"}},
		{"resend percent", twith(3, "  keys: 100", "  resend: 5%"), 4, []string{`workload.resend: "5%" is not a number (allowed: a number in [0,1)`}},
		{"reads negative", twith(3, "  keys: 100", "  reads: -1"), 4, []string{"workload.reads: -1 is out of range (allowed: a number >= 0)"}},
		{"reads inf", twith(3, "  keys: 100", "  reads: .inf"), 4, []string{"workload.reads: .inf is out of range (allowed: a number >= 0"}},
		{"reads null", twith(3, "  keys: 100", "  reads:"), 4, []string{"workload.reads: missing value (allowed: a number >= 0"}},

		// The cluster.
		{"cluster null", plus("cluster:"), 9, []string{`cluster: missing required key "key_capacity"`}},
		{"cluster without key capacity", plus("cluster:", "  nodes: 8"), 9, []string{`cluster: missing required key "key_capacity"`}},
		{"cluster unknown key", plus("cluster:", "  key_capacity: 1", "  shards: 8"), 11, []string{`cluster: unknown key "shards" (allowed: nodes, key_capacity, node_capacity, placement)`}},
		{"cluster list", plus("cluster: [8]"), 9, []string{"cluster: a list is not a mapping (allowed: a mapping with keys nodes, key_capacity, node_capacity, placement)"}},
		{"cluster nodes zero", plus("cluster: {key_capacity: 1, nodes: 0}"), 9, []string{"cluster.nodes: 0 is out of range (allowed: 1..4096)"}},
		{"cluster nodes too many", plus("cluster:", "  nodes: 4097", "  key_capacity: 1"), 10, []string{"cluster.nodes: 4097 is out of range (allowed: 1..4096)"}},
		{"cluster nodes fraction", plus("cluster:", "  nodes: 2.5"), 10, []string{"cluster.nodes: 2.5 is not an integer (allowed: 1..4096)"}},
		{"cluster key capacity zero", plus("cluster:", "  key_capacity: 0"), 10, []string{"cluster.key_capacity: 0 is out of range (allowed: a number > 0)"}},
		{"cluster key capacity null", plus("cluster:", "  key_capacity:"), 10, []string{"cluster.key_capacity: missing value (allowed: a number > 0"}},
		{"cluster node capacity negative", plus("cluster:", "  key_capacity: 1", "  node_capacity: -1"), 11, []string{"cluster.node_capacity: -1 is out of range (allowed: a number >= 0)"}},
		{"cluster repeated", plus("cluster: {key_capacity: 1}", "cluster: {key_capacity: 2}"), 10, []string{`key "cluster" given twice (first at line 9)`}},
		{"cluster placement unknown", plus("cluster:", "  key_capacity: 1", "  placement: ring"), 11, []string{`cluster.placement: "ring" is not allowed (allowed: slots, modulo)`}},
		{"cluster placement number", plus("cluster:", "  key_capacity: 1", "  placement: 2"), 11, []string{`cluster.placement: 2 is not a string (allowed: slots, modulo;`}},
		{"cluster placement null", plus("cluster:", "  key_capacity: 1", "  placement:"), 11, []string{`cluster.placement: missing value (allowed: slots, modulo)`}},

		// Faults, each on its own.
		{"faults mapping", tplus("faults:", "  crash: {at: 1s}"), 15, []string{"faults: a mapping is not a list (allowed: a list of mappings with keys " + faultKeys + ")"}},
		{"faults scalar", tplus("faults: crash"), 14, []string{`faults: "crash" is not a list`}},
		{"fault scalar", tplus("faults: [crash]"), 14, []string{`faults[0]: "crash" is not a mapping (allowed: a mapping with keys ` + faultKeys + ")"}},
		{"fault null", tplus("faults:", "  - ~"), 15, []string{`faults[0]: missing required key "at"`}},
		{"fault unknown key", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    target: 7"), 17, []string{`faults[0]: unknown key "target" (allowed: ` + faultKeys + ")"}},
		{"fault missing at", tplus("faults:", "  - kind: app-crash", "    server: 7"), 15, []string{`faults[0]: missing required key "at"`}},
		{"fault missing kind", tplus("faults:", "  - at: 30s", "    server: 7"), 15, []string{`faults[0]: missing required key "kind"`}},
		{"fault kind", tplus("faults:", "  - at: 30s", "    kind: crash", "    server: 7"), 16, []string{`faults[0].kind: "crash" is not allowed (allowed: app-crash, node-loss, node-down, node-slow, partition, failover)`}},
		{"fault at negative", tplus("faults:", "  - at: -1s", "    kind: app-crash", "    server: 7"), 15, []string{`faults[0].at: "-1s" is out of range ` + anyDur}},
		{"fault at word", tplus("faults:", "  - at: soon", "    kind: app-crash", "    server: 7"), 15, []string{`faults[0].at: "soon" is not a duration ` + anyDur}},
		{"app crash with node", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    node: 7"), 17, []string{"faults[0].node: kind app-crash does not take node (allowed: server)"}},
		{"app crash with both", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    server: 7", "    node: 7"), 18, []string{"faults[0].node: kind app-crash does not take node (allowed: server)"}},
		{"node loss with server", tplus("cluster: {key_capacity: 1e4}", "faults:", "  - at: 30s", "    kind: node-loss", "    server: 7"), 18, []string{"faults[0].server: kind node-loss does not take server (allowed: node)"}},
		{"app crash without server", tplus("faults:", "  - at: 30s", "    kind: app-crash"), 15, []string{`faults[0]: kind app-crash needs key "server" (allowed: server: the crashed app server's number, from 0)`}},
		{"node loss without node", tplus("faults:", "  - {at: 30s, kind: node-loss}"), 15, []string{`faults[0]: kind node-loss needs key "node" (allowed: node: the lost store node's number, from 0)`}},
		{"server negative", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    server: -1"), 17, []string{"faults[0].server: -1 is out of range (allowed: 0..999999999)"}},
		{"server fraction", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    server: 7.5"), 17, []string{"faults[0].server: 7.5 is not an integer (allowed: 0..999999999"}},
		{"server too big", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    server: 1e9"), 17, []string{"faults[0].server: 1e9 is out of range (allowed: 0..999999999"}},
		{"node too big", tplus("faults:", "  - at: 30s", "    kind: node-loss", "    node: 4096"), 17, []string{"faults[0].node: 4096 is out of range (allowed: 0..4095)"}},

		// Faults against the rest of the scenario.
		{"faults on a count stream", plus("faults:", "  - at: 1s", "    kind: app-crash", "    server: 0"), 9, []string{"faults: faults need a timed stream (allowed: workload phases instead of events or audience, or no faults)"}},
		{"fault at the end", tplus("faults:", "  - at: 70s", "    kind: app-crash", "    server: 7"), 15, []string{"faults[0].at: 1m10s is not within the stream (allowed: a time before 1m10s, the phases' total duration)"}},
		{"fault after the end", tplus("faults:", "  - {at: 1h, kind: app-crash, server: 7}"), 15, []string{"faults[0].at: 1h0m0s is not within the stream (allowed: a time before 1m10s"}},
		{"faults out of order", tplus("faults:", "  - {at: 30s, kind: app-crash, server: 1}", "  - {at: 30s, kind: app-crash, server: 2}", "  - {at: 20s, kind: app-crash, server: 3}"), 17, []string{"faults[2].at: 20s is before 30s of faults[1] at line 16 (allowed: faults in time order)"}},
		{"server beyond app servers", tplus("assumptions: {app_servers: 200}", "faults:", "  - {at: 30s, kind: app-crash, server: 200}"), 16, []string{"faults[0].server: 200 is out of range (allowed: 0..199, as assumptions.app_servers is 200)"}},
		{"app servers after faults", tplus("faults:", "  - at: 30s", "    kind: app-crash", "    server: 200", "assumptions: {app_servers: 200}"), 17, []string{"faults[0].server: 200 is out of range (allowed: 0..199, as assumptions.app_servers is 200)"}},
		{"node loss without cluster", tplus("faults:", "  - at: 30s", "    kind: node-loss", "    node: 0"), 16, []string{"faults[0].kind: node-loss needs a cluster (allowed: add cluster:, or kind app-crash)"}},
		{"node beyond cluster", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - at: 30s", "    kind: node-loss", "    node: 8"), 18, []string{"faults[0].node: 8 is out of range (allowed: 0..7, as cluster.nodes is 8)"}},
		// Store faults (issue 29): their own keys, within the run and the cluster.
		{"node down", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-down, node: 8, for: 10s}"), 16, []string{"faults[0].node: 8 is out of range (allowed: 0..7, as cluster.nodes is 8)"}},
		{"node down without for", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-down, node: 1}"), 16, []string{`faults[0]: kind node-down needs key "for" (allowed: for: how long it answers nothing, a duration)`}},
		{"node down for zero", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-down, node: 1, for: 0s}"), 16, []string{`faults[0].for: "0s" is out of range ` + positiveDur}},
		{"node down for negative", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-down, node: 1, for: -2s}"), 16, []string{`faults[0].for: "-2s" is out of range ` + positiveDur}},
		{"node down past the end", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 60s, kind: node-down, node: 1, for: 20s}"), 16, []string{"faults[0].for: 20s from 1m0s ends at 1m20s, after the stream's end (allowed: at most 10s, so that it ends within the phases' total duration of 1m10s)"}},
		{"node down with share", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-down, node: 1, for: 2s, share: 0.5}"), 16, []string{"faults[0].share: kind node-down does not take share (allowed: node, for)"}},
		{"node down without cluster", tplus("faults:", "  - {at: 30s, kind: node-down, node: 0, for: 1s}"), 15, []string{"faults[0].kind: node-down needs a cluster (allowed: add cluster:, or kind app-crash)"}},
		{"node slow share one", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-slow, node: 1, for: 2s, share: 1}"), 16, []string{"faults[0].share: 1 is out of range (allowed: a number in (0,1)"}},
		{"node slow share zero", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-slow, node: 1, for: 2s, share: 0}"), 16, []string{"faults[0].share: 0 is out of range (allowed: a number in (0,1)"}},
		{"node slow without share", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: node-slow, node: 1, for: 2s}"), 16, []string{`faults[0]: kind node-slow needs key "share" (allowed: share: the share of its capacity it keeps, in (0,1))`}},
		{"partition node", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [0], nodes: [3, 9]}"), 16, []string{"faults[0].nodes[1]: 9 is out of range (allowed: 0..7, as cluster.nodes is 8)"}},
		{"partition server", tplus("assumptions: {app_servers: 4}", "cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [1, 4], nodes: [3]}"), 17, []string{"faults[0].servers[1]: 4 is out of range (allowed: 0..3, as assumptions.app_servers is 4)"}},
		{"partition empty", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [], nodes: [3]}"), 16, []string{"faults[0].servers: an empty list cuts nothing off (allowed: one or more numbers, from 0)"}},
		{"partition twice", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [0], nodes: [3, 3]}"), 16, []string{"faults[0].nodes: 3 is listed twice (allowed: each number once)"}},
		{"partition not a list", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: 0, nodes: [3]}"), 16, []string{"faults[0].servers: 0 is not a list (allowed: a list of integers, each 0..999999999)"}},
		{"partition negative", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [0], nodes: [-1]}"), 16, []string{"faults[0].nodes[0]: -1 is out of range (allowed: a list of integers, each 0..4095)"}},
		{"partition with node", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: partition, for: 2s, servers: [0], nodes: [1], node: 1}"), 16, []string{"faults[0].node: kind partition does not take node (allowed: for, servers, nodes)"}},
		{"failover lag negative", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: failover, node: 1, delay: 2s, lag: -1s}"), 16, []string{`faults[0].lag: "-1s" is out of range ` + anyDur}},
		{"failover lag before the start", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 1s, kind: failover, node: 1, delay: 2s, lag: 2s}"), 16, []string{"faults[0].lag: 2s reaches back before the stream's start, 1s before the failover (allowed: a lag of at most 1s)"}},
		{"failover delay past the end", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 65s, kind: failover, node: 1, delay: 10s}"), 16, []string{"faults[0].delay: 10s from 1m5s ends at 1m15s, after the stream's end (allowed: at most 5s"}},
		{"failover without delay", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: failover, node: 1}"), 16, []string{`faults[0]: kind failover needs key "delay" (allowed: delay: how long until its replica answers, a duration)`}},
		{"failover with for", tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults:", "  - {at: 30s, kind: failover, node: 1, delay: 1s, for: 1s}"), 16, []string{"faults[0].for: kind failover does not take for (allowed: node, delay, lag)"}},
		{"node beyond one node", tplus("faults:", "  - {at: 30s, kind: node-loss, node: 1}", "cluster: {key_capacity: 1e4}"), 15, []string{"faults[0].node: 1 is out of range (allowed: 0..0, as cluster.nodes is 1)"}},

		// Audiences.
		{"audience and events", awith(3, "  events: 5", "  audience:"), 4, []string{"workload.audience: events is given too, at line 3 " + oneStream}},
		{"events after audience", awith(7, "        overlap: 30", "  events: 5"), 8, []string{"workload.events: audience is given too, at line 3 " + oneStream}},
		{"phases and audience", awith(3, "  phases: [{duration: 1s, rate: 1}]", "  audience:"), 4, []string{"workload.audience: phases is given too, at line 3 " + oneStream}},
		{"audience and phases", awith(7, "        overlap: 30", "  phases: [{duration: 1s, rate: 1}]"), 8, []string{"workload.phases: audience is given too, at line 3 " + oneStream}},
		{"keys with audience", awith(2, "workload:", "  keys: 5"), 3, []string{"workload.keys: an audience has one key, the video " + notAudience + "keys, or give events or phases instead of audience)"}},
		{"distribution with audience", awith(2, "workload:", "  distribution: uniform"), 3, []string{"workload.distribution: an audience has one key, the video, so no distribution of keys " + notAudience + "distribution, or give events"}},
		{"s with audience", awith(2, "workload:", "  s: 1"), 3, []string{"workload.s: an audience has one key, the video, so no Zipf exponent of keys " + notAudience + "s, or give events"}},
		{"scramble with audience", awith(2, "workload:", "  scramble: true"), 3, []string{"workload.scramble: an audience's viewer ids are always scrambled " + notAudience + "scramble, or give events"}},
		{"rate after audience", awith(7, "        overlap: 30", "  rate: 5"), 8, []string{"workload.rate: an audience's views are counted by day, not at a rate " + notAudience + "rate, or give events or file instead of audience)"}},
		{"arrivals with audience", awith(2, "workload:", "  arrivals: poisson"), 3, []string{"workload.arrivals: " + timedOnly + "arrivals, or give phases instead of audience)"}},
		{"reads with audience", awith(7, "        overlap: 30", "  reads: 5"), 8, []string{"workload.reads: " + timedOnly + "reads, or give phases instead of audience)"}},
		{"resend with audience", awith(2, "workload:", "  resend: 0.1"), 3, []string{"workload.resend: " + timedOnly + "resend, or give phases instead of audience)"}},
		{"resend delay with audience", awith(2, "workload:", "  resend_delay: 1s"), 3, []string{"workload.resend_delay: " + timedOnly + "resend_delay, or give phases instead of audience)"}},
		{"first refused key with audience", awith(2, "workload:", "  scramble: true", "  keys: 1", "  reads: 1"), 3, []string{"workload.scramble: an audience's viewer ids are always scrambled"}},
		{"faults with audience", aplus("faults: [{at: 1s, kind: app-crash, server: 0}]"), 11, []string{"faults: faults need a timed stream (allowed: workload phases instead of events or audience, or no faults)"}},
		{"audience null", acut(3, 7, "  audience:"), 3, []string{`workload.audience: missing required key "days"`}},
		{"audience scalar", acut(3, 7, "  audience: 40e6"), 3, []string{"workload.audience: 40e6 is not a mapping (allowed: a mapping with keys days, views, views_max, views_s)"}},
		{"audience unknown key", acut(3, 7, "  audience: {days: [{viewers: 1}], viewer: 1}"), 3, []string{`workload.audience: unknown key "viewer" (allowed: days, views, views_max, views_s)`}},
		{"audience anchored", awith(3, "  audience: &a"), 3, []string{"workload.audience: anchors and aliases are not allowed"}},
		{"views with views_max", acut(3, 7, "  audience: {days: [{viewers: 1}], views: 2, views_max: 10}"), 3, []string{"workload.audience.views_max: views is given too, at line 3"}},
		{"views_s without views_max", acut(3, 7, "  audience: {days: [{viewers: 1}], views_s: 1.2}"), 3, []string{"workload.audience.views_s: needs views_max"}},
		{"views_max 1", acut(3, 7, "  audience: {days: [{viewers: 1}], views_max: 1}"), 3, []string{"workload.audience.views_max: 1 is out of range (allowed: 2..65536"}},
		{"views_s 0", acut(3, 7, "  audience: {days: [{viewers: 1}], views_max: 9, views_s: 0}"), 3, []string{"workload.audience.views_s: "}},
		{"days null", acut(4, 7, "    days:"), 4, []string{"workload.audience.days: at least one day is required (allowed: a list of 1..366 mappings with keys viewers, overlap)"}},
		{"days empty", acut(4, 7, "    days: []"), 4, []string{"workload.audience.days: at least one day is required"}},
		{"days mapping", acut(5, 7, "      monday: {viewers: 1}"), 5, []string{"workload.audience.days: a mapping is not a list (allowed: a list of mappings with keys viewers, overlap)"}},
		{"day scalar", awith(5, "      - 40"), 5, []string{"workload.audience.days[0]: 40 is not a mapping (allowed: a mapping with keys viewers, overlap)"}},
		{"day unknown key", awith(5, "      - viewer: 40"), 5, []string{`workload.audience.days[0]: unknown key "viewer" (allowed: viewers, overlap)`}},
		{"day missing viewers", acut(6, 7, "      - overlap: 1"), 6, []string{`workload.audience.days[1]: missing required key "viewers"`}},
		{"day null", acut(6, 7, "      - ~"), 6, []string{`workload.audience.days[1]: missing required key "viewers"`}},
		{"too many days", acut(4, 7, append([]string{"    days:"}, manyDays(367)...)...), 371, []string{"workload.audience.days: more than 366 days (allowed: 1..366 days)"}},
		{"viewers negative", awith(5, "      - viewers: -1"), 5, []string{"workload.audience.days[0].viewers: -1 is out of range (allowed: 0..1e10)"}},
		{"viewers too many", awith(5, "      - viewers: 10_000_000_001"), 5, []string{"workload.audience.days[0].viewers: 10_000_000_001 is out of range (allowed: 0..1e10)"}},
		{"viewers fraction", awith(6, "      - viewers: 38.5"), 6, []string{"workload.audience.days[1].viewers: 38.5 is not an integer (allowed: 0..1e10"}},
		{"viewers string", awith(6, "      - viewers: 38M"), 6, []string{`workload.audience.days[1].viewers: "38M" is not an integer (allowed: 0..1e10`}},
		{"viewers null", awith(6, "      - viewers:"), 6, []string{"workload.audience.days[1].viewers: missing value (allowed: 0..1e10"}},
		{"overlap negative", awith(7, "        overlap: -1"), 7, []string{"workload.audience.days[1].overlap: -1 is out of range (allowed: 0..1e10)"}},
		{"overlap on the first day", awith(5, "      - {viewers: 40, overlap: 1}"), 5, []string{"workload.audience.days[0].overlap: 1 on the first day (allowed: 0, as no day comes before it)"}},
		{"overlap above the day's viewers", awith(7, "        overlap: 39"), 7, []string{"workload.audience.days[1].overlap: 39 is more than the day's 38 viewers (allowed: 0..38, at most the day's viewers and the day before's)"}},
		{"overlap above the day before's", acut(5, 7, "      - viewers: 10", "      - viewers: 38", "        overlap: 11"), 7, []string{"workload.audience.days[1].overlap: 11 is more than the 10 viewers of the day before, at line 5 (allowed: 0..10, at most the day's viewers and the day before's)"}},
		{"overlap before viewers", acut(6, 7, "      - overlap: 39", "        viewers: 38"), 6, []string{"workload.audience.days[1].overlap: 39 is more than the day's 38 viewers"}},
		{"overlap on a third day", awith(7, "        overlap: 30", "      - {viewers: 50, overlap: 40}"), 8, []string{"workload.audience.days[2].overlap: 40 is more than the 38 viewers of the day before, at line 6 (allowed: 0..38"}},
		{"no viewer", acut(5, 7, "      - viewers: 0", "      - {viewers: 0}"), 4, []string{"workload.audience.days: no day has a viewer (allowed: at least one day with viewers above 0)"}},
		{"too many views", acut(5, 7, "      - viewers: 1e10", "      - viewers: 1"), 3, []string{"workload.audience: the days hold 10000000001 viewers × views 1 = 10000000001 views, more than 1e10 (allowed: at most 1e10 views in all; fewer viewers or views)"}},
		{"too many views a viewer", acut(5, 7, "      - viewers: 1_000_000", "    views: 65_536"), 3, []string{"workload.audience: the days hold 1000000 viewers × views 65536 = 65536000000 views, more than 1e10"}},
		{"views zero", awith(7, "        overlap: 30", "    views: 0"), 8, []string{"workload.audience.views: 0 is out of range (allowed: 1..65536)"}},
		{"views too many", awith(7, "        overlap: 30", "    views: 65537"), 8, []string{"workload.audience.views: 65537 is out of range (allowed: 1..65536"}},
		{"views fraction", awith(7, "        overlap: 30", "    views: 1.5"), 8, []string{"workload.audience.views: 1.5 is not an integer (allowed: 1..65536"}},

		// Profiles.
		{"profile then workload", pwith(4, "workload: {events: 1, keys: 1}", "strategies:"), 4, []string{"workload: profile is given too, at line 2 (allowed: workload or profile, only one)"}},
		{"workload then profile", plus("profile: {max: 10}"), 9, []string{"profile: workload is given too, at line 3 (allowed: workload or profile, only one)"}},
		{"questions with profile", pplus("questions: {top: 10}"), 7, []string{"questions: a profile asks every design for its estimate at each cardinality, not questions (allowed: remove questions, or give workload instead of profile at line 2)"}},
		{"questions before profile", pwith(2, "questions: {top: 1}", "profile:"), 2, []string{"questions: a profile asks every design", "(allowed: remove questions, or give workload instead of profile at line 3)"}},
		{"cluster with profile", pplus("cluster: {key_capacity: 1}"), 7, []string{"cluster: a profile runs the designs in memory, with no store cluster (allowed: remove cluster, or give workload instead of profile at line 2)"}},
		{"faults with profile", pplus("faults: []"), 7, []string{"faults: faults need a timed stream, and a profile has no stream (allowed: remove faults, or give workload instead of profile at line 2)"}},
		{"first refused key with profile", pplus("cluster: {key_capacity: 1}", "questions: {top: 1}"), 7, []string{"cluster: a profile runs the designs in memory"}},
		{"profile scalar", edit(profile, 2, 3, "profile: 1e6"), 2, []string{"profile: 1e6 is not a mapping (allowed: a mapping with keys " + profileKeys + ")"}},
		{"profile list", edit(profile, 2, 3, "profile: [1, 1e6]"), 2, []string{"profile: a list is not a mapping"}},
		{"profile unknown key", pwith(3, "  maximum: 1e6"), 3, []string{`profile: unknown key "maximum" (allowed: ` + profileKeys + ")"}},
		{"profile repeated key", pwith(3, "  max: 1e6", "  max: 1e7"), 4, []string{`profile: key "max" given twice (first at line 3)`}},
		{"profile min zero", pwith(3, "  min: 0"), 3, []string{"profile.min: 0 is out of range (allowed: a number from 1 to 1e9)"}},
		{"profile min string", pwith(3, "  min: one"), 3, []string{`profile.min: "one" is not a number (allowed: a number from 1 to 1e9)`}},
		{"profile min null", pwith(3, "  min:"), 3, []string{"profile.min: missing value (allowed: a number from 1 to 1e9"}},
		{"profile max too big", pwith(3, "  max: 2e9"), 3, []string{"profile.max: 2e9 is out of range (allowed: a number from 1 to 1e9)"}},
		{"profile max inf", pwith(3, "  max: .inf"), 3, []string{"profile.max: .inf is out of range"}},
		{"profile max below min", pwith(3, "  max: 100", "  min: 1000"), 3, []string{"profile.max: 100 is below min, 1000 at line 4 (allowed: 1000..1e9)"}},
		{"profile min above the default max", pwith(3, "  min: 2e6"), 3, []string{"profile.min: 2e6 is above max, 1e6 when not given (allowed: 1..1e6, or give a max from min to 1e9)"}},
		{"points per octave zero", pwith(3, "  points_per_octave: 0"), 3, []string{"profile.points_per_octave: 0 is out of range (allowed: 1..64)"}},
		{"points per octave too many", pwith(3, "  points_per_octave: 65"), 3, []string{"profile.points_per_octave: 65 is out of range (allowed: 1..64"}},
		{"points per octave fraction", pwith(3, "  points_per_octave: 2.5"), 3, []string{"profile.points_per_octave: 2.5 is not an integer (allowed: 1..64"}},
		{"trials zero", pwith(3, "  trials: 0"), 3, []string{"profile.trials: 0 is out of range (allowed: 1..100000)"}},
		{"trials too many", pwith(3, "  trials: 100_001"), 3, []string{"profile.trials: 100_001 is out of range (allowed: 1..100000"}},
		{"profile without strategies", doc("name: t", "profile:"), 1, []string{`missing required key "strategies"`}},

		// Steps.
		{"workload beside steps", splus("workload: {events: 1, keys: 1}"), 13, []string{"workload: belongs in a step, as the file has steps (line 2) (allowed: workload in each entry of steps, or no steps)"}},
		{"strategies before steps", swith(1, "name: t", "strategies: []"), 2, []string{"strategies: belongs in a step, as the file has steps (line 3) (allowed: strategies in each entry of steps, or no steps)"}},
		{"profile beside steps", splus("profile:"), 13, []string{"profile: belongs in a step", "(allowed: profile in each entry of steps"}},
		{"questions beside steps", splus("questions: {top: 1}"), 13, []string{"questions: belongs in a step", "(allowed: questions in each entry of steps"}},
		{"cluster beside steps", splus("cluster: {key_capacity: 1}"), 13, []string{"cluster: belongs in a step", "(allowed: cluster in each entry of steps"}},
		{"faults beside steps", splus("faults: []"), 13, []string{"faults: belongs in a step", "(allowed: faults in each entry of steps"}},
		{"steps null", doc("name: t", "steps:"), 2, []string{"steps: at least one step is required (allowed: a list of 1..20 mappings with keys " + stepKeys + ")"}},
		{"steps empty", doc("name: t", "steps: []"), 2, []string{"steps: at least one step is required"}},
		{"steps mapping", doc("name: t", "steps:", "  a: {}"), 3, []string{"steps: a mapping is not a list (allowed: a list of mappings with keys " + stepKeys + ")"}},
		{"step scalar", doc("name: t", "steps: [a]"), 2, []string{`steps[0]: "a" is not a mapping (allowed: a mapping with keys ` + stepKeys + ")"}},
		{"steps repeated", splus("steps: []"), 13, []string{`key "steps" given twice (first at line 2)`}},
		{"too many steps", doc(append([]string{"name: t", "steps:"}, manySteps(21)...)...), 23, []string{"steps: more than 20 steps (allowed: 1..20 steps)"}},
		{"step unknown key", swith(4, "    workloads: {events: 10, keys: 1}"), 4, []string{`steps[0]: unknown key "workloads" (allowed: ` + stepKeys + ")"}},
		{"seed in a step", swith(4, "    seed: 2"), 4, []string{`steps[0]: unknown key "seed" (allowed: ` + stepKeys + ")"}},
		{"step without a name", swith(3, "  - title: a"), 3, []string{`steps[0]: missing required key "name"`}},
		{"step null", scut(3, 7, "  - ~"), 3, []string{`steps[0]: missing required key "name"`}},
		{"step name", swith(3, "  - name: Step 1"), 3, []string{`steps[0].name: "Step 1" is not allowed (allowed: lower-case letters, digits and '-'`}},
		{"step name twice", swith(8, "  - name: a"), 8, []string{`steps[1]: name "a" used twice (first at line 3; allowed: a name unique among the steps)`}},
		{"step title two lines", swith(3, "  - name: a", `    title: "one\ntwo"`), 4, []string{"steps[0].title: more than one line (allowed: one line of text; use description for more)"}},
		{"step title number", swith(3, "  - name: a", "    title: 2"), 4, []string{"steps[0].title: 2 is not a string (allowed: one line of text"}},
		{"step description list", swith(3, "  - name: a", "    description: [a]"), 4, []string{"steps[0].description: a list is not a string (allowed: text)"}},
		{"step without workload or profile", swith(9), 8, []string{`steps[1]: missing required key "workload" or "profile" (allowed: workload, the stream to simulate; profile, seeded trials at cardinalities on a log grid)`}},
		{"step with workload and profile", swith(9, "    profile: {max: 100}", "    workload: {events: 1, keys: 1}"), 10, []string{"steps[1].workload: profile is given too, at line 9 (allowed: workload or profile, only one)"}},
		{"step with profile and questions", swith(9, "    profile: {max: 100}", "    questions: {top: 1}"), 10, []string{"steps[1].questions: a profile asks every design for its estimate at each cardinality, not questions (allowed: remove questions, or give workload instead of profile at line 9)"}},
		{"step without strategies", scut(10, 12), 8, []string{`steps[1]: missing required key "strategies"`}},
		{"step with no strategy", scut(10, 12, "    strategies: []"), 10, []string{"steps[1].strategies: at least one strategy is required"}},
		{"strategy name in two steps", swith(11, "      - name: x"), 11, []string{`steps[1].strategies[0]: name "x" used in step "a" at line 6 (allowed: a name unique in the file, across all steps)`}},
		{"strategy name before the step's name", scut(8, 12, "  - strategies: [{name: x, type: hll}]", "    name: b", "    profile:"), 8, []string{`steps[1].strategies[0]: name "x" used in step "a" at line 6`}},
		{"strategy name twice in a step", splus("      - name: y", "        type: exact"), 13, []string{`steps[1].strategies[1]: name "y" used twice (first at line 11; allowed: a name unique in the file)`}},
		{"step workload events", swith(4, "    workload: {events: 0, keys: 1}"), 4, []string{"steps[0].workload.events: 0 is out of range (allowed: 1..1e10)"}},
		{"step workload without a stream", swith(4, "    workload: {keys: 1}"), 4, []string{"steps[0].workload needs events (a count stream), phases (a timed stream), audience (viewers over days), scores (a leaderboard), ratings (items rated on a star scale), nodes (a split stream), trending (phrases over time with planted bursts), file (a recorded log) or posts (posts liked over time)"}},
		{"step profile", swith(9, "    profile: {max: 0}"), 9, []string{"steps[1].profile.max: 0 is out of range"}},
		{"step audience", swith(4, "    workload: {keys: 1, audience: {days: [{viewers: 1}]}}"), 4, []string{"steps[0].workload.keys: an audience has one key, the video"}},

		// Faults in steps, checked against the step.
		{"step faults on a count stream", swith(4, "    workload: {events: 10, keys: 1}", "    faults: [{at: 1s, kind: app-crash, server: 0}]"), 5, []string{"steps[0].faults: faults need a timed stream (allowed: workload phases instead of events or audience, or no faults)"}},
		{"step fault after its stream", doc(append([]string{"name: t", "steps:"}, timedStep("a", "x", "    faults: [{at: 10s, kind: app-crash, server: 0}]")...)...), 5, []string{"steps[0].faults[0].at: 10s is not within the stream (allowed: a time before 10s, the phases' total duration)"}},
		{"step faults out of order", doc(append([]string{"name: t", "steps:"}, timedStep("a", "x", "    faults:", "      - {at: 2s, kind: app-crash, server: 0}", "      - {at: 1s, kind: app-crash, server: 0}")...)...), 7, []string{"steps[0].faults[1].at: 1s is before 2s of steps[0].faults[0] at line 6 (allowed: faults in time order)"}},
		{"step fault against app servers given after the steps", doc(append(append([]string{"name: t", "steps:"}, timedStep("a", "x", "    faults: [{at: 1s, kind: app-crash, server: 2}]")...), "assumptions: {app_servers: 2}")...), 5, []string{"steps[0].faults[0].server: 2 is out of range (allowed: 0..1, as assumptions.app_servers is 2)"}},
		{"step node loss against its cluster", doc(append([]string{"name: t", "steps:"}, timedStep("a", "x", "    cluster: {key_capacity: 1, nodes: 2}", "    faults: [{at: 1s, kind: node-loss, node: 2}]")...)...), 6, []string{"steps[0].faults[0].node: 2 is out of range (allowed: 0..1, as cluster.nodes is 2)"}},
		{"step node loss with another step's cluster", doc(append(append([]string{"name: t", "steps:"}, timedStep("a", "x", "    faults: [{at: 1s, kind: node-loss, node: 0}]")...), timedStep("b", "y", "    cluster: {key_capacity: 1, nodes: 8}")...)...), 5, []string{"steps[0].faults[0].kind: node-loss needs a cluster (allowed: add cluster:, or kind app-crash)"}},
		{"second step's faults", doc(append(append([]string{"name: t", "steps:"}, timedStep("a", "x")...), timedStep("b", "y", "    faults: [{at: 1m, kind: app-crash, server: 0}]")...)...), 8, []string{"steps[1].faults[0].at: 1m0s is not within the stream (allowed: a time before 10s"}},
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
			w := *str(s)
			w.Pos = Pos{}
			return []any{s.Seed, w, s.Questions.Top, s.Title, s.Assumptions.Events, s.Run.Kind()},
				[]any{uint64(1), Stream{Writes: Writes{Events: 1000, Keyspace: Keyspace{Keys: 100, Distribution: "zipf", S: 1, Scramble: true}, Rate: 1e6, Batch: 4096}},
					0, "", 0.0, "stream"}
		}},
		{"underscores", with(4, "  events: 2_000_000_000"), func(s *Scenario) (any, any) { return str(s).Events, int64(2e9) }},
		{"integer-valued float", with(4, "  events: 1e7"), func(s *Scenario) (any, any) { return str(s).Events, int64(1e7) }},
		{"integer-valued float with point", with(4, "  events: 10000000.0"), func(s *Scenario) (any, any) { return str(s).Events, int64(1e7) }},
		{"max events", with(4, "  events: 1e10"), func(s *Scenario) (any, any) { return str(s).Events, int64(1e10) }},
		{"hex", with(5, "  keys: 0x10"), func(s *Scenario) (any, any) { return str(s).Keys, uint64(16) }},
		{"octal 0o", with(5, "  keys: 0o17"), func(s *Scenario) (any, any) { return str(s).Keys, uint64(15) }},
		{"zero", with(5, "  keys: 0x1", "  s: 0"), func(s *Scenario) (any, any) { return str(s).S, 0.0 }},
		{"max seed", plus("seed: 18446744073709551615"), func(s *Scenario) (any, any) { return s.Seed, uint64(math.MaxUint64) }},
		{"seed zero", plus("seed: 0"), func(s *Scenario) (any, any) { return s.Seed, uint64(0) }},
		{"seed float", plus("seed: 1e3"), func(s *Scenario) (any, any) { return s.Seed, uint64(1000) }},
		{"uniform", with(5, "  keys: 100", "  distribution: uniform", "  scramble: false"), func(s *Scenario) (any, any) {
			return []any{str(s).Distribution, str(s).Scramble}, []any{"uniform", false}
		}},
		{"rate and batch", with(5, "  keys: 100", "  rate: 2.5e5", "  batch: 1048576"), func(s *Scenario) (any, any) {
			return []any{str(s).Rate, str(s).Batch}, []any{2.5e5, 1 << 20}
		}},
		{"int s", with(5, "  keys: 100", "  s: 2"), func(s *Scenario) (any, any) { return str(s).S, 2.0 }},
		{"null questions", plus("questions:"), func(s *Scenario) (any, any) {
			return []any{s.Questions.Top, s.Questions.Pos.Line}, []any{0, 9}
		}},
		{"absent sections point at the document", doc(valid...), func(s *Scenario) (any, any) {
			return s.Questions.Pos, Pos{File: "x.yaml", Line: 2, Col: 1}
		}},
		{"null params", plus("    params:"), func(s *Scenario) (any, any) { return len(s.Strategies[0].Params), 0 }},
		{"tagged str", plus("title: !!str 12"), func(s *Scenario) (any, any) { return s.Title, "12" }},
		{"tagged float", with(5, "  keys: 100", "  s: !!float 1"), func(s *Scenario) (any, any) { return str(s).S, 1.0 }},
		{"title trimmed", plus("title: >", "  one line", ""), func(s *Scenario) (any, any) { return s.Title, "one line" }},
		{"description", plus("description: |", "  two", "  lines", ""), func(s *Scenario) (any, any) { return s.Description, "two\nlines" }},
		{"flow style", "{name: f, workload: {events: 5, keys: 5}, strategies: [{name: a, type: exact}]}\n", func(s *Scenario) (any, any) {
			return []any{s.Name, str(s).Events, s.Strategies[0].Name}, []any{"f", int64(5), "a"}
		}},
		{"explicit document markers", "---\n" + doc(valid...) + "...\n", func(s *Scenario) (any, any) { return s.Name, "t" }},
		{"data fraction 1", plus("assumptions: {data_fraction: 1}"), func(s *Scenario) (any, any) { return s.Assumptions.DataFraction, 1.0 }},
		{"digit name", with(2, "name: 2024-final"), func(s *Scenario) (any, any) { return s.Name, "2024-final" }},

		// Assumptions of hot counters.
		{"hot counter assumptions", plus("assumptions: {peak_rate: 2e5, read_rate: 5000, key_capacity: 10_000, headroom: 0.7, app_servers: 2e2}"), func(s *Scenario) (any, any) {
			a := s.Assumptions
			return []float64{a.PeakRate, a.ReadRate, a.KeyCapacity, a.Headroom, a.AppServers}, []float64{2e5, 5000, 1e4, 0.7, 200}
		}},
		{"headroom 1 and one app server", plus("assumptions: {headroom: 1, app_servers: 1}"), func(s *Scenario) (any, any) {
			return []float64{s.Assumptions.Headroom, s.Assumptions.AppServers}, []float64{1, 1}
		}},
		{"most app servers", plus("assumptions: {app_servers: 1e9}"), func(s *Scenario) (any, any) { return s.Assumptions.AppServers, 1e9 }},

		// Count and timed streams.
		{"count stream", doc(valid...), func(s *Scenario) (any, any) {
			w := str(s)
			return []any{w.Kind(), w.Duration(), w.ExpectedWrites()}, []any{"stream", int64(0), 1000.0}
		}},
		{"timed stream", doc(timed...), func(s *Scenario) (any, any) {
			w := tim(s)
			return []any{w.Kind(), w.Keys, w.Duration(), w.ExpectedWrites(), w.Arrivals, w.Reads, w.Resend, w.ResendDelay, w.Batch, w.Phases},
				[]any{"timed", uint64(100), int64(70e9), 13_250_000.0, "even", 0.0, 0.0, int64(100e6), 4096, []Phase{
					{Name: "ramp", Duration: 10e9, Rate: 50_000, To: 200_000, Pos: Pos{File: "x.yaml", Line: 5, Col: 7}},
					{Duration: 60e9, Rate: 200_000, To: 200_000, Pos: Pos{File: "x.yaml", Line: 9, Col: 7}},
				}}
		}},
		{"timed stream keys", twith(3, "  keys: 100", "  arrivals: poisson", "  reads: 0", "  resend: 0", "  resend_delay: 0", "  distribution: uniform", "  scramble: false", "  batch: 1"), func(s *Scenario) (any, any) {
			w := tim(s)
			return []any{w.Arrivals, w.Reads, w.Resend, w.ResendDelay, w.Distribution, w.Scramble, w.Batch}, []any{"poisson", 0.0, 0.0, int64(0), "uniform", false, 1}
		}},
		{"timed stream reads and resends", twith(3, "  keys: 100", "  reads: 5000", "  resend: 0.5", "  resend_delay: 2s", "  arrivals: even"), func(s *Scenario) (any, any) {
			w := tim(s)
			return []any{w.Reads, w.Resend, w.ResendDelay, w.Arrivals}, []any{5000.0, 0.5, int64(2e9), "even"}
		}},
		{"phases first", doc("name: t", "workload:", "  phases: [{duration: 1s, rate: 7}]", "  keys: 1", "strategies: [{name: a, type: exact}]"), func(s *Scenario) (any, any) {
			return []any{tim(s).ExpectedWrites(), tim(s).Phases[0].Pos}, []any{7.0, Pos{File: "x.yaml", Line: 3, Col: 12}}
		}},
		{"phase without a name, in flow style", tcut(5, 10, "    - {rate: 0, to: 100, duration: 10s}"), func(s *Scenario) (any, any) {
			return []any{tim(s).Phases[0], tim(s).ExpectedWrites()}, []any{Phase{Duration: 10e9, Rate: 0, To: 100, Pos: Pos{File: "x.yaml", Line: 5, Col: 7}}, 500.0}
		}},
		{"phase to zero", tcut(5, 10, "    - {duration: 10s, rate: 100, to: 0}"), func(s *Scenario) (any, any) {
			return []any{tim(s).Phases[0].To, tim(s).ExpectedWrites()}, []any{0.0, 500.0}
		}},
		{"phase with rate 0 among others", twith(9, "    - name: quiet", "      duration: 5s", "      rate: 0", "    - duration: 60"), func(s *Scenario) (any, any) {
			return []any{len(tim(s).Phases), tim(s).Phases[1].Name, tim(s).Duration()}, []any{3, "quiet", int64(75e9)}
		}},
		{"phase name trimmed", twith(5, `    - name: " after the wicket "`), func(s *Scenario) (any, any) { return tim(s).Phases[0].Name, "after the wicket" }},
		{"phase name of 64 characters", twith(5, "    - name: "+strings.Repeat("é", 64)), func(s *Scenario) (any, any) {
			return tim(s).Phases[0].Name, strings.Repeat("é", 64)
		}},
		{"a day of phases", tcut(5, 10, "    - {duration: 86400, rate: 1}"), func(s *Scenario) (any, any) { return tim(s).Duration(), int64(24 * 3600e9) }},
		{"a day in two phases", tcut(5, 10, "    - {duration: 23h, rate: 1}", "    - {duration: 1h, rate: 1}"), func(s *Scenario) (any, any) { return tim(s).Duration(), int64(24 * 3600e9) }},
		{"1000 phases", tcut(4, 10, append([]string{"  phases:"}, manyPhases(1000)...)...), func(s *Scenario) (any, any) {
			return []any{len(tim(s).Phases), tim(s).Duration(), tim(s).Phases[999].Pos.Line}, []any{1000, int64(1000e9), 1004}
		}},
		{"1e10 events exactly", tcut(3, 10, "  keys: 100", "  reads: 500_000", "  phases:", "    - {duration: 10000, rate: 0, to: 1e6}"), func(s *Scenario) (any, any) {
			w := tim(s) // 5e9 writes and 5e9 reads: at the limit, allowed
			return []any{w.ExpectedWrites(), w.Reads * float64(w.Duration()) / 1e9}, []any{5e9, 5e9}
		}},

		// Durations: Go durations and numbers of seconds, in ns.
		{"duration ms", twith(6, "      duration: 250ms"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(250e6) }},
		{"duration m s", twith(6, "      duration: 1m30s"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(90e9) }},
		{"duration fractional hours", twith(6, "      duration: 1.5h"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(5400e9) }},
		{"duration us", twith(6, "      duration: 1µs"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(1000) }},
		{"duration ns", twith(6, "      duration: 1ns"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(1) }},
		{"duration quoted", twith(6, `      duration: "10s"`), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(10e9) }},
		{"duration seconds", twith(6, "      duration: 60"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(60e9) }},
		{"duration fractional seconds", twith(6, "      duration: 0.25"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(250e6) }},
		{"duration rounded to the ns", twith(6, "      duration: 0.1"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(100e6) }},
		{"duration a ns in seconds", twith(6, "      duration: 1e-9"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(1) }},
		{"duration exponent", twith(6, "      duration: 1e1"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(10e9) }},
		{"duration hex seconds", twith(6, "      duration: 0x3c"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(60e9) }},
		{"duration tagged float", twith(6, "      duration: !!float 2"), func(s *Scenario) (any, any) { return tim(s).Phases[0].Duration, int64(2e9) }},

		// The cluster.
		{"no cluster", doc(valid...), func(s *Scenario) (any, any) { return s.Cluster, (*Cluster)(nil) }},
		{"cluster defaults", plus("cluster: {key_capacity: 1e4}"), func(s *Scenario) (any, any) {
			return *s.Cluster, Cluster{Nodes: 1, KeyCapacity: 1e4, Placement: "slots", Pos: Pos{File: "x.yaml", Line: 9, Col: 1}}
		}},
		{"cluster", plus("cluster:", "  nodes: 4096", "  key_capacity: 10_000", "  node_capacity: 50_000"), func(s *Scenario) (any, any) {
			return *s.Cluster, Cluster{Nodes: 4096, KeyCapacity: 1e4, NodeCapacity: 5e4, Placement: "slots", Pos: Pos{File: "x.yaml", Line: 9, Col: 1}}
		}},
		{"cluster placement slots", plus("cluster: {key_capacity: 1, placement: slots}"), func(s *Scenario) (any, any) { return s.Cluster.Placement, "slots" }},
		{"cluster placement modulo", plus("cluster: {key_capacity: 1, placement: modulo, nodes: 8}"), func(s *Scenario) (any, any) {
			return []any{s.Cluster.Placement, s.Cluster.Nodes}, []any{"modulo", 8}
		}},
		{"cluster node capacity zero", plus("cluster: {key_capacity: 1, node_capacity: 0, nodes: 1}"), func(s *Scenario) (any, any) {
			return []any{s.Cluster.NodeCapacity, s.Cluster.Nodes}, []any{0.0, 1}
		}},

		// Faults.
		{"faults null", tplus("faults:"), func(s *Scenario) (any, any) { return s.Faults, []Fault(nil) }},
		{"faults empty", tplus("faults: []"), func(s *Scenario) (any, any) { return s.Faults, []Fault(nil) }},
		{"no faults on a count stream", plus("faults: []"), func(s *Scenario) (any, any) { return s.Faults, []Fault(nil) }},
		{"faults", tplus(
			"assumptions: {app_servers: 200}",              // 14
			"cluster: {key_capacity: 1e4, nodes: 8}",       // 15
			"faults:",                                      // 16
			"  - {at: 0, kind: app-crash, server: 199}",    // 17
			"  - at: 0s",                                   // 18
			"    node: 7",                                  // 19
			"    kind: node-loss",                          // 20
			"  - {kind: app-crash, at: 69.999, server: 0}", // 21
		), func(s *Scenario) (any, any) {
			return s.Faults, []Fault{
				{At: 0, Kind: "app-crash", Server: 199, Target: 199, Pos: Pos{File: "x.yaml", Line: 17, Col: 5}},
				{At: 0, Kind: "node-loss", Node: 7, Target: 7, Pos: Pos{File: "x.yaml", Line: 18, Col: 5}},
				{At: 69_999e6, Kind: "app-crash", Target: 0, Pos: Pos{File: "x.yaml", Line: 21, Col: 5}},
			}
		}},
		{"fault server without app servers", tplus("faults: [{at: 1m9s, kind: app-crash, server: 999_999_999}]"), func(s *Scenario) (any, any) {
			return []any{s.Faults[0].At, s.Faults[0].Target}, []any{int64(69e9), 999_999_999}
		}},

		// Audiences.
		{"audience", doc(audience...), func(s *Scenario) (any, any) {
			w := aud(s)
			return []any{*w, w.Kind(), w.Duration(), w.ExpectedWrites()}, []any{Audience{Batch: 4096, Pos: Pos{File: "x.yaml", Line: 2, Col: 1}, Viewers: Viewers{
				Days:  []AudienceDay{{Viewers: 40, Pos: Pos{File: "x.yaml", Line: 5, Col: 9}}, {Viewers: 38, Overlap: 30, Pos: Pos{File: "x.yaml", Line: 6, Col: 9}}},
				Views: 1,
				Pos:   Pos{File: "x.yaml", Line: 3, Col: 3},
			}}, "audience", int64(0), 78.0}
		}},
		{"audience views and batch", acut(2, 3, "workload:", "  batch: 1", "  audience:", "    views: 3"), func(s *Scenario) (any, any) {
			w := aud(s)
			return []any{w.Batch, w.Viewers.Views, w.ExpectedWrites(), len(w.Viewers.Days)}, []any{1, 3, 234.0, 2}
		}},
		{"audience in flow style, overlap 0 on the first day", acut(2, 7, "workload: {audience: {views: 65536, days: [{overlap: 0, viewers: 2}, {viewers: 0}, {viewers: 5}]}}"), func(s *Scenario) (any, any) {
			a := aud(s).Viewers
			return []any{a.Days, a.Views, aud(s).ExpectedWrites()}, []any{[]AudienceDay{
				{Viewers: 2, Pos: Pos{File: "x.yaml", Line: 2, Col: 44}}, {Viewers: 0, Pos: Pos{File: "x.yaml", Line: 2, Col: 70}}, {Viewers: 5, Pos: Pos{File: "x.yaml", Line: 2, Col: 84}},
			}, 65536, 7.0 * 65536}
		}},
		{"overlap at both limits", acut(5, 7, "      - viewers: 5", "      - viewers: 5", "        overlap: 5", "      - viewers: 9", "        overlap: 5"), func(s *Scenario) (any, any) {
			d := aud(s).Viewers.Days
			return []int64{d[1].Overlap, d[2].Overlap}, []int64{5, 5}
		}},
		{"1e10 views exactly", acut(5, 7, "      - viewers: 5e9", "    views: 2"), func(s *Scenario) (any, any) { return aud(s).ExpectedWrites(), 1e10 }},
		{"1e10 viewers a day", acut(5, 7, "      - viewers: 10_000_000_000"), func(s *Scenario) (any, any) { return aud(s).Viewers.Days[0].Viewers, int64(1e10) }},
		{"366 days", acut(4, 7, append([]string{"    days:"}, manyDays(366)...)...), func(s *Scenario) (any, any) {
			d := aud(s).Viewers.Days
			return []any{len(d), d[365].Pos.Line, aud(s).ExpectedWrites()}, []any{366, 370, 366.0}
		}},
		{"faults empty with an audience", aplus("faults: []"), func(s *Scenario) (any, any) { return s.Faults, []Fault(nil) }},

		// Profiles.
		{"profile defaults", doc("name: t", "profile:", "strategies: [{name: a, type: hll}]"), func(s *Scenario) (any, any) {
			return []any{*prof(s), s.Run.Kind(), s.Questions, s.Steps}, []any{
				Profile{Min: 1, Max: 1e6, PointsPerOctave: 4, Trials: 100, Pos: Pos{File: "x.yaml", Line: 2, Col: 1}}, "profile", Questions{Pos: Pos{File: "x.yaml", Line: 1, Col: 1}}, []*Scenario(nil)}
		}},
		{"profile limits", pwith(3, "  trials: 100_000", "  points_per_octave: 64", "  max: 1e9", "  min: 1e9"), func(s *Scenario) (any, any) {
			return *prof(s), Profile{Min: 1e9, Max: 1e9, PointsPerOctave: 64, Trials: 100_000, Pos: Pos{File: "x.yaml", Line: 2, Col: 1}}
		}},
		{"profile after strategies", doc("name: t", "strategies: [{name: a, type: hll}]", "profile: {min: 10, max: 10, trials: 1, points_per_octave: 1}"), func(s *Scenario) (any, any) {
			return *prof(s), Profile{Min: 10, Max: 10, PointsPerOctave: 1, Trials: 1, Pos: Pos{File: "x.yaml", Line: 3, Col: 1}}
		}},
		{"no profile", doc(valid...), func(s *Scenario) (any, any) { return prof(s), (*Profile)(nil) }},

		// Steps.
		{"steps", splus(
			"title: Two steps",           // 13
			"description: both",          // 14
			"seed: 9",                    // 15
			"assumptions: {keys: 1000}"), // 16
			func(s *Scenario) (any, any) {
				a := Assumptions{Keys: 1000}
				return bare(s), &Scenario{File: "x.yaml", Name: "t", Title: "Two steps", Description: "both", Seed: 9, Assumptions: a, Steps: []*Scenario{
					{
						File: "x.yaml", Name: "t", Title: "Two steps", Seed: 9, Assumptions: a,
						Run: &Stream{Writes: Writes{Events: 10, Keyspace: Keyspace{Keys: 1, Distribution: "zipf", S: 1, Scramble: true}, Rate: 1e6, Batch: 4096},
							Pos: Pos{File: "x.yaml", Line: 4, Col: 5}},
						Questions:  Questions{Pos: Pos{File: "x.yaml", Line: 3, Col: 5}},
						Strategies: []Strategy{{Name: "x", Type: "exact", Pos: Pos{File: "x.yaml", Line: 6, Col: 9}}},
						Step:       "a",
						StepPos:    Pos{File: "x.yaml", Line: 3, Col: 5},
					},
					{
						File: "x.yaml", Name: "t", Title: "Two steps", Seed: 9, Assumptions: a,
						Questions:  Questions{Pos: Pos{File: "x.yaml", Line: 8, Col: 5}},
						Strategies: []Strategy{{Name: "y", Type: "hll", Pos: Pos{File: "x.yaml", Line: 11, Col: 9}}},
						Run:        &Profile{Min: 1, Max: 100, PointsPerOctave: 4, Trials: 100, Pos: Pos{File: "x.yaml", Line: 9, Col: 5}},
						Step:       "b",
						StepPos:    Pos{File: "x.yaml", Line: 8, Col: 5},
					},
				}}
			}},
		{"step title, description and questions", swith(3, "  - name: a", "    title: >", "      the first  ", "    description: |", "      two", "      lines", "    questions: {top: 3}"), func(s *Scenario) (any, any) {
			st := s.Steps[0]
			return []any{st.StepTitle, st.Description, st.Title, s.Description, st.Questions}, []any{"the first", "two\nlines", "", "", Questions{Top: 3, Pos: Pos{File: "x.yaml", Line: 9, Col: 5}}}
		}},
		{"one step", scut(8, 12), func(s *Scenario) (any, any) { return []any{len(s.Steps), s.Steps[0].Step}, []any{1, "a"} }},
		{"20 steps", doc(append([]string{"name: t", "steps:"}, manySteps(20)...)...), func(s *Scenario) (any, any) {
			last := s.Steps[19]
			return []any{len(s.Steps), last.Step, last.StepPos, last.Strategies[0].Name}, []any{20, "s19", Pos{File: "x.yaml", Line: 22, Col: 5}, "x19"}
		}},
		{"steps first, name last", doc(append(append([]string{"steps:"}, timedStep("a", "x", "    faults: [{at: 1s, kind: app-crash, server: 1}]")...), "assumptions: {app_servers: 2}", "seed: 4", "name: last")...), func(s *Scenario) (any, any) {
			st := s.Steps[0]
			return []any{st.Name, st.Seed, st.Assumptions.AppServers, st.Faults[0].Target}, []any{"last", uint64(4), 2.0, 1}
		}},
		{"steps with faults, clusters and an audience", doc(append(append(append([]string{"name: t", "steps:"},
			timedStep("a", "x", "    cluster: {key_capacity: 1, nodes: 2}", "    faults: [{at: 1s, kind: node-loss, node: 1}]")...),
			timedStep("b", "y", "    faults: [{at: 9.5s, kind: app-crash, server: 0}]")...),
			"  - {name: c, workload: {audience: {days: [{viewers: 7}]}}, strategies: [{name: z, type: hll}]}")...), func(s *Scenario) (any, any) {
			a, b, c := s.Steps[0], s.Steps[1], s.Steps[2]
			return []any{a.Cluster.Nodes, a.Faults[0].Kind, b.Cluster == nil, b.Faults[0].At, c.Run.(*Audience).ExpectedWrites(), c.Faults},
				[]any{2, "node-loss", true, int64(9.5e9), 7.0, []Fault(nil)}
		}},
		{"a step's ParamPos", scut(11, 12, "      - name: y", "        type: hll", "        params: {p: 12}"), func(s *Scenario) (any, any) {
			st := s.Steps[1]
			return []any{st.ParamPos(0, "p"), st.ParamPos(0, "dense"), st.ParamPos(1, "p"), s.ParamPos(0, "p")},
				[]any{Pos{File: "x.yaml", Line: 13, Col: 18}, Pos{File: "x.yaml", Line: 11, Col: 9}, Pos{File: "x.yaml"}, Pos{File: "x.yaml"}}
		}},
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
		{"zeta", 0.0001, Pos{File: "p.yaml", Line: 10, Col: 7}},
		{"alpha", int64(10), Pos{File: "p.yaml", Line: 11, Col: 7}},
		{"mid", true, Pos{File: "p.yaml", Line: 12, Col: 7}},
		{"mode", "conservative", Pos{File: "p.yaml", Line: 13, Col: 7}},
		{"quoted", "10", Pos{File: "p.yaml", Line: 14, Col: 7}},
		{"big", 1e6, Pos{File: "p.yaml", Line: 15, Col: 7}},
		{"neg", int64(-3), Pos{File: "p.yaml", Line: 16, Col: 7}},
		{"under", int64(1000), Pos{File: "p.yaml", Line: 17, Col: 7}},
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
		{0, "mode", Pos{File: "p.yaml", Line: 13, Col: 7}},
		{0, "absent", Pos{File: "p.yaml", Line: 7, Col: 5}},
		{1, "zeta", Pos{File: "p.yaml", Line: 18, Col: 5}},
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
	got := *bare(s)
	got.Title, got.Description = "", ""
	run := *str(s)
	run.Pos, got.Run, got.Questions.Pos = Pos{}, &run, Pos{}
	// The expectations are read with their text, parts and lines; then
	// set aside for the comparison of the rest.
	texts := func(es []Expectation) []string {
		var out []string
		for _, e := range es {
			if e.Pos.Line == 0 || e.Metric == "" || e.Op == "" {
				t.Errorf("expectation %q read without its line or parts: %+v", e.Text, e)
			}
			out = append(out, e.Text)
		}
		return out
	}
	if got, want := texts(s.Expect), []string{"events == plan", "kth_true_count >= 69_000", "kth_true_count <= 70_000"}; !slices.Equal(got, want) {
		t.Errorf("truth's expectations %q, want %q", got, want)
	}
	if cm := s.Strategies[1].Expect; len(cm) != 4 || !cm[2].Plan || cm[2].Metric != "max_overestimate" || cm[0].Value != 543_660 {
		t.Errorf("count-min's expectations %+v, want bytes == 543_660 first and max_overestimate <= plan third", cm)
	}
	got.Expect = nil
	got.Strategies = slices.Clone(got.Strategies)
	for i := range got.Strategies {
		texts(got.Strategies[i].Expect)
		got.Strategies[i].Expect = nil
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
		Run: &Stream{Writes: Writes{
			Events:   10_000_000,
			Keyspace: Keyspace{Keys: 1_000_000, Distribution: "zipf", S: 1, Scramble: true},
			Rate:     1e6,
			Batch:    4096,
		}},
		Questions: Questions{Top: 10},
		Strategies: []Strategy{
			{Name: "exact", Type: "exact", Params: []Param{{Key: "shards", Value: int64(4)}}},
			{Name: "count-min", Type: "count-min", Params: []Param{
				{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)},
			}},
			{Name: "space-saving", Type: "space-saving", Params: []Param{{Key: "counters", Value: int64(1000)}}},
			{Name: "misra-gries", Type: "misra-gries", Params: []Param{{Key: "counters", Value: int64(1000)}}},
			{Name: "heavykeeper", Type: "heavykeeper", Params: []Param{
				{Key: "top", Value: int64(10)}, {Key: "width", Value: int64(2000)}, {Key: "depth", Value: int64(5)}, {Key: "decay", Value: 0.9},
			}},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
}

// TestTimedScenario pins a cricket-like timed scenario, with a cluster and
// faults, value by value and position by position.
func TestTimedScenario(t *testing.T) {
	const file = "testdata/cricket-timed.yaml"
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	want := &Scenario{
		File:  file,
		Name:  "cricket-timed",
		Title: "One hot view counter through a ramp, the peak and a wicket",
		Seed:  7,
		Assumptions: Assumptions{
			PeakRate:    200_000,
			ReadRate:    5_000,
			KeyCapacity: 10_000,
			Headroom:    0.7,
			AppServers:  200,
		},
		Run: &Timed{
			Keyspace: Keyspace{Keys: 1, Distribution: "zipf", S: 1, Scramble: true},
			Batch:    8192,
			Pos:      p(15, 1),
			Arrivals: "poisson",
			Phases: []Phase{
				{Name: "ramp", Duration: 10e9, Rate: 50_000, To: 200_000, Pos: p(19, 7)},
				{Name: "peak", Duration: 60e9, Rate: 200_000, To: 200_000, Pos: p(23, 7)},
				{Name: "wicket", Duration: 5e9, Rate: 400_000, To: 400_000, Pos: p(26, 7)},
			},
			Reads:       5000,
			Resend:      0.001,
			ResendDelay: 250e6,
		},
		Questions: Questions{Pos: p(4, 1)},
		Cluster:   &Cluster{Nodes: 8, KeyCapacity: 10_000, Placement: "slots", Pos: p(34, 1)},
		Faults: []Fault{
			{At: 30e9, Kind: "app-crash", Server: 7, Target: 7, Pos: p(39, 5)},
			{At: 50e9, Kind: "node-loss", Node: 2, Target: 2, Pos: p(42, 5)},
		},
		Strategies: []Strategy{
			{Name: "single", Type: "single", Pos: p(47, 5)},
			{Name: "striped", Type: "striped", Params: []Param{{Key: "stripes", Value: int64(32), Pos: p(52, 7)}}, Pos: p(49, 5)},
		},
	}
	if got := bare(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	// 10 s ramping 50,000 → 200,000, 60 s at 200,000, 5 s at 400,000.
	w := tim(s)
	if w.Duration() != 75e9 || w.ExpectedWrites() != 1_250_000+12_000_000+2_000_000 || w.Peak() != 400_000 {
		t.Errorf("got Duration %d, ExpectedWrites %v, Peak %v; want 75e9, 15,250,000, 400,000", w.Duration(), w.ExpectedWrites(), w.Peak())
	}
}

// TestSteppedScenario pins a scenario in two steps, the cricket final's
// hot counter and unique viewers, value by value and position by position.
func TestSteppedScenario(t *testing.T) {
	const file = "testdata/cricket-steps.yaml"
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	const title = "A hot view counter, then unique viewers over two days"
	a := Assumptions{PeakRate: 200_000, KeyCapacity: 10_000, AppServers: 200}
	// Step 1 simulates 5,000 reads a second, which the assumptions do not
	// state: the step's read_rate is that of its stream (figures.go).
	av := a
	av.ReadRate = 5_000
	views := &Scenario{
		File: file, Name: "cricket-steps", Title: title, Seed: 3, Assumptions: av,
		Description: "200,000 views a second on one key.",
		Run: &Timed{
			Keyspace:    Keyspace{Keys: 1, Distribution: "zipf", S: 1, Scramble: true},
			Batch:       4096,
			Pos:         p(19, 5),
			Arrivals:    "poisson",
			Phases:      []Phase{{Name: "peak", Duration: 60e9, Rate: 200_000, To: 200_000, Pos: p(23, 11)}},
			Reads:       5000,
			ResendDelay: 100e6,
		},
		Questions: Questions{Top: 1, Pos: p(27, 5)},
		Cluster:   &Cluster{Nodes: 8, KeyCapacity: 10_000, Placement: "slots", Pos: p(29, 5)},
		Faults:    []Fault{{At: 30.5e9, Kind: "app-crash", Server: 199, Target: 199, Pos: p(33, 9)}},
		Strategies: []Strategy{
			{Name: "single-key", Type: "single-key", Pos: p(37, 9)},
			{Name: "striped-32", Type: "striped", Params: []Param{{Key: "stripes", Value: int64(32), Pos: p(42, 11)}}, Pos: p(39, 9)},
		},
		Step:      "views",
		StepTitle: "step 1: one hot view counter",
		StepPos:   p(15, 5),
	}
	// Step 2's audience states its viewers: its keys are the largest day's.
	aw := a
	aw.Keys = 40_000_000
	viewers := &Scenario{
		File: file, Name: "cricket-steps", Title: title, Seed: 3, Assumptions: aw,
		Run: &Audience{
			Batch: 65_536,
			Pos:   p(46, 5),
			Viewers: Viewers{
				Days: []AudienceDay{
					{Viewers: 40_000_000, Pos: p(50, 13)},
					{Viewers: 38_000_000, Overlap: 30_000_000, Pos: p(51, 13)},
				},
				Views: 1,
				Pos:   p(48, 7),
			},
		},
		Questions: Questions{Pos: p(44, 5)},
		Strategies: []Strategy{
			{Name: "exact-set", Type: "exact-distinct", Pos: p(54, 9)},
			{Name: "hll-p14", Type: "hll", Params: []Param{{Key: "p", Value: int64(14), Pos: p(59, 11)}}, Pos: p(56, 9)},
		},
		Step:      "viewers",
		StepTitle: "step 2: unique viewers over two days",
		StepPos:   p(44, 5),
	}
	want := &Scenario{
		File: file, Name: "cricket-steps", Title: title, Seed: 3, Assumptions: a,
		Description: "The match in two steps.",
		Steps:       []*Scenario{views, viewers},
	}
	if got := bare(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
		for i, st := range got.Steps {
			if i < len(want.Steps) && !reflect.DeepEqual(st, want.Steps[i]) {
				t.Errorf("step %d: got\n%+v\nwant\n%+v", i, st, want.Steps[i])
			}
		}
	}
	// Step 1: 60 s at 200,000 a second. Step 2: 40 M + 38 M views, one
	// each; the union of the days is 48 M viewers, which sim works out.
	if w := tim(s.Steps[0]); w == nil || w.Duration() != 60e9 || w.ExpectedWrites() != 12e6 {
		t.Errorf("step 1: got %+v, want a timed stream of 60e9 ns with 12e6 writes", s.Steps[0].Run)
	}
	if w := aud(s.Steps[1]); w == nil || w.Duration() != 0 || w.ExpectedWrites() != 78e6 {
		t.Errorf("step 2: got %+v, want an audience of 78e6 views", s.Steps[1].Run)
	}
	if got := s.Steps[1].ParamPos(1, "p"); got != p(59, 11) {
		t.Errorf("step 2: ParamPos(1, \"p\") = %v, want %v", got, p(59, 11))
	}
}

// TestProfileScenario pins an accuracy profile, value by value and
// position by position.
func TestProfileScenario(t *testing.T) {
	const file = "testdata/hll-profile.yaml"
	s, err := Load(file)
	if err != nil {
		t.Fatal(err)
	}
	p := func(line, col int) Pos { return Pos{File: file, Line: line, Col: col} }
	hll := func(name string, precision int64, line int) Strategy {
		return Strategy{Name: name, Type: "hll", Params: []Param{{Key: "p", Value: precision, Pos: p(line+2, 14)}}, Pos: p(line, 5)}
	}
	want := &Scenario{
		File:      file,
		Name:      "hll-profile",
		Title:     "HyperLogLog error against cardinality at four precisions",
		Seed:      1,
		Questions: Questions{Pos: p(3, 1)},
		Strategies: []Strategy{
			hll("hll-p10", 10, 12),
			hll("hll-p12", 12, 15),
			hll("hll-p14", 14, 18),
			hll("hll-p16", 16, 21),
		},
		Run: &Profile{Min: 1, Max: 1e6, PointsPerOctave: 4, Trials: 200, Pos: p(6, 1)},
	}
	if got := bare(s); !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if got := s.ParamPos(3, "p"); got != p(23, 14) {
		t.Errorf("ParamPos(3, \"p\") = %v, want %v", got, p(23, 14))
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
			// A list entry's position is that of its first key, or of the
			// "{" of a flow mapping.
			entry := func(p Pos, keys []string) {
				t.Helper()
				if p.Line < 1 || p.Line > len(lines) || p.Col < 1 || p.Col > len(lines[p.Line-1]) {
					t.Errorf("position %v is outside the file", p)
					return
				}
				rest := lines[p.Line-1][p.Col-1:]
				for _, k := range keys {
					if strings.HasPrefix(rest, k+":") {
						return
					}
				}
				if !strings.HasPrefix(rest, "{") {
					t.Errorf("position %v does not point at an entry with keys %v", p, keys)
				}
			}
			// run checks the positions of a scenario without steps, or of
			// one step.
			run := func(s *Scenario) {
				t.Helper()
				if prof(s) != nil {
					at(s.Run.Where(), "profile")
				} else {
					at(s.Run.Where(), "workload")
				}
				if a := aud(s); a != nil {
					at(a.Viewers.Pos, "audience")
					for _, d := range a.Viewers.Days {
						entry(d.Pos, keysOf[AudienceDay]())
					}
				}
				if s.Cluster != nil {
					at(s.Cluster.Pos, "cluster")
				}
				if w := tim(s); w != nil {
					for _, ph := range w.Phases {
						entry(ph.Pos, keysOf[Phase]())
					}
				}
				for _, f := range s.Faults {
					entry(f.Pos, keysOf[Fault]())
				}
				for _, st := range s.Strategies {
					at(st.Pos, "name")
					for _, p := range st.Params {
						at(p.Pos, p.Key)
					}
				}
			}
			if len(s.Steps) == 0 {
				run(s)
			}
			for _, st := range s.Steps {
				if st.Name != name || st.Step == "" {
					t.Errorf("got a step named %q of %q, want a step of %q", st.Step, st.Name, name)
				}
				entry(st.StepPos, keysOf[stepSpec]())
				run(st)
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
		{Pos{File: "a.yaml", Line: 3, Col: 7}, "a.yaml:3:7"},
		{Pos{File: "a.yaml", Line: 3, Col: 0}, "a.yaml:3"},
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
	fixtures, err := filepath.Glob("testdata/*.yaml")
	if err != nil || len(fixtures) == 0 {
		f.Fatalf("no fixtures in testdata (%v)", err)
	}
	for _, name := range fixtures {
		src, err := os.ReadFile(name)
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
		doc(timed...),
		tplus("cluster: {key_capacity: 1e4, nodes: 8}", "faults: [{at: 1s, kind: node-loss, node: 7}, {at: 1s, kind: app-crash, server: 0}]"),
		tcut(5, 10, "    - {duration: 1e-9, rate: 1e18}", "    - {duration: 23h59m59.999999999s, rate: 0, to: 1}"),
		twith(3, "  keys: 1", "  reads: 1", "  resend: 0.999", "  resend_delay: 24h", "  arrivals: poisson"),
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
		if a := s.Assumptions; !(a.Headroom >= 0 && a.Headroom <= 1) || a.AppServers != math.Trunc(a.AppServers) || a.AppServers < 0 {
			t.Fatalf("accepted assumptions %+v", a)
		}
		if !validName(s.Name) || s.Step != "" || s.StepTitle != "" || s.StepPos != (Pos{}) {
			t.Fatalf("accepted name %q, step %q, step title %q at %v", s.Name, s.Step, s.StepTitle, s.StepPos)
		}
		seen := map[string]bool{} // strategy names, across steps
		if len(s.Steps) == 0 {
			checkAccepted(t, s, seen)
			return
		}
		if len(s.Steps) > 20 || s.Run != nil || s.Questions != (Questions{}) ||
			s.Cluster != nil || s.Faults != nil || s.Strategies != nil {
			t.Fatalf("accepted %d steps beside sections %+v", len(s.Steps), s)
		}
		steps := map[string]bool{}
		for _, st := range s.Steps {
			// A step's figures are the file's, but those it states itself
			// and linked ones the file leaves to the simulation.
			for _, f := range schemaOf(reflect.TypeFor[Assumptions]()).fields {
				got := reflect.ValueOf(st.Assumptions).FieldByIndex(f.Index).Float()
				file := reflect.ValueOf(s.Assumptions).FieldByIndex(f.Index).Float()
				_, own := st.keys[st.stepPath+".assumptions."+f.Key]
				if got != file && !own && file != 0 {
					t.Fatalf("step %s: assumption %s is %v, the file's %v", st.Step, f.Key, got, file)
				}
			}
			if st.File != s.File || st.Name != s.Name || st.Title != s.Title || st.Seed != s.Seed ||
				!validName(st.Step) || steps[st.Step] || strings.ContainsAny(st.StepTitle, "\r\n") || st.StepPos.Line < 1 || st.Steps != nil {
				t.Fatalf("accepted step %+v of %+v", st, s)
			}
			steps[st.Step] = true
			checkAccepted(t, st, seen)
		}
	})
}

// checkAccepted checks that s, a scenario without steps or one step, keeps
// the documented ranges, and that its strategy names are not in seen (which
// it extends).
// acceptedRun is a kind of run that checks, for FuzzParse, what the
// loader accepted of it (ratings_test.go).
type acceptedRun interface {
	checkAccepted(s *Scenario) error
}

func checkAccepted(t *testing.T, s *Scenario, seen map[string]bool) {
	t.Helper()
	if len(s.Strategies) == 0 || s.Run == nil {
		t.Fatalf("accepted %d strategies and run %v", len(s.Strategies), s.Run)
	}
	keys := func(k Keyspace, batch int) bool {
		return k.Keys >= 1 && k.Keys <= 1e9 && batch >= 1 && batch <= 1<<20 && k.S >= 0 && !math.IsInf(k.S, 0) &&
			(k.Distribution == "zipf" || k.Distribution == "uniform")
	}
	checkTimed := func(w *Timed) {
		if !keys(w.Keyspace, w.Batch) || (w.Arrivals != "even" && w.Arrivals != "poisson") || w.ResendDelay < 0 || w.ResendDelay > maxDuration ||
			len(w.Phases) < 1 || len(w.Phases) > 1000 || w.Duration() > maxDuration ||
			!(w.ExpectedWrites() > 0) || !(w.ExpectedWrites()+w.ExpectedReads() <= maxTimedEvents) ||
			!(w.Reads >= 0) || !(w.Resend >= 0 && w.Resend < 1) {
			t.Fatalf("accepted timed stream %+v", w)
		}
		for _, p := range w.Phases {
			if p.Duration < 1 || !(p.Rate >= 0) || !(p.To >= 0) || p.Pos.Line < 1 {
				t.Fatalf("accepted phase %+v", p)
			}
		}
	}
	switch w := s.Run.(type) {
	case *Profile:
		p := *w
		if s.Questions.Top != 0 || s.Cluster != nil || s.Faults != nil ||
			!(p.Min >= 1 && p.Min <= p.Max && p.Max <= 1e9) ||
			p.PointsPerOctave < 1 || p.PointsPerOctave > 64 || p.Trials < 1 || p.Trials > 100_000 || p.Pos.Line < 1 {
			t.Fatalf("accepted profile %+v beside %+v", p, s)
		}
	case *Audience:
		a := w.Viewers
		if w.Batch < 1 || w.Batch > 1<<20 || len(a.Days) < 1 || len(a.Days) > 366 ||
			a.ViewsMax == 0 && (a.Views < 1 || a.Views > 1<<16) || a.ViewsMax != 0 && (a.Views != 0 || a.ViewsMax < 2 || a.ViewsMax > 1<<16) ||
			!(w.ExpectedWrites() >= 1 && w.ExpectedWrites() <= maxAudienceViews) || w.Duration() != 0 || len(s.Faults) > 0 {
			t.Fatalf("accepted audience %+v with faults %+v", w, s.Faults)
		}
		for i, d := range a.Days {
			if d.Viewers < 0 || d.Viewers > 1e10 || d.Overlap < 0 || d.Overlap > d.Viewers ||
				i == 0 && d.Overlap != 0 || i > 0 && d.Overlap > a.Days[i-1].Viewers || d.Pos.Line < 1 {
				t.Fatalf("accepted day %d %+v of %+v", i, d, a)
			}
		}
	case *Stream:
		if !keys(w.Keyspace, w.Batch) || w.Events < 1 || w.Events > 1e10 || !(w.Rate > 0) || math.IsInf(w.Rate, 0) || len(s.Faults) > 0 {
			t.Fatalf("accepted count stream %+v with faults %+v", w, s.Faults)
		}
	case *Timed:
		checkTimed(w)
	case *Board:
		checkTimed(&w.Timed)
		l := w.Scores
		if w.Resend != 0 || l.DeltaMin < 1 || l.DeltaMin > l.DeltaMax || l.DeltaMax > 1<<32 || !(l.SetShare >= 0 && l.SetShare <= 1) ||
			l.SetMax < 0 || l.SetMax > 1<<32 || w.Checked < 1 || w.Checked > 1e6 || w.ExpectedWrites()*float64(l.DeltaMax) > 1<<61 || l.Pos.Line < 1 {
			t.Fatalf("accepted board %+v", w)
		}
	default:
		// A kind whose file has no case here checks itself.
		a, ok := w.(acceptedRun)
		if !ok {
			t.Fatalf("accepted a run of type %T", w)
		}
		if err := a.checkAccepted(s); err != nil {
			t.Fatalf("accepted %T %+v: %v", w, w, err)
		}
	}
	c := s.Cluster
	if c != nil && (c.Nodes < 1 || c.Nodes > 4096 || !(c.KeyCapacity > 0) || math.IsInf(c.KeyCapacity, 0) ||
		!(c.NodeCapacity >= 0) || math.IsInf(c.NodeCapacity, 0)) {
		t.Fatalf("accepted cluster %+v", c)
	}
	for i, fl := range s.Faults {
		ok := fl.At >= 0 && fl.At < s.Run.Duration() && (i == 0 || fl.At >= s.Faults[i-1].At) && fl.Target >= 0
		switch fl.Kind {
		case "app-crash":
			ok = ok && (s.Assumptions.AppServers == 0 || float64(fl.Target) < s.Assumptions.AppServers)
		case "node-loss":
			ok = ok && c != nil && fl.Target < c.Nodes
		case "node-down", "node-slow":
			ok = ok && c != nil && fl.Target < c.Nodes && fl.For > 0 && fl.At+fl.For <= s.Run.Duration() &&
				(fl.Kind == "node-down" || fl.Share > 0 && fl.Share < 1)
		case "partition":
			ok = ok && c != nil && fl.For > 0 && fl.At+fl.For <= s.Run.Duration() && len(fl.Servers) > 0 && len(fl.Nodes) > 0
		case "failover":
			ok = ok && c != nil && fl.Target < c.Nodes && fl.Delay > 0 && fl.Lag >= 0 && fl.At+fl.Delay <= s.Run.Duration()
		default:
			ok = false
		}
		if !ok {
			t.Fatalf("accepted fault %d %+v", i, fl)
		}
	}
	if s.Questions.Top < 0 || s.Questions.Top > 10_000 || s.Questions.Pos.Line < 1 {
		t.Fatalf("accepted questions %+v", s.Questions)
	}
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
}

// A run of every built-in scenario leaves out the ones marked on_demand:
// the full search day, which takes minutes.
func TestDefaultBuiltinsLeaveOutOnDemand(t *testing.T) {
	names, err := DefaultBuiltins()
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(names, "search-full-day") || !slices.Contains(names, "search") {
		t.Errorf("default built-ins %v: want search and not search-full-day", names)
	}
	full, err := Builtin("search-full-day")
	if err != nil {
		t.Fatal(err)
	}
	if !full.OnDemand || len(full.Strategies) != 4 || !full.Strategies[3].OnDemand || full.Strategies[3].Name != "exact" {
		t.Errorf("search-full-day: on_demand %v, strategies %+v; want on demand, with exact on demand", full.OnDemand, full.Strategies)
	}
}

// trials and false_alarm: their defaults, their values, their ranges, in a
// file and in a step.
func TestTrials(t *testing.T) {
	const base = "name: t\nworkload: {events: 100, keys: 10}\nstrategies: [{name: e, type: exact}]\n"
	s, err := Parse("t.yaml", []byte(base))
	if err != nil || s.Trials != 1 || s.FalseAlarm != 1e-6 {
		t.Fatalf("defaults: %v, trials %d, false alarm %v; want 1 and 1e-6", err, s.Trials, s.FalseAlarm)
	}
	s, err = Parse("t.yaml", []byte(base+"trials: 50\nfalse_alarm: 0.001\n"))
	if err != nil || s.Trials != 50 || s.FalseAlarm != 0.001 {
		t.Fatalf("given: %v, trials %d, false alarm %v; want 50 and 0.001", err, s.Trials, s.FalseAlarm)
	}
	for _, bad := range []string{"trials: 0\n", "trials: 10001\n", "false_alarm: 0\n", "false_alarm: 0.5\n", "trials: 2.5\n"} {
		if _, err := Parse("t.yaml", []byte(base+bad)); err == nil || !strings.Contains(err.Error(), "t.yaml:4") {
			t.Errorf("%q: got %v, want an error at line 4", bad, err)
		}
	}
}
