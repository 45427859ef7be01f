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
// names of their keys in the store, a growable key → slot table for the
// state they keep per counted key, the parameters every one of them takes
// (read path and dedup window) and the plan helpers. Each design has its own
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

// hotKeys maps counted keys to dense slots 0, 1, 2… in order of first sight,
// in an open-addressing table (linear probing from mix64(key ^ seed), load
// ≤ 1/2, doubling) so that per-key state lives in plain slices indexed by
// slot: no Go map on the hot path, and nothing allocated once every key has
// been seen. Keys are never removed. find and slot take O(1) expected probes.
type hotKeys struct {
	tab  []int32  // slot + 1 of the key homed here; 0: empty
	keys []uint64 // keys[slot]
	mask uint64
	seed uint64
}

func newHotKeys(seed uint64) hotKeys {
	return hotKeys{tab: make([]int32, 16), mask: 15, seed: seed}
}

// find returns key's slot, or -1.
func (h *hotKeys) find(key uint64) int32 {
	for i := mix64(key^h.seed) & h.mask; ; i = (i + 1) & h.mask {
		s := h.tab[i]
		if s == 0 {
			return -1
		}
		if h.keys[s-1] == key {
			return s - 1
		}
	}
}

// slot returns key's slot, giving it the next one if it has none (added).
func (h *hotKeys) slot(key uint64) (slot int32, added bool) {
	for i := mix64(key^h.seed) & h.mask; ; i = (i + 1) & h.mask {
		s := h.tab[i]
		if s == 0 {
			if 2*(len(h.keys)+1) > len(h.tab) {
				h.grow()
				return h.slot(key)
			}
			h.keys = append(h.keys, key)
			h.tab[i] = int32(len(h.keys))
			return int32(len(h.keys) - 1), true
		}
		if h.keys[s-1] == key {
			return s - 1, false
		}
	}
}

// grow doubles the table and rehashes every key.
func (h *hotKeys) grow() {
	h.tab = make([]int32, 2*len(h.tab))
	h.mask = uint64(len(h.tab) - 1)
	for s, key := range h.keys {
		i := mix64(key^h.seed) & h.mask
		for h.tab[i] != 0 {
			i = (i + 1) & h.mask
		}
		h.tab[i] = int32(s + 1)
	}
}

func (h *hotKeys) len() int { return len(h.keys) }

func (h *hotKeys) bytes() int64 { return int64(cap(h.tab))*4 + int64(cap(h.keys))*8 }

// check: the table is a power of two at most half full, and every key is
// found at its own slot.
func (h *hotKeys) check() error {
	if len(h.tab)&(len(h.tab)-1) != 0 || uint64(len(h.tab)) != h.mask+1 || 2*len(h.keys) > len(h.tab) {
		return fmt.Errorf("hot keys: %d keys in a table of %d (mask %#x)", len(h.keys), len(h.tab), h.mask)
	}
	used := 0
	for _, s := range h.tab {
		if s != 0 {
			used++
		}
	}
	if used != len(h.keys) {
		return fmt.Errorf("hot keys: %d table entries for %d keys", used, len(h.keys))
	}
	for s, key := range h.keys {
		if got := h.find(key); got != int32(s) {
			return fmt.Errorf("hot keys: key %d has slot %d, lookup gives %d", key, s, got)
		}
	}
	return nil
}

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
