// Package keyslot is Redis Cluster's placement of keys: which of the 16,384
// hash slots holds a key ([Of]: CRC16 of its name, or of its hash tag), and
// which master holds a slot when redis-cli --cluster create made the
// cluster ([Ranges]: contiguous ranges, one a master).
//
// Both stores place keys by it: the simulated cluster of package
// sim/cluster, so that its per-node load is the real cluster's, and the
// real store of package redisstore, which counts the ops each node takes
// by the slot of each key it sends. It is a package of its own, importing
// nothing, because those two stand on different floors (the simulation
// must not import go-redis, the real store must not import the
// simulation) and the designs need none of it: a design names its keys
// (strategies.AppendKeyName), the stores place them.
//
// Of allocates nothing; everything here is safe for concurrent use.
package keyslot
