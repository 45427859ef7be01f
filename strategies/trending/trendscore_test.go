package trending

import (
	"math"
	"testing"
	"time"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// TestTrendScore: every trending design's TrendScore of a key in its top K
// is the score its Trending gives it, and 0 for a key never seen.
func TestTrendScore(t *testing.T) {
	ev := designtest.DecayStream(5, 20000, 500, 1, 50*time.Millisecond)
	tb, _ := NewTimeBuckets(TimeBucketsParams{Bucket: time.Minute, Window: 10 * time.Minute}, 1)
	wcm, _ := NewWindowedCountMin(WindowedCountMinParams{Bucket: time.Minute, Window: 10 * time.Minute}, strategies.Env{Seed: 1, Top: 10})
	de, _ := NewDecayExact(5*time.Minute, 500, 1)
	ds, _ := NewDecaySpaceSaving(5*time.Minute, 100, 1)
	for _, d := range []strategies.TrendScorer{tb, wcm, de, ds} {
		for b := 0; b < len(ev); b += 1000 {
			d.Observe(ev[b : b+1000])
			now := ev[b+999].At
			for _, tr := range d.Trending(10, now) {
				if got := d.TrendScore(tr.Key, now); math.Abs(got-tr.Score) > 1e-9*tr.Score {
					t.Fatalf("%T: TrendScore(%d) = %v, Trending says %v", d, tr.Key, got, tr.Score)
				}
			}
			if got := d.TrendScore(1<<63+12345, now); got != 0 {
				t.Fatalf("%T: a key never seen scores %v", d, got)
			}
		}
	}
}
