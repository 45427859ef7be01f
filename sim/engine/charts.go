package engine

import "countsim/metrics"

// DropFlat leaves out the charts that would show nothing (metrics.Flat):
// three bars of recall 1, a backlog of 0 throughout, a sweep whose error
// is 0 at every size. Their value is in the tables; plots refuses them.
func DropFlat(series []metrics.Series) []metrics.Series {
	type chart struct{ scenario, step, name string }
	groups := map[chart][]metrics.Series{}
	for _, s := range series {
		k := chart{s.Scenario, s.Step, s.Name}
		groups[k] = append(groups[k], s)
	}
	var out []metrics.Series
	for _, s := range series {
		if !metrics.Flat(groups[chart{s.Scenario, s.Step, s.Name}]) {
			out = append(out, s)
		}
	}
	return out
}
