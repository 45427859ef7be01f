package strategies

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// What the hot-counter designs — single-key, striped, batched — share: the
// names of their keys in the store, the parameters every one of them takes
// (read path and dedup window) and the plan helpers; the table of the keys
// they keep state for is denseKeys (dense.go). Each design has its own
// file; the read path is in readpath.go, the dedup window in dedup.go.

// ErrNeedsCluster is returned when a design that lives on servers is built
// without a store: "striped needs a cluster (add cluster: to the scenario)".
var ErrNeedsCluster = errors.New("needs a cluster (add cluster: to the scenario)")

// needsCluster is the error of a design built without a store.
func needsCluster(typeName string) error { return fmt.Errorf("%s %w", typeName, ErrNeedsCluster) }

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
func stripeKey(key uint64, j int) uint64 { return rowHash(rowState(uint64(j)), keyLane(key)) }

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
		return o, paramErr("read", "%q not allowed (allowed: sum, cache)", read)
	}
	switch {
	case o.cache && ttl == 0:
		return o, paramErr("read", "cache needs a ttl (a duration such as 1s)")
	case !o.cache && ttl != 0:
		return o, paramErr("ttl", "given with read: sum; a ttl needs read: cache")
	case o.cache && (ttl < 0 || int64(ttl) > hotMaxDuration):
		return o, paramErr("ttl", "%v not in (0, 24h]", ttl)
	}
	if dedup < 0 || int64(dedup) > hotMaxDuration {
		return o, paramErr("dedup", "%v not in [0, 24h]", dedup)
	}
	o.ttl, o.dedup = int64(ttl), int64(dedup)
	return o, nil
}

// hotNum formats a plan number for a note: whole numbers with thousands
// separators (200,000), others to one decimal from 10 up (28.6) and to
// three significant digits below (0.625).
func hotNum(x float64) string {
	if r := math.Round(x); math.Abs(x-r) <= 1e-9*math.Max(1, math.Abs(r)) && math.Abs(r) < 1e15 {
		s := strconv.FormatInt(int64(math.Abs(r)), 10)
		var b strings.Builder
		if r < 0 {
			b.WriteByte('-')
		}
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	}
	if math.Abs(x) >= 10 {
		whole := math.Trunc(x)
		return hotNum(whole) + strconv.FormatFloat(math.Abs(x-whole), 'f', 1, 64)[1:]
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// hotPct formats a share as a percentage: 0.625 → "62.5%".
func hotPct(x float64) string { return hotNum(100*x) + "%" }

// atBothScales returns the lines f works out from the figures as
// simulated, then those it works out from the full-scale figures, marked
// Full. The hot-counter plans take their rates from the figures (the peak
// on the hot key, the reads, a key's capacity): the simulated-scale lines,
// which the runner puts beside the measurements, come from what the
// scenario simulated, never from an assumption it did not simulate.
func atBothScales(env Env, f func(a Assumptions) []PlanLine) []PlanLine {
	lines := f(env.Sim)
	for _, l := range f(env.Full) {
		l.Full = true
		lines = append(lines, l)
	}
	return lines
}

// hotSecs formats a duration in ns as seconds for a note.
func hotSecs(ns int64) string { return hotNum(float64(ns)/1e9) + " s" }
