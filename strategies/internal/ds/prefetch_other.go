//go:build !amd64 && !arm64

package ds

// prefetch does nothing where there is no prefetch instruction written for
// the architecture.
func prefetch(addr uintptr) {}
