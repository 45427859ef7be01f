package hot

import (
	"fmt"
	"slices"
	"unsafe"

	"countsim/strategies"
	"countsim/workload"
)

// The store side of a hot-counter design: the buffer of operations it sends
// and the read path, shared by single-key, striped and batched.
//
// A design appends its operations for a whole batch of events — INCRBYs,
// and the GETs of its reads — to one reusable buffer in time order, then
// calls Store.Do once: one interface call per batch, not per event, and the
// store, which applies ops in order, makes every write visible to a later
// read of the same batch exactly as it would be had each been sent alone.
// The values of the GETs are known only once Do returns, so a read records
// which GETs it stands for, and the value it shows is filled in then.
//
// Two read paths, after the seed's "reads sum all shards, cached and
// refreshed periodically":
//
//   - sum: every Read event sends one GET per stripe of its key at the read's
//     time (an MGET of K keys) and shows their sum — exact as of what the
//     store has served, at K operations a read;
//   - cache: the total of each key is cached with the time it was read.
//     A Read event that finds no cached total, or one ttl old or older,
//     refreshes it with one GET per stripe (refresh on read) and shows the
//     new total; any other read shows the cached total. So a shown value is
//     always less than ttl old, refreshes of a key are at least ttl apart,
//     and a key read continuously costs K GETs per ttl: K/ttl a second
//     however many reads come.

// hotMaxBuffered bounds the buffer: a design sends it early, between two
// events, once it holds this many ops (a batch of reads fanned out over
// many stripes), so that its memory stays at about 2 MB.
const hotMaxBuffered = 1 << 16

// readCache is the cached total of one key.
type readCache struct {
	val int64 // the total; valid when ref < 0
	at  int64 // when it was read (ns)
	ref int32 // the refresh in the current buffer that will give val; -1: none
	ok  bool  // a total has been read
}

// readRefresh is a run of GETs in the buffer whose sum is one read's total.
type readRefresh struct {
	start, n int32 // ops[start : start+n]
	slot     int32 // the key's cache slot; -1 on the sum path
	total    int64 // the sum, once sent
}

// readPending is a read whose shown value waits for a refresh in the buffer.
type readPending struct {
	shown int   // index in shown
	ref   int32 // index in refreshes
}

// hotIO is a design's operation buffer and read path.
type hotIO struct {
	store strategies.Store
	ops   []strategies.StoreOp
	vals  []int64
	last  int64 // At of the last op appended: ops never go back in time
	// tagged gives the stripes of a key one Tag: one node of the simulated
	// cluster, one slot of a Redis Cluster ({key}:1..K).
	tagged bool

	cache     bool
	ttl       int64       // ns
	entries   []readCache // by key slot, on the cache path
	refreshes []readRefresh
	pending   []readPending
	shown     []int64 // one value per Read event, in stream order

	gets, refreshed int64 // GETs and refreshes sent so far

	// cl is the fallible client (client.go); nil: ops go by Store.Do.
	cl *hotClient
}

func newHotIO(store strategies.Store, o hotOpts) hotIO {
	return hotIO{store: store, cache: o.cache, ttl: o.ttl}
}

// addKey gives the key of the next slot an empty cache entry.
func (io *hotIO) addKey() {
	if io.cache {
		io.entries = append(io.entries, readCache{ref: -1})
	}
}

// incr appends an INCRBY of delta on stripe j of key at time at.
func (io *hotIO) incr(at int64, key uint64, j int, delta int64) {
	if io.cl != nil {
		io.incrClient(at, key, j, delta, 0, -1, 0)
		return
	}
	io.last = at
	io.ops = append(io.ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: stripeKey(key, j), Delta: delta, Tag: io.tagOf(key)})
}

// tagOf is the Tag of key's stripes: with hashtag, one for all the stripes
// of a key (never 0); else 0, each stripe placed by itself.
func (io *hotIO) tagOf(key uint64) uint64 {
	if !io.tagged {
		return 0
	}
	return workload.Mix64(key) | 1
}

// read answers a Read event of key at time at, whose count lies on stripes
// 0..k-1; slot is the key's slot on the cache path (ignored on the sum path).
func (io *hotIO) read(at int64, key uint64, k int, slot int32) {
	if !io.cache {
		io.pend(io.refresh(at, key, k, -1))
		return
	}
	e := &io.entries[slot]
	switch {
	case !e.ok || at-e.at >= io.ttl:
		prevVal, prevAt, prevOK := e.val, e.at, e.ok
		e.ref = io.refresh(at, key, k, slot)
		if io.cl != nil {
			rm := &io.cl.refs[len(io.cl.refs)-1]
			rm.prevVal, rm.prevAt, rm.prevOK, rm.cached = prevVal, prevAt, prevOK, true
		}
		e.at, e.ok = at, true
		io.pend(e.ref)
	case e.ref >= 0:
		io.pend(e.ref)
	default:
		io.shown = append(io.shown, e.val)
	}
}

// refresh appends one GET per stripe of key and returns the refresh's index.
func (io *hotIO) refresh(at int64, key uint64, k int, slot int32) int32 {
	io.last = at
	start := len(io.ops)
	for j := range k {
		io.ops = append(io.ops, strategies.StoreOp{At: at, Kind: strategies.Get, Key: stripeKey(key, j), Tag: io.tagOf(key)})
	}
	io.refreshes = append(io.refreshes, readRefresh{start: int32(start), n: int32(k), slot: slot})
	if io.cl != nil {
		for range k {
			io.cl.meta = append(io.cl.meta, opMeta{key: key, flags: metaRead})
		}
		io.cl.refs = append(io.cl.refs, refMeta{key: key, at: at})
	}
	io.gets += int64(k)
	io.refreshed++
	return int32(len(io.refreshes) - 1)
}

// pend shows the total of refresh ref, once it is known.
func (io *hotIO) pend(ref int32) {
	io.pending = append(io.pending, readPending{shown: len(io.shown), ref: ref})
	io.shown = append(io.shown, 0)
}

// full reports whether the buffer should be sent before the next event.
func (io *hotIO) full() bool { return len(io.ops) >= hotMaxBuffered }

// send hands the buffer to the store in one Do call, fills in the values the
// buffer's reads show, and empties it.
func (io *hotIO) send() {
	if len(io.ops) == 0 {
		return
	}
	if cap(io.vals) < len(io.ops) {
		io.vals = make([]int64, cap(io.ops))
	}
	vals := io.vals[:len(io.ops)]
	if io.cl != nil {
		io.sendClient(vals)
	} else {
		io.store.Do(io.ops, vals)
	}
	for i := range io.refreshes {
		r := &io.refreshes[i]
		var t int64
		for _, v := range vals[r.start : r.start+r.n] {
			t += v
		}
		r.total = t
		if r.slot >= 0 && io.entries[r.slot].ref == int32(i) {
			io.entries[r.slot].val, io.entries[r.slot].ref = t, -1
		}
	}
	for _, p := range io.pending {
		io.shown[p.shown] = io.refreshes[p.ref].total
	}
	io.ops, io.refreshes, io.pending = io.ops[:0], io.refreshes[:0], io.pending[:0]
	if io.cl != nil {
		io.cl.meta, io.cl.refs = io.cl.meta[:0], io.cl.refs[:0]
	}
}

// bytes is the memory of the buffers and the cache; the values shown to
// readers are the measurement's record, not the design's memory, and are
// not counted.
func (io *hotIO) bytes() int64 {
	return int64(cap(io.ops))*int64(unsafe.Sizeof(strategies.StoreOp{})) + int64(cap(io.vals))*8 +
		int64(cap(io.entries))*int64(unsafe.Sizeof(readCache{})) +
		int64(cap(io.refreshes))*int64(unsafe.Sizeof(readRefresh{})) +
		int64(cap(io.pending))*int64(unsafe.Sizeof(readPending{})) + io.cl.bytes()
}

// check, between batches: the buffer is empty and every cached total known.
func (io *hotIO) check(keys int) error {
	if len(io.ops) != 0 || len(io.refreshes) != 0 || len(io.pending) != 0 {
		return fmt.Errorf("hot io: %d ops, %d refreshes, %d reads left unsent", len(io.ops), len(io.refreshes), len(io.pending))
	}
	if err := io.cl.check(len(io.ops), len(io.refreshes)); err != nil {
		return err
	}
	if !io.cache {
		if len(io.entries) != 0 {
			return fmt.Errorf("hot io: %d cache entries on the sum path", len(io.entries))
		}
		return nil
	}
	if len(io.entries) != keys {
		return fmt.Errorf("hot io: %d cache entries for %d keys", len(io.entries), keys)
	}
	for i, e := range io.entries {
		if e.ref != -1 {
			return fmt.Errorf("hot io: cache entry %d waits for refresh %d after the send", i, e.ref)
		}
	}
	return nil
}

// resetShown forgets the values shown so far (benchmarks that observe the
// same events again and again).
func (io *hotIO) resetShown() { io.shown = io.shown[:0] }

// reserve makes room for n shown values, so that recording them does not
// allocate inside Observe (Env.Reads).
func (io *hotIO) reserve(n int64) {
	if n > int64(cap(io.shown)) {
		io.shown = slices.Grow(io.shown, int(n)-len(io.shown))
	}
}
