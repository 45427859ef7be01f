package hot

import (
	"math"
	"testing"
	"time"

	"countsim/strategies"
	"countsim/workload"
)

// Tests of the client under store faults (client.go) on faultStore: a
// small FallibleStore whose nodes are down in stated windows and answer
// after a fixed delay, against counts worked out by hand.

// faultStore places store key k on node nodeOf[k] (0 if absent), fails a
// node in its down windows [from, to), and answers an op on node n after
// delay[n]. A write to a node that is up is applied (even when it answers
// after the timeout); IncrByOnce once per (key, member). It records the
// first op that went back in time.
type faultStore struct {
	t       *testing.T
	nodeOf  map[uint64]int
	down    map[int][][2]int64
	cut     map[int][][2]int64 // app server → windows it reaches no node
	delay   map[int]int64
	vals    map[uint64]int64
	once    map[[2]uint64]bool
	last    int64
	calls   int
	applied int64 // writes applied, IncrByOnce repeats excluded
}

func newFaultStore(t *testing.T) *faultStore {
	return &faultStore{t: t, nodeOf: map[uint64]int{}, down: map[int][][2]int64{}, cut: map[int][][2]int64{}, delay: map[int]int64{},
		vals: map[uint64]int64{}, once: map[[2]uint64]bool{}}
}

// place puts stripe j of key on node j mod nodes, for j < k.
func (f *faultStore) place(key uint64, k, nodes int) {
	for j := range k {
		f.nodeOf[stripeKey(key, j)] = j % nodes
	}
}

func (f *faultStore) isDown(node int, at int64) bool { return inWindows(f.down[node], at) }

func inWindows(ws [][2]int64, at int64) bool {
	for _, w := range ws {
		if at >= w[0] && at < w[1] {
			return true
		}
	}
	return false
}

func (f *faultStore) Do(ops []strategies.StoreOp, vals []int64) {
	f.DoClient(strategies.Client{}, ops, vals, make([]strategies.OpStatus, len(ops)))
}

func (f *faultStore) DoClient(c strategies.Client, ops []strategies.StoreOp, vals []int64, status []strategies.OpStatus) {
	f.calls++
	for i, op := range ops {
		if op.At < f.last {
			f.t.Fatalf("op %d at %d after an op at %d: ops went back in time", i, op.At, f.last)
		}
		f.last = op.At
		n := f.nodeOf[op.Key]
		up := !f.isDown(n, op.At) && !inWindows(f.cut[c.Server], op.At)
		ok := up && (c.Timeout == 0 || f.delay[n] <= c.Timeout)
		status[i] = strategies.OpTimeout
		if ok {
			status[i] = strategies.OpOK
		}
		switch op.Kind {
		case strategies.IncrBy:
			if up {
				f.vals[op.Key] += op.Delta
				f.applied++
			}
		case strategies.IncrByOnce:
			if id := [2]uint64{op.Key, op.Member}; up && !f.once[id] {
				f.once[id] = true
				f.vals[op.Key] += op.Delta
				f.applied++
			}
		case strategies.Get:
			vals[i] = 0
			if ok {
				vals[i] = f.vals[op.Key]
			}
		}
	}
}

func (f *faultStore) Final(key uint64) int64 { return f.vals[key] }

var _ strategies.FallibleStore = (*faultStore)(nil)

const ms = int64(time.Millisecond)

// writesEvery is n writes of key 1, one every step ns from 0, IDs 1..n.
func writesEvery(n int, step int64) []workload.Event {
	ev := make([]workload.Event, n)
	for i := range ev {
		ev[i] = workload.Event{At: int64(i) * step, Key: 1, Delta: 1, ID: uint64(i + 1), Op: workload.Write}
	}
	return ev
}

// observe hands the events over in batches of b, checking the design's
// invariants after each.
func observe(t *testing.T, d strategies.Strategy, ev []workload.Event, b int) {
	t.Helper()
	for len(ev) > 0 {
		n := min(b, len(ev))
		d.Observe(ev[:n])
		ev = ev[n:]
		if c, ok := d.(checker); ok {
			if err := c.check(); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// countUp counts i in [from, to] stepping by 4 from a start ≡ 1 mod 4.
func countUp(from, to int) int64 {
	if to < from {
		return 0
	}
	return int64((to-from)/4 + 1)
}

// TestStripedRoundRobinNodeDown: 3,000 writes, one a ms, round-robin over 4
// stripes on 4 nodes; node 1 (stripe 1: writes i ≡ 1 mod 4) is down for
// [1 s, 2 s). Without retries the 250 writes it got then fail; with 2
// retries after 100 ms and 200 ms (timeout 10 ms), write i's first retry
// goes at i+110 ms and its second at i+320 ms, so it fails for good when
// i+320 < 2,000.
func TestStripedRoundRobinNodeDown(t *testing.T) {
	for _, tc := range []struct {
		name                string
		cp                  ClientParams
		failed, retried, ok int64
	}{
		{"no-retries", ClientParams{Timeout: 10 * time.Millisecond}, 250, 0, 2750},
		{"retries=2", ClientParams{Timeout: 10 * time.Millisecond, Retries: 2, Backoff: 100 * time.Millisecond},
			countUp(1001, 1679), 250 + countUp(1001, 1889), 2750},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newFaultStore(t)
			st.place(1, 4, 4)
			st.down[1] = [][2]int64{{1000 * ms, 2000 * ms}}
			s, err := NewStriped(StripedParams{Stripes: 4, Select: SelectRoundRobin, ClientParams: tc.cp}, st, 1)
			if err != nil {
				t.Fatal(err)
			}
			observe(t, s, writesEvery(3000, ms), 64)
			c := s.ClientCounts()
			if c.Failed != tc.failed || c.Retried != tc.retried || c.FirstOK != tc.ok || c.Writes != 3000 {
				t.Errorf("failed %d, retried %d, first ok %d of %d; want %d, %d, %d of 3000", c.Failed, c.Retried, c.FirstOK, c.Writes, tc.failed, tc.retried, tc.ok)
			}
			if got, want := s.Count(1), uint64(3000-tc.failed); got != want {
				t.Errorf("count %d, want %d: every write given up lost, every other counted once", got, want)
			}
		})
	}
}

// TestRetriesSlowNode: node 1 answers after 50 ms, past the 10 ms timeout,
// but serves every write: each of the 750 writes on stripe 1 times out, is
// retried once, and lands twice without idempotency; with it the count is
// exact.
func TestRetriesSlowNode(t *testing.T) {
	for _, idem := range []bool{false, true} {
		st := newFaultStore(t)
		st.place(1, 4, 4)
		st.delay[1] = 50 * ms
		s, err := NewStriped(StripedParams{Stripes: 4, Select: SelectRoundRobin,
			ClientParams: ClientParams{Timeout: 10 * time.Millisecond, Retries: 1, Backoff: 5 * time.Millisecond, Idempotent: idem}}, st, 1)
		if err != nil {
			t.Fatal(err)
		}
		observe(t, s, writesEvery(3000, ms), 100)
		c := s.ClientCounts()
		if c.Retried != 750 || c.Failed != 750 {
			t.Errorf("idempotent %v: retried %d, failed %d; want 750, 750", idem, c.Retried, c.Failed)
		}
		want := uint64(3000 + 750)
		if idem {
			want = 3000
		}
		if got := s.Count(1); got != want {
			t.Errorf("idempotent %v: count %d, want %d", idem, got, want)
		}
	}
}

// TestBatchedOnFailure: 4 servers flushing every 100 ms to stripe s of 4,
// on 4 nodes; node 1 is down for [1 s, 2 s), so server 1's flushes at 1.0 …
// 1.9 s fail. Drop loses exactly the writes they held (At in [0.9 s,
// 1.9 s) on server 1); resend ends exact.
func TestBatchedOnFailure(t *testing.T) {
	ev := writesEvery(3000, ms)
	var held int64
	for _, e := range ev {
		if appServer(e.ID, 4) == 1 && e.At >= 900*ms && e.At < 1900*ms {
			held++
		}
	}
	if held == 0 {
		t.Fatal("server 1 held nothing: the case tests nothing")
	}
	for _, pol := range []FailurePolicy{FailDrop, FailResend} {
		st := newFaultStore(t)
		st.place(1, 4, 4)
		st.down[1] = [][2]int64{{1000 * ms, 2000 * ms}}
		b, err := NewBatched(BatchedParams{Servers: 4, Flush: 100 * time.Millisecond, Stripes: 4, OnFailure: pol,
			ClientParams: ClientParams{Timeout: 10 * time.Millisecond}}, st, 1)
		if err != nil {
			t.Fatal(err)
		}
		observe(t, b, ev, 50)
		b.Flush(3000 * ms)
		c := b.ClientCounts()
		got := int64(b.Count(1))
		switch pol {
		case FailDrop:
			if got != 3000-held || c.Dropped != held || c.Failed != 10 {
				t.Errorf("drop: count %d, dropped %d, failed flushes %d; want %d, %d, 10", got, c.Dropped, c.Failed, 3000-held, held)
			}
		case FailResend:
			if got != 3000 || c.Dropped != 0 || c.Resent != 10 {
				t.Errorf("resend: count %d, dropped %d, resent %d; want 3000, 0, 10", got, c.Dropped, c.Resent)
			}
		}
	}
}

// TestBatchedPartition: app server 1 cut off every node for [1 s, 2 s)
// loses, with drop, what node 1 down lost in TestBatchedOnFailure — the
// flushes of server 1 (to stripe 1) then — since each flush goes from its
// own server; the other servers' flushes to every node land.
func TestBatchedPartition(t *testing.T) {
	ev := writesEvery(3000, ms)
	var held int64
	for _, e := range ev {
		if appServer(e.ID, 4) == 1 && e.At >= 900*ms && e.At < 1900*ms {
			held++
		}
	}
	st := newFaultStore(t)
	st.place(1, 4, 4)
	st.cut[1] = [][2]int64{{1000 * ms, 2000 * ms}}
	b, err := NewBatched(BatchedParams{Servers: 4, Flush: 100 * time.Millisecond, Stripes: 4,
		ClientParams: ClientParams{Timeout: 10 * time.Millisecond}}, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	observe(t, b, ev, 50)
	b.Flush(3000 * ms)
	if got, c := int64(b.Count(1)), b.ClientCounts(); got != 3000-held || c.Dropped != held || c.Failed != 10 {
		t.Errorf("count %d, dropped %d, failed flushes %d; want %d, %d, 10", got, c.Dropped, c.Failed, 3000-held, held)
	}
}

// TestReadsPartial: 4 stripes on 4 nodes, node 1 down for [1 s, 2 s); a
// read each 100 ms after the writes of that ms. Partial reads sum the 3
// stripes that answer; whole reads fail and show the last total, read
// before the outage at 900 ms, 100 ms … 1,000 ms old.
func TestReadsPartial(t *testing.T) {
	var ev []workload.Event
	for i, e := range writesEvery(3000, ms) {
		ev = append(ev, e)
		if i%100 == 0 {
			ev = append(ev, workload.Event{At: e.At, Key: 1, Op: workload.Read})
		}
	}
	for _, partial := range []bool{false, true} {
		st := newFaultStore(t)
		st.place(1, 4, 4)
		st.down[1] = [][2]int64{{1000 * ms, 2000 * ms}}
		s, err := NewStriped(StripedParams{Stripes: 4, Select: SelectRoundRobin,
			ClientParams: ClientParams{Timeout: 10 * time.Millisecond, Partial: partial}}, st, 1)
		if err != nil {
			t.Fatal(err)
		}
		observe(t, s, ev, 37)
		c, shown := s.ClientCounts(), s.Shown()
		if c.Reads != 30 {
			t.Fatalf("reads %d, want 30", c.Reads)
		}
		// Reads at 1,000 … 1,900 ms: 10 of them.
		if partial {
			if c.ReadsPartial != 10 || c.ReadsFailed != 0 || len(c.ShownAges) != 0 {
				t.Errorf("partial: %d partial, %d failed, %d ages; want 10, 0, 0", c.ReadsPartial, c.ReadsFailed, len(c.ShownAges))
			}
			// At 1,500 ms: 1,501 writes so far, 375 of them on stripe 1,
			// which does not answer: the other three hold 1,126.
			if got, want := shown[15], int64(1126); got != want {
				t.Errorf("partial read at 1.5 s shows %d, want %d", got, want)
			}
			continue
		}
		if c.ReadsFailed != 10 || c.ReadsPartial != 0 || len(c.ShownAges) != 10 {
			t.Fatalf("whole: %d failed, %d partial, %d ages; want 10, 0, 10", c.ReadsFailed, c.ReadsPartial, len(c.ShownAges))
		}
		for i, a := range c.ShownAges {
			if want := int64(i+1) * 100 * ms; a != want {
				t.Errorf("failed read %d shows a total %d ns old, want %d", i, a, want)
			}
			if shown[10+i] != 901 {
				t.Errorf("failed read %d shows %d, want 901 (the read at 900 ms)", i, shown[10+i])
			}
		}
	}
}

// TestLeastLoadedRoutesAround: 32 stripes on 8 nodes, node 3 (4 stripes)
// down for 10 s of 30, 20,000 writes a second. Least-loaded skips a stripe
// from the time its write timed out, probes it once a second, and reroutes
// a write that failed: write availability (first tries answered) stays
// above 99.9% during the outage, and nothing is lost. Random keeps picking
// the dead stripes: it fails a share 4/32 of the outage's 200,000 writes,
// Binomial(200,000, 1/8): within 5σ = 5·√(200,000·⅛·⅞) ≈ 740 of 25,000
// (a correct build fails less than once in 10⁶).
func TestLeastLoadedRoutesAround(t *testing.T) {
	ev := writesEvery(600_000, 50_000) // 30 s
	for _, sel := range []StripeSelect{SelectLeastLoaded, SelectRandom} {
		st := newFaultStore(t)
		st.place(1, 32, 8)
		st.down[3] = [][2]int64{{10e9, 20e9}}
		s, err := NewStriped(StripedParams{Stripes: 32, Select: sel, ClientParams: ClientParams{Timeout: 20 * time.Millisecond}}, st, 42)
		if err != nil {
			t.Fatal(err)
		}
		observe(t, s, ev, 1024)
		c := s.ClientCounts()
		failedFirst := c.Writes - c.FirstOK
		t.Logf("%v: %d first tries failed, %d rerouted, %d given up, of %d writes", sel, failedFirst, c.Rerouted, c.Failed, c.Writes)
		switch sel {
		case SelectLeastLoaded:
			if avail := 1 - float64(failedFirst)/200_000; avail <= 0.999 {
				t.Errorf("least-loaded: %d first tries failed of the outage's 200,000: availability %.5f, want > 0.999", failedFirst, avail)
			}
			// A reroute goes to a stripe not known to have failed: in the
			// outage's first timeout, one on the dead node too, now and
			// then.
			if failedFirst == 0 || c.Rerouted != failedFirst || c.Failed > c.Rerouted/10 {
				t.Errorf("least-loaded: %d failed, %d rerouted, %d given up; want every failure rerouted (and some failure), few of them failing again", failedFirst, c.Rerouted, c.Failed)
			}
			if got := s.Count(1); got != uint64(600_000-c.Failed) {
				t.Errorf("least-loaded: count %d, want 600,000 − %d", got, c.Failed)
			}
		case SelectRandom:
			sigma := math.Sqrt(200_000 * 0.125 * 0.875)
			if d := math.Abs(float64(c.Failed) - 25_000); d > 5*sigma {
				t.Errorf("random: %d failed, want 25,000 ± %.0f", c.Failed, 5*sigma)
			}
			if got := s.Count(1); got != uint64(600_000-c.Failed) {
				t.Errorf("random: count %d, want 600,000 − %d", got, c.Failed)
			}
		}
	}
}

// TestClientOffSendsAsDo: with no client parameter the design never calls
// DoClient and counts nothing; a store fault delivered turns the client on.
func TestClientOffSendsAsDo(t *testing.T) {
	st := newFaultStore(t)
	st.place(1, 4, 4)
	s, err := NewStriped(StripedParams{Stripes: 4, Select: SelectRoundRobin}, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	if s.Clienting() {
		t.Fatal("client on with no client parameter")
	}
	observe(t, s, writesEvery(100, ms), 10)
	s.Fault(strategies.Fault{At: 100 * ms, Kind: strategies.NodeDown, Target: 1, For: 1e9})
	st.down[1] = [][2]int64{{100 * ms, 1100 * ms}}
	if !s.Clienting() {
		t.Fatal("a node-down did not turn the client on")
	}
	ev := writesEvery(200, ms)[100:]
	observe(t, s, ev, 10)
	if c := s.ClientCounts(); c.Writes != 100 || c.Failed != 25 {
		t.Errorf("after the fault: %d writes, %d failed; want 100, 25", c.Writes, c.Failed)
	}
}

// TestBackoffNeedsRetries: a backoff without retries is refused.
func TestBackoffNeedsRetries(t *testing.T) {
	st := newFaultStore(t)
	if _, err := NewStriped(StripedParams{Stripes: 4, ClientParams: ClientParams{Backoff: time.Second}}, st, 1); err == nil {
		t.Error("backoff without retries accepted")
	}
}
