package distinct

import (
	"testing"
	"time"

	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// TestWindowedHLL: at any now, the ring's estimate equals, exactly, that of
// one HLL of the same p and seed fed the ids of the window of now (a union
// of sketches is the sketch of the union), for keys and for actors, across
// gaps longer than the window.
func TestWindowedHLL(t *testing.T) {
	ev := designtest.DecayStream(9, 40000, 30000, 0.8, 20*time.Millisecond) // 800 s
	for i := range ev {
		ev[i].Actor = uint64(i*31) % 5000
		if i == 20000 { // a gap of 5 minutes: every bucket leaves
			for j := i; j < len(ev); j++ {
				ev[j].At += int64(5 * time.Minute)
			}
		}
	}
	for _, of := range []string{"key", "actor"} {
		w, err := NewWindowedHLL(WindowedHLLParams{Bucket: 30 * time.Second, Window: 2 * time.Minute, P: 12, Of: of}, 4)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < len(ev); b += 2500 {
			w.Observe(ev[b : b+2500])
			now := ev[b+2499].At + int64(10*time.Second)
			want, _ := NewHLL(HLLParams{Precision: 12}, 4)
			bucket := int64(30 * time.Second)
			for _, e := range ev[:b+2500] {
				if e.Op == workload.Write && e.Delta > 0 && e.At/bucket > now/bucket-4 {
					if of == "key" {
						want.Insert(e.Key)
					} else {
						want.Insert(e.Actor)
					}
				}
			}
			if got := w.DistinctNow(now); got != want.Estimate() {
				t.Fatalf("of %s at %d: %v, want %v", of, now, got, want.Estimate())
			}
		}
	}
	// Observe allocates nothing, across rotations too.
	w, _ := NewWindowedHLL(WindowedHLLParams{Bucket: time.Second, Window: 10 * time.Second, P: 12, Of: "key"}, 1)
	batch := ev[:2500]
	w.Observe(batch)
	shift := int64(0)
	if n := testing.AllocsPerRun(3, func() {
		shift += int64(time.Minute)
		for i := range batch {
			batch[i].At += int64(time.Minute)
		}
		w.Observe(batch)
	}); n != 0 {
		t.Fatalf("%v allocations a batch", n)
	}
	if _, err := NewWindowedHLL(WindowedHLLParams{Bucket: time.Minute, Window: 30 * time.Second, P: 12, Of: "key"}, 1); err == nil {
		t.Fatal("a window shorter than a bucket accepted")
	}
	if _, err := NewWindowedHLL(WindowedHLLParams{Bucket: time.Minute, Window: time.Hour, P: 12, Of: "user"}, 1); err == nil {
		t.Fatal("of: user accepted")
	}
}
