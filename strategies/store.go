package strategies

import (
	"errors"
	"strconv"
)

// Designs that live on servers (single key, striped, batched counters) do
// not keep their counts in Go variables: they send operations to a Store,
// the way an app sends INCRBY and GET to Redis. Package sim implements the
// Store as a simulated cluster that places keys on nodes by their names as
// Redis Cluster does (see Key names below), accounts every operation per
// key and node per simulated second against a capacity, and queues what
// is over it; package redisstore implements it on a real Redis server or
// Redis Cluster; tests use a plain in-memory store. A store may also
// refuse a command as a cluster does (Refuser), read a value whole
// (ByteReader) and count what it carried (Metered).

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
	// vals: a read of Key. Followed by KeyArg ops, it is a multi-key
	// PFCOUNT Key K2 …: the estimate of the union, which changes no key.
	PFCount
	// PFMerge merges into the HyperLogLog Key every HyperLogLog named by
	// the KeyArg ops that follow it (Redis PFMERGE Key K2 …, Key being one
	// of the sources too): a write to Key.
	PFMerge
	// ZUnionStore sets the sorted set Key to the union of the sorted sets
	// named by the KeyArg ops that follow it, scores summed (Redis
	// ZUNIONSTORE Key N K2 …): a write to Key. The simulated cluster keeps
	// no members (see Store): it accounts the command and checks its slots.
	ZUnionStore
	// KeyArg is no command of its own: it names one more key of the
	// multi-key command just before it (PFCount, PFMerge, ZUnionStore),
	// with that key's Tag, in order. It is sent and accounted with that
	// command.
	KeyArg
	// IncrByOnce adds Delta to Key unless the store has already applied a
	// write of idempotency key Member (the write's event ID) to Key: an
	// idempotent write, so that a client's retry of a write that had in
	// fact landed is not counted twice (storefault.go). On Redis it is one
	// script: SET {Key}:id:Member NX PX ttl, then INCRBY only if it was set.
	IncrByOnce
)

// Writes reports whether the op is a write to its key (IncrBy, IncrByOnce,
// ZIncrBy, ZAdd, PFAdd, PFMerge, ZUnionStore); the others are reads, KeyArg aside.
func (k StoreOpKind) Writes() bool {
	return k == IncrBy || k == IncrByOnce || k == ZIncrBy || k == ZAdd || k == PFAdd || k == PFMerge || k == ZUnionStore
}

// MultiKey reports whether the op may be followed by KeyArg ops (PFCount,
// PFMerge, ZUnionStore): on a Redis Cluster, all its keys must hash to one
// slot, or the command is refused with [ErrCrossSlot].
func (k StoreOpKind) MultiKey() bool { return k == PFCount || k == PFMerge || k == ZUnionStore }

// ErrCrossSlot is Redis Cluster's refusal of a multi-key command whose keys
// hash to different slots, in Redis's words. A store that refuses a
// command so wraps it (see [Refuser]).
var ErrCrossSlot = errors.New("CROSSSLOT Keys in request don't hash to the same slot")

// StoreOp is one operation sent to a store at simulated time At (ns).
type StoreOp struct {
	At     int64
	Kind   StoreOpKind
	Key    uint64 // the store's key: a design derives it from the counted key (and stripe)
	Delta  int64  // IncrBy, ZIncrBy: the increment; ZAdd: the score
	Member uint64 // ZIncrBy, ZAdd: the member (a player) of the sorted set; PFAdd: the element
	// Tag, when not 0, places the key with every other key of the same Tag:
	// in one slot of a Redis Cluster, and so on one node (a hash tag, {tag}
	// in the key's name). 0: the key is placed by its own name.
	Tag uint64
}

// Key names. A design's store keys are numbers (StoreOp.Key and Tag);
// both stores name each one the same way, [AppendKeyName], and place it by
// that name: the simulated cluster hashes the name to its Redis Cluster
// slot (CRC16, package keyslot), and the real store sends it, after a
// prefix of its own, to a real Redis, whose CLUSTER KEYSLOT gives the same
// slot. So a design's keys land on the same nodes in the simulation and on
// a real cluster of as many masters.

// AppendKeyName appends to dst the name of the store key key placed with
// tag: the key in lower-case hex ("9f3a07c2e15b4d6e"), after its tag in
// braces where tag is not 0 ("{5c01}:9f3a07c2e15b4d6e", a hash tag: every
// key of the tag in one slot). It allocates only when dst is too short
// (40 bytes hold any name).
func AppendKeyName(dst []byte, key, tag uint64) []byte {
	if tag != 0 {
		dst = append(dst, '{')
		dst = strconv.AppendUint(dst, tag, 16)
		dst = append(dst, '}', ':')
	}
	return strconv.AppendUint(dst, key, 16)
}

// KeyName is [AppendKeyName] as a string.
func KeyName(key, tag uint64) string {
	var b [40]byte
	return string(AppendKeyName(b[:0], key, tag))
}

// KeyNameBytes is the longest name AppendKeyName gives: a tag and a key
// of 16 hex digits each, two braces and a colon.
const KeyNameBytes = 16 + 3 + 16

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

// Refuser is a store that refuses a command as Redis does without failing
// the run: a multi-key command whose keys hash to different slots of a
// Redis Cluster ([ErrCrossSlot]). A refused command changes nothing and
// reads 0; the design learns of it from Refused.
type Refuser interface {
	// Refused returns the error of the first command refused since the
	// last call ("PFMERGE: CROSSSLOT Keys in request don't hash to the same
	// slot", wrapping ErrCrossSlot), and nil when none was.
	Refused() error
}

// ByteReader is a store whose values an application can read whole, as
// Redis GET reads a string: a HyperLogLog's is its registers in Redis's
// own encoding (the "HYLL" string), which an application can decode and
// merge itself where the store cannot merge the keys.
type ByteReader interface {
	// GetBytes appends the value of key (placed with tag) at time at to
	// dst: one GET, a read of key, its own round trip. A key never written
	// appends nothing. The error is the store's: a refused or failed call.
	GetBytes(at int64, key, tag uint64, dst []byte) ([]byte, error)
}

// Traffic is what a store carried for a design: the commands sent (a
// KeyArg is part of its command, not one), the round trips (one a node a
// pipeline: a Do call's ops to one node, a GetBytes) and the bytes of the
// values the replies read, 8 a number read (GET of a counter, PFCOUNT,
// ZCOUNT) and a string's length for GetBytes. Writes' replies (OK, the new
// count) carry no bytes here.
type Traffic struct {
	Ops, RoundTrips, ReplyBytes int64
}

// Sub is t − u: what was carried between two readings.
func (t Traffic) Sub(u Traffic) Traffic {
	return Traffic{Ops: t.Ops - u.Ops, RoundTrips: t.RoundTrips - u.RoundTrips, ReplyBytes: t.ReplyBytes - u.ReplyBytes}
}

// Metered is a store that counts its [Traffic].
type Metered interface {
	// Traffic is what the store carried so far.
	Traffic() Traffic
}
