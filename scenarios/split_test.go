package scenarios

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// checkAccepted holds a split stream FuzzParse accepted to its ranges.
func (s *Split) checkAccepted(sc *Scenario) error {
	n := s.Nodes
	switch {
	case s.Events < 1 || s.Events > 1e10 || s.Keys < 1 || s.Keys > 1e9 || !(s.Rate > 0) || math.IsInf(s.Rate, 0) || s.Batch < 1 || s.Batch > 1<<20:
		return fmt.Errorf("the count stream out of range")
	case n.Count < 1 || n.Count > 4096 || (n.By != "region" && n.By != "server") || !(n.Plant >= 0 && n.Plant < 1):
		return fmt.Errorf("nodes %+v", n)
	case len(s.Exponents()) != 1 && len(s.Exponents()) != n.Count:
		return fmt.Errorf("%d exponents for %d nodes", len(s.Exponents()), n.Count)
	case len(sc.Faults) > 0 || s.Duration() != 0 || s.Pos.Line < 1 || n.Pos.Line < 1:
		return fmt.Errorf("faults or positions")
	}
	for _, e := range s.Exponents() {
		if !(e >= 0) || math.IsInf(e, 0) {
			return fmt.Errorf("exponent %v", e)
		}
	}
	return nil
}

const splitYAML = `name: split
seed: 1
workload:
  events: 1000
  keys: 100
  nodes:
    count: 4
    plant: 0.01
    skews:
      - {nodes: 2, s: 1.3}
      - {nodes: 2, s: 0.7}
questions:
  top: 10
strategies:
  - name: exact
    type: exact
`

// TestSplitParse: a split stream loads with its groups' exponents in node
// order; groups that do not add up, a bad by, a plant of 1 are refused
// with the line.
func TestSplitParse(t *testing.T) {
	s, err := Parse("split.yaml", []byte(splitYAML))
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := s.Run.(*Split)
	if !ok {
		t.Fatalf("run %T, want *Split", s.Run)
	}
	if got := fmt.Sprint(sp.Exponents()); got != "[1.3 1.3 0.7 0.7]" || sp.Nodes.By != "region" || sp.Events != 1000 {
		t.Fatalf("exponents %s, by %q, events %d", got, sp.Nodes.By, sp.Events)
	}
	for _, c := range []struct{ old, new, want string }{
		{"{nodes: 2, s: 0.7}", "{nodes: 3, s: 0.7}", "split.yaml:9: workload.nodes.skews: the groups hold 5 nodes in all, not count 4"},
		{"plant: 0.01", "plant: 1", "split.yaml:8: workload.nodes.plant: 1 is out of range (allowed: a number in [0,1))"},
		{"plant: 0.01", "plant: 0.01\n    by: country", "workload.nodes.by"},
		{"  keys: 100", "  keys: 100\n  reads: 5", "workload.reads"},
	} {
		_, err := Parse("split.yaml", []byte(strings.Replace(splitYAML, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q → %q: got %v, want %q", c.old, c.new, err, c.want)
		}
	}
}
