package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"countsim/strategies"
)

// Store faults on a real store (issue 29): DoClient, the idempotent
// IncrByOnce, and a failover of a master at a scenario's time.
//
// DoClient sends a design's ops as Do does, a pipeline at a time, on a
// client of its own that never retries, follows no redirect and dials a
// node once (go-redis's MaxRedirects off: a pipeline it re-sent after a
// connection error could apply a write twice behind the design's back;
// DialerRetries 1: a refused dial is not tried again 100 ms later), and waits for each
// pipeline until its ops' deadline: due time + the Client's timeout (paced;
// else the send + the timeout). Each op's status is what came back by its
// own deadline: OpOK for an answer (a Redis Nil too, and a CROSSSLOT
// refusal, which Refused reports as Do's does), OpTimeout for no answer in
// time (the deadline), a connection refused or reset, a node gone, or a
// cluster that answers CLUSTERDOWN, MOVED, ASK, TRYAGAIN, LOADING, READONLY
// or MASTERDOWN while it fails over (after which the client reloads the
// cluster's slots, so that the next pipeline goes to the new master). None
// of these fails the run; any other error (a wrong type, an unknown
// command) is a bug, and fails it as Do's errors do.
//
// The store counts, per counter key sent through DoClient, the increments
// answered as applied in time (acknowledged); once the design is done,
// Settle compares each key's final value with them: Lost is what was
// acknowledged and is not on the store (the writes a failover lost in its
// replication lag), Extra what is on the store beyond what was
// acknowledged (a write that timed out but had landed, or a retry of one
// counted twice). Only the design knows which of its writes were retries,
// so duplicates are its figure; Extra bounds them.

// OnceTTL is how long an IncrByOnce's idempotency key lives on the server:
// a retry of the write within it is not applied again. Close deletes the
// keys before that; the TTL bounds what a run that could not close leaves.
const OnceTTL = time.Hour

// onceScript is IncrByOnce: SET the idempotency key NX with its TTL, and
// INCRBY the counter only if the SET did; both keys in one slot (the
// idempotency key is the counter's name, hash tag included, + ":id:" +
// the write's id in hex). It returns 1 when it applied the write, 0 when
// the key was there: applied before.
var onceScript = redis.NewScript(onceSource)

const onceSource = `if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then
  redis.call('INCRBY', KEYS[1], ARGV[1])
  return 1
end
return 0`

// onceKey is the idempotency key of write id to the counter named name.
func onceKey(name string, id uint64) string {
	return name + ":id:" + strconv.FormatUint(id, 16)
}

// incrByOnce queues one IncrByOnce on pipe: EVALSHA of the script, loaded
// on every node (replicas too) before the first; EVAL of its source while
// it is not known to be on every master (a load failed, or a promoted
// replica answered NOSCRIPT: a replica's script cache is its own), which
// also caches it on the node that runs it.
func (b *Backend) incrByOnce(ctx context.Context, pipe redis.Pipeliner, name string, delta int64, id uint64) redis.Cmder {
	keys := []string{name, onceKey(name, id)}
	if b.loadScript(ctx) {
		return onceScript.EvalSha(ctx, pipe, keys, delta, OnceTTL.Milliseconds())
	}
	return onceScript.Eval(ctx, pipe, keys, delta, OnceTTL.Milliseconds())
}

// scriptRetry is how often the store tries to load the script again while
// a node could not take it.
const scriptRetry = 100 * time.Millisecond

// loadScript loads the script on every node (again after a NOSCRIPT, at
// most every scriptRetry), and reports whether it is loaded. A node that
// cannot take it now (a dead master) is not an error: the ops go as EVAL
// meanwhile.
func (b *Backend) loadScript(ctx context.Context) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.scriptLoaded || time.Since(b.scriptTried) < scriptRetry {
		return b.scriptLoaded
	}
	b.scriptTried = time.Now()
	c, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	b.scriptLoaded = b.client.ScriptLoad(c, onceSource).Err() == nil
	return b.scriptLoaded
}

// fallibleClient is DoClient's client: no retries, no redirects.
func (b *Backend) fallibleClient() redis.UniversalClient {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fallible != nil {
		return b.fallible
	}
	if !b.cluster {
		b.fallible = b.client // one server: no redirects, and no retries already
		return b.fallible
	}
	o := b.clusterOpts
	// One dial a connection: go-redis's default redials a refused
	// connection 5 times 100 ms apart, and past the caller's deadline (a
	// dead master then held every pipeline to it for its whole timeout,
	// and some a second more); a design's client learns of the dead node
	// at once and decides itself whether to retry.
	o.MaxRedirects, o.DialerRetries = -1, 1
	b.fallible = redis.NewClusterClient(&o)
	return b.fallible
}

// SetKiller gives the backend the way to kill the master serving node i's
// slots (node i of Nodes, the simulated cluster's node i), which a
// failover fault needs: a test's cluster (internal/redistest) provides
// one. Without it a failover fault is refused (see StoreFaults).
func (b *Backend) SetKiller(kill func(node int) error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.killer = kill
}

// kill applies the run's fault number idx, a failover of node, once for
// every store of the backend, and returns when it was applied.
func (b *Backend) kill(idx, node int) (time.Time, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if at, ok := b.killed[idx]; ok {
		return at, nil
	}
	if err := b.killer(node); err != nil {
		return time.Time{}, fmt.Errorf("redis store %s: failover of node %d (%s): %w", b.cfg.URL, node, b.nodes[node], err)
	}
	if b.killed == nil {
		b.killed = map[int]time.Time{}
	}
	b.killed[idx] = time.Now()
	return b.killed[idx], nil
}

// ErrNoKiller refuses a failover fault on a store countsim may not kill a
// node of.
var ErrNoKiller = errors.New("a failover fault on a real store kills a master, which countsim does only on a cluster it started itself (a test's, internal/redistest): " +
	"a cluster at a URL is someone's, and its nodes are not countsim's to shut down (run the scenario without -store, on the simulated cluster, or kill the master yourself)")

// refresh reloads both clients' map of the slots, at once, after a
// failover the store applied: go-redis reloads it by itself only on a
// MOVED, and the dead master refuses connections instead.
func (b *Backend) refresh(ctx context.Context, faults []*storeFault) {
	applied := false
	for _, sf := range faults {
		applied = applied || sf.applied
	}
	if !applied {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout)
	defer cancel()
	b.mu.Lock()
	clients := []redis.UniversalClient{b.client, b.fallible}
	b.mu.Unlock()
	for _, c := range clients {
		if cc, ok := c.(*redis.ClusterClient); ok {
			// ForEachMaster reloads the slots before it calls its function.
			_ = cc.ForEachMaster(ctx, func(context.Context, *redis.Client) error { return nil })
		}
	}
}

// storeFault is a failover the store applies, and what it saw of it.
type storeFault struct {
	idx      int // in the run's faults
	f        strategies.Fault
	applied  bool
	killed   time.Time // wall time of the kill
	lastFail time.Time // the due time of the last op to the node that failed
	ok       time.Time // the due time of the first op answered after lastFail
	failed   int64
	lastErr  error // the last failed op's error, for a test's log
}

// StoreFaults takes the run's faults ([strategies.FaultedStore]): the
// store applies each failover at its time, killing the master that serves
// the fault's node. A failover on a backend without a killer, a node the
// cluster does not have, and the store faults a real store cannot apply
// (node-down, node-slow, partition) are refused.
func (s *store) StoreFaults(faults []strategies.Fault) error {
	for i, f := range faults {
		switch f.Kind {
		case strategies.Failover:
		case strategies.NodeDown, strategies.NodeSlow, strategies.Partition:
			return fmt.Errorf("redis store: fault %d (%s): a real store applies failover only (a master killed and Redis failing over); %s is the simulated cluster's", i, f.Kind, f.Kind)
		default:
			continue // the design's (app-crash) or the simulated cluster's (node-loss)
		}
		if !s.b.cluster {
			return fmt.Errorf("redis store %s: fault %d (failover): one server has no replica to fail over to (allowed: a redis-cluster:// store with replicas)", s.b.cfg.URL, i)
		}
		if f.Target < 0 || f.Target >= len(s.b.nodes) {
			return fmt.Errorf("redis store %s: fault %d: node %d not in the cluster (allowed: 0..%d)", s.b.cfg.URL, i, f.Target, len(s.b.nodes)-1)
		}
		s.b.mu.Lock()
		k := s.b.killer
		s.b.mu.Unlock()
		if k == nil {
			return fmt.Errorf("redis store %s: fault %d (failover of node %d): %w", s.b.cfg.URL, i, f.Target, ErrNoKiller)
		}
		s.storeFaults = append(s.storeFaults, &storeFault{idx: i, f: f})
	}
	return nil
}

var _ strategies.FaultedStore = (*store)(nil)

// applyFaults applies the failovers due by sim time at (waiting, paced, for
// each one's time): the kill comes between the ops before it and those at
// or after it, as the simulated cluster's does.
func (s *store) applyFaults(at int64) bool {
	for _, sf := range s.storeFaults {
		if sf.applied || sf.f.At > at {
			continue
		}
		if s.paced && !s.wait(s.start.Add(time.Duration(sf.f.At))) {
			return false
		}
		t, err := s.b.kill(sf.idx, sf.f.Target)
		if err != nil {
			s.failWith(err)
			return false
		}
		sf.applied, sf.killed = true, t
	}
	return true
}

// wait waits until t, or the run's end (false: the store failed with it).
func (s *store) wait(t time.Time) bool {
	if d := time.Until(t); d > 0 {
		tm := time.NewTimer(d)
		select {
		case <-tm.C:
		case <-s.ctx.Done():
			tm.Stop()
			s.failWith(s.ctx.Err())
			return false
		}
	}
	return true
}

// DoClient applies ops as Do does, sent by client c, and sets status[i]
// to what c learned of ops[i] within c.Timeout ([strategies.FallibleStore];
// see the comment at the top of this file). A timeout of 0 is the
// backend's own (Config.Timeout): a real call is never unbounded. After a
// genuine failure (not a fault) it sends nothing, and every op times out.
func (s *store) DoClient(c strategies.Client, ops []strategies.StoreOp, vals []int64, status []strategies.OpStatus) {
	timeout := time.Duration(c.Timeout)
	if timeout <= 0 {
		timeout = s.b.cfg.Timeout
	}
	if s.fpipe == nil {
		s.fpipe = s.b.fallibleClient().Pipeline()
	}
	for i := 0; i < len(ops); {
		if s.failed != nil {
			if vals != nil {
				clear(vals[i:len(ops)])
			}
			for k := i; k < len(ops); k++ {
				status[k] = strategies.OpTimeout
			}
			return
		}
		j := i + 1
		for j < len(ops) && j-i < pipeMaxOps && (!s.paced || ops[j].At-ops[i].At < pipeWindow) {
			j++
		}
		// Timed out until sendClient learns otherwise: a replay stopped
		// while it waited leaves them so.
		for k := i; k < j; k++ {
			status[k] = strategies.OpTimeout
		}
		if vals != nil {
			clear(vals[i:j])
		}
		s.sendClient(timeout, ops[i:j], vals, status, i)
		i = j
	}
}

// sendClient is send for DoClient: ops (from index off) as one pipeline,
// each op's status from what came back by its deadline.
func (s *store) sendClient(timeout time.Duration, ops []strategies.StoreOp, vals []int64, status []strategies.OpStatus, off int) {
	if !s.due(ops) {
		return // failed: DoClient times the rest out
	}
	sent := time.Now()
	writes, reads, bytes, ok := s.queue(s.fpipe, ops, off)
	if !ok {
		return
	}
	deadline := func(k int) time.Time {
		if s.paced {
			return s.start.Add(time.Duration(ops[k].At) + timeout)
		}
		return sent.Add(timeout)
	}
	// The pipeline waits for its answers until the last op's deadline, and
	// at least a timeout from its send: a replay behind its schedule (a
	// loaded machine) still sends its late ops and learns whether the node
	// answered them, though to the design they have timed out.
	wait := deadline(len(ops) - 1)
	if w := sent.Add(timeout); w.After(wait) {
		wait = w
	}
	ctx, cancel := context.WithDeadline(s.ctx, wait)
	_, _ = s.fpipe.Exec(ctx)
	cancel()
	reply := time.Now()
	if s.ctx.Err() != nil {
		s.failWith(s.ctx.Err())
		return
	}
	s.refusals() // notes a CROSSSLOT for Refused
	reload, failed := false, int64(0)
	k := 0
	for ci, cmd := range s.cmds {
		n := s.spans[ci]
		st := strategies.OpOK
		err := cmd.Err()
		switch {
		case err == nil || errors.Is(err, redis.Nil) || refusal(cmd, err):
		case faultErr(err):
			st, reload = strategies.OpTimeout, true
			if strings.HasPrefix(err.Error(), "NOSCRIPT") {
				s.b.mu.Lock()
				s.b.scriptLoaded = false
				s.b.mu.Unlock()
			}
		default:
			s.failWith(s.errorf("", []redis.Cmder{cmd}, err))
			return
		}
		if st == strategies.OpOK && reply.After(deadline(k)) {
			st = strategies.OpTimeout // answered, but after the client gave up
		}
		op := &ops[k]
		ks := s.keys[op.Key]
		ks.client = ks.client || op.Kind == strategies.IncrBy || op.Kind == strategies.IncrByOnce
		for e := k; e < k+n; e++ {
			status[off+e] = st
			if st != strategies.OpOK && vals != nil {
				vals[off+e] = 0
			}
		}
		if st == strategies.OpOK {
			s.answered(cmd, op, ks, vals, off+k)
		} else {
			failed += int64(n)
		}
		s.watch(ks.node, s.start.Add(time.Duration(op.At)), st == strategies.OpOK || err == nil, err)
		k += n
	}
	if reload {
		if cc, ok := s.b.fallibleClient().(*redis.ClusterClient); ok {
			cc.ReloadState(s.ctx)
		}
	}
	s.account(ops, writes, reads, bytes, sent, reply)
	s.mu.Lock()
	s.stats.Failed += failed
	s.stats.Fallible = true
	s.mu.Unlock()
}

// answered takes the reply of cmd, op's command, answered in time: a
// read's value, a write's acknowledged increment.
func (s *store) answered(cmd redis.Cmder, op *strategies.StoreOp, ks *keyState, vals []int64, i int) {
	switch c := cmd.(type) {
	case *redis.StringCmd: // GET
		v, _ := c.Int64() // a key not there (Nil) reads 0
		vals[i] = v
	case *redis.IntCmd:
		switch op.Kind {
		case strategies.PFCount:
			vals[i] = c.Val()
		case strategies.IncrBy:
			ks.acked += op.Delta
		}
	case *redis.Cmd: // IncrByOnce's script: 1 applied, 0 applied before
		if v, _ := c.Int64(); v == 1 {
			ks.acked += op.Delta
		}
	}
}

// watch notes an op due at due to node, answered or not, for the
// failovers of that node under way: the ops that got no answer after the
// kill, and the first answered after the last that got none (when writes
// flowed again). An answer that came after the client's deadline counts as
// an answer here: the node was serving, and the lateness is the client's
// own backlog (a loaded machine), not the fault's.
func (s *store) watch(node int, due time.Time, answered bool, err error) {
	for _, sf := range s.storeFaults {
		if !sf.applied || sf.f.Target != node || due.Before(sf.killed) {
			continue
		}
		if !answered {
			sf.failed++
			sf.lastErr = err
			sf.lastFail, sf.ok = due, time.Time{}
		} else if sf.ok.IsZero() || sf.ok.Before(sf.lastFail) {
			sf.ok = due
		}
	}
}

// faultErr reports whether err is a fault's, not a bug's: no answer (a
// timeout, a connection refused, reset or closed, a node gone) or a
// cluster's answer while it fails over.
func faultErr(err error) bool {
	if _, ok := errors.AsType[redis.Error](err); !ok {
		return !errors.Is(err, redis.ErrClosed)
	}
	for _, p := range []string{"CLUSTERDOWN", "MOVED", "ASK", "TRYAGAIN", "LOADING", "READONLY", "MASTERDOWN", "NOSCRIPT"} {
		if strings.HasPrefix(err.Error(), p) {
			return true
		}
	}
	return false
}

// Outages is what the store saw of each failover it applied
// ([strategies.Outages]): Recovered is the due time (ns of the run) of the
// first op to the node's slots answered after the last that got no answer
// (−1: none was), Failed the ops to them that got none from the kill on
// (an answer past the deadline is a timeout to the design, but the node's
// answer here: see watch), Lost
// what the node's keys lost of what was acknowledged (known once Settle
// has read them back).
func (s *store) Outages() []strategies.Outage {
	var out []strategies.Outage
	for _, sf := range s.storeFaults {
		if !sf.applied {
			continue
		}
		o := strategies.Outage{Fault: sf.f, Recovered: -1, Failed: sf.failed}
		if !sf.ok.IsZero() {
			o.Recovered = int64(sf.ok.Sub(s.start))
		}
		for _, key := range s.order {
			if k := s.keys[key]; k.client && k.node == sf.f.Target && s.settled {
				o.Lost += max(0, k.acked-k.final)
			}
		}
		out = append(out, o)
	}
	return out
}

var (
	_ strategies.FallibleStore = (*store)(nil)
	_ strategies.Outages       = (*store)(nil)
)

// deleteOnceKeys deletes the idempotency keys of the store's IncrByOnce
// counters: SCAN for each counter's name + ":id:*" on every master.
func (s *store) deleteOnceKeys(ctx context.Context) error {
	var pats []string
	for _, key := range s.order {
		if k := s.keys[key]; k.once {
			pats = append(pats, globEscape(k.name)+":id:*")
		}
	}
	if len(pats) == 0 {
		return nil
	}
	del := func(ctx context.Context, c *redis.Client) error {
		for _, p := range pats {
			iter := c.Scan(ctx, 0, p, 1000).Iterator()
			var batch []string
			for iter.Next(ctx) {
				if batch = append(batch, iter.Val()); len(batch) == settleBatch {
					if err := c.Unlink(ctx, batch...).Err(); err != nil {
						return err
					}
					batch = batch[:0]
				}
			}
			if err := iter.Err(); err != nil {
				return err
			}
			if len(batch) > 0 {
				if err := c.Unlink(ctx, batch...).Err(); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if cc, ok := s.b.client.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, del)
	}
	return del(ctx, s.b.client.(*redis.Client))
}

// globEscape escapes the glob characters of a key name for SCAN MATCH.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
