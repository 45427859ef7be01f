package redisstore

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"countsim/internal/redistest"
	"countsim/strategies"
)

// TestIncrByOnceCountsAnIDOnce: IncrByOnce applies a write of an id once,
// through Do and through DoClient alike (a retry of a landed write is
// answered OK and changes nothing), per counter (the same id on another
// key is another write); the counters read back as the writes applied,
// acknowledged as such (Lost and Extra 0); Close deletes the counters and
// every idempotency key.
func TestIncrByOnceCountsAnIDOnce(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	ctx := context.Background()
	b, err := Connect(ctx, Config{URL: "redis://" + srv.Addr, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newStore(ctx, b, "once", false, func(err error) { t.Errorf("store failed: %v", err) })
	op := func(key, id uint64, d int64) strategies.StoreOp {
		return strategies.StoreOp{Kind: strategies.IncrByOnce, Key: key, Delta: d, Member: id}
	}
	s.Do([]strategies.StoreOp{op(1, 7, 5), op(1, 7, 5), op(1, 8, 2), op(2, 7, 3)}, nil)
	ops := []strategies.StoreOp{op(1, 7, 5), op(1, 9, 1), op(2, 7, 3), op(2, 9, 4)}
	status := make([]strategies.OpStatus, len(ops))
	s.DoClient(strategies.Client{Timeout: int64(1e9)}, ops, nil, status)
	for i, st := range status {
		if st != strategies.OpOK {
			t.Errorf("op %d: status %d, want OK", i, st)
		}
	}
	s.Settle()
	if f1, f2 := s.Final(1), s.Final(2); f1 != 5+2+1 || f2 != 3+4 {
		t.Errorf("finals %d, %d; want 8 and 7 (ids 7, 8, 9 once each)", f1, f2)
	}
	if st := s.Stats(); st.Lost != 0 || st.Extra != 0 || st.Mismatch != 0 || !st.Fallible {
		t.Errorf("stats lost %d, extra %d, mismatch %d, fallible %v; want 0, 0, 0, true", st.Lost, st.Extra, st.Mismatch, st.Fallible)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	if n, _ := c.DBSize(ctx).Result(); n != 2+5 {
		t.Errorf("%d keys on the server before Close, want 2 counters + 5 idempotency keys", n)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := c.DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("%d keys left after Close (%v), want 0", n, err)
	}
}
