package strategies

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"
)

// declaredMetrics reads the Metric constants of metricnames.go.
func declaredMetrics(t *testing.T) map[Metric]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "metricnames.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[Metric]bool{}
	for _, decl := range f.Decls {
		g, ok := decl.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			for _, v := range spec.(*ast.ValueSpec).Values {
				if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					s, _ := strconv.Unquote(lit.Value)
					out[Metric(s)] = true
				}
			}
		}
	}
	return out
}

// Every plan line of every design names its metric by one of the declared
// constants, which the runner's scorers use too: a name typed out anywhere
// would leave a measurement without its plan.
func TestPlansUseDeclaredMetrics(t *testing.T) {
	known := declaredMetrics(t)
	if len(known) < 50 {
		t.Fatalf("read %d metric names from metricnames.go", len(known))
	}
	figures := Assumptions{Events: 2e9, Keys: 4e8, EntryBytes: 100, ServerBytes: 64e9, DataFraction: 0.5, CounterBytes: 4,
		KthCount: 1.4e7, PeakRate: 200000, ReadRate: 5000, KeyCapacity: 10000, Headroom: 0.7, AppServers: 200}
	env := Env{Seed: 1, Keys: 1000, Events: 1e6, Top: 10, Full: figures, Sim: figures, Nodes: 4, Duration: 3600e9}
	params := map[string][]Param{
		"count-min":       {{Key: "epsilon", Value: 0.001}, {Key: "delta", Value: 0.01}, {Key: "top", Value: int64(10)}},
		"space-saving":    {{Key: "counters", Value: int64(100)}},
		"misra-gries":     {{Key: "counters", Value: int64(100)}},
		"heavykeeper":     {{Key: "top", Value: int64(10)}},
		"striped":         {{Key: "stripes", Value: int64(4)}, {Key: "grow_above", Value: int64(7000)}, {Key: "read", Value: "cache"}, {Key: "ttl", Value: "1s"}, {Key: "dedup", Value: "1s"}},
		"batched":         {{Key: "dedup", Value: "1s"}},
		"single-key":      {{Key: "dedup", Value: "1s"}},
		"sharded-board":   {{Key: "shards", Value: int64(8)}},
		"score-histogram": {{Key: "width", Value: int64(10)}},
		"node-local-topk": {{Key: "nodes", Value: int64(16)}},
		"cms-verify":      {{Key: "epsilon", Value: 0.0001}, {Key: "delta", Value: 0.01}},
	}
	for _, typ := range Types() {
		p, err := typ.Decode(params[typ.Name])
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		for _, l := range typ.Plan(p, env) {
			if !known[l.Metric] {
				t.Errorf("%s plans %q, not a declared metric", typ.Name, l.Metric)
			}
		}
	}
}

// The metric list KnownMetric reads holds every declared constant, once.
func TestMetricListIsComplete(t *testing.T) {
	declared := declaredMetrics(t)
	seen := map[Metric]bool{}
	for _, m := range metricList {
		if !declared[m] || seen[m] {
			t.Errorf("metricList: %q is not declared, or is listed twice", m)
		}
		seen[m] = true
	}
	for m := range declared {
		if !seen[m] {
			t.Errorf("metricList lacks %q", m)
		}
	}
	if !KnownMetric("max_overestimate") || KnownMetric("max_overestimates") {
		t.Error("KnownMetric: wrong answer for max_overestimate(s)")
	}
}
