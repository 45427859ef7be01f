// The statistics of the simulated cluster: what Cluster.Stats reports over
// a stream (load per key and node per simulated second, utilisation against
// capacity, backlog and its growth, queueing delay, what readers missed),
// worked out from the counters the simulation in cluster.go keeps.

package cluster

import (
	"slices"

	"countsim/metrics"
)

// Load summarises a count of ops per unit (key or node) and
// simulated second, over every unit and every second of the stream; unit
// seconds without ops count as 0.
type Load struct {
	Max       float64 // the busiest unit-second
	MaxUnit   uint64  // its key, or its node
	MaxSecond int     // and its second (from 0); on ties the earliest, then the first unit
	Mean      float64 // total ops / (units × seconds)
	P99       float64 // the 0.99 quantile over units × seconds (type 7, as metrics.Quantile)
}

// Stats is what a cluster measured over a stream.
type Stats struct {
	Keys     int     // keys that received at least one op
	Nodes    int     // nodes of the cluster
	Seconds  int     // simulated seconds: ⌈end / 1 s⌉
	Duration float64 // end, in seconds

	KeyCapacity  float64 // ops/s a key serves as simulated (the configured one unless rounded)
	NodeCapacity float64 // ops/s a node serves as simulated; 0: no limit

	Writes    int64   // IncrBy ops
	Reads     int64   // Get ops
	ReadsPerS float64 // Reads / Duration: read ops a second, mean over the stream

	KeyWrites  Load // IncrBy ops per key-second (MaxUnit: the key)
	KeyReads   Load // Get ops per key-second
	NodeWrites Load // IncrBy ops per node-second (MaxUnit: the node)
	NodeReads  Load // Get ops per node-second
	NodeOps    Load // all ops per node-second

	// Utilisation is the served ops (writes, plus reads with GetsQueue) per
	// key-second over KeyCapacity: the max over key-seconds and the mean
	// over all keys × seconds. Above 1, the key queues.
	UtilMax, UtilMean float64
	// NodeUtilMax and NodeUtilMean are the same per node-second against
	// NodeCapacity (all ops of the node that take service); 0 without a
	// node limit.
	NodeUtilMax, NodeUtilMean float64

	// Backlog[i] is the number of ops queued (arrived, not completed) summed
	// over keys at the end of second i: at min((i+1) s, end). Ops arriving
	// exactly at a second's end belong to the next second. The op in
	// service counts, so a key under its capacity can show 1.
	Backlog    []float64
	BacklogMax float64 // the largest of Backlog
	BacklogEnd float64 // Backlog at end (the last entry)
	// BacklogGrowthPerS is the least-squares slope of Backlog against the
	// times it was taken (ops/s): 190,000 for one key fed 200,000/s against
	// 10,000/s. With one point it is BacklogEnd / Duration.
	BacklogGrowthPerS float64
	// DrainedAt is when every op sent (and not dropped by a node loss) is
	// served, ns, rounded up: the time the Final values are reached.
	DrainedAt int64

	// Queueing delay of the ops that take service (see the Cluster doc),
	// ns. The quantiles come from a [metrics.Hist] of the delays in ticks
	// (32 buckets per power of two, values below 64 ticks exact): each is
	// the upper bound of its bucket, at most 1/32 above the exact
	// (nearest-rank) quantile, and never above DelayMax. DelayMax and
	// DelayMean are exact.
	DelayOps                                int64
	DelayMax, DelayMean, DelayP50, DelayP99 float64

	// GetLag is, for the Gets answered at once, how many counts had been
	// sent to the key but were still queued: what a reader misses.
	GetLagMax, GetLagMean float64

	// The busiest key (most writes; ties: most reads, then the first seen)
	// and its ops in each second, for a plot.
	BusiestKey    uint64
	BusiestWrites []float64
	BusiestReads  []float64

	Lost      int64 // counts lost by LoseNode, summed over calls
	Reordered int64 // ops whose At went backwards, taken at the latest time seen
	// CrossSlot counts the multi-key commands refused: their keys in
	// different slots (on different nodes, with Modulo).
	CrossSlot int64
}

// Stats summarises the stream, which ended at end (ns; the stream's
// duration). An end at or before the latest op is raised to just after it,
// and an end before a node loss to the loss.
// Stats records the backlog of the seconds up to end, so later ops must not
// be earlier than end; calling it again with the same end gives the same
// result.
func (c *Cluster) Stats(end int64) Stats {
	if c.started && end <= c.lastAt {
		end = c.lastAt + 1
	}
	end = max(end, c.clock)
	seconds := int((end + Second - 1) / Second)
	st := Stats{
		Keys:        len(c.keys),
		Nodes:       c.cfg.Nodes,
		Seconds:     seconds,
		Duration:    float64(end) / 1e9,
		KeyCapacity: 1e9 * float64(c.ticksPerN) / float64(c.keySvc),
		Writes:      c.writes,
		Reads:       c.reads,
		DelayOps:    c.delay.Count(),
		Lost:        c.lost,
		Reordered:   c.reordered,
		CrossSlot:   c.crossSlots,
		GetLagMax:   float64(c.lagMax),
	}
	if c.nodeSvc > 0 {
		st.NodeCapacity = 1e9 * float64(c.ticksPerN) / float64(c.nodeSvc)
	}
	if st.Duration > 0 {
		st.ReadsPerS = float64(c.reads) / st.Duration
	}
	if c.lagN > 0 {
		st.GetLagMean = c.lagSum / float64(c.lagN)
	}

	// Backlog: the seconds before the last are recorded for good; the last
	// one, at end, is computed without being recorded.
	if seconds > 0 {
		c.cross((int64(seconds) - 1) * Second)
		st.Backlog = append(slices.Clip(c.backlog[:seconds-1]), float64(c.queuedAt(end)))
		st.BacklogEnd = st.Backlog[len(st.Backlog)-1]
		st.BacklogMax = slices.Max(st.Backlog)
		st.BacklogGrowthPerS = clusterSlope(st.Backlog, end)
	}
	st.DrainedAt = c.DrainedAt()

	tick := 1 / float64(c.ticksPerN)
	if c.delay.Count() > 0 {
		st.DelayMax = float64(c.delay.Max()) * tick
		st.DelayMean = c.delay.Mean() * tick
		st.DelayP50 = float64(c.delay.Quantile(0.5)) * tick
		st.DelayP99 = float64(c.delay.Quantile(0.99)) * tick
	}

	served := func(s clusterKeySecond) float64 {
		if c.cfg.GetsQueue {
			return float64(s.writes) + float64(s.reads)
		}
		return float64(s.writes)
	}
	st.KeyWrites = c.keyLoad(seconds, func(s clusterKeySecond) float64 { return float64(s.writes) })
	st.KeyReads = c.keyLoad(seconds, func(s clusterKeySecond) float64 { return float64(s.reads) })
	util := st.KeyWrites // what is served: the writes, unless Gets queue too
	if c.cfg.GetsQueue {
		util = c.keyLoad(seconds, served)
	}
	st.UtilMax = util.Max / st.KeyCapacity
	st.UtilMean = util.Mean / st.KeyCapacity

	st.NodeWrites = c.nodeLoad(seconds, func(n clusterCount) float64 { return float64(n.writes) })
	st.NodeReads = c.nodeLoad(seconds, func(n clusterCount) float64 { return float64(n.reads) })
	st.NodeOps = c.nodeLoad(seconds, func(n clusterCount) float64 { return float64(n.writes) + float64(n.reads) })
	if c.nodeSvc > 0 {
		nodeServed := st.NodeWrites
		if c.cfg.GetsQueue {
			nodeServed = st.NodeOps
		}
		st.NodeUtilMax = nodeServed.Max / st.NodeCapacity
		st.NodeUtilMean = nodeServed.Mean / st.NodeCapacity
	}

	if len(c.keys) > 0 {
		b := 0
		for i := 1; i < len(c.keys); i++ {
			k, kb := &c.keys[i], &c.keys[b]
			if k.writes > kb.writes || (k.writes == kb.writes && k.reads > kb.reads) {
				b = i
			}
		}
		k := &c.keys[b]
		st.BusiestKey = k.key
		st.BusiestWrites = make([]float64, seconds)
		st.BusiestReads = make([]float64, seconds)
		for j := range k.seconds() {
			if s := k.second(j); int(s.sec) < seconds {
				st.BusiestWrites[s.sec] = float64(s.writes)
				st.BusiestReads[s.sec] = float64(s.reads)
			}
		}
	}
	return st
}

// DrainedAt is when every op sent so far (and not dropped by a node loss)
// is served, ns, rounded up: the time the Final values are reached.
func (c *Cluster) DrainedAt() int64 {
	var lastDone int64
	for i := range c.keys {
		lastDone = max(lastDone, c.keys[i].lastDone)
	}
	return (lastDone + c.ticksPerN - 1) / c.ticksPerN
}

// Writes is the IncrBy ops sent so far.
func (c *Cluster) Writes() int64 { return c.writes }

// NodeKeys is the keys each node holds: every key sent an op.
func (c *Cluster) NodeKeys() []int64 {
	keys := make([]int64, c.cfg.Nodes)
	for i := range c.keys {
		keys[c.keys[i].node]++
	}
	return keys
}

// SlotsUsed is the number of slots (nodes, with Modulo) that hold keys.
func (c *Cluster) SlotsUsed() int {
	seen := map[int32]bool{}
	for i := range c.keys {
		seen[c.keys[i].slot] = true
	}
	return len(seen)
}

// Placement is how the cluster places keys.
func (c *Cluster) Placement() Placement { return c.cfg.Placement }

// NodeOps is the ops (writes and reads) each node took so far.
func (c *Cluster) NodeOps() []int64 {
	out := make([]int64, c.cfg.Nodes)
	for i, s := range c.nodeSec {
		out[i%c.cfg.Nodes] += int64(s.writes) + int64(s.reads)
	}
	return out
}

// clusterSlope is the least-squares slope of the backlog series against the
// times it was taken (the end of each second, the last at end), per second.
func clusterSlope(backlog []float64, end int64) float64 {
	n := len(backlog)
	at := func(i int) float64 {
		if i == n-1 {
			return float64(end) / 1e9
		}
		return float64(i + 1)
	}
	if n == 1 {
		if x := at(0); x > 0 {
			return backlog[0] / x
		}
		return 0
	}
	var mx, my float64
	for i, y := range backlog {
		mx += at(i)
		my += y
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx float64
	for i, y := range backlog {
		dx := at(i) - mx
		sxy += dx * (y - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// keyLoad summarises f of every key-second over keys × seconds.
func (c *Cluster) keyLoad(seconds int, f func(clusterKeySecond) float64) Load {
	var vals []float64
	var l Load
	var sum float64
	first := true
	for i := range c.keys {
		k := &c.keys[i]
		for j := range k.seconds() {
			s := k.second(j)
			v := f(s)
			if v == 0 {
				continue
			}
			vals = append(vals, v)
			sum += v
			if first || v > l.Max || (v == l.Max && int(s.sec) < l.MaxSecond) {
				l.Max, l.MaxUnit, l.MaxSecond, first = v, k.key, int(s.sec), false
			}
		}
	}
	return clusterLoadOf(l, vals, sum, len(c.keys)*seconds)
}

// nodeLoad summarises f of every node-second over nodes × seconds.
func (c *Cluster) nodeLoad(seconds int, f func(clusterCount) float64) Load {
	var vals []float64
	var l Load
	var sum float64
	first := true
	for sec := range min(seconds, len(c.nodeSec)/c.cfg.Nodes) {
		for node := range c.cfg.Nodes {
			v := f(c.nodeSec[sec*c.cfg.Nodes+node])
			if v == 0 {
				continue
			}
			vals = append(vals, v)
			sum += v
			if first || v > l.Max {
				l.Max, l.MaxUnit, l.MaxSecond, first = v, uint64(node), sec, false
			}
		}
	}
	return clusterLoadOf(l, vals, sum, c.cfg.Nodes*seconds)
}

// clusterLoadOf fills the mean and p99 of l from the nonzero values and
// their sum, over cells unit-seconds in all (the others are 0).
func clusterLoadOf(l Load, nonzero []float64, sum float64, cells int) Load {
	if cells <= 0 {
		return l
	}
	cells = max(cells, len(nonzero))
	l.Mean = sum / float64(cells)
	slices.Sort(nonzero)
	l.P99 = metrics.QuantileSorted(nonzero, cells-len(nonzero), 0.99)
	return l
}

// KeyLoad is what the cluster saw of one key over the stream.
type KeyLoad struct {
	Writes, Reads int64
	MaxQueued     int64   // the most ops queued on the key at once, the one in service included
	MaxDelay      float64 // the longest queueing delay of an op on it, ns
}

// KeyLoad returns what the cluster saw of key, and false for a key that
// never had an op.
func (c *Cluster) KeyLoad(key uint64) (KeyLoad, bool) {
	i, ok := c.index.find(key)
	if !ok {
		return KeyLoad{}, false
	}
	k := &c.keys[i]
	return KeyLoad{Writes: k.writes, Reads: k.reads, MaxQueued: k.maxQueued,
		MaxDelay: float64(k.maxDelay) / float64(c.ticksPerN)}, true
}

// KeySeconds calls f for every simulated second (from 0) in which key had
// ops, in order, with its writes and reads in that second.
func (c *Cluster) KeySeconds(key uint64, f func(sec int, writes, reads uint32)) {
	i, ok := c.index.find(key)
	if !ok {
		return
	}
	k := &c.keys[i]
	for j := range k.seconds() {
		ks := k.second(j)
		f(int(ks.sec), ks.writes, ks.reads)
	}
}
