package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"countsim/metrics"
	"countsim/sim/engine"
)

// TestLogRatingsPastTheHead: a ratings log longer than the head Prepare
// reads is planned from an estimate of its ratings and items; once read,
// the report gives the log's own beside the estimates (the test counts
// them itself), the truth's rows are the log's, and the memory planned
// holds the truth's map of the items estimated.
func TestLogRatingsPastTheHead(t *testing.T) {
	const n = logSampleEvents + 151_424 // 1,200,000: past the head, so estimated
	log := filepath.Join(t.TempDir(), "r.csv")
	var b strings.Builder
	b.WriteString("item,stars\n")
	items := map[string]bool{}
	for i := range n {
		item := fmt.Sprintf("sku-%d", (i*7919)%(1+i/40)) // more items as the log goes on
		items[item] = true
		fmt.Fprintf(&b, "%s,%d\n", item, 1+i%5)
	}
	if err := os.WriteFile(log, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := prepare(t, "name: l\nseed: 1\nworkload: {file: "+log+", as: ratings, key: item, stars: stars}\n"+
		"strategies:\n  - {name: w, type: wilson}\n", engine.Options{})
	lk := st.Kind.(*logRatingsKind)
	if lk.whole || lk.logKeys == float64(len(items)) {
		t.Fatalf("the estimate is exact (%v items of %d, whole %v): the test shows nothing", lk.logKeys, len(items), lk.whole)
	}
	if held, _ := lk.Memory(); held < goMapBytes(int64(lk.logKeys)) {
		t.Errorf("memory %d B: want at least the truth's map of %v items, %d B", held, lk.logKeys, goMapBytes(int64(lk.logKeys)))
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Results {
		switch {
		case r.Strategy != "truth":
		case r.Metric == metrics.Events && *r.Value != n, r.Metric == metrics.DistinctKeys && *r.Value != float64(len(items)):
			t.Errorf("truth %s %v, the test counts %d events of %d items", r.Metric, *r.Value, n, len(items))
		}
	}
	want := fmt.Sprintf("The log held %s ratings of %s items, estimated at ", metrics.Format(n), metrics.Format(float64(len(items))))
	if !slices.ContainsFunc(rep.Notes, func(s string) bool { return strings.HasPrefix(s, want) }) {
		t.Errorf("notes %q, want one starting %q", rep.Notes, want)
	}
	t.Log(rep.Notes)
}
