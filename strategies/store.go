package strategies

// Designs that live on servers (single key, striped, batched counters) do
// not keep their counts in Go variables: they send operations to a Store,
// the way an app sends INCRBY and GET to Redis. Package sim implements the
// Store as a simulated cluster that places keys on nodes, accounts every
// operation per key and node per simulated second against a capacity, and
// queues what is over it; tests use a plain in-memory store.

// StoreOpKind is the kind of one store operation.
type StoreOpKind uint8

const (
	// IncrBy adds Delta to Key (Redis INCRBY).
	IncrBy StoreOpKind = iota
	// Get reads Key (Redis GET; several Gets in a row at one time are an MGET).
	Get
)

// StoreOp is one operation sent to a store at simulated time At (ns).
type StoreOp struct {
	At    int64
	Kind  StoreOpKind
	Key   uint64 // the store's key: a design derives it from the counted key (and stripe)
	Delta int64  // IncrBy only
}

// Store is a key-value store with counters. A design hands it operations a
// batch at a time (one interface call per batch, not per event).
type Store interface {
	// Do applies ops in order; their At never decreases across calls. For
	// every Get, vals[i] receives the value a client would have read at
	// ops[i].At: what the writes served by then add up to (a write still
	// queued on an overloaded key is not yet visible). vals is indexed like
	// ops and may be nil when ops holds no Get.
	Do(ops []StoreOp, vals []int64)
	// Final is the value of key once every operation sent has been served.
	Final(key uint64) int64
}
