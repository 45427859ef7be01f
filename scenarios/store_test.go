package scenarios

import "testing"

// TestStoreBlock: a store: block is read with its defaults, shared by the
// steps, and a malformed one is refused at its line with what is allowed.
func TestStoreBlock(t *testing.T) {
	s, err := Parse("x.yaml", []byte(plus("store:", "  url: redis-cluster://127.0.0.1:7001,127.0.0.1:7002")))
	if err != nil {
		t.Fatal(err)
	}
	if s.Store == nil || s.Store.URL != "redis-cluster://127.0.0.1:7001,127.0.0.1:7002" || s.Store.Pace != "real" || s.Store.Keep {
		t.Errorf("store %+v, want the cluster URL, pace real, keep false", s.Store)
	}
	s, err = Parse("x.yaml", []byte(plus("store: {url: 'redis://127.0.0.1:6379/2', pace: max, keep: true}")))
	if err != nil {
		t.Fatal(err)
	}
	if s.Store.Pace != "max" || !s.Store.Keep {
		t.Errorf("store %+v, want pace max, keep true", s.Store)
	}
	line := len(valid) + 2
	for _, c := range []struct {
		name string
		yaml string
		line int
		want string
	}{
		{"scheme", plus("store:", "  url: http://127.0.0.1:6379"), line, `store.url: "http://127.0.0.1:6379" is not a Redis URL (allowed: redis://host:port[/db] or redis-cluster://host:port,host:port,…)`},
		{"cluster node", plus("store:", "  url: redis-cluster://127.0.0.1"), line, `store.url: node "127.0.0.1"`},
		{"pace", plus("store:", "  url: redis://127.0.0.1:6379", "  pace: fast"), line + 1, `allowed: real, max`},
		{"no url", plus("store:", "  pace: max"), line - 1, `missing required key "url"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("cases/x.yaml", []byte(c.yaml))
			if err == nil {
				t.Fatalf("got %+v, want an error", s.Store)
			}
			mustError(t, err, "cases/x.yaml", c.line, c.want)
		})
	}
}
