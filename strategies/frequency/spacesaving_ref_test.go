package frequency

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"countsim/strategies/internal/designtest"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// ssReference is Space-Saving as it was written before its hot loop was
// (spacesaving.go's add at e32e83e): one event at a time, the key hashed and
// looked up in the package's Table (keys in its slots, a backward shift that
// hashes them again), the stream-summary's Raise for every counter moved.
// Its summary must be SpaceSaving's to the bit.
type ssReference struct {
	ss    ds.StreamSummary
	index ds.Table[int32]
	m     int
	n     uint64
}

func newSSReference(m int, seed uint64) *ssReference {
	st := workload.SplitMix(seed ^ 0x7370616365736176)
	return &ssReference{
		ss:    ds.StreamSummary{Counters: make([]ds.SSCounter, 0, m), Buckets: make([]ds.SSBucket, 0, m), Head: -1, Free: -1},
		index: ds.NewFixedTable[int32](m, st.Uint64()),
		m:     m,
	}
}

func (s *ssReference) observe(batch []workload.Event) {
	for i := range batch {
		if e := &batch[i]; e.Op == workload.Write && e.Delta > 0 {
			s.add(e.Key, uint64(e.Delta))
		}
	}
}

func (s *ssReference) add(key, delta uint64) {
	s.n += delta
	h := s.index.Hash(key)
	slot, c := s.index.Find(h, key)
	if c != 0 {
		s.ss.Raise(c-1, delta)
		return
	}
	if len(s.ss.Counters) < s.m {
		c := int32(len(s.ss.Counters))
		s.ss.Counters = append(s.ss.Counters, ds.SSCounter{Key: key, Hash: uint32(h), Bucket: -1})
		*s.index.RefAt(h, key) = c + 1
		s.ss.Link(c, delta, -1, s.ss.Head)
		return
	}
	b := s.ss.Head
	c = s.ss.Buckets[b].First
	ct := &s.ss.Counters[c]
	s.index.Replace(slot, key, c+1, uint64(ct.Hash), ct.Key)
	ct.Key, ct.Hash, ct.Err = key, uint32(h), s.ss.Buckets[b].Count
	s.ss.Raise(c, delta)
}

// SpaceSaving's summary is the reference's to the bit — every counter's
// key, hash, error and links, every bucket's count and links, the head, the
// free list — after every batch, on seeded streams of unit and of weighted
// deltas, reads and zero deltas among them, batches of every length from 1
// to past the hot loop's look-ahead, and sizes from 1 counter to more
// counters than keys; and its answers are the reference's.
func TestSpaceSavingMatchesReference(t *testing.T) {
	streams := []struct {
		sp       designtest.StreamSpec
		weighted bool
	}{
		{designtest.StreamSpec{Seed: 61, Keys: 400_000, S: 1, Events: 200_000, Scramble: true}, false},
		{designtest.StreamSpec{Seed: 62, Keys: 20_000, S: 1.2, Events: 100_000, Scramble: true}, true},
		{designtest.StreamSpec{Seed: 63, Keys: 3_000, S: 0, Events: 50_000}, false},
		{designtest.StreamSpec{Seed: 64, Keys: 500, S: 0.7, Events: 30_000}, true},
	}
	for _, st := range streams {
		ev := st.sp.Gen()
		r := rand.New(rand.NewPCG(st.sp.Seed, 2))
		for i := range ev {
			switch x := r.IntN(100); {
			case x < 2:
				ev[i].Op = workload.Read
			case x < 4:
				ev[i].Delta = -r.Int64N(3) // 0 or negative: ignored
			case st.weighted:
				ev[i].Delta = 1 + r.Int64N(50)
			}
		}
		for _, m := range []int{1, 7, 100, 1000, 5000} {
			t.Run(fmt.Sprintf("seed=%d/m=%d", st.sp.Seed, m), func(t *testing.T) {
				s, err := NewSpaceSaving(SpaceSavingParams{Counters: m}, st.sp.Seed)
				if err != nil {
					t.Fatal(err)
				}
				ref := newSSReference(m, st.sp.Seed)
				for lo, k := 0, 1; lo < len(ev); k = k%97 + 1 {
					batch := ev[lo:min(lo+k*k, len(ev))]
					lo += len(batch)
					s.Observe(batch)
					ref.observe(batch)
					if s.n != ref.n || !reflect.DeepEqual(s.ss, ref.ss) {
						t.Fatalf("after %d events: the summary differs from the reference's", lo)
					}
				}
				if err := s.check(); err != nil {
					t.Fatal(err)
				}
				for _, c := range ref.ss.Counters {
					if got, want := s.Count(c.Key), ref.ss.Buckets[c.Bucket].Count; got != want {
						t.Fatalf("Count(%d): got %d, want %d", c.Key, got, want)
					}
				}
			})
		}
	}
}
