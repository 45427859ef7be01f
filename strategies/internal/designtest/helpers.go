package designtest

import (
	"math"
	"math/rand/v2"
	"sync"

	"countsim/workload"
)

// Test streams are generated here, not by package workload, so that these
// tests share no code with the generators they will be fed by.

// zipfTable draws ranks 0..n-1 with P(r) ∝ (r+1)^-s by Walker's alias method
// (Vose's construction): O(n) set-up, O(1) a draw.
type zipfTable struct {
	prob  []float64
	alias []int32
	pmf   []float64
}

var (
	zipfMu    sync.Mutex
	zipfCache = map[[2]float64]*zipfTable{}
)

// Zipf returns the (cached) table for n ranks and exponent s.
func Zipf(n int, s float64) *zipfTable {
	zipfMu.Lock()
	defer zipfMu.Unlock()
	k := [2]float64{float64(n), s}
	if z, ok := zipfCache[k]; ok {
		return z
	}
	z := &zipfTable{prob: make([]float64, n), alias: make([]int32, n), pmf: make([]float64, n)}
	var h float64
	for r := range n {
		z.pmf[r] = math.Pow(float64(r+1), -s)
		h += z.pmf[r]
	}
	var small, large []int32
	scaled := make([]float64, n)
	for r := range n {
		z.pmf[r] /= h
		scaled[r] = z.pmf[r] * float64(n)
		if scaled[r] < 1 {
			small = append(small, int32(r))
		} else {
			large = append(large, int32(r))
		}
	}
	for len(small) > 0 && len(large) > 0 {
		l, g := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		z.prob[l], z.alias[l] = scaled[l], g
		scaled[g] += scaled[l] - 1
		if scaled[g] < 1 {
			large = large[:len(large)-1]
			small = append(small, g)
		}
	}
	for _, r := range large {
		z.prob[r] = 1
	}
	for _, r := range small {
		z.prob[r] = 1
	}
	zipfCache[k] = z
	return z
}

func (z *zipfTable) Draw(r *rand.Rand) int {
	i := r.IntN(len(z.prob))
	if r.Float64() < z.prob[i] {
		return i
	}
	return int(z.alias[i])
}

// StreamSpec describes a seeded test stream of unit writes.
type StreamSpec struct {
	Seed     uint64
	Keys     int     // ranks 0..keys-1
	S        float64 // Zipf exponent; 0 is uniform
	Events   int
	Scramble bool // key = workload.Mix64(rank) instead of rank
}

// Gen generates the stream: Write events of Delta 1.
func (sp StreamSpec) Gen() []workload.Event {
	r := rand.New(rand.NewPCG(sp.Seed, 0x7465737473747265))
	z := Zipf(sp.Keys, sp.S)
	ev := make([]workload.Event, sp.Events)
	for i := range ev {
		k := uint64(z.Draw(r))
		if sp.Scramble {
			k = workload.Mix64(k)
		}
		ev[i] = workload.Event{At: int64(i), Key: k, Delta: 1, ID: uint64(i), Op: workload.Write}
	}
	return ev
}

// ExactCounts is the ground truth of a stream, in a Go map.
func ExactCounts(ev []workload.Event) (map[uint64]uint64, uint64) {
	m := map[uint64]uint64{}
	var n uint64
	for _, e := range ev {
		if e.Op == workload.Write && e.Delta > 0 {
			m[e.Key] += uint64(e.Delta)
			n += uint64(e.Delta)
		}
	}
	return m, n
}
