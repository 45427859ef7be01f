package scenarios

// A log replayed as trending phrases (as: trending): the log's own clock,
// checkpoints on it, and phrases to watch named by their key strings, so
// that the designs' detection latency is measured against the truth of
// the same log (issue 25).

// LogTrending is the keys of a log replayed as trending phrases.
type LogTrending struct {
	Checkpoint int64      `key:"checkpoint" type:"duration" range:">0" default:"1m" doc:"as: trending: how often the designs' top K of now is asked, on the log's clock"`
	Regions    int        `key:"regions" range:"1..4096" default:"1" doc:"as: trending: the regions, each event's from the actor_id column (0..regions−1)"`
	Watch      []LogWatch `key:"watch" range:"0..100" entry:"phrase" doc:"as: trending: phrases whose rise is timed, named by their key strings: each design's detection latency is measured against when the log's truth puts the phrase in its top K"`
}

// LogWatch is one phrase of a log whose rise is timed.
type LogWatch struct {
	Name string `key:"name" type:"label" required:"true" doc:"the phrase's name in tables"`
	Key  string `key:"key" type:"line" required:"true" doc:"the phrase's string, as in the key column"`
	Pos  Pos
}

func (t *LogTrending) refuses(section string) string {
	switch section {
	case "faults":
		return "a trending run takes no faults"
	}
	return ""
}

func (t *LogTrending) check(l *Log, r *rule) error {
	if l.Time == "" {
		return r.failHere("as: trending needs the log's clock (allowed: time, the column of each event's time)")
	}
	return nil
}
