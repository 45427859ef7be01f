package scenarios

import (
	"fmt"
	"math"
)

// Scenario is one loaded, validated scenario file. Positions (Pos) point
// into the file so that later checks (a design's parameters) can name the
// line too.
type Scenario struct {
	File        string // the path given, or "builtin:NAME.yaml"
	Name        string // `name`: lower-case letters, digits and '-'
	Title       string // `title`: one line for reports
	Description string // `description`: free text
	Seed        uint64 // `seed`: the run's seed (default 1)

	Assumptions Assumptions // full-scale figures for the plan
	Workload    Workload    // the simulated stream
	Questions   Questions   // what is asked of every design
	Cluster     Cluster     // the simulated store cluster, for designs on servers
	Faults      []Fault     // `faults`: injected at simulated times, in time order
	Strategies  []Strategy  // the designs to compare, in file order

	// Profile, when `profile:` is given instead of a workload, runs every
	// design over seeded trials at cardinalities on a log grid (distinct
	// counters: the accuracy profile). A scenario gives exactly one of
	// workload and profile; with a profile, Workload is zero and questions,
	// cluster and faults are not allowed. nil without a profile.
	Profile *Profile

	// Steps holds the steps of a scenario told in steps (`steps:`). Each
	// step is a Scenario of its own sharing File, Name, Title, Seed and
	// Assumptions with its parent, with Step set and its own Description,
	// Workload or Profile, Questions, Cluster, Faults and Strategies. The
	// parent then has none of those; strategy names are unique across all
	// steps (they name the rows of one report).
	Steps []*Scenario
	Step  string // `steps[i].name` (same rule as names); "" outside steps
	// StepTitle is `steps[i].title`: one line, optional.
	StepTitle string
	StepPos   Pos // the step entry's position
}

// Assumptions are the real-world figures (`assumptions:`). Zero = not given.
type Assumptions struct {
	Events       float64 `yaml:"events"`        // events over the period, > 0
	Keys         float64 `yaml:"keys"`          // distinct keys, > 0
	EntryBytes   float64 `yaml:"entry_bytes"`   // bytes of one sorted-set entry, > 0
	ServerBytes  float64 `yaml:"server_bytes"`  // memory of one server in bytes, > 0
	DataFraction float64 `yaml:"data_fraction"` // share of server memory for data, in (0,1]
	CounterBytes float64 `yaml:"counter_bytes"` // bytes of one sketch counter, > 0
	KthCount     float64 `yaml:"kth_count"`     // count of the K-th heaviest key, > 0

	PeakRate    float64 `yaml:"peak_rate"`    // writes a second at the peak, > 0
	ReadRate    float64 `yaml:"read_rate"`    // reads a second of the counter, > 0
	KeyCapacity float64 `yaml:"key_capacity"` // operations a second one key takes, > 0
	Headroom    float64 `yaml:"headroom"`     // share of key_capacity to plan for, in (0,1]
	AppServers  float64 `yaml:"app_servers"`  // app servers in front of the store, whole number ≥ 1
}

// Workload is the simulated stream (`workload:`). With an audience only
// Batch, Pos and Audience are set; every other field is zero.
type Workload struct {
	Events int64 // `events`: number of events, 1..1e10
	// Keys is `keys`: distinct keys n, 1..1e9, required. It stays 0 with
	// an audience, which counts one key (the video) and takes no `keys`.
	Keys         uint64
	Distribution string  // `distribution`: "zipf" (default) or "uniform"
	S            float64 // `s`: Zipf exponent, >= 0 (default 1)
	Scramble     bool    // `scramble`: map ranks to keys bijectively (default true)
	Rate         float64 // `rate`: events per simulated second, > 0 (default 1e6); 0 in a timed stream
	Batch        int     // `batch`: events per batch, 1..1<<20 (default 4096)
	Pos          Pos     // the `workload` key

	// A timed stream gives `phases` instead of `events`/`rate` (exactly one
	// of `events` and `phases`): it lasts the phases' total duration.
	Arrivals    string  // `arrivals`: "even" (default) or "poisson"
	Phases      []Phase // `phases`: the write rate over simulated time, 1..1000 phases, total ≤ 24h
	Reads       float64 // `reads`: read events a second, ≥ 0 (default 0); timed streams only
	Resend      float64 // `resend`: share of writes sent a second time with the same id, in [0,1) (default 0)
	ResendDelay int64   // `resend_delay`: ns between a write and its resend, ≥ 0 (default 100ms)

	Audience *Audience // `audience`: viewer ids over days, for distinct counting
}

// Timed reports whether the stream is timed (it gives phases) rather than
// a count of events or an audience.
func (w Workload) Timed() bool { return len(w.Phases) > 0 }

// Duration is the timed stream's length in ns, the sum of its phases'
// durations (at most 24h); 0 for a count stream and for an audience.
func (w Workload) Duration() int64 {
	var total int64
	for _, p := range w.Phases {
		total += p.Duration
	}
	return total
}

// ExpectedWrites is the number of writes the stream holds: Events for a
// count stream; for a timed stream the expected number, the sum over its
// phases of (Rate+To)/2 × Duration in seconds (resends and reads not
// counted); for an audience its views, Σ Viewers × Views over its days
// (exact).
func (w Workload) ExpectedWrites() float64 {
	if a := w.Audience; a != nil {
		var viewers int64 // at most 366 days × 1e10: no overflow
		for _, d := range a.Days {
			viewers += d.Viewers
		}
		return float64(viewers) * a.MeanViews()
	}
	if !w.Timed() {
		return float64(w.Events)
	}
	var n float64
	for _, p := range w.Phases {
		n += (p.Rate/2 + p.To/2) * (float64(p.Duration) / 1e9)
	}
	return n
}

// Audience is `workload.audience`: viewer ids over days with exact sizes
// and overlaps, for distinct counting. A workload gives exactly one of
// `events`, `phases` and `audience`; with `audience`, `keys`, `s`,
// `distribution`, `scramble` and `rate` are not allowed (there is one key,
// the video; the ids are the events' actors), nor are the keys of a timed
// stream (`arrivals`, `reads`, `resend`, `resend_delay`) or faults. At least
// one day has a viewer, and the views in all, Σ Viewers × Views, are at
// most 1e10.
type Audience struct {
	Days  []AudienceDay // `days`: 1..366 days
	Views int           // `views`: views a viewer makes each day it watches, 1..65536 (default 1)
	// ViewsMax and ViewsS (`views_max`, 2..65536, and `views_s`, > 0,
	// default 1; both instead of `views`): a Zipf number of views a day,
	// from 1 to ViewsMax with exponent ViewsS, so a few viewers watch many
	// times. 0 when views are fixed.
	ViewsMax int
	ViewsS   float64
	Pos      Pos // the `audience` key
}

// MeanViews is the views a viewer makes a day on average: Views, or the
// mean of the Zipf(ViewsMax, ViewsS) law, Σk·k^-s / Σk^-s.
func (a *Audience) MeanViews() float64 {
	if a.ViewsMax == 0 {
		return float64(a.Views)
	}
	var num, den float64
	for k := 1; k <= a.ViewsMax; k++ {
		p := math.Pow(float64(k), -a.ViewsS)
		num += float64(k) * p
		den += p
	}
	return num / den
}

// AudienceDay is one `days` entry: Viewers distinct viewers (0..1e10), of
// whom Overlap (`overlap`, default 0; 0 on the first day; at most Viewers
// and at most the previous day's viewers) also watched the day before.
type AudienceDay struct {
	Viewers int64
	Overlap int64
	Pos     Pos
}

// Profile is `profile:`: seeded trials at cardinalities from Min to Max
// on a log grid with PointsPerOctave points per doubling.
type Profile struct {
	Min             float64 // `min`: smallest cardinality, ≥ 1 (default 1)
	Max             float64 // `max`: largest, min..1e9 (default 1e6)
	PointsPerOctave int     // `points_per_octave`: 1..64 (default 4)
	Trials          int     // `trials`: 1..100000 (default 100)
	Pos             Pos     // the `profile` key
}

// Phase is one stretch of a timed stream (`phases:` entries). The write
// rate goes linearly from Rate to To over Duration (a ramp), or stays at
// Rate when `to` is absent. Durations are written as Go durations ("60s",
// "250ms", "1m30s") or as a number of seconds.
type Phase struct {
	Name     string  // `name`: optional label, e.g. "wicket"
	Duration int64   // `duration`: ns, > 0
	Rate     float64 // `rate`: writes a second at the phase's start, ≥ 0
	To       float64 // `to`: writes a second at its end, ≥ 0 (default: Rate)
	Pos      Pos     // the entry's position
}

// Cluster is the simulated store (`cluster:`): keys placed on nodes by
// hash, each key serving at most KeyCapacity operations a second; more
// queues. Given is false when the scenario has no `cluster:`.
type Cluster struct {
	Given        bool
	Nodes        int     // `nodes`: 1..4096 (default 1)
	KeyCapacity  float64 // `key_capacity`: operations a second one key serves, > 0 (required)
	NodeCapacity float64 // `node_capacity`: operations a second one node serves, ≥ 0; 0 = no limit (default)
	Pos          Pos     // the `cluster` key
}

// Fault is one `faults:` entry: at simulated time At, an app server
// crashes (kind "app-crash", target `server`: 0..) or a store node loses
// its data (kind "node-loss", target `node`: 0..nodes-1).
type Fault struct {
	At     int64  // `at`: ns from the start, a duration as for phases; within the stream
	Kind   string // `kind`: "app-crash" or "node-loss"
	Target int    // `server` (app-crash) or `node` (node-loss), ≥ 0
	Pos    Pos    // the entry's position
}

// Questions are asked of every design that can answer them (`questions:`).
type Questions struct {
	Top int // `top`: K of the top-K question, 0..10000 (0: not asked)
	Pos Pos // the `questions` key; when absent, the document's start (a step's entry in a step)
}

// Strategy is one design entry of `strategies:`.
type Strategy struct {
	Name   string  // `name`: unique within the scenario
	Type   string  // `type`: a registered design type (checked by sim, not here)
	Params []Param // `params`: raw, decoded strictly by the design
	Pos    Pos     // the entry's position (its first key, after the "- ")
}

// Param is one raw design parameter. Value is an int64, float64, bool or
// string, decided by the YAML scalar's tag (2.5 is a float64, 25 an int64).
// A float64 is always finite.
type Param struct {
	Key   string
	Value any
	Pos   Pos // the key's position
}

// Pos is a position in a scenario file. Line and Col count from 1; 0 means
// unknown.
type Pos struct {
	File string
	Line int
	Col  int
}

// String returns "file:line:col", "file:line" or "file" as far as known.
func (p Pos) String() string {
	switch {
	case p.Line > 0 && p.Col > 0:
		return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
	case p.Line > 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return p.File
}

// ParamPos returns the position of parameter key of the strategy at index
// strategy, or the strategy's own position if it has no such parameter (a
// rule about a missing key or several keys), or Pos{File: s.File} if the index
// is out of range. It maps a design's parameter errors back to the file.
func (s *Scenario) ParamPos(strategy int, key string) Pos {
	if strategy < 0 || strategy >= len(s.Strategies) {
		return Pos{File: s.File}
	}
	st := &s.Strategies[strategy]
	for _, p := range st.Params {
		if p.Key == key {
			return p.Pos
		}
	}
	return st.Pos
}
