package all

import (
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// Every plan line of every design names its metric by one of the declared
// metrics (package metrics), which the runner's scorers use too: a name
// made up anywhere would leave a measurement without its plan.
func TestPlansUseDeclaredMetrics(t *testing.T) {
	figures := strategies.Assumptions{Events: 2e9, Keys: 4e8, EntryBytes: 100, ServerBytes: 64e9, DataFraction: 0.5, CounterBytes: 4,
		KthCount: 1.4e7, PeakRate: 200000, ReadRate: 5000, KeyCapacity: 10000, Headroom: 0.7, AppServers: 200}
	env := strategies.Env{Seed: 1, Keys: 1000, Events: 1e6, Top: 10, Full: figures, Sim: figures, Nodes: 4, Duration: 3600e9}
	params := map[string][]scenarios.Param{
		"count-min":       {{Key: "epsilon", Value: 0.001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)}},
		"space-saving":    {{Key: "counters", Value: int64(100)}},
		"misra-gries":     {{Key: "counters", Value: int64(100)}},
		"heavykeeper":     {{Key: "top", Value: int64(10)}},
		"striped":         {{Key: "stripes", Value: int64(4)}, {Key: "grow_above", Value: int64(7000)}, {Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}, {Key: "dedup", Value: "1s"}},
		"batched":         {{Key: "dedup", Value: "1s"}},
		"single-key":      {{Key: "dedup", Value: "1s"}},
		"sharded-board":   {{Key: "shards", Value: int64(8)}},
		"score-histogram": {{Key: "width", Value: int64(10)}},
		"node-local-topk": {{Key: "nodes", Value: int64(16)}},
		"cms-verify":      {{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}},
	}
	for _, typ := range strategies.Types() {
		p, err := designtest.DecodeParams(typ, params[typ.Name])
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		for _, l := range typ.Plan(p, env) {
			if !metrics.Known(string(l.Metric)) {
				t.Errorf("%s plans %q, not a declared metric", typ.Name, l.Metric)
			}
		}
	}
}
