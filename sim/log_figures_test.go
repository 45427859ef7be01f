package sim

import (
	"context"
	"countsim/metrics"
	"countsim/sim/engine"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// simPlan is design's simulated-scale plan of m in rep, or -1.
func simPlan(rep *engine.Report, design string, m metrics.Metric) float64 {
	for _, r := range rep.Results {
		if r.Strategy == design && r.Metric == m && r.Scale == metrics.Sim && r.Plan != nil {
			return *r.Plan
		}
	}
	return -1
}

// mustPlan is design's simulated-scale plan of m in rep; t fails where rep
// has none.
func mustPlan(t *testing.T, rep *engine.Report, design string, m metrics.Metric) float64 {
	t.Helper()
	for _, r := range rep.Results {
		if r.Strategy == design && r.Metric == m && r.Scale == metrics.Sim && r.Plan != nil {
			return *r.Plan
		}
	}
	t.Fatalf("%s has no plan for %s", design, m)
	return 0
}

// TestLogPlansFromItsKeysAndActors: a log's distinct keys and actors are
// its own once read. A log of 1,200,000 events (past Prepare's head) over
// 4 phrases and 1,200,000 users: the exact set of users is built and
// planned for them — 8 B × 2^21 slots, not the 64 B of a set for 4 — and
// decay's keys tracked are the 4
// keys read; a note gives the estimates beside the figures. A log of
// 1,901 events over 4 keys read whole: decay tracks 4, not 1,901.
func TestLogPlansFromItsKeysAndActors(t *testing.T) {
	const n = logSampleEvents + 151_424
	dir := t.TempDir()
	log := filepath.Join(dir, "s.csv")
	var b strings.Builder
	b.WriteString("key,user\n")
	for i := range n {
		fmt.Fprintf(&b, "phrase %d,user-%d\n", i%4, i)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	designs := "strategies:\n  - {name: set, type: exact-distinct}\n  - {name: decay, type: decay, params: {half_life: 1m}}\n"
	st := prepare(t, "name: l\nseed: 1\nworkload: {file: "+log+", key: key, actor: user, rate: 100000}\n"+designs, engine.Options{})
	lk := st.Kind.(*logKind)
	if lk.whole || lk.logActors < 1e6 || lk.logKeys != 4 {
		t.Fatalf("the head's estimate: whole %v, %v actors, %v keys", lk.whole, lk.logActors, lk.logKeys)
	}
	if p := st.Members[0].PlannedValue(metrics.Bytes); p < 8<<20 {
		t.Errorf("the set's bytes planned at Prepare: %v, want a table for about 10^6 actors", p)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	measured := func(design string, m metrics.Metric) float64 {
		for _, r := range rep.Results {
			if r.Strategy == design && r.Metric == m && r.Value != nil {
				return *r.Value
			}
		}
		return -1
	}
	if got, want := simPlan(rep, "set", metrics.Bytes), measured("set", metrics.Bytes); got != want || want != 8<<21 {
		t.Errorf("the set's bytes: plan %v, measured %v, want both 8 B × 2^21 (1,200,000 ids)", got, want)
	}
	if got := simPlan(rep, "decay", metrics.KeysTracked); got != 4 {
		t.Errorf("decay's keys tracked: plan %v, want the 4 keys read", got)
	}
	if !slices.ContainsFunc(rep.Notes, func(s string) bool {
		// past 2^20 actors an HLL counts them: within 4σ = 1.6% of 1,200,000
		var actors, est float64
		i := strings.Index(s, "; ")
		if i < 0 || !strings.HasPrefix(s, "The log held 1,200,000 events, estimated at") {
			return false
		}
		if _, err := fmt.Sscanf(strings.ReplaceAll(s[i+2:], ",", ""), "%g actors estimated at %g", &actors, &est); err != nil {
			return false
		}
		return actors > 1_200_000*0.984 && actors < 1_200_000*1.016
	}) {
		t.Errorf("notes %q: want the events and actors read beside their estimates", rep.Notes)
	}

	small := filepath.Join(dir, "small.csv")
	b.Reset()
	b.WriteString("key\n")
	for i := range 1901 {
		fmt.Fprintf(&b, "phrase %d\n", i%4)
	}
	if err := os.WriteFile(small, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st = prepare(t, "name: l\nseed: 1\nworkload: {file: "+small+", key: key}\n"+designs, engine.Options{})
	if rep, err = st.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := simPlan(rep, "decay", metrics.KeysTracked); got != 4 {
		t.Errorf("decay's keys tracked on a log read whole: plan %v, want 4", got)
	}
}
