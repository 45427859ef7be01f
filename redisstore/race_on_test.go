//go:build race

package redisstore_test

// raceEnabled reports whether the race detector is on: it slows the
// simulation and the real replay beside it several times over, so a
// replay on a shared CI machine falls behind its schedule (see
// TestFailoverSideBySide).
const raceEnabled = true
