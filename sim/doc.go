// Package sim runs a scenario: one file a kind of run, each registering
// itself with the engine (package sim/engine), which builds the stream,
// every design and the exact ground truth, feeds the same batches of events
// to all of them, and scores each design's answers against the truth.
//
// The kinds: a count stream (stream.go), a timed stream on the simulated
// cluster (timed.go, score_servers.go), an audience (audience.go, its
// store's costs in storecost.go), an accuracy profile (profile.go), a
// leaderboard (board.go, its truth boardtruth.go, its standings
// standings.go), ratings (ratings.go, ratingtruth.go), a split stream
// (split.go), trending phrases (trending.go), a population of posts
// (posts.go, posts_score.go) and a recorded log (logfile.go), replayed as a
// count stream or, by its as:, as any of the others (log_timed.go,
// log_audience.go, log_trending.go, log_board.go, log_ratings.go,
// log_split.go). sample.go writes any kind's stream as a log
// (countsim sample). reports.go lists what each kind measures.
//
// api.go names the engine's API — [Prepare], [Setup], [Options], [Report],
// [Verdict] — for the CLI: importing sim brings every kind in, where the
// engine alone knows none.
//
// sim imports scenarios, workload, strategies (every family, through
// strategies/all), metrics, sim/engine and sim/cluster; cmd/countsim prints
// and writes what it returns.
package sim
