package sim

import (
	"cmp"
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// A recorded log replayed as a leaderboard (workload: {file: …, as: board},
// issue 25): the board's own run (board.go) with a log as its input. Each
// write adds its delta to a player's score (the key), a Set — a line with a
// value in the score column, or op set with the score as its delta — sets
// it, and each read is a rank query of that player, asked of every design
// as the synthetic board's are. The standings before the log may come from
// a second file of the log's format (standings:), loaded into the truth
// and every board first, by score, ties in the file's order. The truth is
// worked out from the events, exactly; the plans, once the log is read,
// from its own figures. And a board's stream sampled (countsim sample)
// replays as one: the same events, and its standings as a second file.
//
// Time. The log's clock starts at the whole second of its first event (in
// Unix time; of the first less the tolerance, when it has one), so that
// the cluster's seconds are the log's own; the stream ends at the end of
// the second of its last event. A log sampled from a
// board thus replays on the synthetic run's seconds, to the same end.

func init() { defineLogAs("board", newLogBoard) }

// boardLog is a log as a board's input: the log, its standings, and what
// was read of them.
type boardLog struct {
	*logBase
	lineup *engine.Lineup
	src    *logSource // the stream last handed out
	// standCfg reads the standings (Path "" without them); stoodEst is
	// their players, estimated from their head at Prepare (exact when
	// stoodWhole).
	standCfg   workload.LogConfig
	stoodEst   float64
	stoodWhole bool
	badErr     error // a bad line of the standings, as bad input
}

// stood is one line of the standings: a player, its score, and its line.
type stood struct {
	player uint64
	score  int64
	line   int64
}

// stoodBytes is what the standings hold a player while they load: a stood,
// and the room its slice grows into as it is read.
const stoodBytes = 24 * 5 / 4

func newLogBoard(h *engine.Harness, b *logBase) (engine.Kind, error) {
	cl, err := h.Clusters()
	if err != nil {
		return nil, err
	}
	spec := b.spec
	l := &boardLog{logBase: b, lineup: h.Lineup}
	if spec.Time != "" {
		l.cfg.Start = firstSecond(l.cfg)
	}
	if p := spec.StandingsPath(h.Scn.File); p != "" {
		l.standCfg = workload.LogConfig{Path: p, Format: spec.Format, Key: spec.Key, KeyID: spec.KeyID, Score: spec.StandingsScore, Rate: 1}
		rows, whole, scale, err := l.readStandings(h.Ctx, logSampleEvents)
		if err != nil {
			return nil, l.standingsError(err)
		}
		l.stoodEst, l.stoodWhole = float64(len(rows))*scale, whole
	}
	players, _ := l.players()
	env := &h.Lineup.Env
	env.Keys = uint64(math.Ceil(players))
	env.Events = int64(math.Ceil(l.logEvents))
	env.Sim.Events, env.Sim.Keys = l.logEvents, players
	return &boardKind{keyed: newKeyed(h, env.Keys, l.logEvents, nil, "no plan: a recorded log has no law of its players"),
		feeder: h.Feeder, clusters: cl, twins: h.Twins, progress: h.Progress, in: l, checked: spec.Checked, batch: spec.Batch}, nil
}

// firstSecond is the whole second, in Unix time, of the log's first event
// less its tolerance (an event the tolerance before the first is taken):
// the instant its clock starts at. It is the zero time (the first event's
// own time) where the first event cannot be read so, before 1970.
func firstSecond(cfg workload.LogConfig) time.Time {
	cfg.Start = time.Unix(0, 0)
	r, err := workload.OpenLog(cfg)
	if err != nil {
		return time.Time{}
	}
	defer r.Close()
	b, err := r.Read(make([]workload.Event, 0, 1))
	if err != nil || len(b) == 0 || b[0].At < int64(cfg.Tolerance) {
		return time.Time{}
	}
	return time.Unix((b[0].At-int64(cfg.Tolerance))/1e9, 0)
}

// readStandings reads the standings, at most most lines of them: every
// line a player with a score. whole says the file was read to its end;
// scale is its size over the bytes read, for an estimate of a head. It
// looks at ctx every stopEvery lines.
func (l *boardLog) readStandings(ctx context.Context, most int) (rows []stood, whole bool, scale float64, err error) {
	r, err := workload.OpenLog(l.standCfg)
	if err != nil {
		return nil, false, 0, err
	}
	defer r.Close()
	buf := make([]workload.Event, 0, 1) // one at a time: each with its line
	for len(rows) < most {
		if engine.Stopped(ctx, len(rows)) {
			return nil, false, 0, ctx.Err()
		}
		b, err := r.Read(buf[:0])
		if err == io.EOF {
			return rows, true, 1, nil
		}
		if err != nil {
			return nil, false, 0, err
		}
		if b[0].Op != workload.Set {
			return nil, false, 0, &workload.LogError{Path: l.standCfg.Path, Line: r.Line(),
				Msg: fmt.Sprintf("no score in column %s (allowed: a whole number on every line of the standings)", l.standCfg.Score)}
		}
		rows = append(rows, stood{player: b[0].Key, score: b[0].Delta, line: r.Line()})
	}
	return rows, false, max(float64(r.Size())/float64(max(r.BytesRead(), 1)), 1), nil
}

// standingsError is an error of the standings as bad input: at its line,
// or at the workload's key for the file as a whole.
func (l *boardLog) standingsError(err error) error {
	var le *workload.LogError
	if errors.As(err, &le) {
		return &scenarios.Error{Pos: scenarios.Pos{File: le.Path, Line: int(le.Line)}, Msg: le.Msg}
	}
	if err == context.Canceled || err == context.DeadlineExceeded {
		return err
	}
	return scenarios.Errorf(l.spec.Pos, "workload.standings: %v", err)
}

func (l *boardLog) Describe() string {
	about := l.about()
	timing := "timed by column " + l.spec.Time + ", its clock from the whole second of its first event"
	if l.spec.Time == "" {
		timing = fmt.Sprintf("spaced at %s events/s", metrics.Format(l.spec.Rate))
	}
	change := "column " + l.spec.Delta + " adds points"
	if l.spec.Delta == "" {
		change = "each write adds a point"
	}
	if l.spec.Score != "" {
		change += ", column " + l.spec.Score + " sets a score"
	}
	if l.spec.Op != "" {
		change += ", column " + l.spec.Op + " says write, read (a rank query) or set"
	}
	standings := ""
	if l.standCfg.Path != "" {
		sa := "about "
		if l.stoodWhole {
			sa = ""
		}
		standings = fmt.Sprintf(", on the standings of %s (%s%s players, scores in column %s)", l.standCfg.Path, sa,
			metrics.Format(math.Round(l.stoodEst)), l.standCfg.Score)
	}
	return fmt.Sprintf("Recorded log replayed as a leaderboard: %s (%s, player column %s, %s; %s), %s%s events over %s%s players and readers%s, batches of %d; its load is planned once it is read, from its busiest second.",
		l.cfg.Path, l.spec.Format, l.spec.Key, timing, change, about, metrics.Format(math.Round(l.logEvents)), about,
		metrics.Format(math.Round(l.logKeys)), standings, l.spec.Batch)
}

func (l *boardLog) stream() engine.Source {
	l.src = l.source()
	return l.src
}

func (l *boardLog) bad() error {
	if l.badErr != nil {
		return l.badErr
	}
	if l.src != nil && l.src.err != nil {
		return l.badInput(l.src.err)
	}
	return nil
}

func (l *boardLog) standings() bool { return l.standCfg.Path != "" }

// players: at most the log's keys and the standings' players, as
// estimated from their heads at Prepare (a key only ever read is no
// player of the board).
func (l *boardLog) players() (float64, string) {
	note := "at most the log's distinct keys"
	if !l.whole {
		note += ", estimated from its head"
	}
	if l.standCfg.Path != "" {
		note += ", and the standings' players"
		if !l.stoodWhole {
			note += ", estimated from their head"
		}
	}
	return l.logKeys + l.stoodEst, note
}

// memory: the standings as they load, and the sorted copy of them.
func (l *boardLog) memory() (int64, int64) {
	return int64(math.Ceil(l.stoodEst)) * stoodBytes * 2, 1
}

// Churns: the reader makes garbage at every line (see logKind.churns).
func (l *boardLog) Churns() bool { return true }

// end is the end of the second of the last event.
func (l *boardLog) end(last int64) int64 { return (last/1e9 + 1) * 1e9 }

// order reads the standings whole and orders them best first: score
// descending, then the file's order (a line earlier reached its score
// first). A player on two lines is bad input, at the later.
func (l *boardLog) order(ctx context.Context) (int, func([]workload.Event, int, int) []workload.Event, error) {
	rows, _, _, err := l.readStandings(ctx, math.MaxInt)
	if err == nil {
		err = engine.SortStop(ctx, rows, func(a, b stood) int {
			return cmp.Or(cmp.Compare(a.player, b.player), cmp.Compare(a.line, b.line))
		})
	}
	if err == nil {
		for i := 1; i < len(rows); i++ {
			if rows[i].player == rows[i-1].player {
				err = &workload.LogError{Path: l.standCfg.Path, Line: rows[i].line,
					Msg: fmt.Sprintf("the player of line %d stands again (allowed: one line a player)", rows[i-1].line)}
				break
			}
		}
	}
	if err == nil {
		err = engine.SortStop(ctx, rows, func(a, b stood) int {
			return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.line, b.line))
		})
	}
	if err != nil {
		if ctx.Err() == nil {
			l.badErr = l.standingsError(err)
		}
		return int(math.Ceil(l.stoodEst)), nil, err // stopped: the players it was to load
	}
	return len(rows), func(buf []workload.Event, lo, hi int) []workload.Event {
		for _, s := range rows[lo:hi] {
			buf = append(buf, workload.Event{Op: workload.Set, Key: s.player, Delta: s.score})
		}
		return buf
	}, nil
}

// fed: a stopped log's plans are for what was fed; a log read to its end
// has its own figures — its changes, rank queries, players, span and
// busiest second — and every design's plan is worked out for them, a note
// giving them beside what was estimated from the log's head at Prepare.
// The truth's rows carry no plan: the log's figures are measured, and a
// log has no law to plan them from.
func (l *boardLog) fed(rep *engine.Report, tr *boardTruth, events, until int64) boardFed {
	f := boardFed{writesNote: "score changes read from the log: writes and sets", readsNote: "rank queries read from the log (op read)",
		playNote: "players on the board: those the log's changes scored"}
	if l.standCfg.Path != "" {
		f.playNote += ", and the standings'"
	}
	if l.src != nil && l.src.skipped > 0 {
		rep.Note(fmt.Sprintf("%s bad lines of the log were skipped (skip_bad: %d).", metrics.Format(float64(l.src.skipped)), l.spec.SkipBad))
	}
	if rep.Partial {
		l.lineup.Replan(rep, engine.Fed{Events: events, Writes: float64(tr.writes), Until: max(until, 1), Peak: float64(tr.busiest)})
		return f
	}
	end := l.end(tr.last)
	secs := float64(end) / 1e9
	env := l.lineup.Env
	env.Events, env.Duration = int64(tr.writes), end
	env.Sim.Events, env.Sim.Keys = float64(tr.writes), float64(len(tr.players))
	env.Sim.PeakRate, env.Sim.ReadRate = float64(tr.busiest), float64(tr.reads)/secs
	// As a timed stream's rates are its full scale's where the assumptions
	// state none, so are the log's.
	if env.Full.PeakRate == 0 {
		env.Full.PeakRate = env.Sim.PeakRate
	}
	if env.Full.ReadRate == 0 {
		env.Full.ReadRate = env.Sim.ReadRate
	}
	for i := range l.lineup.Members {
		d := &l.lineup.Members[i]
		d.Plan = d.Typ.Plan(d.Params, env)
	}
	about := "estimated at about "
	if l.whole {
		about = "read whole at Prepare: "
	}
	stood := ""
	if l.standCfg.Path != "" {
		stood = fmt.Sprintf(", and %s standing before it", metrics.Format(math.Round(l.stoodEst)))
		if !l.stoodWhole {
			stood = fmt.Sprintf(", and about %s standing before it", metrics.Format(math.Round(l.stoodEst)))
		}
	}
	rep.Note(fmt.Sprintf("The log held %s score changes and %s rank queries over %s s (the busiest second %s changes, %s rank queries a second), %s players on the board at its end; "+
		"%s%s events over %s keys%s. Every simulated-scale plan is worked out for the log's own figures: its changes, players, span, busiest second and rank queries a second.",
		metrics.Format(float64(tr.writes)), metrics.Format(float64(tr.reads)), metrics.Format(secs), metrics.Format(float64(tr.busiest)),
		metrics.Format(engine.Round(float64(tr.reads)/secs, 1)), metrics.Format(float64(len(tr.players))),
		about, metrics.Format(math.Round(l.logEvents)), metrics.Format(math.Round(l.logKeys)), stood))
	return f
}

func init() { defineSampler("board", sampleBoard) }

// sampleBoard samples a board: its whole stream (refused past n events),
// a player named by its rank of activity ("player #1" the busiest), a set
// score written as op set with the score as its delta; the standings, when
// the board has them, as a second file of the same columns in their load
// order, read back by their delta as the score.
func sampleBoard(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Board)
	if all := spec.ExpectedWrites() + spec.ExpectedReads(); all > float64(n) {
		return nil, fmt.Errorf("%s holds about %s events, more than the %s asked: a board's answers are its whole stream's (allowed: -events of at least %s)",
			scn.ID(), metrics.Format(math.Round(all)), metrics.Format(float64(n)), metrics.Format(math.Ceil(all*1.01)))
	}
	h := &engine.Harness{Ctx: context.Background(), Scn: scn, Lineup: &engine.Lineup{}}
	bk, err := newBoardKind(h)
	if err != nil {
		return nil, err
	}
	g := bk.(*boardKind).in.(*boardGen)
	cfg := g.src.Config()
	scr := workload.NewScrambler(cfg.Seed)
	names := SampleNames{Key: func(key uint64) string {
		if cfg.Scramble {
			key = scr.Rank(key)
		}
		return "player #" + strconv.FormatUint(key, 10)
	}}
	out := &Sampled{As: "board", Keys: [][2]string{{"checked", strconv.Itoa(spec.Checked)}, {"batch", strconv.Itoa(spec.Batch)}}}
	var buf []workload.Event
	for i := range g.scores.Chunks() {
		buf = g.scores.Chunk(i, buf)
		if out.Events += int64(len(buf)); out.Events > n {
			return nil, fmt.Errorf("%s holds more than the %s events asked: a board's answers are its whole stream's (allowed: a larger -events)", scn.ID(), metrics.Format(float64(n)))
		}
		if err := each(buf, names); err != nil {
			return nil, err
		}
	}
	if spec.Scores.Standings {
		out.Files = append(out.Files, SampleFile{Key: "standings", Suffix: "-standings", Keys: [][2]string{{"standings_score", "delta"}},
			Write: func(each func([]workload.Event, SampleNames) error) error {
				n, fill, err := g.order(context.Background())
				if err != nil {
					return err
				}
				for lo := 0; lo < n; lo += loadPiece {
					if err := each(fill(buf[:0], lo, min(lo+loadPiece, n)), names); err != nil {
						return err
					}
				}
				return nil
			}})
	}
	return out, nil
}
