package render

import (
	"strings"
	"testing"
)

// FuzzParse feeds the parser any file: it returns a template or an error,
// never panics; a template that renders against the test step gives a
// page that reads back from its document and compares as unchanged.
func FuzzParse(f *testing.F) {
	f.Add([]byte("---\nscenarios: hot\n---\n" + `{{plan "hot" "striped-32" "utilisation" | pct}}. {{measured "hot" "striped-32" "max_key_ops_per_s" | within "5%" | int}}.`))
	f.Add([]byte("---\nscenarios: hot, cold\n---\n" + `{{formula "hot" "striped-32" "max_key_ops_per_s"}} {{table "hot" "utilisation"}}`))
	f.Add([]byte("---\n# c\nscenarios: a\n---\n{{chart \"hot\" \"key-load\"}}\n"))
	f.Add([]byte("---\nscenarios:\n---\n"))
	f.Add([]byte("---\r\nscenarios: a\r\n---\r\n{{1}}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		tm, err := Parse("fuzz.md", src)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.md:") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if len(tm.Scenarios) == 0 {
			t.Fatal("a template without scenarios")
		}
		// Loops and templates calling templates may take long: only
		// the parser is under test for them.
		for _, slow := range []string{"range", "template", "block", "define", "while"} {
			if strings.Contains(string(src), slow) {
				return
			}
		}
		for _, measured := range []bool{false, true} {
			p, err := Execute(tm, testData(measured), Options{ChartPrefix: "p"})
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.md:") {
					t.Fatalf("error without the file: %v", err)
				}
				continue
			}
			if strings.Contains(p.Text, stampPrefix) || strings.Contains(p.Text, "\n<!-- Written by `countsim render ") {
				continue // a page that writes the stamp's own words reads back otherwise
			}
			doc, err := p.Document("builtin:fuzz", nil)
			if err != nil {
				continue
			}
			text, stamp, ok, err := ReadDocument(doc)
			if !ok || err != nil {
				t.Fatalf("the document does not read back: %v %v\n%q", ok, err, doc)
			}
			if c := Compare(text, stamp, p); len(c) != 0 {
				t.Fatalf("a page compared with itself changed: %+v\n%q", c, doc)
			}
		}
	})
}
