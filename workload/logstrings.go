package workload

// A recorded log's key strings: found again by a second pass, and the
// chance that two of them share a hash.

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cespare/xxhash/v2"
)

// Strings reads the log again, from the start in a file handle of its own
// (Read's position is left alone), and returns the key text of each of
// keys that some line carries: its Key column's text on the first line
// whose event Key (hashed, or KeyID) is that key. It stops once it found
// them all. Keys found on no line are absent from the map; bad lines are
// passed over.
func (r *LogReader) Strings(keys []uint64) (map[uint64]string, error) {
	return r.StringsContext(context.Background(), keys)
}

// StringsContext is Strings, stopping with ctx's error (and the strings
// found so far) when ctx ends first: it looks every 65,536 lines.
func (r *LogReader) StringsContext(ctx context.Context, keys []uint64) (map[uint64]string, error) {
	out := make(map[uint64]string, len(keys))
	want := make(map[uint64]struct{}, len(keys))
	for _, k := range keys {
		want[k] = struct{}{}
	}
	if len(want) == 0 {
		return out, nil
	}
	in, err := openLogInput(r.cfg.Path, new(atomic.Int64))
	if err != nil {
		return nil, err
	}
	defer in.close()
	src, err := r.open(r.cfg.Path, in.text, r.cols)
	if err != nil {
		return nil, err
	}
	for line := 1; len(out) < len(want); line++ {
		if line&(1<<16-1) == 0 && ctx.Err() != nil {
			return out, ctx.Err()
		}
		if err := src.next(); err != nil {
			if _, bad := err.(*LogError); bad {
				continue
			}
			if err == io.EOF {
				break
			}
			if f, ok := err.(fatalLogError); ok {
				return out, f.LogError
			}
			return out, fmt.Errorf("workload: log %s: %w", r.cfg.Path, err)
		}
		s, why := src.value(colKey)
		if why != "" {
			continue
		}
		var k uint64
		if r.cfg.KeyID != "" {
			id, why := src.value(colKeyID)
			if why != "" {
				continue
			}
			var ok bool
			if k, ok = parseDecimalU64(id); !ok {
				continue
			}
		} else {
			k = xxhash.Sum64String(s)
		}
		if _, ok := want[k]; ok {
			if _, done := out[k]; !done {
				out[k] = strings.Clone(s)
			}
		}
	}
	return out, nil
}

// CollisionPairs returns the expected number of pairs among distinct
// strings whose 64-bit hashes collide, n(n−1)/2 pairs each colliding with
// probability 2^−64: n(n−1)/2^65, about 0.03 for a billion keys and 1 at
// 6.1·10^9. (Its count of the keys would merge the pair's counts.)
func CollisionPairs(distinct float64) float64 {
	if distinct < 1 {
		return 0
	}
	return distinct * (distinct - 1) / 0x1p65
}
