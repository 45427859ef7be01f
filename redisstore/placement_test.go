package redisstore_test

import (
	"context"
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"countsim/internal/redistest"
	"countsim/keyslot"
	"countsim/metrics"
	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/sim"
	"countsim/strategies"
)

// The simulated cluster places a design's keys where a real Redis Cluster
// does: these tests run the built-in scenarios' designs on the simulated
// cluster and, as twins, on a real loopback cluster of as many masters
// made by redis-cli (internal/redistest), and check every key the twins
// wrote — its CLUSTER KEYSLOT against the slot the simulation gives its
// name, the master holding it against the simulation's node — and that
// each node holds as many of a design's keys and took as many of its ops
// in both.

// runStep runs scn (a built-in scenario, or one step of it) with its
// designs on servers twinned on b, shortened to a stream of dur ns (and
// keys players, where not 0): the keys of the designs do not depend on the
// stream's length.
func runStep(t *testing.T, scn *scenarios.Scenario, b strategies.Backend, dur int64, keys uint64) *sim.Report {
	t.Helper()
	var timed *scenarios.Timed
	switch r := scn.Run.(type) {
	case *scenarios.Timed:
		timed = r
	case *scenarios.Board:
		timed = &r.Timed
	default:
		t.Fatalf("%s: a %T, want a timed stream or a board", scn.Name, scn.Run)
	}
	timed.Phases = timed.Phases[:1]
	timed.Phases[0].Duration = dur
	if keys > 0 {
		timed.Keys = keys
	}
	st, err := sim.Prepare(scn, sim.Options{Store: b})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// step is the step named name of built-in scenario file, or the file
// itself when name is "".
func step(t *testing.T, file, name string) *scenarios.Scenario {
	t.Helper()
	scn, err := scenarios.Builtin(file)
	if err != nil {
		t.Fatal(err)
	}
	if name == "" {
		return scn
	}
	for _, s := range scn.Steps {
		if s.Step == name {
			return s
		}
	}
	t.Fatalf("%s has no step %q", file, name)
	return nil
}

// checkRanges checks that master i of b (in the order of their first
// slots) serves exactly the i-th range redis-cli gives n masters, as
// CLUSTER SHARDS tells, and that b's masters are the cluster's.
func checkRanges(t *testing.T, cl *redistest.ClusterInstance, b *redisstore.Backend) []keyslot.Range {
	t.Helper()
	n := len(cl.Nodes)
	want, err := keyslot.Ranges(n)
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: cl.Nodes[0].Addr, MaxRetries: -1})
	defer c.Close()
	shards, err := c.ClusterShards(context.Background()).Result()
	if err != nil {
		t.Fatalf("CLUSTER SHARDS: %v", err)
	}
	got := map[string][]redis.SlotRange{}
	for _, sh := range shards {
		for _, nd := range sh.Nodes {
			if nd.Role == "master" {
				got[net.JoinHostPort(nd.IP, strconv.FormatInt(nd.Port, 10))] = sh.Slots
			}
		}
	}
	nodes := b.Nodes()
	if len(nodes) != n || len(got) != n {
		t.Fatalf("the backend's masters %v, CLUSTER SHARDS's %d: want %d", nodes, len(got), n)
	}
	for i, a := range nodes {
		if r := got[a]; len(r) != 1 || r[0].Start != int64(want[i].First) || r[0].End != int64(want[i].Last) {
			t.Errorf("master %d (%s) serves %v, redis-cli's range %d is %v", i, a, r, i, want[i])
		}
		if a != cl.Nodes[i].Addr {
			t.Errorf("master %d is %s, the %d-th node given to redis-cli %s", i, a, i, cl.Nodes[i].Addr)
		}
	}
	return want
}

// placedKey is a key the real store wrote: its name there, the master
// that holds it and its design's name of it.
type placedKey struct {
	name, design string
	node         int
	key, tag     uint64
}

// realKeys scans every master of the cluster for the keys under prefix and
// reads back each one's design name of it: after the prefix and the twin's
// name, {KEY} for an untagged key, {TAG}:KEY for a tagged one.
func realKeys(t *testing.T, b *redisstore.Backend) []placedKey {
	t.Helper()
	ctx := context.Background()
	var keys []placedKey
	for i, a := range b.Nodes() {
		c := redis.NewClient(&redis.Options{Addr: a, MaxRetries: -1})
		iter := c.Scan(ctx, 0, b.Prefix()+"*", 1000).Iterator()
		for iter.Next(ctx) {
			name := iter.Val()
			rest := strings.TrimPrefix(name, b.Prefix())
			design, kname, ok := strings.Cut(rest, ":")
			if !ok {
				t.Fatalf("key %q: no design in its name", name)
			}
			k := placedKey{name: name, design: design, node: i}
			var err error
			if tag, key, tagged := strings.Cut(kname, "}:"); tagged {
				k.tag, err = strconv.ParseUint(strings.TrimPrefix(tag, "{"), 16, 64)
				if err == nil {
					k.key, err = strconv.ParseUint(key, 16, 64)
				}
			} else {
				k.key, err = strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(kname, "{"), "}"), 16, 64)
			}
			if err != nil {
				t.Fatalf("key %q: %v", name, err)
			}
			keys = append(keys, k)
		}
		if err := iter.Err(); err != nil {
			t.Fatalf("SCAN %s: %v", a, err)
		}
		c.Close()
	}
	return keys
}

// checkKeys checks every key the twins wrote: CLUSTER KEYSLOT of its real
// name is the slot the simulation places its design name in, and the
// master that holds it is the simulated node of that slot. It returns
// each design's keys on each node.
func checkKeys(t *testing.T, cl *redistest.ClusterInstance, b *redisstore.Backend, ranges []keyslot.Range) map[string][]int {
	t.Helper()
	keys := realKeys(t, b)
	c := redis.NewClient(&redis.Options{Addr: cl.Nodes[0].Addr, MaxRetries: -1})
	defer c.Close()
	pipe := c.Pipeline()
	slots := make([]*redis.IntCmd, len(keys))
	for i, k := range keys {
		slots[i] = pipe.ClusterKeySlot(context.Background(), k.name)
	}
	if _, err := pipe.Exec(context.Background()); err != nil {
		t.Fatalf("CLUSTER KEYSLOT: %v", err)
	}
	perNode := map[string][]int{}
	for i, k := range keys {
		slot := keyslot.Of(strategies.KeyName(k.key, k.tag))
		if got := int(slots[i].Val()); got != slot {
			t.Errorf("%s: CLUSTER KEYSLOT %d, the simulation's slot of %s %d", k.name, got, strategies.KeyName(k.key, k.tag), slot)
		}
		if node := keyslot.Owner(ranges, slot); node != k.node {
			t.Errorf("%s: on master %d, the simulation's node of slot %d is %d", k.name, k.node, slot, node)
		}
		if perNode[k.design] == nil {
			perNode[k.design] = make([]int, len(ranges))
		}
		perNode[k.design][k.node]++
	}
	return perNode
}

// sameNodes checks that the simulated cluster and the real one hold as many
// of design d's keys, and took as many of its ops, on each node, and that
// the real store's keys on each node are those its table says.
func sameNodes(t *testing.T, rep *sim.Report, d string, real []int) {
	t.Helper()
	simT, realT := nodeTable(t, rep, d), nodeTable(t, rep, d+"@redis")
	if len(simT) != len(real) || len(realT) != len(real) {
		t.Fatalf("%s: tables of %d and %d nodes, the cluster has %d", d, len(simT), len(realT), len(real))
	}
	var keys []int
	for j := range simT {
		keys = append(keys, int(simT[j][1]))
		if simT[j][1] != realT[j][1] || simT[j][2] != realT[j][2] || int(realT[j][1]) != real[j] {
			t.Errorf("%s node %d: %v keys and %v ops simulated; %v and %v on the real cluster, %d keys found there",
				d, j, simT[j][1], simT[j][2], realT[j][1], realT[j][2], real[j])
		}
	}
	t.Logf("%s: keys on each of %d nodes, simulated and real: %v", d, len(real), keys)
}

// TestPlacementHashTags: the built-in hash-tags scenario on the simulated
// cluster of 3 nodes and on a real cluster of 3 masters: its 32 untagged
// stripes and its 32 tagged ones in the same slots and on the same nodes.
func TestPlacementHashTags(t *testing.T) {
	t.Parallel()
	cl := redistest.ClusterOf(t, 3)
	b := connect(t, redisstore.Config{URL: cl.URL, Pace: redisstore.PaceMax, Keep: true})
	ranges := checkRanges(t, cl, b)
	scn := step(t, "hash-tags", "")
	rep := runStep(t, scn, b, 1e9, 0)
	perNode := checkKeys(t, cl, b, ranges)
	for _, d := range []string{"striped-32", "striped-32-tagged"} {
		sameNodes(t, rep, d, perNode[d+"@redis"])
	}
	if n := perNode["striped-32-tagged@redis"]; n[0]+n[1]+n[2] != 32 || (n[0] != 32 && n[1] != 32 && n[2] != 32) {
		t.Errorf("the tagged stripes on the nodes %v, want all 32 on one", n)
	}
}

// TestPlacementBoard: the cricket final's board step on the simulated
// cluster of its 8 nodes and on a real cluster of 8 masters, and again on
// 3 of each (the step's cluster cut to 3 nodes): its sorted set and its two
// boards of 8 shards in the same slots and on the same nodes.
func TestPlacementBoard(t *testing.T) {
	t.Parallel()
	for _, masters := range []int{8, 3} {
		t.Run(fmt.Sprintf("%d masters", masters), func(t *testing.T) {
			t.Parallel()
			cl := redistest.ClusterOf(t, masters)
			b := connect(t, redisstore.Config{URL: cl.URL, Pace: redisstore.PaceMax, Keep: true})
			ranges := checkRanges(t, cl, b)
			scn := step(t, "cricket-final", "leaderboard")
			if scn.Cluster == nil || scn.Cluster.Nodes != 8 {
				t.Fatalf("the board's cluster %+v, want 8 nodes", scn.Cluster)
			}
			scn.Cluster.Nodes = masters
			rep := runStep(t, scn, b, 2e8, 100_000)
			perNode := checkKeys(t, cl, b, ranges)
			for _, d := range []string{"sorted-set", "sharded-8", "sharded-8-naive-dense"} {
				sameNodes(t, rep, d, perNode[d+"@redis"])
			}
		})
	}
}

// TestUnionsOnACluster: the cricket final's viewers step (its audience cut
// to 200,000 and 190,000 viewers) on the simulated cluster of 3 nodes and
// on a real cluster of 3 masters. The untagged days' PFMERGE is refused
// with CROSSSLOT on both, in the same words; the tagged days' multi-key
// PFCOUNT and the application's merge of each day's registers work on
// both, at the same cost on both: commands, round trips and bytes read
// back; and each design's keys are on as many nodes.
func TestUnionsOnACluster(t *testing.T) {
	t.Parallel()
	cl := redistest.ClusterOf(t, 3)
	b := connect(t, redisstore.Config{URL: cl.URL})
	scn := step(t, "cricket-final", "viewers")
	days := scn.Run.(*scenarios.Audience).Viewers.Days
	days[0].Viewers, days[1].Viewers, days[1].Overlap = 200_000, 190_000, 150_000
	st, err := sim.Prepare(scn, sim.Options{Store: b})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := st.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	note := func(d string, m metrics.Metric) string {
		for _, r := range metrics.Select(rep.Results, d, m, metrics.Sim) {
			return r.Note
		}
		return ""
	}
	for _, d := range []string{"redis-hll-pfmerge", "redis-hll-tagged", "redis-hll-app"} {
		for _, m := range []metrics.Metric{metrics.MergeRefused, metrics.UnionOps, metrics.UnionRoundTrips, metrics.UnionBytes, metrics.NodesUsed} {
			if s, r := value(t, rep, d, m), value(t, rep, d+"@redis", m); s != r {
				t.Errorf("%s %s: %v simulated, %v on the real cluster", d, m, s, r)
			}
		}
		t.Logf("%s: refused %v, union ops %v, round trips %v, bytes read %v, on %v nodes", d, value(t, rep, d, metrics.MergeRefused),
			value(t, rep, d, metrics.UnionOps), value(t, rep, d, metrics.UnionRoundTrips), value(t, rep, d, metrics.UnionBytes), value(t, rep, d, metrics.NodesUsed))
	}
	const refused = "refused: redis-hll: PFMERGE: CROSSSLOT Keys in request don't hash to the same slot"
	for _, d := range []string{"redis-hll-pfmerge", "redis-hll-pfmerge@redis"} {
		if value(t, rep, d, metrics.MergeRefused) != 1 || note(d, metrics.MergeRefused) != refused {
			t.Errorf("%s: merge_refused %v, %q; want 1, %q", d, value(t, rep, d, metrics.MergeRefused), note(d, metrics.MergeRefused), refused)
		}
	}
	for _, d := range []string{"redis-hll-tagged", "redis-hll-app", "redis-hll-tagged@redis", "redis-hll-app@redis"} {
		rs := metrics.Select(rep.Results, d, metrics.Distinct, metrics.Sim)
		u := rs[len(rs)-1]
		if !strings.HasPrefix(u.Note, "union of the days") || math.Abs(*u.Value / *u.Plan - 1) > 5.3*0.0081 {
			t.Errorf("%s: union %v (%s) against %v", d, *u.Value, u.Note, *u.Plan)
		}
	}
}
