package strategies_test

import (
	"fmt"

	"countsim/strategies"
	"countsim/workload"
)

// A count-min sketch of ε = 0.001, δ = 0.01: 2,719 counters a row, 5 rows.
// A key's estimate is never below its count, and above it by at most εN with
// probability 99%.
func Example_countMin() {
	s, err := strategies.NewCountMin(strategies.CountMinParams{Epsilon: 0.001, Delta: 0.01}, 1)
	if err != nil {
		panic(err)
	}
	for key := range uint64(10000) {
		s.Add(key, 1+key%10)
	}
	s.Add(42, 5000)
	fmt.Println("w × d:", s.Width(), "×", s.Depth(), "=", s.Bytes(), "bytes")
	fmt.Println("N:", s.N(), "bound εN:", s.Bound())
	fmt.Println("key 42: true 5003, estimate", s.Count(42))
	// Output:
	// w × d: 2719 × 5 = 54380 bytes
	// N: 60000 bound εN: 60
	// key 42: true 5003, estimate 5013
}

// Strict parameters and the plan, as a scenario file would give them: the
// search example of the worked examples.
func ExampleType_Plan() {
	typ, err := strategies.Lookup("count-min")
	if err != nil {
		panic(err)
	}
	p, err := typ.Decode([]strategies.Param{{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}})
	if err != nil {
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
	_, err = typ.Decode([]strategies.Param{{Key: "epsilon", Value: 1.5, Line: 7}, {Key: "delta", Value: 0.01, Line: 8}})
	fmt.Println(err)
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
	// count-min: parameter epsilon: 1.5 not in (0,1)
}

// Space-Saving with 3 counters: the heavy key is monitored with its exact
// count; a key that took over an evicted counter carries its error.
func ExampleSpaceSaving() {
	s, err := strategies.NewSpaceSaving(strategies.SpaceSavingParams{Counters: 3}, 1)
	if err != nil {
		panic(err)
	}
	var batch []workload.Event
	for i := range 20 {
		batch = append(batch, workload.Event{Key: 7, Delta: 1}, workload.Event{Key: uint64(100 + i%5), Delta: 1})
	}
	s.Observe(batch)
	for _, it := range s.Top(3) {
		fmt.Printf("key %d: count %d, error %d, true count in [%d, %d]\n", it.Key, it.Count, it.Err, it.Count-it.Err, it.Count)
	}
	fmt.Println("guaranteed top 1:", s.Guaranteed(1))
	// Output:
	// key 7: count 20, error 0, true count in [20, 20]
	// key 103: count 10, error 9, true count in [1, 10]
	// key 104: count 10, error 9, true count in [1, 10]
	// guaranteed top 1: true
}

// Exact counts over 4 shards by key hash: the top 2 is the merge of the
// shards' local top 2, exact because a key lives on one shard.
func ExampleExact_Top() {
	x, err := strategies.NewExact(strategies.ExactParams{Shards: 4}, 100, 1)
	if err != nil {
		panic(err)
	}
	for key := range uint64(100) {
		x.Add(key, key%17)
	}
	fmt.Println(x.Top(2), x.Len(), "keys")
	// Output:
	// [{16 16 0} {33 16 0}] 94 keys
}
