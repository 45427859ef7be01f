package sim

import (
	"context"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"fmt"
	"strings"
	"testing"
)

// builtinStep is the step named name of built-in scenario file (the file
// itself for ""), its stream cut to dur ns and keys players.
func builtinStep(t *testing.T, file, name string, dur int64, keys uint64) *scenarios.Scenario {
	t.Helper()
	scn, err := scenarios.Builtin(file)
	if err != nil {
		t.Fatal(err)
	}
	if name != "" {
		for _, s := range scn.Steps {
			if s.Step == name {
				scn = s
			}
		}
	}
	b, ok := scn.Run.(*scenarios.Board)
	if !ok {
		t.Fatalf("%s %s: a %T, want a board", file, name, scn.Run)
	}
	b.Phases = b.Phases[:1]
	b.Phases[0].Duration, b.Keys = dur, keys
	return scn
}

// nodeKeys is design d's keys on each node of its simulated cluster, from
// the report's table.
func nodeKeys(t *testing.T, rep *engine.Report, d string) []float64 {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Name == "nodes-"+d {
			var keys []float64
			for _, r := range tb.Rows {
				keys = append(keys, r[1])
			}
			return keys
		}
	}
	t.Fatalf("no table nodes-%s", d)
	return nil
}

// TestBoardShardsSpread: the cricket final's board and the full board
// (same seed, same shard names) put their 8 shards on the same nodes of 8,
// as the names hash — 3, 1, 1, 2, 1 on nodes 1, 2, 3, 5, 7, the figures
// their YAML states — and the report's notes say they spread unevenly.
func TestBoardShardsSpread(t *testing.T) {
	want := "[0 3 1 1 0 2 0 1]"
	for _, scn := range []*scenarios.Scenario{
		builtinStep(t, "cricket-final", "leaderboard", 1e8, 10_000),
		builtinStep(t, "leaderboard-full", "", 1e8, 10_000),
	} {
		st, err := engine.Prepare(scn, engine.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := st.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(nodeKeys(t, rep, "sharded-8")); got != want {
			t.Errorf("%s: sharded-8's keys on the nodes %s, want %s", scn.ID(), got, want)
		}
		noted := false
		for _, n := range rep.Notes {
			noted = noted || strings.HasPrefix(n, "sharded-8's 8 keys lie on 5 of the 8 simulated nodes (0, 3, 1, 1, 0, 2, 0, 1 keys on each")
		}
		if !noted {
			t.Errorf("%s: no note of sharded-8's spread in %q", scn.ID(), rep.Notes)
		}
	}
}

// TestScenarioPlacement: a scenario's cluster.placement reaches the
// simulated cluster, for every placement the cluster knows: slots (the
// default) puts 32 stripes where their names hash; modulo where a hash of
// each key mod the nodes does, another spread.
func TestScenarioPlacement(t *testing.T) {
	yaml := func(placement string) string {
		return `name: p
seed: 4
workload:
  keys: 1
  phases: [{duration: 1s, rate: 3200}]
cluster: {nodes: 4, key_capacity: 10000` + placement + `}
strategies:
  - name: spread
    type: striped
    params: {stripes: 32}
`
	}
	spreads := map[string]string{}
	for _, name := range append([]string{""}, cluster.Slots.Names()...) {
		p, want := "", cluster.Slots
		if name != "" {
			p = ", placement: " + name
			if err := want.UnmarshalText([]byte(name)); err != nil {
				t.Fatal(err)
			}
		}
		st := prepare(t, yaml(p), engine.Options{})
		rep, err := st.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		spreads[name] = fmt.Sprint(nodeKeys(t, rep, "spread"))
		if got := st.Kind.(*timedKind).clusters.New().Placement(); got != want {
			t.Errorf("placement %q: the cluster's %v, want %v", name, got, want)
		}
	}
	if spreads[""] != spreads["slots"] || spreads["slots"] == spreads["modulo"] {
		t.Errorf("stripes on the nodes: default %s, slots %s, modulo %s; want the default slots', modulo another", spreads[""], spreads["slots"], spreads["modulo"])
	}
}
