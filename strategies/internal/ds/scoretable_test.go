package ds

import (
	"testing"

	"countsim/workload"
)

// TestScoreTable checks the table against a map through its growth: every
// player's score and presence, the count, and the table's invariants.
func TestScoreTable(t *testing.T) {
	for _, sized := range []int{0, 100, 5000} {
		tb, ref := NewScoreTable(sized), map[uint64]int64{}
		g := workload.SplitMix(uint64(sized) + 3)
		for i := range 20000 {
			id := g.Uint64() % 8000 << 40 // ids that differ in their high bits only
			tb.Prefetch(id)
			p, held := tb.Ref(id)
			want, ok := ref[id]
			if held != ok || *p != want {
				t.Fatalf("sized %d, op %d: Ref(%d) = %d, %v; want %d, %v", sized, i, id, *p, held, want, ok)
			}
			s := int64(g.Uint64()%41) - 20 // 0 and negative scores are scores
			*p, ref[id] = s, s
			if i%997 == 0 {
				if err := tb.Check(); err != nil {
					t.Fatalf("sized %d, op %d: %v", sized, i, err)
				}
			}
		}
		if tb.Len() != len(ref) {
			t.Fatalf("sized %d: %d players, want %d", sized, tb.Len(), len(ref))
		}
		for id, want := range ref {
			if got, ok := tb.Get(id); !ok || got != want {
				t.Fatalf("sized %d: Get(%d) = %d, %v; want %d, true", sized, id, got, ok, want)
			}
		}
		if _, ok := tb.Get(1); ok {
			t.Fatalf("sized %d: Get of a player never added found one", sized)
		}
	}
}
