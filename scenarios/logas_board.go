package scenarios

// A log replayed as a leaderboard (as: board): each write's delta adds
// points to a player, a score column (or op: set, its delta the score) sets
// a player's score, op: read rows are rank queries, and the standings so
// far may come from a second file (issue 25).

// LogBoard is the keys of a log replayed as a leaderboard.
type LogBoard struct {
	Score          string `key:"score" type:"line" doc:"as: board: a column of absolute scores: a row with one sets the player's score to it (else its delta adds)"`
	Standings      string `key:"standings" type:"line" doc:"as: board: a second file, of the log's format, of the standings before the log, loaded into every board first: one line a player, its key column (key, or key_id) and a score column; best first is not needed (they are loaded by score, ties in the file's order); a path relative to the scenario file"`
	StandingsScore string `key:"standings_score" type:"line" default:"score" doc:"as: board: the standings file's column of scores, a whole number on every line"`
	Checked        int    `key:"checked" range:"1..1000000" default:"2000" doc:"as: board: players whose ranks are checked against the truth at the end under every tie policy"`
}

func (b *LogBoard) refuses(section string) string {
	switch section {
	case "faults":
		return "faults need a timed stream (allowed: as: timed)"
	}
	return ""
}

// check: standings_score only with standings, and a score column that is
// neither the log's delta nor its key.
func (b *LogBoard) check(l *Log, r *rule) error {
	if r.has("standings_score") && b.Standings == "" {
		return r.failKey("standings_score", "given without standings (allowed: remove standings_score, or give standings)")
	}
	if b.Score != "" && (b.Score == l.Delta || b.Score == l.Key) {
		return r.failKey("score", "%q is the log's %s column too: a score is a column of its own (allowed: another column, or op set with the score as the delta)",
			b.Score, map[bool]string{true: "delta", false: "key"}[b.Score == l.Delta])
	}
	return nil
}

// StandingsPath is the standings file's path, relative to the scenario
// file's folder as the log's is; "" without one.
func (b *LogBoard) StandingsPath(scenarioFile string) string {
	if b.Standings == "" {
		return ""
	}
	return (&Log{File: b.Standings}).Path(scenarioFile)
}
