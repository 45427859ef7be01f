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
// counter's stripes) so cost a few nanoseconds each.
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
	n, at := c.enqueueRun(k, ops, at, end, h)
	c.clock, c.lastAt = at, at
	ks.writes += uint32(n)
	ns.writes += uint32(n)
	k.writes += int64(n)
	c.writes += int64(n)
	c.traffic.Ops += int64(n)
	return n
}

// enqueueRun is enqueue of each op of the run that opens ops (writeRun's),
// the first arriving at at, the others until one is not of its kind and
// key or arrives at end or later; with h, the PFAdds' members are added to
// it. The key's state is held in locals over the run. It returns the run's
// length and the arrival of its last op.
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
			if o.At >= at {
				at = o.At
			} else {
				c.reordered++
			}
		}
		t := at * d
		if node == nil && t >= free && len(runs)-head == 1 && runs[head].count == 1 && runs[head].first <= t {
			// The key idle at t (its one pending op served): the op is
			// served at once, its run replacing the served one, and so is
			// every later op of the run that arrives once the one before
			// it is served (a PFADD lane's, a counter's under its
			// capacity). Each such op's state is the last one's, so the
			// ops are found first and their effects added up after.
			m, last, reordered := idleRun(ops, n, at, end, keySvc, d)
			var sum, delta int64 // the deltas of ops n..m-1, the last one's
			if h == nil {
				for j := n; j < m; j++ {
					delta = ops[j].Delta
					sum += delta
				}
			} else {
				for j := n; j < m; j++ {
					h.Insert(ops[j].Member)
				}
			}
			c.reordered += reordered
			at = last
			done := at*d + keySvc
			value += runs[head].delta + sum - delta
			sent += sum
			free, lastDone = done, done
			c.delay.AddN(keySvc-minResp, int64(m-n))
			maxDelay = max(maxDelay, keySvc-minResp)
			maxQueued = max(maxQueued, queued)
			runs = runs[:1]
			runs[0] = clusterRun{first: done, count: 1, delta: delta}
			head = 0
			n = m - 1
			continue
		}
		delta := o.Delta
		if h != nil {
			h.Insert(o.Member)
			delta = 0
		}
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

// idleRun returns the end m of the ops from n on (of one kind and key,
// arriving before end) that a key idle when ops[n] arrives at at serves at
// once, one after the other: each arriving, at the latest time seen, once
// the one before it is served (svc ticks of 1/d ns after its arrival). It
// returns too the arrival of op m−1 and the ops among them taken out of
// order.
func idleRun(ops []strategies.StoreOp, n int, at, end, svc, d int64) (m int, last, reordered int64) {
	kind, key := ops[n].Kind, ops[n].Key
	free := at*d + svc
	for m = n + 1; m < len(ops); m++ {
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
	return m, at, reordered
}
