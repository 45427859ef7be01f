package scenarios

import "time"

// The timed stream (`workload: {phases: […], …}`): writes over simulated
// time at a rate that changes in phases, reads at their own rate, resends
// of a share of the writes; the kind of run of a hot counter on the
// simulated cluster, and the only one that takes faults.

// Limits of a timed stream beyond its keys' ranges.
const maxTimedEvents = 1e10 // expected writes and reads

// Timed is a timed stream.
type Timed struct {
	Keyspace
	Batch       int     `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Phases      []Phase `key:"phases" range:"1..1000" required:"true" entry:"phase" doc:"the write rate over simulated time, one phase after the other (a timed stream); they last at most 24h in all"`
	Arrivals    string  `key:"arrivals" oneof:"even,poisson" default:"even" doc:"how events are placed in time: evenly, or as a Poisson process of the rate"`
	Reads       float64 `key:"reads" range:">=0" default:"0" doc:"read events a second, at a constant rate (a page showing the count)"`
	Resend      float64 `key:"resend" range:"[0,1)" default:"0" doc:"share of writes sent a second time with the same id"`
	ResendDelay int64   `key:"resend_delay" type:"duration" range:">=0" default:"100ms" doc:"time from a write to its resend"`
	Pos         Pos     // the workload key
}

// Phase is one stretch of a timed stream: the write rate goes linearly
// from Rate to To over Duration (a ramp), or stays at Rate.
type Phase struct {
	Name     string  `key:"name" type:"label" doc:"a label for the phase, such as wicket"`
	Duration int64   `key:"duration" type:"duration" range:">0" required:"true" doc:"how long the phase lasts"`
	Rate     float64 `key:"rate" range:">=0" required:"true" doc:"writes a second at the phase's start"`
	To       float64 `key:"to" range:">=0" defaultdoc:"rate: a constant phase" doc:"writes a second at the phase's end: a ramp from rate"`
	Pos      Pos     // the entry's position
}

func init() {
	defineKind(&kindDef{name: "timed", order: 2, key: "workload", marker: "phases", what: "a timed stream",
		new: func() Run { return new(Timed) }})
}

func (t *Timed) Kind() string                  { return "timed" }
func (t *Timed) Where() Pos                    { return t.Pos }
func (t *Timed) refuses(section string) string { return "" }

func (t *Timed) refusal(key string) string {
	if key == "rate" {
		return "a timed stream takes its rates from phases"
	}
	return ""
}

// Duration is the stream's length in ns, the sum of its phases' durations.
func (t *Timed) Duration() int64 {
	var total int64
	for _, p := range t.Phases {
		total += p.Duration
	}
	return total
}

// ExpectedWrites is ∫ rate dt: the sum over the phases of (Rate+To)/2 ×
// Duration in seconds (resends and reads not counted).
func (t *Timed) ExpectedWrites() float64 {
	var n float64
	for _, p := range t.Phases {
		n += (p.Rate/2 + p.To/2) * (float64(p.Duration) / 1e9)
	}
	return n
}

// ExpectedReads is Reads × the duration in seconds.
func (t *Timed) ExpectedReads() float64 { return t.Reads * float64(t.Duration()) / 1e9 }

// Peak is the highest write rate of the phases.
func (t *Timed) Peak() float64 {
	var peak float64
	for _, p := range t.Phases {
		peak = max(peak, p.Rate, p.To)
	}
	return peak
}

// Steady reports whether the stream writes at one constant rate, so that
// means over the run compare with figures planned at the peak.
func (t *Timed) Steady() bool { return len(t.Phases) == 1 && t.Phases[0].To == t.Phases[0].Rate }

func (t *Timed) simulates() []Figure {
	fs := []Figure{
		{Name: "events", Simulated: t.ExpectedWrites(), SimulatedAt: "workload.phases"},
		{Name: "keys", Simulated: float64(t.Keys), SimulatedAt: "workload.keys"},
		{Name: "peak_rate", Simulated: t.Peak(), SimulatedAt: "workload.phases", Linked: true},
	}
	if t.Reads > 0 {
		fs = append(fs, Figure{Name: "read_rate", Simulated: t.Reads, SimulatedAt: "workload.reads", Linked: true})
	}
	return fs
}

// check: the keys' rule, then the totals of the phases.
func (t *Timed) check(r *rule) error {
	if err := t.Keyspace.checkKeys(r); err != nil {
		return err
	}
	if total := t.Duration(); total > maxDuration {
		return r.failKey("phases", "the phases last %v in all (allowed: at most 24h in all)", time.Duration(total))
	}
	if t.Peak() == 0 {
		return r.failKey("phases", "no phase has a rate above 0 (allowed: at least one phase with rate or to > 0)")
	}
	writes, reads := t.ExpectedWrites(), t.ExpectedReads()
	if !(writes+reads <= maxTimedEvents) {
		return r.failKey("phases", "the stream would hold about %.4g events (%.4g writes + %.4g reads), more than 1e10 (allowed: at most 1e10 events; lower the rates or shorten the phases)",
			writes+reads, writes, reads)
	}
	return nil
}

// check: a phase without `to` keeps its rate.
func (p *Phase) check(r *rule) error {
	if !r.has("to") {
		p.To = p.Rate
	}
	return nil
}
