package trending

import (
	"slices"
	"testing"
	"time"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestRegional: against a brute force of the same stream, the flags are
// the moments each (region, key) count first reaches the threshold, in
// order; the global count at any now is the count of the events before the
// last period's end at or before now; what the regions sent is a message a
// region with news a period and an item a key of its news, a key's items
// of a send one after the other, the regions in order.
func TestRegional(t *testing.T) {
	ev := designtest.DecayStream(8, 30000, 200, 1, 10*time.Millisecond) // 300 s
	for i := range ev {
		ev[i].Actor = uint64(i*7919) % 3
		if i%13 == 0 {
			ev[i].Delta = 5
		}
	}
	st := designtest.NewMemStore(t)
	st.LogOn = true
	r, err := NewRegional(RegionalParams{Period: 7 * time.Second, Threshold: 300}, strategies.Env{Seed: 2, Nodes: 3, Duration: 300e9, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	period := int64(7 * time.Second)
	type rk struct {
		g   int
		key uint64
	}
	counts := map[rk]int64{}
	var wantFlags []strategies.RegionFlag
	var msgs, items int64
	news := make([]map[uint64]int64, 3)
	for g := range news {
		news[g] = map[uint64]int64{}
	}
	type item struct {
		at    int64
		delta int64
	}
	sent := map[uint64][]item{} // each store key's INCRBYs, in order
	next := period
	sendTo := func(at int64) {
		for ; next <= at; next += period {
			for g := range news {
				if len(news[g]) > 0 {
					msgs++
					items += int64(len(news[g]))
					for key, c := range news[g] {
						k := workload.Mix64(key ^ r.key)
						sent[k] = append(sent[k], item{next, c})
					}
					news[g] = map[uint64]int64{}
				}
			}
		}
	}
	for _, e := range ev {
		sendTo(e.At)
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		g := int(e.Actor)
		c := counts[rk{g, e.Key}]
		counts[rk{g, e.Key}] = c + e.Delta
		news[g][e.Key] += e.Delta
		if c < 300 && c+e.Delta >= 300 {
			wantFlags = append(wantFlags, strategies.RegionFlag{Region: g, Key: e.Key, At: e.At})
		}
	}
	for b := 0; b < len(ev); b += 1000 {
		r.Observe(ev[b : b+1000])
	}
	if got := r.Flags(); len(got) != len(wantFlags) {
		t.Fatalf("%d flags, want %d", len(got), len(wantFlags))
	} else {
		for i := range got {
			if got[i] != wantFlags[i] {
				t.Fatalf("flag %d = %+v, want %+v", i, got[i], wantFlags[i])
			}
		}
	}
	now := ev[len(ev)-1].At
	sendTo(now)
	last := now / period * period // the last send at or before now
	top := r.Trending(5, now)
	for _, tr := range top {
		var want int64
		for _, e := range ev {
			if e.Key == tr.Key && e.At < last && e.Op == workload.Write && e.Delta > 0 {
				want += e.Delta
			}
		}
		if int64(tr.Score) != want || r.TrendScore(tr.Key, now) != tr.Score {
			t.Fatalf("global count of %d = %v, want %d (the events before %d)", tr.Key, tr.Score, want, last)
		}
	}
	m, n, b := r.Coordination()
	if m != msgs || n != items || b != 16*items {
		t.Fatalf("coordination %d messages, %d items, %d B; want %d, %d", m, n, b, msgs, items)
	}
	if st.Incrs != items {
		t.Fatalf("the store took %d INCRBY, want %d", st.Incrs, items)
	}
	got := map[uint64][]item{}
	for i, op := range st.Log {
		if i > 0 && op.At == st.Log[i-1].At && op.Key != st.Log[i-1].Key && len(got[op.Key]) > 0 && got[op.Key][len(got[op.Key])-1].at == op.At {
			t.Fatalf("op %d: key %d's INCRBYs of the send at %d not one after the other", i, op.Key, op.At)
		}
		got[op.Key] = append(got[op.Key], item{op.At, op.Delta})
	}
	if len(got) != len(sent) {
		t.Fatalf("INCRBYs on %d keys, want %d", len(got), len(sent))
	}
	for k, want := range sent {
		if !slices.Equal(got[k], want) {
			t.Fatalf("key %d: INCRBYs %v, want %v (the regions in order)", k, got[k], want)
		}
	}
}

// TestRegionalParams: regions come from the stream or are refused; a
// period of 0 and a threshold of 0 are refused naming the key.
func TestRegionalParams(t *testing.T) {
	typ, _ := strategies.Lookup("regional")
	for _, c := range []struct {
		raw  []scenarios.Param
		env  strategies.Env
		want string
	}{
		{nil, strategies.Env{Duration: 1e9}, "parameter regions: required"},
		{nil, strategies.Env{Nodes: 4}, "needs a stream over simulated time"},
		{[]scenarios.Param{{Key: "period", Value: "0s"}}, strategies.Env{Nodes: 4, Duration: 1e9}, "period"},
		{[]scenarios.Param{{Key: "threshold", Value: int64(0)}}, strategies.Env{Nodes: 4, Duration: 1e9}, "threshold"},
	} {
		p, err := designtest.DecodeParams(typ, c.raw)
		if err == nil {
			err = typ.Check(p, c.env, true)
		}
		if err == nil || !designtest.ContainsAll(err.Error(), c.want) {
			t.Errorf("%v: got %v, want %q", c.raw, err, c.want)
		}
	}
}
