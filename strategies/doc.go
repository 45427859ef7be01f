// Package strategies holds the contracts of the counting designs countsim
// compares — the questions a design can answer and the direction its
// answers err — and the registry that builds a design by its type name.
// The designs themselves live one family a package beneath it.
//
// A design implements [Strategy] — Observe a batch of events, report the
// bytes it holds — and the small interfaces of the questions it answers,
// each with its contract (families.go): [PointCounter] (the count of one
// key), [TopK] (the k heaviest keys), [Distinct] and [DistinctUnion],
// [Reader] (what a page read was shown), [Ranker] and [Board]
// (board_family.go), [Rating] (ratings_family.go), [Trending] and
// [WindowDistinct] (trending_family.go), [Sharded] with its [Population]
// (population.go), and what a design on servers does besides: it sends
// [StoreOp]s to a [Store] (store.go), the simulated cluster or a real one
// ([Backend], [RealStore]: realstore.go). Each design registers once as a
// [Type] ([Define]): its name, its parameter struct, whose fields carry
// the scenario format's tags (package internal/schema: key, range, one
// of, default, meaning) so that the scenario decoder fills it and
// [CheckParams] holds a value built in Go to the same tags, the families
// it answers, the direction its counts err ([Bias]), what its top K
// promises ([Promise]), and its plan: the closed-form numbers ([PlanLine],
// named by package metrics' vocabulary) from its parameters and the
// scenario's figures as simulated and at full scale ([Env]). [Num],
// [Pct], [Secs], [AtBothScales], [Tidy] and [CeilTidy] write the plans'
// notes alike; an enumeration of a design's parameters decodes once,
// by [UnmarshalEnum].
//
// Observe is the hot path: it allocates nothing in the steady state and
// makes no interface call per event. Designs are not safe for concurrent
// use; the registry is written at init and only read afterwards.
//
// The families, each its own package registering its types: hot
// (single-key, striped, batched), frequency (count-min, Space-Saving,
// Misra-Gries, HeavyKeeper, exact, split, threshold and node-local top-K),
// distinct (HyperLogLog, the exact set, Redis's HLL, the windowed HLL),
// trending (time buckets, windowed count-min, decay, regional), boards
// (sorted set, sharded board, score histogram) and ratings (naive and
// Bayesian average, Wilson). Their shared structures are in
// strategies/internal/ds, their tests' helpers in
// strategies/internal/designtest; strategies/all links every family into
// a program. strategies imports workload, metrics and internal/schema;
// sim builds and scores the designs, redisstore implements the real store.
package strategies
