package hot

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// FuzzStripedPredict takes the prediction of a striped counter's first K
// the whole way from a scenario's params, where FuzzPredictTable stops at
// the table's text: the raw parameters (stripes, predict, per_followers,
// protected_factor, max_stripes, each given or not; predict as a string or
// as a number, which YAML makes of an unquoted 5) decoded by scenarios'
// DecodeParams into StripedParams, then the type's Validate. It checks:
//
//   - a refusal is a *scenarios.Error at the line of the parameter its path
//     names (the entry's for one missing), or a *strategies.ParamError
//     naming a parameter of the design; predict is refused here when, and
//     only when, PredictTable.UnmarshalText refuses its text;
//   - a prediction accepted gives, for an author's followers f (public, and
//     protected: f × protected_factor), the K of the table's largest
//     threshold not above f, or ⌈f / per_followers⌉, clamped to
//     stripes..max_stripes; K never falls as f grows; a counter built with
//     the parameters starts at that K on its key's first event;
//   - the plan's E[K] over a law of followers (uniform on 1..M, a quarter
//     of the posts protected) is the mean of those K over the law.
//
// Followers stay below 2^40 (the posts workload has at most 10^9): above
// 2^53 a follower count is not exact in the float64 the rule compares.
func FuzzStripedPredict(f *testing.F) {
	// The rules of scenarios/viral-posts.yaml, and edges.
	f.Add(uint8(0b01011), "0:1, 700000:2, 1400000:4, 2800000:8, 5600000:16, 11200000:32", 0.0, 0.3, int64(1), int64(0), uint64(1_000_000))
	f.Add(uint8(0b01101), "", 700_000.0, 0.3, int64(1), int64(0), uint64(12_345_678))
	f.Add(uint8(0b10011), "0:1,10000:4,1000000:32", 0.0, 0.0, int64(2), int64(16), uint64(10_000))
	f.Add(uint8(0b00111), "0:1", 10.0, 0.0, int64(1), int64(0), uint64(5))
	f.Add(uint8(0b10101), "", 0.5, 0.0, int64(4), int64(2), uint64(9))
	f.Add(uint8(0b00011), "0:0", 0.0, 0.0, int64(1), int64(0), uint64(0))
	f.Add(uint8(0b00011), "1:2,1:3", 0.0, 0.0, int64(1), int64(0), uint64(1))
	f.Add(uint8(0b00011), "18446744073709551615:65536", 0.0, 0.0, int64(65536), int64(65536), uint64(1<<40-1))
	f.Add(uint8(0b100001), "5", 0.0, 0.0, int64(1), int64(0), uint64(3))
	f.Add(uint8(0b01001), "", 0.0, 0.5, int64(1), int64(0), uint64(3))
	f.Add(uint8(0b00010), "0:1", 0.0, 0.0, int64(0), int64(0), uint64(3))
	f.Add(uint8(0b01101), "", 10.0, 0.1, int64(1), int64(0), uint64(100))
	f.Add(uint8(0b01011), "0:1,3:2,30:4", 0.0, 0.1, int64(1), int64(0), uint64(300))
	f.Fuzz(func(t *testing.T, given uint8, predict string, per, factor float64, stripes, maxStripes int64, followers uint64) {
		const file, entryLine = "f.yaml", 5
		line := map[string]int{}
		var params []scenarios.Param
		add := func(bit uint8, key string, v any) {
			if given&(1<<bit) == 0 {
				return
			}
			line[key] = 10 + int(bit)
			params = append(params, scenarios.Param{Key: key, Value: v, Pos: scenarios.Pos{File: file, Line: line[key], Col: 7}})
		}
		add(0, "stripes", stripes)
		if given&(1<<5) != 0 {
			add(1, "predict", int64(len(predict))) // an unquoted number
		} else {
			add(1, "predict", predict)
		}
		add(2, "per_followers", per)
		add(3, "protected_factor", factor)
		add(4, "max_stripes", maxStripes)

		var p StripedParams
		err := scenarios.DecodeParams("strategies[0].params", scenarios.Pos{File: file, Line: entryLine}, params, &p)
		var tab PredictTable
		tabErr := tab.UnmarshalText([]byte(predict))
		predictText := given&(1<<1) != 0 && given&(1<<5) == 0
		if err != nil {
			var e *scenarios.Error
			if !errors.As(err, &e) || !strings.HasPrefix(e.Path, "strategies[0].params.") {
				t.Fatalf("got %v (%T), want a *scenarios.Error under strategies[0].params", err, err)
			}
			key := strings.TrimPrefix(e.Path, "strategies[0].params.")
			want, ok := line[key]
			if !ok {
				want = entryLine // a required key missing
			}
			if e.Pos.File != file || e.Pos.Line != want {
				t.Fatalf("%v: at %v, want line %d (the line of %s)", err, e.Pos, want, key)
			}
			if key == "predict" && predictText && (tabErr == nil || !strings.Contains(err.Error(), tabErr.Error())) {
				t.Fatalf("predict %q refused (%v), and UnmarshalText says %v", predict, err, tabErr)
			}
			return
		}
		if predictText && (tabErr != nil || !slices.Equal(p.Predict.At, tab.At) || !slices.Equal(p.Predict.K, tab.K)) {
			t.Fatalf("predict %q decoded as %v, UnmarshalText gives %v, %v", predict, p.Predict, tab, tabErr)
		}
		typ, err := strategies.Lookup("striped")
		if err != nil {
			t.Fatal(err)
		}
		if err := typ.Validate(&p); err != nil {
			var pe *strategies.ParamError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate: %v (%T), want a *strategies.ParamError", err, err)
			}
			if _, ok := line[pe.Key]; !ok && pe.Key != "max_stripes" {
				t.Fatalf("Validate: %v names %q, not a parameter given (%v)", err, pe.Key, params)
			}
			return
		}

		rule := p.predictRule()
		lo, hi := p.Stripes, p.Stripes
		if rule != nil {
			hi = p.maxStripes()
		}
		c := 1.0
		if p.ProtectedFactor != 0 {
			c = p.ProtectedFactor
		}
		// want is the K the rule predicts, worked out apart.
		want := func(fl float64) int {
			k := lo
			switch {
			case rule == nil:
			case p.PerFollowers > 0:
				k = int(min(math.Ceil(fl/p.PerFollowers), hotMaxStripes))
			default:
				for i, at := range p.Predict.At {
					if fl >= float64(at) {
						k = p.Predict.K[i]
					}
				}
			}
			return min(max(k, lo), hi)
		}
		fs := followers & (1<<40 - 1)
		s, err := NewStriped(p, designtest.NewMemStore(t), 1)
		if err != nil {
			t.Fatalf("NewStriped(%+v): %v", p, err)
		}
		for i, actor := range []uint64{fs, fs | workload.ProtectedBit} {
			fl := float64(fs)
			if i == 1 {
				fl *= c
			}
			k := s.FirstStripes(actor)
			if w := want(fl); k != w {
				t.Fatalf("%+v: actor %#x: K %d, want %d", p, actor, k, w)
			}
			if more := s.FirstStripes(actor + 1 + actor>>3&(1<<20-1)); more < k {
				t.Fatalf("%+v: K falls from %d to %d as the followers grow from %#x", p, k, more, actor)
			}
			if rule != nil {
				key := uint64(100 + i)
				s.Observe([]workload.Event{{Key: key, Actor: actor, Delta: 1, ID: key}})
				if live, _ := s.Stripes(key); live != k {
					t.Fatalf("%+v: a key of actor %#x starts with %d stripes, the rule says %d", p, actor, live, k)
				}
			}
		}
		if rule == nil {
			return
		}
		m := 1 + followers%2000
		atLeast := func(f uint64) float64 {
			switch {
			case f <= 1:
				return 1
			case f > m:
				return 0
			}
			return float64(m-f+1) / float64(m)
		}
		const protected = 0.25
		var pub, prot float64
		for f := uint64(1); f <= m; f++ {
			pub += float64(rule.stripes(f, lo, hi))
			prot += float64(rule.stripes(f|workload.ProtectedBit, lo, hi))
		}
		brute := ((1-protected)*pub + protected*prot) / float64(m)
		if e := rule.expected(atLeast, protected, lo, hi); math.Abs(e-brute) > 1e-9*brute {
			t.Fatalf("%+v: E[K] over followers uniform on 1..%d: plan %v, the mean of the rule's K %v", p, m, e, brute)
		}
	})
}
