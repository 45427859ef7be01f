package plots

import (
	"fmt"

	"countsim/metrics"
)

// TopKRecall turns the results with Metric "topk_recall" into one Bars
// series per scenario, named "topk_recall": Labels are the strategies in the
// order they first come, Y their recall. Where a strategy has several such
// results (checkpoints), the last one counts. Results whose value is NaN or
// ±Inf are left out. Scenarios come in the order they first appear; Draw
// sorts its files anyway.
//
// The title names K when every result of the scenario says which it is in
// its Note ("true top 10 found", as sim writes it), else "top-K".
func TopKRecall(results []metrics.Result) []metrics.Series {
	type acc struct {
		series metrics.Series
		index  map[string]int
		k      int // -1 once the results disagree or do not say
	}
	var order []string
	byScenario := map[string]*acc{}
	for _, r := range results {
		if r.Metric != "topk_recall" || !keep(r.Value, false) {
			continue
		}
		a := byScenario[r.Scenario]
		if a == nil {
			a = &acc{
				series: metrics.Series{
					Scenario: r.Scenario,
					Name:     "topk_recall",
					Kind:     metrics.Bars,
					XLabel:   "design",
					YLabel:   "recall",
				},
				index: map[string]int{},
				k:     noteK(r.Note),
			}
			byScenario[r.Scenario] = a
			order = append(order, r.Scenario)
		}
		if k := noteK(r.Note); k != a.k {
			a.k = -1
		}
		if i, ok := a.index[r.Strategy]; ok {
			a.series.Y[i] = r.Value
			continue
		}
		a.index[r.Strategy] = len(a.series.Labels)
		a.series.Labels = append(a.series.Labels, r.Strategy)
		a.series.Y = append(a.series.Y, r.Value)
	}
	out := make([]metrics.Series, 0, len(order))
	for _, sc := range order {
		a := byScenario[sc]
		k := "K"
		if a.k > 0 {
			k = fmt.Sprint(a.k)
		}
		a.series.Title = fmt.Sprintf("top-%s recall of each design", k)
		out = append(out, a.series)
	}
	return out
}

// noteK reads K from a note "true top K found", or returns -1.
func noteK(note string) int {
	var k int
	if n, err := fmt.Sscanf(note, "true top %d found", &k); n != 1 || err != nil || k <= 0 {
		return -1
	}
	return k
}
