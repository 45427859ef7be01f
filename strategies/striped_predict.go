package strategies

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A striped counter's K predicted when its key is created, after the
// sharded-counter seed (004): a post's counter takes its number of shards
// from its author's followers_count — the more followers, the more likes
// a second to expect — so that a celebrity's post starts with enough
// stripes and a small account's with one, instead of every counter paying
// for the largest. The event carries the followers in its Actor (the
// posts workload), read at the key's first event. Two rules:
//
//   - a table, "F1:K1,F2:K2,…": an author with at least Fi followers gets
//     Ki stripes (the largest Fi not above the followers; below F1,
//     stripes); both columns must increase;
//   - per_followers: N, K = ⌈followers / N⌉, for K ∝ followers.
//
// The prediction is clamped to stripes..max_stripes (1024 by default). It
// is a start, not a floor: with grow_above and shrink_below K then follows
// the load, which rescues the small account whose post goes viral.

// predictRule maps an author's followers to a counter's first K.
type predictRule struct {
	at  []uint64 // followers thresholds, increasing
	k   []int    // the K from each threshold on, increasing
	per float64  // > 0: K = ⌈followers / per⌉ instead of the table
}

// parsePredict reads a table rule, "F1:K1,F2:K2,…".
func parsePredict(s string) (*predictRule, error) {
	r := &predictRule{}
	const allowed = "allowed: FOLLOWERS:K pairs separated by commas, both increasing, K in 1..65536, e.g. 0:1,10000:4,1000000:32"
	for i, pair := range strings.Split(s, ",") {
		f, k, ok := strings.Cut(strings.TrimSpace(pair), ":")
		fv, ferr := strconv.ParseUint(strings.TrimSpace(f), 10, 64)
		kv, kerr := strconv.Atoi(strings.TrimSpace(k))
		switch {
		case !ok || ferr != nil || kerr != nil:
			return nil, paramErr("predict", "pair %d %q is not FOLLOWERS:K (%s)", i+1, pair, allowed)
		case kv < 1 || kv > hotMaxStripes:
			return nil, paramErr("predict", "pair %d: K %d not in 1..%d (%s)", i+1, kv, hotMaxStripes, allowed)
		case i > 0 && fv <= r.at[i-1]:
			return nil, paramErr("predict", "followers %d after %d: the rule is not increasing (%s)", fv, r.at[i-1], allowed)
		case i > 0 && kv <= r.k[i-1]:
			return nil, paramErr("predict", "K %d after %d: the rule is not increasing (%s)", kv, r.k[i-1], allowed)
		}
		r.at, r.k = append(r.at, fv), append(r.k, kv)
	}
	return r, nil
}

// stripes is the K the rule predicts for an author with followers,
// clamped to lo..hi.
func (r *predictRule) stripes(followers uint64, lo, hi int) int {
	k := lo
	if r.per > 0 {
		k = int(min(math.Ceil(float64(followers)/r.per), float64(hotMaxStripes)))
	} else {
		for i, at := range r.at {
			if followers >= at {
				k = r.k[i]
			}
		}
	}
	return min(max(k, lo), hi)
}

// String is the rule as a note says it.
func (r *predictRule) String() string {
	if r.per > 0 {
		return fmt.Sprintf("K = ⌈followers / %s⌉", hotNum(r.per))
	}
	var parts []string
	for i := range r.at {
		parts = append(parts, fmt.Sprintf("≥ %s followers: %d", hotNum(float64(r.at[i])), r.k[i]))
	}
	return strings.Join(parts, "; ")
}
