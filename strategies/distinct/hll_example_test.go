package distinct_test

import (
	"fmt"

	"countsim/strategies/distinct"
	"countsim/workload"
)

// The two days of a cricket final at 1/1000 scale: 40,000 viewers on day 1,
// 38,000 on day 2 of whom 30,000 also watched day 1. A HyperLogLog of
// 16,384 registers (12,288 bytes once dense) estimates each day within about
// 1.04/√m = 0.81%; adding the two counts counts the 30,000 twice, merging
// the sketches counts the union, 48,000.
func Example_hll() {
	views := func(lo, hi uint64) []workload.Event {
		var ev []workload.Event
		for id := lo; id < hi; id++ {
			ev = append(ev, workload.Event{Actor: id, Delta: 1, Op: workload.Write})
		}
		return ev
	}
	day1, err := distinct.NewHLL(distinct.HLLParams{Precision: 14}, 1)
	if err != nil {
		panic(err)
	}
	day2, _ := distinct.NewHLL(distinct.HLLParams{Precision: 14}, 1)
	day1.Observe(views(0, 40_000))
	day2.Observe(views(10_000, 48_000))
	fmt.Printf("day 1: %.0f (true 40000), %d bytes\n", day1.Distinct(), day1.Bytes())
	fmt.Printf("day 2: %.0f (true 38000)\n", day2.Distinct())
	fmt.Printf("sum:   %.0f (double counts the 30000 who came twice)\n", day1.Distinct()+day2.Distinct())
	if err := day1.Merge(day2); err != nil {
		panic(err)
	}
	fmt.Printf("union: %.0f (true 48000)\n", day1.Distinct())

	other, _ := distinct.NewHLL(distinct.HLLParams{Precision: 12}, 1)
	fmt.Println(day1.Merge(other))
	// Output:
	// day 1: 40406 (true 40000), 12288 bytes
	// day 2: 37895 (true 38000)
	// sum:   78301 (double counts the 30000 who came twice)
	// union: 48398 (true 48000)
	// hll: strategies: cannot merge sketches with different parameters: precision 14 and 12
}
