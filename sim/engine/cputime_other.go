//go:build !linux

package engine

import "time"

// laneClockNote says what a lane's clock measures, for the timing rows.
const laneClockNote = "Observe, wall clock on this machine (with the waits for a core when lanes outnumber cores)"

// lockLane does nothing where the thread's CPU clock is not read.
func lockLane() {}

// unlockLane does nothing where lockLane does nothing.
func unlockLane() {}

var clockStart = time.Now()

// laneClock is the wall clock, in ns.
func laneClock() int64 { return int64(time.Since(clockStart)) }
