//go:build race

package workload

// raceEnabled reports whether the race detector is on: it makes sync.Pool
// drop a random quarter of what is put back, so allocation counts that rely
// on a pool are not deterministic under -race.
const raceEnabled = true
