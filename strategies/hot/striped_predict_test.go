package hot

import (
	"math"
	"slices"
	"strings"
	"testing"

	"countsim/strategies"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestPredictRule: the table's step function and per_followers' ceiling,
// clamped to stripes..max; a rule not increasing, a bad pair or both rules
// at once refused with what is allowed.
func TestPredictRule(t *testing.T) {
	r := StripedParams{Predict: table(t, "0:1, 10000:4, 1000000:32")}.predictRule()
	for _, c := range []struct {
		followers uint64
		lo, hi    int
		want      int
	}{
		{0, 1, 1024, 1}, {9_999, 1, 1024, 1}, {10_000, 1, 1024, 4}, {999_999, 1, 1024, 4},
		{1_000_000, 1, 1024, 32}, {1 << 40, 1, 16, 16}, {5, 2, 1024, 2},
	} {
		if got := r.stripes(c.followers, c.lo, c.hi); got != c.want {
			t.Errorf("table: %d followers, clamp %d..%d: K %d, want %d", c.followers, c.lo, c.hi, got, c.want)
		}
	}
	per := &predictRule{per: 50_000}
	for f, want := range map[uint64]int{0: 1, 1: 1, 50_000: 1, 50_001: 2, 1_000_000: 20, 1 << 40: 1024} {
		if got := per.stripes(f, 1, 1024); got != want {
			t.Errorf("per 50,000: %d followers: K %d, want %d", f, got, want)
		}
	}
	for text, want := range map[string]string{
		"0:1,10000:4,5000:8": "followers 5000 after 10000: the rule is not increasing",
		"0:4,10000:2":        "K 2 after 4: the rule is not increasing",
		"many:4":             `pair 1 "many:4" is not FOLLOWERS:K`,
		"0:0":                "pair 1: K 0 not in 1..65536",
	} {
		var tab PredictTable
		if err := tab.UnmarshalText([]byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
		if tab.At != nil {
			t.Errorf("%q: refused, yet the table holds %v", text, tab)
		}
	}
	if got, err := table(t, "0:1, 10000:4").MarshalText(); err != nil || string(got) != "0:1,10000:4" {
		t.Errorf("MarshalText: %q, %v", got, err)
	}
	if _, err := (PredictTable{At: []uint64{5, 1}, K: []int{1, 2}}).MarshalText(); err == nil {
		t.Error("MarshalText of a table not increasing: no error")
	}
	for _, c := range []struct {
		p    StripedParams
		want string
	}{
		{StripedParams{Stripes: 1, Predict: PredictTable{At: []uint64{0, 10}, K: []int{4, 2}}}, "K 2 after 4: the rule is not increasing"},
		{StripedParams{Stripes: 1, PerFollowers: -1}, "per_followers: -1 is out of range (allowed: a number > 0)"},
		{StripedParams{Stripes: 1, Predict: table(t, "0:1"), PerFollowers: 10}, "given with predict"},
		{StripedParams{Stripes: 8, Predict: table(t, "0:1"), MaxStripes: 4}, "max_stripes"},
	} {
		err := strategies.CheckParams(&c.p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}

// TestPredictedStripes: a key's first K comes from its first event's
// actor (the author's followers): a small account's post writes one
// stripe, a large one's spread over its predicted K; counts stay exact; a
// growing design then doubles the small one's K when its load rises.
func TestPredictedStripes(t *testing.T) {
	m := designtest.NewMemStore(t)
	s, err := NewStriped(StripedParams{Stripes: 1, Select: SelectRoundRobin, Predict: table(t, "0:1,100000:16"), GrowAbove: 500, Read: ReadSum}, m, 3)
	if err != nil {
		t.Fatal(err)
	}
	const small, big = 1, 2
	var b []workload.Event
	for i := range int64(4000) { // 2 s: 2,000 writes a second on each key
		b = append(b,
			workload.Event{At: i * 500_000, Op: workload.Write, Key: small, Actor: 40, Delta: 1, ID: uint64(2 * i)},
			workload.Event{At: i * 500_000, Op: workload.Write, Key: big, Actor: 2_000_000, Delta: 1, ID: uint64(2*i + 1)})
	}
	s.Observe(b[:2]) // the first second's first events: K as predicted
	if k := s.stripesOf(small); k != 1 {
		t.Errorf("the small account's first K %d, want 1", k)
	}
	if k := s.stripesOf(big); k != 16 {
		t.Errorf("the large account's first K %d, want 16", k)
	}
	s.Observe(b[2:])
	if got := s.Count(small) + s.Count(big); got != 8000 {
		t.Errorf("counts %d, want 8,000", got)
	}
	if k := s.stripesOf(small); k < 2 {
		t.Errorf("the small account's K %d after a second of 2,000 writes over grow_above 500, want it grown", k)
	}
	// What a population run asks: the first K by followers, the live and
	// held K of each key, and the growth over the keys as created.
	ls, hs := s.Stripes(small)
	lb, hb := s.Stripes(big)
	if s.FirstStripes(40) != 1 || s.FirstStripes(2_000_000) != 16 || hs < ls || hb < lb || ls != s.stripesOf(small) {
		t.Errorf("first K 1 and 16, got %d and %d; small %d/%d, big %d/%d", s.FirstStripes(40), s.FirstStripes(2_000_000), ls, hs, lb, hb)
	}
	if got, want := s.Grown(), int64(ls-1+lb-16); got != want {
		t.Errorf("grown %d, want %d (live %d and %d over 1 and 16)", got, want, ls, lb)
	}
	if l, h := s.Stripes(99); l != 0 || h != 0 {
		t.Errorf("a key never seen: %d/%d stripes, want 0/0", l, h)
	}
	// The most a key would get: doubled from its first while the peak
	// over K is above grow_above, up to max_stripes.
	if got := s.StripesFor(40, 2000); got != 4 {
		t.Errorf("StripesFor(40 followers, 2,000/s) %d, want 4 (2,000/4 = 500 is not above 500)", got)
	}
	if got := s.StripesFor(2_000_000, 1e9); got != 1024 {
		t.Errorf("StripesFor at any peak capped at %d, want 1,024", got)
	}
	if err := s.check(); err != nil {
		t.Error(err)
	}
}

// TestPredictExpected: E[K] of both rules against the sum Σ_f P(F = f)·K(f)
// worked out follower by follower over a small law (P(F = f) ∝ 1/f on
// 1..5000), with clamps that cut the table and the ceiling.
func TestPredictExpected(t *testing.T) {
	const fmax = 5000
	var h float64
	for f := 1; f <= fmax; f++ {
		h += 1 / float64(f)
	}
	atLeast := func(f uint64) float64 {
		var p float64
		for g := max(f, 1); g <= fmax; g++ {
			p += 1 / float64(g) / h
		}
		return p
	}
	tab := table(t, "0:1,100:2,1000:8,4000:64")
	rule := &predictRule{at: tab.At, k: tab.K}
	// The same table with protected posts' followers counting 0.3 times.
	ruleProt := &predictRule{at: tab.At, k: tab.K, protected: 0.3}
	for _, c := range []struct {
		r         *predictRule
		protected float64 // the share of protected posts
		lo, hi    int
	}{
		{rule, 0, 1, 1024}, {rule, 0, 2, 16}, {rule, 0, 4, 4}, {&predictRule{per: 300}, 0, 1, 1024}, {&predictRule{per: 300}, 0, 3, 10},
		{&predictRule{per: 7.5}, 0, 1, 65536},
		{ruleProt, 0.2, 1, 1024}, {ruleProt, 1, 2, 16}, {&predictRule{per: 300, protected: 0.45}, 0.3, 1, 1024}, {&predictRule{per: 7.5, protected: 0.1}, 0.5, 1, 65536},
	} {
		var want float64
		for f := uint64(1); f <= fmax; f++ {
			k := (1-c.protected)*float64(c.r.stripes(f, c.lo, c.hi)) + c.protected*float64(c.r.stripes(f|workload.ProtectedBit, c.lo, c.hi))
			want += k / float64(f) / h
		}
		if got := c.r.expected(atLeast, c.protected, c.lo, c.hi); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s (protected %v of the posts, × %v), clamp %d..%d: E[K] %v, want %v", c.r, c.protected, c.r.protected, c.lo, c.hi, got, want)
		}
	}
}

// TestPredictProtected: a protected post's followers count × protected_factor
// in either rule; without the factor it is sized as a public one; the
// factor is refused out of (0, 1] or without a rule.
func TestPredictProtected(t *testing.T) {
	p := StripedParams{Stripes: 1, Predict: table(t, "0:1,1000:4,10000:16"), ProtectedFactor: 0.25}
	if err := strategies.CheckParams(&p); err != nil {
		t.Fatal(err)
	}
	r := p.predictRule()
	prot := workload.ProtectedBit
	for actor, want := range map[uint64]int{10_000: 16, 10_000 | prot: 4, 4_000 | prot: 4, 3_999 | prot: 1, 999: 1} {
		if got := r.stripes(actor, 1, 1024); got != want {
			t.Errorf("actor %#x: K %d, want %d", actor, got, want)
		}
	}
	per := StripedParams{Stripes: 1, PerFollowers: 1000, ProtectedFactor: 0.5}.predictRule()
	if got := per.stripes(5_000|prot, 1, 1024); got != 3 { // ⌈2,500 / 1,000⌉
		t.Errorf("per_followers 1,000 × 0.5: K %d, want 3", got)
	}
	plain := StripedParams{Stripes: 1, Predict: table(t, "0:1,1000:4,10000:16")}.predictRule()
	if got := plain.stripes(10_000|prot, 1, 1024); got != 16 {
		t.Errorf("no factor: a protected post of 10,000 followers K %d, want 16 as a public one", got)
	}
	for _, c := range []struct {
		p    StripedParams
		want string
	}{
		{StripedParams{Stripes: 1, Predict: table(t, "0:1"), ProtectedFactor: 1.5}, "1.5 is out of range (allowed: a number in (0,1])"},
		{StripedParams{Stripes: 1, Predict: table(t, "0:1"), ProtectedFactor: -0.5}, "-0.5 is out of range"},
		{StripedParams{Stripes: 1, ProtectedFactor: 0.5}, "given without predict or per_followers"},
	} {
		if err := strategies.CheckParams(&c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.p, err, c.want)
		}
	}
}

// table is the predict table of text, failing t if it is refused.
func table(t *testing.T, text string) PredictTable {
	t.Helper()
	var tab PredictTable
	if err := tab.UnmarshalText([]byte(text)); err != nil {
		t.Fatal(err)
	}
	return tab
}

// FuzzPredictTable: a table's text is read or refused, never a panic; a
// table read writes a text that reads back to it, and passes the checks of
// a table built in Go.
func FuzzPredictTable(f *testing.F) {
	for _, s := range []string{"0:1,10000:4,1000000:32", "0:1", "", "5:0", "1:2,1:3", "x:y", "0:1, 10:2 ,", "18446744073709551615:65536"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var tab PredictTable
		if err := tab.UnmarshalText([]byte(s)); err != nil {
			if tab.At != nil || tab.K != nil {
				t.Fatalf("%q refused, yet the table holds %v", s, tab)
			}
			return
		}
		text, err := tab.MarshalText()
		if err != nil {
			t.Fatalf("%q read as %v, which does not write: %v", s, tab, err)
		}
		var again PredictTable
		if err := again.UnmarshalText(text); err != nil || !slices.Equal(again.At, tab.At) || !slices.Equal(again.K, tab.K) {
			t.Fatalf("%q → %v → %q → %v, %v", s, tab, text, again, err)
		}
		if err := tab.check(); err != nil {
			t.Fatalf("%q read as %v, which its check refuses: %v", s, tab, err)
		}
	})
}
