package hot

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Local batching, the likes seed's step 1: "each server keeps the likes it
// received in a local map and flushes to the database every second". A app
// servers each sum the deltas they receive per key in memory, and every
// flush interval T each server sends one INCRBY per key it holds — so the
// store sees at most A/T increments a second per key however hot the key
// (cricket final: 200 servers × 1 flush/s = 200 a second, 2% of a key's
// 10,000; likes: 20 servers turn 20,000 likes/s into 20 updates/s). The
// price: a count is visible only after its server's flush (up to T late),
// and a server that crashes loses what it held — up to R/A·T counts at a
// peak of R (200,000 / 200 × 1 s = 1,000).
//
// The model:
//   - a write goes to app server hash(ID) mod A (a resend reaches the server of
//     the original); writes with Delta ≤ 0 are not counted, and with dedup a
//     write whose ID was seen within the window is dropped before it reaches
//     a server;
//   - server s flushes at the times n·T (all together), or with jitter at
//     n·T + s·T/A (staggered evenly over the interval); a flush happens when
//     the stream's time reaches it: before every event, the flushes due at
//     or before its time are sent, at their own times, in time order, ties by
//     server. A server with nothing held sends nothing;
//   - a flush sends one INCRBY per key the server holds a non-zero sum for,
//     to stripe s mod K of the key (`stripes`, default 1: batching onto one
//     key; with K > 1 the servers' flushes spread over K keys);
//   - Fault{AppCrash, s} drops what server s holds, after the flushes due at
//     or before the crash; Lost counts it. A target ≥ A is not a server of
//     this design and crashes nothing;
//   - Flush(now), at the end of the stream, sends the flushes due by now at
//     their times, then everything still held at now;
//   - reads (readpath.go) see only what was flushed and served.
//
// Each server's sums are a dense[int64] table (dense.go): its keys in
// arrival order with their sums beside, so that a flush walks the arrays — the
// INCRBYs go out in the order the keys first came — and clears the index,
// which is at most twice the keys the server ever held. The servers holding
// something wait in a binary min-heap by flush time, so a flush costs
// O(keys held + log A) and an idle server nothing.

// BatchedParams are the parameters of local batching.
type BatchedParams struct {
	// Servers is A, the app servers, 1..100000; 0 takes the scenario's
	// app_servers assumption.
	Servers int `key:"servers" range:"1..100000" defaultdoc:"the assumptions' app_servers" doc:"app servers A; a write goes to server hash(ID) mod A"`
	// Flush is T, the flush interval, in (0, 24h].
	Flush time.Duration `key:"flush" range:">0" default:"1s" doc:"flush interval T"`
	// Jitter staggers the flushes: server s flushes at n·T + s·T/A.
	Jitter bool `key:"jitter" default:"false" doc:"stagger the flushes: server s flushes at n·T + s·T/A instead of every server at n·T"`
	// Stripes is K, the store keys of a counted key, 1..65536; server s
	// flushes to stripe s mod K.
	Stripes int `key:"stripes" range:"1..65536" default:"1" doc:"store keys K of each counted key (1: batching onto one key); server s flushes to stripe s mod K"`
	// Read, TTL and Dedup: the read path and the dedup window.
	Read  ReadPath      `key:"read" default:"sum" doc:"what a Read event shows: sum (one GET per stripe at the read's time, summed) or cache (the total cached per key, refreshed by a read that finds it ttl old or older); reads see only flushed, served counts"`
	TTL   time.Duration `key:"ttl" range:">0" doc:"with read: cache, how long a cached total is shown"`
	Dedup time.Duration `key:"dedup" range:">=0" defaultdoc:"0: off" doc:"dedup window: drop a write whose ID was seen less than this long before"`
	// ClientParams: timeout, retries, backoff, idempotent flushes, partial
	// reads (client.go).
	ClientParams
	// OnFailure is what a server does with a flush's INCRBY whose retries
	// all failed.
	OnFailure FailurePolicy `key:"on_failure" default:"drop" doc:"what a server does with a flushed delta whose INCRBY failed, its retries spent: drop (the counts are lost) or resend (kept and sent again with the server's next flush)"`
}

// FailurePolicy is what local batching does with a failed flush.
type FailurePolicy uint8

const (
	// FailDrop: the delta of a failed flush is lost.
	FailDrop FailurePolicy = iota
	// FailResend: it is kept and sent with the server's next flush.
	FailResend
)

var failureNames = []string{"drop", "resend"}

// String returns "drop" or "resend".
func (f FailurePolicy) String() string { return strategies.EnumString(f, "on_failure", failureNames) }

// Names lists the policies' names.
func (FailurePolicy) Names() []string { return slices.Clone(failureNames) }

// MarshalText returns the policy's name.
func (f FailurePolicy) MarshalText() ([]byte, error) {
	return strategies.MarshalEnum(f, "failure policy", failureNames)
}

// UnmarshalText reads a policy by name.
func (f *FailurePolicy) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(f, "failure policy", failureNames, text)
}

const batchedMaxServers = 100_000

// Validate checks the read path with the ttl; servers 0 stands for the
// assumptions' app_servers, resolved when the design is built.
func (p BatchedParams) Validate() error {
	if err := p.ClientParams.check(); err != nil {
		return err
	}
	return checkReads(p.Read, p.TTL)
}

// Batched is local batching in front of a Store: a PointCounter (Count is
// what was flushed, once served), a Reader, a Flusher, Faultable (app-server
// crashes) and Lossy. Observe costs O(1) a write (a dedup probe, a table
// probe) plus the flushes; not safe for concurrent use.
type Batched struct {
	a      int
	t      int64 // ns
	k      int
	jitter bool
	seed   uint64 // the servers' hash seed

	servers []batchServer
	due     []int64 // server's next flush, while it holds something
	held    []bool  // server is in the heap
	heap    []int32 // servers holding something, by (due, server)

	keys    ds.DenseKeys // numbers of the keys read, on the cache path
	keySeed uint64       // keys' hash seed
	io      hotIO
	dd      *dedupWindow

	lost    int64 // counts dropped by crashes
	flushes int64 // server flushes that sent something

	cp     ClientParams // for a client a store fault turns on
	resend bool         // on_failure: resend
}

// batchServer is one app server's unflushed sums: the keys it holds in
// the order they came, and the sum of each.
type batchServer struct {
	sums ds.Dense[int64]
}

// NewBatched returns local batching on store with p.Servers ≥ 1 servers;
// seed seeds the servers' table hashes and the dedup window.
func NewBatched(p BatchedParams, store strategies.Store, seed uint64) (*Batched, error) {
	if err := strategies.ValidateWith("batched", &p); err != nil {
		return nil, err
	}
	if p.Servers == 0 {
		return nil, strategies.WithType("batched", strategies.ParamErrorf("servers", "0 not in 1..%d", batchedMaxServers))
	}
	if store == nil {
		return nil, strategies.NeedsCluster("batched")
	}
	o := newHotOpts(p.Read, p.TTL, p.Dedup)
	st := workload.SplitMix(seed ^ 0x62617463686564) // "batched"
	b := &Batched{
		a: p.Servers, t: int64(p.Flush), k: p.Stripes, jitter: p.Jitter,
		seed:    st.Uint64(),
		servers: make([]batchServer, p.Servers), // each allocates its index on its first key
		due:     make([]int64, p.Servers),
		held:    make([]bool, p.Servers),
		heap:    make([]int32, 0, p.Servers),
		keys:    ds.NewDense[struct{}](16),
		keySeed: st.Uint64(),
		io:      newHotIO(store, o),
	}
	if o.dedup > 0 {
		b.dd = newDedupWindow(o.dedup, seed)
	}
	b.cp, b.resend = p.ClientParams, p.OnFailure == FailResend
	b.startClient(newHotClient(p.ClientParams, store, false))
	return b, nil
}

// offset is server s's flush phase: s·T/A with jitter, else 0.
func (b *Batched) offset(s int) int64 {
	if !b.jitter {
		return 0
	}
	return int64(s) * b.t / int64(b.a) // s < A ≤ 1e5 and T ≤ 24h: no overflow
}

// nextFlush is server s's first flush time strictly after t.
func (b *Batched) nextFlush(s int, t int64) int64 {
	off := b.offset(s)
	d := t - off
	n := d / b.t
	if d < 0 && d%b.t != 0 {
		n--
	}
	return off + (n+1)*b.t
}

// Observe hands each write to its server, sends the flushes due as the
// stream's time passes them and answers reads, in one Do call.
func (b *Batched) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if b.io.full() {
			b.io.send()
		}
		if len(b.heap) > 0 && b.due[b.heap[0]] <= e.At {
			b.flushDue(e.At)
		}
		if b.io.cl != nil && e.Op == workload.Read {
			b.io.advance(e.At)
		}
		switch e.Op {
		case workload.Read:
			slot := int32(-1)
			if b.io.cache {
				var added bool
				if slot, added = b.keys.Slot(e.Key, b.keySeed); added {
					b.io.addKey()
				}
			}
			b.io.read(e.At, e.Key, b.k, slot)
		case workload.Write:
			if e.Delta <= 0 || (b.dd != nil && b.dd.seen(e.ID, e.At)) {
				continue
			}
			s := appServer(e.ID, b.a)
			*b.servers[s].sums.Ref(e.Key, b.seed) += e.Delta
			if !b.held[s] {
				b.held[s] = true
				b.due[s] = b.nextFlush(s, e.At)
				b.push(int32(s))
			}
		}
	}
	b.io.send()
}

// flushDue flushes, at their own times, the servers due at or before now.
func (b *Batched) flushDue(now int64) {
	for len(b.heap) > 0 && b.due[b.heap[0]] <= now {
		s := b.pop()
		b.flushServer(int(s), b.due[s])
	}
}

// flushServer sends server s's sums at time at and empties it.
func (b *Batched) flushServer(s int, at int64) {
	v := &b.servers[s]
	j := s % b.k
	sent := false
	if b.io.cl != nil {
		b.io.advance(at)
	}
	for i, key := range v.sums.Keys {
		if d := v.sums.Vals[i]; d != 0 {
			if b.io.cl != nil {
				b.io.incrClient(at, key, j, d, flushID(s, at, key), int32(s), 0)
			} else {
				b.io.incr(at, key, j, d)
			}
			sent = true
		}
	}
	if sent {
		b.flushes++
	}
	v.clear()
	b.held[s] = false
}

// Flush sends the flushes due by now at their times, then everything still
// held, at now; then hands the ops to the store.
//
// With the client, a flush that fails at the end is resent (on_failure:
// resend) at the next flush time, T later, and so on for at most
// batchedEndRounds flushes; what is still held then is dropped (Dropped).
func (b *Batched) Flush(now int64) {
	b.flushDue(now)
	now = max(now, b.io.last)
	for round := 0; ; round++ {
		for len(b.heap) > 0 {
			b.flushServer(int(b.pop()), now)
		}
		b.io.drain()
		if len(b.heap) == 0 {
			return
		}
		if round == batchedEndRounds {
			for len(b.heap) > 0 {
				s := int(b.pop())
				for _, d := range b.servers[s].sums.Vals {
					b.io.cl.counts.Dropped += d
				}
				b.servers[s].clear()
				b.held[s] = false
			}
			return
		}
		now = max(now+b.t, b.io.last)
	}
}

// batchedEndRounds bounds the flushes after the stream's end that resend
// what failed.
const batchedEndRounds = 64

// Fault crashes app server f.Target (kind AppCrash) after the flushes due
// at or before f.At, which it sends: what the server holds then is lost.
// Other kinds, and targets ≥ A, are ignored.
func (b *Batched) Fault(f strategies.Fault) {
	if f.Kind.StoreFault() && f.Kind != strategies.NodeLoss && b.io.cl == nil {
		b.io.send()
		b.startClient(newHotClient(b.cp, b.io.store, true))
		return
	}
	if f.Kind != strategies.AppCrash || f.Target < 0 || f.Target >= b.a {
		return
	}
	b.flushDue(f.At)
	b.io.send()
	v := &b.servers[f.Target]
	for _, d := range v.sums.Vals {
		b.lost += d
	}
	v.clear()
	// The server stays in the heap until its flush time, and sends nothing
	// then unless it receives writes again before.
}

// Lost returns the counts dropped by crashed servers so far.
func (b *Batched) Lost() int64 { return b.lost }

// unflushed returns the counts the servers hold now, not yet flushed.
func (b *Batched) unflushed() int64 {
	var h int64
	for s := range b.servers {
		for _, d := range b.servers[s].sums.Vals {
			h += d
		}
	}
	return h
}

// Count returns what was flushed for key, once served: the sum of its
// stripes' final values (0 if negative). Counts still held by servers are
// not in it: the runner calls Flush first.
func (b *Batched) Count(key uint64) uint64 {
	var sum int64
	for j := range b.k {
		sum += b.io.store.Final(stripeKey(key, j))
	}
	return uint64(max(sum, 0))
}

// Shown returns the value shown for each Read event, in stream order.
func (b *Batched) Shown() []int64 { return b.io.shown }

// startClient puts the client cl (nil: none) in place.
func (b *Batched) startClient(cl *hotClient) {
	if cl == nil {
		return
	}
	b.io.cl = cl
	cl.after = b.afterSend
	cl.byServer = true
}

// afterSend acts on the flushes given up that the client learned of by
// upto: the delta kept
// for the server's next flush (resend) or lost (drop).
func (b *Batched) afterSend(upto int64) {
	cl := b.io.cl
	for r := cl.next(upto); r != nil; r = cl.next(upto) {
		if r.ok {
			continue
		}
		cl.counts.Failed++
		if !b.resend {
			cl.counts.Dropped += r.op.Delta
			continue
		}
		cl.counts.Resent++
		s := int(r.m.slot)
		*b.servers[s].sums.Ref(r.m.key, b.seed) += r.op.Delta
		if !b.held[s] {
			b.held[s] = true
			b.due[s] = b.nextFlush(s, max(r.learn, b.io.last))
			b.push(int32(s))
		}
	}
}

// Clienting reports whether the design sends with DoClient.
func (b *Batched) Clienting() bool { return b.io.cl != nil }

// ClientCounts returns the client's own counts (client.go).
func (b *Batched) ClientCounts() strategies.ClientCounts { return b.io.clientCounts() }

// StoreKeys appends the store keys of key's K stripes, with their Tag.
func (b *Batched) StoreKeys(key uint64, dst []uint64) ([]uint64, uint64) {
	for j := range b.k {
		dst = append(dst, stripeKey(key, j))
	}
	return dst, 0
}

// Deduplicating reports whether the design drops resends (Deduper).
func (b *Batched) Deduplicating() bool { return b.dd != nil }

// Dropped returns the writes dropped as resends within the dedup window.
func (b *Batched) Dropped() int64 {
	if b.dd == nil {
		return 0
	}
	return b.dd.dropped
}

// Bytes is the memory of the servers' tables, the flush heap, the op buffer,
// the read cache and the dedup window.
func (b *Batched) Bytes() int64 {
	n := b.io.bytes() + b.keys.Bytes() +
		int64(cap(b.servers))*int64(unsafe.Sizeof(batchServer{})) +
		int64(cap(b.due))*8 + int64(cap(b.held)) + int64(cap(b.heap))*4
	for s := range b.servers {
		v := &b.servers[s]
		n += v.sums.Bytes()
	}
	if b.dd != nil {
		n += b.dd.bytes()
	}
	return n
}

// push adds server s to the heap.
func (b *Batched) push(s int32) {
	b.heap = append(b.heap, s)
	for i := len(b.heap) - 1; i > 0; {
		p := (i - 1) / 2
		if !b.before(b.heap[i], b.heap[p]) {
			break
		}
		b.heap[i], b.heap[p] = b.heap[p], b.heap[i]
		i = p
	}
}

// pop removes and returns the server due first.
func (b *Batched) pop() int32 {
	h := b.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && b.before(h[r], h[c]) {
			c = r
		}
		if !b.before(h[c], h[i]) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	b.heap = h
	return top
}

// before orders the heap: flush time, then server.
func (b *Batched) before(x, y int32) bool {
	if b.due[x] != b.due[y] {
		return b.due[x] < b.due[y]
	}
	return x < y
}

// clear empties the server, keeping its arrays.
func (v *batchServer) clear() { v.sums.Reset() }

// check validates the invariants between calls: each server's table holds
// exactly its entries, each reachable from its home; a server is in the heap
// once iff it is marked held, an unheld server holds nothing, the heap is
// ordered and every flush time is one of its server's boundaries.
func (b *Batched) check() error {
	if err := b.keys.Check(b.keySeed); err != nil {
		return err
	}
	if err := b.io.check(b.keys.Len()); err != nil {
		return err
	}
	inHeap := make([]int, b.a)
	for i, s := range b.heap {
		inHeap[s]++
		if i > 0 && b.before(s, b.heap[(i-1)/2]) {
			return fmt.Errorf("batched: heap out of order at %d", i)
		}
		if d := b.due[s] - b.offset(int(s)); d < 0 || d%b.t != 0 {
			return fmt.Errorf("batched: server %d due at %d, not one of its flush times", s, b.due[s])
		}
	}
	for s := range b.servers {
		v := &b.servers[s]
		if (inHeap[s] == 1) != b.held[s] || inHeap[s] > 1 {
			return fmt.Errorf("batched: server %d in the heap %d times, held %v", s, inHeap[s], b.held[s])
		}
		if !b.held[s] && v.sums.Len() != 0 {
			return fmt.Errorf("batched: server %d holds %d keys outside the heap", s, v.sums.Len())
		}
		if err := v.sums.Check(b.seed); err != nil {
			return fmt.Errorf("batched: server %d: %w", s, err)
		}
	}
	if b.dd != nil {
		return b.dd.check()
	}
	return nil
}

var (
	_ strategies.PointCounter = (*Batched)(nil)
	_ strategies.Reader       = (*Batched)(nil)
	_ strategies.Deduper      = (*Batched)(nil)
	_ strategies.Flusher      = (*Batched)(nil)
	_ strategies.Faultable    = (*Batched)(nil)
	_ strategies.Lossy        = (*Batched)(nil)
	_ strategies.FaultClient  = (*Batched)(nil)
)

func init() {
	strategies.Define("batched", "local batching: A app servers sum writes in memory and flush one INCRBY per key every T; a crash loses what a server holds",
		func(p *BatchedParams, env strategies.Env) (strategies.Strategy, error) {
			q := *p
			if q.Servers == 0 {
				a, err := batchedServers(env.Full)
				if err != nil {
					return nil, strategies.WithType("batched", err)
				}
				q.Servers = a
			}
			b, err := NewBatched(q, env.Store, env.Seed)
			if err != nil {
				return nil, err
			}
			b.io.reserve(env.Reads)
			return b, nil
		},
		batchedPlan, strategies.OnServers, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyReader), strategies.Errs(strategies.ErrsUnder),
		strategies.CheckedBy(func(p *BatchedParams, env strategies.Env) error {
			if p.Servers == 0 {
				_, err := batchedServers(env.Full)
				return err
			}
			return nil
		}))
}

// batchedServers is A from the assumptions' app_servers.
func batchedServers(f strategies.Assumptions) (int, error) {
	a := f.AppServers
	switch {
	case a == 0:
		return 0, strategies.ParamErrorf("servers", "not given, and the assumptions give no app_servers")
	case a != math.Trunc(a) || a < 1 || a > batchedMaxServers:
		return 0, strategies.ParamErrorf("servers", "not given, and the assumptions' app_servers %v is not a whole number in 1..%d", a, batchedMaxServers)
	}
	return int(a), nil
}

// batchedPlan: the increments the store sees, a key's load and utilisation,
// the worst loss on a crash, and the oldest value a reader sees.
func batchedPlan(p *BatchedParams, env strategies.Env) []strategies.PlanLine {
	o := newHotOpts(p.Read, p.TTL, p.Dedup)
	t := int64(p.Flush)
	ts := float64(t) / 1e9
	k := float64(p.Stripes)
	lines := []strategies.PlanLine{{Metric: metrics.Stripes, Value: k, Unit: "stripes", Note: "K configured: server s flushes to stripe s mod K"}}
	a := float64(p.Servers)
	if a == 0 {
		if n, err := batchedServers(env.Full); err == nil {
			a = float64(n)
		}
	}
	var perKey float64
	if a > 0 {
		perKey = math.Ceil(a/k) / ts
		lines = append(lines,
			strategies.PlanLine{Metric: metrics.Servers, Value: a, Unit: "servers", Note: "A"},
			strategies.PlanLine{Metric: metrics.KeysUsed, Value: min(a, k), Unit: "keys", Note: "min(A, K): server s flushes to stripe s mod K"},
			strategies.PlanLine{Metric: metrics.IncrementsPerSec, Value: a / ts, Unit: "ops/s",
				Note: fmt.Sprintf("A / T = %s / %s: one INCRBY per server and flush, for a key every server receives between flushes", strategies.Num(a), strategies.Secs(t))},
			strategies.PlanLine{Metric: metrics.MaxKeyOps, Value: perKey, Unit: "ops/s",
				Note: fmt.Sprintf("⌈A / K⌉ / T = ⌈%s / %s⌉ / %s: the servers flushing to one stripe", strategies.Num(a), strategies.Num(k), strategies.Secs(t))})
	}
	return append(lines, strategies.AtBothScales(env, func(f strategies.Assumptions) []strategies.PlanLine {
		var lines []strategies.PlanLine
		if capa := f.KeyCapacity; a > 0 && capa > 0 {
			lines = append(lines, strategies.PlanLine{Metric: metrics.Utilisation, Value: perKey / capa, Unit: "share",
				Note: fmt.Sprintf("%s / %s = %s of a key's capacity", strategies.Num(perKey), strategies.Num(capa), strategies.Pct(perKey/capa))})
		}
		if rate := f.PeakRate; a > 0 && rate > 0 {
			lost := rate / a * ts
			lines = append(lines, strategies.PlanLine{Metric: metrics.LostOnCrash, Value: lost, Unit: "events",
				Note: fmt.Sprintf("worst case, peak / A × T = %s / %s × %s = %s: a server holds up to T of its share", strategies.Num(rate), strategies.Num(a), strategies.Secs(t), strategies.Num(lost))})
		}
		lines = append(lines, hotReadPlan(o, k, f.ReadRate, t)...)
		return append(lines, hotDedupPlan(o, f.PeakRate)...)
	})...)
}

// appServer is the app server, of a, that handles the write with this ID:
// a hash of the ID, so that any ID layout (dense, strided, chunked) spreads
// evenly, and a resend reaches the server of its original.
func appServer(id uint64, a int) int { return int(ds.Reduce(workload.Mix64(id), uint64(a))) }
