package sim

import (
	"errors"
	"fmt"
	"testing"

	"countsim/scenarios"
	"countsim/sim/engine"
)

// FuzzPrepare feeds the preparation of a scenario (parameters, plans, the
// memory guard) values from anywhere in their types' ranges: it returns a
// scenario error naming a line, or a Setup whose planned memory is within
// the limit; it never panics.
func FuzzPrepare(f *testing.F) {
	f.Add(int64(10_000_000), int64(1_000_000), 1.0, 0.0001, 0.01, int64(1000), int64(4), int64(0), int64(0))
	f.Add(int64(1), int64(1), 0.0, 1e-300, 0.999999, int64(1), int64(1), int64(0), int64(0))
	f.Add(int64(2_000_000_000), int64(400_000_000), 1.0, 0.0, 0.0, int64(0), int64(64), int64(27183), int64(5))
	f.Add(int64(-5), int64(1e12), -1.0, 2.0, -0.5, int64(-1), int64(1<<40), int64(-3), int64(99))
	f.Fuzz(func(t *testing.T, events, keys int64, s, eps, delta float64, counters, shards, width, depth int64) {
		cm := fmt.Sprintf("{epsilon: %v, delta: %v}", eps, delta)
		if width != 0 || depth != 0 {
			cm = fmt.Sprintf("{width: %d, depth: %d}", width, depth)
		}
		src := fmt.Sprintf(`name: fuzz
workload: {events: %d, keys: %d, s: %v}
questions: {top: 10}
strategies:
  - {name: exact, type: exact, params: {shards: %d}}
  - {name: count-min, type: count-min, params: %s}
  - {name: space-saving, type: space-saving, params: {counters: %d}}
`, events, keys, s, shards, cm, counters)
		scn, err := scenarios.Parse("fuzz.yaml", []byte(src))
		if err != nil {
			return // the loader's own fuzz target holds it to its errors
		}
		const limit = 1 << 30
		st, err := engine.Prepare(scn, engine.Options{MemoryLimit: limit})
		if err != nil {
			var se *scenarios.Error
			if !errors.As(err, &se) || se.Pos.Line == 0 {
				t.Fatalf("%s: error %v names no line", src, err)
			}
			return
		}
		if need := st.MemoryNeeded(); need > limit || need <= 0 {
			t.Fatalf("%s: accepted with a planned %d bytes against a limit of %d", src, need, limit)
		}
		_ = st.Plan()
	})
}
