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

// TestLogAudiencePlansFromWhatWasRead: a log longer than the head Prepare
// reads is estimated from its head; before the designs it is read once for
// its truth, so that they are built and planned for its own distinct
// actors (the test counts them itself): the exact set's bytes measured and
// planned for them, a note giving the estimates beside them. The memory
// the run plans holds the truth's map of the actors estimated.
func TestLogAudiencePlansFromWhatWasRead(t *testing.T) {
	const n = logSampleEvents + 151_424 // 1,200,000: past the head, so estimated
	log := filepath.Join(t.TempDir(), "v.csv")
	var b strings.Builder
	b.WriteString("user\n")
	seen := map[string]bool{}
	for i := range n {
		u := fmt.Sprintf("u%d", (i*7919)%(1+i/3)) // more users as the log goes on: the estimate is off
		seen[u] = true
		b.WriteString(u + "\n")
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := prepare(t, "name: l\nseed: 1\nworkload: {file: "+log+", as: audience, key: user, actor: user}\n"+
		"strategies:\n  - {name: exact, type: exact-distinct}\n  - {name: hll, type: hll, params: {p: 12}}\n", engine.Options{})
	lk := st.Kind.(*logAudienceKind)
	truth := float64(len(seen))
	if lk.whole || lk.est.union == truth || lk.est.days != 1 {
		t.Fatalf("the estimate is exact (%v actors of %v, whole %v) or not one day (%d): the test shows nothing", lk.est.union, truth, lk.whole, lk.est.days)
	}
	if held, copies := lk.Memory(); held < goMapBytes(int64(lk.est.union)) || copies != 1 {
		t.Errorf("memory %d B, %d copies: want the truth's map of %v actors (%d B) and one day", held, copies, lk.est.union, goMapBytes(int64(lk.est.union)))
	}
	planAt := func(keys uint64, design string, m metrics.Metric) float64 {
		env := lk.lineup.Env
		env.Keys, env.Events = keys, n
		for _, d := range lk.lineup.Members {
			if d.Name() == design {
				for _, l := range d.Typ.Plan(d.Params, env) {
					if l.Metric == m && !l.Full {
						return l.Value
					}
				}
			}
		}
		t.Fatalf("%s plans no %s", design, m)
		return 0
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	plan := func(design string, m metrics.Metric) float64 { return mustPlan(t, rep, design, m) }
	if got, want := plan("exact", metrics.Bytes), planAt(uint64(truth), "exact", metrics.Bytes); got != want {
		t.Errorf("the exact set's bytes: plan %v, want %v for the %v actors read", got, want, truth)
	}
	for _, r := range rep.Results { // built for them too, as the synthetic run builds it
		if r.Strategy == "exact" && r.Metric == metrics.Bytes && r.Scale == metrics.Sim && (r.Value == nil || r.Plan == nil || *r.Value != *r.Plan) {
			t.Errorf("the exact set's bytes: %v measured, %v planned", optionalValue(r.Value), optionalValue(r.Plan))
		}
	}
	if planAt(uint64(truth), "exact", metrics.Bytes) == planAt(uint64(math.Ceil(lk.est.largest)), "exact", metrics.Bytes) {
		t.Errorf("the exact set's plan is the same for the estimate and the truth: the test shows nothing")
	}
	t.Log(rep.Notes)
	want := fmt.Sprintf("The log held %s events, %s distinct actors", metrics.Format(n), metrics.Format(truth))
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("notes %q, want one starting %q", rep.Notes, want)
	}
}

func optionalValue(x *float64) any {
	if x == nil {
		return "none"
	}
	return *x
}

// A log replayed as an audience and stopped before its stream ends scores
// no day cut short, and its plans are for what was fed.
func TestLogAudienceStopped(t *testing.T) {
	log := filepath.Join(t.TempDir(), "v.csv")
	var b strings.Builder
	b.WriteString("user\n")
	for i := range 5000 {
		fmt.Fprintf(&b, "u%d\n", i%700)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep, err := prepare(t, "name: l\nseed: 1\nworkload: {file: "+log+", as: audience, key: user, actor: user}\n"+
		"strategies:\n  - {name: hll, type: hll}\n", engine.Options{}).Run(ctx)
	if err == nil || rep == nil || !rep.Partial {
		t.Fatalf("got %v, %+v; want a partial report", err, rep)
	}
	if got := rowsOf(rep.Results, "hll", "distinct"); len(got) != 0 {
		t.Errorf("a day cut short was scored: %+v", got)
	}
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, "Stopped after ") }) {
		t.Errorf("notes %q: want the plans for what was fed", rep.Notes)
	}
}
