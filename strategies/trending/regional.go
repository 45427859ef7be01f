package trending

import (
	"time"
	"unsafe"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Regional counters (seeds/004_da9650328d65994f.txt, "Using sharded
// counters for the top K problem"): every region counts each hashtag in a
// counter of its own; a hashtag whose regional count reaches a threshold
// (the seed's 10,000) trends in that region; every Period each region sends
// what it counted since the last time to the global counter, the sum of
// the regional ones, which answers the global top K.
//
// What it costs and what it shows. A region flags a hashtag the moment its
// own count reaches the threshold: nothing waits for the global counter.
// The global counter is the regions' sum as of the last send, so it lags
// the truth by at most a period's counts; a send is one message a region
// with news, carrying every hashtag it counted since the last. Counts are
// since the stream's start (the seed's "within a set time" is the stream),
// so the global answer is a window as long as the stream (TrendLaw with
// one bucket of the stream's duration).

// RegionalParams are the parameters of the regional counters.
type RegionalParams struct {
	Regions   int           `key:"regions" range:"1..4096" defaultdoc:"the stream's (an event's actor is its region)" doc:"regions"`
	Period    time.Duration `key:"period" range:">0" default:"10s" doc:"how often each region sends what it counted to the global counter"`
	Threshold int64         `key:"threshold" range:">=1" default:"10000" doc:"a hashtag counted this often in a region trends there (10,000: the seed's figure)"`
}

// resolve takes the regions from the stream when not given, and needs a
// timed stream (its duration is the global answer's window).
func (p RegionalParams) resolve(env strategies.Env) (RegionalParams, error) {
	if p.Regions == 0 {
		if env.Nodes == 0 {
			return p, &strategies.ParamError{Key: "regions", Msg: "required: the stream has no regions (allowed: 1..4096)"}
		}
		p.Regions = env.Nodes
	}
	if env.Duration <= 0 {
		return p, &strategies.ParamError{Key: "period", Msg: "needs a stream over simulated time (a trending run)"}
	}
	return p, nil
}

// Regional is the regional counters: a Trending design (the global top K),
// a RegionFlagger and Distributed (what the regions sent). Not safe for
// concurrent use.
type Regional struct {
	p        RegionalParams
	regions  []ds.CountTable // each region's counts since the start
	pending  []ds.CountTable // each region's counts since its last send
	global   ds.CountTable   // the regions' sum as of the last send
	flagged  map[uint64]struct{}
	flags    []strategies.RegionFlag
	seed     uint64
	period   int64
	next     int64 // the next send, ns
	duration int64
	store    strategies.Store
	key      uint64
	ops      []strategies.StoreOp
	msgs     int64
	items    int64
}

var (
	_ strategies.TrendScorer   = (*Regional)(nil)
	_ strategies.RegionFlagger = (*Regional)(nil)
	_ strategies.Distributed   = (*Regional)(nil)
)

// NewRegional returns the regional counters for env (its regions, its
// duration, its Store: nil accounts no load).
func NewRegional(p RegionalParams, env strategies.Env) (*Regional, error) {
	if err := strategies.ValidateWith("regional", &p); err != nil {
		return nil, err
	}
	p, err := p.resolve(env)
	if err != nil {
		return nil, strategies.WithType("regional", err)
	}
	r := &Regional{p: p, flagged: map[uint64]struct{}{}, seed: workload.SplitMix64(env.Seed ^ 0x726567696f6e),
		period: int64(p.Period), next: int64(p.Period), duration: env.Duration, store: env.Store}
	r.key = workload.Mix64(r.seed ^ 0x676c6f62616c) // "global"
	for range p.Regions {
		var a, b ds.CountTable
		a.Init(64, r.seed)
		b.Init(64, r.seed)
		r.regions, r.pending = append(r.regions, a), append(r.pending, b)
	}
	r.global.Init(64, r.seed)
	return r, nil
}

func init() {
	strategies.Define("regional", "a counter per region, a hashtag trending in a region at a threshold (10,000), the regions summed into a global counter every period (seed 004)",
		func(p *RegionalParams, env strategies.Env) (strategies.Strategy, error) { return NewRegional(*p, env) },
		regionalPlan, strategies.Answers(strategies.FamilyTrending),
		strategies.CheckedBy(func(p *RegionalParams, env strategies.Env) error { _, err := p.resolve(env); return err }))
}

func regionalPlan(p *RegionalParams, env strategies.Env) []strategies.PlanLine {
	q, err := p.resolve(env)
	if err != nil {
		return nil
	}
	lines := []strategies.PlanLine{
		{Metric: metrics.Nodes, Value: float64(q.Regions), Unit: "regions", Note: "a counter a hashtag in each"},
		{Metric: metrics.GlobalLag, Value: q.Period.Seconds(), Unit: "s", Note: "the period: the global counter is the regions' sum at most this long ago"},
	}
	if env.Duration > 0 {
		sends := float64((env.Duration + int64(q.Period) - 1) / int64(q.Period))
		lines = append(lines, strategies.PlanLine{Metric: metrics.Messages, Value: sends * float64(q.Regions), Unit: "messages",
			Note: "regions × periods, at most: a send a region with news a period"})
	}
	return lines
}

// regionOf returns an event's region: its actor, folded onto the regions.
func (r *Regional) regionOf(e *workload.Event) int {
	return int(e.Actor % uint64(len(r.regions)))
}

// Observe counts each write in its region (and in the region's news since
// its last send), flags a hashtag whose regional count reaches the
// threshold, and sends every region's news at each period's end it passes.
// The send at a period's end t carries the writes before t: a write at t
// itself is counted after that send, and goes with the next.
func (r *Regional) Observe(batch []workload.Event) {
	r.ops = r.ops[:0]
	for i := range batch {
		e := &batch[i]
		for e.At >= r.next {
			r.send(r.next)
			r.next += r.period
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		g := r.regionOf(e)
		h := workload.Mix64(e.Key ^ r.seed)
		d := uint64(e.Delta)
		reg := &r.regions[g]
		reg.Add(h, e.Key, d)
		r.pending[g].Add(h, e.Key, d)
		if c := reg.GetAt(h, e.Key); c >= uint64(r.p.Threshold) && c-d < uint64(r.p.Threshold) {
			r.flag(g, e.Key, e.At)
		}
	}
	r.flush()
}

// flag records (region, key), the first time it reaches the threshold.
func (r *Regional) flag(g int, key uint64, at int64) {
	id := workload.Mix64(key ^ uint64(g)*0x9e3779b97f4a7c15)
	if _, ok := r.flagged[id]; ok {
		return
	}
	r.flagged[id] = struct{}{}
	r.flags = append(r.flags, strategies.RegionFlag{Region: g, Key: key, At: at})
}

// send adds every region's news to the global counter at time at, an
// INCRBY a hashtag on the global key, and empties the news. A hashtag's
// INCRBYs from every region go one after the other (the regions in order):
// the store takes them as one run on its key (a send at one time, whatever
// the order of its keys, loads each key and node alike).
func (r *Regional) send(at int64) {
	for g := range r.pending {
		if r.pending[g].Len() > 0 {
			r.msgs++
		}
	}
	for g := range r.pending {
		p := &r.pending[g]
		for i := range p.Slots {
			s := &p.Slots[i]
			if s.Count == 0 {
				continue
			}
			key := s.Key
			h, k := workload.Mix64(key^r.seed), workload.Mix64(key^r.key)
			r.sendItem(at, h, key, k, s.Count)
			for q := range r.pending[g+1:] {
				r.sendFrom(&r.pending[g+1+q], at, h, key, k)
			}
		}
		p.Reset()
	}
}

// sendFrom sends key's news in p, if it holds any, and deletes it there.
func (r *Regional) sendFrom(p *ds.CountTable, at int64, h, key, k uint64) {
	if p.Len() == 0 {
		return
	}
	for i := h & p.Mask; ; i = (i + 1) & p.Mask {
		s := &p.Slots[i]
		if s.Count == 0 {
			return
		}
		if s.Key == key {
			r.sendItem(at, h, key, k, s.Count)
			p.DeleteAt(i)
			return
		}
	}
}

// sendItem adds c of key (hash h, store key k) to the global counter and
// sends it.
func (r *Regional) sendItem(at int64, h, key, k, c uint64) {
	r.global.Add(h, key, c)
	r.ops = append(r.ops, strategies.StoreOp{At: at, Kind: strategies.IncrBy, Key: k, Delta: int64(c)})
	r.items++
}

// flush hands the ops gathered to the store.
func (r *Regional) flush() {
	if r.store != nil && len(r.ops) > 0 {
		r.store.Do(r.ops, nil)
	}
	r.ops = r.ops[:0]
}

// due sends what a period's end at or before now would have sent.
func (r *Regional) due(now int64) {
	r.ops = r.ops[:0]
	for now >= r.next {
		r.send(r.next)
		r.next += r.period
	}
	r.flush()
}

// Trending returns the global counter's top K at now, as of the last send.
func (r *Regional) Trending(k int, now int64) []strategies.Trend {
	r.due(now)
	if k <= 0 {
		return []strategies.Trend{}
	}
	items := ds.TopCounts(&r.global, k)
	ds.SortItems(items)
	out := make([]strategies.Trend, len(items))
	for i, it := range items {
		out[i] = strategies.Trend{Key: it.Key, Score: float64(it.Count)}
	}
	return out
}

// TrendScore is key's global count at now, as of the last send.
func (r *Regional) TrendScore(key uint64, now int64) float64 {
	r.due(now)
	return float64(r.global.GetAt(workload.Mix64(key^r.seed), key))
}

// Law: counts since the start, one bucket as long as the stream.
func (r *Regional) Law() strategies.TrendLaw {
	return strategies.TrendLaw{Window: r.duration, Bucket: r.duration}
}

// Flags returns the (region, key) pairs flagged, in order.
func (r *Regional) Flags() []strategies.RegionFlag { return r.flags }

// Threshold is the regional count that flags.
func (r *Regional) Threshold() int64 { return r.p.Threshold }

// Coordination: a message a region a send with news, and the hashtags it
// carried, 16 B each.
func (r *Regional) Coordination() (messages, items, bytes int64) {
	return r.msgs, r.items, 16 * r.items
}

// NodeBytes is the largest region's counters and news.
func (r *Regional) NodeBytes() int64 {
	var most int64
	for g := range r.regions {
		most = max(most, r.regions[g].Bytes()+r.pending[g].Bytes())
	}
	return most
}

// Bytes is every region's, the global counter's and the flags'.
func (r *Regional) Bytes() int64 {
	b := r.global.Bytes() + int64(cap(r.flags))*int64(unsafe.Sizeof(strategies.RegionFlag{})) + int64(len(r.flagged))*16
	for g := range r.regions {
		b += r.regions[g].Bytes() + r.pending[g].Bytes()
	}
	return b
}
