package hot

import (
	"fmt"
	"time"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/workload"
)

// The single-key counter: the design every hot-counter review starts from.
// Each write is one INCRBY on the key's one store key (UPDATE … SET likes =
// likes + 1 in the likes seed), at the write's time. One key serves at most
// C increments a second, so a peak of R > C a second queues: the backlog
// grows by R − C each second (cricket final: 200,000 − 10,000 = 190,000) and
// the delay before a write is visible grows with it. Reads are one GET, or a
// cached total (readpath.go); dedup drops resends within a window (dedup.go).
//
// It is the striped counter with one stripe (its store key is stripe 0 of
// the key), with a plan of its own: the load, utilisation and backlog of the
// one key.

// SingleKeyParams are the parameters of a single-key counter: the read path
// and the dedup window.
type SingleKeyParams struct {
	Read  ReadPath      `key:"read" default:"sum" doc:"what a Read event shows: sum (one GET of the key at the read's time) or cache (the total cached per key, refreshed by a read that finds it ttl old or older)"`
	TTL   time.Duration `key:"ttl" range:">0" doc:"with read: cache, how long a cached total is shown"`
	Dedup time.Duration `key:"dedup" range:">=0" defaultdoc:"0: off" doc:"dedup window: drop a write whose ID was seen less than this long before"`
	// ClientParams: timeout, retries, backoff, idempotent writes (client.go).
	ClientParams
}

// Validate checks the read path with the ttl, and the client parameters.
func (p SingleKeyParams) Validate() error {
	if err := p.ClientParams.check(); err != nil {
		return err
	}
	return checkReads(p.Read, p.TTL)
}

// SingleKey is a single-key counter on a Store: a PointCounter (Count is the
// key's value once every write is served) and a Reader. Observe costs one
// XXH64 a write. Not safe for concurrent use.
type SingleKey struct {
	s *Striped
}

// NewSingleKey returns a single-key counter on store; seed seeds the dedup
// window's hash.
func NewSingleKey(p SingleKeyParams, store strategies.Store, seed uint64) (*SingleKey, error) {
	if err := strategies.ValidateWith("single-key", &p); err != nil {
		return nil, err
	}
	s, err := newStriped("single-key", StripedParams{Stripes: 1, Read: p.Read, TTL: p.TTL, Dedup: p.Dedup, ClientParams: p.ClientParams}, store, seed)
	if err != nil {
		return nil, err
	}
	return &SingleKey{s: s}, nil
}

// Observe sends the batch's writes and reads to the store in one Do call.
func (c *SingleKey) Observe(batch []workload.Event) { c.s.Observe(batch) }

// Count returns the key's value once every operation sent is served.
func (c *SingleKey) Count(key uint64) uint64 { return c.s.Count(key) }

// Shown returns the value shown for each Read event, in stream order.
func (c *SingleKey) Shown() []int64 { return c.s.Shown() }

// Dropped returns the writes dropped as resends within the dedup window.
func (c *SingleKey) Dropped() int64 { return c.s.Dropped() }

// Deduplicating reports whether the design drops resends (Deduper).
func (c *SingleKey) Deduplicating() bool { return c.s.Deduplicating() }

// Bytes is the memory of the op buffer, the read cache and the dedup window.
func (c *SingleKey) Bytes() int64 { return c.s.Bytes() }

func (c *SingleKey) check() error { return c.s.check() }

// Fault turns the client on when the store fails (Striped.Fault).
func (c *SingleKey) Fault(f strategies.Fault) { c.s.Fault(f) }

// Clienting reports whether the design sends with DoClient.
func (c *SingleKey) Clienting() bool { return c.s.Clienting() }

// ClientCounts returns the client's own counts (client.go).
func (c *SingleKey) ClientCounts() strategies.ClientCounts { return c.s.ClientCounts() }

// StoreKeys appends the key's one store key, with its Tag.
func (c *SingleKey) StoreKeys(key uint64, dst []uint64) ([]uint64, uint64) {
	return c.s.StoreKeys(key, dst)
}

var (
	_ strategies.PointCounter = (*SingleKey)(nil)
	_ strategies.Reader       = (*SingleKey)(nil)
	_ strategies.Deduper      = (*SingleKey)(nil)
	_ strategies.FaultClient  = (*SingleKey)(nil)
)

func init() {
	strategies.Define("single-key", "single-key counter: every write is one INCRBY on the key in the store; over a key's capacity the backlog grows",
		func(p *SingleKeyParams, env strategies.Env) (strategies.Strategy, error) {
			c, err := NewSingleKey(*p, env.Store, env.Seed)
			if err != nil {
				return nil, err
			}
			c.s.io.reserve(env.Reads)
			return c, nil
		},
		singleKeyPlan, strategies.OnServers, strategies.Answers(strategies.FamilyPointCounter, strategies.FamilyReader))
}

// singleKeyPlan: the one key takes the whole peak.
func singleKeyPlan(p *SingleKeyParams, env strategies.Env) []strategies.PlanLine {
	o := newHotOpts(p.Read, p.TTL, p.Dedup)
	lines := []strategies.PlanLine{
		{Metric: metrics.Stripes, Value: 1, Unit: "stripes", Note: "the key itself: one store key a counted key"},
		{Metric: metrics.KeysUsed, Value: 1, Unit: "keys", Note: "the key itself"},
	}
	return append(lines, strategies.AtBothScales(env, func(a strategies.Assumptions) []strategies.PlanLine {
		var lines []strategies.PlanLine
		if rate, capa := a.PeakRate, a.KeyCapacity; rate > 0 {
			lines = append(lines, strategies.PlanLine{Metric: metrics.MaxKeyOps, Value: rate, Unit: "ops/s",
				Note: fmt.Sprintf("every write is an INCRBY on the one key: the peak, %s a second", strategies.Num(rate))})
			if capa > 0 {
				lines = append(lines,
					strategies.PlanLine{Metric: metrics.Utilisation, Value: rate / capa, Unit: "share",
						Note: fmt.Sprintf("%s / %s = %s of a key's capacity", strategies.Num(rate), strategies.Num(capa), strategies.Pct(rate/capa))},
					strategies.PlanLine{Metric: metrics.BacklogGrowth, Value: max(0, rate-capa), Unit: "ops/s",
						Note: fmt.Sprintf("max(0, %s − %s): what the key's queue grows by each second", strategies.Num(rate), strategies.Num(capa))})
			}
		}
		lines = append(lines, hotReadPlan(o, 1, a.ReadRate, 0)...)
		return append(lines, hotDedupPlan(o, a.PeakRate)...)
	})...)
}

// hotDedupPlan: the IDs a dedup window remembers at the peak.
func hotDedupPlan(o hotOpts, rate float64) []strategies.PlanLine {
	if o.dedup == 0 || rate <= 0 {
		return nil
	}
	ids := rate * float64(o.dedup) / 1e9
	return []strategies.PlanLine{{Metric: metrics.DedupIDs, Value: ids, Unit: "ids",
		Note: fmt.Sprintf("peak × window = %s × %s: IDs remembered, 16 B of ring and ≥ 24 B of table each", strategies.Num(rate), strategies.Secs(o.dedup))}}
}
