//go:build !race

package redisstore_test

// raceEnabled reports whether the race detector is on (see race_on_test.go).
const raceEnabled = false
