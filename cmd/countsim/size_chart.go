package main

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"countsim/metrics"
	"countsim/plots"
	"countsim/scenarios"
	"countsim/sim/size"
)

// frontierSeries are the frontier charts of the steps sized: for each goal
// on a measured figure (not bytes), each design's worst measured value
// against its bytes at every size tried, the goal as a line and each
// design's chosen size a point of its own.
func frontierSeries(steps []*scenarios.Scenario, all []size.Sized) []metrics.Series {
	var out []metrics.Series
	for _, st := range steps {
		for gi, g := range st.Goals.Meet {
			if slices.Contains([]string{string(metrics.Bytes), string(metrics.TotalBytes)}, g.Metric) {
				continue
			}
			name := "frontier-" + g.Metric
			if slices.ContainsFunc(st.Goals.Meet[:gi], func(o scenarios.Expectation) bool { return o.Metric == g.Metric }) {
				continue // one chart a metric
			}
			var group []metrics.Series
			for _, s := range all {
				if s.Scenario != st.ID() || s.Skipped != "" {
					continue
				}
				line := metrics.Series{Scenario: st.Name, Step: st.Step, Strategy: s.Design, Name: name, Kind: metrics.Curve,
					Title: fmt.Sprintf("size: %s against bytes, the goal %s", g.Metric, g.Text), XLabel: "bytes (the largest measured)", YLabel: g.Metric + " (worst over trials)", LogX: true}
				pts := slices.Clone(s.Tried)
				slices.SortFunc(pts, func(a, b size.Point) int { return cmp.Compare(a.Bytes, b.Bytes) })
				for _, p := range pts {
					if v, ok := worst(p, gi); ok && p.Bytes > 0 {
						line.X, line.Y = append(line.X, p.Bytes), append(line.Y, v)
					}
				}
				if len(line.X) == 0 {
					continue
				}
				group = append(group, line)
				if p := s.Chosen(); p != nil {
					if v, ok := worst(*p, gi); ok && p.Bytes > 0 {
						mark := line
						mark.Strategy, mark.X, mark.Y = s.Design+" (chosen)", []float64{p.Bytes}, []float64{v}
						group = append(group, mark)
					}
				}
			}
			if len(group) > 0 {
				group[0].Marks = []metrics.Mark{{Label: "goal: " + g.Text, Value: g.Value, Axis: "y"}}
				out = append(out, group...)
			}
		}
	}
	return out
}

// worst is the point's worst measured value of goal i.
func worst(p size.Point, i int) (float64, bool) {
	if i >= len(p.Checks) || !p.Checks[i].Measured {
		return 0, false
	}
	return p.Checks[i].Worst, true
}

// drawFrontiers draws the frontier charts in a fresh folder under out,
// size-NAME-YYYYMMDD-HHMMSS, and returns it ("" when there is nothing to
// draw).
//
// A chart with nothing to compare (every point the same) is left out and
// said in notes, as run leaves such charts out; any other failure is an
// error.
func drawFrontiers(out string, steps []*scenarios.Scenario, all []size.Sized) (dir string, notes []string, err error) {
	series := frontierSeries(steps, all)
	if len(series) == 0 {
		return "", nil, nil
	}
	dir = filepath.Join(out, "size-"+steps[0].Name+"-"+time.Now().UTC().Format("20060102-150405"))
	files, err := plots.Draw(dir, series)
	if err != nil && len(files) == 0 && !strings.Contains(err.Error(), "no data to draw") {
		return "", nil, fmt.Errorf("size: frontier charts: %w", err)
	}
	if err != nil {
		for line := range strings.SplitSeq(err.Error(), "\n") {
			notes = append(notes, "left out: "+line)
		}
	}
	if len(files) == 0 {
		dir = ""
	}
	return dir, notes, nil
}
