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

// Reader is a design that answers reads during the stream: for each Read
// event it observes it records the count the reader was shown.
type Reader interface {
	Strategy
	// Shown returns one value per Read event observed, in stream order.
	Shown() []int64
}

// Flusher is a design that holds counts back (local batching). Flush sends
// everything held at simulated time now; the runner calls it at the end of
// the stream, before asking for counts.
type Flusher interface {
	Strategy
	Flush(now int64)
}

// FaultKind names a fault injected at a simulated time.
type FaultKind string

const (
	// AppCrash: app server Target crashes and restarts at once; whatever it
	// held in memory is lost.
	AppCrash FaultKind = "app-crash"
	// NodeLoss: store node Target loses its data (handled by the store).
	NodeLoss FaultKind = "node-loss"
)

// Fault is one injected fault.
type Fault struct {
	At     int64
	Kind   FaultKind
	Target int
}

// Faultable is a design that reacts to faults. The runner delivers a fault
// after every event before f.At and before every event at or after it.
type Faultable interface {
	Strategy
	Fault(f Fault)
}

// Lossy is a design that can lose counts; Lost is how many it has dropped
// so far (counts held by a crashed app server), by its own accounting. The
// runner also measures the loss against the truth.
type Lossy interface {
	Strategy
	Lost() int64
}
