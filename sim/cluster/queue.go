package cluster

import (
	"math"
	"slices"
)

// The queues: each key's FIFO server and its node's, the ops waiting on
// them, and the counters of each second a key or a node had ops.

// key returns the state of key, first sent with tag, creating it on first
// use.
func (c *Cluster) key(key, tag uint64) *clusterKey {
	if key == c.lastKey && len(c.keys) > 0 {
		return &c.keys[c.lastIdx]
	}
	i, ok := c.index.find(key)
	if !ok {
		if len(c.keys) >= math.MaxInt32 {
			panic("cluster: too many keys")
		}
		i = int32(len(c.keys))
		c.index.add(key, i)
		slot, node := c.place(key, tag)
		c.keys = append(c.keys, clusterKey{key: key, tag: tag, idx: i, slot: int32(slot), node: int32(node)})
	}
	c.lastKey, c.lastIdx = key, i
	return &c.keys[i]
}

// keySecond returns k's counters for second sec, the latest one it has.
// The latest is held in the key itself (one cache line fewer an op); it
// joins secs when a later second begins.
func (c *Cluster) keySecond(k *clusterKey, sec int64) *clusterKeySecond {
	if k.hasCur {
		if int64(k.cur.sec) == sec {
			return &k.cur
		}
		k.secs = append(k.secs, k.cur)
	}
	k.cur, k.hasCur = clusterKeySecond{sec: uint32(sec)}, true
	return &k.cur
}

// nodeSecond returns node's counters for second sec, growing the table.
func (c *Cluster) nodeSecond(node int, sec int64) *clusterCount {
	i := int(sec)*c.cfg.Nodes + node
	if i >= len(c.nodeSec) {
		need := (int(sec) + 1) * c.cfg.Nodes
		c.nodeSec = slices.Grow(c.nodeSec, need-len(c.nodeSec))[:need]
	}
	return &c.nodeSec[i]
}

// enqueue sends one op with delta arriving at tick t to k's server (and its
// node's), records its delay and appends its completion to k's runs.
func (c *Cluster) enqueue(k *clusterKey, t, delta int64) {
	// Drop the runs wholly served by t, so that the queue of a key that
	// keeps up stays short; a partly served run is left for advance.
	for k.head < len(k.runs) {
		r := &k.runs[k.head]
		if r.first+(r.count-1)*r.step > t {
			break
		}
		k.value += r.count * r.delta
		k.queued -= r.count
		k.head++
	}
	if k.head == len(k.runs) {
		k.runs, k.head = k.runs[:0], 0
	}
	done := max(t, k.free) + c.keySvc
	k.free = done
	if c.nodeSvc > 0 {
		n := &c.nodes[k.node]
		n.free = max(t, n.free) + c.nodeSvc
		done = max(done, n.free)
	}
	c.push(k, t, done, delta)
}

// push appends to k's runs an op with delta arriving at tick t that
// completes at tick done (its servers already taken), and records its
// delay: enqueue's second half, and the faulted path's (faults.go).
func (c *Cluster) push(k *clusterKey, t, done, delta int64) {
	c.delay.Add(done - t - c.minResp)
	k.maxDelay = max(k.maxDelay, done-t-c.minResp)
	k.lastDone = done
	k.sent += delta
	k.queued++
	k.maxQueued = max(k.maxQueued, k.queued)
	if !k.busy {
		k.busy = true
		c.busy = append(c.busy, k.idx)
	}
	if k.head < len(k.runs) {
		r := &k.runs[len(k.runs)-1]
		if r.delta == delta {
			if r.count == 1 {
				r.step, r.count = done-r.first, 2
				return
			}
			if done == r.first+r.count*r.step {
				r.count++
				return
			}
		}
	}
	if len(k.runs) == cap(k.runs) && k.head > 0 {
		k.runs = k.runs[:copy(k.runs, k.runs[k.head:])]
		k.head = 0
	}
	k.runs = append(k.runs, clusterRun{first: done, count: 1, delta: delta})
}

// advance applies to k's value every pending op completed by tick t.
func (c *Cluster) advance(k *clusterKey, t int64) {
	for k.head < len(k.runs) {
		r := &k.runs[k.head]
		if r.first > t {
			break
		}
		n := int64(1)
		if r.count > 1 {
			n = min(r.count, (t-r.first)/r.step+1)
		}
		k.value += n * r.delta
		k.queued -= n
		if n == r.count {
			k.head++
			continue
		}
		r.first += n * r.step
		r.count -= n
		break
	}
	if k.head == len(k.runs) {
		k.runs, k.head = k.runs[:0], 0
	}
}

// cross records the backlog at the end of every second that ends at or
// before at (ns).
func (c *Cluster) cross(at int64) {
	for end := (c.nextSec + 1) * Second; end <= at; end += Second {
		c.backlog = append(c.backlog, float64(c.queuedAt(end)))
		c.nextSec++
	}
}

// queuedAt advances every busy key to time at (ns) and returns the ops
// still queued, summed over keys; keys left idle leave the busy list.
func (c *Cluster) queuedAt(at int64) int64 {
	t := at * c.ticksPerN
	var sum int64
	for j := 0; j < len(c.busy); {
		k := &c.keys[c.busy[j]]
		c.advance(k, t)
		if k.queued == 0 {
			k.busy = false
			c.busy[j] = c.busy[len(c.busy)-1]
			c.busy = c.busy[:len(c.busy)-1]
			continue
		}
		sum += k.queued
		j++
	}
	return sum
}
