package strategies

// Designs that live on servers (single key, striped, batched counters) do
// not keep their counts in Go variables: they send operations to a Store,
// the way an app sends INCRBY and GET to Redis. Package sim implements the
// Store as a simulated cluster that places keys on nodes, accounts every
// operation per key and node per simulated second against a capacity, and
// queues what is over it; package redisstore implements it on a real Redis
// server or Redis Cluster; tests use a plain in-memory store.

// StoreOpKind is the kind of one store operation.
type StoreOpKind uint8

const (
	// IncrBy adds Delta to Key (Redis INCRBY).
	IncrBy StoreOpKind = iota
	// Get reads Key (Redis GET; several Gets in a row at one time are an MGET).
	Get
	// ZIncrBy adds Delta to the score of Member in the sorted set Key
	// (Redis ZINCRBY): a write to Key.
	ZIncrBy
	// ZAdd sets the score of Member in the sorted set Key to Delta (Redis
	// ZADD): a write to Key.
	ZAdd
	// ZRead is one read of the sorted set Key for a rank query about
	// Member, whose score is Delta: the count of members above it (ZCOUNT
	// Key (Delta +inf), pipelined with the others a query sends Key). Do
	// returns no value: the design answers from the set it holds.
	ZRead
	// PFAdd adds Member to the HyperLogLog Key (Redis PFADD): a write to
	// Key. Consecutive PFAdds to one key are one PFADD of many elements on
	// a real Redis; each is one op in the accounts.
	PFAdd
	// PFCount reads the HyperLogLog Key's estimate (Redis PFCOUNT) into
	// vals: a read of Key.
	PFCount
	// PFMerge merges the HyperLogLog Member into Key (Redis PFMERGE Key Key
	// Member): a write to Key. On a Redis Cluster both keys must share a
	// slot: give them the same Tag.
	PFMerge
)

// Writes reports whether the op is a write to its key (IncrBy, ZIncrBy,
// ZAdd, PFAdd, PFMerge); the others are reads.
func (k StoreOpKind) Writes() bool {
	return k == IncrBy || k == ZIncrBy || k == ZAdd || k == PFAdd || k == PFMerge
}

// StoreOp is one operation sent to a store at simulated time At (ns).
type StoreOp struct {
	At     int64
	Kind   StoreOpKind
	Key    uint64 // the store's key: a design derives it from the counted key (and stripe)
	Delta  int64  // IncrBy, ZIncrBy: the increment; ZAdd: the score
	Member uint64 // ZIncrBy, ZAdd: the member (a player) of the sorted set; PFAdd: the element; PFMerge: the key merged in
	// Tag, when not 0, places the key with every other key of the same Tag:
	// on one node of the simulated cluster, in one slot of a Redis Cluster
	// (a hash tag, {tag} in the key's name). 0: the key is placed by itself.
	Tag uint64
}

// Store is a key-value store with counters and sorted sets. A design hands
// it operations a batch at a time (one interface call per batch, not per
// event).
//
// Sorted sets. The simulated cluster places, accounts and queues sorted-set
// operations as it does counters, but keeps no members: a board design
// holds each of its keys' sets itself, as the model of what that key holds,
// and uses the Store for the load its operations put on the cluster. Final
// of a sorted-set key is 0 there.
type Store interface {
	// Do applies ops in order; their At never decreases across calls. For
	// every Get, vals[i] receives the value a client would have read at
	// ops[i].At: what the writes served by then add up to (a write still
	// queued on an overloaded key is not yet visible); for every PFCount,
	// the estimate. vals is indexed like ops and may be nil when ops holds
	// no Get or PFCount.
	Do(ops []StoreOp, vals []int64)
	// Final is the value of key once every operation sent has been served.
	Final(key uint64) int64
}
