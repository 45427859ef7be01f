package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/strategies"
	"countsim/strategies/boards"
	"countsim/workload"
	"fmt"
	"math"
	"slices"
)

// The leaderboard on the simulated cluster (issue 10): a timed stream whose
// writes are score changes of players and whose reads are rank queries,
// fed to every board design on its own cluster and to an exact truth of
// every player's score. It scores what the timed stream scores of a design
// on servers (the load on its cluster), and what a board adds: its leaders
// against the true top K, the rank of sampled players under every tie
// policy against the true rank, its counts above, what a rank query costs
// and the bytes an entry takes. The stream is the scores generator's, or a
// recorded log's (as: board, log_board.go): a design answers the same
// questions of either.
//
// A rank query of the stream is asked of every design as it comes (what it
// costs is measured: the store reads it sends, the dense scores a shard
// sends, the time an event takes), not scored one by one: the ranks judged
// are the checked players' at the stream's end, against the truth's.

// boardKind runs a board's designs on their clusters, against its truth,
// with what its input gives it: the stream, the standings before it and
// the figures of its plans (boardInput).
type boardKind struct {
	keyed
	feeder   engine.Feeder
	clusters engine.Clusters
	twins    engine.Twins
	faults   []strategies.Fault
	progress engine.StageProgress
	in       boardInput
	checked  int // players whose ranks are checked at the end
	batch    int
}

// boardInput is where a board's run takes what it is made of: its stream
// of score changes and rank queries, the standings before it, and the
// figures its plans are worked out from — the scores generator (boardGen,
// below) or a recorded log (boardLog, log_board.go). The run, its truth,
// its designs and their scoring are the board's, whichever it is.
type boardInput interface {
	Describe() string
	// stream is the score changes and rank queries, afresh.
	stream() engine.Source
	// bad is the error of a stream that could not be read to its end (a
	// bad line of a log), as bad input; nil for a generator.
	bad() error
	// standings says whether players stand on the board before the
	// stream (known at Prepare).
	standings() bool
	// order is the standings in the order they are loaded, best first:
	// n players, fill appending the Set events of players lo..hi−1 to buf.
	// It looks at ctx as it goes, and stops with its error.
	order(ctx context.Context) (n int, fill func(buf []workload.Event, lo, hi int) []workload.Event, err error)
	// players is the players expected on the board at the end, and the
	// note of that plan.
	players() (float64, string)
	// memory is the bytes the input holds besides the truth's and the
	// designs' players: the stream's records, the cluster's accounting,
	// the standings' order; and the instances of each design held at once.
	memory() (int64, int64)
	// end is when the stream fed whole ends, ns, its last event at last.
	end(last int64) int64
	// fed is what the truth's rows are planned at once the stream is fed
	// (events of it, to until, or all of it when rep is not partial):
	// every design's plan is worked out again for the figures that
	// differ, and rep says so.
	fed(rep *engine.Report, tr *boardTruth, events, until int64) boardFed
}

// boardFed is the plans of the truth's rows once the stream is fed, with
// their notes; a nil plan is none.
type boardFed struct {
	writes, reads, players          *float64
	writesNote, readsNote, playNote string
	// steady: the stream wrote at one constant rate, so that the cluster's
	// means over the run compare with the plans worked out at the peak.
	steady bool
}

func init() { engine.DefineKind("board", newBoardKind) }

// boardGen is a board's generator: the timed stream of its players with
// the law of their score changes.
type boardGen struct {
	*timedKind
	spec     *scenarios.Board
	scores   *workload.Scores
	expected float64 // the players expected on the board at the end
}

func newBoardKind(h *engine.Harness) (engine.Kind, error) {
	spec := h.Scn.Run.(*scenarios.Board)
	tk, err := newTimedOf(h, &spec.Timed)
	if err != nil {
		return nil, err
	}
	law := spec.Scores
	scores, err := workload.NewScores(workload.ScoreConfig{Timed: tk.src.Config(), DeltaMin: law.DeltaMin, DeltaMax: law.DeltaMax,
		SetShare: law.SetShare, SetMax: law.SetMax, Standings: law.Standings, StartMax: law.StartMax})
	if err != nil {
		return nil, scenarios.Errorf(law.Pos, "workload.scores: %v", err)
	}
	g := &boardGen{timedKind: tk, spec: spec, scores: scores}
	g.expected = expectedDistinct(tk.src.ExpectedWrites(), spec.Keys, tk.src.Prob)
	if law.Standings {
		g.expected = float64(spec.Keys) // every player stands on the board
	}
	h.Lineup.Env.Keys = uint64(math.Ceil(g.expected))
	return &boardKind{keyed: tk.keyed, feeder: tk.feeder, clusters: tk.clusters, twins: tk.twins, faults: tk.faults,
		progress: h.Progress, in: g, checked: spec.Checked, batch: spec.Batch}, nil
}

func (g *boardGen) stream() engine.Source { return g.scores }
func (g *boardGen) bad() error            { return nil }
func (g *boardGen) end(int64) int64       { return g.spec.Duration() }
func (g *boardGen) standings() bool       { return g.spec.Scores.Standings }

func (g *boardGen) players() (float64, string) {
	if g.spec.Scores.Standings {
		return g.expected, "every player of the key space: the standings are loaded before the stream"
	}
	return g.expected, "Σ over the players' ranks of 1 − e^(−writes·P(rank)): those who score at least once"
}

// memory: the timed stream's records and clusters, less its truth's keys
// (a board's truth is the kind's), and the standings' load order and its
// counts by score.
func (g *boardGen) memory() (int64, int64) {
	held, copies := g.timedKind.Memory()
	held -= int64(g.lineup.Env.Keys) * truthBytesPerKey
	if g.spec.Scores.Standings {
		held += int64(math.Ceil(g.expected))*4 + (g.spec.Scores.StartMax+1)*4
	}
	return held, copies
}

func (g *boardGen) fed(rep *engine.Report, tr *boardTruth, events, until int64) boardFed {
	w := g.spec
	writes, reads, players := w.ExpectedWrites(), w.ExpectedReads(), g.expected
	if rep.Partial {
		f := engine.TimedFed(&w.Timed, events, float64(tr.writes), until)
		g.lineup.Replan(rep, f)
		writes, _ = engine.PhasesUntil(w.Phases, f.Until)
		reads = w.Reads * float64(f.Until) / 1e9
		if !w.Scores.Standings { // those who scored in what was fed
			players = expectedDistinct(writes, w.Keys, g.src.Prob)
		}
	}
	note := "players who scored; plan Σ 1 − e^(−writes·P(rank))"
	if w.Scores.Standings {
		note = "every player: the standings, and the changes of the stream"
	}
	return boardFed{writes: metrics.PlanOf(math.Round(writes)), reads: metrics.PlanOf(math.Round(reads)), players: metrics.PlanOf(math.Round(players)),
		writesNote: "score changes; plan ∫ rate dt", readsNote: "rank queries (read events)", playNote: note, steady: w.Steady()}
}

// expectedDistinct is the keys drawn at least once (engine.ExpectedDistinct).
var expectedDistinct = engine.ExpectedDistinct

// boardEntryBytes is what a board design is budgeted a player, in the
// memory guard: the zset's ≈ 83 B counted from its nodes and map, and the
// allocator's rounding and map slack above it (the benchmarks measure
// ≈ 110 B of heap an entry).
const boardEntryBytes = 130

// rankerEntryBytes is what an estimating ranker is budgeted a player: the
// score histogram's player → score table (24 B slots at a load of 1/2 to
// 3/4, so at most 48 B a player).
const rankerEntryBytes = 48

// boardTruthBytes is what the truth holds a player: its map entry (key,
// score, stamp and the map's overhead) and the sorted copy made to rank.
const boardTruthBytes = 48 + 32

func (k *boardKind) Describe() string { return k.in.Describe() }

func (g *boardGen) Describe() string {
	w, law := g.spec, g.spec.Scores
	change := fmt.Sprintf("+%d..%d points", law.DeltaMin, law.DeltaMax)
	if law.SetShare > 0 {
		change += fmt.Sprintf(", or with probability %g a score set in 0..%d", law.SetShare, law.SetMax)
	}
	return fmt.Sprintf("Leaderboard: %s score changes (%s) over %s s, %s arrivals, %s rank queries/s, over %s players (about %s on the board at the end).",
		metrics.Format(math.Round(w.ExpectedWrites())), change, metrics.Format(float64(w.Duration())/1e9), w.Arrivals,
		metrics.Format(w.Reads), metrics.Format(float64(w.Keys)), metrics.Format(math.Round(g.expected)))
}

// Accepts refuses a design that does not rank players.
func (k *boardKind) Accepts(t *strategies.Type) error {
	return engine.OnlyFamily(t, strategies.FamilyRank, "rank players", "a leaderboard")
}

func (k *boardKind) Memory() (int64, int64) {
	held, copies := k.in.memory()
	p, _ := k.in.players()
	players := int64(math.Ceil(p))
	held += players * boardTruthBytes
	for _, d := range k.lineup.Members {
		switch {
		case d.Typ.Answers(strategies.FamilyBoard):
			held += players * boardEntryBytes
		case d.Typ.Answers(strategies.FamilyRank): // a scores table, a Go map of 16 B entries
			held += players * rankerEntryBytes
		}
	}
	return max(held, 0), copies
}

// Plan is the players expected on the board.
func (k *boardKind) Plan() []metrics.Result {
	players, note := k.in.players()
	return []metrics.Result{k.rows.Plan(strategies.PlanLine{Metric: metrics.Players,
		Value: math.Round(players), Unit: "players", Note: note})}
}

// Churns: as its input does (a log's reader makes garbage at every line).
func (k *boardKind) Churns() bool {
	c, ok := k.in.(interface{ Churns() bool })
	return ok && c.Churns()
}

// RealStores: a board's designs on the store have twins on a real store,
// whose sorted sets are then asked the checked players' ranks — unless the
// board stands on standings, which are loaded into the designs without
// store ops and so would be missing there.
func (k *boardKind) RealStores() bool { return !k.in.standings() }

// newRun builds every design, each on a simulated cluster of its own when
// the scenario has one, with the truth tr and the scenario's faults.
func (k *boardKind) newRun(ctx context.Context, tr engine.Observer, rr *engine.RealRun) (*engine.ClusterRun, error) {
	r, err := k.clusters.NewRun(ctx, k.lineup, tr, rr)
	if r != nil {
		r.Faults = k.faults
	}
	return r, err
}

func (k *boardKind) Run(ctx context.Context) (*engine.Report, error) {
	designs := k.lineup.Members
	tr := &boardTruth{players: make(map[uint64]boardEntry, engine.TruthHint(k.lineup.Env.Keys))}
	ctx, rr, cause := k.twins.Start(ctx, len(designs))
	defer rr.Close()
	sctx, release := engine.Scoring(ctx)
	defer release()
	r, err := k.newRun(ctx, tr, rr)
	if err != nil {
		return nil, err
	}
	if k.in.standings() {
		if n, err := k.load(ctx, r, tr); err != nil {
			if bad := k.in.bad(); bad != nil {
				return nil, bad // bad input: nothing is reported
			}
			return k.stoppedLoading(tr, n), cause(err)
		}
	}
	events, err := k.feeder.Feed(ctx, r.Run, k.in.stream(), k.batch)
	if bad := k.in.bad(); bad != nil {
		return nil, bad
	}
	if err == nil {
		r.Finish(k.in.end(tr.last))
		err = ctx.Err()
	} else {
		r.TakeSteady(r.FedUntil + 1) // what was fed
	}
	if err = cause(err); err == nil {
		rr.Settle()
	}
	rep := &engine.Report{Partial: err != nil}
	f := k.in.fed(rep, tr, events, r.FedUntil)
	k.rows.Truth(rep, metrics.Events, float64(events), "events", nil, "every event fed: score changes and rank queries")
	k.rows.Truth(rep, metrics.Writes, float64(tr.writes), "events", f.writes, f.writesNote)
	k.rows.Truth(rep, metrics.RankQueries, float64(tr.reads), "queries", f.reads, f.readsNote)
	top := k.top
	tb, rankErr := tr.ranked(sctx, k.checked, top)
	tr.players = nil // the designs are judged against tb alone
	ranked := rankErr == nil
	if ranked {
		k.rows.Truth(rep, metrics.Players, float64(tb.players), "players", f.players, f.playNote)
		k.rows.Truth(rep, metrics.DistinctScores, float64(tb.distinct), "scores", nil, "distinct scores on the board")
		k.rows.Truth(rep, metrics.TiedPlayers, float64(tb.tied), "players", nil, "players who share their score with another: where tie policies differ")
	}
	checks := tb.checks
	scored := make([]judged, len(r.Designs))
	if ranked {
		var jobs []func()
		for i, built := range r.Designs {
			jobs = append(jobs, func() { scored[i] = k.judge(sctx, built, tb, top) })
		}
		k.workers.Parallel(jobs)
	}
	switch {
	case !ranked:
		rep.Cut("the true board's rows and every design's answers against it")
	case slices.ContainsFunc(scored, func(j judged) bool { return j.cut }):
		rep.Cut("every design's answers against the true board")
		ranked = false
	}
	rankErrs := metrics.Series{Scenario: k.rows.Scenario, Step: k.rows.Step, Name: "rank-error", Kind: metrics.Bars,
		Title:  fmt.Sprintf("mean error of the competition rank, %s players checked", metrics.Format(float64(len(checks)))),
		XLabel: "design", YLabel: "mean |rank − true rank|"}
	for i, built := range r.Designs {
		s := k.rows.Scorer(rep, designs[i])
		s.Memory(built, "measured from the design's sets")
		if designs[i].Real == "" { // a twin's time is the real store's: its own rows
			s.Speed(r.Elapsed[i], events, engine.LaneClockNote+"; includes the rank queries and the simulated cluster's accounting")
		}
		if r.Clusters[i] != nil {
			k.clusters.Rows(s, r, i, f.steady, r.End)
			if tr.reads > 0 && r.Finished && r.Steady[i].Keys > 0 {
				s.Add(metrics.RankFanout, engine.Round(float64(r.Steady[i].Reads)/float64(tr.reads), 3), "reads", s.Plan(metrics.RankFanout),
					"store reads a rank query sent: the design's reads / the rank queries")
			}
		}
		if ranked {
			scored[i].rows(s)
		}
		if rs := rr.Stores[i]; rs != nil {
			rr.Score(s, i, k.in.end(tr.last))
			if err == nil && ranked {
				k.realRanks(s, rs, checks)
			}
		}
		if ranked && scored[i].ranks {
			rankErrs.Labels = append(rankErrs.Labels, s.D.Name())
			rankErrs.Y = append(rankErrs.Y, scored[i].meanCompetitionError)
		}
		s.Finish()
	}
	if len(rankErrs.Labels) > 0 {
		rep.Series = append(rep.Series, rankErrs)
	}
	rr.Table(rep)
	if err == nil {
		if err = cause(ctx.Err()); err != nil { // a real store failed while ranks were read back, or the run was stopped while scored
			rep.Partial = true
		}
	}
	return rep, err
}

// stoppedLoading is the report of a run stopped while the n players of
// the standings loaded: the truth's count of the players it had taken, and
// nothing of the designs, each of which holds a part of the standings of
// its own.
func (k *boardKind) stoppedLoading(tr *boardTruth, n int) *engine.Report {
	rep := &engine.Report{Partial: true}
	k.rows.Truth(rep, metrics.Events, 0, "events", nil, "every event fed: none, the standings were loading")
	k.rows.Truth(rep, metrics.Players, float64(len(tr.players)), "players", nil,
		fmt.Sprintf("players of the standings the truth had loaded when the run stopped, of %s", metrics.Format(float64(n))))
	rep.Note(fmt.Sprintf("Stopped while the standings loaded (the truth had taken %s of the %s players): the stream was not fed, and no design is judged against a board half loaded.",
		metrics.Format(float64(len(tr.players))), metrics.Format(float64(n))))
	return rep
}

// realRanks asks a twin's real store the checked players' scores and
// competition ranks from its own sorted sets (ZSCORE, then 1 + Σ ZCOUNT over
// the design's keys), against the truth.
func (k *boardKind) realRanks(s *engine.Scorer, rs strategies.RealStore, checks []standing) {
	rd, ok := rs.(strategies.RankReader)
	if !ok || len(checks) == 0 {
		return
	}
	players := make([]uint64, len(checks))
	for i, c := range checks {
		players[i] = c.player
	}
	scores, ranks, found, err := rd.Ranks(players)
	if err != nil {
		return // the store has failed: the run stops, partial
	}
	var badScores, badRanks int
	for i, c := range checks {
		if !found[i] || scores[i] != c.score {
			badScores++
		}
		if ranks[i] != c.competition {
			badRanks++
		}
	}
	n := metrics.Format(float64(len(checks)))
	s.Add(metrics.StoreScores, float64(badScores), "players", metrics.PlanOf(0), "of "+n+" checked: ZSCORE on the real store against the truth's score")
	s.Add(metrics.StoreRanks, float64(badRanks), "players", metrics.PlanOf(0),
		"of "+n+" checked: 1 + Σ ZCOUNT (score +inf over the design's sorted sets on the real store, against the truth's competition rank")
}

// judge compares a design's answers with the truth, off the feed's lanes;
// it returns what adds the rows, to be called in the designs' order.
//
// It looks at ctx every judgeEvery players checked; stopped, it returns a
// judgement that is cut and adds no rows.
func (k *boardKind) judge(ctx context.Context, built strategies.Strategy, tb trueBoard, top int) judged {
	checks := tb.checks
	var rows []func(s *engine.Scorer)
	add := func(f func(s *engine.Scorer)) { rows = append(rows, f) }
	rk, ok := built.(strategies.Ranker)
	if !ok {
		return judged{rows: func(*engine.Scorer) {}}
	}
	// What the stream's rank queries cost, before the checks below add theirs.
	if rc, ok := built.(strategies.RankCoster); ok {
		q, sent, most := rc.DenseScoresSent()
		if q > 0 && sent > 0 {
			add(func(s *engine.Scorer) {
				s.Add(metrics.DenseScoresSent, engine.Round(float64(sent)/float64(q), 1), "scores", nil,
					fmt.Sprintf("distinct scores the shards sent a dense rank, mean over the stream's %d dense rank queries: what uniting them costs", q))
				s.Add(metrics.DenseScoresMax, float64(most), "scores", nil, "the most one dense rank took")
			})
		}
	}
	players := rk.Players()
	add(func(s *engine.Scorer) {
		s.Add(metrics.Players, float64(players), "players", metrics.PlanOf(float64(tb.players)), "players on the board; plan: the truth's")
		if players > 0 {
			entry := s.Plan(metrics.BytesPerEntry)
			if _, exact := built.(strategies.Board); exact {
				s.Add(metrics.BytesPerEntry, engine.Round(float64(built.Bytes())/float64(players), 1), "B", entry,
					"bytes / players, counted from the sets' nodes and maps; plan: the seeds' figure for a Redis sorted-set entry")
			}
		}
	})
	if b, ok := built.(strategies.Board); ok {
		f, err := k.judgeBoard(ctx, b, tb, top)
		if err != nil {
			return judged{cut: true}
		}
		add(f)
	}
	var meanComp float64
	ties := rk.RankTies()
	for _, t := range strategies.AllTies {
		if !slices.Contains(ties, t) {
			continue
		}
		var wrong int64
		var errs []float64
		for j, c := range checks {
			if j%judgeEvery == 0 && ctx.Err() != nil {
				return judged{cut: true}
			}
			want := c.competition
			switch t {
			case strategies.TiesOrdinal:
				want = c.ordinal
			case strategies.TiesDense:
				want = c.dense
			}
			got := rk.Rank(c.player, t)
			if got != want {
				wrong++
			}
			errs = append(errs, math.Abs(float64(got-want)))
		}
		wrongM, maxM := tieMetrics(t)
		add(func(s *engine.Scorer) {
			s.Add(wrongM, float64(wrong), "players", nil, fmt.Sprintf("%s ranks of %d players checked not equal to the true rank", t, len(checks)))
			s.Add(maxM, maxOf(errs), "ranks", nil, fmt.Sprintf("largest |%s rank − true rank|", t))
		})
		if t == strategies.TiesCompetition && len(errs) > 0 {
			meanComp = engine.Mean(errs)
			if _, exact := built.(strategies.Board); !exact {
				add(rankErrorRows(errs, checks, tb.players))
			}
		}
	}
	if h, ok := built.(*boards.ScoreHistogram); ok {
		add(func(s *engine.Scorer) {
			s.Add(metrics.Buckets, float64(h.Buckets()), "buckets", nil, "buckets in use: 1 + the highest filled")
		})
	}
	return judged{rows: func(s *engine.Scorer) {
		for _, f := range rows {
			f(s)
		}
	}, meanCompetitionError: meanComp, ranks: true}
}

// judged is a design's judgement: the rows to add, in order, and for a
// ranker the mean error of its competition ranks, for the chart.
type judged struct {
	rows                 func(s *engine.Scorer)
	meanCompetitionError float64
	ranks                bool
	cut                  bool // stopped before the end: no rows
}

// judgeEvery is the players checked between two looks at the context: a
// rank query of a sharded board of 20 M players asks every shard.
const judgeEvery = 64

// tieMetrics names the rows of a tie policy.
func tieMetrics(t strategies.Ties) (wrong, maxErr metrics.Metric) {
	switch t {
	case strategies.TiesOrdinal:
		return metrics.RanksWrongOrdinal, metrics.RankErrorMaxOrdinal
	case strategies.TiesDense:
		return metrics.RanksWrongDense, metrics.RankErrorMaxDense
	}
	return metrics.RanksWrongCompetition, metrics.RankErrorMaxCompetition
}

// judgeBoard: the leaders against the true top K, and the counts above
// the checked players' scores against the truth.
func (k *boardKind) judgeBoard(ctx context.Context, b strategies.Board, tb trueBoard, top int) (func(s *engine.Scorer), error) {
	checks := tb.checks
	var exact, recall float64
	if top > 0 {
		got := b.Leaders(top)
		want := tb.leaders
		exact = 1
		inTop := map[uint64]bool{}
		for _, w := range want {
			inTop[w.player] = true
		}
		var hits int
		for j, g := range got {
			if inTop[g.Player] {
				hits++
			}
			if j >= len(want) || g.Player != want[j].player || g.Score != want[j].score {
				exact = 0
			}
		}
		if len(got) != len(want) {
			exact = 0
		}
		recall = float64(hits) / float64(max(len(want), 1))
	}
	var wrong int64
	for j, c := range checks {
		if j%judgeEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if b.CountAbove(c.score) != c.competition-1 {
			wrong++
		}
	}
	return func(s *engine.Scorer) {
		if top > 0 {
			s.Add(metrics.TopExact, exact, "bool", nil, fmt.Sprintf("1 if the %d leaders are the true top %d, in order (ties by who reached the score first, then id)", top, top))
			s.Add(metrics.TopKRecall, recall, "share", nil, fmt.Sprintf("of the true top %d, the share among the leaders", top))
		}
		s.Add(metrics.CountAboveWrong, float64(wrong), "scores", nil, fmt.Sprintf("of the %d checked players' scores, those whose count above is not the truth's", len(checks)))
	}, nil
}

// rankErrorRows: the error of an estimated competition rank, absolute
// (abs, one a player checked), relative to the true rank and in
// percentile points of the board.
func rankErrorRows(abs []float64, checks []standing, players int64) func(s *engine.Scorer) {
	rel := make([]float64, 0, len(checks))
	pct := make([]float64, 0, len(checks))
	for j, c := range checks {
		rel = append(rel, abs[j]/float64(c.competition))
		pct = append(pct, 100*abs[j]/float64(max(players, 1)))
	}
	m := engine.Mean(abs)
	return func(s *engine.Scorer) {
		s.Add(metrics.RankErrorMean, engine.Round(m, 3), "ranks", nil, "mean |rank − true rank| of the competition ranks checked")
		s.Add(metrics.RankErrorP99, metrics.Quantile(append([]float64(nil), abs...), 0.99), "ranks", nil, "over the players checked")
		s.Add(metrics.RankRelErrorMax, engine.Round(maxOf(rel), 6), "share", nil, "largest |rank − true| / true rank")
		s.Add(metrics.RankRelErrorP99, engine.Round(metrics.Quantile(rel, 0.99), 6), "share", nil, "over the players checked")
		s.Add(metrics.PercentileErrorMax, engine.Round(maxOf(pct), 4), "points", nil, "largest |rank − true| / players, in percentile points")
		s.Add(metrics.PercentileErrorP99, engine.Round(metrics.Quantile(pct, 0.99), 4), "points", nil, "over the players checked")
	}
}
