package sim

import (
	"strings"
	"testing"

	"countsim/scenarios"
)

// TestSplitPlansWhatItsNodesHold: the memory check counts a split stream's
// designs at the bytes they hold once built — a table a node for
// split-topk and threshold-topk, which plan no sketch's bytes — so that the
// plan of search-split (here at a tenth of its events) is not below the
// truth's keys and what every design holds before the first event.
func TestSplitPlansWhatItsNodesHold(t *testing.T) {
	src, err := scenarios.BuiltinSource("search-split")
	if err != nil {
		t.Fatal(err)
	}
	yaml := strings.Replace(string(src), "events: 4_000_000", "events: 400_000", 1)
	st := prepare(t, yaml, Options{})
	var built int64
	for _, d := range st.designs {
		s, err := d.build(st.env)
		if err != nil {
			t.Fatal(err)
		}
		built += s.Bytes()
		if d.spec.Type == "split-topk" || d.spec.Type == "threshold-topk" {
			if p := d.plannedValue("bytes"); p != float64(s.Bytes()) {
				t.Errorf("%s: plans %v B, built holds %d", d.name(), p, s.Bytes())
			}
		}
	}
	held, _ := st.kind.memory()
	if need := st.MemoryNeeded(); need < held+built {
		t.Errorf("planned %d B, below the truth's %d and the designs' %d as built", need, held, built)
	}
}
