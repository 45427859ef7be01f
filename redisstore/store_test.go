package redisstore

import (
	"context"
	"testing"

	"countsim/internal/redistest"
	"countsim/strategies"
)

// These tests run the designs on a real redis-server (or a three-master
// cluster) that each test starts on loopback ports of its own and stops by
// its PID (internal/redistest). Without redis-server they fail with how to
// install it; they never skip.

// TestFailedStoreSendsNothing: once failed, Do sends nothing, panics on no
// vals (nil where the ops read nothing) and zeroes the values asked for.
func TestFailedStoreSendsNothing(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b, err := Connect(context.Background(), Config{URL: "redis://" + srv.Addr, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var failures int
	s := newStore(context.Background(), b, "d", false, func(error) { failures++ })
	ops := make([]strategies.StoreOp, 5000) // more than a pipeline: Do sends it in two
	for i := range ops {
		ops[i] = strategies.StoreOp{Kind: strategies.IncrBy, Key: 1, Delta: 1}
	}
	s.Do(ops, nil)
	if s.Final(1) != 5000 {
		t.Fatalf("final %d before the failure", s.Final(1))
	}
	srv.Kill()
	s.Do(ops, nil) // fails on the first pipeline; the second is not sent
	vals := []int64{7, 7}
	s.Do([]strategies.StoreOp{{Kind: strategies.Get, Key: 1}, {Kind: strategies.Get, Key: 1}}, vals)
	if failures != 1 || s.failed == nil || vals[0] != 0 || vals[1] != 0 {
		t.Errorf("failures %d, failed %v, vals %v: want one failure reported and zeros", failures, s.failed, vals)
	}
}
