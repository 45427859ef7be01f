package distinct

import (
	"errors"
	"testing"

	"countsim/strategies"
	"countsim/strategies/hot"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// pfStore keeps each HyperLogLog key as the exact set of its elements, so
// that PFCOUNT is the exact count: it tests what redis-hll sends, not an
// estimator. It records every op's tag.
type pfStore struct {
	sets map[uint64]map[uint64]bool
	tags map[uint64]uint64 // key → the tag it was sent with
	t    *testing.T
}

func (s *pfStore) Do(ops []strategies.StoreOp, vals []int64) {
	for i, op := range ops {
		if tag, ok := s.tags[op.Key]; ok && tag != op.Tag {
			s.t.Errorf("key %x sent with tags %x and %x", op.Key, tag, op.Tag)
		}
		s.tags[op.Key] = op.Tag
		set := s.sets[op.Key]
		if set == nil {
			set = map[uint64]bool{}
			s.sets[op.Key] = set
		}
		switch op.Kind {
		case strategies.PFAdd:
			set[op.Member] = true
		case strategies.PFCount:
			vals[i] = int64(len(set))
		case strategies.PFMerge:
			for m := range s.sets[op.Member] {
				set[m] = true
			}
		default:
			s.t.Errorf("redis-hll sent a %d op", op.Kind)
		}
	}
}

func (s *pfStore) Final(uint64) int64 { return 0 }

// TestRedisHLLSendsPF: each write's actor is one PFADD to the part's key;
// Distinct is PFCOUNT of it; the union is a PFMERGE of one part's key into
// the other's. Two parts have two keys and one tag (one slot), and a design
// of another store or type is refused.
func TestRedisHLLSendsPF(t *testing.T) {
	st := &pfStore{sets: map[uint64]map[uint64]bool{}, tags: map[uint64]uint64{}, t: t}
	day1, err := NewPFHLL(st, 7, 0)
	if err != nil {
		t.Fatal(err)
	}
	day2, _ := NewPFHLL(st, 7, 1)
	var b1, b2 []workload.Event
	for i := range uint64(50_000) {
		b1 = append(b1, workload.Event{Op: workload.Write, Actor: i, Key: 1})
		b2 = append(b2, workload.Event{Op: workload.Write, Actor: 30_000 + i, Key: 1})
	}
	b1 = append(b1, workload.Event{Op: workload.Read, Actor: 1 << 40, Key: 1}) // not counted
	day1.Observe(b1)
	day2.Observe(b2)
	if d := day1.Distinct(); d != 50_000 {
		t.Errorf("day 1: %v, want 50,000", d)
	}
	if err := day1.UnionWith(day2); err != nil {
		t.Fatal(err)
	}
	if d := day1.Distinct(); d != 80_000 {
		t.Errorf("union: %v, want 80,000", d)
	}
	if d := day2.Distinct(); d != 50_000 {
		t.Errorf("day 2 after the merge: %v, want 50,000 (PFMERGE writes its first key only)", d)
	}
	if len(st.sets) != 2 || day1.key == day2.key || day1.tag != day2.tag || day1.tag == 0 {
		t.Errorf("%d keys, keys %x %x, tags %x %x: want two keys sharing one non-zero tag", len(st.sets), day1.key, day2.key, day1.tag, day2.tag)
	}
	other, _ := NewPFHLL(&pfStore{sets: map[uint64]map[uint64]bool{}, tags: map[uint64]uint64{}, t: t}, 7, 1)
	if err := day1.UnionWith(other); !errors.Is(err, strategies.ErrMergeParams) {
		t.Errorf("a merge across stores: %v, want ErrMergeParams", err)
	}
	h, _ := NewHLL(HLLParams{Precision: 14}, 7)
	if err := day1.UnionWith(h); !errors.Is(err, strategies.ErrMergeParams) {
		t.Errorf("a merge with an HLL: %v, want ErrMergeParams", err)
	}
}

// TestHashTagTagsAKeysStripes: with hashtag every op on a key's stripes
// carries one non-zero Tag, another key's another; without, none.
func TestHashTagTagsAKeysStripes(t *testing.T) {
	for _, tagged := range []bool{false, true} {
		m := designtest.NewMemStore(t)
		m.LogOn = true
		s, err := hot.NewStriped(hot.StripedParams{Stripes: 8, HashTag: tagged, Read: hot.ReadSum}, m, 1)
		if err != nil {
			t.Fatal(err)
		}
		var b []workload.Event
		for i := range int64(400) {
			b = append(b, workload.Event{At: i, Op: workload.Write, Key: uint64(i % 2), Delta: 1})
		}
		b = append(b, workload.Event{At: 400, Op: workload.Read, Key: 0})
		s.Observe(b)
		tags := map[uint64]map[uint64]bool{} // tag → stripes' keys
		for _, op := range m.Log {
			if tags[op.Tag] == nil {
				tags[op.Tag] = map[uint64]bool{}
			}
			tags[op.Tag][op.Key] = true
		}
		switch {
		case !tagged && (len(tags) != 1 || len(tags[0]) != 16):
			t.Errorf("untagged: tags %v, want only 0 over 16 stripe keys", tags)
		case tagged && (len(tags) != 2 || tags[0] != nil):
			t.Errorf("tagged: %d tags (%v), want two, not 0", len(tags), tags)
		case tagged:
			for tag, keys := range tags {
				if len(keys) != 8 {
					t.Errorf("tag %x over %d keys, want a key's 8 stripes", tag, len(keys))
				}
			}
		}
	}
}
