package hot

import (
	"time"

	"countsim/strategies"
	"countsim/strategies/internal/ds"
)

// What the hot-counter designs — single-key, striped, batched — share: the
// names of their keys in the store, the parameters every one of them takes
// (read path and dedup window) and the plan helpers; the table of the keys
// they keep state for is DenseKeys (dense.go). Each design has its own
// file; the read path is in readpath.go, the dedup window in dedup.go.

// Limits shared by the hot-counter designs.
const (
	hotMaxStripes  = 1 << 16               // stripes (K) of one counted key
	hotMaxDuration = int64(24 * time.Hour) // ttl, flush and dedup window; a stream lasts at most 24h
)

// stripeKey is the store key of stripe j of the counted key key: XXH64 of
// the 16 bytes le(j)‖le(key) (Collet's xxHash, seed 0), the hash the
// count-min rows use. It is a name, like Redis's "video:42#7": the same in
// every run and for every seed, and strong enough that the K stripes of a
// key land on nodes independently of each other and of other keys' stripes
// (the cluster places a key by its own hash of this name). The single-key
// design's key is stripe 0.
func stripeKey(key uint64, j int) uint64 { return ds.RowHash(ds.RowState(uint64(j)), ds.KeyLane(key)) }

// hotOpts are the parameters every hot-counter design shares, decoded.
type hotOpts struct {
	cache bool  // read: cache
	ttl   int64 // ns, > 0 with cache
	dedup int64 // window in ns; 0: off
}

// parseHotOpts checks read, ttl and dedup together.
func parseHotOpts(read string, ttl, dedup time.Duration) (hotOpts, error) {
	var o hotOpts
	switch read {
	case "sum", "":
	case "cache":
		o.cache = true
	default:
		return o, strategies.ParamErrorf("read", "%q not allowed (allowed: sum, cache)", read)
	}
	switch {
	case o.cache && ttl == 0:
		return o, strategies.ParamErrorf("read", "cache needs a ttl (a duration such as 1s)")
	case !o.cache && ttl != 0:
		return o, strategies.ParamErrorf("ttl", "given with read: sum; a ttl needs read: cache")
	case o.cache && (ttl < 0 || int64(ttl) > hotMaxDuration):
		return o, strategies.ParamErrorf("ttl", "%v not in (0, 24h]", ttl)
	}
	if dedup < 0 || int64(dedup) > hotMaxDuration {
		return o, strategies.ParamErrorf("dedup", "%v not in [0, 24h]", dedup)
	}
	o.ttl, o.dedup = int64(ttl), int64(dedup)
	return o, nil
}
