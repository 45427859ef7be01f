// Package hugepages gives the large arrays that are read and written at
// random — a rank truth's counts, an exact set's table — the kernel's
// transparent huge pages, where the machine's setting asks for them only
// on request ("madvise", Debian's default). It imports nothing of ours:
// both the runner (sim/engine) and the designs' shared structures
// (strategies/internal/ds) stand on it.
package hugepages
