package hot_test

import (
	"fmt"
	"time"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/hot"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// exampleStore is the simplest Store: every operation applies at once. It
// counts the GETs it answers.
type exampleStore struct {
	vals map[uint64]int64
	gets int
}

func (m *exampleStore) Do(ops []strategies.StoreOp, vals []int64) {
	for i, op := range ops {
		switch op.Kind {
		case strategies.IncrBy:
			m.vals[op.Key] += op.Delta
		case strategies.Get:
			vals[i] = m.vals[op.Key]
			m.gets++
		}
	}
}

func (m *exampleStore) Final(key uint64) int64 { return m.vals[key] }

// A counter striped over 4 keys, read through a 1 s cache: the first read
// fetches the 4 stripes (4 GETs); the second is within a second of it and is
// shown the cached 10; the third refreshes the cache with 4 GETs more.
func ExampleStriped() {
	store := &exampleStore{vals: map[uint64]int64{}}
	s, err := hot.NewStriped(hot.StripedParams{Stripes: 4, Select: hot.SelectRoundRobin, Read: hot.ReadCache, TTL: time.Second}, store, 1)
	if err != nil {
		panic(err)
	}
	var ev []workload.Event
	write := func(ms int64) {
		ev = append(ev, workload.Event{At: ms * 1e6, Key: 42, Delta: 1, ID: uint64(len(ev) + 1), Op: workload.Write})
	}
	read := func(ms int64) { ev = append(ev, workload.Event{At: ms * 1e6, Key: 42, Op: workload.Read}) }
	for ms := int64(0); ms < 1000; ms += 100 {
		write(ms)
	}
	read(950)
	for ms := int64(1000); ms < 1500; ms += 100 {
		write(ms)
	}
	read(1450)
	read(2000)
	s.Observe(ev)
	fmt.Println("shown:", s.Shown())
	fmt.Println("count:", s.Count(42), "over", len(store.vals), "store keys")
	fmt.Println("GETs:", store.gets)
	// Output:
	// shown: [10 10 15]
	// count: 15 over 4 store keys
	// GETs: 8
}

// The cricket final's first step: how many stripes 200,000 views a second
// need on keys that take 10,000 increments a second, planned at 70%.
func ExampleStripedParams() {
	typ, err := strategies.Lookup("striped")
	if err != nil {
		panic(err)
	}
	p, err := designtest.DecodeParams(typ, []scenarios.Param{{Key: "stripes", Value: int64(32)}})
	if err != nil {
		panic(err)
	}
	cricket := strategies.Assumptions{PeakRate: 200000, ReadRate: 5000, KeyCapacity: 10000, Headroom: 0.7}
	env := strategies.Env{Full: cricket, Sim: cricket}
	for _, l := range typ.Plan(p, env) {
		if l.Full {
			fmt.Printf("%s: %.4g %s\n", l.Metric, l.Value, l.Unit)
		}
	}
	// Output:
	// stripes_at_limit: 20 stripes
	// stripes_at_headroom: 28.57 stripes
	// stripes_needed: 29 stripes
	// stripes_pow2: 32 stripes
	// max_key_ops_per_s: 6250 ops/s
	// utilisation: 0.625 share
	// backlog_growth_per_s: 0 ops/s
	// read_ops_per_s: 1.6e+05 ops/s
}
