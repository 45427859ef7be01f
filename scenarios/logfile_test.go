package scenarios

import (
	"fmt"
	"path/filepath"
	"testing"
)

// checkAccepted: what FuzzParse may accept of a log.
func (l *Log) checkAccepted(s *Scenario) error {
	if l.File == "" || l.Key == "" || (l.Format != "csv" && l.Format != "ndjson") || !(l.Rate > 0) || l.Tolerance < 0 ||
		l.SkipBad < 0 || l.Batch < 1 || l.Batch > 1<<20 || l.refuses("cluster") != "" && s.Cluster != nil || l.refuses("faults") != "" && s.Faults != nil || l.Pos.Line < 1 {
		return fmt.Errorf("log %+v beside cluster %v, faults %v", l, s.Cluster, s.Faults)
	}
	return nil
}

// TestLogWorkload: file picks the recorded log; its defaults; its path is
// the scenario file's folder's; a cluster and a missing key are refused
// with the line and what is allowed.
func TestLogWorkload(t *testing.T) {
	s, err := Parse(filepath.Join("team", "day.yaml"), []byte(`name: l
workload:
  file: logs/day.csv.gz
  key: phrase
  time: ts
  tolerance: 2s
  skip_bad: 10
strategies:
  - {name: a, type: exact}
`))
	if err != nil {
		t.Fatal(err)
	}
	l, ok := s.Run.(*Log)
	if !ok {
		t.Fatalf("run %T, want *Log", s.Run)
	}
	if l.Format != "csv" || l.Rate != 1e6 || l.Tolerance != 2e9 || l.SkipBad != 10 || l.Batch != 4096 || l.Key != "phrase" || l.Time != "ts" {
		t.Errorf("log %+v", l)
	}
	if got, want := l.Path(s.File), filepath.Join("team", "logs", "day.csv.gz"); got != want {
		t.Errorf("path %s, want %s", got, want)
	}
	if got := l.Path("builtin:x.yaml"); got != "logs/day.csv.gz" {
		t.Errorf("a built-in scenario's log at %s", got)
	}
	abs := &Log{File: "/data/day.csv"}
	if got := abs.Path("team/day.yaml"); got != "/data/day.csv" {
		t.Errorf("absolute path became %s", got)
	}
	for _, c := range []struct {
		name, yaml string
		line       int
		want       string
	}{
		{"no key", "name: l\nworkload:\n  file: x.csv\nstrategies: [{name: a, type: exact}]\n", 2, `missing required key "key"`},
		{"format", "name: l\nworkload:\n  file: x.csv\n  key: k\n  format: xml\nstrategies: [{name: a, type: exact}]\n", 5, "allowed: csv, ndjson"},
		{"cluster", "name: l\nworkload:\n  file: x.csv\n  key: k\ncluster: {nodes: 2}\nstrategies: [{name: a, type: exact}]\n", 5, "a recorded log replayed as a count stream has no simulated cluster"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("cases/x.yaml", []byte(c.yaml))
			mustError(t, err, "cases/x.yaml", c.line, c.want)
		})
	}
}

// TestLogWorkloadRules: one way to read a column; rate only without time,
// tolerance only with it.
func TestLogWorkloadRules(t *testing.T) {
	head := "name: l\nstrategies: [{name: a, type: exact}]\nworkload:\n  file: x.csv\n  key: k\n"
	for _, c := range []struct {
		more string
		line int
		want string
	}{
		{"  actor: a\n  actor_id: b\n", 7, "allowed: one of actor, hashed, or actor_id"},
		{"  id: a\n  event_id: b\n", 7, "allowed: one of id, hashed, or event_id"},
		{"  time: t\n  rate: 10\n", 7, "given with time"},
		{"  tolerance: 1s\n", 6, "given without time"},
		{"  as: xml\n", 6, "allowed: count, timed, audience, trending, board, ratings, split"},
		{"  day: 1h\n", 6, "day: is for as: audience, and this log is replayed as count (allowed: remove day, or as: audience)"},
		{"  as: audience\n  stars: s\n", 7, "stars: is for as: ratings, and this log is replayed as audience"},
		{"  as: audience\n", 3, "as: audience needs the column of who acted"},
		{"  as: trending\n", 3, "as: trending needs the log's clock"},
		{"  as: ratings\n", 3, "as: ratings needs the column of the stars"},
		{"  as: ratings\n  stars: s\n  delta: d\n", 8, "given with as: ratings"},
		{"  as: split\n", 3, "as: split needs the column of each event's node"},
		{"  as: board\n  standings_score: s\n", 7, "given without standings"},
	} {
		_, err := Parse("cases/x.yaml", []byte(head+c.more))
		mustError(t, err, "cases/x.yaml", c.line, c.want)
	}
}
