package engine

import (
	"context"
	"fmt"
	"slices"

	"countsim/metrics"
	"countsim/scenarios"
)

// A partial report (issue 24): a run stopped part way scores what was fed,
// and every simulated-scale plan beside one of its measurements is the
// plan for what was fed — the designs' plans worked out again (replan)
// with the events, the writes and the simulated time the stream reached —
// never the whole stream's. The full-scale plans are the scenario's. The
// report's notes say so, and name what scoring left out when it was cut
// short (stop.go).

// Fed is what a stopped stream Fed.
type Fed struct {
	Events int64   // every event fed: writes, reads, resends
	Of     float64 // the events the whole stream holds (or is expected to); 0: unknown
	Writes float64 // the writes fed: the N of the plans (εN, N/m)
	Until  int64   // the simulated time reached, ns; 0: an untimed stream
	Peak   float64 // the highest write rate up to until; 0: an untimed stream
}

// Replan works every design's plan out again for what a stopped stream fed
// (Env.Events and Sim.Events its writes; Duration, for a timed stream, the
// time it reached, and Sim.PeakRate the rate it peaked at), and says so in
// rep's notes. The sizes the designs were built for (Env.Keys, Reads) stay:
// the designs hold what they were built to hold.
func (l *Lineup) Replan(rep *Report, f Fed) {
	l.PlanFor(f)
	what := metrics.Format(float64(f.Events)) + " events"
	if f.Of > 0 {
		what += " of the " + metrics.Format(f.Of) + " planned"
	}
	fedText := metrics.Format(f.Writes) + " writes"
	if f.Until > 0 {
		fedText += fmt.Sprintf(" over the first %s s", metrics.Format(Round(float64(f.Until)/1e9, 3)))
	}
	rep.Note(fmt.Sprintf("Stopped after %s: every simulated-scale plan beside a measurement is worked out for what was fed (%s), not for the whole stream; the full-scale plans are the scenario's.", what, fedText))
}

// PlanFor works every design's plan out again for the stream f fed (see
// replan).
func (l *Lineup) PlanFor(f Fed) {
	env := l.Env
	env.Events = int64(f.Writes)
	if env.Sim.Events > 0 {
		env.Sim.Events = f.Writes
	}
	if f.Until > 0 && env.Duration > 0 {
		env.Duration = f.Until
	}
	if f.Peak > 0 && env.Sim.PeakRate > 0 {
		env.Sim.PeakRate = f.Peak
	}
	for i := range l.Members {
		d := &l.Members[i]
		d.Plan = d.Typ.Plan(d.Params, env)
	}
}

// Note adds a Note to rep, once.
func (rep *Report) Note(n string) {
	if !slices.Contains(rep.Notes, n) {
		rep.Notes = append(rep.Notes, n)
	}
}

// Cut notes in rep that a step of scoring was Cut short when the run
// stopped, and marks rep partial: what names the rows left out.
func (rep *Report) Cut(what string) {
	rep.Partial = true
	rep.Note(fmt.Sprintf("Stopped while scoring: %s were left out (scoring what was fed stops %s after the stop).", what, metrics.Format(ScoreGrace.Seconds())+" s"))
}

// StoppedScoring is the error of a run whose stream ended with err: ctx's
// where the stream was fed whole but its scoring was cut short (rep
// partial only then).
func StoppedScoring(ctx context.Context, rep *Report, err error) error {
	if err == nil && rep.Partial {
		if err = context.Cause(ctx); err == nil {
			err = context.Canceled
		}
	}
	return err
}

// PhasesUntil is what the phases plan for a timed stream's first until ns:
// the writes, ∫ rate dt over them, and the highest rate they reach.
func PhasesUntil(phases []scenarios.Phase, until int64) (writes, peak float64) {
	var t0 int64
	for _, p := range phases {
		if t0 >= until {
			break
		}
		d := min(p.Duration, until-t0)
		end := p.Rate + (p.To-p.Rate)*float64(d)/float64(p.Duration)
		writes += (p.Rate + end) / 2 * float64(d) / 1e9
		peak = max(peak, p.Rate, end)
		t0 += p.Duration
	}
	return writes, peak
}

// TimedFed is what a timed stream fed, stopped at r.fedUntil after events
// events of which writes were writes.
func TimedFed(spec *scenarios.Timed, events int64, writes float64, until int64) Fed {
	_, peak := PhasesUntil(spec.Phases, until)
	return Fed{Events: events, Of: spec.ExpectedWrites()*(1+spec.Resend) + spec.ExpectedReads(), Writes: writes, Until: max(until, 1), Peak: peak}
}
