package redisstore

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"countsim/internal/redistest"
	"countsim/strategies"
)

// The failover of a real Redis Cluster with replicas (issue 29): a driver
// sends writes at a fixed rate through DoClient, the store kills a master
// at the fault's time, Redis fails over, and the test counts, write by
// write, what was lost, what was applied twice and when writes flowed
// again.

// Figures of the failover run.
const (
	foRate     = 5000 // writes a second (a fifth with -short), half of them plain INCRBYs, half IncrByOnce
	foDuration = 10 * time.Second
	foKillAt   = 3 * time.Second
	foTimeout  = 100 * time.Millisecond // the client's (twice that with -short)
	// foBackoff is the plain writes' wait before their one retry: past the
	// failover, so that a retry of a write to the dead master's slots goes
	// to the promoted replica (a retry at once would meet the dead master
	// again and fail, and show no duplicate).
	foBackoff = 3 * time.Second
	// The IncrByOnce writes are retried every foOnceEvery until answered.
	foOnceEvery = 250 * time.Millisecond
	// foTick is the driver's step: its writes and retries due in a step go
	// as one DoClient call, one pipeline (a call a millisecond could not
	// keep up on a loaded 2-core machine, and a replay behind its schedule
	// by more than the timeout sees every op time out).
	foTick = 5 * time.Millisecond
	// foLagBound bounds the replication lag on loopback: a write lost in
	// the failover was acknowledged at most this long before the kill.
	// The master streams each write to its replica as it serves it; what
	// the kill can cut off is the replication buffer's last writes, well
	// within a millisecond on loopback, bounded here with room for a
	// loaded 2-core machine (a pipeline window, 1 ms, plus scheduling).
	foLagBound = 50 * time.Millisecond
	// foReloadMargin is the client's part of the recovery beyond Redis's
	// promotion (as WaitPromoted saw it, polling every 10 ms): its reload
	// of the slots after a failed pipeline, one CLUSTER SLOTS plus
	// go-redis's 200 ms cooldown between reloads, and the first write's
	// round trip, with room for a loaded machine.
	foReloadMargin = 1 * time.Second
	foKilled       = 1 // the node whose master dies
)

// foWrite is one logical write of the driver and what the client learned.
type foWrite struct {
	once     bool
	key      uint64 // plain: a key of its own; once: one of 30 shared counters
	attempts int
	acked    int       // attempts answered OpOK
	lastAck  time.Time // when the last attempt answered OpOK was answered
	next     int64     // sim time of the pending retry; 0: none
}

func TestFailoverOnARealCluster(t *testing.T) {
	t.Parallel()
	c := redistest.ReplicatedCluster(t, redistest.ReplicaOptions{})
	ctx := context.Background()
	b, err := Connect(ctx, Config{URL: c.URL, Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	fault := strategies.Fault{At: int64(foKillAt), Kind: strategies.Failover, Target: foKilled}

	// Without a killer the fault is refused, with the reason.
	probe := newStore(ctx, b, "probe", true, func(err error) { t.Errorf("store failed: %v", err) })
	if err := probe.StoreFaults([]strategies.Fault{fault}); !errors.Is(err, ErrNoKiller) {
		t.Fatalf("StoreFaults without a killer: %v, want ErrNoKiller", err)
	}
	if err := probe.StoreFaults([]strategies.Fault{{Kind: strategies.Failover, Target: 3}}); err == nil || !strings.Contains(err.Error(), "not in the cluster") {
		t.Fatalf("a failover of node 3 of 3: %v", err)
	}

	var killed time.Time
	type promotion struct {
		at  time.Time
		err error
	}
	promoted := make(chan promotion, 1)
	b.SetKiller(func(node int) error {
		killed = c.KillMaster(node)
		go func() {
			at, err := c.WaitPromoted(node, 30*time.Second)
			promoted <- promotion{at, err}
		}()
		return nil
	})
	s := newStore(ctx, b, "fo", true, func(err error) { t.Errorf("store failed: %v", err) })
	defer s.Close()
	if err := s.StoreFaults([]strategies.Fault{fault}); err != nil {
		t.Fatal(err)
	}

	rate, timeout := foRate, foTimeout
	if testing.Short() {
		// The -race -short pass: the race detector slows the driver down,
		// and a driver that falls behind by more than the timeout sees
		// every op time out (its deadline is its due time's).
		rate, timeout = foRate/5, 2*foTimeout
	}
	n := int(time.Duration(rate) * foDuration / time.Second)
	ws := make([]foWrite, n)
	for i := range ws {
		ws[i].once = i%2 == 1
		if ws[i].once {
			ws[i].key = 1 + uint64(i/2%30)
		} else {
			ws[i].key = 1<<32 + uint64(i)
		}
	}
	perTick := int(time.Duration(rate) * foTick / time.Second)
	var ops []strategies.StoreOp
	var who []int
	status := make([]strategies.OpStatus, 0, 64)
	var retries []int // writes with a retry pending, in no order
	client := strategies.Client{Timeout: int64(timeout)}
	// A step's writes are due at its time, or now where the driver has
	// fallen behind (a loaded machine): an app sends what it has when it
	// can, and its timeout runs from then — a replay that sent its ops at
	// times already past would see them all time out.
	sentN, at := 0, int64(0)
	var t0 time.Time
	for sentN < n || len(retries) > 0 {
		if t0.IsZero() {
			t0 = time.Now()
		} else {
			at = max(at+int64(foTick), int64(time.Since(t0)))
		}
		ops, who = ops[:0], who[:0]
		kept := retries[:0]
		for _, i := range retries {
			if ws[i].next <= at {
				who = append(who, i)
			} else {
				kept = append(kept, i)
			}
		}
		retries = kept
		for due := min(n, int(at/int64(foTick)+1)*perTick); sentN < due; sentN++ {
			who = append(who, sentN)
		}
		for _, i := range who {
			w := &ws[i]
			w.attempts++
			if w.once {
				ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.IncrByOnce, Key: w.key, Delta: 1, Member: uint64(i)})
			} else {
				ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: w.key, Delta: 1})
			}
		}
		if len(ops) == 0 {
			continue
		}
		if cap(status) < len(ops) {
			status = make([]strategies.OpStatus, len(ops))
		}
		status = status[:len(ops)]
		s.DoClient(client, ops, nil, status)
		answered := time.Now()
		for k, i := range who {
			w := &ws[i]
			switch {
			case status[k] == strategies.OpOK:
				w.acked++
				w.lastAck = answered
			case w.once:
				w.next = at + int64(foOnceEvery)
				retries = append(retries, i)
			case w.attempts == 1:
				w.next = at + int64(foBackoff)
				retries = append(retries, i)
			}
		}
		if at > int64(3*foDuration) {
			t.Fatalf("writes still unanswered at %v", time.Duration(at))
		}
	}
	s.Settle()
	if killed.IsZero() {
		t.Fatal("the store never killed the master")
	}

	// Plain writes, each on a key of its own: its value is how many of its
	// attempts landed.
	var lost, dups, retried, failed, extra int
	var lag time.Duration
	for i := range ws {
		w := &ws[i]
		if w.once {
			continue
		}
		v := int(s.keys[w.key].final)
		if v > w.attempts {
			t.Fatalf("write %d: %d applied of %d attempts: the client retried behind the driver's back", i, v, w.attempts)
		}
		if w.attempts > 1 {
			retried++
		}
		failed += w.attempts - w.acked
		if v > w.acked {
			extra += v - w.acked
		}
		if v < w.acked {
			lost += w.acked - v
			// A lost write was acknowledged just before the kill.
			d := killed.Sub(w.lastAck)
			lag = max(lag, d)
			if d < 0 || d > foLagBound {
				t.Errorf("write %d lost, acknowledged %v before the kill; want within [0, %v]", i, d, foLagBound)
			}
		}
		if v == 2 {
			dups++ // retried, and its first attempt had landed
		}
	}

	// IncrByOnce writes: each applied at most once; the counters hold
	// exactly the writes whose idempotency key is on the store.
	var present, sentOnce, lostOnce int
	var exists []*redis.IntCmd
	pipe := b.client.Pipeline()
	for i := range ws {
		if ws[i].once {
			sentOnce++
			exists = append(exists, pipe.Exists(ctx, onceKey(s.keys[ws[i].key].name, uint64(i))))
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("reading the idempotency keys: %v", err)
	}
	k := 0
	for i := range ws {
		if !ws[i].once {
			continue
		}
		if exists[k].Val() == 1 {
			present++
		} else if ws[i].acked > 0 {
			lostOnce++
		} else {
			t.Errorf("once-write %d never acknowledged after %d attempts", i, ws[i].attempts)
		}
		k++
	}
	var onceFinal int64
	for key := uint64(1); key <= 30; key++ {
		onceFinal += s.keys[key].final
	}

	out := s.Outages()
	if len(out) != 1 {
		t.Fatalf("outages %v, want 1", out)
	}
	rec := time.Duration(out[0].Recovered - out[0].Fault.At)
	st := s.Stats()
	t.Logf("failover of node %d at %v: %d plain writes (%d retried), %d once-writes", foKilled, foKillAt, n-sentOnce, retried, sentOnce)
	t.Logf("plain: attempts failed %d, lost %d (lag window %v), landed unacknowledged %d, duplicates %d", failed, lost, lag, extra, dups)
	t.Logf("once: final %d, idempotency keys %d, lost %d, sent %d", onceFinal, present, lostOnce, sentOnce)
	t.Logf("store: failed %d, lost %d, extra %d; outage: failed %d, lost %d, recovered %v after the kill", st.Failed, st.Lost, st.Extra, out[0].Failed, out[0].Lost, rec)

	if onceFinal != int64(present) {
		t.Errorf("once counters %d, idempotency keys %d: the script's SET and INCRBY came apart", onceFinal, present)
	}
	if onceFinal != int64(sentOnce-lostOnce) {
		t.Errorf("once counters %d, want sent %d − lost %d", onceFinal, sentOnce, lostOnce)
	}
	if failed == 0 || out[0].Failed == 0 {
		t.Errorf("no write failed (driver %d, store %d): the kill did not reach the writes", failed, out[0].Failed)
	}
	if int64(lost+lostOnce) != st.Lost {
		t.Errorf("store's Lost %d, the driver's %d + %d", st.Lost, lost, lostOnce)
	}
	if int64(extra) > st.Extra {
		t.Errorf("store's Extra %d < the plain writes' unacknowledged landings %d", st.Extra, extra)
	}
	// Writes flow again once the replica is the master and the client has
	// reloaded the slots: not before the node timeout, and within
	// foReloadMargin of the promotion Redis made (its own time, which a
	// loaded machine stretches by a failed election: redistest's test
	// bounds it).
	p := <-promoted
	if p.err != nil {
		t.Fatal(p.err)
	}
	promo := p.at.Sub(killed)
	t.Logf("replica promoted %v after the kill; writes flowed again %v after the kill (the last failed op: %v)", promo, rec, s.storeFaults[0].lastErr)
	if lo, hi := c.NodeTimeout, promo+foReloadMargin; rec < lo || rec > hi {
		t.Errorf("writes flowed again %v after the kill, want within [node timeout %v, promotion %v + %v]", rec, lo, promo, foReloadMargin)
	}
}
