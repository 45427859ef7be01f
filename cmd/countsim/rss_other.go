//go:build !linux

package main

// peakRSS is 0 where the peak resident set size is not read.
func peakRSS() int64 { return 0 }

// resetPeakRSS does nothing where the peak is not read.
func resetPeakRSS() bool { return false }
