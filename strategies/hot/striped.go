package hot

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Striped (sharded) counters, after the sharded-counters seed: the count of
// a hot key is split over K sub-counters ("stripes", key#0 … key#K−1), each
// a key of its own in the store, so K keys on up to K nodes share the write
// load; a read sums the K stripes. With a key taking C increments a second
// and a peak of R a second, K = ⌈R/C⌉ stripes carry the peak at the limit and
// ⌈R/(C·h)⌉ at a planned share h of it (cricket final: 200,000 / 7,000 =
// 28.6 → 29, 32 as a power of two: 6,250 a stripe, 62.5% of the limit); the
// price is K GETs a read (5,000 × 32 = 160,000 a second) unless reads are
// cached (32 a second with a 1 s cache).
//
// A write picks its stripe by one of the seed's policies:
//
//   - random: uniform, from a PCG seeded by the scenario seed. A stripe's
//     share of n writes is Binomial(n, 1/K): the busiest of K stripes runs
//     about √(2 ln K · n/K) above the mean n/K.
//   - round-robin: stripe 0, 1, …, K−1, 0… per key: exactly even.
//   - hash: by a hash of the event ID, so a resend hits the stripe of the
//     original (binomial spread over distinct IDs, like random).
//   - least-loaded: the seed's metrics-based selection — the stripe with the
//     fewest increments sent in the current simulated second, the lowest
//     index on ties. Counts restart at 0 each second and each pick adds 1 to
//     a least-loaded stripe, so within a second the counts are m+1 on stripes
//     0..p−1 and m on p..K−1, and the pick is simply p (O(1), not O(K); check
//     verifies the invariant). With the design's own sends as its only
//     metric it is round-robin restarted every second; load from other
//     clients of the same nodes would make it differ, and the Store does not
//     report that.
//
// K can follow the load (grow_above, shrink_below, max_stripes): per key,
// at the first event of the key in a new simulated second, the increments
// each stripe received in the last full second are looked at (a lazy
// per-key controller; a second with no event of the key counts as idle). If
// the busiest stripe received more than grow_above, K doubles (at most
// max_stripes); if every stripe received fewer than shrink_below, K halves
// (at least stripes), once per second, idle seconds included. Requiring
// 2·shrink_below ≤ grow_above keeps a doubling from undoing itself.
//
// Shrinking must not lose the removed stripes' counts. When K goes from k to
// k' < k, each removed stripe j ≥ k' is folded into kept stripe j mod k':
// the design sends INCRBY key#j −v and INCRBY key#(j mod k') +v at the
// event's time, where v is stripe j's value once every write sent to it is
// served — what an in-order GETDEL returns in Redis, which the design takes
// from Store.Final after sending its buffered ops (a fold costs one extra
// Do and k−k' Final calls, at most once a second per key). No write goes to
// a removed stripe afterwards, so it ends at exactly 0 and its count lives
// on in a kept stripe. Reads therefore sum the k' live stripes; a removed
// stripe whose −v is still queued behind writes may briefly show a value,
// but that value is already in the kept stripe. Count sums every stripe the
// key ever had, and check verifies that each removed stripe's final value
// is 0.
//
// Writes with Delta ≤ 0 are not counted (the designs, like the truth, count
// up); with dedup, a write whose ID was seen within the window is dropped.

// StripedParams are the parameters of a striped counter.
type StripedParams struct {
	// Stripes is K, the sub-counters of each key, 1..65536; with grow_above
	// it is the least K and the starting one.
	Stripes int `key:"stripes" range:"1..65536" required:"true" doc:"sub-counters K of each key; with grow_above, the starting and least K"`
	// Select is how a write picks its stripe.
	Select StripeSelect `key:"select" default:"random" doc:"how a write picks its stripe: random (a PCG seeded from the scenario seed), round-robin (per key), hash (of the event ID: a resend hits the same stripe) or least-loaded (fewest increments sent this simulated second, lowest index on ties)"`
	// GrowAbove: K doubles when the busiest stripe's increments in the last
	// full second exceed it; 0 keeps K fixed.
	GrowAbove float64 `key:"grow_above" range:">=0" defaultdoc:"0: K fixed" doc:"increments a second: when the busiest stripe of a key received more in the last full second, its K doubles (up to max_stripes)"`
	// ShrinkBelow: K halves when every stripe's increments in the last full
	// second are below it; 0 never shrinks. At most grow_above/2.
	ShrinkBelow float64 `key:"shrink_below" range:">=0" defaultdoc:"0: never" doc:"increments a second: when every stripe of a key received fewer in the last full second, its K halves (not below stripes), the removed stripes' counts moved into the kept ones; needs grow_above, at most grow_above/2"`
	// MaxStripes is the most K may grow to, stripes..65536; 0 means 1024.
	MaxStripes int `key:"max_stripes" range:"1..65536" defaultdoc:"1024" doc:"the most stripes K may grow to, with grow_above, or be predicted, with predict or per_followers: at least stripes"`
	// Read, TTL and Dedup: the read path and the dedup window.
	Read  ReadPath      `key:"read" default:"sum" doc:"what a Read event shows: sum (one GET per stripe at the read's time, an MGET, summed) or cache (the total cached per key, refreshed by a read that finds it ttl old or older)"`
	TTL   time.Duration `key:"ttl" range:">0" doc:"with read: cache, how long a cached total is shown"`
	Dedup time.Duration `key:"dedup" range:">=0" defaultdoc:"0: off" doc:"dedup window: drop a write whose ID was seen less than this long before"`
	// HashTag names a key's stripes with one hash tag, {key}:0..K−1, so
	// that they share one slot of a Redis Cluster and one node of the
	// simulated cluster: a read is one MGET to one node, and every write of
	// the key lands on that node too — the spreading the stripes were for
	// is gone. Without it (the default) the stripes spread over the nodes
	// and a read sends one GET per slot.
	HashTag bool `key:"hashtag" default:"false" doc:"true: the stripes of a key share one hash tag, {key}:0..K-1 — one slot and one node (a read is one MGET, and all the key's writes land on that node); false: the stripes spread over the nodes"`
	// Predict and PerFollowers set a key's first K from its author's
	// followers, the event's Actor (striped_predict.go).
	Predict      PredictTable `key:"predict" allowed:"FOLLOWERS:K pairs separated by commas, both increasing, K in 1..65536, e.g. 0:1,10000:4,1000000:32" doc:"a key's first K from its author's followers (the event's actor), clamped to stripes..max_stripes"`
	PerFollowers float64      `key:"per_followers" range:">0" doc:"a key's first K = ⌈followers / this⌉ (the event's actor), clamped to stripes..max_stripes; instead of predict"`
	// ProtectedFactor scales a protected post's followers in the
	// prediction: its likes come from its followers only.
	ProtectedFactor float64 `key:"protected_factor" range:"(0,1]" defaultdoc:"1: as a public post's" doc:"with predict or per_followers: a protected post's (followers only) followers count as this many times as many in the prediction"`
	// ClientParams: timeout, retries, backoff, idempotent writes, partial
	// reads (client.go).
	ClientParams
	// Probe is how long least-loaded selection skips a stripe whose write
	// failed before it sends that stripe one probe write.
	Probe time.Duration `key:"probe" range:">0" defaultdoc:"1s" doc:"with select: least-loaded and the client on, how long a stripe whose write failed is skipped before one probe write is sent to it"`
}

// predictRule is the parameters' rule of a key's first K, or nil.
func (p StripedParams) predictRule() *predictRule {
	var r *predictRule
	switch {
	case p.PerFollowers > 0:
		r = &predictRule{per: p.PerFollowers}
	case len(p.Predict.At) > 0:
		r = &predictRule{at: p.Predict.At, k: p.Predict.K}
	default:
		return nil
	}
	r.protected = cmp.Or(p.ProtectedFactor, 1)
	return r
}

// StripeSelect is how a write picks its stripe.
type StripeSelect uint8

const (
	SelectRandom StripeSelect = iota
	SelectRoundRobin
	SelectHash
	SelectLeastLoaded
)

var stripeSelectNames = []string{"random", "round-robin", "hash", "least-loaded"}

// String returns the policy's name.
func (s StripeSelect) String() string { return strategies.EnumString(s, "select", stripeSelectNames) }

// Names lists the policies' names.
func (StripeSelect) Names() []string { return slices.Clone(stripeSelectNames) }

// MarshalText returns the policy's name.
func (s StripeSelect) MarshalText() ([]byte, error) {
	return strategies.MarshalEnum(s, "stripe selection", stripeSelectNames)
}

// UnmarshalText reads a policy by name.
func (s *StripeSelect) UnmarshalText(text []byte) error {
	return strategies.UnmarshalEnum(s, "stripe selection", stripeSelectNames, text)
}

const stripedDefaultMax = 1024

// maxStripes is MaxStripes, or its default 1024 when 0.
func (p StripedParams) maxStripes() int {
	if p.MaxStripes == 0 {
		return stripedDefaultMax
	}
	return p.MaxStripes
}

// Validate checks the rules across the parameters: the adaptive rule
// (shrinking needs growing, at half its rate at most), the prediction (one
// rule; protected_factor with it), max_stripes against stripes, and the
// read path with the ttl.
func (p StripedParams) Validate() error {
	if p.ShrinkBelow > 0 && p.GrowAbove == 0 {
		return strategies.ParamErrorf("shrink_below", "given without grow_above: K never grows above stripes, so it cannot shrink")
	}
	if p.GrowAbove > 0 && 2*p.ShrinkBelow > p.GrowAbove {
		return strategies.ParamErrorf("shrink_below", "%v more than grow_above/2 = %v: K would double and halve in turn", p.ShrinkBelow, p.GrowAbove/2)
	}
	if len(p.Predict.At) > 0 && p.PerFollowers != 0 {
		return strategies.ParamErrorf("per_followers", "given with predict (allowed: one of predict, a table, or per_followers)")
	}
	rule := p.predictRule()
	if rule == nil && p.ProtectedFactor != 0 && p.ProtectedFactor != 1 {
		return strategies.ParamErrorf("protected_factor", "given without predict or per_followers (allowed: with one of them)")
	}
	if p.GrowAbove > 0 || rule != nil {
		if m := p.maxStripes(); m < p.Stripes {
			return strategies.ParamErrorf("max_stripes", "%d not in stripes..%d = %d..%d", m, hotMaxStripes, p.Stripes, hotMaxStripes)
		}
	}
	if err := p.ClientParams.check(); err != nil {
		return err
	}
	return checkReads(p.Read, p.TTL)
}

// Striped is a striped counter on a Store: a PointCounter (Count sums the
// key's stripes once served) and a Reader. Observe costs O(1) a write (one
// XXH64 for the stripe's key, and a table lookup when state is kept per key)
// and O(K) a read on the sum path. Not safe for concurrent use.
type Striped struct {
	name        string // the design type, for messages
	base, max   int    // least and most K
	sel         StripeSelect
	growAbove   float64
	shrinkBelow float64
	adaptive    bool         // grow_above > 0
	predict     *predictRule // a key's first K from its author's followers; nil: stripes
	perKey      bool         // state is kept per key (round-robin, least-loaded, adaptive)
	loads       bool         // per-stripe increments of the current second are kept

	rng   rand.PCG // random selection
	hseed uint64   // hash selection

	keys    ds.DenseKeys // numbers of the keys with state or a cache entry
	keySeed uint64       // keys' hash seed
	state   []stripeState
	skips   []stripeSkip // by slot, with the client and least-loaded
	io      hotIO
	dd      *dedupWindow // nil: no dedup

	grows, shrinks int64 // K changes so far, over all keys
	grown          int64 // Σ over keys of live K − first K

	cp       ClientParams // the client parameters, for a client a store fault turns on
	probe    int64        // ns: least-loaded's skip of a failed stripe
	probing  bool         // the last pick was a probe
	lastSlot int32        // the slot of the last pick's key (-1: none kept)
}

// stripeState is what a striped counter keeps per key.
type stripeState struct {
	sec   int64    // the simulated second the loads count
	loads []uint32 // increments sent to each stripe in that second (loads[:k])
	k     int32    // live stripes
	top   int32    // the most stripes the key has had: Count sums 0..top-1
	next  int32    // round-robin / least-loaded pick
}

// stripeSkip is, with the client and least-loaded, what a key keeps of its
// failed stripes (beside its stripeState): skip[j] is 0 for an available
// stripe, t > 0 for one skipped until t, −1 for one whose probe is in
// flight; skipped counts the stripes not available, and uneven is set when
// a skip has left this second's loads off the m+1 / m pattern.
type stripeSkip struct {
	skip    []int64
	skipped int32
	uneven  bool
}

// NewStriped returns a striped counter on store with the parameters p; seed
// seeds the random selection and the hashes.
func NewStriped(p StripedParams, store strategies.Store, seed uint64) (*Striped, error) {
	return newStriped("striped", p, store, seed)
}

func newStriped(name string, p StripedParams, store strategies.Store, seed uint64) (*Striped, error) {
	if err := strategies.ValidateWith(name, &p); err != nil {
		return nil, err
	}
	if store == nil {
		return nil, strategies.NeedsCluster(name)
	}
	o := newHotOpts(p.Read, p.TTL, p.Dedup)
	sel := p.Select
	st := workload.SplitMix(seed ^ 0x7374726970656421) // "striped!"
	s := &Striped{
		name:        name,
		base:        p.Stripes,
		max:         p.Stripes,
		sel:         sel,
		growAbove:   p.GrowAbove,
		shrinkBelow: p.ShrinkBelow,
		adaptive:    p.GrowAbove > 0,
		io:          newHotIO(store, o),
	}
	s.io.tagged = p.HashTag
	s.predict = p.predictRule()
	if s.adaptive || s.predict != nil {
		s.max = p.maxStripes()
	}
	s.rng.Seed(st.Uint64(), st.Uint64())
	s.hseed = st.Uint64()
	s.perKey = s.adaptive || s.predict != nil || sel == SelectRoundRobin || sel == SelectLeastLoaded
	s.loads = s.adaptive || sel == SelectLeastLoaded
	s.keys, s.keySeed = ds.NewDense[struct{}](16), st.Uint64()
	if o.dedup > 0 {
		s.dd = newDedupWindow(o.dedup, seed)
	}
	s.cp, s.probe = p.ClientParams, int64(cmp.Or(p.Probe, time.Second))
	s.startClient(newHotClient(p.ClientParams, store, false))
	return s, nil
}

// slot returns the slot of the key of e, creating its state and cache
// entry on first sight: its first K predicted from e's Actor (the author's
// followers) when the design predicts.
func (s *Striped) slot(e *workload.Event) int32 {
	i, added := s.keys.Slot(e.Key, s.keySeed)
	if added {
		s.io.addKey()
		if s.perKey {
			k := s.base
			if s.predict != nil {
				k = s.predict.stripes(e.Actor, s.base, s.max)
			}
			st := stripeState{sec: e.At / 1e9, k: int32(k), top: int32(k)}
			if s.loads {
				st.loads = make([]uint32, k)
			}
			s.state = append(s.state, st)
			if s.skipping() {
				s.skips = append(s.skips, stripeSkip{skip: make([]int64, k)})
			}
		}
	}
	return i
}

// Observe sends the batch's writes and reads to the store in one Do call
// (more for a batch of over 65,536 operations).
func (s *Striped) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		if s.io.full() {
			s.io.send()
		}
		if s.io.cl != nil {
			s.io.advance(e.At)
		}
		switch e.Op {
		case workload.Read:
			k, slot := s.base, int32(-1)
			if s.perKey || s.io.cache {
				slot = s.slot(e)
				if s.perKey {
					s.roll(slot, e.Key, e.At)
					k = int(s.state[slot].k)
				}
			}
			s.io.read(e.At, e.Key, k, slot)
		case workload.Write:
			if e.Delta <= 0 || (s.dd != nil && s.dd.seen(e.ID, e.At)) {
				continue
			}
			j := s.pick(e)
			if s.io.cl == nil {
				s.io.incr(e.At, e.Key, j, e.Delta)
				continue
			}
			var flags uint8
			if s.probing {
				flags, s.probing = metaProbe, false
			}
			s.io.incrClient(e.At, e.Key, j, e.Delta, e.ID, s.lastSlot, flags)
		}
	}
	s.io.send()
}

// pick chooses the stripe of a write.
func (s *Striped) pick(e *workload.Event) int {
	if !s.perKey {
		s.lastSlot = -1
		switch {
		case s.base == 1:
			return 0
		case s.sel == SelectHash:
			return int(ds.Reduce(workload.Mix64(e.ID^s.hseed), uint64(s.base)))
		default:
			return int(ds.Reduce(s.rng.Uint64(), uint64(s.base)))
		}
	}
	slot := s.slot(e)
	s.lastSlot = slot
	s.roll(slot, e.Key, e.At)
	st := &s.state[slot]
	var j int32
	if s.skips != nil {
		if sk := &s.skips[slot]; sk.skipped > 0 || sk.uneven {
			j = s.pickAround(st, sk, e.At)
			st.loads[j]++
			return int(j)
		}
	}
	switch s.sel {
	case SelectRandom:
		j = int32(ds.Reduce(s.rng.Uint64(), uint64(st.k)))
	case SelectHash:
		j = int32(ds.Reduce(workload.Mix64(e.ID^s.hseed), uint64(st.k)))
	default: // round-robin, least-loaded
		j = st.next
		if st.next++; st.next == st.k {
			st.next = 0
		}
	}
	if s.loads {
		st.loads[j]++
	}
	return int(j)
}

// roll starts a new simulated second for the key when at is in one:
// adapts K to the last full second, then restarts the loads.
func (s *Striped) roll(slot int32, key uint64, at int64) {
	st := &s.state[slot]
	sec := at / 1e9
	if sec == st.sec {
		return
	}
	if s.adaptive {
		s.adapt(slot, key, at, sec)
		st = &s.state[slot]
	}
	if s.loads {
		clear(st.loads[:st.k])
	}
	if s.sel == SelectLeastLoaded {
		st.next = 0
	}
	if s.skips != nil {
		s.skips[slot].uneven = false
	}
	st.sec = sec
}

// adapt applies the grow and shrink rules for the seconds from st.sec to
// sec: the last second with events, then the idle ones.
func (s *Striped) adapt(slot int32, key uint64, at, sec int64) {
	st := &s.state[slot]
	k := int(st.k)
	busiest := float64(slices.Max(st.loads[:k]))
	nk := k
	switch {
	case busiest > s.growAbove:
		nk = min(2*k, s.max)
	case s.shrinkBelow > 0 && busiest < s.shrinkBelow:
		nk = max(k/2, s.base)
	}
	if s.shrinkBelow > 0 {
		for idle := sec - st.sec - 1; idle > 0 && nk > s.base; idle-- {
			nk = max(nk/2, s.base)
		}
	}
	switch {
	case nk > k:
		if len(st.loads) < nk {
			st.loads = append(st.loads, make([]uint32, nk-len(st.loads))...)
		}
		if s.skips != nil && len(s.skips[slot].skip) < nk {
			sk := &s.skips[slot]
			sk.skip = append(sk.skip, make([]int64, nk-len(sk.skip))...)
		}
		st.top = max(st.top, int32(nk))
		s.grows++
	case nk < k:
		// Fold stripes nk..k-1 into 0..nk-1. Final counts only ops sent.
		s.io.send()
		for j := nk; j < k; j++ {
			if v := s.io.store.Final(stripeKey(key, j)); v != 0 {
				s.io.incr(at, key, j, -v)
				s.io.incr(at, key, j%nk, v)
			}
		}
		s.shrinks++
	}
	s.grown += int64(nk - k)
	st.k = int32(nk)
	if st.next >= st.k {
		st.next = 0
	}
}

// Count returns the key's count once every operation sent is served: the
// sum of its stripes' final values (0 if negative).
func (s *Striped) Count(key uint64) uint64 {
	s.finish()
	top := s.base
	if s.perKey {
		if slot := s.keys.Find(key, s.keySeed); slot >= 0 {
			top = int(s.state[slot].top)
		}
	}
	var sum int64
	for j := range top {
		sum += s.io.store.Final(stripeKey(key, j))
	}
	return uint64(max(sum, 0))
}

// stripesOf returns the key's live stripes K now.
func (s *Striped) stripesOf(key uint64) int {
	if s.perKey {
		if slot := s.keys.Find(key, s.keySeed); slot >= 0 {
			return int(s.state[slot].k)
		}
	}
	return s.base
}

// Shown returns the value shown for each Read event, in stream order.
func (s *Striped) Shown() []int64 {
	s.finish()
	return s.io.shown
}

// Deduplicating reports whether the design drops resends (Deduper).
func (s *Striped) Deduplicating() bool { return s.dd != nil }

// Dropped returns the writes dropped as resends within the dedup window.
func (s *Striped) Dropped() int64 {
	if s.dd == nil {
		return 0
	}
	return s.dd.dropped
}

// Bytes is the memory of the op buffer, the per-key state and cache, and the
// dedup window.
func (s *Striped) Bytes() int64 {
	b := s.io.bytes() + s.keys.Bytes() + int64(cap(s.state))*int64(unsafe.Sizeof(stripeState{}))
	for i := range s.state {
		b += int64(cap(s.state[i].loads)) * 4
	}
	if s.skips != nil {
		b += int64(cap(s.skips)) * int64(unsafe.Sizeof(stripeSkip{}))
		for i := range s.skips {
			b += int64(cap(s.skips[i].skip)) * 8
		}
	}
	if s.dd != nil {
		b += s.dd.bytes()
	}
	return b
}

// check validates the invariants between batches: the key table and
// buffers; per key, base ≤ k ≤ top ≤ max and a pick below k; with
// least-loaded, that the pick is the least-loaded stripe (loads m+1 before
// it, m from it); and that every stripe removed by a shrink holds 0 once
// served (folding lost nothing).
func (s *Striped) check() error {
	if err := s.keys.Check(s.keySeed); err != nil {
		return err
	}
	if err := s.io.check(s.keys.Len()); err != nil {
		return err
	}
	if want := s.keys.Len(); len(s.state) != want && (s.perKey || len(s.state) != 0) {
		return fmt.Errorf("%s: %d key states for %d keys (state per key: %v)", s.name, len(s.state), want, s.perKey)
	}
	for slot := range s.state {
		st := &s.state[slot]
		key := s.keys.Keys[slot]
		k := int(st.k)
		if k < s.base || k > int(st.top) || int(st.top) > s.max || st.next < 0 || st.next >= st.k {
			return fmt.Errorf("%s: key %d: k %d, top %d, next %d, stripes %d..%d", s.name, key, k, st.top, st.next, s.base, s.max)
		}
		if s.loads != (st.loads != nil) || (s.loads && len(st.loads) < k) {
			return fmt.Errorf("%s: key %d: %d loads for %d stripes", s.name, key, len(st.loads), k)
		}
		if s.sel == SelectLeastLoaded && (s.skips == nil || !s.skips[slot].uneven && s.skips[slot].skipped == 0) {
			m := st.loads[k-1]
			for j, l := range st.loads[:k] {
				if want := m + stripeBit(int32(j) < st.next); l != want {
					return fmt.Errorf("%s: key %d: stripe %d has %d increments this second, want %d (pick %d)", s.name, key, j, l, want, st.next)
				}
			}
		}
		for j := k; j < int(st.top); j++ {
			if v := s.io.store.Final(stripeKey(key, j)); v != 0 {
				return fmt.Errorf("%s: key %d: removed stripe %d holds %d", s.name, key, j, v)
			}
		}
	}
	if s.skips != nil {
		if len(s.skips) != len(s.state) {
			return fmt.Errorf("%s: %d skip states for %d keys", s.name, len(s.skips), len(s.state))
		}
		for slot, sk := range s.skips {
			n := int32(0)
			for _, t := range sk.skip {
				if t != 0 {
					n++
				}
			}
			if n != sk.skipped || len(sk.skip) < int(s.state[slot].k) {
				return fmt.Errorf("%s: key %d: %d stripes skipped, counted %d; %d skip states for %d stripes", s.name, s.keys.Keys[slot], n, sk.skipped, len(sk.skip), s.state[slot].k)
			}
		}
	}
	if err := s.io.cl.check(len(s.io.ops), len(s.io.refreshes)); err != nil {
		return err
	}
	if s.dd != nil {
		return s.dd.check()
	}
	return nil
}

func stripeBit(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

var (
	_ strategies.PointCounter = (*Striped)(nil)
	_ strategies.Reader       = (*Striped)(nil)
	_ strategies.Deduper      = (*Striped)(nil)
	_ strategies.Faultable    = (*Striped)(nil)
	_ strategies.FaultClient  = (*Striped)(nil)
)

func init() {
	strategies.Define("striped", "striped counter: K sub-counters of a key in the store (random, round-robin, hash or least-loaded), K fixed or following the load; reads sum the stripes or a cache",
		func(p *StripedParams, env strategies.Env) (strategies.Strategy, error) {
			s, err := NewStriped(*p, env.Store, env.Seed)
			if err != nil {
				return nil, err
			}
			s.io.reserve(env.Reads)
			return s, nil
		},
		stripedPlan, strategies.OnServers, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyReader))
}

// hotReadPlan: the store reads a second of K stripes read at readRate (sum:
// K a read; cache: K a refresh, at most one refresh per ttl), and with a
// cache the oldest value shown, ttl plus the hold-back of a batching design.
// Without reads there is nothing to plan.
func hotReadPlan(o hotOpts, k, readRate float64, hold int64) []strategies.PlanLine {
	if readRate <= 0 {
		return nil
	}
	var lines []strategies.PlanLine
	if !o.cache {
		lines = append(lines, strategies.PlanLine{Metric: metrics.ReadOpsPerSec, Value: readRate * k, Unit: "ops/s",
			Note: fmt.Sprintf("reads × K = %s × %s: one GET per stripe a read", strategies.Num(readRate), strategies.Num(k))})
	} else {
		ttl := float64(o.ttl) / 1e9
		refresh, note := 1/ttl, fmt.Sprintf("K / ttl = %s / %s: one refresh of K GETs per ttl while reads come", strategies.Num(k), strategies.Secs(o.ttl))
		if readRate < refresh {
			refresh, note = readRate, fmt.Sprintf("reads × K = %s × %s: reads come less often than every ttl", strategies.Num(readRate), strategies.Num(k))
		}
		lines = append(lines, strategies.PlanLine{Metric: metrics.ReadOpsPerSec, Value: refresh * k, Unit: "ops/s", Note: note})
	}
	if o.cache || hold > 0 {
		var note string
		switch {
		case o.cache && hold > 0:
			note = fmt.Sprintf("flush interval + ttl = %s + %s: a write waits for its server's flush, then a cached total is shown until ttl old", strategies.Secs(hold), strategies.Secs(o.ttl))
		case o.cache:
			note = fmt.Sprintf("ttl = %s: a cached total is shown until it is ttl old", strategies.Secs(o.ttl))
		default:
			note = fmt.Sprintf("flush interval = %s: a write is held until its server flushes", strategies.Secs(hold))
		}
		lines = append(lines, strategies.PlanLine{Metric: metrics.StalenessMaxSec, Value: float64(o.ttl+hold) / 1e9, Unit: "s", Note: note})
	}
	return lines
}

// The striped counter as a client under store faults (client.go). With
// select: least-loaded the selection routes around a failed stripe: a
// stripe one of whose writes failed (its timeout, or a refusal) is skipped
// from the time the client learned of it for probe (default 1 s); then the
// next write of the key goes to it as a probe, and the stripe stays skipped
// until the probe's answer — available again if it was answered, skipped
// for another probe if not. While a stripe is skipped, or a skip has ended
// within the current second, a write goes to the least-loaded stripe of
// those available (lowest index on ties, O(K)); with every stripe skipped,
// to the usual pick. A least-loaded write whose retries all failed is
// rerouted once: sent again (the same idempotency id) to the least-loaded
// available stripe other than its own, at the time its next retry would
// have gone (Rerouted); if that fails too, it is given up (Failed). A
// reroute of a write that had landed on a slow node counts it twice even
// when idempotent: the store's idempotency is per key. Random, round-robin
// and hash keep picking a failed stripe, and so fail about the share of
// the stripes on a failed node.

// startClient puts the client cl (nil: none) in place.
func (s *Striped) startClient(cl *hotClient) {
	if cl == nil {
		return
	}
	s.io.cl = cl
	cl.track = s.sel == SelectLeastLoaded
	cl.after = s.afterSend
	if s.skipping() {
		s.skips = make([]stripeSkip, len(s.state), cap(s.state))
		for i := range s.state {
			s.skips[i].skip = make([]int64, max(len(s.state[i].loads), int(s.state[i].k)))
		}
	}
}

// skipping reports whether the selection routes around failed stripes.
func (s *Striped) skipping() bool { return s.io.cl != nil && s.sel == SelectLeastLoaded }

// pickAround is least-loaded's pick while a stripe is skipped: a probe of
// a stripe whose skip is over, else the least-loaded available stripe.
func (s *Striped) pickAround(st *stripeState, sk *stripeSkip, at int64) int32 {
	k := st.k
	best := int32(-1)
	for j := range k {
		switch t := sk.skip[j]; {
		case t > 0 && t <= at:
			sk.skip[j] = -1
			s.probing = true
			return j
		case t == 0 && (best < 0 || st.loads[j] < st.loads[best]):
			best = j
		}
	}
	if best < 0 {
		best = st.next
		if st.next++; st.next == st.k {
			st.next = 0
		}
	}
	return best
}

// afterSend acts on the writes' fates the client learned by upto, in the
// order it learned them: a failed stripe skipped, a probe's answer, a
// write given up rerouted or failed.
func (s *Striped) afterSend(upto int64) {
	cl := s.io.cl
	for r := cl.next(upto); r != nil; r = cl.next(upto) {
		if s.skipping() && r.m.slot >= 0 {
			s.mark(&s.state[r.m.slot], &s.skips[r.m.slot], r)
		}
		if r.ok || (int(r.m.tries) < cl.retries && r.m.flags&metaRerouted == 0) {
			continue
		}
		if s.skipping() && r.m.slot >= 0 && r.m.flags&metaRerouted == 0 {
			if j := s.rerouteTo(&s.state[r.m.slot], &s.skips[r.m.slot], r.m.j); j >= 0 {
				op := s.io.incrOp(0, r.m.key, int(j), r.op.Delta, r.op.Member)
				op.At = max(cl.retryAt(r.learn, r.m.tries), s.io.last)
				m := r.m
				m.j, m.flags = j, metaRerouted
				cl.push(op, m)
				cl.counts.Rerouted++
				continue
			}
		}
		cl.counts.Failed++
	}
}

// mark applies a write's fate to its stripe: a failure skips it until
// probe after the client learned of it; a probe answered makes it
// available again, with the least load of the available stripes this
// second — else, having taken no writes while skipped, it would take
// every write until it caught up, a burst far over a key's capacity.
func (s *Striped) mark(st *stripeState, sk *stripeSkip, r *writeResult) {
	j := r.m.j
	if j >= int32(len(sk.skip)) || j >= st.k {
		return
	}
	switch {
	case r.ok && sk.skip[j] == -1:
		sk.skip[j] = 0
		sk.skipped--
		sk.uneven = true
		least := uint32(math.MaxUint32)
		for i := range st.k {
			if sk.skip[i] == 0 && i != j {
				least = min(least, st.loads[i])
			}
		}
		if least != math.MaxUint32 {
			st.loads[j] = max(st.loads[j], least)
		}
	case !r.ok && sk.skip[j] == 0:
		sk.skip[j] = r.learn + s.probe
		sk.skipped++
	case !r.ok:
		sk.skip[j] = max(sk.skip[j], r.learn+s.probe)
	}
}

// rerouteTo is the least-loaded available stripe other than j, or −1.
func (s *Striped) rerouteTo(st *stripeState, sk *stripeSkip, j int32) int32 {
	best := int32(-1)
	for i := range st.k {
		if i != j && sk.skip[i] == 0 && (best < 0 || st.loads[i] < st.loads[best]) {
			best = i
		}
	}
	return best
}

// finish sends what the client still has queued, at its times: the
// retries due after the stream's last event, before the design answers.
func (s *Striped) finish() {
	if cl := s.io.cl; cl != nil && (len(cl.queue) > 0 || len(s.io.ops) > 0 || cl.done < len(cl.results)) {
		s.io.drain()
	}
}

// Fault turns the client on when the store fails (a store fault), so that
// the design sees the failures even with no client parameter given: no
// timeout, no retry. Other faults are not the design's.
func (s *Striped) Fault(f strategies.Fault) {
	if !f.Kind.StoreFault() || f.Kind == strategies.NodeLoss || s.io.cl != nil {
		return
	}
	s.io.send()
	s.startClient(newHotClient(s.cp, s.io.store, true))
}

// Clienting reports whether the design sends with DoClient.
func (s *Striped) Clienting() bool { return s.io.cl != nil }

// ClientCounts returns the client's own counts (client.go).
func (s *Striped) ClientCounts() strategies.ClientCounts {
	s.finish()
	return s.io.clientCounts()
}

// StoreKeys appends the store keys of key's live stripes, with their Tag.
func (s *Striped) StoreKeys(key uint64, dst []uint64) ([]uint64, uint64) {
	for j := range s.stripesOf(key) {
		dst = append(dst, stripeKey(key, j))
	}
	return dst, s.io.tagOf(key)
}
