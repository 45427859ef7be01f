//go:build race

package main

// raceEnabled reports whether the race detector is on: its shadow memory
// stays resident after the heap gives its pages back, so a peak measured
// after a large run is not the small run's own under -race.
const raceEnabled = true
