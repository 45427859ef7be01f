package sim

import (
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"errors"
	"fmt"
)

// What a union of distinct counts cost on the store that holds the days:
// the cricket final's unique viewers over two days, found by a PFMERGE a
// Redis Cluster refuses across slots, by a multi-key PFCOUNT of tagged day
// keys, or by reading each day's registers into the application
// (strategies/distinct's redis-hll, merge server, tagged or app); the
// store such a design gets (audienceStore), and how its keys spread over
// the store's nodes (spreadOn).

// audienceStore is the store of an audience's design on servers of scn:
// audienceCluster, on the nodes and placement of scn's cluster where it
// has one.
func audienceStore(scn *scenarios.Scenario) (cluster.Config, error) {
	cfg := audienceCluster
	cfg.Seed = scn.Seed
	if c := scn.Cluster; c != nil {
		sc, err := engine.ClusterConfig(c, scn.Seed)
		if err != nil {
			return cfg, err
		}
		cfg.Nodes, cfg.Placement = sc.Nodes, sc.Placement
	}
	return cfg, nil
}

// unionOn folds others into u and asks the union's estimate. For a design
// on a store (st not nil) it adds what the union cost there — the
// commands, round trips and bytes read back from the first fold to the
// answer (strategies.Metered) — and whether the store refused it,
// CROSSSLOT, the refusal's words in the note: a refused union has no
// estimate. Any other error is returned as it came, with no rows.
func unionOn(s *engine.Scorer, st strategies.Store, u strategies.DistinctUnion, others []strategies.Distinct) (float64, error) {
	m, metered := st.(strategies.Metered)
	var before strategies.Traffic
	if metered {
		before = m.Traffic()
	}
	var err error
	for _, o := range others {
		if err = u.UnionWith(o); err != nil {
			break
		}
	}
	var est float64
	if err == nil {
		est = u.Distinct()
		if r, ok := st.(strategies.Refuser); ok {
			err = r.Refused() // a multi-key PFCOUNT refused reads 0
		}
	}
	if st == nil {
		return est, err
	}
	refused := errors.Is(err, strategies.ErrCrossSlot)
	if err != nil && !refused {
		return est, err
	}
	if metered {
		cost := m.Traffic().Sub(before)
		what := fmt.Sprintf("the union of %d days", len(others)+1)
		s.Add(metrics.UnionOps, float64(cost.Ops), "ops", nil, "commands sent for "+what+", refused or not")
		s.Add(metrics.UnionRoundTrips, float64(cost.RoundTrips), "round trips", nil, "one a node a pipeline, one a GET")
		s.Add(metrics.UnionBytes, float64(cost.ReplyBytes), "B", nil, "bytes of the values read back: 8 a count, a day's registers as Redis's string")
	}
	flag, note := 0.0, "the store took the union's commands"
	if refused {
		flag, note = 1, "refused: "+err.Error()
	}
	s.Add(metrics.MergeRefused, flag, "flag", nil, note)
	return est, err
}

// spreadOn adds, for a design whose store is a simulated cluster of more
// than one node, the nodes that hold its keys and the table of each node's
// keys and ops: tagged day keys on one node, untagged ones where their
// names hash.
func spreadOn(s *engine.Scorer, st strategies.Store) {
	c, ok := st.(*cluster.Cluster)
	if !ok || len(c.NodeKeys()) < 2 {
		return
	}
	keys := c.NodeKeys()
	used := 0
	for _, n := range keys {
		if n > 0 {
			used++
		}
	}
	s.Add(metrics.NodesUsed, float64(used), "nodes", nil, fmt.Sprintf("of %d simulated: the nodes holding the design's keys", len(keys)))
	engine.NodeTable(s, c, 0)
}
