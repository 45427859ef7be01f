package strategies

import (
	"context"
	"time"

	"countsim/metrics"
)

// Backend opens real stores: one for each twin design of a run.
type Backend interface {
	// Name is the twins' suffix: "redis" names striped-32@redis.
	Name() string
	// Open returns the store of one twin, its keys apart from every other
	// store's (a prefix with the run and the design). ctx bounds its waits;
	// fail is called once, from any goroutine, with the first error the
	// store meets inside Do (which cannot return one): the run then stops.
	// paced: the ops' times are a timed stream's, to be replayed at their
	// pace (else they are sent as fast as the store answers).
	Open(ctx context.Context, design string, paced bool, fail func(error)) (RealStore, error)
}

// RealStore is a store outside the simulation.
type RealStore interface {
	Store
	// Settle is called once the design has sent everything: it notes the
	// end of the replay and reads back every key's final value.
	Settle()
	// Stats is what the store measured.
	Stats() RealStats
	// Close deletes the keys the store wrote (unless the backend keeps
	// them) and closes its connections.
	Close() error
}

// FaultedStore is a real store that applies store faults itself: a real
// Redis Cluster fails over when the store kills a master at a failover's
// time (redisstore; the killer is the test cluster's). StoreFaults is
// called once, before the first op, with every fault of the run; an
// error (a fault the store cannot apply) stops the run before it starts.
type FaultedStore interface {
	StoreFaults(faults []Fault) error
}

// RankReader is a real store that answers competition ranks from its own
// sorted sets, for a board's twin: each player's score there, and 1 + the
// members above it over every sorted set the design wrote (found false:
// the player is on none).
type RankReader interface {
	Ranks(players []uint64) (scores, ranks []int64, found []bool, err error)
}

// RealStats is what a real store measured of one design's replay.
type RealStats struct {
	Ops, Writes, Reads int64
	RoundTrips         int64 // pipelines sent: one per node a flush (and a GET of a string)
	ReplyBytes         int64 // bytes of the values read: 8 a number, a string's length (see Traffic)
	Keys               int   // keys written or read
	Paced              bool  // ops were sent at their due times (else as fast as possible)
	// Wall is from the first send to the last reply.
	Wall time.Duration
	// Latency holds, for every op, ns from its due time (paced; else from
	// its send) to its reply.
	Latency metrics.Hist
	// Behind is how late the last reply came after the last op was due.
	Behind time.Duration
	// Nodes is the ops each node took and the keys it holds, by address, in
	// the order of the first slot each serves.
	Nodes []RealNode
	// Mismatch counts the counter keys whose value read back differs from
	// the sum of the increments sent to them (for a key written through
	// DoClient, answered as applied in time: acknowledged).
	Mismatch int64
	// Fallible: the design sent ops through DoClient (the rows below
	// are measured).
	Fallible bool
	// Failed counts the ops sent through DoClient that timed out (no
	// answer within the client's timeout: a node gone, a cluster failing
	// over).
	Failed int64
	// Lost and Extra compare, over the counter keys written through
	// DoClient, the value read back with the increments acknowledged: Lost
	// is what was acknowledged and is not there (a failover's replication
	// lag), Extra what is there beyond it (a write that timed out but had
	// landed, or a retry of one applied twice).
	Lost, Extra int64
}

// RealNode is one node of a real store, the ops it took and the keys of the
// design it holds.
type RealNode struct {
	Addr string
	Ops  int64
	Keys int64
}

// KeptUpWithin is the latency under which every op of a paced replay must
// be answered for the replay to count as the scenario's: an op served more
// than a second late was served by a server that could not keep up.
const KeptUpWithin = time.Second

// KeptUp reports whether a paced replay answered every op within a second
// of its due time.
func (s RealStats) KeptUp() bool {
	return s.Paced && s.Latency.Max() <= int64(KeptUpWithin)
}
