package scenarios

import (
	"reflect"
	"testing"
)

// TestLinkedFigures checks that a figure stated once serves both the plan
// and the simulation, and that a figure stated twice with two values is
// kept as both and reported with the line of each.
func TestLinkedFigures(t *testing.T) {
	// A timed stream on a cluster; lines:
	//  1 name: t
	//  2 workload:
	//  3   keys: 1
	//  4   reads: 500
	//  5   phases:
	//  6     - {duration: 10s, rate: 1000, to: 3000}
	//  7 strategies: [{name: a, type: exact}]
	base := []string{
		"name: t",
		"workload:",
		"  keys: 1",
		"  reads: 500",
		"  phases:",
		"    - {duration: 10s, rate: 1000, to: 3000}",
		"strategies: [{name: a, type: exact}]",
	}
	parse := func(t *testing.T, more ...string) *Scenario {
		t.Helper()
		s, err := Parse("f.yaml", []byte(doc(append(base[:len(base):len(base)], more...)...)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	figure := func(s *Scenario, name string) Figure {
		for _, f := range s.Figures {
			if f.Name == name {
				return f
			}
		}
		return Figure{}
	}

	t.Run("cluster takes the assumption", func(t *testing.T) {
		s := parse(t, "assumptions: {key_capacity: 700}", "cluster: {nodes: 2}")
		f := figure(s, "key_capacity")
		if s.Cluster.KeyCapacity != 700 || f.Simulated != 700 || f.SimulatedAt != "assumptions.key_capacity" || f.Differs() {
			t.Errorf("got cluster %+v, figure %+v; want the cluster at 700 from the assumptions, not differing", s.Cluster, f)
		}
	})
	t.Run("assumptions take the simulation", func(t *testing.T) {
		s := parse(t, "cluster: {key_capacity: 900}")
		a := s.Assumptions
		if a.KeyCapacity != 900 || a.PeakRate != 3000 || a.ReadRate != 500 {
			t.Errorf("got assumptions %+v; want key_capacity 900, peak_rate 3000 (the phases' peak) and read_rate 500 from the stream", a)
		}
		if d := s.Differing(); len(d) != 0 {
			t.Errorf("got differing figures %+v, want none", d)
		}
	})
	t.Run("two values stand, with both lines", func(t *testing.T) {
		s := parse(t, "assumptions: {key_capacity: 10_000, peak_rate: 200_000}", "cluster: {key_capacity: 8_000}")
		var names []string
		for _, f := range s.Differing() {
			names = append(names, f.Name)
		}
		if !reflect.DeepEqual(names, []string{"peak_rate", "key_capacity"}) {
			t.Fatalf("got differing %v, want peak_rate and key_capacity", names)
		}
		f := figure(s, "key_capacity")
		want := Figure{Name: "key_capacity", Assumed: 10_000, AssumedAt: Pos{File: "f.yaml", Line: 8, Col: 15}, Simulated: 8_000,
			SimulatedAt: "cluster.key_capacity", SimulatedPos: Pos{File: "f.yaml", Line: 9, Col: 11}, Linked: true}
		if f != want {
			t.Errorf("got %+v, want %+v", f, want)
		}
		if s.Assumptions.KeyCapacity != 10_000 || s.Cluster.KeyCapacity != 8_000 {
			t.Errorf("got assumed %v and simulated %v, want 10,000 and 8,000", s.Assumptions.KeyCapacity, s.Cluster.KeyCapacity)
		}
		sim := s.Simulated()
		if sim.KeyCapacity != 8_000 || sim.PeakRate != 3000 || sim.ReadRate != 500 || sim.Events != 20_000 || sim.Keys != 1 {
			t.Errorf("got simulated figures %+v; want the cluster's 8,000, the phases' 3,000, 500 reads, 20,000 writes over 1 key", sim)
		}
	})
	t.Run("a cluster needs a capacity somewhere", func(t *testing.T) {
		_, err := Parse("f.yaml", []byte(doc(append(base[:len(base):len(base)], "cluster: {nodes: 2}")...)))
		mustError(t, err, "f.yaml", 8, `cluster: missing required key "key_capacity" (allowed: cluster.key_capacity, or assumptions.key_capacity`)
	})
	t.Run("a step's own assumptions", func(t *testing.T) {
		s, err := Parse("f.yaml", []byte(doc(
			"name: t",
			"assumptions: {key_capacity: 10_000, app_servers: 200}",
			"steps:",
			"  - name: a",
			"    assumptions: {key_capacity: 8_000}",
			"    cluster: {}",
			"    workload: {keys: 1, phases: [{duration: 1s, rate: 100}]}",
			"    strategies: [{name: x, type: exact}]",
			"  - name: b",
			"    cluster: {}",
			"    workload: {keys: 1, phases: [{duration: 1s, rate: 100}]}",
			"    strategies: [{name: y, type: exact}]",
		)))
		if err != nil {
			t.Fatal(err)
		}
		a, b := s.Steps[0], s.Steps[1]
		if a.Assumptions.KeyCapacity != 8_000 || a.Cluster.KeyCapacity != 8_000 || a.Assumptions.AppServers != 200 {
			t.Errorf("step a: got %+v and cluster %+v, want its own 8,000 and the file's 200 servers", a.Assumptions, a.Cluster)
		}
		if b.Assumptions.KeyCapacity != 10_000 || b.Cluster.KeyCapacity != 10_000 || s.Assumptions.KeyCapacity != 10_000 {
			t.Errorf("step b: got %v, cluster %v; want the file's 10,000", b.Assumptions.KeyCapacity, b.Cluster.KeyCapacity)
		}
		if p, ok := a.KeyPos("assumptions.key_capacity"); !ok || p.Line != 5 {
			t.Errorf("step a's key_capacity at %v, want line 5", p)
		}
	})
	t.Run("an audience states its viewers once", func(t *testing.T) {
		s, err := Parse("f.yaml", []byte(doc(audience...)))
		if err != nil {
			t.Fatal(err)
		}
		if s.Assumptions.Keys != 40 || len(s.Differing()) != 0 {
			t.Errorf("got keys %v, differing %+v; want 40 from day 1, nothing differing", s.Assumptions.Keys, s.Differing())
		}
	})
	t.Run("scale of a count stream", func(t *testing.T) {
		s, err := Parse("f.yaml", []byte(plus("assumptions: {events: 2e9, keys: 4e8}")))
		if err != nil {
			t.Fatal(err)
		}
		d := s.Differing()
		if len(d) != 2 || d[0].Name != "events" || d[0].Simulated != 1000 || d[0].Assumed != 2e9 || d[1].Name != "keys" || d[1].Simulated != 100 {
			t.Errorf("got %+v, want events 1,000 against 2e9 and keys 100 against 4e8", d)
		}
		if s.Assumptions.Events != 2e9 || s.Simulated().Events != 1000 {
			t.Errorf("got assumed events %v and simulated %v, want 2e9 and 1000", s.Assumptions.Events, s.Simulated().Events)
		}
	})
}
