package workload

import "testing"

// FuzzDecodeReview: any event decodes to a documented error or to a review
// that passes its check and encodes back to the same event.
func FuzzDecodeReview(f *testing.F) {
	f.Add(uint64(7), uint64(1), int64(5), uint64(1<<16|1<<8|5), uint8(0), int64(0))
	f.Add(uint64(7), uint64(2), int64(-3), uint64(3<<16|2<<8|5<<4|2), uint8(0), int64(99))
	f.Add(uint64(0), uint64(9), int64(-4), uint64(2<<16|3<<8|4<<4), uint8(0), int64(-1))
	f.Add(uint64(1), uint64(0), int64(0), uint64(0), uint8(2), int64(0))
	f.Fuzz(func(t *testing.T, key, id uint64, delta int64, actor uint64, op uint8, at int64) {
		e := Event{At: at, Key: key, Actor: actor, Delta: delta, ID: id, Op: Op(op)}
		r, err := DecodeReview(e)
		if err != nil {
			if r != (Review{}) {
				t.Fatalf("an error with a review: %+v", r)
			}
			return
		}
		if err := r.Check(); err != nil {
			t.Fatalf("decoded %+v fails its check: %v", r, err)
		}
		if back := r.Event(at); back != e {
			t.Fatalf("%+v decoded to %+v, encodes back to %+v", e, r, back)
		}
		if r.CountDelta() < -1 || r.CountDelta() > 1 || r.SumDelta() != delta {
			t.Fatalf("%+v: deltas %d, %d", r, r.CountDelta(), r.SumDelta())
		}
	})
}
