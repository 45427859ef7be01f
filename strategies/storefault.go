package strategies

// Store faults (issue 29). A scenario's `faults:` may fail the store
// itself, not only an app server: a node down for a time (NodeDown), a
// slow node serving a share of its capacity (NodeSlow), a partition that
// cuts some app servers off some nodes (Partition), and a failover
// (Failover): a master dies, its replica answers as the new master after
// a delay, and the writes the master had served but not yet replicated —
// those within its replication lag — are gone. The store applies them
// (sim/cluster on the simulated cluster; a real Redis Cluster fails over
// by itself when a test kills a master); a design learns of them only as
// a client does, from the answers it does not get in time.
//
// A design that handles failures — a timeout, retries with backoff,
// idempotent writes, a selection that skips a stripe that timed out,
// batching that keeps an unsent delta, reads that sum the stripes they
// reach — sends its ops with [FallibleStore.DoClient] and reads each op's
// [OpStatus]. A store that is not a FallibleStore never fails.

// OpStatus is what a client learned of one op within its timeout.
type OpStatus uint8

const (
	// OpOK: answered within the timeout. A write has landed; a read's
	// value is in vals.
	OpOK OpStatus = iota
	// OpTimeout: no answer within the timeout. A write may still land (a
	// slow or backlogged node serves it after the client gave up: a retry
	// of it then counts twice unless it is idempotent) or not (a down node,
	// a partition, a failover's window); a read got nothing (vals 0).
	OpTimeout
)

// Client is who sends a batch of ops to a [FallibleStore] and how long
// each op waits for its answer.
type Client struct {
	// Server is the sending app server, 0..app_servers−1 (a partition cuts
	// some servers off some nodes).
	Server int
	// Timeout is how long (ns) an op waits for its answer after its At:
	// an op whose answer would come later is OpTimeout. 0: no timeout (an
	// op waits forever; only a down or unreachable node fails it).
	Timeout int64
}

// FallibleStore is a store whose nodes can fail (the store faults above).
type FallibleStore interface {
	Store
	// DoClient applies ops as Do does, sent by client c, and sets status[i]
	// (indexed like ops, len(status) ≥ len(ops)) to what c learned of
	// ops[i] by ops[i].At + c.Timeout. A write to a node that is down, or
	// across a partition, is not applied; one to a slow node is applied
	// when the node serves it, even after its timeout; one the failover
	// loses was applied and answered, then lost. A Get that fails reads 0.
	DoClient(c Client, ops []StoreOp, vals []int64, status []OpStatus)
}

// Outage is what a store saw of its faults, for the report: per fault,
// when it began and ended and when the store answered every op within its
// client's timeout again.
type Outage struct {
	Fault Fault
	// Recovered is the first time (ns) at or after the fault's End from
	// which no op sent to the nodes it touched timed out: End when they
	// answered at once, later while a backlog drained. −1: not within the
	// run.
	Recovered int64
	// Failed counts the ops sent to the fault's nodes that timed out or
	// were not applied, from At to Recovered; Lost the served counts a
	// failover lost (its lag's writes).
	Failed, Lost int64
}

// Outages is a store that reports its faults.
type Outages interface {
	Outages() []Outage
}
