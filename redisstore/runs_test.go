package redisstore_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"countsim/internal/redistest"
	"countsim/metrics"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/strategies"
)

// These tests run scenarios through package sim with their designs on
// servers twinned on a real redis-server (or a three-master cluster) that
// each test starts on loopback ports of its own and stops by its PID
// (internal/redistest). Without redis-server they fail with how to install
// it; they never skip. They are an external test: package redisstore
// itself stands beside sim and imports none of it.

// connect connects a backend to url, closed at the test's end.
func connect(t *testing.T, cfg redisstore.Config) *redisstore.Backend {
	t.Helper()
	b, err := redisstore.Connect(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// runOn runs the scenario yaml with its designs on servers twinned on b.
func runOn(t *testing.T, yaml string, b strategies.Backend) (*sim.Report, error) {
	t.Helper()
	scn, err := scenarios.Parse("t.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sim.Prepare(scn, sim.Options{Store: b})
	if err != nil {
		t.Fatal(err)
	}
	return st.Run(context.Background())
}

// value is the one simulated-scale measured row of a design's metric.
func value(t *testing.T, rep *sim.Report, design string, m metrics.Metric) float64 {
	t.Helper()
	for _, r := range metrics.Select(rep.Results, design, m, metrics.Sim) {
		if r.Value != nil {
			return *r.Value
		}
	}
	t.Fatalf("no measured %s row for %s", m, design)
	return 0
}

// sentEvery checks that twin sent the real store one op a write and per
// ops a read (a GET a stripe, a ZCOUNT a shard).
func sentEvery(t *testing.T, rep *sim.Report, twin string, writes, reads, per float64) {
	t.Helper()
	if ops, want := value(t, rep, twin, metrics.StoreOps), writes+per*reads; ops != want {
		t.Errorf("%s sent %v ops, want %v writes + %v × %v reads", twin, ops, writes, per, reads)
	}
}

// TestCountsOnRedisAreTheTruth: on a real server, single-key and striped
// end at exactly the truth and batched at the truth less what the crash
// lost, the same as on the simulated cluster (the same ops in the same
// order); every op of the design reached the server (store_ops: a write an
// INCRBY, a read one GET a stripe); every key reads back as the sum of its
// increments; and the run's keys are gone afterwards.
func TestCountsOnRedisAreTheTruth(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b := connect(t, redisstore.Config{URL: "redis://" + srv.Addr})
	rep, err := runOn(t, viewsYAML, b)
	if err != nil {
		t.Fatal(err)
	}
	writes := value(t, rep, "truth", metrics.Writes)
	reads := value(t, rep, "truth", metrics.Reads)
	for _, c := range []struct {
		design  string
		stripes float64
	}{{"single-key", 1}, {"striped-32", 32}} {
		twin := c.design + "@redis"
		if e := value(t, rep, twin, metrics.CountError); e != 0 {
			t.Errorf("%s count error %v, want 0", twin, e)
		}
		sentEvery(t, rep, twin, writes, reads, c.stripes)
	}
	sim, real := value(t, rep, "batched-1s", metrics.CountError), value(t, rep, "batched-1s@redis", metrics.CountError)
	if real >= 0 || real != sim {
		t.Errorf("batched-1s count error %v on Redis, %v simulated: want the same loss, below 0", real, sim)
	}
	for _, d := range []string{"single-key@redis", "striped-32@redis", "batched-1s@redis"} {
		if m := value(t, rep, d, metrics.StoreMismatch); m != 0 {
			t.Errorf("%s: %v keys read back other than the sum sent", d, m)
		}
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	if n, err := c.DBSize(context.Background()).Result(); err != nil || n != 0 {
		t.Errorf("%d keys left on the server (%v), want 0: a run deletes its keys", n, err)
	}
}

// TestKeepLeavesTheRunsKeys: with Keep, the run's keys stay, all under the
// backend's prefix, one a stripe.
func TestKeepLeavesTheRunsKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b := connect(t, redisstore.Config{URL: "redis://" + srv.Addr, Keep: true, Pace: redisstore.PaceMax})
	yaml := strings.Replace(strings.Replace(viewsYAML, "3s", "500ms", 1), "1.5s", "250ms", 1)
	if _, err := runOn(t, yaml, b); err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: srv.Addr})
	defer c.Close()
	keys, err := c.Keys(context.Background(), "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	prefixed := 0
	for _, k := range keys {
		if strings.HasPrefix(k, b.Prefix()) {
			prefixed++
		}
	}
	// single-key 1, striped-32 32, batched-1s 1 (one stripe).
	if len(keys) != 34 || prefixed != 34 {
		t.Errorf("%d keys kept, %d under %s: want 34, all under it", len(keys), prefixed, b.Prefix())
	}
}

// TestServerGoneStopsTheRun: a server killed mid-run stops it within
// seconds with the store's error and a partial report.
func TestServerGoneStopsTheRun(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b := connect(t, redisstore.Config{URL: "redis://" + srv.Addr})
	yaml := strings.Replace(viewsYAML, "3s", "30s", 1)
	time.AfterFunc(time.Second, srv.Kill)
	t0 := time.Now()
	rep, err := runOn(t, yaml, b)
	took := time.Since(t0)
	if err == nil || !strings.Contains(err.Error(), srv.Addr) {
		t.Fatalf("error %v, want the store's naming %s", err, srv.Addr)
	}
	if rep == nil || !rep.Partial {
		t.Errorf("report %v, want a partial one", rep)
	}
	if took > 10*time.Second {
		t.Errorf("the run took %s to stop after the server was killed at 1 s", took)
	}
}

// TestUnreachableStores: a refused connection and a cluster not yet created
// are errors naming the store, at once.
func TestUnreachableStores(t *testing.T) {
	t.Parallel()
	node := redistest.ClusterNode(t)
	for _, c := range []struct{ url, want string }{
		{"redis://127.0.0.1:1", "connection refused"},
		{"redis-cluster://" + node.Addr, "the cluster is not ready"},
	} {
		t0 := time.Now()
		b, err := redisstore.Connect(context.Background(), redisstore.Config{URL: c.url})
		if err == nil {
			b.Close()
			t.Errorf("%s: connected, want an error", c.url)
			continue
		}
		if !strings.Contains(err.Error(), c.url) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want it named and %q", c.url, err, c.want)
		}
		if d := time.Since(t0); d > 3*redisstore.DefaultTimeout {
			t.Errorf("%s: the error took %s", c.url, d)
		}
	}
	for _, bad := range []string{"http://x:1", "redis-cluster://nohost", "redis://"} {
		if err := redisstore.CheckURL(bad); err == nil || !strings.Contains(err.Error(), "allowed: redis://host:port") {
			t.Errorf("redisstore.CheckURL(%q) = %v, want the allowed forms", bad, err)
		}
	}
}

// TestHashTagTrapOnACluster: on three masters, 32 stripes without a tag
// spread over every node; with a tag they share one slot, one node takes
// every op and the others none. Both count exactly.
func TestHashTagTrapOnACluster(t *testing.T) {
	t.Parallel()
	cl := redistest.Cluster(t)
	b := connect(t, redisstore.Config{URL: cl.URL})
	if len(b.Nodes()) != 3 {
		t.Fatalf("nodes %v, want 3", b.Nodes())
	}
	rep, err := runOn(t, `name: tags
seed: 4
workload:
  keys: 1
  phases: [{duration: 2s, rate: 10_000}]
  reads: 200
cluster: {nodes: 3, key_capacity: 10_000}
strategies:
  - name: spread
    type: striped
    params: {stripes: 32}
  - name: tagged
    type: striped
    params: {stripes: 32, hashtag: true}
`, b)
	if err != nil {
		t.Fatal(err)
	}
	if n := value(t, rep, "spread@redis", metrics.NodesUsed); n != 3 {
		t.Errorf("untagged stripes on %v nodes, want 3", n)
	}
	if n := value(t, rep, "tagged@redis", metrics.NodesUsed); n != 1 {
		t.Errorf("tagged stripes on %v nodes, want 1", n)
	}
	if lo := value(t, rep, "tagged@redis", metrics.NodeOpsMin); lo != 0 {
		t.Errorf("the idlest node took %v ops/s of the tagged stripes, want 0", lo)
	}
	for _, d := range []string{"spread@redis", "tagged@redis"} {
		if e := value(t, rep, d, metrics.CountError); e != 0 {
			t.Errorf("%s count error %v", d, e)
		}
	}
	// A flush of writes and reads goes to every node untagged, to one tagged.
	if s, g := value(t, rep, "spread@redis", metrics.RoundTrips), value(t, rep, "tagged@redis", metrics.RoundTrips); s < 2.5*g {
		t.Errorf("round trips: %v spread, %v tagged; want about 3 to 1", s, g)
	}
	// The simulated cluster holds each design's keys and takes its ops on
	// the nodes the real one does, node for node.
	for _, d := range []string{"spread", "tagged"} {
		sim, real := nodeTable(t, rep, d), nodeTable(t, rep, d+"@redis")
		if len(sim) != 3 || len(real) != 3 {
			t.Fatalf("%s: per-node tables of %d and %d rows, want 3", d, len(sim), len(real))
		}
		for j := range sim {
			if sim[j][1] != real[j][1] || sim[j][2] != real[j][2] {
				t.Errorf("%s node %d: %v keys and %v ops simulated, %v and %v on the real cluster", d, j, sim[j][1], sim[j][2], real[j][1], real[j][2])
			}
		}
	}
}

// nodeTable is the rows (node, keys, ops[, ops_per_s]) of the per-node
// table of design d in rep.
func nodeTable(t *testing.T, rep *sim.Report, d string) [][]float64 {
	t.Helper()
	for _, tb := range rep.Tables {
		if tb.Name == "nodes-"+d {
			if !slices.Equal(tb.Columns[:3], []string{"node", "keys", "ops"}) {
				t.Fatalf("%s: columns %v", tb.Name, tb.Columns)
			}
			return tb.Rows
		}
	}
	t.Fatalf("no per-node table of %s", d)
	return nil
}

// TestRedisHLLAgainstTheTruth: the same ids into countsim's HLL and PFADD
// on a real server: PFCOUNT of each day and of their PFMERGE is within
// 5.3σ of the truth (σ = 1.04/√16384 = 0.81%: a correct HLL fails less
// than once in a million runs), and Redis's estimates are its own, not the
// simulated store's (another hash).
func TestRedisHLLAgainstTheTruth(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b := connect(t, redisstore.Config{URL: "redis://" + srv.Addr})
	rep, err := runOn(t, `name: aud
seed: 2
workload:
  audience:
    days:
      - viewers: 1_000_000
      - viewers: 950_000
        overlap: 750_000
strategies:
  - name: hll
    type: hll
  - name: pf
    type: redis-hll
`, b)
	if err != nil {
		t.Fatal(err)
	}
	rows := func(d string) []metrics.Result {
		rs := metrics.Select(rep.Results, d, metrics.Distinct, metrics.Sim)
		if len(rs) != 4 {
			t.Fatalf("%s: %d distinct rows, want day 1, day 2, their sum, their union", d, len(rs))
		}
		return []metrics.Result{rs[0], rs[1], rs[3]}
	}
	const bound = 5.3 * 0.0081
	simulated := rows("pf")
	for i, r := range rows("pf@redis") {
		if rel := *r.Value / *r.Plan - 1; rel > bound || rel < -bound {
			t.Errorf("PFCOUNT %s: %v against %v (%+.2f%%)", r.Note, *r.Value, *r.Plan, 100*rel)
		}
		if *r.Value == *simulated[i].Value {
			t.Errorf("PFCOUNT %s = the simulated store's %v: not Redis's own", r.Note, *r.Value)
		}
	}
	if ops := value(t, rep, "pf@redis", metrics.StoreOps); ops < 1_950_000 {
		t.Errorf("%v ops sent, want a PFADD of each of 1,950,000 views and more", ops)
	}
}

// TestBoardsOnRedis: a sorted set and a board sharded over 4 sorted sets on
// a real server take every score change as ZINCRBY or ZADD and every rank
// query as ZCOUNTs; afterwards Redis's own ZSCORE and 1 + Σ ZCOUNT give
// every checked player's true score and competition rank.
func TestBoardsOnRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.Server(t)
	b := connect(t, redisstore.Config{URL: "redis://" + srv.Addr, Pace: redisstore.PaceMax})
	rep, err := runOn(t, `name: board
seed: 6
workload:
  keys: 50_000
  phases: [{duration: 4s, rate: 10_000}]
  reads: 100
  scores: {delta_min: 1, delta_max: 10, set_share: 0.01, set_max: 200}
  checked: 500
cluster: {nodes: 4, key_capacity: 10_000}
questions: {top: 10}
strategies:
  - name: one
    type: sorted-set
  - name: four
    type: sharded-board
    params: {shards: 4}
`, b)
	if err != nil {
		t.Fatal(err)
	}
	writes := value(t, rep, "truth", metrics.Writes)
	reads := value(t, rep, "truth", metrics.RankQueries)
	for _, c := range []struct {
		design string
		shards float64
	}{{"one", 1}, {"four", 4}} {
		twin := c.design + "@redis"
		if v := value(t, rep, twin, metrics.StoreScores); v != 0 {
			t.Errorf("%s: %v checked players' scores on Redis are not the truth's", twin, v)
		}
		if v := value(t, rep, twin, metrics.StoreRanks); v != 0 {
			t.Errorf("%s: %v checked players' ranks by Redis's ZCOUNTs are not the truth's", twin, v)
		}
		sentEvery(t, rep, twin, writes, reads, c.shards)
		if k := value(t, rep, twin, metrics.KeysUsed); k != c.shards {
			t.Errorf("%s used %v keys, want %v", twin, k, c.shards)
		}
	}
}

// viewsYAML is the cricket final's step 1 at a tenth of its rate for 3 s:
// a single key, 32 stripes and batching with a crash, on 8 simulated nodes.
const viewsYAML = `name: views
seed: 1
assumptions: {key_capacity: 10_000, headroom: 0.7, app_servers: 200}
workload:
  keys: 1
  arrivals: poisson
  phases: [{duration: 3s, rate: 20_000}]
  reads: 500
cluster: {nodes: 8}
faults: [{at: 1.5s, kind: app-crash, server: 7}]
strategies:
  - name: single-key
    type: single-key
  - name: striped-32
    type: striped
    params: {stripes: 32, select: random}
  - name: batched-1s
    type: batched
    params: {servers: 200, flush: 1s, read: cache, ttl: 1s}
`
