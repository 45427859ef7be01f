package frequency_test

import (
	"fmt"

	"countsim/strategies/frequency"
	"countsim/workload"
)

// A count-min sketch of ε = 0.001, δ = 0.01: 2,719 counters a row, 5 rows.
// A key's estimate is never below its count, and above it by at most εN with
// probability 99%.
func Example_countMin() {
	s, err := frequency.NewCountMin(frequency.CountMinParams{Epsilon: 0.001, Delta: 0.01}, 1)
	if err != nil {
		panic(err)
	}
	var ev []workload.Event
	for key := range uint64(10000) {
		ev = append(ev, workload.Event{Key: key, Delta: int64(1 + key%10), Op: workload.Write})
	}
	ev = append(ev, workload.Event{Key: 42, Delta: 5000, Op: workload.Write})
	s.Observe(ev)
	fmt.Println("4 B × 5 rows × 2719 counters =", s.Bytes(), "bytes")
	fmt.Println("N = 60000, bound εN:", s.Bound())
	fmt.Println("key 42: true 5003, estimate", s.Count(42))
	// Output:
	// 4 B × 5 rows × 2719 counters = 54380 bytes
	// N = 60000, bound εN: 60
	// key 42: true 5003, estimate 5013
}

// Space-Saving with 3 counters: the heavy key is monitored with its exact
// count; a key that took over an evicted counter carries its error.
func ExampleSpaceSaving() {
	s, err := frequency.NewSpaceSaving(frequency.SpaceSavingParams{Counters: 3}, 1)
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
	// Output:
	// key 7: count 20, error 0, true count in [20, 20]
	// key 103: count 10, error 9, true count in [1, 10]
	// key 104: count 10, error 9, true count in [1, 10]
}

// Exact counts over 4 shards by key hash: the top 2 is the merge of the
// shards' local top 2, exact because a key lives on one shard.
func ExampleExact_Top() {
	x, err := frequency.NewExact(frequency.ExactParams{Shards: 4}, 100, 1)
	if err != nil {
		panic(err)
	}
	var ev []workload.Event
	for key := range uint64(100) {
		ev = append(ev, workload.Event{Key: key, Delta: int64(key % 17), Op: workload.Write})
	}
	x.Observe(ev)
	fmt.Println(x.Top(2), x.Len(), "keys")
	// Output:
	// [{16 16 0} {33 16 0}] 94 keys
}
