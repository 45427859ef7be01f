package trending

import (
	"testing"
	"time"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestRegionalSendInstant pins which send an event at exactly a send time
// belongs to, as Regional says: the send at a period's end t carries the
// writes before t; a write at t itself is counted after it and goes with
// the next send. Asked at t, the global counter has had the send at t
// (due sends every period's end at or before now).
func TestRegionalSendInstant(t *testing.T) {
	const period = int64(10 * time.Second)
	st := designtest.NewMemStore(t)
	r, err := NewRegional(RegionalParams{Regions: 1, Period: time.Duration(period), Threshold: 100},
		strategies.Env{Seed: 1, Nodes: 1, Duration: 60e9, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	const key = 42
	r.Observe([]workload.Event{
		{At: period / 2, Key: key, Delta: 1, ID: 1, Op: workload.Write},
		{At: period, Key: key, Delta: 10, ID: 2, Op: workload.Write}, // at the send instant
	})
	for _, c := range []struct {
		now  int64
		want float64
		why  string
	}{
		{period, 1, "asked at the send instant: the send at 10 s, without the write at 10 s"},
		{2*period - 1, 1, "before the next send"},
		{2 * period, 11, "the send at 20 s carries the write at 10 s"},
	} {
		if got := r.TrendScore(key, c.now); got != c.want {
			t.Errorf("global count at %v: %v, want %v: %s", time.Duration(c.now), got, c.want, c.why)
		}
	}
	if msgs, items, _ := r.Coordination(); msgs != 2 || items != 2 {
		t.Errorf("coordination: %d messages, %d items, want 2 and 2 (one a send)", msgs, items)
	}

	// Asked at the send instant before any write reaches it: due sends.
	q, err := NewRegional(RegionalParams{Regions: 1, Period: time.Duration(period), Threshold: 100}, strategies.Env{Seed: 1, Nodes: 1, Duration: 60e9})
	if err != nil {
		t.Fatal(err)
	}
	q.Observe([]workload.Event{{At: period - 1, Key: key, Delta: 3, ID: 1, Op: workload.Write}})
	if got := q.TrendScore(key, period-1); got != 0 {
		t.Errorf("global count at 10 s − 1 ns: %v, want 0 (no send yet)", got)
	}
	if got := q.TrendScore(key, period); got != 3 {
		t.Errorf("global count at 10 s: %v, want 3 (the send at 10 s is due at 10 s)", got)
	}
}
