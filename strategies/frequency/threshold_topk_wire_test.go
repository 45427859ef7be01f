package frequency

import (
	"cmp"
	"slices"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// What split-topk and threshold-topk put on the wire, counted again here
// message by message from the events alone: each node's exact counts in a
// map of the test's own, the exchange of each design replayed over those
// maps, every request and every reply written down as it is sent. Neither
// design's counters, tables nor local top lists are read.

// wireMsg is one message of an exchange: a request of the coordinator's
// (keys asked) or a node's reply (items sent), in a phase from 1.
type wireMsg struct {
	phase   int
	node    int
	request bool
	n       int // keys asked, or items sent
}

// wireNodes is each node's exact count of every key, from the events: the
// writes of positive delta, on node Actor mod S.
func wireNodes(ev []workload.Event, nodes int) []map[uint64]uint64 {
	m := make([]map[uint64]uint64, nodes)
	for i := range m {
		m[i] = map[uint64]uint64{}
	}
	for _, e := range ev {
		if e.Op == workload.Write && e.Delta > 0 {
			m[e.Actor%uint64(nodes)][e.Key] += uint64(e.Delta)
		}
	}
	return m
}

// wireTop is a node's k best keys, count descending then key ascending.
func wireTop(m map[uint64]uint64, k int) []strategies.Item {
	var all []strategies.Item
	for key, c := range m {
		all = append(all, strategies.Item{Key: key, Count: c})
	}
	slices.SortFunc(all, func(a, b strategies.Item) int {
		if a.Count != b.Count {
			return cmp.Compare(b.Count, a.Count)
		}
		return cmp.Compare(a.Key, b.Key)
	})
	return all[:min(k, len(all))]
}

// splitWire is split-topk's exchange for one answer: the coordinator asks
// every node for its top K' and every node answers with it.
func splitWire(nodes []map[uint64]uint64, per int) []wireMsg {
	var msgs []wireMsg
	for i, m := range nodes {
		msgs = append(msgs, wireMsg{phase: 1, node: i, request: true}, wireMsg{phase: 1, node: i, n: len(wireTop(m, per))})
	}
	return msgs
}

// tputWire is TPUT's exchange for one answer of k (Cao & Wang's three
// phases, with the economies threshold_topk.go states), and its answer.
func tputWire(nodes []map[uint64]uint64, k int) ([]wireMsg, []strategies.Item) {
	var msgs []wireMsg
	S := len(nodes)
	psi := map[uint64]uint64{}
	sentBy := make([]map[uint64]bool, S)
	var open []int
	for i, m := range nodes {
		msgs = append(msgs, wireMsg{phase: 1, node: i, request: true})
		top := wireTop(m, k)
		msgs = append(msgs, wireMsg{phase: 1, node: i, n: len(top)})
		sentBy[i] = map[uint64]bool{}
		for _, it := range top {
			psi[it.Key] += it.Count
			sentBy[i][it.Key] = true
		}
		if len(m) > len(top) {
			open = append(open, i)
		}
	}
	kth := func() uint64 {
		if len(psi) < k {
			return 0
		}
		var sums []uint64
		for _, v := range psi {
			sums = append(sums, v)
		}
		slices.Sort(sums)
		return sums[len(sums)-k]
	}
	answer := func() []strategies.Item {
		var all []strategies.Item
		for key, c := range psi {
			all = append(all, strategies.Item{Key: key, Count: c})
		}
		slices.SortFunc(all, func(a, b strategies.Item) int {
			if a.Count != b.Count {
				return cmp.Compare(b.Count, a.Count)
			}
			return cmp.Compare(a.Key, b.Key)
		})
		return all[:min(k, len(all))]
	}
	if len(open) == 0 {
		return msgs, answer()
	}
	t := max(1, (kth()+uint64(S)-1)/uint64(S))
	for _, i := range open {
		msgs = append(msgs, wireMsg{phase: 2, node: i, request: true})
		n := 0
		for key, c := range nodes[i] {
			if c >= t && !sentBy[i][key] {
				psi[key] += c
				sentBy[i][key] = true
				n++
			}
		}
		msgs = append(msgs, wireMsg{phase: 2, node: i, n: n})
	}
	tau2 := kth()
	misses := func(key uint64) uint64 {
		n := uint64(0)
		for _, i := range open {
			if !sentBy[i][key] {
				n++
			}
		}
		return n
	}
	var pending []uint64
	for key, sum := range psi {
		miss := misses(key)
		if sum+miss*(t-1) < tau2 {
			delete(psi, key)
			continue
		}
		if miss > 0 && t > 1 {
			pending = append(pending, key)
		}
	}
	if len(pending) == 0 {
		return msgs, answer()
	}
	for _, i := range open {
		msgs = append(msgs, wireMsg{phase: 3, node: i, request: true, n: len(pending)})
		n := 0
		for _, key := range pending {
			if c := nodes[i][key]; c > 0 && !sentBy[i][key] {
				psi[key] += c
				n++
			}
		}
		msgs = append(msgs, wireMsg{phase: 3, node: i, n: n})
	}
	return msgs, answer()
}

// wireRounds sums messages by phase as threshold-topk's rounds hold them.
func wireRounds(msgs []wireMsg) [3]roundCost {
	var r [3]roundCost
	for _, m := range msgs {
		c := &r[m.phase-1]
		if m.request {
			c.Requests++
			c.Asked += int64(m.n)
		} else {
			c.Replies++
			c.Items += int64(m.n)
		}
	}
	return r
}

// wireTotals is what Coordination returns for these messages: all of
// them, the keys asked and items sent, 8 B a key asked and 16 B an item.
func wireTotals(msgs []wireMsg) (messages, items, bytes int64) {
	for _, m := range msgs {
		messages++
		items += int64(m.n)
		if m.request {
			bytes += 8 * int64(m.n)
		} else {
			bytes += 16 * int64(m.n)
		}
	}
	return messages, items, bytes
}

// Both designs' messages, items and bytes, phase by phase, are the
// recount's on 300 adversarial splits and three regional ones, for several
// k asked of the same state, two answers adding up; TPUT's recount gives
// the exact top k (so it is the protocol, not a copy of a mistake). The
// recount's messages meet the closed forms of threshold_topk.go: phase 1
// S requests and S replies, phases 2 and 3 one of each an open node,
// phase 3's requests each the same P keys; at most 6S in all, the plan
// (TestSplitPlans).
func TestCoordinationRecount(t *testing.T) {
	type stream struct {
		name  string
		ev    []workload.Event
		nodes int
		ks    []int
	}
	var streams []stream
	for seed := range uint64(300) {
		c := adversarialSplit(seed)
		streams = append(streams, stream{"adversarial", c.ev, c.nodes, []int{c.k, 1, c.keys + 2}})
	}
	for _, c := range []struct {
		nodes  int
		global float64
	}{{8, 0.15}, {16, 0.15}, {32, 0.1}} {
		streams = append(streams, stream{"regional", regionalSplit(uint64(c.nodes), c.nodes, 5000, 100000, 1, c.global), c.nodes, []int{10}})
	}
	var phase3, phase2Empty int
	for si, st := range streams {
		nodes := wireNodes(st.ev, st.nodes)
		truth, _ := designtest.ExactCounts(st.ev)
		for _, k := range st.ks {
			x, err := NewThresholdTopK(ThresholdTopKParams{Nodes: st.nodes}, 8, uint64(si))
			if err != nil {
				t.Fatal(err)
			}
			x.Observe(st.ev)
			msgs, answer := tputWire(nodes, k)
			if want := designtest.TrueTop(truth, k); !slices.Equal(answer, want) {
				t.Fatalf("%s stream %d, k %d: the recount's TPUT answers %+v, want %+v", st.name, si, k, answer, want)
			}
			x.Top(k)
			x.Top(k) // a second answer adds the same again
			want := wireRounds(append(slices.Clone(msgs), msgs...))
			if x.rounds != want {
				t.Fatalf("%s stream %d (%d nodes), k %d: threshold-topk's phases %+v, recounted %+v", st.name, si, st.nodes, k, x.rounds, want)
			}
			wm, wi, wb := wireTotals(msgs)
			if m, i, b := x.Coordination(); m != 2*wm || i != 2*wi || b != 2*wb {
				t.Fatalf("%s stream %d, k %d: coordination %d messages, %d items, %d B; recounted twice %d, %d, %d", st.name, si, k, m, i, b, 2*wm, 2*wi, 2*wb)
			}
			// The closed forms, on the recount alone.
			one := wireRounds(msgs)
			S := int64(st.nodes)
			open := one[1].Requests
			if one[0].Requests != S || one[0].Replies != S || one[0].Asked != 0 {
				t.Fatalf("%s stream %d: phase 1 %+v, want %d requests of no key and %d replies", st.name, si, one[0], S, S)
			}
			if one[1].Replies != open || one[1].Asked != 0 || open > S {
				t.Fatalf("%s stream %d: phase 2 %+v, want a request of no key and a reply an open node", st.name, si, one[1])
			}
			if r := one[2]; r.Requests > 0 {
				phase3++
				if r.Requests != open || r.Replies != open || r.Asked%open != 0 || r.Items > r.Asked {
					t.Fatalf("%s stream %d: phase 3 %+v with %d open nodes, want one request of P keys and one reply of at most P items an open node", st.name, si, r, open)
				}
			}
			if open > 0 && one[1].Items == 0 {
				phase2Empty++
			}
			if wm > 6*S {
				t.Fatalf("%s stream %d: %d messages, more than 6S = %d", st.name, si, wm, 6*S)
			}
		}
		s, err := NewSplitTopK(SplitTopKParams{Overfetch: st.ks[0], Nodes: st.nodes}, 8, uint64(si))
		if err != nil {
			t.Fatal(err)
		}
		s.Observe(st.ev)
		for _, per := range []int{st.ks[0], st.ks[0] + 5} {
			s.overfetch = per
			m0, i0, b0 := s.Coordination()
			s.Top(st.ks[0])
			m1, i1, b1 := s.Coordination()
			wm, wi, wb := wireTotals(splitWire(nodes, per))
			if m1-m0 != wm || i1-i0 != wi || b1-b0 != wb || wm != 2*int64(st.nodes) {
				t.Fatalf("%s stream %d, K' %d: split-topk sent %d messages, %d items, %d B; recounted %d, %d, %d (2S = %d messages)",
					st.name, si, per, m1-m0, i1-i0, b1-b0, wm, wi, wb, 2*st.nodes)
			}
		}
	}
	t.Logf("phase 3 ran in %d answers, phase 2 sent nothing in %d", phase3, phase2Empty)
	if phase3 < 50 {
		t.Errorf("phase 3 ran in only %d answers: the streams do not exercise its requests", phase3)
	}
}
