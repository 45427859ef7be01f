package engine

import "math"

// Sizes a kind plans its memory and its truth's figures from: the bytes of
// a Go map, and the keys a law draws at least once.

// GoMapBytes is the memory of a Go map of 16-byte entries (uint64 to
// uint64) made with room for n: Swiss tables (Go 1.24 on) of 1,024 slots,
// each a 16-byte entry and a control byte, filled to 7/8 at most, as many
// tables as a power of two, and 6% for the tables' and groups' headers.
// Measured: a map made for 1,124,686 and filled to 95% takes 33.6 B an
// entry made room for; made for 3,659,263, 20.7 B: this gives 33.5 and
// 20.6 (TestGoMapBytes).
func GoMapBytes(n int64) int64 {
	const slots, slotBytes, fill = 1024, 17, 1024 * 7 / 8
	tables := int64(1)
	for tables*fill < n {
		tables *= 2
	}
	return tables * slots * slotBytes * 106 / 100
}

// ExpectedDistinct is the expected number of keys drawn at least once in a
// Poisson number of draws of mean n from the law prob over keys ranks:
// Σ_r 1 − e^(−n·p_r). The first 4,096 ranks are summed exactly; past them
// the terms fall smoothly with the rank, and the sum is the integral of
// the term over a geometric grid (ratio 1.01), by the trapezoid rule, which
// is well within 0.1% for Zipf laws.
func ExpectedDistinct(n float64, keys uint64, prob func(rank uint64) float64) float64 {
	term := func(r uint64) float64 { return -math.Expm1(-n * prob(r)) }
	var sum float64
	r := uint64(1)
	for ; r <= min(keys, 4096); r++ {
		sum += term(r)
	}
	if r > keys {
		return sum
	}
	// ranks r..keys: ∫ term(x) dx ≈ Σ over [a, b] of (b − a)·(t(a) + t(b))/2,
	// plus half the end terms, as the integer sum is over points.
	a, ta := float64(r), term(r)
	sum += ta / 2
	for a < float64(keys) {
		b := min(math.Ceil(a*1.01), float64(keys))
		tb := term(uint64(b))
		sum += (b - a) * (ta + tb) / 2
		a, ta = b, tb
	}
	return sum + ta/2
}
