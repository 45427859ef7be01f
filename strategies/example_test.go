package strategies_test

import (
	"fmt"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/frequency" // count-min, the type of the example
)

// Strict parameters and the plan, as a scenario file would give them: the
// search example of the worked examples. The scenario decoder fills the
// type's parameter struct by its tags, then the type checks its rules.
func ExampleType_Plan() {
	typ, err := strategies.Lookup("count-min")
	if err != nil {
		panic(err)
	}
	at := scenarios.Pos{File: "search.yaml", Line: 5}
	p := typ.New()
	if err := scenarios.DecodeParams("params", at, []scenarios.Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}}, p); err != nil {
		panic(err)
	}
	if err := typ.Validate(p); err != nil {
		panic(err)
	}
	env := strategies.Env{Events: 1e7, Full: strategies.Assumptions{Events: 2e9, KthCount: 1.4e7}}
	for _, l := range typ.Plan(p, env) {
		scale := "sim"
		if l.Full {
			scale = "full"
		}
		fmt.Printf("%-20s %-4s %v %s\n", l.Metric, scale, l.Value, l.Unit)
	}
	bad := []scenarios.Param{{Key: "epsilon", Value: 1.5, Pos: scenarios.Pos{File: "search.yaml", Line: 7}}, {Key: "delta", Value: 0.01, Pos: scenarios.Pos{File: "search.yaml", Line: 8}}}
	fmt.Println(scenarios.DecodeParams("params", at, bad, typ.New()))
	fmt.Println(typ.Validate(&frequency.CountMinParams{Epsilon: 0.01}))
	// Output:
	// undercounts          sim  0 keys
	// width                sim  27183 counters
	// depth                sim  5 rows
	// counters             sim  135915 counters
	// bytes                sim  543660 B
	// overestimate_bound   sim  1000 events
	// bound_confidence     sim  0.99326 probability
	// overestimate_bound_2n_w sim  736 events
	// bound_2n_w_confidence sim  0.96875 probability
	// overestimate_bound   full 200000 events
	// bound_confidence     full 0.99326 probability
	// overestimate_bound_2n_w full 147151 events
	// bound_2n_w_confidence full 0.96875 probability
	// bound_share_of_kth   full 1.4285714285714286 %
	// failure_probability  sim  0.01 probability
	// search.yaml:7: params.epsilon: 1.5 is out of range (allowed: a number in (0,1))
	// count-min: parameter epsilon: given without delta: give both
}
