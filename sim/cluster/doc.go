// Package cluster simulates the store cluster behind the designs that live
// on servers: a [Cluster] implements strategies.Store, placing each key on
// a node as a hash of its name (or of its tag) and serving every key and
// every node as a FIFO server at a stated capacity, so that what one hot
// key cannot serve in time queues, as it would on one Redis key.
//
// [New] validates a [Config] and returns an empty cluster; [Cluster.Do]
// applies the ops a design sends, in simulated time; [Cluster.Stats] says
// what the cluster measured over a stream — the load per key and per node
// each simulated second, utilisation against capacity, the backlog and its
// growth, queueing delays, what readers missed — and [Cluster.LoseNode]
// injects a node's loss. The queueing model is stated on [Cluster].
//
// A Cluster is deterministic (the same ops and seed give the same numbers)
// and not safe for concurrent use: a run gives each design a cluster of its
// own, on the design's lane.
//
// cluster imports strategies (the Store vocabulary, the HLL of its PFADD
// keys), workload (the key mixer) and metrics (the delay histogram); the
// runner, package sim, builds and scores it.
package cluster
