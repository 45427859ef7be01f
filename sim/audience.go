package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/workload"
	"fmt"
	"math"
	"strings"
)

// The audience: viewer ids over days with exact sizes and overlaps, for
// distinct counting (the cricket final's unique viewers). Every design is
// built afresh for each day and fed that day's views; then it is asked the
// distinct count of each day, the union of the days by merge, and the
// naive sum of the days' counts, against the audience's exact sizes.

// audienceLabel names the audience's stream in the chunk seeds.
const audienceLabel = "audience"

// audienceKind runs with the designs, a feeder, the rows and the twins'
// real stores; a design on servers gets a store of its own (store), with
// the scenario's cluster's nodes where it has one. Its days come from days:
// the generator's (audienceGen), or a recorded log's (log_audience.go).
type audienceKind struct {
	lineup *engine.Lineup
	feeder engine.Feeder
	rows   engine.ScoreRows
	twins  engine.Twins
	store  cluster.Config // the store of a design on servers: audienceCluster, or on the scenario's nodes
	batch  int
	days   audienceDays
}

// audienceDays is where an audience's days and their truth come from. The
// run asks for day 0, 1, 2, … in order, feeds each to the designs (and to
// the truth's observer, when there is one), and asks the truth once every
// day it scores is fed.
type audienceDays interface {
	// day returns the events of day d, asked in order from 0; ok is false
	// past the last day.
	day(d int) (src engine.Source, ok bool)
	// truth is the observer that works out day d's truth from its events
	// as they are fed, or nil where the truth is known by construction.
	truth(d int) engine.Observer
	// Distinct is the exact number of distinct viewers of day d, and
	// union that of days 0..days−1 together.
	Distinct(d int) int64
	union(days int) int64
	// complete reports whether days are every day there is.
	complete(days int) bool
	// finish is called once the stream has been fed whole (days days,
	// events events) or stopped, before scoring: it returns bad input
	// found in the stream, and may note in rep (and work the plans out
	// again for) what the stream turned out to hold.
	finish(rep *engine.Report, days int, events int64, stopped bool) error
}

// audienceGen is the generator's days: the audience's exact sizes and
// overlaps are its truth, known without counting anything.
type audienceGen struct{ a *workload.Audience }

func (g audienceGen) day(d int) (engine.Source, bool) {
	if d >= g.a.Days() {
		return nil, false
	}
	return daySource{g.a, d}, true
}
func (g audienceGen) truth(int) engine.Observer                     { return nil }
func (g audienceGen) Distinct(d int) int64                          { return g.a.Distinct(d) }
func (g audienceGen) complete(days int) bool                        { return days == g.a.Days() }
func (g audienceGen) finish(*engine.Report, int, int64, bool) error { return nil }
func (g audienceGen) union(days int) int64 {
	all := make([]int, days)
	for d := range all {
		all[d] = d
	}
	return g.a.Union(all...)
}

// audienceSpec is the synthetic audience's kind: its spec, for describe
// and memory, beside the runner it shares with a log's.
type audienceSpec struct {
	*audienceKind
	spec *scenarios.Audience
	a    *workload.Audience
}

func init() { engine.DefineKind("audience", newAudienceKind) }

func newAudienceKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Audience)
	a, err := workload.NewAudience(audienceConfig(h.Scn.Seed, spec))
	if err != nil {
		return nil, scenarios.Errorf(spec.Viewers.Pos, "audience: %v", err)
	}
	env := &h.Lineup.Env
	for d := range a.Days() {
		env.Keys = max(env.Keys, uint64(a.Distinct(d)))
		env.Events += a.Events(d)
	}
	runner, err := newAudienceRunner(h, spec.Batch, audienceGen{a})
	if err != nil {
		return nil, err
	}
	return &audienceSpec{audienceKind: runner, spec: spec, a: a}, nil
}

// audienceConfig is the generator's config of an audience spec, for the
// run and its sampler (log_audience.go).
func audienceConfig(seed uint64, spec *scenarios.Audience) workload.AudienceConfig {
	v := spec.Viewers
	cfg := workload.AudienceConfig{Seed: seed, Label: audienceLabel,
		Views: workload.Views{Fixed: v.Views, ZipfS: v.ViewsS, ZipfMax: uint64(v.ViewsMax)}}
	for _, d := range v.Days {
		cfg.Days = append(cfg.Days, workload.Day{Viewers: d.Viewers, Overlap: d.Overlap})
	}
	return cfg
}

// newAudienceRunner is the runner of an audience whose days come from
// days, fed in batches of batch events.
func newAudienceRunner(h *engine.Harness, batch int, days audienceDays) (*audienceKind, error) {
	store, err := audienceStore(h.Scn)
	if err != nil {
		return nil, err
	}
	return &audienceKind{lineup: h.Lineup, feeder: h.Feeder, rows: h.Rows, twins: h.Twins, store: store, batch: batch, days: days}, nil
}

func (k *audienceSpec) Describe() string {
	var days []string
	for _, d := range k.spec.Viewers.Days {
		days = append(days, fmt.Sprintf("%s viewers (%s also the day before)", metrics.Format(float64(d.Viewers)), metrics.Format(float64(d.Overlap))))
	}
	return fmt.Sprintf("Audience: %s; %s a viewer a day.", strings.Join(days, ", then "), engine.Count(k.spec.Viewers.MeanViews(), "view"))
}

func (k *audienceKind) Accepts(t *strategies.Type) error {
	return engine.DistinctOnly(t, "an audience")
}

// GivesStores: a design on servers (Redis's HLL through the store) gets a
// store of its own, which holds its keys over every day: without a
// cluster, a one-node simulated cluster.
func (k *audienceKind) GivesStores() bool { return true }

// RealStores: such a design has a twin on a real store.
func (k *audienceKind) RealStores() bool { return true }

// audienceCluster is the simulated store of an audience's design on
// servers: one node whose key takes an id a nanosecond (the audience is
// not timed; nothing queues that matters), placing keys modulo: one Redis
// server, which refuses no multi-key command. With the scenario's
// cluster: its nodes and placement, each key still an id a nanosecond —
// a Redis Cluster, whose slots a PFMERGE of untagged days crosses.
var audienceCluster = cluster.Config{Nodes: 1, KeyCapacity: 1e9, Placement: cluster.Modulo}

// Memory: the truth is the audience's layout, known without generating
// anything; each design is held once a day, and the last day's largest
// design may be doubling its table: the old array is held while the new
// one fills, half the new one's size.
func (k *audienceSpec) Memory() (int64, int64) {
	return k.growing(), int64(k.a.Days())
}

// growing is the most a design holds while its table doubles: half its
// planned bytes.
func (k *audienceKind) growing() int64 {
	var growing float64
	for _, d := range k.lineup.Members {
		growing = max(growing, d.PlannedValue(metrics.Bytes)/2)
	}
	return int64(growing)
}

func (k *audienceKind) Plan() []metrics.Result { return nil }

// daySource is one day of an audience as a chunked stream.
type daySource struct {
	a   *workload.Audience
	day int
}

func (d daySource) Chunks() int { return d.a.Chunks(d.day) }
func (d daySource) Chunk(i int, buf []workload.Event) []workload.Event {
	return d.a.Chunk(d.day, i, buf)
}

func (k *audienceKind) Run(ctx context.Context) (*engine.Report, error) {
	l := k.lineup
	n := len(l.Members)
	perDay := make([][]strategies.Distinct, n)
	elapsed := make([]int64, n)
	var events int64
	ctx, rr, cause := k.twins.Start(ctx, n)
	defer rr.Close()
	stores := make([]strategies.Store, n) // one for all the days of a design on servers
	for i, d := range l.Members {
		s, err := rr.Open(ctx, i, d, false)
		if err != nil {
			return nil, err
		}
		if s == nil && d.Typ.OnServers() {
			if s, err = cluster.New(k.store); err != nil {
				return nil, err
			}
		}
		stores[i] = s
	}
	var day int
	for ; ; day++ {
		src, ok := k.days.day(day)
		if !ok {
			break
		}
		r := &engine.Run{Truth: k.days.truth(day)}
		if err := l.Build(r, func(i int) strategies.Env {
			env := l.Env
			env.Store, env.Part = stores[i], day
			return env
		}); err != nil {
			return nil, err
		}
		for i, s := range r.Designs {
			perDay[i] = append(perDay[i], s.(strategies.Distinct)) // accepts admits distinct counters only
		}
		fed, err := k.feeder.Feed(ctx, r, src, k.batch)
		if err == nil {
			err = ctx.Err()
		}
		err = cause(err)
		events += fed
		for i := range elapsed {
			elapsed[i] += r.Elapsed[i]
		}
		if err != nil {
			for i := range perDay { // the day cut short is not scored against the whole day's truth
				perDay[i] = perDay[i][:day]
			}
			rep := &engine.Report{Partial: true}
			if ferr := k.days.finish(rep, day, events, true); ferr != nil {
				return nil, ferr // bad input: nothing is reported
			}
			k.score(rep, perDay, stores, elapsed, events, rr)
			return rep, err
		}
	}
	rr.Settle()
	rep := &engine.Report{}
	if err := k.days.finish(rep, day, events, false); err != nil {
		return nil, err
	}
	k.score(rep, perDay, stores, elapsed, events, rr)
	if err := cause(ctx.Err()); err != nil { // a real store failed while scoring
		rep.Partial = true
		return rep, err
	}
	return rep, nil
}

// score adds the truth's rows and every design's to rep.
func (k *audienceKind) score(rep *engine.Report, perDay [][]strategies.Distinct, stores []strategies.Store, elapsed []int64, events int64, rr *engine.RealRun) {
	days := 0
	if len(perDay) > 0 {
		days = len(perDay[0])
	}
	union := float64(k.days.union(days))
	complete := k.days.complete(days)
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "views fed")
	for d := range days {
		k.rows.Truth(rep, metrics.Distinct, float64(k.days.Distinct(d)), "viewers", nil, fmt.Sprintf("day %d, exact", d+1))
	}
	if complete {
		k.rows.Truth(rep, metrics.Distinct, union, "viewers", nil, "all days, exact union")
	}
	for i, sketches := range perDay {
		d := k.lineup.Members[i]
		s := k.rows.Scorer(rep, d)
		var bytes int64
		for _, sk := range sketches {
			bytes = max(bytes, sk.Bytes())
		}
		s.Add(metrics.Bytes, float64(bytes), "B", s.Plan(metrics.Bytes), "the largest day's, measured from the design's arrays")
		if events > 0 && elapsed[i] > 0 && d.Real == "" {
			s.Timing(metrics.NsPerEvent, engine.Round(float64(elapsed[i])/float64(events), 2), "ns", engine.LaneClockNote)
		}
		stdErr := s.Plan(metrics.StandardError) // in %
		estimate := func(est, truth float64, note string) {
			s.Add(metrics.Distinct, engine.Round(est, 1), "viewers", metrics.PlanOf(truth), note+"; plan: the exact count")
			if truth == 0 {
				return // no relative error of nothing
			}
			var errPlan *float64 // the standard error, in viewers of this count
			if stdErr != nil {
				errPlan = metrics.PlanOf(math.Round(*stdErr / 100 * truth))
			}
			s.Add(metrics.RelativeError, engine.Round(100*(est-truth)/truth, 4), "%", stdErr, note+"; plan: the standard error 1.04/√m")
			s.Add(metrics.Error, engine.Round(est-truth, 1), "viewers", errPlan, note+"; plan: the standard error in viewers, 1.04/√m × the true count")
		}
		var sum float64
		for day, sk := range sketches {
			est := sk.Distinct()
			sum += est
			estimate(est, float64(k.days.Distinct(day)), fmt.Sprintf("day %d", day+1))
		}
		if !complete {
			continue
		}
		if days > 1 {
			s.Add(metrics.Distinct, engine.Round(sum, 1), "viewers", metrics.PlanOf(union), "sum of the days' counts: viewers of several days count again; plan: the exact union")
			if union > 0 {
				s.Add(metrics.RelativeError, engine.Round(100*(sum-union)/union, 4), "%", nil, "sum of the days' counts against the union")
			}
		}
		if u, ok := sketches[0].(strategies.DistinctUnion); ok && days > 1 {
			if est, err := unionOn(s, stores[i], u, sketches[1:]); err == nil {
				estimate(est, union, "union of the days by merge")
			}
		}
		spreadOn(s, stores[i])
		if rr.Stores[i] != nil {
			rr.Score(s, i, 0)
		}
		s.Measured[metrics.ErrorCount] = true // on every error row already
		s.Finish()
	}
	rr.Table(rep)
}
