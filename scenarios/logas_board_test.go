package scenarios

import "testing"

// TestLogBoardKeys: the keys of a log replayed as board — its score
// column, its standings and their score column, the players checked — are
// read, defaulted and refused where they do not hold together, at their
// line; a board's log may run on a cluster, never with faults.
func TestLogBoardKeys(t *testing.T) {
	head := "name: l\nstrategies: [{name: a, type: sorted-set}]\ncluster: {nodes: 2, key_capacity: 100}\nworkload:\n  file: x.csv\n  key: player\n  delta: points\n  as: board\n"
	scn, err := Parse("cases/x.yaml", []byte(head+"  score: total\n  standings: s/season.csv\n  checked: 50\n"))
	if err != nil {
		t.Fatal(err)
	}
	l := scn.Run.(*Log)
	if l.Score != "total" || l.StandingsScore != "score" || l.Checked != 50 || l.StandingsPath("cases/x.yaml") != "cases/s/season.csv" {
		t.Errorf("score %q, standings_score %q, checked %d, standings at %q; want total, score (the default), 50, cases/s/season.csv",
			l.Score, l.StandingsScore, l.Checked, l.StandingsPath("cases/x.yaml"))
	}
	if scn, err = Parse("cases/x.yaml", []byte(head)); err != nil || scn.Run.(*Log).Checked != 2000 || scn.Run.(*Log).StandingsPath("cases/x.yaml") != "" {
		t.Errorf("defaults: %v, checked %d", err, scn.Run.(*Log).Checked)
	}
	for _, c := range []struct {
		more string
		line int
		want string
	}{
		{"  standings_score: s\n", 9, "given without standings"},
		{"  score: points\n", 9, `"points" is the log's delta column too`},
		{"  score: player\n", 9, `"player" is the log's key column too`},
		{"  checked: 0\n", 9, "1..1000000"},
		{"faults: [{at: 1s, kind: node-loss, node: 0}]\n", 9, "faults need a timed stream (allowed: as: timed)"},
	} {
		_, err := Parse("cases/x.yaml", []byte(head+c.more))
		mustError(t, err, "cases/x.yaml", c.line, c.want)
	}
	_, err = Parse("cases/x.yaml", []byte("name: l\nstrategies: [{name: a, type: exact}]\nworkload:\n  file: x.csv\n  key: k\n  standings: s.csv\n"))
	mustError(t, err, "cases/x.yaml", 6, "standings: is for as: board, and this log is replayed as count")
}
