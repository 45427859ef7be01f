package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
)

// TestAudienceUnions: redis-hll's three ways to the union of two days. On
// a cluster of 3 nodes (placement slots) the untagged PFMERGE is refused,
// CROSSSLOT, and leaves no union row; the tagged days' PFCOUNT costs one
// command, one round trip and 8 bytes, all its keys on one node; the
// application's merge two GETs, two round trips and two dense strings.
// Without a cluster the store is one server: the PFMERGE merges.
func TestAudienceUnions(t *testing.T) {
	yaml := func(cluster string) string {
		return `name: a
seed: 3
workload:
  audience:
    days:
      - viewers: 60_000
      - viewers: 50_000
        overlap: 30_000
` + cluster + `strategies:
  - name: pfmerge
    type: redis-hll
    params: {merge: server}
  - name: tagged
    type: redis-hll
  - name: app
    type: redis-hll
    params: {merge: app}
`
	}
	row := func(rep *engine.Report, d string, m metrics.Metric) string {
		rs := metrics.Select(rep.Results, d, m, metrics.Sim)
		if len(rs) == 0 {
			return "-"
		}
		return metrics.Format(*rs[len(rs)-1].Value)
	}
	const union = "union of the days by merge"
	for _, tc := range []struct {
		cluster string
		want    map[string]string // design → merge_refused, union_store_ops, union_round_trips, union_bytes_read, a union row
	}{
		{"cluster: {nodes: 3, key_capacity: 1}\n", map[string]string{
			"pfmerge": "1 1 1 0 false", // refused: the PFMERGE alone, no union
			"tagged":  "0 1 1 8 true",
			"app":     "0 2 2 24,608 true",
		}},
		{"", map[string]string{ // one server
			"pfmerge": "0 2 2 8 true", // PFMERGE, then PFCOUNT
			"tagged":  "0 1 1 8 true",
			"app":     "0 2 2 24,608 true",
		}},
	} {
		st := prepare(t, yaml(tc.cluster), engine.Options{})
		rep, err := st.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for d, want := range tc.want {
			rs := metrics.Select(rep.Results, d, metrics.Distinct, metrics.Sim)
			got := fmt.Sprintf("%s %s %s %s %v", row(rep, d, metrics.MergeRefused), row(rep, d, metrics.UnionOps), row(rep, d, metrics.UnionRoundTrips),
				row(rep, d, metrics.UnionBytes), strings.HasPrefix(rs[len(rs)-1].Note, union))
			if got != want {
				t.Errorf("%q %s: %s, want %s", tc.cluster, d, got, want)
			}
		}
		// On 3 nodes the tagged days are on one; without a cluster no
		// node is counted.
		if n := row(rep, "tagged", metrics.NodesUsed); n != map[bool]string{true: "1", false: "-"}[tc.cluster != ""] {
			t.Errorf("%q: tagged on %s nodes", tc.cluster, n)
		}
	}
}
