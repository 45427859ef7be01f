package designtest

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"countsim/strategies"
	"countsim/workload"
)

// Stores for the hot-counter tests: MemStore applies every operation at
// once, and queueStore serves each key's increments at a fixed capacity so
// that writes queue (the benchmarks count ops with countStore). None shares
// code with package sim's cluster.

// MemStore applies each op when it is sent: a Get sees every IncrBy sent
// before it. It checks that op times never decrease and counts the ops per
// store key and second.
type MemStore struct {
	t               testing.TB
	vals            map[uint64]int64
	last            int64
	Calls           int                  // Do calls
	Gets            int64                // Get ops
	Incrs           int64                // IncrBy ops
	ZWrites, ZReads int64                // sorted-set writes (ZIncrBy, ZAdd) and reads
	Load            map[keySec]int64     // IncrBy ops per store key and second; nil: not kept
	Log             []strategies.StoreOp // every op, when logging
	LogOn           bool
}

type keySec struct {
	Key uint64
	sec int64
}

func NewMemStore(t testing.TB) *MemStore {
	return &MemStore{t: t, vals: map[uint64]int64{}, Load: map[keySec]int64{}}
}

func (m *MemStore) Do(ops []strategies.StoreOp, vals []int64) {
	m.Calls++
	for i, op := range ops {
		if op.At < m.last {
			m.t.Errorf("memStore: op %d at %d after an op at %d", i, op.At, m.last)
		}
		m.last = op.At
		switch op.Kind {
		case strategies.IncrBy:
			m.vals[op.Key] += op.Delta
			m.Incrs++
			if m.Load != nil {
				m.Load[keySec{op.Key, op.At / 1e9}]++
			}
		case strategies.Get:
			vals[i] = m.vals[op.Key]
			m.Gets++
		case strategies.ZIncrBy, strategies.ZAdd:
			m.ZWrites++
			if m.Load != nil {
				m.Load[keySec{op.Key, op.At / 1e9}]++
			}
		case strategies.ZRead:
			m.ZReads++
		}
		if m.LogOn {
			m.Log = append(m.Log, op)
		}
	}
}

func (m *MemStore) Final(key uint64) int64 { return m.vals[key] }

// Busiest returns the most IncrBy ops one of the store keys took in one
// second, over the given keys.
func (m *MemStore) Busiest(keys []uint64) int64 {
	in := map[uint64]bool{}
	for _, k := range keys {
		in[k] = true
	}
	var top int64
	for ks, n := range m.Load {
		if in[ks.Key] {
			top = max(top, n)
		}
	}
	return top
}

// queueStore serves at most capacity IncrBy ops a second on each key, in
// the order sent: an op sent at At is served at max(At, when the key's
// previous op was served + 1/capacity). A Get is served at once and sees the
// increments served by its time; Final sees all.
type queueStore struct {
	t        testing.TB
	capacity float64
	keys     map[uint64]*queueKey
	last     int64
}

type queueKey struct {
	free   int64   // when the key can serve its next op
	served []int64 // when each op was served, non-decreasing
	sums   []int64 // running sum of the deltas, by op
}

func NewQueueStore(t testing.TB, capacity float64) *queueStore {
	return &queueStore{t: t, capacity: capacity, keys: map[uint64]*queueKey{}}
}

func (q *queueStore) key(k uint64) *queueKey {
	qk := q.keys[k]
	if qk == nil {
		qk = &queueKey{}
		q.keys[k] = qk
	}
	return qk
}

func (q *queueStore) Do(ops []strategies.StoreOp, vals []int64) {
	step := int64(1e9 / q.capacity)
	for i, op := range ops {
		if op.At < q.last {
			q.t.Errorf("queueStore: op %d at %d after an op at %d", i, op.At, q.last)
		}
		q.last = op.At
		qk := q.key(op.Key)
		switch op.Kind {
		case strategies.IncrBy:
			at := max(op.At, qk.free)
			qk.free = at + step
			var sum int64
			if n := len(qk.sums); n > 0 {
				sum = qk.sums[n-1]
			}
			qk.served = append(qk.served, at)
			qk.sums = append(qk.sums, sum+op.Delta)
		case strategies.Get:
			n := sort.Search(len(qk.served), func(j int) bool { return qk.served[j] > op.At })
			vals[i] = 0
			if n > 0 {
				vals[i] = qk.sums[n-1]
			}
		}
	}
}

func (q *queueStore) Final(key uint64) int64 {
	qk := q.keys[key]
	if qk == nil || len(qk.sums) == 0 {
		return 0
	}
	return qk.sums[len(qk.sums)-1]
}

// HotSpec describes a seeded timed test stream.
type HotSpec struct {
	Seed     uint64
	PerSec   []int   // writes in each simulated second, evenly spaced in it
	Keys     int     // writes and reads pick keys 0..keys-1 by Zipf s = 1 (1: one key)
	MaxDelta int64   // deltas uniform in 1..maxDelta (0 means 1)
	Reads    int     // reads a second, evenly spaced, offset half a spacing
	Resend   float64 // share of writes sent a second time with the same ID
	Delay    int64   // ns between a write and its resend
}

// Gen returns the stream in time order (writes before reads and resends at
// the same time), IDs 1, 2, … in write order.
func (sp HotSpec) Gen() []workload.Event {
	r := rand.New(rand.NewPCG(sp.Seed, 0x686f7473747265)) // "hotstre"
	keys := max(sp.Keys, 1)
	z := Zipf(keys, 1)
	pick := func() uint64 { return uint64(z.Draw(r)) }
	var ev []workload.Event
	id := uint64(0)
	for s, n := range sp.PerSec {
		for i := range n {
			id++
			d := int64(1)
			if sp.MaxDelta > 1 {
				d = 1 + r.Int64N(sp.MaxDelta)
			}
			at := int64(s)*1e9 + int64(i)*1e9/int64(n)
			e := workload.Event{At: at, Key: pick(), Delta: d, ID: id, Op: workload.Write}
			ev = append(ev, e)
			if sp.Resend > 0 && r.Float64() < sp.Resend {
				e.At += sp.Delay
				ev = append(ev, e)
			}
		}
		for i := range sp.Reads {
			at := int64(s)*1e9 + (2*int64(i)+1)*1e9/int64(2*sp.Reads)
			ev = append(ev, workload.Event{At: at, Key: pick(), Op: workload.Read})
		}
	}
	slices.SortStableFunc(ev, func(a, b workload.Event) int { return cmp.Compare(a.At, b.At) })
	return ev
}

// HotTruth is the logical count of every key (resends counted once), and
// the number of resent writes.
func HotTruth(ev []workload.Event) (map[uint64]int64, int64) {
	counts := map[uint64]int64{}
	seen := map[uint64]bool{}
	var resent int64
	for _, e := range ev {
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		if seen[e.ID] {
			resent++
			continue
		}
		seen[e.ID] = true
		counts[e.Key] += e.Delta
	}
	return counts, resent
}

// ObserveInBatches feeds ev in batches of n, checking the design's
// invariants after each where it has a check method.
func ObserveInBatches(t *testing.T, s strategies.Strategy, ev []workload.Event, n int) {
	t.Helper()
	for lo := 0; lo < len(ev); lo += n {
		s.Observe(ev[lo:min(lo+n, len(ev))])
		if _, err := check(s); err != nil {
			t.Fatalf("after event %d: %v", min(lo+n, len(ev)), err)
		}
	}
}
