package engine

import (
	"runtime"
	"syscall"
	"unsafe"
)

// Lanes run side by side on fewer cores than there are lanes, so the wall
// time of an Observe call would include the time its goroutine waited for a
// core. On Linux a lane worker keeps its goroutine on one OS thread while
// it takes a piece and reads that thread's CPU clock instead: the time the
// design itself took.

// LaneClockNote says what a lane's clock measures, for the timing rows.
const LaneClockNote = "Observe, CPU time of its thread on this machine"

// lockLane pins the calling goroutine to its OS thread until unlockLane,
// so that the thread's CPU clock is the lane's in between.
func lockLane() { runtime.LockOSThread() }

// unlockLane lets the goroutine run on any thread again.
func unlockLane() { runtime.UnlockOSThread() }

// laneClock is the CPU time the calling thread has used, in ns.
func laneClock() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return ts.Nano()
}
