package scenarios

import (
	"fmt"
	"math"
)

// The audience (`workload: {audience: {days: […], …}}`): viewer ids over
// days with exact sizes and overlaps, for distinct counting; the unique
// viewers of the cricket final.

// Limits of an audience beyond its keys' ranges.
const maxAudienceViews = 1e10 // Σ viewers × views over the days

// Audience is an audience run: the viewers, and the batch size.
type Audience struct {
	Viewers Viewers `key:"audience" required:"true" doc:"viewer ids over days with exact sizes and overlaps (an audience); its one key is the video"`
	Batch   int     `key:"batch" range:"1..1048576" default:"4096" doc:"events handed to the designs at a time"`
	Pos     Pos     // the workload key
}

// Viewers are the days of an audience and the views a viewer makes.
type Viewers struct {
	Days  []AudienceDay `key:"days" range:"1..366" required:"true" entry:"day" doc:"the days in order; at least one has a viewer"`
	Views int           `key:"views" range:"1..65536" default:"1" doc:"views a viewer makes each day it watches"`
	// ViewsMax and ViewsS: a Zipf number of views a day, from 1 to
	// ViewsMax with exponent ViewsS, so a few viewers watch many times.
	// ViewsMax is 0 when views are fixed.
	ViewsMax int     `key:"views_max" range:"2..65536" doc:"instead of views: the most views a viewer makes a day, the number being Zipf(views_max, views_s)"`
	ViewsS   float64 `key:"views_s" range:"(0,10]" defaultdoc:"1, with views_max" doc:"the Zipf exponent of the views, with views_max"`
	Pos      Pos     // the audience key
}

// AudienceDay is one day: Viewers distinct viewers, of whom Overlap also
// watched the day before.
type AudienceDay struct {
	Viewers int64 `key:"viewers" range:"0..1e10" required:"true" doc:"the day's distinct viewers"`
	Overlap int64 `key:"overlap" range:"0..1e10" default:"0" doc:"the day's viewers who also watched the day before: 0 on the first day, at most the day's viewers and the day before's"`
	Pos     Pos   // the entry's position
}

func init() {
	defineKind(&kindDef{name: "audience", order: 3, key: "workload", marker: "audience", what: "viewers over days",
		new: func() Run { return new(Audience) }})
}

func (a *Audience) Kind() string                  { return "audience" }
func (a *Audience) Where() Pos                    { return a.Pos }
func (a *Audience) Duration() int64               { return 0 }
func (a *Audience) refuses(section string) string { return "" }

func (a *Audience) refusal(key string) string {
	switch key {
	case "keys":
		return "an audience has one key, the video"
	case "distribution":
		return "an audience has one key, the video, so no distribution of keys"
	case "s":
		return "an audience has one key, the video, so no Zipf exponent of keys"
	case "scramble":
		return "an audience's viewer ids are always scrambled"
	case "rate":
		return "an audience's views are counted by day, not at a rate"
	}
	return ""
}

// MeanViews is the views a viewer makes a day on average: Views, or the
// mean of the Zipf(ViewsMax, ViewsS) law, Σk·k^-s / Σk^-s.
func (v *Viewers) MeanViews() float64 {
	if v.ViewsMax == 0 {
		return float64(v.Views)
	}
	var num, den float64
	for k := 1; k <= v.ViewsMax; k++ {
		p := math.Pow(float64(k), -v.ViewsS)
		num += float64(k) * p
		den += p
	}
	return num / den
}

// total is the viewers of all days, counted once a day (at most 366 ×
// 1e10: no overflow).
func (v *Viewers) total() int64 {
	var n int64
	for _, d := range v.Days {
		n += d.Viewers
	}
	return n
}

// ExpectedWrites is the audience's views, Σ viewers × views over its days.
func (a *Audience) ExpectedWrites() float64 {
	return float64(a.Viewers.total()) * a.Viewers.MeanViews()
}

func (a *Audience) simulates() []Figure {
	var most int64
	for _, d := range a.Viewers.Days {
		most = max(most, d.Viewers)
	}
	return []Figure{
		{Name: "events", Simulated: a.ExpectedWrites(), SimulatedAt: "workload.audience"},
		// The viewers are real-world counts, exact: the plan takes them
		// for the distinct ids at full scale unless it states its own.
		{Name: "keys", Simulated: float64(most), SimulatedAt: "workload.audience.days", Linked: true},
	}
}

// check: views or views_max, the days' overlaps, at least one viewer, and
// at most 1e10 views in all.
func (v *Viewers) check(r *rule) error {
	switch {
	case r.has("views") && r.has("views_max"):
		return r.fail("views_max", "views is given too, at line %d (allowed: views for a fixed number, or views_max with views_s for Zipf views)", r.keys["views"].Line)
	case r.has("views_s") && !r.has("views_max"):
		return r.fail("views_s", "needs views_max (allowed: views_max with views_s for Zipf views)")
	case r.has("views_max"):
		v.Views = 0
		if !r.has("views_s") {
			v.ViewsS = 1
		}
	}
	for i, day := range v.Days {
		opath := fmt.Sprintf("%s.days[%d].overlap", r.path, i)
		at := r.d.nodes[opath]
		if i == 0 {
			if day.Overlap > 0 {
				return r.d.fail(at, opath, "%d on the first day (allowed: 0, as no day comes before it)", day.Overlap)
			}
			continue
		}
		prev := v.Days[i-1]
		limit := min(day.Viewers, prev.Viewers)
		switch {
		case day.Overlap > day.Viewers:
			return r.d.fail(at, opath, "%d is more than the day's %d viewers (allowed: 0..%d, at most the day's viewers and the day before's)",
				day.Overlap, day.Viewers, limit)
		case day.Overlap > prev.Viewers:
			return r.d.fail(at, opath, "%d is more than the %d viewers of the day before, at line %d (allowed: 0..%d, at most the day's viewers and the day before's)",
				day.Overlap, prev.Viewers, prev.Pos.Line, limit)
		}
	}
	viewers := v.total()
	if viewers == 0 {
		return r.failKey("days", "no day has a viewer (allowed: at least one day with viewers above 0)")
	}
	if v.ViewsMax == 0 {
		if total := viewers * int64(v.Views); total > maxAudienceViews {
			return r.failHere("the days hold %d viewers × views %d = %d views, more than 1e10 (allowed: at most 1e10 views in all; fewer viewers or views)",
				viewers, v.Views, total)
		}
	} else if total := float64(viewers) * v.MeanViews(); total > maxAudienceViews {
		return r.failHere("the days hold %d viewers × %.4g views on average = %.4g views, more than 1e10 (allowed: at most 1e10 views in all; fewer viewers or a smaller views_max)",
			viewers, v.MeanViews(), total)
	}
	return nil
}
