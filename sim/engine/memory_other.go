//go:build !linux

package engine

// machineMemory is 0 where the available memory is not read: the run is
// held to Options.MemoryLimit alone.
var machineMemory = func() int64 { return 0 }
