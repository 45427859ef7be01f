// The simulation — configuration, the tick arithmetic, the per-key and
// per-node FIFO servers, node loss, the backlog recorded each second and
// the invariants' check; placement.go places keys on nodes and checks the
// slots of a multi-key command; stats.go works out what Cluster.Stats
// reports from its counters; hll.go holds its HyperLogLog keys; runs.go
// applies a run of writes to one key in one second at once; index.go finds
// a key's state; queue.go keeps each key's and node's queue of ops.

package cluster

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"countsim/keyslot"
	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/distinct"
	"countsim/workload"
)

// Config describes a simulated store cluster.
type Config struct {
	// Nodes is the number of store nodes; it must be at least 1.
	Nodes int
	// KeyCapacity is the operations a second one key serves (10,000
	// increments/s for a hot counter); it must be finite and greater than 0.
	KeyCapacity float64
	// NodeCapacity is the operations a second one node serves across all
	// its keys; 0 means no node limit, otherwise it must be finite and > 0.
	NodeCapacity float64
	// Placement is how keys are placed on nodes: Slots (the zero value)
	// as Redis Cluster does, Modulo by a hash of the key mod Nodes (see
	// [Placement]). With Slots, Nodes is at most keyslot.MaxMasters.
	Placement Placement
	// Seed seeds the hash of the HyperLogLog keys, and with Modulo places
	// keys: node = Mix64(key ⊕ SplitMix64(Seed)) mod Nodes.
	Seed uint64
	// GetsQueue makes a Get take a service slot on its key (and node) like
	// a write: it waits behind the key's queued writes and reads their sum.
	// By default (false) a Get is answered at once from what has been
	// served by its time; it is counted as read load but takes no capacity.
	GetsQueue bool
}

// Cluster is the simulated store behind the designs that live on servers:
// it implements [strategies.Store] (and [strategies.Refuser],
// [strategies.ByteReader], [strategies.Metered], [strategies.FallibleStore]
// and [strategies.Outages]: the store faults of faults.go). Each key lives on one
// node, placed by its name as Redis Cluster places it (or by a hash mod
// the nodes: [Placement]); every operation is accounted per key and per
// node per simulated second, and what a key cannot serve in time queues.
//
// The queueing model, the heart of "one key lives on one server":
//
//   - Each key is a FIFO single server with service time s = 1/KeyCapacity.
//     A write (IncrBy) arriving at time a on key k, whose server is next
//     free at f_k, completes at c = max(a, f_k) + s, and f_k becomes c.
//     On one key at 200,000 increments/s against 10,000/s the queue grows
//     by exactly arrivals − capacity = 190,000 each second.
//   - With NodeCapacity > 0 the node is a second FIFO server with service
//     time s_n = 1/NodeCapacity, fed in arrival order by all its keys. The
//     two servers work independently (a backlogged key does not block the
//     other keys of its node): the op takes f_k = max(a, f_k) + s and
//     f_n = max(a, f_n) + s_n, and completes at max(f_k, f_n).
//   - A write becomes visible at its completion time, inclusive: a Get at
//     time t reads every write of its key completed at or before t. By
//     default a Get is answered at once and takes no service (GetsQueue
//     false): it is read load, reported apart from the writes. With
//     GetsQueue it queues like a write and reads every write sent before it.
//   - The queueing delay of an op is c − a − max(s, s_n): the time it waited
//     beyond its own service, so an idle cluster shows 0. It is recorded
//     when the op arrives (its completion is known then), so an op later
//     dropped by [Cluster.LoseNode] keeps the delay it would have had.
//   - [Cluster.Final] is the key's value once every op sent has been
//     served: the sum of every delta sent since the key's last loss.
//   - Ops whose At goes backwards (against the Store contract) are taken as
//     arriving at the latest time seen — a server receives an op when it is
//     sent — and counted in [Stats.Reordered].
//
// Time is exact integer arithmetic in ticks of 1/D ns, with D the least
// integer ≤ 4096 that makes both service times whole ticks (D = 1 for
// 10,000 ops/s: s = 100,000 ns; D = 7 for 7,000 ops/s). A capacity with no
// such D has its service time rounded to a whole tick of 1/4096 ns, and
// [Stats.KeyCapacity] reports the capacity simulated. Times are
// limited to 2^62/D ns (13 days at worst; 146 years for D = 1), which leaves
// as much room again for the completions of a backlog.
//
// Pending writes are stored run-length encoded: consecutive ops of one key
// with the same delta whose completions form an arithmetic series (always
// the case while the key is backlogged, step s) are one run {first
// completion, count, step, delta}, so a key with millions of queued
// increments holds a few runs. With a node limit that interleaves keys,
// runs can be shorter (down to one op each when hot keys alternate at
// random on a saturated node).
//
// Accounting memory: 12 B per key and second in which the key had ops
// (sparse), 8 B per node and second of the stream (dense), 8 B per second
// of backlog series, about 270 B per key, and a fixed 15 KB delay
// histogram ([metrics.Hist]).
//
// Do costs O(1) amortised per op; it allocates only when a key or a
// simulated second appears for the first time (the per-second counters
// and, rarely, a run queue growing). A Cluster is not safe for concurrent
// use.
type Cluster struct {
	cfg       Config
	ticksPerN int64 // D: ticks per ns
	keySvc    int64 // ticks
	nodeSvc   int64 // ticks; 0 = no node limit
	minResp   int64 // max(keySvc, nodeSvc): an op's response time on an idle cluster
	maxAt     int64 // the last representable time, ns
	nodeSeed  uint64
	ranges    []keyslot.Range // each node's slots (Slots)

	index   keyIndex
	keys    []clusterKey
	hlls    map[uint64]*distinct.HLL // the HyperLogLog keys' registers (PFADD, PFMERGE)
	lastKey uint64                   // a one-entry cache in front of index
	lastIdx int32
	perOp   bool  // Do takes every op by itself, runs of writes too (the tests' reference)
	warmSum int64 // what warm read, kept so that its loads are made
	nodes   []clusterNode
	nodeSec []clusterCount // [second·Nodes + node]

	clock   int64   // the latest time seen (op or node loss), ns
	lastAt  int64   // the latest op time, ns
	started bool    // an op has been seen
	nextSec int64   // the next second whose end-of-second backlog is to be recorded
	busy    []int32 // keys that may have queued ops
	backlog []float64

	writes, reads int64
	traffic       strategies.Traffic
	doMark        []uint32 // the Do call that last sent an op to each node: a round trip each
	doCalls       uint32
	refused       error // the first command refused since Refused was called
	crossSlots    int64 // multi-key commands refused
	reordered     int64
	lost          int64
	delay         metrics.Hist // queueing delays, ticks
	lagN          int64        // Gets answered at once
	lagMax        int64
	lagSum        float64

	// The store faults (faults.go): those registered by Fault, in time
	// order; faulty once there is one, which sends every Do call down the
	// faulted path. The ids of the IncrByOnce writes remembered, and when
	// each expires, in order.
	faults   []*fault
	faulty   bool
	once     map[onceID]int64
	onceQ    []onceEntry
	onceHead int
}

// clusterKey is one key's server, its pending writes and its counters.
// What an op reads and writes comes first, in the first 128 bytes, and
// the struct is 192 bytes: in a large array (which starts a page) a key's
// hot fields are one aligned pair of cache lines, which the core fetches
// together, where a key hit at random among thousands costs a miss.
type clusterKey struct {
	free     int64 // ticks: when the key's server is next free
	lastDone int64 // ticks: completion of the latest op still to be served or served
	value    int64 // the served (visible) value
	sent     int64 // value + the deltas pending: Final
	queued   int64 // ops arrived and not completed
	head     int   // runs[head:] are pending
	runs     []clusterRun
	writes   int64
	reads    int64
	// the most ops queued at once and the longest queueing delay, ticks
	maxQueued, maxDelay int64
	cur                 clusterKeySecond // the counts of the latest second with ops, when hasCur; secs holds the earlier ones
	node                int32
	idx                 int32 // its index in Cluster.keys
	hasCur              bool
	busy                bool // in Cluster.busy

	key  uint64
	tag  uint64 // the Tag it was first sent with: it places the key
	slot int32  // its hash slot (Slots), or its node (Modulo), which a multi-key command's keys must share
	secs []clusterKeySecond
	_    [16]byte
}

// seconds is the number of seconds in which the key had ops.
func (k *clusterKey) seconds() int {
	if k.hasCur {
		return len(k.secs) + 1
	}
	return len(k.secs)
}

// second returns the counts of the j-th second in which the key had ops.
func (k *clusterKey) second(j int) clusterKeySecond {
	if j < len(k.secs) {
		return k.secs[j]
	}
	return k.cur
}

// clusterRun is count ops with one delta completing at first, first+step, …
type clusterRun struct {
	first int64 // ticks
	count int64
	step  int64 // ticks; meaningful when count > 1
	delta int64
}

// clusterKeySecond counts one key's ops in one simulated second.
type clusterKeySecond struct {
	sec    uint32
	writes uint32
	reads  uint32
}

// clusterCount counts one node's ops in one simulated second.
type clusterCount struct {
	writes uint32
	reads  uint32
}

type clusterNode struct {
	free int64 // ticks: when the node's server is next free
}

const clusterMaxD = 4096

// Second is the simulated second, ns: the cluster accounts its ops per key
// and per node in each.
const Second = int64(1e9)

// KeyBytes is what the cluster holds for a key it has seen, its per-second
// counters aside: its state, its index entry and its first run of queued
// ops. A key-second it had ops in adds 12 bytes.
const KeyBytes = int64(unsafe.Sizeof(clusterKey{})) + 48 + int64(unsafe.Sizeof(clusterRun{}))

// New validates cfg and returns an empty cluster.
func New(cfg Config) (*Cluster, error) {
	if cfg.Nodes < 1 {
		return nil, fmt.Errorf("cluster: nodes %d, want at least 1", cfg.Nodes)
	}
	if math.IsNaN(cfg.KeyCapacity) || math.IsInf(cfg.KeyCapacity, 0) || cfg.KeyCapacity <= 0 {
		return nil, fmt.Errorf("cluster: key capacity %v ops/s not a finite number > 0", cfg.KeyCapacity)
	}
	if math.IsNaN(cfg.NodeCapacity) || math.IsInf(cfg.NodeCapacity, 0) || cfg.NodeCapacity < 0 {
		return nil, fmt.Errorf("cluster: node capacity %v ops/s not a finite number ≥ 0 (0: no limit)", cfg.NodeCapacity)
	}
	if cfg.Placement >= placements {
		return nil, fmt.Errorf("cluster: placement %d unknown (allowed: %s)", cfg.Placement, placementList())
	}
	var ranges []keyslot.Range
	if cfg.Placement == Slots {
		var err error
		if ranges, err = keyslot.Ranges(cfg.Nodes); err != nil {
			return nil, fmt.Errorf("cluster: %d nodes with placement slots, want at most %d: one or more slots each", cfg.Nodes, keyslot.MaxMasters)
		}
	}
	d, keySvc, nodeSvc := clusterTicks(cfg.KeyCapacity, cfg.NodeCapacity)
	if keySvc < 1 || (cfg.NodeCapacity > 0 && nodeSvc < 1) {
		return nil, fmt.Errorf("cluster: capacity %v ops/s too large: a service time under %v ns",
			max(cfg.KeyCapacity, cfg.NodeCapacity), 1.0/clusterMaxD)
	}
	c := &Cluster{
		cfg:       cfg,
		ticksPerN: d,
		keySvc:    keySvc,
		nodeSvc:   nodeSvc,
		minResp:   max(keySvc, nodeSvc),
		maxAt:     math.MaxInt64 / d / 2,
		nodeSeed:  workload.SplitMix64(cfg.Seed),
		ranges:    ranges,
		nodes:     make([]clusterNode, cfg.Nodes),
		doMark:    make([]uint32, cfg.Nodes),
	}
	return c, nil
}

// clusterTicks picks the tick (1/d ns) that makes both service times whole,
// and returns d and the service times in ticks (nodeSvc 0 without a node
// limit). Without an exact d ≤ clusterMaxD the times are rounded.
func clusterTicks(keyCap, nodeCap float64) (d, keySvc, nodeSvc int64) {
	whole := func(x float64) bool { return math.Abs(x-math.Round(x)) <= 1e-9*math.Max(1, x) }
	for d = 1; d <= clusterMaxD; d++ {
		k := 1e9 * float64(d) / keyCap
		if !whole(k) {
			continue
		}
		if nodeCap == 0 {
			return d, int64(math.Round(k)), 0
		}
		if n := 1e9 * float64(d) / nodeCap; whole(n) {
			return d, int64(math.Round(k)), int64(math.Round(n))
		}
	}
	d = clusterMaxD
	keySvc = int64(math.Round(1e9 * float64(d) / keyCap))
	if nodeCap > 0 {
		nodeSvc = int64(math.Round(1e9 * float64(d) / nodeCap))
	}
	return d, keySvc, nodeSvc
}

// arrive moves the cluster's clock to an op's arrival at and returns the
// time it is taken at: an op sent before the clock (out of order) is taken
// at the clock and counted as reordered; the first op of a new second
// closes the seconds before it; an op beyond the simulated horizon panics.
func (c *Cluster) arrive(at int64) int64 {
	if at < c.clock {
		at = c.clock
		c.reordered++
	}
	if at > c.maxAt {
		panic(fmt.Sprintf("cluster: time %d ns beyond the simulated horizon of %d ns", at, c.maxAt))
	}
	c.clock, c.lastAt, c.started = at, at, true
	if at >= (c.nextSec+1)*Second {
		c.cross(at)
	}
	return at
}

// Do applies ops in order (see [strategies.Store]). For a Get, vals[i]
// receives the key's value served by ops[i].At (or, with GetsQueue, the sum
// of every write sent to it before). A multi-key command (PFCount,
// PFMerge, ZUnionStore with the KeyArg ops after it) is accounted as one
// op of its first key; one whose keys do not share a slot is refused as
// Redis Cluster refuses it (placement.go): it changes nothing, reads 0,
// and Refused returns its error. The ops a call sends to one node are one
// round trip to it.
//
// On a cluster with store faults (Fault) Do is DoClient from app server 0
// with no timeout (faults.go); without, it takes runs of writes at once
// (runs.go) and each other op by itself. An IncrByOnce is an IncrBy unless
// its id is remembered (seen, faults.go).
func (c *Cluster) Do(ops []strategies.StoreOp, vals []int64) {
	if c.faulty {
		c.doClient(strategies.Client{}, ops, vals, nil)
		return
	}
	c.doCalls++
	warm, warmed := len(c.keys) >= warmKeys, 0
	for i := 0; i < len(ops); i++ {
		if warm && i >= warmed {
			warmed = min(i+warmOps, len(ops))
			c.warm(ops[i:warmed])
		}
		op := &ops[i]
		if (op.Kind == strategies.IncrBy || op.Kind == strategies.PFAdd) && !c.perOp {
			i += c.writeRun(ops[i:]) - 1
			continue
		}
		at := c.arrive(op.At)
		k := c.key(op.Key, op.Tag)
		c.traffic.Ops++
		if c.doMark[k.node] != c.doCalls {
			c.doMark[k.node] = c.doCalls
			c.traffic.RoundTrips++
		}
		sec := at / Second
		ks := c.keySecond(k, sec)
		ns := c.nodeSecond(int(k.node), sec)
		t := at * c.ticksPerN
		var args []strategies.StoreOp // the KeyArg ops after a multi-key command
		refused := false
		if op.Kind.MultiKey() {
			j := i + 1
			for j < len(ops) && ops[j].Kind == strategies.KeyArg {
				j++
			}
			args = ops[i+1 : j]
			refused = c.crossSlot(op, k, args)
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
				delta = 0 // the design holds the set's members (strategies.Store)
			}
			c.effect(op, args, refused)
			c.enqueue(k, t, delta)
		case strategies.ZRead, strategies.PFCount:
			c.tally(ks, ns, k, false)
			if c.cfg.GetsQueue {
				c.enqueue(k, t, 0)
			}
			if op.Kind == strategies.PFCount {
				vals[i] = c.pfRead(op, args, refused)
			}
		case strategies.Get:
			c.tally(ks, ns, k, false)
			if c.cfg.GetsQueue {
				c.enqueue(k, t, 0)
				vals[i] = k.sent
				continue
			}
			vals[i] = c.readNow(k, t)
		case strategies.KeyArg:
			panic(fmt.Sprintf("cluster: a KeyArg at op %d follows no multi-key command", i))
		default:
			panic(fmt.Sprintf("cluster: unknown store op kind %d", op.Kind))
		}
		i += len(args)
	}
}

// tally counts one op of key k in its second ks and its node's second ns:
// a write, or a read (whose reply carries a number, 8 bytes).
func (c *Cluster) tally(ks *clusterKeySecond, ns *clusterCount, k *clusterKey, write bool) {
	if write {
		ks.writes++
		ns.writes++
		k.writes++
		c.writes++
		return
	}
	ks.reads++
	ns.reads++
	k.reads++
	c.reads++
	c.traffic.ReplyBytes += 8
}

// effect applies what a write does beyond its delta, unless it was
// refused: a PFADD's element, a PFMERGE's sources.
func (c *Cluster) effect(op *strategies.StoreOp, args []strategies.StoreOp, refused bool) {
	switch {
	case refused:
	case op.Kind == strategies.PFAdd:
		c.hll(op.Key).Insert(op.Member)
	case op.Kind == strategies.PFMerge:
		c.pfMerge(op.Key, args)
	}
}

// pfRead is a PFCOUNT's estimate: 0 when it was refused.
func (c *Cluster) pfRead(op *strategies.StoreOp, args []strategies.StoreOp, refused bool) int64 {
	if refused {
		return 0
	}
	return c.pfCount(op.Key, args)
}

// readNow is a Get of k answered at once at tick t: what k has served by
// then, its lag behind what was sent recorded.
func (c *Cluster) readNow(k *clusterKey, t int64) int64 {
	c.advance(k, t)
	lag := k.sent - k.value
	c.lagN++
	c.lagSum += float64(lag)
	c.lagMax = max(c.lagMax, lag)
	return k.value
}

// GetBytes is a GET of key's value as a string ([strategies.ByteReader]),
// accounted as a Get, in a call of its own (one round trip): a HyperLogLog
// key's registers in Redis's encoding (hll.go), a counter's value (what a
// Get at at reads) in decimal. A key never written appends nothing. It
// never fails.
func (c *Cluster) GetBytes(at int64, key, tag uint64, dst []byte) ([]byte, error) {
	op := [1]strategies.StoreOp{{At: at, Kind: strategies.Get, Key: key, Tag: tag}}
	var v [1]int64
	c.Do(op[:], v[:])
	n := len(dst)
	if h, ok := c.hlls[key]; ok {
		dst = c.appendHLL(dst, h)
	} else if i, _ := c.index.find(key); v[0] != 0 || c.keys[i].writes > 0 {
		dst = strconv.AppendInt(dst, v[0], 10)
	}
	c.traffic.ReplyBytes += int64(len(dst)-n) - 8 // Do counted a number
	return dst, nil
}

// Refused returns the error of the first command refused since the last
// call, and nil when none was ([strategies.Refuser]).
func (c *Cluster) Refused() error {
	err := c.refused
	c.refused = nil
	return err
}

// Traffic is what the cluster carried so far ([strategies.Metered]).
func (c *Cluster) Traffic() strategies.Traffic { return c.traffic }

// Final is the value of key once every op sent to it has been served: the
// sum of the deltas sent since its node last lost its data, less what a
// failover lost (every failover registered taken as happened). An unknown
// key is 0.
func (c *Cluster) Final(key uint64) int64 {
	c.applyDue(math.MaxInt64)
	i, ok := c.index.find(key)
	if !ok {
		return 0
	}
	return c.keys[i].sent
}

// LoseNode makes node lose its data at time at (ns; raised to the latest op
// time if earlier): every key on it resets to 0 and its queued ops are
// dropped, the ones in service included, so its servers are free at at. It
// returns the count lost: the sum over those keys of the served values and
// the queued deltas dropped. A node outside 0..Nodes-1 loses nothing.
func (c *Cluster) LoseNode(node int, at int64) int64 {
	if node < 0 || node >= c.cfg.Nodes {
		return 0
	}
	at = max(at, c.clock, 0)
	if at > c.maxAt {
		panic(fmt.Sprintf("cluster: time %d ns beyond the simulated horizon of %d ns", at, c.maxAt))
	}
	c.clock = at
	c.cross(at)
	t := at * c.ticksPerN
	var lost int64
	for i := range c.keys {
		k := &c.keys[i]
		if int(k.node) != node {
			continue
		}
		c.advance(k, t)
		lost += k.sent
		k.value, k.sent, k.queued = 0, 0, 0
		k.runs, k.head = k.runs[:0], 0
		k.free = min(k.free, t)
		k.lastDone = min(k.lastDone, t)
	}
	n := &c.nodes[node]
	n.free = min(n.free, t)
	c.lost += lost
	return lost
}

// check validates the cluster's invariants: for every key, the pending
// runs hold queued ops whose deltas bring value to sent, their completions
// strictly increase and end at lastDone; busy lists every key with queued
// ops; the per-second counters add up to the op totals.
func (c *Cluster) check() error {
	var writes, reads int64
	inBusy := make(map[int32]bool, len(c.busy))
	for _, i := range c.busy {
		if inBusy[i] || !c.keys[i].busy {
			return fmt.Errorf("cluster: busy list entry %d repeated or unflagged", i)
		}
		inBusy[i] = true
	}
	if c.index.n != len(c.keys) {
		return fmt.Errorf("cluster: %d keys indexed, %d held", c.index.n, len(c.keys))
	}
	for i := range c.keys {
		k := &c.keys[i]
		if j, ok := c.index.find(k.key); !ok || int(j) != i {
			return fmt.Errorf("cluster: key %d at %d not indexed", k.key, i)
		}
		if slot, node := c.place(k.key, k.tag); int(k.node) != node || int(k.slot) != slot {
			return fmt.Errorf("cluster: key %d in slot %d on node %d, its name says slot %d, node %d", k.key, k.slot, k.node, slot, node)
		}
		if k.busy != inBusy[int32(i)] || (k.queued > 0 && !k.busy) {
			return fmt.Errorf("cluster: key %d busy flag %v, queued %d", k.key, k.busy, k.queued)
		}
		var ops, deltas int64
		prev := int64(math.MinInt64)
		for _, r := range k.runs[k.head:] {
			if r.count < 1 || (r.count > 1 && r.step <= 0) || r.first <= prev {
				return fmt.Errorf("cluster: key %d bad run %+v after %d", k.key, r, prev)
			}
			ops += r.count
			deltas += r.count * r.delta
			prev = r.first + (r.count-1)*r.step
		}
		if ops != k.queued || k.value+deltas != k.sent {
			return fmt.Errorf("cluster: key %d: runs hold %d ops, Δ%d; queued %d, value %d, sent %d",
				k.key, ops, deltas, k.queued, k.value, k.sent)
		}
		if ops > 0 && prev != k.lastDone {
			return fmt.Errorf("cluster: key %d: last run ends at %d, lastDone %d", k.key, prev, k.lastDone)
		}
		var w, r int64
		for j := range k.seconds() {
			s := k.second(j)
			if j > 0 && s.sec <= k.second(j-1).sec {
				return errors.New("cluster: key seconds out of order")
			}
			w += int64(s.writes)
			r += int64(s.reads)
		}
		if w != k.writes || r != k.reads {
			return fmt.Errorf("cluster: key %d: seconds count %d writes %d reads, totals %d and %d", k.key, w, r, k.writes, k.reads)
		}
		writes += w
		reads += r
	}
	var nw, nr int64
	for _, s := range c.nodeSec {
		nw += int64(s.writes)
		nr += int64(s.reads)
	}
	if writes != c.writes || reads != c.reads || nw != c.writes || nr != c.reads {
		return fmt.Errorf("cluster: writes %d/%d/%d, reads %d/%d/%d (keys/nodes/total)", writes, nw, c.writes, reads, nr, c.reads)
	}
	return nil
}
