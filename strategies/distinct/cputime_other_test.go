//go:build !linux

package distinct

// threadCPU is 0 off Linux: the benchmarks report no CPU time there.
func threadCPU() int64 { return 0 }
