package designtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// The designs validate their internal invariants with a check method of
// their own package, which no other package can call: each family's tests
// register how to reach it (RegisterChecker, in an init of their own), and
// CheckInvariants asks whichever takes the design.
var checkers []func(strategies.Strategy) (has bool, err error)

// RegisterChecker adds the checker of the caller's designs: C is the
// caller's interface of its check method, which a design of another
// package cannot have (an unexported method is its package's), and check
// calls it.
//
//	type checker interface{ check() error }
//
//	func init() { designtest.RegisterChecker(checker.check) }
func RegisterChecker[C any](check func(C) error) {
	checkers = append(checkers, func(s strategies.Strategy) (bool, error) {
		c, ok := s.(C)
		if !ok {
			return false, nil
		}
		return true, check(c)
	})
}

// check runs the check method of s, if a registered checker knows it.
func check(s strategies.Strategy) (has bool, err error) {
	for _, f := range checkers {
		if has, err := f(s); has {
			return true, err
		}
	}
	return false, nil
}

// CheckInvariants fails t unless the design's check method passes; a
// design without one fails too.
func CheckInvariants(t testing.TB, s strategies.Strategy) {
	t.Helper()
	has, err := check(s)
	if !has {
		t.Fatalf("%T has no check method (or its package's tests register no checker)", s)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// SortedKeys returns the keys of m, ascending.
func SortedKeys(m map[uint64]uint64) []uint64 {
	ks := make([]uint64, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// TrueTop is the exact top k, count descending then key ascending.
func TrueTop(truth map[uint64]uint64, k int) []strategies.Item {
	all := make([]strategies.Item, 0, len(truth))
	for key, c := range truth {
		all = append(all, strategies.Item{Key: key, Count: c})
	}
	ds.SortItems(all)
	return all[:min(k, len(all))]
}

func ContainsAll(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// PointSketch is what the bound checks read: a sketch fed a stream, then
// asked for a key's estimate.
type PointSketch interface {
	Observe([]workload.Event)
	Count(key uint64) uint64
}

// BoundTrials builds a sketch per trial, feeds it the stream and counts the
// trials whose largest overestimate over keys exceeds bound, and for each
// key the trials where its own overestimate exceeds it.
func BoundTrials(ev []workload.Event, keys []uint64, bound float64, trials int, build func(trial int) PointSketch) (maxFails int, keyFails []int) {
	truth, _ := ExactCounts(ev)
	keyFails = make([]int, len(keys))
	for trial := range trials {
		s := build(trial)
		s.Observe(ev)
		failed := false
		for i, k := range keys {
			if float64(s.Count(k)-truth[k]) > bound {
				keyFails[i]++
				failed = true
			}
		}
		if failed {
			maxFails++
		}
	}
	return maxFails, keyFails
}

// BoundCheck is how a bound test reads the trials.
type BoundCheck int

// BoundFailure runs the check on the trials' counts and returns a
// description of the failure, or "" if the check passes; log gets the
// numbers either way.
func BoundFailure(check BoundCheck, delta, alpha float64, trials, keys, maxFails int, keyFails []int) (failure, log string) {
	pooled := 0
	worst := 0
	for i, f := range keyFails {
		pooled += f
		if f > keyFails[worst] {
			worst = i
		}
	}
	switch check {
	case CheckMax:
		limit := binomialQuantile(trials, delta, alpha)
		log = fmt.Sprintf("max overestimate > εN in %d of %d trials (limit %d)", maxFails, trials, limit)
		if maxFails > limit {
			return fmt.Sprintf("max overestimate > εN in %d of %d trials, want ≤ %d (Binomial(%d, %g) at 1 − %g)",
				maxFails, trials, limit, trials, delta, alpha), log
		}
	case CheckFraction:
		limit := binomialQuantile(trials*keys, delta, alpha)
		log = fmt.Sprintf("keys over εN: %d of %d·%d (trial, key) pairs, a share of %.2g (limit %d, δ = %g)",
			pooled, trials, keys, float64(pooled)/float64(trials*keys), limit, delta)
		if pooled > limit {
			return fmt.Sprintf("keys over εN in %d of %d (trial, key) pairs, want ≤ %d (Binomial(%d, %g) at 1 − %g)",
				pooled, trials*keys, limit, trials*keys, delta, alpha), log
		}
	case CheckPerKey:
		limit := binomialQuantile(trials, delta, alpha/float64(keys))
		log = fmt.Sprintf("per key: at most %d of %d trials over εN (limit %d); the max over keys exceeded it in %d trials",
			keyFails[worst], trials, limit, maxFails)
		if keyFails[worst] > limit {
			return fmt.Sprintf("key #%d over εN in %d of %d trials, want ≤ %d", worst, keyFails[worst], trials, limit), log
		}
	}
	return "", log
}

// Universe lists every key a stream may hold, seen or not.
func Universe(sp StreamSpec) []uint64 {
	keys := make([]uint64, sp.Keys)
	for i := range keys {
		keys[i] = uint64(i)
		if sp.Scramble {
			keys[i] = workload.Mix64(keys[i])
		}
	}
	return keys
}

// CheckPlan finds each wanted line (by Metric and Full) and compares values.
func CheckPlan(t *testing.T, got, want []strategies.PlanLine) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, g := range got {
			if g.Metric == w.Metric && g.Full == w.Full {
				found = true
				if math.Abs(g.Value-w.Value) > 1e-9*math.Abs(w.Value) {
					t.Errorf("%s (full %v): got %v, want %v", w.Metric, w.Full, g.Value, w.Value)
				}
				if g.Unit == "" || g.Note == "" {
					t.Errorf("%s (full %v): unit %q, note %q: want both", w.Metric, w.Full, g.Unit, g.Note)
				}
			}
		}
		if !found {
			t.Errorf("no plan line %s (full %v) in %+v", w.Metric, w.Full, got)
		}
	}
}

// CheckPlannedBytes: the sim-scale "total_bytes" plan line (or "bytes" for a
// design of one part) is what Bytes measures on the built design — sim uses
// it to refuse runs that would not fit — and each Part is planned too.
func CheckPlannedBytes(t *testing.T, plan []strategies.PlanLine, s strategies.Strategy) {
	t.Helper()
	planned := func(metric metrics.Metric) (float64, bool) {
		for _, l := range plan {
			if l.Metric == metric && !l.Full {
				return l.Value, true
			}
		}
		return 0, false
	}
	total, ok := planned(metrics.TotalBytes)
	if !ok {
		total, ok = planned(metrics.Bytes)
	}
	if !ok {
		t.Fatalf("no sim-scale bytes line in the plan")
	}
	if int64(total) != s.Bytes() {
		t.Errorf("planned bytes %v, measured %d", total, s.Bytes())
	}
	if p, ok := s.(strategies.Parted); ok {
		var sum int64
		for _, part := range p.Parts() {
			sum += part.Bytes
			if v, ok := planned(part.Metric); !ok || int64(v) != part.Bytes {
				t.Errorf("part %s: planned %v (found %v), measured %d", part.Metric, v, ok, part.Bytes)
			}
		}
		if sum != s.Bytes() {
			t.Errorf("parts sum to %d, Bytes() is %d", sum, s.Bytes())
		}
	}
}

// DecayStream is a seeded stream of n events over keys Zipf(s) ranks
// (scrambled), with exponential gaps of mean gap ns, one in four events
// sharing the previous one's time; a few reads and zero deltas are mixed
// in (ignored), and one write in ten has a Delta of 1..5.
func DecayStream(seed uint64, n, keys int, s float64, gap time.Duration) []workload.Event {
	r := rand.New(rand.NewPCG(seed, 0x646563617973))
	z := Zipf(keys, s)
	ev := make([]workload.Event, n)
	at := int64(1_000_000_000) + r.Int64N(1e9) // the landmark is not 0
	for i := range ev {
		if r.IntN(4) != 0 {
			at += int64(r.ExpFloat64() * float64(gap))
		}
		e := workload.Event{At: at, Key: workload.Mix64(uint64(z.Draw(r))), Delta: 1, ID: uint64(i + 1), Op: workload.Write}
		switch r.IntN(40) {
		case 0:
			e.Op = workload.Read
		case 1:
			e.Delta = 0
		case 2, 3, 4, 5:
			e.Delta = 1 + r.Int64N(5)
		}
		ev[i] = e
	}
	return ev
}

// Decode decodes raw parameters for the design type typName as a run
// does (scenarios.DecodeParams: each field's default, then each
// parameter, by their tags) and holds them to the type's rules.
func Decode(typName string, params []scenarios.Param) (*strategies.Type, strategies.Params, error) {
	typ, err := strategies.Lookup(typName)
	if err != nil {
		return nil, nil, err
	}
	p, err := DecodeParams(typ, params)
	return typ, p, err
}

// DecodeParams decodes raw parameters for typ as a run does and holds them
// to the type's rules.
func DecodeParams(typ *strategies.Type, params []scenarios.Param) (strategies.Params, error) {
	p := typ.New()
	if err := scenarios.DecodeParams("params", scenarios.Pos{}, params, p); err != nil {
		return nil, err
	}
	if err := typ.Validate(p); err != nil {
		return nil, err
	}
	return p, nil
}

// BuildDesign builds the design typName of params for env as a run does,
// failing tb on any error.
func BuildDesign(tb testing.TB, typName string, params []scenarios.Param, env strategies.Env) strategies.Strategy {
	tb.Helper()
	typ, p, err := Decode(typName, params)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := typ.Build(p, env)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// binomialQuantile returns the least c with P(X > c) ≤ alpha for X ~
// Binomial(n, p): a count of failures above it has probability at most
// alpha when each of the n trials fails with probability at most p.
func binomialQuantile(n int, p, alpha float64) int {
	b := distuv.Binomial{N: float64(n), P: p}
	lo, hi := 0, n // P(X > hi) = 0 ≤ alpha; search the least such c
	for lo < hi {
		if c := lo + (hi-lo)/2; b.Survival(float64(c)) <= alpha {
			hi = c
		} else {
			lo = c + 1
		}
	}
	return lo
}

const (
	// CheckMax: the largest overestimate over every key of the universe
	// stays within εN in at least 1 − δ of the trials; failures are compared
	// with the Binomial(T, δ) quantile at 1 − α.
	CheckMax BoundCheck = iota
	// CheckFraction: of the T·K (trial, key) pairs, the share whose
	// overestimate passes εN is at most δ; failures are compared with the
	// Binomial(T·K, δ) quantile at 1 − α. Keys of one sketch share its hash,
	// so their failures are not independent and the binomial tolerance is a
	// heuristic; the failures measured are far below it (under 10^-3 of the
	// pairs against δ = 10^-2), so a correct sketch does not come near it.
	CheckFraction
	// CheckPerKey: for each key, the trials where it passes εN are at most
	// the Binomial(T, δ) quantile at 1 − α/K (a union bound over the keys):
	// the theorem itself, trial by trial (trials are independent).
	CheckPerKey
)

// FuzzIDs reads 8-byte ids from data (a short tail is dropped).
func FuzzIDs(data []byte) []uint64 {
	var out []uint64
	for len(data) >= 8 {
		out = append(out, binary.LittleEndian.Uint64(data))
		data = data[8:]
	}
	return out
}

// FaultKey is the parameter key that err, from decoding or checking a
// design's parameters, faults: the key of a *strategies.ParamError, or the
// parameter below params that a *scenarios.Error's path names; "" for
// neither.
func FaultKey(err error) string {
	var pe *strategies.ParamError
	if errors.As(err, &pe) {
		return pe.Key
	}
	var se *scenarios.Error
	if errors.As(err, &se) {
		if _, k, ok := strings.Cut(se.Path, "params."); ok {
			return k
		}
	}
	return ""
}

// FaultLine is the line err points at: a *scenarios.Error's own, or for a
// *strategies.ParamError the line of its key among params (where the
// runner points); 0 for neither or a key not given.
func FaultLine(err error, params []scenarios.Param) int {
	var se *scenarios.Error
	if errors.As(err, &se) {
		return se.Pos.Line
	}
	key := FaultKey(err)
	for _, p := range params {
		if p.Key == key {
			return p.Pos.Line
		}
	}
	return 0
}
