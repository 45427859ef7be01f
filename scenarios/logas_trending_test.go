package scenarios

import (
	"strings"
	"testing"
)

// TestLogTrending: as: trending takes checkpoint, regions, phrases and the
// phrases to watch, each with its start and region or without; a region
// past regions, regions without actor_id, a phrase watched twice, a log
// without its clock and a trending key on another kind of replay are
// refused at their lines.
func TestLogTrending(t *testing.T) {
	head := "name: l\nworkload:\n  file: x.csv\n  key: phrase\n  time: ts\n  actor_id: region\n  as: trending\n"
	tail := "strategies: [{name: d, type: decay}]\n"
	s, err := Parse("t.yaml", []byte(head+"  checkpoint: 30s\n  regions: 4\n  phrases: 5000\n"+
		"  watch: [{name: A, key: \"phrase #7\", start: 10m, region: 2}, {name: B, key: b}]\n"+tail))
	if err != nil {
		t.Fatal(err)
	}
	l := s.Run.(*Log)
	if l.Checkpoint != 30e9 || l.Regions != 4 || l.Keys != 5000 || len(l.Watch) != 2 {
		t.Fatalf("log %+v", l.LogTrending)
	}
	a, b := l.Watch[0], l.Watch[1]
	if a.Name != "A" || a.Key != "phrase #7" || !a.HasStart || a.Start != 600e9 || a.AllRegions || a.Region != 2 {
		t.Errorf("watch A %+v", a)
	}
	if b.HasStart || !b.AllRegions {
		t.Errorf("watch B %+v: want no start and every region", b)
	}
	s, err = Parse("t.yaml", []byte(head+tail))
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Run.(*Log); l.Checkpoint != 60e9 || l.Regions != 1 || l.Keys != 0 || len(l.Watch) != 0 {
		t.Errorf("defaults %+v", l.LogTrending)
	}
	for _, c := range []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"region", head + "  regions: 2\n  watch:\n    - {name: A, key: a}\n    - {name: B, key: b, region: 2}\n" + tail, 11, "workload.watch[1].region: 2 is not a region of 2 (allowed: 0..1"},
		{"name twice", head + "  watch:\n    - {name: A, key: a}\n    - {name: A, key: b}\n" + tail, 10, "A is watched twice"},
		{"key twice", head + "  watch:\n    - {name: A, key: a}\n    - {name: B, key: a}\n" + tail, 10, `"a" is watched twice`},
		{"no clock", strings.Replace(head, "  time: ts\n", "", 1) + tail, 2, "as: trending needs the log's clock"},
		{"not trending", strings.Replace(head, "trending", "count", 1) + "  phrases: 10\n" + tail, 8, "is for as: trending"},
		{"no name", head + "  watch: [{key: a}]\n" + tail, 8, `missing required key "name"`},
		{"no region column", strings.Replace(head, "  actor_id: region\n", "", 1) + "  regions: 3\n" + tail, 7, "3 regions need the column of each event's region (allowed: actor_id"},
	} {
		_, err := Parse("t.yaml", []byte(c.yaml))
		e, ok := err.(*Error)
		if !ok || e.Pos.Line != c.line || !strings.Contains(e.Msg, c.want) {
			t.Errorf("%s: %v; want line %d and %q", c.name, err, c.line, c.want)
		}
	}
}
