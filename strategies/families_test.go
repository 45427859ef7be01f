package strategies

import (
	"errors"
	"testing"
)

// Every type's declared families are what its built values implement, and
// a type says it counts distinct ids exactly when it does: the runner
// refuses designs by family before building any.
func TestDeclaredFamilies(t *testing.T) {
	raw := map[string][]Param{
		"count-min":       {{Key: "epsilon", Value: 0.01}, {Key: "delta", Value: 0.1}},
		"space-saving":    {{Key: "counters", Value: int64(10)}},
		"misra-gries":     {{Key: "counters", Value: int64(10)}},
		"heavykeeper":     {{Key: "top", Value: int64(10)}},
		"striped":         {{Key: "stripes", Value: int64(4)}},
		"batched":         {{Key: "servers", Value: int64(4)}},
		"sharded-board":   {{Key: "shards", Value: int64(3)}},
		"score-histogram": {{Key: "width", Value: int64(5)}},
		"node-local-topk": {{Key: "nodes", Value: int64(4)}},
		"cms-verify":      {{Key: "epsilon", Value: 0.01}, {Key: "delta", Value: 0.1}, {Key: "candidates", Value: int64(20)}},
		"split-topk":      {{Key: "overfetch", Value: int64(10)}}, // the env asks no top-K question to take K' from
	}
	implements := map[Family]func(Strategy) bool{
		FamilyPointCounter:   func(s Strategy) bool { _, ok := s.(PointCounter); return ok },
		FamilyTopK:           func(s Strategy) bool { _, ok := s.(TopK); return ok },
		FamilyDistinct:       func(s Strategy) bool { _, ok := s.(Distinct); return ok },
		FamilyReader:         func(s Strategy) bool { _, ok := s.(Reader); return ok },
		FamilyRank:           func(s Strategy) bool { _, ok := s.(Ranker); return ok },
		FamilyBoard:          func(s Strategy) bool { _, ok := s.(Board); return ok },
		FamilyRating:         func(s Strategy) bool { _, ok := s.(Rating); return ok },
		FamilyTrending:       func(s Strategy) bool { _, ok := s.(Trending); return ok },
		FamilyWindowDistinct: func(s Strategy) bool { _, ok := s.(WindowDistinct); return ok },
	}
	for _, typ := range Types() {
		p, err := typ.Decode(raw[typ.Name])
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		env := Env{Seed: 1, Keys: 100, Events: 1000, Store: newMemStore(t), Nodes: 4, Duration: 60e9} // Nodes: the split-stream designs take theirs from it; Duration: the trending ones
		if err := typ.Check(p, env, true); err != nil {
			t.Fatalf("%s: Check: %v", typ.Name, err)
		}
		s, err := typ.Build(p, env)
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		for f, impl := range implements {
			if typ.Answers(f) && !impl(s) {
				t.Errorf("%s declares %s but a %T does not implement it", typ.Name, f, s)
			}
		}
		if typ.Answers(FamilyDistinct) != implements[FamilyDistinct](s) {
			t.Errorf("%s: declares distinct %v, implements it %v", typ.Name, typ.Answers(FamilyDistinct), !typ.Answers(FamilyDistinct))
		}
		if typ.Promises() != PromiseNone && !typ.Answers(FamilyTopK) {
			t.Errorf("%s promises a top-K answer but does not answer top-K", typ.Name)
		}
		if typ.Promises() == PromiseAbove {
			found := false
			for _, l := range typ.Plan(p, env) {
				found = found || l.Metric == MetricGuaranteeAbove && !l.Full
			}
			if !found {
				t.Errorf("%s promises every key above its guarantee_threshold but plans none", typ.Name)
			}
		}
		if typ.OnServers() {
			if err := typ.Check(p, env, false); !errors.Is(err, ErrNeedsCluster) {
				t.Errorf("%s without a store: got %v, want ErrNeedsCluster", typ.Name, err)
			}
		}
	}
	// batched without servers needs the assumptions' app_servers.
	typ, _ := Lookup("batched")
	p, _ := typ.Decode(nil)
	var pe *ParamError
	if err := typ.Check(p, Env{}, true); !errors.As(err, &pe) || pe.Key != "servers" {
		t.Errorf("batched without servers: got %v, want a servers error", err)
	}
	if err := typ.Check(p, Env{Full: Assumptions{AppServers: 200}}, true); err != nil {
		t.Errorf("batched with app_servers 200: %v", err)
	}
}
