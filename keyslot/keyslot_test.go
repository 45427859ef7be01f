package keyslot

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"countsim/internal/redistest"
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

var randomKey = redistest.RandomKey

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

func TestOf(t *testing.T) {
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
			if got := Of(tc.key); got != want {
				t.Errorf("Of(%q) = %d, want %d (CRC16 of %q)", tc.key, got, want, tc.hashed)
			}
			if got := Of([]byte(tc.key)); got != want {
				t.Errorf("Of([]byte(%q)) = %d, want %d", tc.key, got, want)
			}
		})
	}
	// Slots that Redis itself gives (CLUSTER KEYSLOT on redis-server 7.0);
	// redisstore's TestSlotCluster asks a real cluster for 2,000 more.
	for key, want := range map[string]int{"foo": 12182, "bar": 5061} {
		if got := Of(key); got != want {
			t.Errorf("Of(%q) = %d, want %d", key, got, want)
		}
	}
	r := rand.New(rand.NewPCG(2, 13))
	for range 5000 {
		k := randomKey(r)
		if got, want := Of(k), slotRef(k); got != want {
			t.Fatalf("Of(%q) = %d, the plain rule %d", k, got, want)
		}
	}
}

func TestOfAllocs(t *testing.T) {
	keys := []string{"", "foo", "{user1000}.following", "foo{{bar}}zap", strings.Repeat("k", 300)}
	var buf [64]byte
	var sink int
	if n := testing.AllocsPerRun(100, func() {
		for _, k := range keys {
			sink += Of(k)
			sink += Of(append(buf[:0], k[:min(len(k), 64)]...))
		}
	}); n != 0 {
		t.Errorf("Of allocates %v times per run, want 0", n)
	}
	_ = sink
}

// TestRanges: the ranges redis-cli 7.0.15 printed for n masters
// ("Master[i] -> Slots first - last"; redisstore's tests read them back
// from real clusters), then for every n up to 16384 that the ranges are
// contiguous, cover every slot once, and hold 16384/n slots each, give or
// take the drift of the tool's single-precision cursor (one slot up to
// 1,024 masters, 1.6 at 4,096).
func TestRanges(t *testing.T) {
	for n, want := range map[int][]Range{
		1: {{0, 16383}},
		3: {{0, 5460}, {5461, 10922}, {10923, 16383}},
		4: {{0, 4095}, {4096, 8191}, {8192, 12287}, {12288, 16383}},
		5: {{0, 3276}, {3277, 6553}, {6554, 9829}, {9830, 13106}, {13107, 16383}},
		6: {{0, 2730}, {2731, 5460}, {5461, 8191}, {8192, 10922}, {10923, 13652}, {13653, 16383}},
		7: {{0, 2340}, {2341, 4680}, {4681, 7021}, {7022, 9361}, {9362, 11702}, {11703, 14042}, {14043, 16383}},
		8: {{0, 2047}, {2048, 4095}, {4096, 6143}, {6144, 8191}, {8192, 10239}, {10240, 12287}, {12288, 14335}, {14336, 16383}},
	} {
		got, err := Ranges(n)
		if err != nil {
			t.Fatalf("Ranges(%d): %v", n, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("Ranges(%d) = %v, want %v", n, got, want)
		}
	}
	for n := 1; n <= MaxMasters; n++ {
		rs, err := Ranges(n)
		if err != nil {
			t.Fatalf("Ranges(%d): %v", n, err)
		}
		next := 0
		for i, r := range rs {
			size, want := float64(r.Last-r.First+1), float64(Count)/float64(n)
			drift := 1.0
			if n > 1024 {
				drift = 2
			}
			if r.First != next || r.Last < r.First || size < want-drift || size > want+drift {
				t.Fatalf("Ranges(%d)[%d] = %v after slot %d: not the next %v slots", n, i, r, next-1, float64(Count)/float64(n))
			}
			next = r.Last + 1
		}
		if next != Count {
			t.Fatalf("Ranges(%d) ends at slot %d, want 16383", n, next-1)
		}
	}
	for _, n := range []int{0, -1, MaxMasters + 1} {
		if _, err := Ranges(n); err == nil || !strings.Contains(err.Error(), "want 1..4096") {
			t.Errorf("Ranges(%d): %v, want an error naming 1..4096", n, err)
		}
	}
}

func TestOwner(t *testing.T) {
	for _, n := range []int{1, 3, 7, 8, 1000} {
		rs, _ := Ranges(n)
		for s := range Count {
			i := Owner(rs, s)
			if i < 0 || rs[i].First > s || rs[i].Last < s {
				t.Fatalf("Owner(Ranges(%d), %d) = %d", n, s, i)
			}
		}
		if Owner(rs, -1) != -1 || Owner(rs, Count) != -1 {
			t.Errorf("Owner(Ranges(%d)) of a slot out of range is not -1", n)
		}
	}
}

// BenchmarkOf: the table-driven Of beside the floor, the same rule with a
// bitwise CRC (slotRef), on 16-byte keys, a quarter of them tagged.
func BenchmarkOf(b *testing.B) {
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
	}{{"floor", slotRef}, {"countsim", Of[string]}} {
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
