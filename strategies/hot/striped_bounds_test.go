package hot

import (
	"testing"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestStripedGrowShrinkAtThreshold pins the adaptive rule at its
// thresholds, as StripedParams says it: K doubles when the busiest stripe
// received more than grow_above in the last full second (exactly
// grow_above is not more), and halves when every stripe received fewer
// than shrink_below (exactly shrink_below is not fewer). Round-robin
// spreads a key's writes evenly, so a second of n writes over K stripes
// puts n/K on each; K changes at the first write of the next second.
// StripesFor, the K a peak rate needs, reads the same rule.
func TestStripedGrowShrinkAtThreshold(t *testing.T) {
	const growAbove, shrinkBelow = 100, 50
	s, err := NewStriped(StripedParams{Stripes: 1, Select: SelectRoundRobin, GrowAbove: growAbove, ShrinkBelow: shrinkBelow, MaxStripes: 8},
		designtest.NewMemStore(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	const key = 7
	var id uint64
	write := func(at int64) {
		id++
		s.Observe([]workload.Event{{At: at, Key: key, Delta: 1, ID: id, Op: workload.Write}})
	}
	for sec, c := range []struct {
		writes int // in this second
		k      int // K at its first write: the rule applied to the second before
		why    string
	}{
		{growAbove, 1, "K as created"},
		{growAbove + 1, 1, "the second before put exactly grow_above on the one stripe: not more, K stays"},
		{2 * shrinkBelow, 2, "the second before put grow_above + 1 on the one stripe: K doubles"},
		{2*shrinkBelow - 2, 2, "the second before put exactly shrink_below on each of 2 stripes: not fewer, K stays"},
		{1, 1, "the second before put shrink_below − 1 on each of 2 stripes: K halves"},
	} {
		at := int64(sec) * 1e9
		write(at)
		if k := s.stripesOf(key); k != c.k {
			t.Fatalf("second %d: K %d, want %d: %s", sec, k, c.k, c.why)
		}
		for i := 1; i < c.writes; i++ {
			write(at + int64(i)*1e6)
		}
	}
	if got := s.Count(key); got != id {
		t.Errorf("count %d, want the %d writes", got, id)
	}
	for _, c := range []struct {
		peak float64
		want int
	}{{growAbove, 1}, {growAbove + 1, 2}, {2 * growAbove, 2}, {2*growAbove + 1, 4}} {
		if k := s.StripesFor(0, c.peak); k != c.want {
			t.Errorf("StripesFor a peak of %v/s with grow_above %v: %d, want %d", c.peak, float64(growAbove), k, c.want)
		}
	}
}
