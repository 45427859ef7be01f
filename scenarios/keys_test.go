package scenarios

import "testing"

// TestKeysThatNameNothing: a key with no text (`?` alone, `? ` with a value
// on the next line, `""`) or a null one (`~`, `null`), and a list or a
// mapping as a key (`? [a]`, `? {a: 1}`), is refused at its own line at
// every depth, never matched to a field that has no key of its own (the
// run's: `?` once crashed the loader looking up the kind of run of key "").
func TestKeysThatNameNothing(t *testing.T) {
	const empty, null, asKey = "empty key (allowed: a plain name)", "null key", "as a key is not allowed (allowed: a plain name)"
	cases := []struct {
		name string
		yaml string
		line int
		want string
	}{
		{"file of one ?", "?\n", 1, empty},
		{"file of ? and a space", "? \n", 1, empty},
		{"flow file of ?", "{?}\n", 1, empty},
		{"top ? first", doc(append([]string{"?"}, valid...)...), 1, empty},
		{"top ? with a value", plus("? ", ": 3"), 9, empty},
		{"top empty string", plus(`"": 3`), 9, empty},
		{"top ~", plus("~: 3"), 9, null + " ~"},
		{"top null", plus("null: 3"), 9, null + " null"},
		{"top tagged null", plus("!!null x: 3"), 9, null},
		{"top mapping key", plus("? {a: 1}", ": 3"), 9, "a mapping " + asKey},
		{"workload ?", with(5, "  keys: 100", "  ?"), 6, "workload: " + empty},
		{"workload of only ?", cut(3, 5, "workload:", "  ?"), 4, "workload: " + empty},
		{"workload of only a list key", cut(3, 5, "workload:", "  ? [events]", "  : 3"), 4, "workload: a list " + asKey},
		{"workload of only ~", cut(3, 5, "workload: {~: 1}"), 3, "workload: " + null},
		{"strategy entry of ?", with(8, "    type: exact", "  - ?"), 9, "strategies[1]: " + empty},
		{"strategy entry ? beside keys", cut(7, 8, "  - {?: 1, name: a, type: exact}"), 7, "strategies[0]: " + empty},
		{"params ?", plus("    params: {?: 3}"), 9, "strategies[0].params: " + empty},
		{"params ~", plus("    params:", "      ~: 3"), 10, "strategies[0].params: " + null + " ~"},
		{"params list key", plus("    params:", "      ? [width]", "      : 5"), 10, "strategies[0].params: a list " + asKey},
		{"sweep ?", plus("    sweep: {?: [1, 2]}"), 9, "strategies[0].sweep: " + empty},
		{"sweep of one ?", plus("    sweep: {?}"), 9, "strategies[0].sweep: " + empty},
		{"sweep empty string", plus(`    sweep: {"": [1, 2]}`), 9, "strategies[0].sweep: " + empty},
		{"assumptions ?", plus("assumptions: {?: 1}"), 9, "assumptions: " + empty},
		{"questions null", plus("questions:", "  null: 1"), 10, "questions: " + null},
		{"cluster ?", plus("cluster:", "  key_capacity: 1", "  ?"), 11, "cluster: " + empty},
		{"phase ?", twith(6, "      ? "), 6, "workload.phases[0]: " + empty},
		{"profile ?", pwith(3, "  max: 1e6", "  ?"), 4, "profile: " + empty},
		{"step of ?", swith(8, "  - ?"), 8, "steps[1]: " + empty},
		{"step workload ?", swith(4, "    workload: {events: 10, keys: 1, ?: 2}"), 4, "steps[0].workload: " + empty},
		{"step workload of only ?", swith(4, "    workload: {?}"), 4, "steps[0].workload: " + empty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("cases/x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("got a scenario %+v, want an error\n%s", s, c.yaml)
			}
			mustError(t, err, "cases/x.yaml", c.line, c.want)
		})
	}
}
