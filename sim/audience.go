package sim

import (
	"context"
	"fmt"
	"math"
	"strings"

	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/cluster"
	"countsim/strategies"
	"countsim/workload"
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
// the scenario's cluster's nodes where it has one.
type audienceKind struct {
	lineup *lineup
	feeder feeder
	rows   scoreRows
	twins  twins
	store  cluster.Config // the store of a design on servers: audienceCluster, or on the scenario's nodes
	spec   *scenarios.Audience
	a      *workload.Audience
}

func init() { defineKind("audience", newAudienceKind) }

func newAudienceKind(h *harness) (kind, error) {
	spec := h.scn.Run.(*scenarios.Audience)
	v := spec.Viewers
	cfg := workload.AudienceConfig{Seed: h.scn.Seed, Label: audienceLabel,
		Views: workload.Views{Fixed: v.Views, ZipfS: v.ViewsS, ZipfMax: uint64(v.ViewsMax)}}
	for _, d := range v.Days {
		cfg.Days = append(cfg.Days, workload.Day{Viewers: d.Viewers, Overlap: d.Overlap})
	}
	a, err := workload.NewAudience(cfg)
	if err != nil {
		return nil, scenarios.Errorf(v.Pos, "audience: %v", err)
	}
	env := &h.lineup.env
	for d := range a.Days() {
		env.Keys = max(env.Keys, uint64(a.Distinct(d)))
		env.Events += a.Events(d)
	}
	store, err := audienceStore(h.scn)
	if err != nil {
		return nil, err
	}
	return &audienceKind{lineup: h.lineup, feeder: h.feeder, rows: h.rows, twins: h.twins, store: store, spec: spec, a: a}, nil
}

func (k *audienceKind) describe() string {
	var days []string
	for _, d := range k.spec.Viewers.Days {
		days = append(days, fmt.Sprintf("%s viewers (%s also the day before)", metrics.Format(float64(d.Viewers)), metrics.Format(float64(d.Overlap))))
	}
	return fmt.Sprintf("Audience: %s; %s a viewer a day.", strings.Join(days, ", then "), count(k.spec.Viewers.MeanViews(), "view"))
}

func (k *audienceKind) accepts(t *strategies.Type) error { return distinctOnly(t, "an audience") }

// givesStores: a design on servers (Redis's HLL through the store) gets a
// store of its own, which holds its keys over every day: without a
// cluster, a one-node simulated cluster.
func (k *audienceKind) givesStores() bool { return true }

// realStores: such a design has a twin on a real store.
func (k *audienceKind) realStores() bool { return true }

// audienceCluster is the simulated store of an audience's design on
// servers: one node whose key takes an id a nanosecond (the audience is
// not timed; nothing queues that matters), placing keys modulo: one Redis
// server, which refuses no multi-key command. With the scenario's
// cluster: its nodes and placement, each key still an id a nanosecond —
// a Redis Cluster, whose slots a PFMERGE of untagged days crosses.
var audienceCluster = cluster.Config{Nodes: 1, KeyCapacity: 1e9, Placement: cluster.Modulo}

// memory: the truth is the audience's layout, known without generating
// anything; each design is held once a day, and the last day's largest
// design may be doubling its table: the old array is held while the new
// one fills, half the new one's size.
func (k *audienceKind) memory() (int64, int64) {
	var growing float64
	for _, d := range k.lineup.designs {
		growing = max(growing, d.plannedValue(metrics.Bytes)/2)
	}
	return int64(growing), int64(k.a.Days())
}

func (k *audienceKind) plan() []metrics.Result { return nil }

// daySource is one day of an audience as a chunked stream.
type daySource struct {
	a   *workload.Audience
	day int
}

func (d daySource) Chunks() int { return d.a.Chunks(d.day) }
func (d daySource) Chunk(i int, buf []workload.Event) []workload.Event {
	return d.a.Chunk(d.day, i, buf)
}

func (k *audienceKind) run(ctx context.Context) (*Report, error) {
	l := k.lineup
	n := len(l.designs)
	perDay := make([][]strategies.Distinct, n)
	elapsed := make([]int64, n)
	var events int64
	ctx, rr, cause := k.twins.start(ctx, n)
	defer rr.close()
	stores := make([]strategies.Store, n) // one for all the days of a design on servers
	for i, d := range l.designs {
		s, err := rr.open(ctx, i, d, false)
		if err != nil {
			return nil, err
		}
		if s == nil && d.typ.OnServers() {
			if s, err = cluster.New(k.store); err != nil {
				return nil, err
			}
		}
		stores[i] = s
	}
	for day := range k.a.Days() {
		r := &run{}
		if err := l.build(r, func(i int) strategies.Env {
			env := l.env
			env.Store, env.Part = stores[i], day
			return env
		}); err != nil {
			return nil, err
		}
		for i, s := range r.designs {
			perDay[i] = append(perDay[i], s.(strategies.Distinct)) // accepts admits distinct counters only
		}
		fed, err := k.feeder.feed(ctx, r, daySource{k.a, day}, k.spec.Batch)
		if err == nil {
			err = ctx.Err()
		}
		err = cause(err)
		events += fed
		for i := range elapsed {
			elapsed[i] += r.elapsed[i]
		}
		if err != nil {
			for i := range perDay { // the day cut short is not scored against the whole day's truth
				perDay[i] = perDay[i][:day]
			}
			rep := k.score(perDay, stores, elapsed, events, rr)
			rep.Partial = true
			return rep, err
		}
	}
	rr.settle()
	rep := k.score(perDay, stores, elapsed, events, rr)
	if err := cause(ctx.Err()); err != nil { // a real store failed while scoring
		rep.Partial = true
		return rep, err
	}
	return rep, nil
}

func (k *audienceKind) score(perDay [][]strategies.Distinct, stores []strategies.Store, elapsed []int64, events int64, rr *realRun) *Report {
	rep := &Report{}
	a := k.a
	days := len(perDay[0])
	all := make([]int, days)
	for d := range all {
		all[d] = d
	}
	union := float64(a.Union(all...))
	complete := days == a.Days()
	k.rows.truth(rep, metrics.Events, float64(events), "events", nil, "views fed")
	for d := range days {
		k.rows.truth(rep, metrics.Distinct, float64(a.Distinct(d)), "viewers", nil, fmt.Sprintf("day %d, exact", d+1))
	}
	if complete {
		k.rows.truth(rep, metrics.Distinct, union, "viewers", nil, "all days, exact union")
	}
	for i, sketches := range perDay {
		d := k.lineup.designs[i]
		s := k.rows.scorer(rep, d)
		var bytes int64
		for _, sk := range sketches {
			bytes = max(bytes, sk.Bytes())
		}
		s.add(metrics.Bytes, float64(bytes), "B", s.plan(metrics.Bytes), "the largest day's, measured from the design's arrays")
		if events > 0 && elapsed[i] > 0 && d.real == "" {
			s.timing(metrics.NsPerEvent, round(float64(elapsed[i])/float64(events), 2), "ns", laneClockNote)
		}
		stdErr := s.plan(metrics.StandardError) // in %
		estimate := func(est, truth float64, note string) {
			s.add(metrics.Distinct, round(est, 1), "viewers", metrics.PlanOf(truth), note+"; plan: the exact count")
			if truth == 0 {
				return // no relative error of nothing
			}
			var errPlan *float64 // the standard error, in viewers of this count
			if stdErr != nil {
				errPlan = metrics.PlanOf(math.Round(*stdErr / 100 * truth))
			}
			s.add(metrics.RelativeError, round(100*(est-truth)/truth, 4), "%", stdErr, note+"; plan: the standard error 1.04/√m")
			s.add(metrics.Error, round(est-truth, 1), "viewers", errPlan, note+"; plan: the standard error in viewers, 1.04/√m × the true count")
		}
		var sum float64
		for day, sk := range sketches {
			est := sk.Distinct()
			sum += est
			estimate(est, float64(a.Distinct(day)), fmt.Sprintf("day %d", day+1))
		}
		if !complete {
			continue
		}
		if days > 1 {
			s.add(metrics.Distinct, round(sum, 1), "viewers", metrics.PlanOf(union), "sum of the days' counts: viewers of several days count again; plan: the exact union")
			if union > 0 {
				s.add(metrics.RelativeError, round(100*(sum-union)/union, 4), "%", nil, "sum of the days' counts against the union")
			}
		}
		if u, ok := sketches[0].(strategies.DistinctUnion); ok && days > 1 {
			if est, err := unionOn(s, stores[i], u, sketches[1:]); err == nil {
				estimate(est, union, "union of the days by merge")
			}
		}
		spreadOn(s, stores[i])
		if rr.stores[i] != nil {
			rr.score(s, i, 0)
		}
		s.measured[metrics.ErrorCount] = true // on every error row already
		s.finish()
	}
	rr.table(rep)
	return rep
}
