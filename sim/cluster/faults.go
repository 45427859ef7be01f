package cluster

// Store faults (strategies/storefault.go, issue 29): a node down for a
// time, a slow node, a partition between app servers and nodes, a
// failover; the client's view of each op (strategies.FallibleStore); the
// idempotent writes (IncrByOnce); and what each fault cost (Outages).

import (
	"fmt"
	"math"
	"slices"

	"countsim/strategies"
)

// OnceTTL is how long (ns) the cluster remembers the id of an IncrByOnce
// it applied but answered OpTimeout: the PX of the SET NX a real store
// keys the write with. A retry comes within the client's retry budget
// (milliseconds to a few seconds); a minute covers it with room.
const OnceTTL = 60 * Second

// fault is one registered store fault (node-loss aside, which LoseNode
// applies at once) and what the cluster saw of it.
type fault struct {
	f     strategies.Fault
	end   int64 // f.End(), ns
	nodes []int // the nodes it touches: Target, or a partition's Nodes
	// stop is when its account stops (ns): the At of the next fault that
	// touches one of its nodes, which the ops failing after that count for.
	stop int64
	// A failover's lost writes: the deltas of the writes its master served
	// in (At−Lag, At], by key index, taken off the keys at At (applied).
	lostBy  map[int32]int64
	lost    int64
	applied bool
	// failed counts the ops sent to its nodes in [At, stop) that timed out
	// or were not applied; lastFail is the latest one's send time (−1:
	// none), okAfter the first op after it that answered in time (−1).
	failed, lastFail, okAfter int64
	// timeout is the client timeout of the ops it counts, when seen says
	// they had one: 0 none counted yet, 1 one, 2 several (FaultTimeout).
	timeout int64
	seen    uint8
}

func (f *fault) touches(node int) bool { return slices.Contains(f.nodes, node) }

// onceID is an IncrByOnce's idempotency key: its store key and event id.
type onceID struct{ key, id uint64 }

type onceEntry struct {
	id      onceID
	expires int64 // ns
}

// Fault injects the store fault f (strategies.StoreFault kinds; others are
// ignored). A node-loss is LoseNode(f.Target, f.At), at once. The others
// are registered and act by simulated time, on every op sent after — so a
// run registers each before the stream (the engine does), as a scenario
// states them: a failover then knows which writes fall in its lag, and an
// op's answer the faults it will meet before it completes. A fault given
// late is taken from the latest time seen (its At raised to it). A node
// outside 0..Nodes−1 is touched by nothing.
//
// What each does (times in ns; an op's answer comes at its completion, by
// the queueing model of [Cluster]; ops are judged at their send time At):
//
//   - node-down: node Target answers nothing in [At, At+For). An op sent
//     to it then is not applied, is counted nowhere in the load, and times
//     out (a read reads 0). The node keeps its data and the ops it had
//     received before At (a Redis whose network is cut, or a paused
//     process): they are served on schedule, but one whose answer falls in
//     the window reaches no client and is OpTimeout, though applied. From
//     At+For it answers again, with nothing queued from the window.
//   - node-slow: node Target, and each of its keys, serves at Share of its
//     capacity in [At, At+For): work of one op's service time takes
//     1/Share as long inside the window (service spanning its edges is
//     split at them), so its ops queue longer; a write still completes and
//     is applied, OpTimeout if it completes after its At+Timeout. After the
//     window the backlog drains at the full capacity, in about
//     backlog/(capacity − load).
//   - partition: an op sent in [At, At+For) by an app server in Servers to
//     a node in Nodes is not applied and times out, as to a down node;
//     ops from other servers are served as usual.
//   - failover: master Target dies at At. The writes it served (completed)
//     in (At−Lag, At] are taken off its keys' values at At: acknowledged,
//     then lost, counted in Outage.Lost. An op sent to it that would
//     complete after At, or sent in [At, At+Delay), is not applied and
//     times out (the master's queue dies with it). From At+Delay its
//     replica answers with the surviving data, its servers idle.
//
// Plain Do on a faulted cluster is DoClient from app server 0 with no
// timeout: only ops the faults refuse fail.
func (c *Cluster) Fault(f strategies.Fault) {
	if !f.Kind.StoreFault() {
		return
	}
	if f.Kind == strategies.NodeLoss {
		c.LoseNode(f.Target, f.At)
		return
	}
	f.At = max(f.At, c.clock, 0)
	if f.Kind == strategies.Partition {
		f.Servers, f.Nodes = slices.Clone(f.Servers), slices.Clone(f.Nodes)
	}
	if f.Kind == strategies.NodeSlow && !(f.Share > 0 && f.Share <= 1) {
		panic(fmt.Sprintf("cluster: node-slow share %v not in (0,1]", f.Share))
	}
	if end := f.End(); end < f.At || end > c.maxAt {
		panic(fmt.Sprintf("cluster: %s from %d ns ends at %d ns, outside [at, %d]", f.Kind, f.At, end, c.maxAt))
	}
	nf := &fault{f: f, end: f.End(), stop: math.MaxInt64, lastFail: -1, okAfter: -1}
	if f.Kind == strategies.Partition {
		nf.nodes = f.Nodes
	} else {
		nf.nodes = []int{f.Target}
	}
	for _, o := range c.faults {
		if o.stop == math.MaxInt64 && o.f.At <= f.At && slices.ContainsFunc(nf.nodes, o.touches) {
			o.stop = f.At
		}
	}
	if f.Kind == strategies.Failover {
		nf.lostBy = map[int32]int64{}
	}
	c.faults = append(c.faults, nf)
	slices.SortStableFunc(c.faults, func(a, b *fault) int { return cmpTime(a.f.At, b.f.At) })
	c.faulty = true
}

func cmpTime(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Outages is what the cluster saw of each fault registered by Fault, in
// time order ([strategies.Outages]); a failover not yet reached is taken
// as happened. A node loss is not among them: LoseNode counts what it
// lost in Stats.Lost.
func (c *Cluster) Outages() []strategies.Outage {
	c.applyDue(math.MaxInt64)
	out := make([]strategies.Outage, len(c.faults))
	for i, f := range c.faults {
		rec := f.end
		if f.lastFail >= f.end {
			rec = f.okAfter
		}
		out[i] = strategies.Outage{Fault: f.f, Recovered: rec, Failed: f.failed, Lost: f.lost}
	}
	return out
}

// DoClient applies ops as Do does, sent by client cl, and sets status[i]
// to what cl learned of ops[i] by ops[i].At + cl.Timeout
// ([strategies.FallibleStore]; the faults' effects are stated on Fault).
// A multi-key command's KeyArg ops share its status. On a cluster without
// faults and with no timeout it is Do, every op OpOK.
func (c *Cluster) DoClient(cl strategies.Client, ops []strategies.StoreOp, vals []int64, status []strategies.OpStatus) {
	if !c.faulty && cl.Timeout <= 0 {
		c.Do(ops, vals)
		for i := range ops {
			status[i] = strategies.OpOK
		}
		return
	}
	c.doClient(cl, ops, vals, status)
}

// doClient is Do op by op, with the faults and the client's timeout:
// Do's per-op path (cluster.go) where each op's completion is worked out
// with the faults in force, then judged. status may be nil (plain Do).
func (c *Cluster) doClient(cl strategies.Client, ops []strategies.StoreOp, vals []int64, status []strategies.OpStatus) {
	c.doCalls++
	d := c.ticksPerN
	for i := 0; i < len(ops); i++ {
		op := &ops[i]
		at := c.arrive(op.At)
		c.applyDue(at)
		k := c.key(op.Key, op.Tag)
		node := int(k.node)
		c.traffic.Ops++
		if c.doMark[node] != c.doCalls {
			c.doMark[node] = c.doCalls
			c.traffic.RoundTrips++
		}
		var args []strategies.StoreOp
		if op.Kind.MultiKey() {
			j := i + 1
			for j < len(ops) && ops[j].Kind == strategies.KeyArg {
				j++
			}
			args = ops[i+1 : j]
		}
		st := strategies.OpOK
		t := at * d
		switch {
		case op.Kind == strategies.KeyArg:
			panic(fmt.Sprintf("cluster: a KeyArg at op %d follows no multi-key command", i))
		case c.cut(cl.Server, node, at):
			st = strategies.OpTimeout
			if op.Kind == strategies.Get || op.Kind == strategies.PFCount {
				vals[i] = 0
			}
		default:
			done, ok := c.serve(op, k, t, at, args, vals, i)
			late := cl.Timeout > 0 && cl.Timeout < c.maxAt && done-t > cl.Timeout*d
			if !ok || late || c.silent(node, done) {
				st = strategies.OpTimeout
			}
			if ok && st == strategies.OpTimeout && op.Kind == strategies.IncrByOnce {
				c.remember(onceID{op.Key, op.Member}, at)
			}
		}
		c.note(node, at, st, cl.Timeout)
		if status != nil {
			for j := i; j <= i+len(args); j++ {
				status[j] = st
			}
		}
		i += len(args)
	}
}

// cut reports whether an op sent at at by server to node is refused: the
// node is down, cut off from the server, or a failover's dead master.
func (c *Cluster) cut(server, node int, at int64) bool {
	for _, f := range c.faults {
		if at < f.f.At || at >= f.end {
			continue
		}
		switch f.f.Kind {
		case strategies.NodeDown, strategies.Failover:
			if f.f.Target == node {
				return true
			}
		case strategies.Partition:
			if slices.Contains(f.f.Servers, server) && f.touches(node) {
				return true
			}
		}
	}
	return false
}

// silent reports whether node is down when an answer leaves it at tick
// done: an op it had queued before the outage, served but unanswered.
func (c *Cluster) silent(node int, done int64) bool {
	d := c.ticksPerN
	for _, f := range c.faults {
		if f.f.Kind == strategies.NodeDown && f.f.Target == node && done >= f.f.At*d && done < f.end*d {
			return true
		}
	}
	return false
}

// serve applies op, not refused, to k at tick t (ns at), as Do does, and
// returns its completion (ticks; t for a read answered at once) and
// whether it was applied: a failover's master drops an op it would
// complete after its death.
func (c *Cluster) serve(op *strategies.StoreOp, k *clusterKey, t, at int64, args []strategies.StoreOp, vals []int64, i int) (int64, bool) {
	queues := op.Kind.Writes() || c.cfg.GetsQueue
	done := t
	var keyFree, nodeFree int64
	node := int(k.node)
	if queues {
		c.advance(k, t)
		keyFree = c.finish(node, max(t, k.free), c.keySvc)
		done = keyFree
		if c.nodeSvc > 0 {
			nodeFree = c.finish(node, max(t, c.nodes[node].free), c.nodeSvc)
			done = max(done, nodeFree)
		}
		if f := c.dies(node, at, done); f != nil {
			if op.Kind == strategies.Get || op.Kind == strategies.PFCount {
				vals[i] = 0
			}
			return done, false
		}
	}
	sec := at / Second
	ks := c.keySecond(k, sec)
	ns := c.nodeSecond(node, sec)
	refused := op.Kind.MultiKey() && c.crossSlot(op, k, args)
	take := func(delta int64) {
		k.free = keyFree
		if c.nodeSvc > 0 {
			c.nodes[node].free = nodeFree
		}
		c.push(k, t, done, delta)
		if f := c.lagged(node, done); f != nil && delta != 0 {
			f.lostBy[k.idx] += delta
		}
	}
	switch op.Kind {
	case strategies.IncrBy, strategies.IncrByOnce, strategies.ZIncrBy, strategies.ZAdd, strategies.PFAdd, strategies.PFMerge, strategies.ZUnionStore:
		c.tally(ks, ns, k, true)
		delta := op.Delta
		switch {
		case op.Kind == strategies.IncrByOnce:
			if c.seen(onceID{op.Key, op.Member}, at) {
				delta = 0
			}
		case op.Kind != strategies.IncrBy:
			delta = 0
		}
		c.effect(op, args, refused)
		take(delta)
	case strategies.ZRead, strategies.PFCount:
		c.tally(ks, ns, k, false)
		if c.cfg.GetsQueue {
			take(0)
		}
		if op.Kind == strategies.PFCount {
			vals[i] = c.pfRead(op, args, refused)
		}
	case strategies.Get:
		c.tally(ks, ns, k, false)
		if c.cfg.GetsQueue {
			take(0)
			vals[i] = k.sent
			break
		}
		vals[i] = c.readNow(k, t)
	default:
		panic(fmt.Sprintf("cluster: unknown store op kind %d", op.Kind))
	}
	return done, true
}

// finish is when a server of node, starting work w (ticks) at tick start,
// completes it: at start+w, but inside a node-slow window of the node the
// work goes at Share of the rate (w/Share ticks, rounded up), service that
// spans a window's edge split at it.
func (c *Cluster) finish(node int, start, w int64) int64 {
	d := c.ticksPerN
	t := start
	for _, f := range c.faults {
		if f.f.Kind != strategies.NodeSlow || f.f.Target != node {
			continue
		}
		a, e := f.f.At*d, f.end*d
		if e <= t {
			continue
		}
		if t+w <= a {
			return t + w
		}
		if t < a {
			w -= a - t
			t = a
		}
		avail := float64(e-t) * f.f.Share // the work the window leaves room for
		if float64(w) <= avail {
			return t + int64(math.Ceil(float64(w)/f.f.Share))
		}
		w -= int64(avail)
		t = e
	}
	return t + w
}

// dies returns the failover whose master is node and dies at a time in
// [at, done) — after the op was sent, before it completed — or nil.
func (c *Cluster) dies(node int, at, done int64) *fault {
	d := c.ticksPerN
	for _, f := range c.faults {
		if f.f.Kind == strategies.Failover && f.f.Target == node && f.f.At >= at && f.f.At*d < done {
			return f
		}
	}
	return nil
}

// lagged returns the failover whose master is node and which loses a write
// it completes at tick done: done in (At−Lag, At], or nil.
func (c *Cluster) lagged(node int, done int64) *fault {
	d := c.ticksPerN
	for _, f := range c.faults {
		if f.f.Kind == strategies.Failover && f.f.Target == node && done > (f.f.At-f.f.Lag)*d && done <= f.f.At*d {
			return f
		}
	}
	return nil
}

// applyDue takes off the keys the lost writes of every failover due by at
// (ns): its master died, its replica holds what it had replicated.
func (c *Cluster) applyDue(at int64) {
	for _, f := range c.faults {
		if f.f.At > at {
			break
		}
		if f.f.Kind != strategies.Failover || f.applied {
			continue
		}
		f.applied = true
		idx := make([]int32, 0, len(f.lostBy))
		for i := range f.lostBy {
			idx = append(idx, i)
		}
		slices.Sort(idx) // map order must not reach the results
		for _, i := range idx {
			k := &c.keys[i]
			delta := f.lostBy[i]
			k.value -= delta
			k.sent -= delta
			f.lost += delta
		}
		f.lostBy = nil
	}
}

// note adds an op sent at at to node with a client timeout, answered st,
// to the account of every fault touching node that it falls in.
func (c *Cluster) note(node int, at int64, st strategies.OpStatus, timeout int64) {
	for _, f := range c.faults {
		if at < f.f.At || at >= f.stop || !f.touches(node) {
			continue
		}
		switch {
		case f.seen == 0:
			f.timeout, f.seen = timeout, 1
		case f.timeout != timeout:
			f.seen = 2
		}
		if st == strategies.OpTimeout {
			f.failed++
			f.lastFail, f.okAfter = at, -1
		} else if f.okAfter < 0 && at > f.lastFail {
			f.okAfter = at
		}
	}
}

// seen reports whether an IncrByOnce of id was applied before and its id
// is still remembered at at (ns); it forgets the ids expired by then.
//
// The rule: the cluster remembers the id of an IncrByOnce it applied but
// answered OpTimeout, for OnceTTL from its send. A real idempotency-key
// store (SET {key}:id:ID NX PX ttl, then INCRBY) remembers every id it
// applied; the two answer every write the same as long as a client sends
// an id again only to retry a write that timed out — the designs' retries
// — since a write answered OpOK is never retried, and one not applied
// (refused by a fault, or dropped by a failover) left no id on either.
// The remembered ids are at most the timed-out writes of the last OnceTTL.
func (c *Cluster) seen(id onceID, at int64) bool {
	for c.onceHead < len(c.onceQ) && c.onceQ[c.onceHead].expires <= at {
		e := c.onceQ[c.onceHead]
		if c.once[e.id] == e.expires {
			delete(c.once, e.id)
		}
		c.onceHead++
	}
	if c.onceHead == len(c.onceQ) {
		c.onceQ, c.onceHead = c.onceQ[:0], 0
	}
	_, ok := c.once[id]
	return ok
}

// remember keeps id, applied and answered OpTimeout at at, for OnceTTL.
func (c *Cluster) remember(id onceID, at int64) {
	if c.once == nil {
		c.once = map[onceID]int64{}
	}
	e := onceEntry{id: id, expires: at + OnceTTL}
	c.once[id] = e.expires
	c.onceQ = append(c.onceQ, e)
}

// OnceIDs is how many idempotency ids the cluster remembers now.
func (c *Cluster) OnceIDs() int { return len(c.once) }

// FaultTimeout is the client timeout (ns; 0: none) of every op counted in
// the account of the i-th fault of Outages, and whether they all had that
// one: false when they differ, or when none was sent.
func (c *Cluster) FaultTimeout(i int) (int64, bool) {
	f := c.faults[i]
	return f.timeout, f.seen == 1
}

// NodeSecond is the writes and reads node took in simulated second sec (0
// for a second it did not see).
func (c *Cluster) NodeSecond(node, sec int) (writes, reads int64) {
	i := sec*c.cfg.Nodes + node
	if node < 0 || node >= c.cfg.Nodes || sec < 0 || i >= len(c.nodeSec) {
		return 0, 0
	}
	return int64(c.nodeSec[i].writes), int64(c.nodeSec[i].reads)
}

// BusiestKeyOn is the most writes one key of node took in simulated
// second sec.
func (c *Cluster) BusiestKeyOn(node, sec int) int64 {
	var most int64
	for i := range c.keys {
		k := &c.keys[i]
		if int(k.node) != node {
			continue
		}
		for j := range k.seconds() {
			if s := k.second(j); int(s.sec) == sec {
				most = max(most, int64(s.writes))
			}
		}
	}
	return most
}

var (
	_ strategies.FallibleStore = (*Cluster)(nil)
	_ strategies.Outages       = (*Cluster)(nil)
)
