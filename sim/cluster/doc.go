// Package cluster simulates the store cluster behind the designs that live
// on servers: a [Cluster] implements strategies.Store, placing each key on
// a node as Redis Cluster does — the CRC16 of its name (the name the real
// store sends, strategies.AppendKeyName) or of its hash tag picks one of
// 16,384 slots, and node i holds the i-th range of slots redis-cli gives
// the nodes (package keyslot) — or, where a scenario says placement
// modulo, by a hash of the key mod the nodes ([Placement]), and serving
// every key and every node as a FIFO server at a stated capacity, so that
// what one hot key cannot serve in time queues, as it would on one Redis
// key. A multi-key command (PFMERGE, PFCOUNT of several keys, ZUNIONSTORE)
// over keys of different slots is refused with Redis's CROSSSLOT error.
//
// [New] validates a [Config] and returns an empty cluster; [Cluster.Do]
// applies the ops a design sends, in simulated time; [Cluster.Stats] says
// what the cluster measured over a stream — the load per key and per node
// each simulated second, utilisation against capacity, the backlog and its
// growth, queueing delays, what readers missed — and [Cluster.LoseNode]
// injects a node's loss. [Cluster.Fault] injects the other store faults —
// a node down, a slow node, a partition, a failover — which act by
// simulated time; [Cluster.DoClient] sends ops as one app server with a
// timeout and says of each whether it was answered in time
// (strategies.FallibleStore), an IncrByOnce is deduplicated by its id, and
// [Cluster.Outages] says what each fault cost (faults.go). The queueing
// model is stated on [Cluster]; placement.go places the keys, spread.go
// tells how a design's keys spread over the nodes, hll.go holds the
// HyperLogLog keys.
//
// A Cluster is deterministic (the same ops and seed give the same numbers)
// and not safe for concurrent use: a run gives each design a cluster of its
// own, on the design's lane.
//
// cluster imports strategies (the Store vocabulary and key names, the HLL
// of its PFADD keys and Redis's string of one), keyslot (the slots),
// workload (the key mixer of placement modulo) and metrics (the delay
// histogram); the runner, package sim, builds and scores it.
package cluster
