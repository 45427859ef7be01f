package sim

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
)

// A log longer than the head Prepare reads is planned from an estimate of
// its events; once it is read whole its N is known, and every plan that
// depends on N — count-min's εN, Space-Saving's N/m — is worked out for
// it, the judgement of keys over the bound with it, and a note gives the
// estimate beside the count (issue 25: εN of 3,005 for a log of exactly
// 3,000,000 events).
func TestLogPlansFromWhatWasRead(t *testing.T) {
	const n = logSampleEvents + 151_424 // 1,200,000: past the head, so estimated
	log := filepath.Join(t.TempDir(), "s.csv")
	var b strings.Builder
	b.WriteString("key\n")
	for i := range n {
		fmt.Fprintf(&b, "phrase #%d\n", (i*7919)%(1+i%5000)) // lines of uneven length: the estimate is off
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := prepare(t, "name: l\nseed: 1\nworkload: {file: "+log+", format: csv, key: key, rate: 100000}\n"+
		"questions: {top: 10}\nstrategies:\n  - {name: cm, type: count-min, params: {epsilon: 0.001, delta: 0.01}}\n"+
		"  - {name: ss, type: space-saving, params: {counters: 1000}}\n", engine.Options{})
	lk := st.Kind.(*logKind)
	if lk.whole || lk.logEvents == n {
		t.Fatalf("the estimate is exact (%v events, whole %v): the test shows nothing", lk.logEvents, lk.whole)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan := func(design string, m metrics.Metric) float64 { return mustPlan(t, rep, design, m) }
	if got := plan("cm", metrics.OverestimateBound); got != 0.001*n {
		t.Errorf("count-min's εN: plan %v, want %v (ε × the events read)", got, 0.001*n)
	}
	if got := plan("ss", metrics.GuaranteeAbove); got != n/1000 {
		t.Errorf("Space-Saving's N/m: plan %v, want %v", got, n/1000)
	}
	if got := plan("cm", metrics.MaxOverestimate); got != 0.001*n {
		t.Errorf("the bound beside count-min's largest overestimate: %v, want %v", got, 0.001*n)
	}
	want := fmt.Sprintf("The log held %s events, estimated at %s", metrics.Format(n), metrics.Format(math.Ceil(lk.logEvents)))
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("notes %q, want one starting %q", rep.Notes, want)
	}
}
