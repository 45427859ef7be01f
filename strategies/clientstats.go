package strategies

// What a design that handles store faults (storefault.go) counted of its
// own sends, for the report to set beside what the truth says (issue 29).

// ClientCounts is a design's own account of its store ops under faults.
// Every count is of store ops, not of events: a striped counter sends one
// write an event, local batching one a flush and key.
type ClientCounts struct {
	// Writes counts the writes sent a first time; FirstOK those answered
	// within the timeout on that first try (the write availability is
	// FirstOK / Writes).
	Writes, FirstOK int64
	// Retried counts the retries sent (a write retried twice counts 2);
	// Rerouted the writes that, their retries spent, were sent once more
	// to another stripe; Failed the writes the design gave up on (retries
	// and reroute spent), whatever became of them on the store.
	Retried, Rerouted, Failed int64
	// Resent counts the deltas a batching design kept after a flush failed
	// and sent again with a later flush (on_failure: resend), Dropped the
	// counts it let go instead (on_failure: drop).
	Resent, Dropped int64
	// Reads counts the reads answered; ReadsFailed those that got no total
	// (a stripe failed and reads are not partial: the last total is shown);
	// ReadsPartial those shown the sum of the stripes that answered.
	Reads, ReadsFailed, ReadsPartial int64
	// ShownAges holds, for each failed read shown an older total, how old
	// that total was (ns): the time since the read that fetched it.
	ShownAges []int64
	// WritesBySec and FirstFailedBySec count, by simulated second of
	// their time, the writes sent a first time and those whose first try
	// failed: for the availability during an outage.
	WritesBySec, FirstFailedBySec []int64
	// Idempotent says the writes were sent as IncrByOnce.
	Idempotent bool
}

// FaultClient is a design that sends its ops as a client that sees store
// faults ([FallibleStore.DoClient]) and accounts for them.
type FaultClient interface {
	Strategy
	// Clienting reports whether the design sent its ops with DoClient
	// (a client parameter given, or a store fault delivered), so that its
	// counts mean something.
	Clienting() bool
	// ClientCounts returns the counts so far.
	ClientCounts() ClientCounts
	// StoreKeys appends to dst the store keys key's count lies on (its
	// stripes), with the Tag they are placed by: for a plan of the share
	// of them a fault reaches.
	StoreKeys(key uint64, dst []uint64) ([]uint64, uint64)
}

// FaultPlanner is a FaultClient whose losses under a node down have a
// closed form.
type FaultPlanner interface {
	FaultClient
	// FaultPlan returns the plan lines of a stream of events writes of
	// one key at a steady rate, down[j] being the share of the stream
	// during which store key j (StoreKeys's order) could not be reached.
	FaultPlan(down []float64, events int64) []PlanLine
}
