package hot

import (
	"fmt"
	"math"
	"slices"
	"time"
	"unsafe"

	"countsim/strategies"
	"countsim/workload"
)

// The client side of a hot-counter design under store faults (issue 29):
// what an app does when a store node is down, slow or cut off. Every
// hot-counter design takes the same client parameters (ClientParams); with
// none given, and no store fault delivered, it sends its ops with Store.Do
// exactly as before. With one given, on a store that is a
// strategies.FallibleStore, it sends them with DoClient and reads each op's
// status:
//
//   - timeout T: an op whose answer would come later than At + T is a
//     failure (OpTimeout). 0: no timeout — the op waits, and only a down or
//     unreachable node fails it. The client learns of a failure at At + T.
//   - retries r, backoff b: a write that failed is sent again, the same op
//     (same key, same idempotency id), at its simulated retry time: the
//     n-th retry (n = 1..r) at the time the client learned of the previous
//     try's failure plus b·2^(n−1). Retries wait in a time-ordered queue
//     (a binary heap by time, then by the order they were queued) and are
//     sent as the event clock passes them, before the events at or after
//     their time, so the ops handed to the store never go back in time
//     (Store.Do's rule). A write whose r retries all failed is given up
//     (Failed). Reads are not retried.
//   - the buffer is sent early: before any op at or after the buffer's
//     first op's time + T + b, so the client knows every op's status
//     before its retry is due (window 0 — no timeout, no backoff — sends
//     once a batch as before, and a retry then goes out with the next send,
//     at that send's time at the earliest).
//   - idempotent: writes are IncrByOnce with the event ID as Member (a
//     flush of local batching: a hash of its server, time and key), so a
//     retry of a write that had in fact landed (a slow node served it
//     after the timeout) is not counted twice. Without it a retry is an
//     INCRBY, and such a retry counts twice.
//   - partial (reads): a read whose stripes did not all answer shows the
//     sum of those that did (ReadsPartial); without it such a read fails
//     (ReadsFailed) and shows the last total the design read of the key
//     (the cached one on the cache path; 0 if none), whose age is
//     recorded (ShownAges).
//
// The counts are the design's own (strategies.ClientCounts); the runner
// sets the truth beside them. What is sent while no fault is in play is
// the same ops at the same times as Do would send: only the number of
// DoClient calls differs.

// ClientParams are the client parameters every hot-counter design takes.
type ClientParams struct {
	Timeout    time.Duration `key:"timeout" range:">=0" defaultdoc:"0: none" doc:"how long an op waits for its answer; a later answer is a failure (0: an op waits, only a down or unreachable node fails it)"`
	Retries    int           `key:"retries" range:"0..16" defaultdoc:"0: none" doc:"times a failed write is sent again, the n-th retry b·2^(n−1) after the client learned of the last failure"`
	Backoff    time.Duration `key:"backoff" range:">=0" defaultdoc:"0" doc:"b, the first retry's wait after a failure, doubling each retry"`
	Idempotent bool          `key:"idempotent" default:"false" doc:"true: writes are sent as an idempotent INCRBY keyed by the event ID, so a retry of a write that landed is not counted twice"`
	Partial    bool          `key:"partial" default:"false" doc:"true: a read sums the stripes that answered and is marked partial; false: a read with any stripe failing fails and shows the last total read"`
	// Client turns the client on with none of the above given: the
	// design's ops go through DoClient, so a store fault fails them.
	Client bool `key:"client" default:"false" doc:"true: send with the fallible client even with no other client parameter (a store fault then fails ops; none is retried)"`
}

// on reports whether any client parameter asks for DoClient.
func (p ClientParams) on() bool {
	return p.Timeout > 0 || p.Retries > 0 || p.Backoff > 0 || p.Idempotent || p.Partial || p.Client
}

// check is the rule across the client parameters: a backoff is a retry's.
func (p ClientParams) check() error {
	if p.Backoff > 0 && p.Retries == 0 {
		return strategies.ParamErrorf("backoff", "given without retries (allowed: with retries ≥ 1)")
	}
	return nil
}

// opMeta is what the client keeps of one write in the buffer, beside it.
type opMeta struct {
	key   uint64 // the counted key
	slot  int32  // its state's slot (striped), or the flushing server (batched)
	j     int32  // the stripe
	tries uint8  // retries sent before this one
	flags uint8  // metaProbe, metaRerouted
}

const (
	metaProbe    = 1 << iota // a least-loaded probe of a skipped stripe
	metaRerouted             // sent to another stripe after its retries failed
	metaRead                 // a read's GET: no retry, no account of writes
)

// retryOp is a write waiting in the queue for its time.
type retryOp struct {
	op  strategies.StoreOp // op.At is its time
	m   opMeta
	seq uint64
}

// writeResult is a write's fate, for the design to act on after a send:
// a give-up (retries spent) or, where the design tracks stripes, any
// failure or a probe's answer.
type writeResult struct {
	op    strategies.StoreOp
	m     opMeta
	learn int64 // when the client learned of it
	ok    bool
}

// refMeta is what the client keeps of a read refresh, beside it.
type refMeta struct {
	key            uint64
	at             int64
	prevVal        int64 // the cache entry before the refresh
	prevAt         int64
	prevOK, cached bool
}

// lastRead is the last whole total a read of a key got.
type lastRead struct{ val, at int64 }

// hotClient is a design's fallible client: its parameters, the buffers
// beside hotIO's, the retry queue and the counts.
type hotClient struct {
	store   strategies.FallibleStore
	c       strategies.Client
	retries int
	backoff int64
	idem    bool
	partial bool
	window  int64 // send the buffer before an op this much after its first
	track   bool  // report every failure and probe answer (least-loaded)
	// byServer sends each write from its app server, the slot of its meta
	// (local batching); else every op goes from server 0.
	byServer bool

	meta   []opMeta // by op in io.ops
	refs   []refMeta
	status []strategies.OpStatus
	queue  []retryOp // min-heap by (op.At, seq)
	seq    uint64
	// results holds the writes' fates not yet acted on, by the time the
	// client learns them (the order of their ops); done of them are.
	results []writeResult
	done    int
	after   func(upto int64) // the design acts on the fates learned by upto
	last    map[uint64]lastRead
	counts  strategies.ClientCounts
}

// newHotClient returns the client of p on store, or nil when the design
// sends with Do: no client parameter and not forced, or a store that
// cannot fail.
func newHotClient(p ClientParams, store strategies.Store, force bool) *hotClient {
	fs, ok := store.(strategies.FallibleStore)
	if !ok || !(p.on() || force) {
		return nil
	}
	return &hotClient{
		store: fs, c: strategies.Client{Timeout: int64(p.Timeout)},
		retries: p.Retries, backoff: int64(p.Backoff), idem: p.Idempotent, partial: p.Partial,
		window: int64(p.Timeout) + int64(p.Backoff),
		last:   map[uint64]lastRead{},
	}
}

// serverOf is the app server op i of the buffer goes from.
func (cl *hotClient) serverOf(i int) int {
	if m := &cl.meta[i]; m.flags&metaRead == 0 && m.slot >= 0 {
		return int(m.slot)
	}
	return 0
}

// retryAt is when the (tries+1)-th retry of a write goes, the client
// having learned of its failure at learn.
func (cl *hotClient) retryAt(learn int64, tries uint8) int64 {
	return learn + cl.backoff<<tries
}

// learnAt is when the client learns of an op sent at at.
func (cl *hotClient) learnAt(at int64) int64 { return at + cl.c.Timeout }

// push queues op for its time.
func (cl *hotClient) push(op strategies.StoreOp, m opMeta) {
	cl.seq++
	cl.queue = append(cl.queue, retryOp{op: op, m: m, seq: cl.seq})
	q := cl.queue
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].before(&q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// pop removes and returns the queued op due first.
func (cl *hotClient) pop() retryOp {
	q := cl.queue
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q) {
			break
		}
		if r := c + 1; r < len(q) && q[r].before(&q[c]) {
			c = r
		}
		if !q[c].before(&q[i]) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	cl.queue = q
	return top
}

func (r *retryOp) before(o *retryOp) bool {
	if r.op.At != o.op.At {
		return r.op.At < o.op.At
	}
	return r.seq < o.seq
}

// incrOp is the write of delta on stripe j of key at time at with
// idempotency id.
func (io *hotIO) incrOp(at int64, key uint64, j int, delta int64, id uint64) strategies.StoreOp {
	op := strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: stripeKey(key, j), Delta: delta, Tag: io.tagOf(key)}
	if io.cl != nil && io.cl.idem {
		op.Kind, op.Member = strategies.IncrByOnce, id
	}
	return op
}

// incrClient appends a write as incr does, with what the client keeps of
// it (slot: the key's state slot, or the flushing server).
func (io *hotIO) incrClient(at int64, key uint64, j int, delta int64, id uint64, slot int32, flags uint8) {
	io.last = at
	io.ops = append(io.ops, io.incrOp(at, key, j, delta, id))
	io.cl.meta = append(io.cl.meta, opMeta{key: key, slot: slot, j: int32(j), flags: flags})
	io.cl.counts.Writes++
	c := &io.cl.counts
	if sec := int(at / 1e9); sec >= 0 {
		for len(c.WritesBySec) <= sec {
			c.WritesBySec = append(c.WritesBySec, 0)
			c.FirstFailedBySec = append(c.FirstFailedBySec, 0)
		}
		c.WritesBySec[sec]++
	}
}

// advance brings the client's clock to t, before an op at t is appended:
// the buffer is sent when t is a window past its first op, and the
// retries due by t are appended at their times, in time order.
func (io *hotIO) advance(t int64) {
	cl := io.cl
	for {
		x, retry := t, false
		if len(cl.queue) > 0 && cl.queue[0].op.At <= t {
			x, retry = cl.queue[0].op.At, true
		}
		if cl.done < len(cl.results) && cl.results[cl.done].learn <= x {
			io.learn(x)
			continue
		}
		if cl.window > 0 && len(io.ops) > 0 && x >= io.ops[0].At+cl.window {
			io.send()
			continue
		}
		if !retry {
			return
		}
		r := cl.pop()
		r.op.At = max(r.op.At, io.last)
		io.last = r.op.At
		io.ops = append(io.ops, r.op)
		cl.meta = append(cl.meta, r.m)
		if r.m.flags&metaRerouted == 0 {
			cl.counts.Retried++
		}
	}
}

// drain sends the buffer, then every queued retry at its time and what
// the sends bring (a reroute), until the queue is empty: the stream's end.
func (io *hotIO) drain() {
	io.send()
	if io.cl == nil {
		return
	}
	for {
		io.learn(math.MaxInt64)
		if len(io.cl.queue) == 0 {
			return
		}
		var latest int64
		for i := range io.cl.queue {
			latest = max(latest, io.cl.queue[i].op.At)
		}
		io.advance(latest)
		io.send()
	}
}

// learn has the design act on the fates the client has learned by upto,
// then forgets them.
func (io *hotIO) learn(upto int64) {
	cl := io.cl
	if cl.done == len(cl.results) {
		return
	}
	if cl.after != nil {
		cl.after(upto)
	} else {
		for cl.done < len(cl.results) && cl.results[cl.done].learn <= upto {
			cl.done++
		}
	}
	if cl.done == len(cl.results) {
		cl.results, cl.done = cl.results[:0], 0
	}
}

// next returns the next fate learned by upto, or nil.
func (cl *hotClient) next(upto int64) *writeResult {
	if cl.done == len(cl.results) || cl.results[cl.done].learn > upto {
		return nil
	}
	cl.done++
	return &cl.results[cl.done-1]
}

// sendClient is send on the fallible client: DoClient, then each op's
// status — a write retried, given up or answered; a read whole, partial
// or failed.
func (io *hotIO) sendClient(vals []int64) {
	cl := io.cl
	n := len(io.ops)
	if cap(cl.status) < n {
		cl.status = make([]strategies.OpStatus, cap(io.ops))
	}
	st := cl.status[:n]
	if !cl.byServer {
		cl.store.DoClient(cl.c, io.ops, vals, st)
	} else {
		// One call a run of ops from one app server (a flush's INCRBYs
		// are one run; reads go from server 0), so that a partition cuts
		// the servers it names.
		for i := 0; i < n; {
			srv := cl.serverOf(i)
			j := i + 1
			for j < n && cl.serverOf(j) == srv {
				j++
			}
			c := cl.c
			c.Server = srv
			cl.store.DoClient(c, io.ops[i:j], vals[i:j], st[i:j])
			i = j
		}
	}
	for i := range io.ops {
		m := &cl.meta[i]
		if m.flags&metaRead != 0 || !io.ops[i].Kind.Writes() {
			continue
		}
		ok := st[i] == strategies.OpOK
		if m.tries == 0 && m.flags&metaRerouted == 0 {
			if ok {
				cl.counts.FirstOK++
			} else if sec := int(io.ops[i].At / 1e9); sec >= 0 && sec < len(cl.counts.FirstFailedBySec) {
				cl.counts.FirstFailedBySec[sec]++
			}
		}
		learn := cl.learnAt(io.ops[i].At)
		switch {
		case ok:
			if cl.track && m.flags&metaProbe != 0 {
				cl.results = append(cl.results, writeResult{op: io.ops[i], m: *m, learn: learn, ok: true})
			}
		case int(m.tries) < cl.retries && m.flags&metaRerouted == 0:
			op, mm := io.ops[i], *m
			op.At = cl.retryAt(learn, m.tries)
			mm.tries++
			mm.flags &^= metaProbe
			cl.push(op, mm)
			if cl.track {
				cl.results = append(cl.results, writeResult{op: io.ops[i], m: *m, learn: learn})
			}
		default:
			// Retries spent: the design decides (reroute, resend, drop).
			cl.results = append(cl.results, writeResult{op: io.ops[i], m: *m, learn: learn})
		}
	}
	for i := range io.refreshes {
		r, rm := &io.refreshes[i], &cl.refs[i]
		var t int64
		bad := 0
		for q := r.start; q < r.start+r.n; q++ {
			if st[q] == strategies.OpOK {
				t += vals[q]
			} else {
				bad++
			}
		}
		cl.counts.Reads++
		switch {
		case bad == 0:
			cl.last[rm.key] = lastRead{val: t, at: rm.at}
		case cl.partial:
			cl.counts.ReadsPartial++
		default:
			cl.counts.ReadsFailed++
			t = 0
			var at int64 = -1
			if rm.cached {
				if rm.prevOK {
					t, at = rm.prevVal, rm.prevAt
				}
				// The failed refresh leaves the old total cached.
				e := &io.entries[r.slot]
				if e.ref == int32(i) {
					e.at, e.ok = rm.prevAt, rm.prevOK
				}
			} else if l, ok := cl.last[rm.key]; ok {
				t, at = l.val, l.at
			}
			if at >= 0 {
				cl.counts.ShownAges = append(cl.counts.ShownAges, rm.at-at)
			}
		}
		// vals of a failed read are 0: the total now stands in the first.
		for q := r.start; q < r.start+r.n; q++ {
			vals[q] = 0
		}
		if r.n > 0 {
			vals[r.start] = t
		}
	}
}

// clientCounts returns the client's counts, none without a client.
func (io *hotIO) clientCounts() strategies.ClientCounts {
	if io.cl == nil {
		return strategies.ClientCounts{}
	}
	c := io.cl.counts
	c.ShownAges = slices.Clone(c.ShownAges)
	c.WritesBySec, c.FirstFailedBySec = slices.Clone(c.WritesBySec), slices.Clone(c.FirstFailedBySec)
	c.Idempotent = io.cl.idem
	return c
}

// clientBytes is the memory of the client's buffers and queue.
func (cl *hotClient) bytes() int64 {
	if cl == nil {
		return 0
	}
	return int64(cap(cl.meta))*int64(unsafe.Sizeof(opMeta{})) + int64(cap(cl.refs))*int64(unsafe.Sizeof(refMeta{})) +
		int64(cap(cl.status)) + int64(cap(cl.queue))*int64(unsafe.Sizeof(retryOp{})) +
		int64(cap(cl.results))*int64(unsafe.Sizeof(writeResult{})) + int64(len(cl.last))*24 +
		int64(cap(cl.counts.WritesBySec)+cap(cl.counts.FirstFailedBySec)+cap(cl.counts.ShownAges))*8
}

// check: the queue is a heap, the side buffers follow the buffer.
func (cl *hotClient) check(ops, refreshes int) error {
	if cl == nil {
		return nil
	}
	if len(cl.meta) != ops || len(cl.refs) != refreshes {
		return fmt.Errorf("hot client: %d metas for %d ops, %d for %d refreshes", len(cl.meta), ops, len(cl.refs), refreshes)
	}
	for i := 1; i < len(cl.queue); i++ {
		if cl.queue[i].before(&cl.queue[(i-1)/2]) {
			return fmt.Errorf("hot client: retry queue out of order at %d", i)
		}
	}
	return nil
}

// flushID is the idempotency id of a batching server's flush of key at at.
func flushID(server int, at int64, key uint64) uint64 {
	return workload.Mix64(workload.Mix64(uint64(server)<<1|1^uint64(at)) ^ key)
}
