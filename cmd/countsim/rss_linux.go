package main

import (
	"os"
	"runtime/debug"
	"syscall"
)

// peakRSS is the process's peak resident set size in bytes (Linux reports
// ru_maxrss in KiB) since it was last reset (resetPeakRSS), or 0 if it
// cannot be read.
func peakRSS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Maxrss * 1024
}

// resetPeakRSS starts the peak afresh, so that a scenario's peak is its
// own and not the largest of the scenarios before it: the heap's free
// pages go back to the system (debug.FreeOSMemory, which collects first),
// then the kernel's high-water mark, which ru_maxrss reads, is set to the
// resident size now (writing 5 to /proc/self/clear_refs, Linux 4.0 on).
// It reports whether the mark was reset.
func resetPeakRSS() bool {
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}
