package sim

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
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
	st := prepare(t, yaml, engine.Options{})
	var built int64
	for _, d := range st.Members {
		s, err := d.Build(st.Env)
		if err != nil {
			t.Fatal(err)
		}
		built += s.Bytes()
		if d.Spec.Type == "split-topk" || d.Spec.Type == "threshold-topk" {
			if p := d.PlannedValue("bytes"); p != float64(s.Bytes()) {
				t.Errorf("%s: plans %v B, built holds %d", d.Name(), p, s.Bytes())
			}
		}
	}
	held, _ := st.Kind.Memory()
	if need := st.MemoryNeeded(); need < held+built {
		t.Errorf("planned %d B, below the truth's %d and the designs' %d as built", need, held, built)
	}
}

// TestGoMapBytes holds the model of a Go map's memory to the runtime's:
// a map of uint64 to uint64 made with room for n and filled to 95% of n
// takes goMapBytes(n) within 10%. A new Go whose maps take otherwise
// fails here, before a log's plan drifts from its peak.
func TestGoMapBytes(t *testing.T) {
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, n := range []int{50_000, 300_000, 460_000, 1_000_000, 1_124_686, 3_659_263} {
		before := heap()
		m := make(map[uint64]uint64, n)
		for i := range n * 95 / 100 {
			m[workload.Mix64(uint64(i))] = 1
		}
		got := float64(heap() - before)
		runtime.KeepAlive(m)
		if want := float64(goMapBytes(int64(n))); math.Abs(got/want-1) > 0.1 {
			t.Errorf("a map made for %d: %.0f B, the model %.0f B", n, got, want)
		}
	}
}

// TestLogPlansTwiceWhatIsLive: a recorded log's reader makes garbage at
// every line, so the plan counts what the run holds twice, as it does for a
// run on a real store: the same designs on a synthetic stream of as many
// events (designs sized alike) count once, with the same buffers.
func TestLogPlansTwiceWhatIsLive(t *testing.T) {
	log := filepath.Join(t.TempDir(), "s.csv")
	var b strings.Builder
	b.WriteString("key\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "phrase #%d\n", i%1234)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	const designs = "questions: {top: 10}\nstrategies:\n  - {name: e, type: exact}\n  - {name: cm, type: count-min, params: {width: 100000, depth: 4}}\n"
	need := func(workload string) (int64, int64) {
		st := prepare(t, "name: l\nseed: 1\nworkload: "+workload+"\n"+designs, engine.Options{})
		held, _ := st.Kind.Memory()
		return st.MemoryNeeded() - engine.ProcessBytes, held
	}
	logNeed, logHeld := need("{file: " + log + ", format: csv, key: key, rate: 1000}")
	synNeed, synHeld := need("{events: 5000, keys: 1_000_000, s: 1}")
	if want := 2 * (synNeed - synHeld + logHeld); logNeed != want || logHeld <= 0 {
		t.Errorf("the log plans %d B over the process (its truth %d B); want twice what the synthetic run holds with the log's truth, %d B", logNeed, logHeld, want)
	}
}
