//go:build amd64 || arm64

package ds

// prefetch asks for the cache line at addr (prefetch_GOARCH.s).
func prefetch(addr uintptr)
