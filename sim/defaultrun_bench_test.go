//go:build unix

package sim

import (
	"context"
	"syscall"
	"testing"
	"time"

	"countsim/scenarios"
	"countsim/sim/engine"
)

// BenchmarkDefaultRun runs every built-in scenario of the default run
// (countsim run with no names: all but those on demand), one sub-benchmark
// each, end to end as run does short of writing the report (generation,
// the truth, every design, scoring), and reports the process's CPU time a
// run (user + system, from getrusage), cpu-s/op: what the run costs the
// cores whatever else shares the machine, where ns/op, its wall time,
// waits for them. Issue 26 holds the default run to 30 s of wall on 2
// cores. -benchtime 1x runs each once.
func BenchmarkDefaultRun(b *testing.B) {
	names, err := scenarios.DefaultBuiltins()
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range names {
		b.Run(name, func(b *testing.B) {
			scn, err := scenarios.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			var cpu time.Duration
			for b.Loop() {
				c0 := processCPU(b)
				st, err := engine.Prepare(scn, engine.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := st.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				cpu += processCPU(b) - c0
			}
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// processCPU is the CPU time the process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
