package cluster

import (
	"fmt"

	"countsim/strategies"
	"countsim/strategies/distinct"
)

// The simulated cluster's HyperLogLog keys (PFADD, PFCOUNT, PFMERGE).

// The HyperLogLog keys. The cluster models Redis's PFADD, PFCOUNT and
// PFMERGE with countsim's own HLL at Redis's precision (p = 14: 16,384
// six-bit registers, 12 KB dense) and Ertl's estimator, as Redis 5 and later
// use; the hash differs (XXH64 seeded by the cluster's seed here,
// MurmurHash64A in Redis), so the two estimates of one stream differ by
// about the standard error, 1.04/√16384 = 0.81%, not by a bug. The
// registers change at once: a PFCOUNT reads every PFADD sent before it,
// queued or not.
const clusterHLLPrecision = 14

// pf applies a PFADD or PFMERGE to the HyperLogLog keys.
func (c *Cluster) pf(op *strategies.StoreOp) {
	h := c.hll(op.Key)
	if op.Kind == strategies.PFAdd {
		h.Insert(op.Member)
		return
	}
	if src, ok := c.hlls[op.Member]; ok && op.Member != op.Key {
		if err := h.Merge(src); err != nil {
			panic(fmt.Sprintf("cluster: PFMERGE of two HLLs of one precision and seed: %v", err))
		}
	}
}

// hll returns the HyperLogLog key's registers, empty on first use.
func (c *Cluster) hll(key uint64) *distinct.HLL {
	h, ok := c.hlls[key]
	if !ok {
		var err error
		if h, err = distinct.NewHLL(distinct.HLLParams{Precision: clusterHLLPrecision}, c.cfg.Seed); err != nil {
			panic(fmt.Sprintf("cluster: an HLL at p = %d: %v", clusterHLLPrecision, err))
		}
		if c.hlls == nil {
			c.hlls = make(map[uint64]*distinct.HLL)
		}
		c.hlls[key] = h
	}
	return h
}
