package hot

import (
	"slices"
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

// ReadPath is what a Read event of a hot counter shows.
type ReadPath uint8

const (
	// ReadSum: one GET per store key of the counted key at the read's time
	// (an MGET), summed: what the writes served by then add up to.
	ReadSum ReadPath = iota
	// ReadCache: the total cached per key, refreshed by a read that finds
	// it ttl old or older.
	ReadCache
)

var readNames = []string{"sum", "cache"}

// String returns "sum" or "cache".
func (r ReadPath) String() string { return strategies.EnumString(r, "read", readNames) }

// Names lists the read paths' names.
func (ReadPath) Names() []string { return slices.Clone(readNames) }

// MarshalText returns the read path's name.
func (r ReadPath) MarshalText() ([]byte, error) {
	return strategies.MarshalEnum(r, "read path", readNames)
}

// UnmarshalText reads a read path by name.
func (r *ReadPath) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(r, "read path", readNames, text)
}

// hotOpts are the parameters every hot-counter design shares, decoded.
type hotOpts struct {
	cache bool  // read: cache
	ttl   int64 // ns, > 0 with cache
	dedup int64 // window in ns; 0: off
}

// newHotOpts gathers the read path and the dedup window of parameters
// already checked.
func newHotOpts(read ReadPath, ttl, dedup time.Duration) hotOpts {
	return hotOpts{cache: read == ReadCache, ttl: int64(ttl), dedup: int64(dedup)}
}

// checkReads is the rule across the read path and the ttl: a cache shows
// a total for a ttl, and a ttl is a cache's.
func checkReads(read ReadPath, ttl time.Duration) error {
	switch {
	case read == ReadCache && ttl == 0:
		return strategies.ParamErrorf("read", "cache needs a ttl (a duration such as 1s)")
	case read != ReadCache && ttl != 0:
		return strategies.ParamErrorf("ttl", "given with read: sum; a ttl needs read: cache")
	}
	return nil
}
