package frequency

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// The conformance suite every PointCounter and TopK design runs: fed the
// same seeded streams in batches, its answers are compared with an exact Go
// map of the same stream, and its own check() invariants hold after every
// batch.

// conformanceDesign builds one design for the suite.
type conformanceDesign struct {
	name  string
	typ   string // its registered type, whose declared Bias it is held to
	build func(t *testing.T, keys int) strategies.Strategy
	// topAll: Top(k) holds the true top k on skewed streams (exact designs,
	// or sketches sized generously).
	topAll bool
	// capacity caps the length of a Top answer (0: no cap).
	capacity int
	// split spreads the stream's events over that many nodes (their Actor:
	// a hash of the event's ID), for designs over a split stream (0: the
	// stream as it is).
	split int
	// shorter: a Top answer may hold fewer items than min(k, keys seen,
	// capacity), but at least one (Misra-Gries frees the counters that a
	// decrement takes to 0).
	shorter bool
}

func conformanceDesigns() []conformanceDesign {
	must := func(t *testing.T, s strategies.Strategy, err error) strategies.Strategy {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	return []conformanceDesign{
		{name: "count-min", typ: "count-min", build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewCountMin(CountMinParams{Epsilon: 0.001, Delta: 0.01}, 1)
			return must(t, s, err)
		}},
		{name: "count-min/conservative", typ: "count-min", build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewCountMin(CountMinParams{Epsilon: 0.001, Delta: 0.01, Conservative: true}, 1)
			return must(t, s, err)
		}},
		{name: "count-min/top=20", typ: "count-min", topAll: true, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewCountMinTopK(CountMinParams{Epsilon: 0.0005, Delta: 0.01, Top: 20}, 1)
			return must(t, s, err)
		}},
		{name: "space-saving/m=500", typ: "space-saving", topAll: true, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewSpaceSaving(SpaceSavingParams{Counters: 500}, 1)
			return must(t, s, err)
		}},
		{name: "space-saving/m=7", typ: "space-saving", capacity: 7, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewSpaceSaving(SpaceSavingParams{Counters: 7}, 1)
			return must(t, s, err)
		}},
		{name: "misra-gries/k=500", typ: "misra-gries", topAll: true, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewMisraGries(MisraGriesParams{Counters: 500}, 1)
			return must(t, s, err)
		}},
		{name: "misra-gries/k=7", typ: "misra-gries", capacity: 7, shorter: true, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewMisraGries(MisraGriesParams{Counters: 7}, 1)
			return must(t, s, err)
		}},
		{name: "heavykeeper/top=20", typ: "heavykeeper", build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewHeavyKeeper(HeavyKeeperParams{Top: 20, Width: 1000, Depth: 4, Decay: 0.9}, 1)
			return must(t, s, err)
		}},
		{name: "heavykeeper/defaults/top=7", typ: "heavykeeper", capacity: 7, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewHeavyKeeper(HeavyKeeperParams{Top: 7, Width: 8, Depth: 7, Decay: 0.9}, 1)
			return must(t, s, err)
		}},
		{name: "exact", typ: "exact", topAll: true, build: func(t *testing.T, keys int) strategies.Strategy {
			s, err := NewExact(ExactParams{Shards: 1}, uint64(keys), 1)
			return must(t, s, err)
		}},
		{name: "exact/shards=5/small-hint", typ: "exact", topAll: true, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewExact(ExactParams{Shards: 5}, 10, 1)
			return must(t, s, err)
		}},
		{name: "split-topk/nodes=6/overfetch=10", typ: "split-topk", split: 6, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewSplitTopK(SplitTopKParams{Overfetch: 10, Nodes: 6}, 10, 1)
			return must(t, s, err)
		}},
		{name: "threshold-topk/nodes=6", typ: "threshold-topk", topAll: true, split: 6, build: func(t *testing.T, keys int) strategies.Strategy {
			s, err := NewThresholdTopK(ThresholdTopKParams{Nodes: 6}, uint64(keys), 1)
			return must(t, s, err)
		}},
		{name: "threshold-topk/nodes=4-of-6", typ: "threshold-topk", topAll: true, split: 6, build: func(t *testing.T, _ int) strategies.Strategy {
			s, err := NewThresholdTopK(ThresholdTopKParams{Nodes: 4}, 10, 1) // nodes 4 and 5 fold onto 0 and 1
			return must(t, s, err)
		}},
	}
}

type conformanceStream struct {
	name   string
	ev     []workload.Event
	skewed bool // the true top 10 stands out (Zipf s ≥ 1)
}

// conformanceStreams are the streams of the suite; reads and non-positive
// deltas are mixed in and must be ignored.
func conformanceStreams() []conformanceStream {
	var streams []conformanceStream
	for _, sp := range []designtest.StreamSpec{
		{Seed: 1, Keys: 20000, S: 1, Events: 200000, Scramble: true},
		{Seed: 2, Keys: 5000, S: 1.5, Events: 100000},
		{Seed: 3, Keys: 10000, S: 0, Events: 100000, Scramble: true},
	} {
		ev := sp.Gen()
		for i := range ev {
			switch i % 97 {
			case 0:
				ev[i].Op = workload.Read
			case 1:
				ev[i].Delta = 0
			case 2:
				ev[i].Delta = -5
			case 3:
				ev[i].Delta = 3
			}
		}
		streams = append(streams, conformanceStream{fmt.Sprintf("s=%g/keys=%d", sp.S, sp.Keys), ev, sp.S >= 1})
	}
	return streams
}

func TestConformance(t *testing.T) {
	streams := conformanceStreams()
	for _, d := range conformanceDesigns() {
		for _, st := range streams {
			t.Run(d.name+"/"+st.name, func(t *testing.T) {
				ev := st.ev
				if d.split > 0 {
					ev = slices.Clone(ev)
					for i := range ev {
						ev[i].Actor = workload.Mix64(ev[i].ID^0x73706c6974) % uint64(d.split)
					}
				}
				truth, _ := designtest.ExactCounts(ev)
				typ, err := strategies.Lookup(d.typ)
				if err != nil {
					t.Fatal(err)
				}
				bias := typ.Errs()
				s := d.build(t, len(truth))
				const batches = 8
				for b := range batches {
					s.Observe(ev[b*len(ev)/batches : (b+1)*len(ev)/batches])
					designtest.CheckInvariants(t, s)
				}
				if pc, ok := s.(strategies.PointCounter); ok {
					checkPointCounter(t, pc, truth, bias)
				}
				if tk, ok := s.(strategies.TopK); ok {
					checkTopK(t, tk, truth, 10, d.capacity, d.shorter, bias, d.topAll && st.skewed)
				}
			})
		}
	}
}

// checkPointCounter compares Count with the truth for every key seen and for
// keys never seen: equal to it for an exact design, and otherwise erring
// only in the direction the design declares.
func checkPointCounter(t *testing.T, pc strategies.PointCounter, truth map[uint64]uint64, bias strategies.Bias) {
	t.Helper()
	for i, bad := range wrongCounts(pc, truth, bias) {
		if i == 5 {
			t.Errorf("… and more keys wrong")
			break
		}
		t.Errorf("Count(%d): got %d, true count %d: not %s", bad.Key, bad.Count, bad.Err, bias)
	}
}

// within reports whether the answer count, erring by at most err, agrees
// with the true count in the direction the bias allows (see
// strategies.Bias).
func within(b strategies.Bias, count, err, truth uint64) bool {
	switch b {
	case strategies.ErrsNever:
		return count == truth
	case strategies.ErrsOver:
		return truth <= count && count-truth <= err
	case strategies.ErrsUnder:
		return count <= truth && truth-count <= err
	}
	return false
}

// wrongCounts returns the keys whose Count errs against the design's bias,
// as items holding the count and, in Err, the true count.
func wrongCounts(pc strategies.PointCounter, truth map[uint64]uint64, bias strategies.Bias) []strategies.Item {
	keys := designtest.SortedKeys(truth)
	for i := range uint64(1000) { // keys never seen (almost surely)
		keys = append(keys, workload.Mix64(i^0xdeadbeef)|1<<63)
	}
	var bad []strategies.Item
	for _, k := range keys {
		if got, want := pc.Count(k), truth[k]; !within(bias, got, math.MaxUint64, want) {
			bad = append(bad, strategies.Item{Key: k, Count: got, Err: want})
		}
	}
	return bad
}

// checkTopK checks the form of Top answers (order, size, no duplicates,
// fresh slices) and each item against the truth: off by at most Err, in the
// direction of the design's bias. Answers hold min(k, keys seen, capacity) items (capacity 0: no
// cap), or with shorter between 1 and that many. With topAll it also wants the true top k, by count.
func checkTopK(t *testing.T, tk strategies.TopK, truth map[uint64]uint64, k, capacity int, shorter bool, bias strategies.Bias, topAll bool) {
	t.Helper()
	for _, bad := range []int{0, -1} {
		if got := tk.Top(bad); len(got) != 0 {
			t.Errorf("Top(%d): got %d items, want none", bad, len(got))
		}
	}
	got := tk.Top(k)
	want := min(k, len(truth))
	if capacity > 0 {
		want = min(want, capacity)
	}
	if shorter && len(got) >= 1 && len(got) <= want {
		want = len(got)
	}
	if len(got) != want {
		t.Errorf("Top(%d): got %d items, want %d", k, len(got), want)
	}
	seen := map[uint64]bool{}
	for i, it := range got {
		if i > 0 && (it.Count > got[i-1].Count || it.Count == got[i-1].Count && it.Key <= got[i-1].Key) {
			t.Errorf("Top(%d): item %d %+v out of order after %+v", k, i, it, got[i-1])
		}
		if seen[it.Key] {
			t.Errorf("Top(%d): key %d twice", k, it.Key)
		}
		seen[it.Key] = true
		if tr := truth[it.Key]; !within(bias, it.Count, it.Err, tr) {
			t.Errorf("Top(%d): item %+v, true count %d: not %s within Err", k, it, tr, bias)
		}
	}
	if topAll {
		want := designtest.TrueTop(truth, k)
		for i := range min(len(got), len(want)) {
			// Compare true counts rank by rank: equal counts may tie in any order.
			if g := truth[got[i].Key]; g != want[i].Count {
				t.Errorf("Top(%d): rank %d has key %d of true count %d, want true count %d", k, i+1, got[i].Key, g, want[i].Count)
			}
		}
	}
	if len(got) > 0 {
		got[0].Count++ // the answer is the caller's
		if again := tk.Top(k); again[0].Count == got[0].Count {
			t.Errorf("Top returned a slice it keeps")
		}
	}
}

// undercounter is a design that counts one less than it saw, whatever it
// declares: the suite must catch it unless it declares ErrsUnder.
type undercounter struct{ strategies.PointCounter }

func (u undercounter) Count(key uint64) uint64 {
	if c := u.PointCounter.Count(key); c > 0 {
		return c - 1
	}
	return 0
}

// TestConformanceDirection checks that the suite holds a design to its own
// direction: a count one below the truth is wrong for an exact or an
// overcounting design and right for an undercounting one, and a count one
// above is wrong for an undercounting design.
func TestConformanceDirection(t *testing.T) {
	ev := conformanceStreams()[0].ev
	truth, _ := designtest.ExactCounts(ev)
	x, err := NewExact(ExactParams{Shards: 1}, uint64(len(truth)), 1)
	if err != nil {
		t.Fatal(err)
	}
	x.Observe(ev)
	under := undercounter{x}
	for _, c := range []struct {
		pc   strategies.PointCounter
		bias strategies.Bias
		ok   bool
	}{
		{x, strategies.ErrsNever, true}, {x, strategies.ErrsOver, true}, {x, strategies.ErrsUnder, true},
		{under, strategies.ErrsNever, false}, {under, strategies.ErrsOver, false}, {under, strategies.ErrsUnder, true},
	} {
		if bad := wrongCounts(c.pc, truth, c.bias); (len(bad) == 0) != c.ok {
			t.Errorf("%T declared %s: %d keys flagged, want flagged %v", c.pc, c.bias, len(bad), !c.ok)
		}
	}
	for _, c := range []struct {
		count, err, truth uint64
		bias              strategies.Bias
		want              bool
	}{
		{10, 0, 10, strategies.ErrsNever, true}, {11, 5, 10, strategies.ErrsNever, false},
		{12, 2, 10, strategies.ErrsOver, true}, {13, 2, 10, strategies.ErrsOver, false}, {9, 5, 10, strategies.ErrsOver, false},
		{8, 2, 10, strategies.ErrsUnder, true}, {7, 2, 10, strategies.ErrsUnder, false}, {11, 5, 10, strategies.ErrsUnder, false},
	} {
		if got := within(c.bias, c.count, c.err, c.truth); got != c.want {
			t.Errorf("within(%s, %d, %d, %d): got %v, want %v", c.bias, c.count, c.err, c.truth, got, c.want)
		}
	}
}
