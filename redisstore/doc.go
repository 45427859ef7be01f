// Package redisstore is the real store: countsim's designs on a Redis server
// or a Redis Cluster, beside the simulated cluster of package sim/cluster.
//
// A [Backend] connects once (redis://host:port for one server,
// redis-cluster://host:port,host:port,… for a cluster, through go-redis's
// slot-aware ClusterClient, which follows MOVED and ASK) and opens one
// store for each twin design of a run: a [strategies.RealStore]. The store turns
// each [strategies.StoreOp] into its Redis command — INCRBY, GET, ZINCRBY,
// ZADD, PFADD, PFCOUNT, PFMERGE — and sends a design's ops one pipeline at
// a time: the ops of a batch that fall due within a millisecond of each
// other (at most 4,096), split by go-redis into one round trip per node.
//
// Time. Paced (the default for a timed stream), the store replays the
// stream open-loop: a pipeline leaves when its last op falls due, measured
// from the store's first op, whatever the replies before it did, and every
// op's latency runs from its due time to its reply, so that a server that
// falls behind shows it in the latency instead of slowing the stream down
// (no coordinated omission). With pace "max" the pipelines leave as fast as
// the replies come back and latency runs from the send.
//
// Keys. Every key is named countsim:RUN:DESIGN: and then the design's name
// of it (strategies.AppendKeyName), RUN unique to the backend (a time stamp
// and random bits) and DESIGN the twin's name: countsim:RUN:DESIGN:{HEX}
// for an untagged key, the braces making its hex its hash tag, so that the
// prefix is not hashed; countsim:RUN:DESIGN:{TAG}:HEX for a key with a Tag,
// every key of the tag in one slot. Either way the key's slot is
// keyslot.Of of the design's name, the slot the simulated cluster places
// it in, whatever the run and the design. The store deletes exactly the
// keys it wrote when it is closed, unless the backend keeps them; it never
// flushes a database.
//
// Multi-key commands. A PFCOUNT of several keys, a PFMERGE and a
// ZUNIONSTORE (an op followed by KeyArg ops) go as one command; a cluster
// refuses one whose keys hash to different slots (CROSSSLOT), which is not
// a failure of the store: the command reads 0 and Refused returns the
// refusal, in the words the simulated cluster uses. GetBytes reads a key's
// string whole (a HyperLogLog's registers, for a merge in the
// application).
//
// Accounts. The store counts ops, writes and reads, keys, round trips, the
// bytes of the values read back, and the keys and ops of each node (by the
// key's slot against CLUSTER SHARDS, read at connection; the masters in
// the order of their first slots), keeps the latency of every op in a
// [metrics.Hist], and once the design has sent everything reads back every
// counter key, comparing each with the sum of the increments it was sent.
//
// Failure. Every call has a timeout (2 s by default) and no retries: a
// refused connection, a server that goes away mid-run or a cluster that is
// not ready is an error within seconds, never a hang. The error names the
// node to blame: the one whose command the server refused, or, when a
// call got no answer, each node of it that does not answer a PING of its
// own afterwards ("node 127.0.0.1:7002 went away"; if they all answer,
// those that were too slow). Do cannot return an error, so the store
// reports its first one through the fail function the run gave it, answers
// every later Do with zeros, and sends nothing more; the run then stops
// with a partial report.
//
// Store faults (issue 29; fallible.go). A design that handles failures
// sends its ops with DoClient: the same pipelines on a client that never
// retries or follows a redirect, each op's status what came back by its
// due time + the client's timeout; a node gone or a cluster failing over
// times ops out and never fails the run. IncrByOnce is one script (SET
// {key}:id:ID NX PX OnceTTL, INCRBY only if set). A run's failover fault
// kills, at its time, the master serving the fault's node — only with a
// killer (SetKiller), which a test's cluster gives: a cluster at a URL is
// refused (ErrNoKiller). Settle compares what DoClient's counters hold
// with what was acknowledged (Lost, Extra), and Outages says when writes
// to the killed node's slots flowed again.
//
// redisstore implements the contracts of package strategies (Store,
// Backend, RealStore, RankReader, Refuser, ByteReader, Metered,
// FallibleStore, Outages, FaultedStore) and imports
// keyslot and metrics; it stands beside the runner, never above it:
// package sim opens it through strategies.Backend, and the CLI connects it.
package redisstore
