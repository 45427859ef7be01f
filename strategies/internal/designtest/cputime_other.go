//go:build !linux

package designtest

// ThreadCPU is 0 off Linux: the benchmarks report no CPU time there.
func ThreadCPU() int64 { return 0 }
