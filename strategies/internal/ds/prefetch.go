package ds

import "unsafe"

// Prefetching. A table of tens of MB (a board's players, a score
// histogram's scores) misses the cache on nearly every lookup, and a
// lookup's miss stalls the update that waits for it. A loop over a batch
// that knows the keys ahead asks for the line of a key's slot a few events
// before its lookup (Prefetch), so the misses of several events overlap
// with the work of the ones before. A prefetch is a hint: it reads no
// value, changes nothing, cannot fault, and a wrong or stale address only
// wastes a line of the cache.
//
// Go has no prefetch that a package outside the runtime may call (the
// runtime's is an intrinsic of an internal package), and a plain load in
// its place is no help: the core retires in order, so a load that misses
// holds up everything after it until it arrives, as the lookup's own would.
// On amd64 and arm64 Prefetch is one instruction (PREFETCHT0, PRFM
// PLDL1KEEP) behind a call, a few ns; elsewhere it does nothing.

// Prefetch asks for the cache line holding p. It does nothing else.
func Prefetch(p unsafe.Pointer) { prefetch(uintptr(p)) }
