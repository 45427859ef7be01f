package cluster

import (
	"fmt"
	"math"
	"strings"

	"countsim/metrics"
)

// How a design's keys spread over the nodes: the table of each node's keys
// and ops, and a note when few keys lie unevenly.

// NodeTable is the keys each node holds and the ops it took, one row a
// node (node, keys, ops, and ops_per_s over a stream of duration seconds
// when it is not 0), named nodes-DESIGN: as the real store's table of the
// design's twin, node for node with placement Slots.
func (c *Cluster) NodeTable(scenario, design string, duration float64) metrics.Table {
	keys, ops := c.NodeKeys(), c.NodeOps()
	t := metrics.Table{Scenario: scenario, Name: "nodes-" + design,
		Title: design + ": keys and ops on each node of the simulated cluster", Columns: []string{"node", "keys", "ops"}}
	if duration > 0 {
		t.Columns = append(t.Columns, "ops_per_s")
	}
	for j := range keys {
		row := []float64{float64(j), float64(keys[j]), float64(ops[j])}
		if duration > 0 {
			row = append(row, math.Round(10*float64(ops[j])/duration)/10)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// SpreadNote is a sentence for the report when design's keys are few for
// the nodes (at most two a node, each a large share of a node's load: a
// board's shards) and lie unevenly: the busiest node holds more than an
// even share, ⌈keys/nodes⌉, and they are not all in one slot (a hash tag
// puts them there on purpose). Otherwise "". A key's node is where its
// name hashes, so K keys on N nodes land as K balls in N bins: 8 shards on
// 8 nodes take 5.25 nodes on average, all 8 about once in 400.
func (c *Cluster) SpreadNote(design string) string {
	keys := c.NodeKeys()
	var total, most int64
	used := 0
	list := make([]string, len(keys))
	for j, n := range keys {
		total += n
		most = max(most, n)
		if n > 0 {
			used++
		}
		list[j] = metrics.Format(float64(n))
	}
	even := (total + int64(len(keys)) - 1) / int64(len(keys))
	if total < 2 || total > 2*int64(len(keys)) || most <= even || c.SlotsUsed() < 2 {
		return ""
	}
	how := "a key's node holds the slot the CRC16 of its name picks, as in Redis Cluster"
	if c.cfg.Placement == Modulo {
		how = "a key's node is a hash of it mod the nodes (placement modulo)"
	}
	return fmt.Sprintf("%s's %s keys lie on %d of the %d simulated nodes (%s keys on each; the busiest holds %s, an even spread %s): %s, so keys spread as they hash, not evenly.",
		design, metrics.Format(float64(total)), used, len(keys), strings.Join(list, ", "), metrics.Format(float64(most)), metrics.Format(float64(even)), how)
}
