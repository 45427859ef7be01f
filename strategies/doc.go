// Package strategies holds every counting design countsim compares, its plan
// (the closed-form numbers) and the registry that builds designs by type name.
//
// A design implements [Strategy] — Observe a batch of events, report the
// bytes it holds — and the small interfaces of the questions it can answer,
// all in families.go with their contracts: [PointCounter] (the count of one
// key), [TopK] (the k heaviest keys), [Distinct] (how many different ids;
// [DistinctUnion] when two days merge), [Reader] (what a page read was
// shown), [Ranker] and [Board] (a player's rank under a tie policy, the
// leaders, the players above a score; board.go), [Rating] (a score an item
// for ranking by stars; ratings_family.go), [Sharded] (the stripes a
// design gives each key of a population of counters, sized at creation
// from the author's followers — a [Population] in the [Env] — and grown
// with the load; striped_predict.go), and what a design on servers does
// besides. The runner finds a
// family by type assertion. Observe is the hot path: it allocates nothing
// in the steady state and makes no interface call per event.
//
// The designs, one file each citing its algorithm and bounds: frequency and
// top-K — [CountMin] (type "count-min"; with a heap, [CountMinTopK]),
// [SpaceSaving] ("space-saving"), [Exact] ("exact", optionally sharded);
// hot counters on a [Store] — [SingleKey] ("single-key"), [Striped]
// ("striped"), [Batched] ("batched"), with cached reads and dedup by event
// ID; distinct counting — [HLL] ("hll"), [ExactDistinct]
// ("exact-distinct") and Redis's own HLL through a store, [PFHLL]
// ("redis-hll"); leaderboards — [SortedSet] ("sorted-set"),
// [ShardedBoard] ("sharded-board") and [ScoreHistogram]
// ("score-histogram"); ratings — "naive-average", "bayesian-average" and
// "wilson". Designs on servers send their operations a batch at a
// time to the Store that package sim implements as a simulated cluster and
// package redisstore on a real Redis.
//
// Each design registers once as a [Type]: a name, a parameter struct whose
// exported fields carry `param` tags (the YAML keys), strict decoding of raw
// parameters (unknown keys, wrong types and 2.5 for an integer are errors), a
// validating constructor that tests call without YAML, the direction its
// answers err ([Bias]) and what its top K promises ([Promise]), and a plan
// from the parameters and the scenario's figures, as simulated and at full
// scale ([Env]). Plans and the runner's scorers name a figure by the same
// [Metric] constant.
//
// Strategies are not safe for concurrent use. strategies imports only
// countsim/workload; sim drives it and scores it against exact truth.
package strategies
