package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"testing"

	"countsim/internal/redistest"
	"countsim/keyslot"

	"github.com/redis/go-redis/v9"
)

// TestSlotCluster checks keyslot.Of, the slot both stores place a key by,
// against a real Redis Cluster of three masters: for 2,000 seeded random
// keys (binary bytes, braces, tags), CLUSTER KEYSLOT equals keyslot.Of,
// and of the three nodes, exactly the one that CLUSTER SHARDS names for
// keyslot.Of(key) stores a SET of it; the other two answer MOVED with that
// slot and that node.
func TestSlotCluster(t *testing.T) {
	c := redistest.Cluster(t)
	ctx := context.Background()
	clients := make([]*redis.Client, len(c.Nodes))
	for k, n := range c.Nodes {
		clients[k] = redis.NewClient(&redis.Options{Addr: n.Addr, MaxRetries: -1})
		defer clients[k].Close()
	}

	r := rand.New(rand.NewPCG(3, 13))
	keys := make([]string, 2000)
	for k := range keys {
		keys[k] = redistest.RandomKey(r)
	}

	pipe := clients[0].Pipeline()
	slots := make([]*redis.IntCmd, len(keys))
	for k, key := range keys {
		slots[k] = pipe.ClusterKeySlot(ctx, key)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatalf("CLUSTER KEYSLOT: %v", err)
	}
	for k, key := range keys {
		if got, want := keyslot.Of(key), int(slots[k].Val()); got != want {
			t.Errorf("keyslot.Of(%q) = %d, CLUSTER KEYSLOT %d", key, got, want)
		}
	}
	if t.Failed() {
		return
	}

	shards, err := clients[0].ClusterShards(ctx).Result()
	if err != nil {
		t.Fatalf("CLUSTER SHARDS: %v", err)
	}
	var owner [16384]string
	for _, sh := range shards {
		for _, n := range sh.Nodes {
			if n.Role != "master" {
				continue
			}
			for _, rg := range sh.Slots {
				for s := rg.Start; s <= rg.End; s++ {
					owner[s] = net.JoinHostPort(n.IP, strconv.FormatInt(n.Port, 10))
				}
			}
		}
	}
	for s, a := range owner {
		if a == "" {
			t.Fatalf("CLUSTER SHARDS: slot %d has no master", s)
		}
	}

	for k, n := range c.Nodes {
		pipe := clients[k].Pipeline()
		sets := make([]*redis.StatusCmd, len(keys))
		for j, key := range keys {
			sets[j] = pipe.Set(ctx, key, j, 0)
		}
		_, _ = pipe.Exec(ctx) // MOVED for the keys of other nodes: checked one by one
		for j, key := range keys {
			s := keyslot.Of(key)
			err := sets[j].Err()
			switch {
			case owner[s] == n.Addr && err != nil:
				t.Errorf("SET %q (slot %d) on its node %s: %v", key, s, n.Addr, err)
			case owner[s] != n.Addr && (err == nil || err.Error() != fmt.Sprintf("MOVED %d %s", s, owner[s])):
				t.Errorf("SET %q (slot %d, node %s) on %s: %v; want MOVED %d %s", key, s, owner[s], n.Addr, err, s, owner[s])
			}
		}
	}
}
