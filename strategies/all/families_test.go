package all

import (
	"errors"
	"testing"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
)

// Every type's declared families are what its built values implement, and
// a type says it counts distinct ids exactly when it does: the runner
// refuses designs by family before building any.
func TestDeclaredFamilies(t *testing.T) {
	raw := map[string][]scenarios.Param{
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
	implements := map[strategies.Family]func(strategies.Strategy) bool{
		strategies.FamilyPointCounter:   func(s strategies.Strategy) bool { _, ok := s.(strategies.PointCounter); return ok },
		strategies.FamilyTopK:           func(s strategies.Strategy) bool { _, ok := s.(strategies.TopK); return ok },
		strategies.FamilyDistinct:       func(s strategies.Strategy) bool { _, ok := s.(strategies.Distinct); return ok },
		strategies.FamilyReader:         func(s strategies.Strategy) bool { _, ok := s.(strategies.Reader); return ok },
		strategies.FamilyRank:           func(s strategies.Strategy) bool { _, ok := s.(strategies.Ranker); return ok },
		strategies.FamilyBoard:          func(s strategies.Strategy) bool { _, ok := s.(strategies.Board); return ok },
		strategies.FamilyRating:         func(s strategies.Strategy) bool { _, ok := s.(strategies.Rating); return ok },
		strategies.FamilyTrending:       func(s strategies.Strategy) bool { _, ok := s.(strategies.Trending); return ok },
		strategies.FamilyWindowDistinct: func(s strategies.Strategy) bool { _, ok := s.(strategies.WindowDistinct); return ok },
	}
	for _, typ := range strategies.Types() {
		p, err := designtest.DecodeParams(typ, raw[typ.Name])
		if err != nil {
			t.Fatalf("%s: %v", typ.Name, err)
		}
		env := strategies.Env{Seed: 1, Keys: 100, Events: 1000, Store: designtest.NewMemStore(t), Nodes: 4, Duration: 60e9} // Nodes: the split-stream designs take theirs from it; Duration: the trending ones
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
		if typ.Answers(strategies.FamilyDistinct) != implements[strategies.FamilyDistinct](s) {
			t.Errorf("%s: declares distinct %v, implements it %v", typ.Name, typ.Answers(strategies.FamilyDistinct), !typ.Answers(strategies.FamilyDistinct))
		}
		if typ.Promises() != strategies.PromiseNone && !typ.Answers(strategies.FamilyTopK) {
			t.Errorf("%s promises a top-K answer but does not answer top-K", typ.Name)
		}
		if typ.Promises() == strategies.PromiseAbove {
			found := false
			for _, l := range typ.Plan(p, env) {
				found = found || l.Metric == metrics.GuaranteeAbove && !l.Full
			}
			if !found {
				t.Errorf("%s promises every key above its guarantee_threshold but plans none", typ.Name)
			}
		}
		if typ.OnServers() {
			if err := typ.Check(p, env, false); !errors.Is(err, strategies.ErrNeedsCluster) {
				t.Errorf("%s without a store: got %v, want ErrNeedsCluster", typ.Name, err)
			}
		}
	}
	// batched without servers needs the assumptions' app_servers.
	typ, _ := strategies.Lookup("batched")
	p, _ := designtest.DecodeParams(typ, nil)
	var pe *strategies.ParamError
	if err := typ.Check(p, strategies.Env{}, true); !errors.As(err, &pe) || pe.Key != "servers" {
		t.Errorf("batched without servers: got %v, want a servers error", err)
	}
	if err := typ.Check(p, strategies.Env{Full: strategies.Assumptions{AppServers: 200}}, true); err != nil {
		t.Errorf("batched with app_servers 200: %v", err)
	}
}
