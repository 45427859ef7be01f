package ds

import (
	"slices"
	"testing"

	"countsim/workload"
)

// TestTopCounts: TopCounts keeps the heap ExactTop keeps, item for item,
// ties of counts included, at every k from 0 past the table's size, and
// allocates nothing but its answer.
func TestTopCounts(t *testing.T) {
	var tab CountTable
	tab.Init(64, 7)
	g := workload.SplitMix(3)
	for range 300 {
		key := g.Uint64() % 90
		tab.Add(workload.Mix64(key^tab.Seed), key, 1+g.Uint64()%4)
	}
	for _, k := range []int{0, 1, 2, 10, 50, 89, 90, 200} {
		if got, want := TopCounts(&tab, k), ExactTop(&tab, k); !slices.Equal(got, want) {
			t.Fatalf("k = %d: TopCounts %v, ExactTop %v", k, got, want)
		}
	}
	if a := testing.AllocsPerRun(10, func() { TopCounts(&tab, 10) }); a > 1 {
		t.Fatalf("TopCounts allocates %v times, want 1 (its answer)", a)
	}
}
