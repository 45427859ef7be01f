package redisstore

import (
	"context"
	"errors"
	"math"
	"testing"

	"countsim/internal/redistest"
	"countsim/sim/cluster"
	"countsim/strategies"
	"countsim/strategies/distinct"
	"countsim/workload"
)

// TestCrossSlotOnACluster: on a real cluster of three masters, a PFMERGE,
// a multi-key PFCOUNT and a ZUNIONSTORE over untagged keys (different
// slots) are refused with CROSSSLOT — the same words the simulated cluster
// refuses them with — without failing the store; over tagged keys (one
// slot) they work. A GET of a day key reads Redis's own string, dense,
// which the application's decoder takes.
func TestCrossSlotOnACluster(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	b, err := Connect(context.Background(), Config{URL: cl.URL, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var failed error
	s := newStore(context.Background(), b, "x", false, func(err error) { failed = err })
	defer s.Close()
	simc, _ := cluster.New(cluster.Config{Nodes: 3, KeyCapacity: 1e9})
	const day1, day2, tag = 0x1a, 0x2b, 0x7
	var adds []strategies.StoreOp
	for id := range uint64(20_000) {
		for _, k := range []struct{ key, tag uint64 }{{day1, 0}, {day2, 0}, {day1 + 1, tag}, {day2 + 1, tag}} {
			if k.key&1 == 0 || id >= 5_000 { // day 2's keys get ids 5,000 and up
				adds = append(adds, strategies.StoreOp{Kind: strategies.PFAdd, Key: k.key, Tag: k.tag, Member: id})
			}
		}
	}
	for _, st := range []strategies.Store{s, simc} {
		st.Do(adds, nil)
	}
	two := func(kind strategies.StoreOpKind, key, arg, tag uint64) []strategies.StoreOp {
		return []strategies.StoreOp{{Kind: kind, Key: key, Tag: tag}, {Kind: strategies.KeyArg, Key: arg, Tag: tag}}
	}
	for _, op := range [][]strategies.StoreOp{
		two(strategies.PFMerge, day1, day2, 0),
		two(strategies.PFCount, day1, day2, 0),
		append(two(strategies.ZUnionStore, 0x3c, day1, 0), strategies.StoreOp{Kind: strategies.KeyArg, Key: day2}),
	} {
		var errs [2]error
		for i, st := range []strategies.Store{s, simc} {
			st.Do(op, make([]int64, len(op)))
			errs[i] = st.(strategies.Refuser).Refused()
		}
		if !errors.Is(errs[0], strategies.ErrCrossSlot) || errs[1] == nil || errs[0].Error() != errs[1].Error() {
			t.Errorf("%v over two slots: real %v, simulated %v; want the same CROSSSLOT", op[0].Kind, errs[0], errs[1])
		}
	}
	if failed != nil || s.failed != nil {
		t.Fatalf("a refusal failed the store: %v", failed)
	}
	// Tagged: a ZUNIONSTORE into a key of the tag works, on both.
	for _, st := range []strategies.Store{s, simc} {
		st.Do(append(two(strategies.ZUnionStore, 0x3d, 0x3e, tag), strategies.StoreOp{Kind: strategies.KeyArg, Key: 0x3f, Tag: tag}), nil) // sets never written: empty
		if err := st.(strategies.Refuser).Refused(); err != nil {
			t.Errorf("a tagged ZUNIONSTORE refused: %v", err)
		}
	}
	// Tagged: the multi-key PFCOUNT works, on both, near the 20,000 ids.
	var unions [2]int64
	for i, st := range []strategies.Store{s, simc} {
		vals := make([]int64, 2)
		st.Do(two(strategies.PFCount, day1+1, day2+1, tag), vals)
		if err := st.(strategies.Refuser).Refused(); err != nil {
			t.Errorf("a tagged PFCOUNT refused: %v", err)
		}
		unions[i] = vals[0]
		if math.Abs(float64(vals[0])-20_000) > 5.3*0.0081*20_000 {
			t.Errorf("tagged union %d, want 20,000 ± 5.3σ", vals[0])
		}
	}
	// The application's merge of the untagged days' strings: Redis's own
	// HLL strings, dense, decoded.
	regs := make([]uint8, 1<<14)
	for _, k := range []uint64{day1, day2} {
		str, err := s.GetBytes(0, k, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(str) != 12_304 {
			t.Errorf("GET of day %x: %d bytes, want a dense HLL's 12,304", k, len(str))
		}
		if err := distinct.MergeRedisHLL(regs, str); err != nil {
			t.Fatalf("Redis's own string: %v", err)
		}
	}
	if tr := s.Traffic(); tr.ReplyBytes < 2*12_304 || tr.RoundTrips == 0 {
		t.Errorf("traffic %+v: not counting the GETs", tr)
	}
}

// TestRedisHLLMergesOnACluster: redis-hll's three ways to the union of two
// days on a real cluster of three masters: server's PFMERGE is refused
// (CROSSSLOT), tagged's multi-key PFCOUNT and app's registers read by GET
// and merged give the same estimate — the same ids make the same registers
// on Redis whatever the key, and the application's estimator is Redis's
// (Ertl's) — within 5.3σ of the truth.
func TestRedisHLLMergesOnACluster(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	b, err := Connect(context.Background(), Config{URL: cl.URL, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newStore(context.Background(), b, "x", false, func(err error) { t.Errorf("store failed: %v", err) })
	defer s.Close()
	var b1, b2 []workload.Event
	for id := range uint64(30_000) {
		b1 = append(b1, workload.Event{Op: workload.Write, Actor: id})
		b2 = append(b2, workload.Event{Op: workload.Write, Actor: 10_000 + id})
	}
	union := map[distinct.PFUnion]float64{}
	for _, merge := range []distinct.PFUnion{distinct.PFUnionServer, distinct.PFUnionTagged, distinct.PFUnionApp} {
		// A seed a way: each its own keys on the one store.
		day1, _ := distinct.NewPFHLL(s, uint64(merge), 0, merge)
		day2, _ := distinct.NewPFHLL(s, uint64(merge), 1, merge)
		day1.Observe(b1)
		day2.Observe(b2)
		err := day1.UnionWith(day2)
		union[merge] = day1.Distinct()
		if merge == distinct.PFUnionServer {
			if !errors.Is(err, strategies.ErrCrossSlot) || err.Error() != "redis-hll: PFMERGE: CROSSSLOT Keys in request don't hash to the same slot" {
				t.Errorf("server: %v, want the PFMERGE refused", err)
			}
			continue
		}
		if err != nil || math.Abs(union[merge]-40_000) > 5.3*0.0081*40_000 {
			t.Errorf("%v: union %v, %v; want 40,000 ± 5.3σ", merge, union[merge], err)
		}
	}
	if d := union[distinct.PFUnionApp] - union[distinct.PFUnionTagged]; math.Abs(d) > 1 {
		t.Errorf("app %v, tagged %v: want Redis's estimate of the same registers", union[distinct.PFUnionApp], union[distinct.PFUnionTagged])
	}
	if union[distinct.PFUnionServer] < 29_000 || union[distinct.PFUnionServer] > 31_000 {
		t.Errorf("server after the refusal: %v, want day 1's own count", union[distinct.PFUnionServer])
	}
}
