package redisstore

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"countsim/internal/redistest"
	"countsim/strategies"
)

// These tests look inside one pipeline of the store, on a real
// redis-server or a three-master cluster that each test starts on loopback
// ports of its own and stops by its PID (internal/redistest), and read back
// what Redis itself holds or counted. Without redis-server they fail with
// how to install it; they never skip.

// direct is a client of the store at url that is not the store's, for
// reading back what the store wrote.
func direct(t *testing.T, url string) redis.UniversalClient {
	t.Helper()
	opts, addrs, err := parseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	var c redis.UniversalClient
	if opts != nil {
		c = redis.NewClient(&redis.Options{Addr: opts.Addr})
	} else {
		c = redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// keysOn returns n key ids of store s whose keys (untagged) are on node.
func keysOn(t *testing.T, s *store, node, n int) []uint64 {
	t.Helper()
	var ids []uint64
	for id := uint64(1); len(ids) < n; id++ {
		if id > 1<<16 {
			t.Fatalf("no %d keys on node %d", n, node)
		}
		if s.b.nodeOf(s.name(id, 0)) == node {
			ids = append(ids, id)
		}
	}
	return ids
}

// TestInterleavedKeysInOnePipeline: two HyperLogLogs and two counters
// interleaved in one pipeline (PFADD a, PFADD b, INCRBY x, INCRBY y, PFADD
// a, …, with runs of PFADDs to one key and repeated ids) end on Redis as
// what was sent to each: PFCOUNT of each key, read by another client, is
// the number of distinct ids sent to it (Redis's HLL is exact at these
// sizes: a few dozen elements in 16,384 registers, sparse encoding, for
// these fixed ids), and each counter is the sum of its increments. So is
// what the pipeline's own PFCOUNTs and GETs returned. On one server, and on
// three masters with a and b on different nodes, x and y too.
func TestInterleavedKeysInOnePipeline(t *testing.T) {
	t.Parallel()
	t.Run("server", func(t *testing.T) {
		t.Parallel()
		checkInterleaved(t, "redis://"+redistest.Server(t).Addr)
	})
	t.Run("cluster", func(t *testing.T) {
		t.Parallel()
		checkInterleaved(t, redistest.Cluster(t).URL)
	})
}

func checkInterleaved(t *testing.T, url string) {
	ctx := context.Background()
	b, err := Connect(ctx, Config{URL: url, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newStore(ctx, b, "mix", false, func(err error) { t.Errorf("store failed: %v", err) })
	defer s.Close()
	// a and b on different nodes of a cluster, x and y too.
	last := len(b.Nodes()) - 1
	first, other := keysOn(t, s, 0, 4), keysOn(t, s, last, 4) // the same on one server
	ha, hb, cx, cy := first[0], other[1], other[2], first[3]

	rng := rand.New(rand.NewPCG(24, 1))
	distinct := map[uint64]map[uint64]bool{ha: {}, hb: {}}
	sums := map[uint64]int64{}
	var ops []strategies.StoreOp
	pfadd := func(key uint64, lo, n int) {
		id := uint64(lo + rng.IntN(n)) // repeats: n ids for many adds
		distinct[key][id] = true
		ops = append(ops, strategies.StoreOp{Kind: strategies.PFAdd, Key: key, Member: id})
	}
	incr := func(key uint64) {
		d := int64(1 + rng.IntN(9))
		sums[key] += d
		ops = append(ops, strategies.StoreOp{Kind: strategies.IncrBy, Key: key, Delta: d})
	}
	for i := range 200 {
		// ids 0..59 to a, 40..139 to b: 20 ids go to both.
		pfadd(ha, 0, 60)
		pfadd(hb, 40, 100)
		if i%7 == 0 { // a run of PFADDs to one key: one PFADD of several elements
			pfadd(ha, 0, 60)
			pfadd(ha, 0, 60)
		}
		incr(cx)
		incr(cy)
	}
	ops = append(ops,
		strategies.StoreOp{Kind: strategies.PFCount, Key: ha}, strategies.StoreOp{Kind: strategies.PFCount, Key: hb},
		strategies.StoreOp{Kind: strategies.Get, Key: cx}, strategies.StoreOp{Kind: strategies.Get, Key: cy})
	if len(ops) > pipeMaxOps {
		t.Fatalf("%d ops: more than one pipeline", len(ops))
	}
	vals := make([]int64, len(ops))
	s.Do(ops, vals)
	if st := s.Stats(); st.Ops != int64(len(ops)) || st.Writes != int64(len(ops)-4) || st.Reads != 4 {
		t.Errorf("stats: %d ops, %d writes, %d reads; want %d, %d, 4", st.Ops, st.Writes, st.Reads, len(ops), len(ops)-4)
	}

	c := direct(t, url)
	n := len(ops) - 4
	for i, key := range []uint64{ha, hb} {
		name, want := s.keys[key].name, int64(len(distinct[key]))
		got, err := c.PFCount(ctx, name).Result()
		if err != nil || got != want {
			t.Errorf("PFCOUNT %s (HLL %d) = %d, %v; want the %d distinct ids sent to it", name, i, got, err, want)
		}
		if vals[n+i] != want {
			t.Errorf("the pipeline's PFCOUNT of HLL %d returned %d, want %d", i, vals[n+i], want)
		}
	}
	for i, key := range []uint64{cx, cy} {
		name, want := s.keys[key].name, sums[key]
		got, err := c.Get(ctx, name).Int64()
		if err != nil || got != want {
			t.Errorf("GET %s (counter %d) = %d, %v; want the sum of its increments, %d", name, i, got, err, want)
		}
		if vals[n+2+i] != want {
			t.Errorf("the pipeline's GET of counter %d returned %d, want %d", i, vals[n+2+i], want)
		}
	}
}

// TestRoundTripsPerPipeline: on three masters, a paced store sends each
// group of ops (2 ms of simulated time apart) as one pipeline, one round
// trip to each node it has keys on. Two batches of such pipelines, over
// nodes drawn at random (every pipeline to 1, 2 or 3 of them): the round
// trips the store counts in each batch are the pipelines the nodes
// received in it, read from each node's INFO (total_reads_processed, less
// the reads of every command that is not the store's: INFO itself, a
// go-redis CLUSTER SLOTS), and the second batch's count does not carry the
// first's nodes.
func TestRoundTripsPerPipeline(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	ctx := context.Background()
	b, err := Connect(ctx, Config{URL: cl.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	nodes := b.Nodes()
	if len(nodes) != 3 {
		t.Fatalf("nodes %v, want 3", nodes)
	}
	s := newStore(ctx, b, "rt", true, func(err error) { t.Errorf("store failed: %v", err) })
	defer s.Close()
	keys := make([][]uint64, len(nodes))
	for n := range nodes {
		keys[n] = keysOn(t, s, n, 3)
	}
	infos := make([]*redis.Client, len(nodes))
	for n, a := range nodes {
		infos[n] = redis.NewClient(&redis.Options{Addr: a})
		defer infos[n].Close()
	}
	// received is, for each node, its read events so far less the calls of
	// commands other than the store's INCRBY and GET.
	received := func() []int64 {
		r := make([]int64, len(nodes))
		for n, c := range infos {
			info, err := c.Info(ctx, "stats", "commandstats").Result()
			if err != nil {
				t.Fatal(err)
			}
			var reads, others int64
			for line := range strings.Lines(info) {
				line = strings.TrimSpace(line)
				if v, ok := strings.CutPrefix(line, "total_reads_processed:"); ok {
					reads, _ = strconv.ParseInt(v, 10, 64)
				}
				cmd, rest, ok := strings.Cut(strings.TrimPrefix(line, "cmdstat_"), ":calls=")
				if !ok || !strings.HasPrefix(line, "cmdstat_") || cmd == "incrby" || cmd == "get" {
					continue
				}
				calls, _ := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
				others += calls
			}
			r[n] = reads - others
		}
		return r
	}

	rng := rand.New(rand.NewPCG(24, 2))
	var at int64
	// batch is one Do of pipelines over the nodes drawn at random, and the
	// round trips it should take.
	batch := func(pipelines int) (ops []strategies.StoreOp, vals []int64, want int64) {
		for range pipelines {
			to := rng.Perm(len(nodes))[:1+rng.IntN(len(nodes))]
			for _, n := range to {
				for range 1 + rng.IntN(4) {
					k := keys[n][rng.IntN(len(keys[n]))]
					ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: k, Delta: 1})
				}
				ops = append(ops, strategies.StoreOp{At: at, Kind: strategies.Get, Key: keys[n][0]})
			}
			want += int64(len(to))
			at += 2 * pipeWindow
		}
		return ops, make([]int64, len(ops)), want
	}
	// A first pipeline to every node, so that every connection is open
	// before anything is measured.
	warm := make([]strategies.StoreOp, len(nodes))
	for n := range nodes {
		warm[n] = strategies.StoreOp{At: at, Kind: strategies.Get, Key: keys[n][0]}
	}
	s.Do(warm, make([]int64, len(warm)))
	at += 2 * pipeWindow

	for i, pipelines := range []int{8, 12} {
		ops, vals, want := batch(pipelines)
		before, counted0 := received(), s.Stats().RoundTrips
		t0 := time.Now()
		s.Do(ops, vals)
		took := time.Since(t0)
		after, counted := received(), s.Stats().RoundTrips-counted0
		var got int64
		per := make([]int64, len(nodes))
		for n := range nodes {
			per[n] = after[n] - before[n]
			got += per[n]
		}
		if counted != got {
			t.Errorf("batch %d of %d pipelines: the store counted %d round trips, the nodes received %d (%v by node)", i+1, pipelines, counted, got, per)
		}
		if got != want {
			t.Errorf("batch %d: the nodes received %d pipelines (%v by node), want %d: the measure is off, or Do split its ops otherwise (in %s)", i+1, got, per, want, took)
		}
	}
}

// TestRefusedCommandNamesItsNode: a command the server refuses (a ZINCRBY
// on a HyperLogLog, a string: WRONGTYPE) fails the store with the node and the
// command named, not as a node gone away.
func TestRefusedCommandNamesItsNode(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b, err := Connect(context.Background(), Config{URL: "redis://" + srv.Addr, Pace: PaceMax})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var failed error
	s := newStore(context.Background(), b, "d", false, func(err error) { failed = err })
	defer s.Close()
	s.Do([]strategies.StoreOp{{Kind: strategies.PFAdd, Key: 1, Member: 7}, {Kind: strategies.ZIncrBy, Key: 1, Member: 7, Delta: 1}}, nil)
	if failed == nil || !strings.Contains(failed.Error(), "node "+srv.Addr+": ZINCRBY: WRONGTYPE") || strings.Contains(failed.Error(), "went away") {
		t.Errorf("error %v, want the node and ZINCRBY named with Redis's WRONGTYPE", failed)
	}
}
