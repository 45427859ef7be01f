// Package hot holds the hot-counter designs: one counted key under more
// writes a second than one store key takes (a video's views during a
// final), after seeds/000 step 1 and the sharded-counter seed (004).
//
// [SingleKey] ("single-key") sends every increment to one key of the
// [strategies.Store]; [Striped] ("striped") spreads a key's count over K
// stripes — picked at random, round-robin, by event ID or least loaded
// ([StripeSelect]), K fixed, predicted from the author's followers
// ([PredictTable], per_followers) or following the load — and reads sum
// them; [Batched] ("batched") sums writes on A app servers and flushes
// them every T, losing what a crashed server held. Each reads through a
// [ReadPath] (a sum of GETs, or a cache with a ttl) and drops resends by
// event ID within a dedup window. Each file holds one design, its
// algorithm and its plan: the stripes a peak needs at a key's capacity and
// headroom, the load, the backlog and the staleness of the reads.
//
// Designs are not safe for concurrent use; Observe allocates nothing in
// the steady state.
//
// The contracts are package strategies'; the store is the simulated
// cluster (package sim/cluster) or a real Redis (package redisstore).
package hot
