package scenarios

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// faultDoc is a timed stream of 70 s on a cluster of 8 nodes before 4 app
// servers, with the fault entries given (the first at line 17).
func faultDoc(entries string) []byte {
	return []byte(tplus("assumptions: {app_servers: 4}", "cluster: {key_capacity: 1e4, nodes: 8}", "faults:") + entries + "\n")
}

// FuzzFaults decodes and checks fuzzed `faults:` entries of every kind: an
// error is an *Error at a line of the file; an accepted fault keeps every
// rule of rules.go — its kind's keys and no other's, within the stream and
// its end too, a node of the cluster, servers below app_servers, a share in
// (0,1), a lag that reaches back no further than the stream's start.
func FuzzFaults(f *testing.F) {
	for _, s := range []string{
		"  - {at: 30s, kind: node-down, node: 3, for: 10s}",
		"  - {at: 30s, kind: node-slow, node: 7, for: 10s, share: 0.25}",
		"  - {at: 30s, kind: partition, for: 1s, servers: [0, 3], nodes: [1, 2]}",
		"  - {at: 30s, kind: failover, node: 0, delay: 2s, lag: 100ms}",
		"  - {at: 30s, kind: failover, node: 0, delay: 2s}",
		"  - {at: 1s, kind: node-loss, node: 7}\n  - {at: 2s, kind: app-crash, server: 3}",
		"  - {at: 69s, kind: node-down, node: 3, for: 1s}",
		"  - {at: 30s, kind: node-down, node: 3, for: 10s, share: 0.5}",
		"  - {at: 30s, kind: partition, for: 1s, servers: [], nodes: [1]}",
		"  - {at: 30s, kind: partition, for: 1s, servers: [[1]], nodes: {a: 1}}",
		"  - at: 30s\n    kind: node-slow\n    node: 1\n    for: 1s\n    share: 1e-300",
		"  - {at: 1s, kind: failover, node: 0, delay: 2s, lag: 1.5s}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entries string) {
		data := faultDoc(entries)
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want an *Error", err, err)
			}
			if lines := lineAt(data, len(data)); e.Pos.File != "fuzz.yaml" || e.Pos.Line < 0 || e.Pos.Line > lines+1 {
				t.Fatalf("got error position %+v of %d lines: %v", e.Pos, lines, err)
			}
			// The rules' own errors say what is allowed; the decoder's about the
			// YAML itself (a key given twice, a missing key) name the key.
			generic := strings.Contains(e.Msg, "missing required key") || strings.Contains(e.Msg, "given twice") || strings.Contains(e.Msg, "YAML")
			if strings.Contains(e.Msg, "faults") && !generic && !strings.Contains(e.Msg, "allowed") {
				t.Fatalf("%v: want it to say what is allowed", err)
			}
			return
		}
		total := s.Run.Duration()
		for i, ft := range s.Faults {
			bad := func(why string) { t.Fatalf("fault %d %+v accepted: %s", i, ft, why) }
			if ft.At < 0 || ft.At >= total || (i > 0 && ft.At < s.Faults[i-1].At) {
				bad("not within the stream in time order")
			}
			given := map[string]bool{"server": ft.Server != 0, "node": ft.Node != 0, "for": ft.For != 0, "share": ft.Share != 0,
				"servers": ft.Servers != nil, "nodes": ft.Nodes != nil, "delay": ft.Delay != 0, "lag": ft.Lag != 0}
			var takes []string
			for _, fk := range faultKeys {
				if fk.kind == ft.Kind {
					takes = fk.keys
				}
			}
			if takes == nil {
				bad("unknown kind")
			}
			for key, g := range given {
				if g && !slices.Contains(takes, key) {
					bad("a key of another kind: " + key)
				}
			}
			if ft.Kind == "app-crash" {
				if ft.Target != ft.Server || ft.Server >= 4 {
					bad("server")
				}
				continue
			}
			if ft.Kind != "partition" && (ft.Target != ft.Node || ft.Node >= 8) {
				bad("node")
			}
			long := map[string]int64{"node-down": ft.For, "node-slow": ft.For, "partition": ft.For, "failover": ft.Delay}[ft.Kind]
			if ft.Kind != "node-loss" && (long <= 0 || ft.At+long > total) {
				bad("a duration of 0 or past the stream")
			}
			if ft.Kind == "node-slow" && !(ft.Share > 0 && ft.Share < 1) {
				bad("share")
			}
			if ft.Lag < 0 || ft.Lag > ft.At {
				bad("lag")
			}
			if ft.Kind == "partition" {
				if len(ft.Servers) == 0 || len(ft.Nodes) == 0 {
					bad("an empty side")
				}
				for j, n := range ft.Servers {
					if n < 0 || n >= 4 || slices.Index(ft.Servers, n) != j {
						bad("servers")
					}
				}
				for j, n := range ft.Nodes {
					if n < 0 || n >= 8 || slices.Index(ft.Nodes, n) != j {
						bad("nodes")
					}
				}
			}
		}
	})
}
