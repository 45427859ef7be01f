package redisstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"countsim/strategies"
)

// The store of one twin design: see the package comment for what it sends,
// when, and what it accounts.

// Limits of one pipeline.
const (
	pipeMaxOps    = 4096                    // ops
	pipeWindow    = int64(time.Millisecond) // of simulated time, paced
	settleBatch   = 1000                    // GETs and UNLINKs a pipeline when settling and closing
	pfMaxElements = 4096                    // elements of one PFADD
)

// keyState is one key the store has used.
type keyState struct {
	name    string
	node    int
	counter bool  // sent an INCRBY: its final value is checked
	once    bool  // sent an IncrByOnce: its idempotency keys are deleted at Close
	client  bool  // written through DoClient: checked against acked, not sent (so is a once key)
	acked   int64 // DoClient: the increments answered as applied in time
	zset    bool  // sent a ZINCRBY or ZADD: a sorted set
	sent    int64 // the sum of the INCRBYs sent
	final   int64 // read back by Settle
}

type store struct {
	b      *Backend
	ctx    context.Context
	fail   func(error)
	prefix string
	paced  bool

	keys    map[uint64]*keyState
	order   []uint64 // keys in first use, for settling and closing in a fixed order
	failed  error
	refused error // the first command refused (CROSSSLOT) since Refused was called

	started bool
	start   time.Time // the wall time at which simulated time 0 falls due
	first   time.Time // the first send
	last    time.Time // the last reply
	lastDue time.Time

	pipe  redis.Pipeliner
	cmds  []redis.Cmder // the pipeline's commands
	spans []int         // ops covered by each command (a PFADD covers many, a multi-key command its KeyArgs)
	sent  []bool        // the nodes the pipeline goes to: one round trip each
	names []string      // the keys of a multi-key command

	fpipe       redis.Pipeliner // DoClient's, on the backend's fallible client
	storeFaults []*storeFault   // the failovers the store applies (StoreFaults)

	mu      sync.Mutex // guards stats: Stats may be called from another goroutine
	stats   strategies.RealStats
	nodeOps []int64
	settled bool
}

func newStore(ctx context.Context, b *Backend, design string, paced bool, fail func(error)) *store {
	return &store{b: b, ctx: ctx, fail: fail, paced: paced, prefix: b.Prefix() + design + ":",
		keys: map[uint64]*keyState{}, pipe: b.client.Pipeline(), nodeOps: make([]int64, len(b.nodes)), sent: make([]bool, len(b.nodes))}
}

// key returns the state of key, named on first use with its tag.
func (s *store) key(key, tag uint64) *keyState {
	k, ok := s.keys[key]
	if !ok {
		name := s.name(key, tag)
		k = &keyState{name: name, node: s.b.nodeOf(name)}
		s.keys[key] = k
		s.order = append(s.order, key)
	}
	return k
}

// name is the name of key, placed with tag, on the server: the store's
// prefix, then the design's name of the key (strategies.AppendKeyName), in
// braces when it has no tag of its own so that the slot is the name's
// alone, whatever the run and the design — the slot the simulated cluster
// places the key in.
func (s *store) name(key, tag uint64) string {
	b := append(make([]byte, 0, len(s.prefix)+strategies.KeyNameBytes+2), s.prefix...)
	if tag == 0 {
		b = append(strategies.AppendKeyName(append(b, '{'), key, 0), '}')
	} else {
		b = strategies.AppendKeyName(b, key, tag)
	}
	return string(b)
}

// Do sends ops a pipeline at a time (see the package comment) and fills
// vals for every Get and PFCount. After a failure it sends nothing and
// leaves zeros.
func (s *store) Do(ops []strategies.StoreOp, vals []int64) {
	for i := 0; i < len(ops); {
		if s.failed != nil {
			if vals != nil {
				clear(vals[i:len(ops)])
			}
			return
		}
		j := i + 1
		for j < len(ops) && j-i < pipeMaxOps && (!s.paced || ops[j].At-ops[i].At < pipeWindow) {
			j++
		}
		s.send(ops[i:j], vals, i)
		i = j
	}
}

// send sends ops (the ops of Do from index off) as one pipeline, once the
// last of them is due when paced.
func (s *store) send(ops []strategies.StoreOp, vals []int64, off int) {
	if !s.due(ops) {
		return
	}
	sent := time.Now()
	writes, reads, bytes, ok := s.queue(s.pipe, ops, off)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.b.cfg.Timeout)
	_, err := s.pipe.Exec(ctx)
	cancel()
	reply := time.Now()
	if err != nil && !errors.Is(err, redis.Nil) && !s.refusals() {
		s.failWith(s.errorf("", s.cmds, err))
		return
	}
	k := 0
	for ci, c := range s.cmds {
		if err := c.Err(); refusal(c, err) {
			k += s.spans[ci]
			continue // refused, as refusals noted: it reads 0
		} else if err != nil && !errors.Is(err, redis.Nil) {
			s.failWith(s.errorf("", s.cmds, err))
			return
		}
		switch c := c.(type) {
		case *redis.StringCmd: // GET
			v, err := c.Int64()
			if err != nil && !errors.Is(err, redis.Nil) {
				s.failWith(fmt.Errorf("redis store %s: node %s: GET: %w", s.b.cfg.URL, s.b.nodes[s.b.nodeOf(c.Args()[1].(string))], err))
				return
			}
			vals[off+k] = v
		case *redis.IntCmd:
			if ops[k].Kind == strategies.PFCount {
				vals[off+k] = c.Val()
			}
		}
		if op := &ops[k]; op.Kind == strategies.IncrBy || op.Kind == strategies.IncrByOnce {
			s.answered(c, op, s.keys[op.Key], vals, off+k)
		}
		k += s.spans[ci]
	}
	s.account(ops, writes, reads, bytes, sent, reply)
}

// due notes the store's start at its first op and, paced, waits until the
// last of ops is due; false: the run was stopped meanwhile (the store has
// failed with it).
func (s *store) due(ops []strategies.StoreOp) bool {
	now := time.Now()
	if !s.started {
		s.started, s.start, s.first = true, now.Add(-time.Duration(ops[0].At)), now
	}
	if !s.applyFaults(ops[len(ops)-1].At) {
		return false
	}
	if s.paced {
		due := s.start.Add(time.Duration(ops[len(ops)-1].At))
		if wait := time.Until(due); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-s.ctx.Done():
				t.Stop()
				s.failWith(s.ctx.Err())
				return false
			}
		}
		s.lastDue = due
	}
	return true
}

// queue queues ops (the ops of a Do from index off) on pipe as their
// commands, in s.cmds and s.spans, noting the nodes they go to in s.sent,
// and returns the writes, reads and reply bytes they count as; false: an
// op the store cannot send (the store has failed with it).
func (s *store) queue(pipe redis.Pipeliner, ops []strategies.StoreOp, off int) (writes, reads, bytes int64, ok bool) {
	s.cmds, s.spans = s.cmds[:0], s.spans[:0]
	clear(s.sent)
	for k := 0; k < len(ops); {
		op := &ops[k]
		if op.Kind == strategies.KeyArg {
			pipe.Discard()
			s.failWith(fmt.Errorf("redis store: a KeyArg at op %d follows no multi-key command", off+k))
			return 0, 0, 0, false
		}
		ks := s.key(op.Key, op.Tag)
		s.sent[ks.node] = true
		n, count := 1, 1 // the ops the command covers, and the ops it counts as
		if op.Kind.MultiKey() {
			s.names = append(s.names[:0], ks.name)
			for k+n < len(ops) && ops[k+n].Kind == strategies.KeyArg {
				s.names = append(s.names, s.key(ops[k+n].Key, ops[k+n].Tag).name)
				n++
			}
		}
		var c redis.Cmder
		switch op.Kind {
		case strategies.IncrBy:
			ks.counter = true
			ks.sent += op.Delta
			c = pipe.IncrBy(s.ctx, ks.name, op.Delta)
		case strategies.IncrByOnce:
			ks.counter, ks.once = true, true
			ks.sent += op.Delta
			c = s.b.incrByOnce(s.ctx, pipe, ks.name, op.Delta, op.Member)
		case strategies.Get:
			c = pipe.Get(s.ctx, ks.name)
			bytes += 8
		case strategies.ZIncrBy:
			ks.zset = true
			c = pipe.ZIncrBy(s.ctx, ks.name, float64(op.Delta), strconv.FormatUint(op.Member, 10))
		case strategies.ZAdd:
			ks.zset = true
			c = pipe.ZAdd(s.ctx, ks.name, redis.Z{Score: float64(op.Delta), Member: strconv.FormatUint(op.Member, 10)})
		case strategies.ZRead:
			c = pipe.ZCount(s.ctx, ks.name, "("+strconv.FormatInt(op.Delta, 10), "+inf")
			bytes += 8
		case strategies.PFAdd:
			// One PFADD for the run of PFAdds to this key.
			for n < pfMaxElements && k+n < len(ops) && ops[k+n].Kind == strategies.PFAdd && ops[k+n].Key == op.Key {
				n++
			}
			count = n
			els := make([]any, n)
			for e := range n {
				els[e] = ops[k+e].Member
			}
			c = pipe.PFAdd(s.ctx, ks.name, els...)
		case strategies.PFCount:
			c = pipe.PFCount(s.ctx, s.names...)
			bytes += 8
		case strategies.PFMerge:
			c = pipe.PFMerge(s.ctx, ks.name, s.names...)
		case strategies.ZUnionStore:
			ks.zset = true
			c = pipe.ZUnionStore(s.ctx, ks.name, &redis.ZStore{Keys: slices.Clone(s.names[1:])})
		default:
			pipe.Discard() // nothing of this pipeline is sent, not even later by Close
			s.failWith(fmt.Errorf("redis store: unknown op kind %d", op.Kind))
			return 0, 0, 0, false
		}
		if op.Kind.Writes() {
			writes += int64(count)
		} else {
			reads += int64(count)
		}
		s.mu.Lock()
		s.nodeOps[ks.node] += int64(count)
		s.mu.Unlock()
		s.cmds = append(s.cmds, c)
		s.spans = append(s.spans, n)
		k += n
	}
	return writes, reads, bytes, true
}

// account adds a pipeline's ops to the stats: sent at sent, answered at
// reply (or given up on then).
func (s *store) account(ops []strategies.StoreOp, writes, reads, bytes int64, sent, reply time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = reply
	st := &s.stats
	st.Ops += writes + reads
	st.Writes += writes
	st.Reads += reads
	st.ReplyBytes += bytes
	for _, to := range s.sent {
		if to {
			st.RoundTrips++
		}
	}
	for k := range ops {
		if ops[k].Kind == strategies.KeyArg {
			continue // part of its command
		}
		from := sent
		if s.paced {
			from = s.start.Add(time.Duration(ops[k].At))
		}
		st.Latency.Add(int64(max(0, reply.Sub(from))))
	}
}

// refusal reports whether err, c's, is Redis Cluster's refusal of a
// multi-key command across slots.
func refusal(c redis.Cmder, err error) bool {
	if err == nil || !strings.HasPrefix(err.Error(), "CROSSSLOT ") {
		return false
	}
	switch c.Name() {
	case "pfcount", "pfmerge", "zunionstore":
		return true
	}
	return false
}

// refusals reports whether every command of the pipeline that failed was
// refused across slots (CROSSSLOT), noting the first refusal for Refused:
// a refusal is the design's to hear of, not a failure of the store.
func (s *store) refusals() bool {
	var first error
	for _, c := range s.cmds {
		err := c.Err()
		switch {
		case err == nil || errors.Is(err, redis.Nil):
		case refusal(c, err):
			if first == nil {
				first = fmt.Errorf("%s: %w", strings.ToUpper(c.Name()), strategies.ErrCrossSlot)
			}
		default:
			return false
		}
	}
	if s.refused == nil {
		s.refused = first
	}
	return first != nil
}

// Refused returns the error of the first command a cluster refused since
// the last call (CROSSSLOT: "PFMERGE: CROSSSLOT Keys in request don't hash
// to the same slot", wrapping strategies.ErrCrossSlot), nil when none was
// ([strategies.Refuser]).
func (s *store) Refused() error {
	err := s.refused
	s.refused = nil
	return err
}

var _ strategies.Refuser = (*store)(nil)

// GetBytes is one GET of key's string, sent at once ([strategies.ByteReader]):
// a HyperLogLog's registers in Redis's encoding. It is an op, a read and a
// round trip, and its bytes are the string's length. A key not on the
// server appends nothing. After a failure it sends nothing and returns the
// store's error.
func (s *store) GetBytes(_ int64, key, tag uint64, dst []byte) ([]byte, error) {
	if s.failed != nil {
		return dst, s.failed
	}
	ks := s.key(key, tag)
	now := time.Now()
	if !s.started {
		s.started, s.start, s.first = true, now, now
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.b.cfg.Timeout)
	get := s.b.client.Get(ctx, ks.name)
	v, err := get.Bytes()
	cancel()
	reply := time.Now()
	if err != nil && !errors.Is(err, redis.Nil) {
		s.failWith(s.errorf("", []redis.Cmder{get}, err))
		return dst, s.failed
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = reply
	st := &s.stats
	st.Ops++
	st.Reads++
	st.RoundTrips++
	st.ReplyBytes += int64(len(v))
	st.Latency.Add(int64(reply.Sub(now)))
	s.nodeOps[ks.node]++
	return append(dst, v...), nil
}

var _ strategies.ByteReader = (*store)(nil)

// Traffic is what the store carried so far ([strategies.Metered]).
func (s *store) Traffic() strategies.Traffic {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strategies.Traffic{Ops: s.stats.Ops, RoundTrips: s.stats.RoundTrips, ReplyBytes: s.stats.ReplyBytes}
}

// errorf is err, which the call of cmds met (what the store was doing, if
// not sending a design's ops), naming the store and the node to blame
// ([Backend.nodeErr]).
func (s *store) errorf(what string, cmds []redis.Cmder, err error) error {
	err = s.b.nodeErr(s.ctx, cmds, err)
	if what != "" {
		return fmt.Errorf("redis store %s: %s: %w", s.b.cfg.URL, what, err)
	}
	return fmt.Errorf("redis store %s: %w", s.b.cfg.URL, err)
}

// failWith records the store's first error and reports it to the run.
func (s *store) failWith(err error) {
	if s.failed == nil {
		s.failed = err
		s.fail(err)
	}
}

// Final is the key's value: read back by Settle, or one GET before it (a
// design folding a stripe mid-run). An unknown key is 0.
func (s *store) Final(key uint64) int64 {
	k, ok := s.keys[key]
	if !ok {
		return 0
	}
	if s.settled || s.failed != nil {
		return k.final
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.b.cfg.Timeout)
	defer cancel()
	get := s.b.client.Get(ctx, k.name)
	v, err := get.Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		s.failWith(s.errorf("", []redis.Cmder{get}, err))
		return 0
	}
	return v
}

// Settle reads back every counter key and compares it with what was sent.
func (s *store) Settle() {
	if s.settled || s.failed != nil {
		return
	}
	s.b.refresh(s.ctx, s.storeFaults)
	var counters []*keyState
	for _, key := range s.order {
		if k := s.keys[key]; k.counter {
			counters = append(counters, k)
		}
	}
	for i := 0; i < len(counters); i += settleBatch {
		part := counters[i:min(len(counters), i+settleBatch)]
		cmds := make([]*redis.StringCmd, len(part))
		for j, k := range part {
			cmds[j] = s.pipe.Get(s.ctx, k.name)
		}
		ctx, cancel := context.WithTimeout(s.ctx, s.b.cfg.Timeout)
		sent, err := s.pipe.Exec(ctx)
		cancel()
		if err != nil && !errors.Is(err, redis.Nil) {
			s.failWith(s.errorf("reading back", sent, err))
			return
		}
		for j, k := range part {
			k.final, _ = cmds[j].Int64()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range counters {
		want := k.sent
		if k.client || k.once { // a repeated id is not applied again: compare with what was
			want = k.acked
			s.stats.Lost += max(0, k.acked-k.final)
			s.stats.Extra += max(0, k.final-k.acked)
		}
		if k.final != want {
			s.stats.Mismatch++
		}
	}
	s.settled = true
}

// Ranks answers competition ranks from the store's own sorted sets
// ([strategies.RankReader]): a player's score is its ZSCORE on the sorted set that
// holds it, its rank 1 + the members above it on every sorted set the
// store wrote (ZCOUNT key (score +inf), as a board sharded over them
// answers.
func (s *store) Ranks(players []uint64) (scores, ranks []int64, found []bool, err error) {
	if s.failed != nil {
		return nil, nil, nil, s.failed
	}
	var sets []*keyState
	for _, key := range s.order {
		if k := s.keys[key]; k.zset {
			sets = append(sets, k)
		}
	}
	scores, ranks, found = make([]int64, len(players)), make([]int64, len(players)), make([]bool, len(players))
	exec := func(what string) error {
		ctx, cancel := context.WithTimeout(s.ctx, s.b.cfg.Timeout)
		defer cancel()
		if sent, err := s.pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			s.failWith(s.errorf("reading ranks ("+what+")", sent, err))
			return s.failed
		}
		return nil
	}
	const part = 256 // players a pipeline
	for lo := 0; lo < len(players); lo += part {
		ps := players[lo:min(len(players), lo+part)]
		zs := make([]*redis.FloatCmd, len(ps)*len(sets))
		for i, p := range ps {
			m := strconv.FormatUint(p, 10)
			for j, k := range sets {
				zs[i*len(sets)+j] = s.pipe.ZScore(s.ctx, k.name, m)
			}
		}
		if err := exec("ZSCORE"); err != nil {
			return nil, nil, nil, err
		}
		for i := range ps {
			for j := range sets {
				if v, err := zs[i*len(sets)+j].Result(); err == nil {
					scores[lo+i], found[lo+i] = int64(v), true
				}
			}
		}
		cs := make([]*redis.IntCmd, len(ps)*len(sets))
		for i := range ps {
			above := "(" + strconv.FormatInt(scores[lo+i], 10)
			for j, k := range sets {
				cs[i*len(sets)+j] = s.pipe.ZCount(s.ctx, k.name, above, "+inf")
			}
		}
		if err := exec("ZCOUNT"); err != nil {
			return nil, nil, nil, err
		}
		for i := range ps {
			ranks[lo+i] = 1
			for j := range sets {
				ranks[lo+i] += cs[i*len(sets)+j].Val()
			}
		}
	}
	return scores, ranks, found, nil
}

var _ strategies.RankReader = (*store)(nil)

// Stats is what the store measured so far.
func (s *store) Stats() strategies.RealStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Keys = len(s.keys)
	st.Paced = s.paced
	if s.started {
		st.Wall = s.last.Sub(s.first)
	}
	if s.paced && !s.lastDue.IsZero() {
		st.Behind = max(0, s.last.Sub(s.lastDue))
	}
	keys := make([]int64, len(s.b.nodes))
	for _, k := range s.keys {
		keys[k.node]++
	}
	for i, a := range s.b.nodes {
		st.Nodes = append(st.Nodes, strategies.RealNode{Addr: a, Ops: s.nodeOps[i], Keys: keys[i]})
	}
	return st
}

// Close deletes the keys the store wrote, unless the backend keeps them.
// After a failure it tries once, bounded by the timeout.
func (s *store) Close() error {
	if s.b.cfg.Keep || len(s.order) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*s.b.cfg.Timeout)
	defer cancel()
	s.b.refresh(ctx, s.storeFaults)
	for i := 0; i < len(s.order); i += settleBatch {
		for _, key := range s.order[i:min(len(s.order), i+settleBatch)] {
			s.pipe.Unlink(ctx, s.keys[key].name)
		}
		if sent, err := s.pipe.Exec(ctx); err != nil {
			return fmt.Errorf("redis store %s: deleting the run's keys (%s*): %w", s.b.cfg.URL, s.prefix, s.b.nodeErr(ctx, sent, err))
		}
	}
	if err := s.deleteOnceKeys(ctx); err != nil {
		return fmt.Errorf("redis store %s: deleting the run's idempotency keys (%s*:id:*): %w", s.b.cfg.URL, s.prefix, err)
	}
	return nil
}
