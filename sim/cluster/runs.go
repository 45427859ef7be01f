package cluster

// The run path of Do: a run of writes to one key in one simulated second
// (a PFADD lane's thousands, a hot counter's stripes) is applied in one
// pass, its bookkeeping done once; TestClusterRunsAsOps (runs_test.go)
// holds it field for field to the op-by-op path of cluster.go.

import (
	"countsim/strategies"
	"countsim/strategies/distinct"
)

// writeRun applies the run of writes that opens ops — IncrBys, or PFAdds,
// to one key in one simulated second — as Do applies them one by one (the
// same counters, queue, delays and registers, in the same order), with the
// per-op bookkeeping (the key, its second, its node's, the round trip)
// done once, and returns the run's length, at least 1. The ops a batch
// sends to one key in one second (a PFADD lane's thousands, a hot
// counter's stripes) so cost a few nanoseconds each. The run is cut into
// stretches the key serves at once (idleRun, in closed form) and the
// others (enqueueRun, op by op).
func (c *Cluster) writeRun(ops []strategies.StoreOp) int {
	op := &ops[0]
	kind, key := op.Kind, op.Key
	at := c.arrive(op.At)
	k := c.key(key, op.Tag)
	if c.doMark[k.node] != c.doCalls {
		c.doMark[k.node] = c.doCalls
		c.traffic.RoundTrips++
	}
	sec := at / Second
	ks := c.keySecond(k, sec)
	ns := c.nodeSecond(int(k.node), sec)
	end := min((sec+1)*Second, c.maxAt+1) // the run's ops arrive before end: no second crossed, none beyond the horizon
	var h *distinct.HLL
	if kind == strategies.PFAdd {
		h = c.hll(key)
	}
	n := 0
	for {
		var m int
		if c.idle(k, at) {
			m, at = c.idleRun(k, ops[n:], at, end, h)
		} else {
			m, at = c.enqueueRun(k, ops[n:], at, end, h)
		}
		if n += m; n == len(ops) {
			break
		}
		o := &ops[n]
		if o.Kind != kind || o.Key != key || o.At >= end {
			break
		}
		if o.At >= at {
			at = o.At
		} else {
			c.reordered++
		}
	}
	c.clock, c.lastAt = at, at
	ks.writes += uint32(n)
	ns.writes += uint32(n)
	k.writes += int64(n)
	c.writes += int64(n)
	c.traffic.Ops += int64(n)
	return n
}

// idle reports whether k, with no node limit, serves at once an op
// arriving at at (ns): its one pending op, runs[head], served by lastDone.
func (c *Cluster) idle(k *clusterKey, at int64) bool {
	t := at * c.ticksPerN
	return c.nodeSvc == 0 && k.queued == 1 && k.lastDone <= t && k.free <= t
}

// idleRun applies, to k idle at at (idle), the ops from the first on (of
// its kind and key, arriving before end) that k serves at once, one after
// the other: each arriving, at the latest time seen, once the one before
// it is served. Each such op replaces the key's one pending op (served),
// waits for nothing and leaves the queue one deep, so the ops are found
// first and their effects added up after: the members inserted into h in
// a tight loop (a PFADD lane's), the deltas summed (a counter's under its
// capacity). It returns how many it applied, at least 1, and the arrival
// of the last.
func (c *Cluster) idleRun(k *clusterKey, ops []strategies.StoreOp, at, end int64, h *distinct.HLL) (int, int64) {
	kind, key, svc, d := ops[0].Kind, ops[0].Key, c.keySvc, c.ticksPerN
	free := at*d + svc
	var reordered int64
	m := 1
	for ; m < len(ops); m++ {
		o := &ops[m]
		if o.Kind != kind || o.Key != key || o.At >= end {
			break
		}
		a := max(at, o.At)
		if a*d < free {
			break
		}
		if o.At < at {
			reordered++
		}
		at, free = a, a*d+svc
	}
	var sum, delta int64 // the deltas, the last one's
	if h == nil {
		for j := range m {
			delta = ops[j].Delta
			sum += delta
		}
	} else {
		for j := range m {
			h.Insert(ops[j].Member)
		}
	}
	c.reordered += reordered
	c.delay.AddN(svc-c.minResp, int64(m))
	k.maxDelay = max(k.maxDelay, svc-c.minResp)
	k.maxQueued = max(k.maxQueued, 1)
	k.value = k.sent + sum - delta
	k.sent += sum
	k.free, k.lastDone = free, free
	k.runs = k.runs[:1]
	k.runs[0] = clusterRun{first: free, count: 1, delta: delta}
	k.head = 0
	return m, at
}

// enqueueRun is enqueue of each op of the run that opens ops (writeRun's),
// the first arriving at at, the others until one is not of its kind and
// key or arrives at end or later, or finds the key idle (idleRun's); with
// h, the PFAdds' members are added to it. The key's state is held in
// locals over the run. It returns how many ops it applied, at least 1,
// and the arrival of the last.
func (c *Cluster) enqueueRun(k *clusterKey, ops []strategies.StoreOp, at, end int64, h *distinct.HLL) (int, int64) {
	kind, key := ops[0].Kind, ops[0].Key
	runs, head := k.runs, k.head
	free, lastDone, value, sent, queued := k.free, k.lastDone, k.value, k.sent, k.queued
	maxQueued, maxDelay := k.maxQueued, k.maxDelay
	keySvc, nodeSvc, minResp, d := c.keySvc, c.nodeSvc, c.minResp, c.ticksPerN
	var node *clusterNode
	if nodeSvc > 0 {
		node = &c.nodes[k.node]
	}
	n := 0
	for ; n < len(ops); n++ {
		o := &ops[n]
		if n > 0 {
			if o.Kind != kind || o.Key != key || o.At >= end {
				break
			}
			a := max(at, o.At)
			if t := a * d; node == nil && queued == 1 && lastDone <= t && free <= t {
				break // idle: idleRun's
			}
			if o.At < at {
				c.reordered++
			}
			at = a
		}
		delta := o.Delta
		if h != nil {
			h.Insert(o.Member)
			delta = 0
		}
		t := at * d
		for head < len(runs) {
			r := &runs[head]
			if r.first+(r.count-1)*r.step > t {
				break
			}
			value += r.count * r.delta
			queued -= r.count
			head++
		}
		if head == len(runs) {
			runs, head = runs[:0], 0
		}
		done := max(t, free) + keySvc
		free = done
		if node != nil {
			node.free = max(t, node.free) + nodeSvc
			done = max(done, node.free)
		}
		wait := done - t - minResp
		c.delay.Add(wait)
		maxDelay = max(maxDelay, wait)
		lastDone = done
		sent += delta
		queued++
		maxQueued = max(maxQueued, queued)
		if head < len(runs) {
			r := &runs[len(runs)-1]
			if r.delta == delta {
				if r.count == 1 {
					r.step, r.count = done-r.first, 2
					continue
				}
				if done == r.first+r.count*r.step {
					r.count++
					continue
				}
			}
		}
		if len(runs) == cap(runs) && head > 0 {
			runs = runs[:copy(runs, runs[head:])]
			head = 0
		}
		runs = append(runs, clusterRun{first: done, count: 1, delta: delta})
	}
	k.runs, k.head = runs, head
	k.free, k.lastDone, k.value, k.sent, k.queued = free, lastDone, value, sent, queued
	k.maxQueued, k.maxDelay = maxQueued, maxDelay
	if !k.busy {
		k.busy = true
		c.busy = append(c.busy, k.idx)
	}
	return n, at
}

// A cluster of warmKeys keys or more, whose state outgrows the core's
// caches, warms the state of the next warmOps ops' keys before applying
// them (warm).
const (
	warmKeys = 1 << 14
	warmOps  = 32
)

// warm loads the state of every key of ops that exists — its index
// entry, its hot fields, then its first pending run and the room of its
// next second — so that the misses of keys hit at random (the viral posts'
// 288,000 stripes) overlap, where applying the ops one after another waits
// for each in turn. It changes nothing.
func (c *Cluster) warm(ops []strategies.StoreOp) {
	var idx [warmOps]int32
	n := 0
	for i := range ops {
		if j, ok := c.index.find(ops[i].Key); ok {
			idx[n] = j
			n++
		}
	}
	var sum int64
	for _, j := range idx[:n] {
		k := &c.keys[j]
		sum += k.free + int64(k.cur.sec)
	}
	for _, j := range idx[:n] {
		k := &c.keys[j]
		if k.head < len(k.runs) {
			sum += k.runs[k.head].first
		}
		if s := k.secs; len(s) < cap(s) {
			sum += int64(s[:len(s)+1][len(s)].sec)
		}
	}
	c.warmSum += sum
}
