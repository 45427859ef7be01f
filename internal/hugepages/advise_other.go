//go:build !linux

package hugepages

// Advise does nothing off Linux: the kernel's huge pages are asked for
// with Linux's madvise.
func Advise[E any](s []E) {}
