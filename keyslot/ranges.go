package keyslot

import (
	"fmt"
	"math"
)

// How redis-cli --cluster create spreads the slots over the masters
// (redis-cli.c, clusterManagerCommandCreate): master i of n, in the order
// the nodes were given (interleaved by IP; on one host, as given), takes
// the contiguous range first..last with
//
//	last = lround(cursor + 16384/n − 1), cursor = i·(16384/n),
//
// computed in single precision (the tool's float), first the slot after
// the previous master's last, and the last master up to slot 16383. Three
// masters take 0–5460, 5461–10922 and 10923–16383; eight take 2,048 each.
// redis-cli refuses fewer than 3 masters; Ranges gives 1 and 2 the same
// arithmetic, as a simulated cluster of one or two nodes needs.

// Range is the contiguous slots First..Last (inclusive) of one master.
type Range struct{ First, Last int }

// MaxMasters is the most masters Ranges spreads the slots over, four
// slots each (Redis Cluster is documented up to about 1,000 masters).
// Beyond some 7,500 the drift of the tool's single-precision cursor would
// push a master past slot 16383.
const MaxMasters = 4096

// Ranges returns the slot range of each of n masters as redis-cli --cluster
// create assigns them, master i's at index i; n must be in 1..MaxMasters.
// Every master gets at least one slot, and 16384/n ± 2 slots.
func Ranges(n int) ([]Range, error) {
	if n < 1 || n > MaxMasters {
		return nil, fmt.Errorf("keyslot: %d masters, want 1..%d", n, MaxMasters)
	}
	rs := make([]Range, n)
	per := float32(Count) / float32(n)
	var cursor float32
	first := 0
	for i := range rs {
		last := int(math.Round(float64(cursor + per - 1))) // lround: halves away from zero
		if last > Count || i == n-1 {
			last = Count - 1
		}
		last = max(last, first)
		rs[i] = Range{First: first, Last: last}
		first = last + 1
		cursor += per
	}
	return rs, nil
}

// Owner returns the index in rs of the range that holds slot, rs sorted
// and covering 0..Count-1 as Ranges returns them; -1 if none does. It
// costs a binary search.
func Owner(rs []Range, slot int) int {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if rs[m].Last < slot {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(rs) && rs[lo].First <= slot && slot <= rs[lo].Last {
		return lo
	}
	return -1
}
