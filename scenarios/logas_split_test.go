package scenarios

import "testing"

// TestLogSplitKeys: as: split takes node and node_count; its actor is its
// node, so an actor column is refused at its line; faults are refused; a
// node_count off its range is refused at its line.
func TestLogSplitKeys(t *testing.T) {
	head := "name: l\nstrategies: [{name: a, type: exact}]\nworkload:\n  file: x.csv\n  key: k\n  as: split\n  node: region\n"
	s, err := Parse("cases/x.yaml", []byte(head+"  node_count: 8\n"))
	if err != nil {
		t.Fatal(err)
	}
	if l := s.Run.(*Log); l.Node != "region" || l.NodeCount != 8 {
		t.Errorf("node %q, node_count %d", l.Node, l.NodeCount)
	}
	if s, err := Parse("cases/x.yaml", []byte(head)); err != nil || s.Run.(*Log).NodeCount != 0 {
		t.Errorf("without node_count: %v (0: the nodes the head names)", err)
	}
	for _, c := range []struct {
		more string
		line int
		want string
	}{
		{"  actor: user\n", 8, "given with as: split, where an event's actor is its node, read from node: region (allowed: remove actor)"},
		{"  actor_id: user\n", 8, "(allowed: remove actor_id)"},
		{"  node_count: 5000\n", 8, "node_count"},
		{"faults: [{at: 1s, kind: node-loss, node: 1}]\n", 8, "faults need a timed stream"},
	} {
		_, err := Parse("cases/x.yaml", []byte(head+c.more))
		mustError(t, err, "cases/x.yaml", c.line, c.want)
	}
}
