package designtest

import (
	"syscall"
	"unsafe"
)

// ThreadCPU is the CPU time the calling thread has used, in ns (the
// benchmarks lock their goroutine to its thread): on a machine that other
// work shares, the time the design took, where the wall time counts the
// waits for a core too.
func ThreadCPU() int64 {
	const clockThreadCPUTime = 3 // CLOCK_THREAD_CPUTIME_ID
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return ts.Nano()
}
