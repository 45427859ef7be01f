package scenarios

import (
	"fmt"
	"time"
)

// The trending run (`workload: {trending: {rate, duration, keys, …,
// plants: […]}}`): a background Zipf over phrases at a constant rate over
// simulated time, spread over regions, and planted phrases whose share of
// the events follows a stated course — a burst, a fade, a slow rise — so
// that when each design notices them can be scored against the exact
// score of "now" at every checkpoint (issue 12).

// Trending is a trending run.
type Trending struct {
	Stream TrendStream `key:"trending" required:"true" doc:"phrases over simulated time with planted bursts (a trending run)"`
	Batch  int         `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Pos    Pos         // the workload key
}

// TrendStream is the stream of a trending run.
type TrendStream struct {
	Keyspace
	Rate       float64      `key:"rate" range:">0" required:"true" doc:"events a simulated second, evenly spaced"`
	Length     int64        `key:"duration" type:"duration" range:">0" required:"true" doc:"how long the stream lasts, at most 24h"`
	Regions    int          `key:"regions" range:"1..4096" default:"1" doc:"regions; an event's actor is its region, each equally likely"`
	Checkpoint int64        `key:"checkpoint" type:"duration" range:">0" default:"1m" doc:"how often every design is asked for its top K of now, and the truth works out the exact one"`
	Plants     []TrendPlant `key:"plants" range:"0..100" entry:"plant" doc:"planted phrases, each a background phrase whose share of the events follows a stated course"`
	Pos        Pos          // the trending key
}

// TrendPlant is one planted phrase.
type TrendPlant struct {
	Name   string  `key:"name" type:"label" required:"true" doc:"the plant's name in the report, such as burst"`
	Rank   uint64  `key:"rank" range:"1..1e9" required:"true" doc:"the background rank of the phrase it plants (5,000: a phrase nobody searched much)"`
	Start  int64   `key:"start" type:"duration" range:">=0" required:"true" doc:"when its share begins, from the stream's start"`
	End    int64   `key:"end" type:"duration" range:">0" required:"true" doc:"when its share ends, after start and at most the stream's duration"`
	Share  float64 `key:"share" range:"[0,1]" required:"true" doc:"its share of the events at start"`
	To     float64 `key:"to" range:"[0,1]" defaultdoc:"share: a constant share" doc:"its share of the events just before end, linear from share"`
	Region int     `key:"region" range:"0..4095" defaultdoc:"every region" doc:"the one region it plants in"`
	Pos    Pos     // the entry's position
	// AllRegions is whether region is absent.
	AllRegions bool
}

func init() {
	defineKind(&kindDef{name: "trending", order: 8, key: "workload", marker: "trending", what: "phrases over time with planted bursts",
		new: func() Run { return new(Trending) }})
}

func (t *Trending) Kind() string    { return "trending" }
func (t *Trending) Where() Pos      { return t.Pos }
func (t *Trending) Duration() int64 { return t.Stream.Length }

func (t *Trending) refuses(section string) string {
	switch section {
	case "faults":
		return "a trending run takes no faults"
	}
	return ""
}

func (t *Trending) simulates() []Figure {
	s := t.Stream
	return []Figure{
		{Name: "events", Simulated: s.Rate * float64(s.Length) / 1e9, SimulatedAt: "workload.trending"},
		{Name: "keys", Simulated: float64(s.Keys), SimulatedAt: "workload.trending.keys"},
	}
}

// check: the key space's rule, a stream of at most 24h and 1e10 events,
// plants within the stream and its regions, and a checkpoint within it.
func (s *TrendStream) check(r *rule) error {
	if err := s.Keyspace.checkKeys(r); err != nil {
		return err
	}
	if s.Length > maxDuration {
		return r.failKey("duration", "%s (allowed: at most 24h)", durationText(s.Length))
	}
	if n := s.Rate * float64(s.Length) / 1e9; n > maxTimedEvents {
		return r.failKey("rate", "the stream would hold %.4g events, more than 1e10 (allowed: a lower rate or a shorter duration)", n)
	}
	if s.Checkpoint > s.Length {
		return r.failKey("checkpoint", "%s is longer than the stream's %s (allowed: at most the duration)", durationText(s.Checkpoint), durationText(s.Length))
	}
	for i, p := range s.Plants {
		at := fmt.Sprintf("%s.plants[%d]", r.path, i)
		pos := func(key string) Pos { // the key's line, else the entry's
			if kp, ok := r.d.keys[at+"."+key]; ok {
				return kp
			}
			return p.Pos
		}
		switch {
		case p.End > s.Length:
			return r.d.failAt(pos("end"), at+".end", "%s is after the stream's end, %s (allowed: within the stream's duration)", durationText(p.End), durationText(s.Length))
		case p.Start >= p.End:
			return r.d.failAt(pos("start"), at+".start", "%s is not before end %s (allowed: start < end ≤ the stream's duration)", durationText(p.Start), durationText(p.End))
		case p.Rank > s.Keys:
			return r.d.failAt(pos("rank"), at+".rank", "%d is beyond the %d keys (allowed: 1..keys)", p.Rank, s.Keys)
		case !p.AllRegions && p.Region >= s.Regions:
			return r.d.failAt(pos("region"), at+".region", "%d is not a region of %d (allowed: 0..%d, or no region for every one)", p.Region, s.Regions, s.Regions-1)
		}
	}
	return nil
}

// check: to defaults to share; an absent region is every region.
func (p *TrendPlant) check(r *rule) error {
	if !r.has("to") {
		p.To = p.Share
	}
	p.AllRegions = !r.has("region")
	return nil
}

// durationText writes ns as a Go duration: 1h0m0s.
func durationText(ns int64) string { return time.Duration(ns).String() }
