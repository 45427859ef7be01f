package hugepages

import (
	"syscall"
	"unsafe"
)

// Advise asks the kernel to back the whole 2 MiB pages of s with
// transparent huge pages (madvise MADV_HUGEPAGE). It is a hint: the
// pages not yet touched get huge pages where the kernel has them, the
// rest stay as they are, and where the kernel refuses (THP "never", an
// old kernel) nothing changes but the speed; so its error is dropped. It
// is called before s is first written, so that its first touches fault
// in huge pages.
func Advise[E any](s []E) {
	if len(s) == 0 {
		return
	}
	var e E
	start, length := span(uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(e))
	if length == 0 {
		return
	}
	syscall.Syscall(syscall.SYS_MADVISE, start, length, syscall.MADV_HUGEPAGE)
}
