package scenarios

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReferenceMatchesLoader checks the reference against the loader: for
// every mapping of the format, a key the reference does not list is refused
// by the loader, and the keys its message allows are exactly the ones the
// reference lists under that mapping.
func TestReferenceMatchesLoader(t *testing.T) {
	ref := Reference()
	children := func(prefix string) []string {
		var keys []string
		for _, k := range ref {
			rest, ok := strings.CutPrefix(k.Path, prefix)
			if ok && rest != "" && !strings.ContainsAny(rest, ".[") {
				keys = append(keys, rest)
			}
		}
		return keys
	}
	allowedIn := regexp.MustCompile(`unknown key "zzz" \(allowed: (.*)\)$`)
	for _, c := range []struct {
		prefix string // of the mapping's keys in the reference
		yaml   string // a scenario with key zzz in that mapping
	}{
		{"", plus("zzz: 1")},
		{"assumptions.", plus("assumptions: {zzz: 1}")},
		{"workload.", with(4, "  events: 1000", "  zzz: 1")},
		{"workload.phases[].", twith(7, "      rate: 50000", "      zzz: 1")},
		{"workload.audience.", awith(4, "    zzz: 1", "    days:")},
		{"workload.audience.days[].", awith(5, "      - {viewers: 40, zzz: 1}")},
		{"profile.", pwith(3, "  zzz: 1")},
		{"questions.", plus("questions: {zzz: 1}")},
		{"cluster.", plus("cluster: {zzz: 1}")},
		{"faults[].", tplus("faults: [{zzz: 1}]")},
		{"strategies[].", plus("    zzz: 1")},
		{"steps[].", swith(4, "    zzz: 1", "    workload: {events: 10, keys: 1}")},
	} {
		t.Run(c.prefix, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(c.yaml))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want the unknown key refused\n%s", err, c.yaml)
			}
			m := allowedIn.FindStringSubmatch(e.Msg)
			if m == nil {
				t.Fatalf("got %q, want an unknown key zzz", e.Msg)
			}
			loader := strings.Split(m[1], ", ")
			documented := children(c.prefix)
			if c.prefix == "steps[]." { // the reference lists a step's sections on one line
				documented = append(documented[:4], schemaOf(bodyType).keys()...)
			}
			if !slices.Equal(loader, documented) {
				t.Errorf("the loader allows %v, the reference lists %v", loader, documented)
			}
		})
	}
	for _, k := range ref {
		if k.Type == "" || k.Doc == "" || k.Allowed == "" && k.Type != "mapping" && k.Type != "sections" || strings.Contains(k.Path, " ") {
			t.Errorf("reference entry %+v lacks a type, a meaning or what is allowed", k)
		}
	}
}

// TestReferenceDefaults checks that the reference shows the defaults the
// loader applies, and says "required" for the keys without one.
func TestReferenceDefaults(t *testing.T) {
	want := map[string]string{
		"name":                             "required",
		"seed":                             "1",
		"workload.events":                  "required",
		"workload.rate":                    "1e6",
		"workload.batch":                   "4096",
		"workload.resend_delay":            "100ms",
		"workload.phases[].duration":       "required",
		"workload.phases[].to":             "rate: a constant phase",
		"profile.max":                      "1e6",
		"cluster.nodes":                    "1",
		"cluster.key_capacity":             "assumptions.key_capacity",
		"assumptions.peak_rate":            "the peak of workload.phases",
		"strategies":                       "none: required unless goals: is given",
		"workload.audience.days":           "required",
		"workload.audience.views":          "1",
		"workload.audience.days[].overlap": "0",
	}
	got := map[string]string{}
	for _, k := range Reference() {
		got[k.Path] = k.Default
	}
	for path, d := range want {
		if got[path] != d {
			t.Errorf("%s: got default %q, want %q", path, got[path], d)
		}
	}
	// And the loader applies them.
	s, err := Parse("d.yaml", []byte(doc(timed...)))
	if err != nil {
		t.Fatal(err)
	}
	if w := tim(s); w.ResendDelay != 100e6 || w.Batch != 4096 || w.Phases[1].To != w.Phases[1].Rate {
		t.Errorf("got %+v, want the defaults the reference shows", w)
	}
}
