package scenarios

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// checkAccepted holds a trending run FuzzParse accepted to its ranges.
func (t *Trending) checkAccepted(sc *Scenario) error {
	s := t.Stream
	switch {
	case !(s.Rate > 0) || math.IsInf(s.Rate, 0) || s.Length < 1 || s.Length > maxDuration || s.Rate*float64(s.Length)/1e9 > maxTimedEvents:
		return fmt.Errorf("rate %v over %d ns", s.Rate, s.Length)
	case s.Regions < 1 || s.Regions > 4096 || s.Checkpoint < 1 || s.Checkpoint > s.Length || t.Batch < 1 || t.Batch > 1<<20:
		return fmt.Errorf("regions %d, checkpoint %d, batch %d", s.Regions, s.Checkpoint, t.Batch)
	case len(sc.Faults) > 0 || t.Pos.Line < 1 || s.Pos.Line < 1:
		return fmt.Errorf("faults or positions")
	}
	for _, p := range s.Plants {
		if p.Start < 0 || p.End <= p.Start || p.End > s.Length || p.Rank < 1 || p.Rank > s.Keys ||
			!(p.Share >= 0 && p.Share <= 1 && p.To >= 0 && p.To <= 1) || !p.AllRegions && p.Region >= s.Regions || p.Pos.Line < 1 {
			return fmt.Errorf("plant %+v", p)
		}
	}
	return nil
}

const trendingYAML = `name: t
seed: 1
workload:
  trending:
    rate: 1000
    duration: 10m
    keys: 1000
    regions: 2
    plants:
      - name: burst
        rank: 500
        start: 2m
        end: 6m
        share: 0.05
questions:
  top: 10
strategies:
  - name: x
    type: time-buckets
`

// TestTrendingParse: a trending run loads, a plant's to defaults to its
// share and its region to every region; a plant outside the stream, after
// the last key or in a region that does not exist, and a checkpoint longer
// than the stream are refused with the line.
func TestTrendingParse(t *testing.T) {
	s, err := Parse("t.yaml", []byte(trendingYAML))
	if err != nil {
		t.Fatal(err)
	}
	tr := s.Run.(*Trending)
	p := tr.Stream.Plants[0]
	if p.To != 0.05 || !p.AllRegions || tr.Stream.Checkpoint != 60e9 || tr.Duration() != 600e9 {
		t.Fatalf("plant %+v, checkpoint %d, duration %d", p, tr.Stream.Checkpoint, tr.Duration())
	}
	for _, c := range []struct{ old, new, want string }{
		{"end: 6m", "end: 11m", "t.yaml:13: workload.trending.plants[0].end: 11m0s is after the stream's end, 10m0s"},
		{"start: 2m", "start: 7m", "workload.trending.plants[0].start: 7m0s is not before end 6m0s"},
		{"rank: 500", "rank: 5000", "workload.trending.plants[0].rank: 5000 is beyond the 1000 keys"},
		{"share: 0.05", "share: 0.05\n        region: 2", "workload.trending.plants[0].region: 2 is not a region of 2"},
		{"regions: 2", "regions: 2\n    checkpoint: 20m", "workload.trending.checkpoint: 20m0s is longer than the stream's 10m0s"},
		{"share: 0.05", "share: 1.5", "workload.trending.plants[0].share: 1.5 is out of range"},
	} {
		_, err := Parse("t.yaml", []byte(strings.Replace(trendingYAML, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q → %q: got %v, want %q", c.old, c.new, err, c.want)
		}
	}
}
