//go:build !linux

package engine

// bigArray returns a zeroed array of n counts: off Linux, the Go heap's.
func bigArray[C uint32 | uint64, T any](_ *T, n uint64) []C { return make([]C, n) }
