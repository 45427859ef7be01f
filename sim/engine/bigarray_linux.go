package engine

import (
	"runtime"
	"syscall"
	"unsafe"
)

// hugeFrom is the size from which a truth's array is mapped on its own,
// with transparent huge pages asked for: below it the Go heap's pages do.
const hugeFrom = 64 << 20

// bigArray returns a zeroed array of n counts for a truth that reads and
// writes it at random (a rank truth of 400 M keys: 1.6 GB). Go's heap
// maps it in 4 KiB pages, where the kernel's transparent huge pages are
// "madvise" only (Debian's default), so nearly every increment of a cold
// key also misses the TLB and walks four levels of page table, and the
// first touch of each page faults: 400,000 faults for 1.6 GB. Mapped on
// its own with MADV_HUGEPAGE, the kernel backs it with 2 MiB pages where
// it can (Linux's transhuge.rst), which the TLB covers 512 times better.
// The mapping is released when owner is collected. Where mmap or madvise
// fail, the Go heap's array is returned: the counts are the same, only
// slower.
func bigArray[C uint32 | uint64, T any](owner *T, n uint64) []C {
	size := n * uint64(unsafe.Sizeof(C(0)))
	if size < hugeFrom {
		return make([]C, n)
	}
	mem, err := syscall.Mmap(-1, 0, int(size), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]C, n)
	}
	if err := syscall.Madvise(mem, syscall.MADV_HUGEPAGE); err != nil {
		syscall.Munmap(mem)
		return make([]C, n)
	}
	at := unsafe.Slice((*C)(unsafe.Pointer(unsafe.SliceData(mem))), n)
	runtime.AddCleanup(owner, func(m []byte) { syscall.Munmap(m) }, mem)
	return at
}
