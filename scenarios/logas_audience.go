package scenarios

// A log replayed as an audience (as: audience): the distinct actors of
// each day of the log, of every event or of one key's, their union over
// the days by merge and the naive sum of the days — what an audience run
// asks of its viewers, on a team's own (issue 25).

// LogAudience is the keys of a log replayed as an audience.
type LogAudience struct {
	Day  int64  `key:"day" type:"duration" range:">0" default:"24h" doc:"as: audience: the length of a day: day d (from 0) holds the events from d·day to (d+1)·day after the log's first, at most 366 days (needs time: a log without a time column is one day)"`
	Only string `key:"only" type:"line" doc:"as: audience: count the actors of this key's events only (its string, as in the key column; with key_id, its decimal id); default: every event's"`
}

func (a *LogAudience) refuses(section string) string {
	switch section {
	case "faults":
		return "faults need a timed stream, and an audience replayed from a log is not timed"
	}
	return ""
}

func (a *LogAudience) check(l *Log, r *rule) error {
	if l.Actor == "" && l.ActorID == "" {
		return r.failHere("as: audience needs the column of who acted (allowed: actor or actor_id)")
	}
	if l.Time == "" && r.has("day") {
		return r.failKey("day", "given without time: a log without a time column is one day (allowed: remove day, or give time)")
	}
	return nil
}
