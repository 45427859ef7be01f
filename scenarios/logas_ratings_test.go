package scenarios

import (
	"strings"
	"testing"
)

// TestLogRatingsKeys: a log replayed as ratings takes stars, scale, top,
// few, enough and items, the scale 1..5 unless given; it needs stars and
// refuses delta beside it, an empty scale, and cluster.
func TestLogRatingsKeys(t *testing.T) {
	head := "name: l\nworkload:\n  file: r.csv\n  key: item\n  as: ratings\n"
	tail := "strategies:\n  - {name: w, type: wilson}\n"
	s, err := Parse("l.yaml", []byte(head+"  stars: stars\n  scale: {min: 2, max: 4}\n  top: 3\n  items: 500\n"+tail))
	if err != nil {
		t.Fatal(err)
	}
	l := s.Run.(*Log)
	if lo, hi := l.RatingsScale(); lo != 2 || hi != 4 || l.Top != 3 || l.Few != 5 || l.Enough != 30 || l.Items != 500 {
		t.Errorf("log %+v, scale %d..%d", l.LogRatings, lo, hi)
	}
	s, _ = Parse("l.yaml", []byte(head+"  stars: stars\n"+tail))
	if lo, hi := s.Run.(*Log).RatingsScale(); lo != 1 || hi != 5 || s.Run.(*Log).Items != 0 {
		t.Errorf("default scale %d..%d, items %d", lo, hi, s.Run.(*Log).Items)
	}
	for _, c := range []struct{ workload, want string }{
		{"", "l.yaml:2: workload: as: ratings needs the column of the stars"},
		{"  stars: stars\n  delta: d\n", "workload.delta: given with as: ratings"},
		{"  stars: stars\n  scale: {min: 4, max: 4}\n", "scale 4..4 is empty"},
		{"  stars: stars\n  items: 0\n", "workload.items: 0 is out of range"},
		{"  stars: stars\ncluster: {nodes: 2}\n", "a ratings run keeps its designs in memory"},
	} {
		_, err := Parse("l.yaml", []byte(head+c.workload+tail))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %q", c.workload, err, c.want)
		}
	}
}
