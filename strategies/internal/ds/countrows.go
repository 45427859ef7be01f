package ds

import (
	"fmt"
	"math"
	"slices"

	"countsim/workload"
)

// CountRows is the counter array of a count-min sketch (countmin.go cites
// the algorithm, its hashing and its bounds): d rows of w uint32 counters
// in one flat array, the three seeds of the row hashes, and N, the sum of
// the counts added. Counters saturate at 2^32−1 rather than wrap, so an
// estimate is never below the truth. Count-min, count-min + heap and the
// windowed count-min's ring of sketches of one seed share it; the ring adds
// and subtracts whole sketches counter by counter.
type CountRows struct {
	Width, Depth int
	S1, S2, S3   uint64   // h_k = Mix64(key ⊕ s_k)
	Cells        []uint32 // row i is cells[i*width : (i+1)*width]
	N            uint64   // sum of the counts added
}

// MaxDepth is the most rows a sketch has.
const MaxDepth = 32

// CounterBytes is the size of one counter: a uint32.
const CounterBytes = 4

// NewCountRows returns d rows of w counters at 0 hashing with seed: s1, s2
// and s3 are the first three outputs of workload.SplitMix(seed), so
// sketches of one seed take a key to the same counters.
func NewCountRows(w, d int, seed uint64) CountRows {
	st := workload.SplitMix(seed)
	return CountRows{Width: w, Depth: d, S1: st.Uint64(), S2: st.Uint64(), S3: st.Uint64(), Cells: make([]uint32, w*d)}
}

// Hashes returns the key's h1, h2 and h3: row i's counter is reduce(h1 +
// i·h2 + C(i,2)·h3, w) in row i.
func (s *CountRows) Hashes(key uint64) (h1, h2, h3 uint64) {
	return workload.Mix64(key ^ s.S1), workload.Mix64(key ^ s.S2), workload.Mix64(key ^ s.S3)
}

// Add adds delta to key, saturating, and returns the key's estimate
// afterwards. O(d).
func (s *CountRows) Add(key, delta uint64) uint64 {
	s.N += delta
	g, step, accel := s.Hashes(key)
	w, cells := uint64(s.Width), s.Cells
	dw := w * uint64(s.Depth)
	est := uint32(math.MaxUint32)
	for off := uint64(0); off < dw; off += w {
		j := off + Reduce(g, w)
		c := SatAdd(cells[j], delta)
		cells[j] = c
		est = min(est, c)
		g += step
		step += accel
	}
	return uint64(est)
}

// SatAdd returns c + delta, or 2^32−1 if that does not fit.
func SatAdd(c uint32, delta uint64) uint32 {
	return uint32(min(uint64(c)+min(delta, math.MaxUint32), math.MaxUint32))
}

// Count returns the estimate of key: the least of its d counters. O(d).
func (s *CountRows) Count(key uint64) uint64 {
	g, step, accel := s.Hashes(key)
	w, cells := uint64(s.Width), s.Cells
	dw := w * uint64(s.Depth)
	est := uint32(math.MaxUint32)
	for off := uint64(0); off < dw; off += w {
		est = min(est, cells[off+Reduce(g, w)])
		g += step
		step += accel
	}
	return uint64(est)
}

// Bytes is the memory of the counters: 4·d·w.
func (s *CountRows) Bytes() int64 { return int64(len(s.Cells)) * CounterBytes }

// Check validates the invariants: the array is d·w counters; no counter
// exceeds N; with the plain update and no saturated counter every row sums
// to N; with the conservative update every row sums to at most N.
func (s *CountRows) Check(conservative bool) error {
	if s.Depth < 1 || s.Depth > MaxDepth || s.Width < 1 || len(s.Cells) != s.Width*s.Depth {
		return fmt.Errorf("count-min: %d counters for %d×%d", len(s.Cells), s.Depth, s.Width)
	}
	saturated := slices.Contains(s.Cells, math.MaxUint32)
	for i := range s.Depth {
		var sum, top uint64
		for _, c := range s.Cells[i*s.Width : (i+1)*s.Width] {
			sum += uint64(c)
			top = max(top, uint64(c))
		}
		if top > s.N {
			return fmt.Errorf("count-min: row %d has a counter %d above N = %d", i, top, s.N)
		}
		switch {
		case !conservative && !saturated && sum != s.N:
			return fmt.Errorf("count-min: row %d sums to %d, want N = %d", i, sum, s.N)
		case conservative && sum > s.N:
			return fmt.Errorf("count-min: conservative row %d sums to %d, more than N = %d", i, sum, s.N)
		}
	}
	return nil
}
