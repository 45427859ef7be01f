package scenarios

import (
	"strings"
	"testing"
)

// TestLogAudienceKeys: a log replayed as an audience takes day and only,
// day 24 h unless given; it needs an actor column, and day needs time (a
// log without a time column is one day); its keys are refused with
// another as, and faults with it.
func TestLogAudienceKeys(t *testing.T) {
	head := "name: l\nworkload:\n  file: v.csv\n  key: page\n"
	tail := "strategies:\n  - {name: h, type: hll}\n"
	s, err := Parse("l.yaml", []byte(head+"  as: audience\n  actor: user\n  time: ts\n  day: 1h\n  only: final\n"+tail))
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Run.(*Log); l.Day != 3.6e12 || l.Only != "final" {
		t.Errorf("day %d, only %q", l.Day, l.Only)
	}
	if s, err := Parse("l.yaml", []byte(head+"  as: audience\n  actor_id: uid\n"+tail)); err != nil || s.Run.(*Log).Day != 864e11 {
		t.Errorf("without day: %v", err)
	}
	for _, c := range []struct{ workload, want string }{
		{"  as: audience\n  time: ts\n", "l.yaml:2: workload: as: audience needs the column of who acted (allowed: actor or actor_id)"},
		{"  as: audience\n  actor: user\n  day: 1h\n", "l.yaml:7: workload.day: given without time: a log without a time column is one day"},
		{"  as: audience\n  actor: user\n  time: ts\n  day: 0s\n", "l.yaml:8:"},
		{"  as: count\n  only: final\n", "workload.only: is for as: audience, and this log is replayed as count"},
		{"  as: audience\n  actor: user\n  time: ts\n", "faults"},
	} {
		text := head + c.workload + tail
		if c.want == "faults" {
			text += "faults:\n  - {at: 1s, kind: app-crash, server: 1}\n"
		}
		_, err := Parse("l.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.workload, err, c.want)
		}
	}
}
