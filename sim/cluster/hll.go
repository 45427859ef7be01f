package cluster

import (
	"fmt"
	"math"

	"countsim/strategies"
	"countsim/strategies/distinct"
)

// The simulated cluster's HyperLogLog keys (PFADD, PFCOUNT, PFMERGE, and a
// GET of one).

// The HyperLogLog keys. The cluster models Redis's PFADD, PFCOUNT and
// PFMERGE with countsim's own HLL at Redis's precision (p = 14: 16,384
// six-bit registers, 12 KB dense) and Ertl's estimator, as Redis 5 and later
// use; the hash differs (XXH64 seeded by the cluster's seed here,
// MurmurHash64A in Redis), so the two estimates of one stream differ by
// about the standard error, 1.04/√16384 = 0.81%, not by a bug. The
// registers change at once: a PFCOUNT reads every PFADD sent before it,
// queued or not. A GET of one reads its registers in Redis's own encoding
// (distinct.AppendRedisHLL), as long as Redis's string would be.
const clusterHLLPrecision = 14

// pfMerge merges the HyperLogLog keys named by args into key's (PFMERGE
// key key args…); a source never written is empty.
func (c *Cluster) pfMerge(key uint64, args []strategies.StoreOp) {
	h := c.hll(key)
	for _, a := range args {
		if src, ok := c.hlls[a.Key]; ok && a.Key != key {
			if err := h.Merge(src); err != nil {
				panic(fmt.Sprintf("cluster: PFMERGE of two HLLs of one precision and seed: %v", err))
			}
		}
	}
}

// pfCount is PFCOUNT key args…: the estimate of key's HyperLogLog, or of
// the union of every key named, which changes none of them.
func (c *Cluster) pfCount(key uint64, args []strategies.StoreOp) int64 {
	h := c.hll(key)
	if len(args) > 0 {
		u := c.newHLL()
		for _, k := range append([]strategies.StoreOp{{Key: key}}, args...) {
			if src, ok := c.hlls[k.Key]; ok {
				if err := u.Merge(src); err != nil {
					panic(fmt.Sprintf("cluster: PFCOUNT of two HLLs of one precision and seed: %v", err))
				}
			}
		}
		h = u
	}
	return int64(math.Round(h.Estimate()))
}

// appendHLL appends the string a GET of the HyperLogLog h reads on Redis.
func (c *Cluster) appendHLL(dst []byte, h *distinct.HLL) []byte {
	dst, err := distinct.AppendRedisHLL(dst, h)
	if err != nil {
		panic(fmt.Sprintf("cluster: an HLL at p = %d in Redis's encoding: %v", clusterHLLPrecision, err))
	}
	return dst
}

// hll returns the HyperLogLog key's registers, empty on first use.
func (c *Cluster) hll(key uint64) *distinct.HLL {
	h, ok := c.hlls[key]
	if !ok {
		h = c.newHLL()
		if c.hlls == nil {
			c.hlls = make(map[uint64]*distinct.HLL)
		}
		c.hlls[key] = h
	}
	return h
}

// newHLL is an empty HLL of the cluster's keys.
func (c *Cluster) newHLL() *distinct.HLL {
	h, err := distinct.NewHLL(distinct.HLLParams{Precision: clusterHLLPrecision}, c.cfg.Seed)
	if err != nil {
		panic(fmt.Sprintf("cluster: an HLL at p = %d: %v", clusterHLLPrecision, err))
	}
	return h
}
