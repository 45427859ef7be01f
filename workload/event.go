package workload

// Op says whether an event changes a count or reads it.
type Op uint8

const (
	// Write adds Delta to the count of Key.
	Write Op = iota
	// Read asks for the count of Key (a page view of the counter).
	Read
	// Set makes Delta the new value of Key's count: a leaderboard's
	// absolute score. Designs that only count filter on Op == Write, so
	// they ignore it.
	Set
)

// String returns "write", "read" or "set".
func (o Op) String() string {
	switch o {
	case Write:
		return "write"
	case Read:
		return "read"
	case Set:
		return "set"
	}
	return "op(?)"
}

// Event is one thing that happened in the simulated world. The zero Event is
// a write of delta 0 at time 0 to key 0.
type Event struct {
	At    int64  // simulated time, ns since the scenario's start
	Key   uint64 // what is counted: a video, a phrase, a player
	Actor uint64 // who: a viewer, a region, an app server
	Delta int64  // 1 for a view; a score change on a leaderboard
	ID    uint64 // one per logical event; a resend repeats it
	Op    Op     // Write, Read or Set
}
