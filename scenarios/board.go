package scenarios

// The leaderboard (`workload: {phases: […], scores: {…}, …}`): a timed
// stream whose keys are players and whose writes are score changes (the
// scores block), whose reads are rank queries; the board's kind of run
// (issue 10). It is the timed stream with scores: the scores key picks it
// over the timed stream that its phases would otherwise give.

// Board is a leaderboard run: the timed stream of its players and the law
// of their score changes.
type Board struct {
	Timed
	Scores  ScoreLaw `key:"scores" required:"true" doc:"the law of the score changes: each write adds points to a player, or sets its score (a leaderboard)"`
	Checked int      `key:"checked" range:"1..1000000" default:"2000" doc:"players whose ranks are checked against the truth at the end under every tie policy, taken evenly over the true order (the top 100 always among them)"`
	Pos     Pos      // the workload key
}

// ScoreLaw is the law of one score change: an increment uniform in
// [DeltaMin, DeltaMax] whole points, or with probability SetShare an
// absolute score uniform in [0, SetMax].
type ScoreLaw struct {
	DeltaMin int64   `key:"delta_min" range:"1..4294967296" default:"1" doc:"the fewest points an increment adds"`
	DeltaMax int64   `key:"delta_max" range:"1..4294967296" required:"true" doc:"the most points an increment adds, at least delta_min: whole points, so players tie"`
	SetShare float64 `key:"set_share" range:"[0,1]" default:"0" doc:"the share of changes that set an absolute score instead of adding points"`
	SetMax   int64   `key:"set_max" range:"0..4294967296" default:"0" doc:"the highest absolute score, with set_share: an absolute score is uniform in 0..set_max"`
	StartMax int64   `key:"start_max" range:"0..16777216" doc:"when given, every player of the key space stands at a score uniform in 0..start_max before the stream (the standings so far), loaded into every board first: the board holds every player; when absent, the boards start empty"`
	// Standings is whether start_max is given.
	Standings bool
	Pos       Pos // the scores key
}

func init() {
	defineKind(&kindDef{name: "board", order: 5, key: "workload", marker: "scores", over: "timed", what: "a leaderboard",
		new: func() Run { return new(Board) }})
}

func (b *Board) Kind() string { return "board" }
func (b *Board) Where() Pos   { return b.Pos }

func (b *Board) refusal(key string) string {
	switch key {
	case "resend":
		return "a board's score changes are not resent"
	case "resend_delay":
		return "a board's score changes are not resent"
	}
	return b.Timed.refusal(key)
}

// check: the timed stream's rules, no resends, and a law whose bounds hold
// together.
func (b *Board) check(r *rule) error {
	b.Timed.Pos = b.Pos
	for _, key := range []string{"resend", "resend_delay"} {
		if r.has(key) {
			return r.failKey(key, "%s (allowed: remove %s)", b.refusal(key), key)
		}
	}
	if err := b.Timed.check(r); err != nil {
		return err
	}
	if total := b.ExpectedWrites() * float64(b.Scores.DeltaMax); total > 1<<61 {
		return r.failKey("scores", "about %.4g changes of up to %d points could add up to %.4g, beyond 2^61 (allowed: fewer changes or a smaller delta_max, so that every score fits 64 bits)",
			b.ExpectedWrites(), b.Scores.DeltaMax, total)
	}
	return nil
}

// check: delta_min ≤ delta_max, and set_max only with set_share.
func (l *ScoreLaw) check(r *rule) error {
	l.Standings = r.has("start_max")
	if l.DeltaMin > l.DeltaMax {
		return r.failKey("delta_min", "%d is above delta_max %d (allowed: 1..delta_max)", l.DeltaMin, l.DeltaMax)
	}
	if r.has("set_max") && l.SetShare == 0 {
		return r.failKey("set_max", "is given without set_share (allowed: remove set_max, or give set_share > 0)")
	}
	return nil
}
