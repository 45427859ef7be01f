package redisstore

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// FuzzParseURL: parseURL never panics; a URL it accepts is one form or the
// other (options of one server, or a cluster's addresses, never both) and
// every address in it is host:port with a host and a port in 1..65535 (a
// one-server URL's database at least 0); a URL it refuses gets an error
// that quotes it and says the forms allowed. CheckURL says the same.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://127.0.0.1:6379", "redis://127.0.0.1:6379/2", "redis://user:pw@h:1/0", "redis://h",
		"redis://[::1]:7000", "redis://", "redis:///0", "redis://:1", "redis://h:0", "redis://h:99999",
		"redis://h:1/-1", "redis://h:1?db=3", "redis://h:1/x", "redis://h:1/0/1", "rediss://h:1",
		"redis-cluster://127.0.0.1:7001,127.0.0.1:7002", "redis-cluster://", "redis-cluster://h:1,",
		"redis-cluster://nohost", "redis-cluster://:1", "redis-cluster://h:abc", "redis-cluster://[::1]:7000",
		"http://x:1", "", "unix:///tmp/redis.sock",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		opts, addrs, err := parseURL(raw)
		if cerr := CheckURL(raw); (cerr == nil) != (err == nil) {
			t.Fatalf("CheckURL(%q) = %v, parseURL %v", raw, cerr, err)
		}
		if err != nil {
			if opts != nil || addrs != nil {
				t.Errorf("parseURL(%q): error %v with options %v and addresses %q", raw, err, opts, addrs)
			}
			if msg := err.Error(); !strings.Contains(msg, urlForms) || !strings.Contains(msg, strconv.Quote(raw)) {
				t.Errorf("parseURL(%q): %q: want it quoted and %q", raw, msg, urlForms)
			}
			return
		}
		if (opts == nil) == (addrs == nil) {
			t.Fatalf("parseURL(%q): options %v and addresses %q: want exactly one", raw, opts, addrs)
		}
		if opts != nil {
			if !strings.HasPrefix(raw, "redis://") {
				t.Errorf("parseURL(%q): one server's options without redis://", raw)
			}
			if opts.DB < 0 {
				t.Errorf("parseURL(%q): database %d", raw, opts.DB)
			}
			addrs = []string{opts.Addr}
		} else if !strings.HasPrefix(raw, "redis-cluster://") || len(addrs) == 0 {
			t.Errorf("parseURL(%q): cluster addresses %q", raw, addrs)
		}
		for _, a := range addrs {
			host, port, err := net.SplitHostPort(a)
			p, perr := strconv.Atoi(port)
			if err != nil || host == "" || perr != nil || p < 1 || p > 65535 {
				t.Errorf("parseURL(%q): address %q is not host:port with a port in 1..65535 (%v)", raw, a, err)
			}
		}
	})
}
