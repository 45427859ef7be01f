package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"testing"

	"countsim/internal/redistest"

	"github.com/redis/go-redis/v9"
)

// crc16Bitwise is CRC-16/XMODEM a bit at a time, as the polynomial
// division is defined: the oracle for the table, and the benchmark floor.
func crc16Bitwise(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// slotRef is the hash-slot rule written the plainest way, from the Redis
// Cluster specification.
func slotRef(key string) int {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			key = key[s+1 : s+1+e]
		}
	}
	return int(crc16Bitwise(key) % 16384)
}

// randomKey: 0 to 24 bytes, each any byte or, often, a brace, so that tags,
// empty tags, nested and unclosed braces all occur; a quarter of the keys
// get a well-formed tag inside.
func randomKey(r *rand.Rand) string {
	part := func() string {
		b := make([]byte, r.IntN(13))
		for i := range b {
			switch r.IntN(8) {
			case 0:
				b[i] = '{'
			case 1:
				b[i] = '}'
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		return string(b)
	}
	if r.IntN(4) == 0 {
		return part() + "{user" + strconv.Itoa(r.IntN(50)) + "}" + part()
	}
	return part() + part()
}

func TestCRC16(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint16
	}{
		{"", 0},
		{"123456789", 0x31C3}, // the check value of CRC-16/XMODEM
		{"A", 0x58E5},
	} {
		if got := crc16(tc.in); got != tc.want {
			t.Errorf("crc16(%q) = %#04x, want %#04x", tc.in, got, tc.want)
		}
		if got := crc16Bitwise(tc.in); got != tc.want {
			t.Errorf("crc16Bitwise(%q) = %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	// The table against the bitwise division: every single byte, then
	// seeded random strings.
	for b := range 256 {
		if got, want := crc16(string([]byte{byte(b)})), crc16Bitwise(string([]byte{byte(b)})); got != want {
			t.Fatalf("crc16(%#02x) = %#04x, bitwise %#04x", b, got, want)
		}
	}
	r := rand.New(rand.NewPCG(1, 13))
	for range 2000 {
		k := randomKey(r)
		if got, want := crc16(k), crc16Bitwise(k); got != want {
			t.Fatalf("crc16(%q) = %#04x, bitwise %#04x", k, got, want)
		}
	}
}

func TestSlot(t *testing.T) {
	for _, tc := range []struct {
		key, hashed string // the key, and the part of it that is hashed
	}{
		{"", ""},
		{"foo", "foo"},
		{"bar", "bar"},
		{"{user1000}.following", "user1000"},
		{"{user1000}.followers", "user1000"},
		{"foo{}{bar}", "foo{}{bar}"}, // the first tag is empty: the whole key
		{"foo{{bar}}zap", "{bar"},    // from the first '{' to the first '}' after it
		{"foo{bar}{zap}", "bar"},     // only the first tag counts
		{"{}", "{}"},
		{"{", "{"},
		{"}{a}", "a"},
		{"a{b", "a{b"},
		{"a}b{", "a}b{"},
		{"{{}}", "{"},
		{"x{y}", "y"},
	} {
		t.Run("key="+tc.key, func(t *testing.T) {
			want := int(crc16Bitwise(tc.hashed) % 16384)
			if got := Slot(tc.key); got != want {
				t.Errorf("Slot(%q) = %d, want %d (CRC16 of %q)", tc.key, got, want, tc.hashed)
			}
		})
	}
	// Slots that Redis itself gives (CLUSTER KEYSLOT on redis-server 7.0).
	for key, want := range map[string]int{"foo": 12182, "bar": 5061} {
		if got := Slot(key); got != want {
			t.Errorf("Slot(%q) = %d, want %d", key, got, want)
		}
	}
	if a, b := Slot("{user1000}.following"), Slot("{user1000}.followers"); a != b {
		t.Errorf("keys with tag {user1000}: slots %d and %d, want the same", a, b)
	}
	r := rand.New(rand.NewPCG(2, 13))
	for range 5000 {
		k := randomKey(r)
		if got, want := Slot(k), slotRef(k); got != want {
			t.Fatalf("Slot(%q) = %d, the plain rule %d", k, got, want)
		}
	}
}

func TestSlotAllocs(t *testing.T) {
	keys := []string{"", "foo", "{user1000}.following", "foo{{bar}}zap", strings.Repeat("k", 300)}
	var sink int
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			sink += Slot(k)
		}
	}); n != 0 {
		t.Errorf("Slot allocates %v times per run, want 0", n)
	}
	_ = sink
}

// TestSlotCluster checks Slot against a real Redis Cluster of three
// masters: for 2,000 seeded random keys (binary bytes, braces, tags),
// CLUSTER KEYSLOT equals Slot, and of the three nodes, exactly the one that
// CLUSTER SHARDS names for Slot(key) stores a SET of it; the other two answer
// MOVED with that slot and that node.
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
		keys[k] = randomKey(r)
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
		if got, want := Slot(key), int(slots[k].Val()); got != want {
			t.Errorf("Slot(%q) = %d, CLUSTER KEYSLOT %d", key, got, want)
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
			s := Slot(key)
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

// BenchmarkSlot: the table-driven Slot beside the floor, the same rule
// with a bitwise CRC (slotRef), on 16-byte keys, a quarter of them tagged.
func BenchmarkSlot(b *testing.B) {
	r := rand.New(rand.NewPCG(4, 13))
	keys := make([]string, 1024)
	for k := range keys {
		keys[k] = fmt.Sprintf("item:%011d", r.Uint64N(1e11))
		if k%4 == 0 {
			keys[k] = fmt.Sprintf("{u%06d}:%08d", r.IntN(1e6), r.IntN(1e8))
		}
	}
	for _, impl := range []struct {
		name string
		slot func(string) int
	}{{"floor", slotRef}, {"countsim", Slot}} {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.ReportAllocs()
			var sink int
			for b.Loop() {
				for _, k := range keys {
					sink += impl.slot(k)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(keys)), "ns/event")
			_ = sink
		})
	}
}
