package hot

import (
	"slices"
	"testing"

	"countsim/strategies"
)

// FuzzRetryQueue: the client's retry queue, pushed and popped in any
// interleaving the input spells, gives its ops in the order of a plain
// re-implementation: the earliest time first, ties in the order queued.
// Each input byte pair is one step: an even first byte pushes an op at
// the time of the second (times collide on purpose), an odd one pops.
func FuzzRetryQueue(f *testing.F) {
	f.Add([]byte{0, 5, 0, 3, 0, 5, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 1, 1, 1})
	f.Add([]byte{2, 9, 4, 1, 6, 9, 8, 1, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		var cl hotClient
		type want struct {
			at  int64
			seq int
		}
		var plain []want // kept sorted by (at, seq), stably
		n := 0
		for len(in) >= 2 {
			step, v := in[0], in[1]
			in = in[2:]
			if step%2 == 0 {
				at := int64(v % 16)
				n++
				cl.push(strategies.StoreOp{At: at, Delta: int64(n)}, opMeta{})
				i := len(plain)
				for i > 0 && plain[i-1].at > at {
					i--
				}
				plain = slices.Insert(plain, i, want{at, n})
				continue
			}
			if len(plain) == 0 {
				if len(cl.queue) != 0 {
					t.Fatalf("queue holds %d, the plain one none", len(cl.queue))
				}
				continue
			}
			got := cl.pop()
			if w := plain[0]; got.op.At != w.at || got.op.Delta != int64(w.seq) {
				t.Fatalf("popped op %d at %d, want op %d at %d", got.op.Delta, got.op.At, w.seq, w.at)
			}
			plain = plain[1:]
			if err := cl.check(0, 0); err != nil {
				t.Fatal(err)
			}
		}
		if len(cl.queue) != len(plain) {
			t.Fatalf("queue holds %d, the plain one %d", len(cl.queue), len(plain))
		}
	})
}
