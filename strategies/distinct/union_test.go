package distinct

import (
	"errors"
	"testing"

	"countsim/strategies"
)

// UnionWith is Merge behind the DistinctUnion interface, and refuses a
// design of another type without changing the receiver.
func TestUnionWith(t *testing.T) {
	a, _ := NewHLL(HLLParams{Precision: 12}, 1)
	b, _ := NewHLL(HLLParams{Precision: 12}, 1)
	x := NewExactDistinct(16, 1)
	y := NewExactDistinct(16, 1)
	for id := range uint64(3000) {
		a.Insert(id)
		x.Insert(id)
		b.Insert(id + 2000)
		y.Insert(id + 2000)
	}
	var ua, ux strategies.DistinctUnion = a, x
	if err := ua.UnionWith(b); err != nil {
		t.Fatal(err)
	}
	if err := ux.UnionWith(y); err != nil {
		t.Fatal(err)
	}
	if got := x.Distinct(); got != 5000 {
		t.Errorf("exact union: got %v, want 5000", got)
	}
	if got := a.Distinct(); got < 4500 || got > 5500 {
		t.Errorf("hll union at p=12 (σ 1.6%%): got %v, want near 5000", got)
	}
	before := a.Distinct()
	if err := ua.UnionWith(x); !errors.Is(err, strategies.ErrMergeParams) {
		t.Errorf("hll with exact-distinct: got %v, want ErrMergeParams", err)
	}
	if err := ux.UnionWith(a); !errors.Is(err, strategies.ErrMergeParams) {
		t.Errorf("exact-distinct with hll: got %v, want ErrMergeParams", err)
	}
	if a.Distinct() != before || x.Distinct() != 5000 {
		t.Error("a refused union changed the receiver")
	}
}
