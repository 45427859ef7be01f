package scenarios

import "fmt"

// A log replayed as trending phrases (as: trending): the log's own clock,
// checkpoints on it, each event's region from its actor_id column, and
// phrases to watch named by their key strings, so that the designs'
// detection latency is measured against the truth of the same log (issue
// 25).

// LogTrending is the keys of a log replayed as trending phrases.
type LogTrending struct {
	Checkpoint int64      `key:"checkpoint" type:"duration" range:">0" default:"1m" doc:"as: trending: how often the designs' top K of now is asked, on the log's clock from its first event, up to the first checkpoint after its last"`
	Regions    int        `key:"regions" range:"1..4096" default:"1" doc:"as: trending: the regions, each event's from the actor_id column (0..regions−1; a larger one is a bad line)"`
	Keys       uint64     `key:"phrases" range:"1..1e12" defaultdoc:"the distinct phrases of the log" doc:"as: trending: the phrases the designs are sized for (countsim sample writes the synthetic stream's, so that a replay sizes them as its run did)"`
	Watch      []LogWatch `key:"watch" range:"0..100" entry:"phrase" doc:"as: trending: phrases whose rise is timed, named by their key strings: each design's detection latency is measured against when the log's truth puts the phrase in its top K, and its decayed score at the last checkpoint against the exact one"`
}

// LogWatch is one phrase of a log whose rise is timed.
type LogWatch struct {
	Name   string `key:"name" type:"label" required:"true" doc:"the phrase's name in tables"`
	Key    string `key:"key" type:"line" required:"true" doc:"the phrase's string, as in the key column"`
	Start  int64  `key:"start" type:"duration" range:">=0" defaultdoc:"its first event in the log" doc:"when its rise begins, from the log's first event: its detection latencies count from it"`
	Region int    `key:"region" range:"0..4095" defaultdoc:"every region" doc:"the one region it rises in: a regional design's flag of it is timed there"`
	Pos    Pos
	// HasStart is whether start is given; AllRegions whether region is
	// absent.
	HasStart, AllRegions bool
}

// check: an absent start is the phrase's first event, an absent region
// every region.
func (w *LogWatch) check(r *rule) error {
	w.HasStart = r.has("start")
	w.AllRegions = !r.has("region")
	return nil
}

func (t *LogTrending) refuses(section string) string {
	switch section {
	case "faults":
		return "a trending run takes no faults"
	}
	return ""
}

// check: the log's clock, regions read from actor_id, a watched
// phrase's region among them, and each name and key watched once.
func (t *LogTrending) check(l *Log, r *rule) error {
	if l.Time == "" {
		return r.failHere("as: trending needs the log's clock (allowed: time, the column of each event's time)")
	}
	if t.Regions > 1 && l.ActorID == "" {
		return r.failKey("regions", "%d regions need the column of each event's region (allowed: actor_id, its region 0..%d, or regions: 1)", t.Regions, t.Regions-1)
	}
	names, keys := map[string]bool{}, map[string]bool{}
	for i, w := range t.Watch {
		at := fmt.Sprintf("%s.watch[%d]", r.path, i)
		pos := func(key string) Pos { // the key's line, else the entry's
			if kp, ok := r.d.keys[at+"."+key]; ok {
				return kp
			}
			return w.Pos
		}
		switch {
		case !w.AllRegions && w.Region >= t.Regions:
			return r.d.failAt(pos("region"), at+".region", "%d is not a region of %d (allowed: 0..%d, or no region for every one)", w.Region, t.Regions, t.Regions-1)
		case names[w.Name]:
			return r.d.failAt(pos("name"), at+".name", "%s is watched twice (allowed: a name of its own for each phrase)", w.Name)
		case keys[w.Key]:
			return r.d.failAt(pos("key"), at+".key", "%q is watched twice (allowed: each phrase once)", w.Key)
		}
		names[w.Name], keys[w.Key] = true, true
	}
	return nil
}
