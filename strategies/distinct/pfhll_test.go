package distinct

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	"countsim/strategies"
	"countsim/strategies/hot"
	"countsim/strategies/internal/designtest"
	"countsim/workload"
)

// pfStore keeps each HyperLogLog key as the exact set of its elements, so
// that PFCOUNT is the exact count: it tests what redis-hll sends, not an
// estimator. It records every op's tag, refuses a multi-key command over
// keys of different slots as a Redis Cluster would (a key's slot: its tag,
// or the key itself untagged), and answers a GET with Redis's string of an
// HLL of the key's elements.
type pfStore struct {
	sets      map[uint64]map[uint64]bool
	tags      map[uint64]uint64 // key → the tag it was sent with
	refused   error
	cmds      int  // commands sent, KeyArgs aside
	oneServer bool // one Redis server: no slots, nothing refused
	t         *testing.T
}

func newPFStore(t *testing.T) *pfStore {
	return &pfStore{sets: map[uint64]map[uint64]bool{}, tags: map[uint64]uint64{}, t: t}
}

func (s *pfStore) set(key, tag uint64) map[uint64]bool {
	if old, ok := s.tags[key]; ok && old != tag {
		s.t.Errorf("key %x sent with tags %x and %x", key, old, tag)
	}
	s.tags[key] = tag
	if s.sets[key] == nil {
		s.sets[key] = map[uint64]bool{}
	}
	return s.sets[key]
}

func slotOf(key, tag uint64) uint64 {
	if tag != 0 {
		return tag
	}
	return key
}

func (s *pfStore) Do(ops []strategies.StoreOp, vals []int64) {
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		s.cmds++
		set := s.set(op.Key, op.Tag)
		var args []strategies.StoreOp
		for i+1 < len(ops) && ops[i+1].Kind == strategies.KeyArg {
			i++
			args = append(args, ops[i])
		}
		cross := false
		for _, a := range args {
			cross = cross || slotOf(a.Key, a.Tag) != slotOf(op.Key, op.Tag)
		}
		if cross && !s.oneServer {
			if s.refused == nil {
				s.refused = fmt.Errorf("%v: %w", op.Kind, strategies.ErrCrossSlot)
			}
			continue
		}
		switch op.Kind {
		case strategies.PFAdd:
			set[op.Member] = true
		case strategies.PFCount:
			u := maps.Clone(set)
			for _, a := range args {
				maps.Copy(u, s.set(a.Key, a.Tag))
			}
			vals[i-len(args)] = int64(len(u))
		case strategies.PFMerge:
			for _, a := range args {
				maps.Copy(set, s.set(a.Key, a.Tag))
			}
		default:
			s.t.Errorf("redis-hll sent a %d op", op.Kind)
		}
	}
}

func (s *pfStore) Final(uint64) int64 { return 0 }

func (s *pfStore) Refused() error {
	err := s.refused
	s.refused = nil
	return err
}

func (s *pfStore) GetBytes(_ int64, key, tag uint64, dst []byte) ([]byte, error) {
	s.cmds++
	set := s.set(key, tag)
	h, _ := NewHLL(HLLParams{Precision: 14}, 1)
	for id := range set {
		h.Insert(id)
	}
	return AppendRedisHLL(dst, h)
}

// twoDays feeds day 1 ids 0..49,999 and day 2 ids 30,000..79,999 (80,000
// in all) to two parts of redis-hll by merge, on st.
func twoDays(t *testing.T, st strategies.Store, merge PFUnion) (day1, day2 *PFHLL) {
	t.Helper()
	day1, err := NewPFHLL(st, 7, 0, merge)
	if err != nil {
		t.Fatal(err)
	}
	day2, _ = NewPFHLL(st, 7, 1, merge)
	var b1, b2 []workload.Event
	for i := range uint64(50_000) {
		b1 = append(b1, workload.Event{Op: workload.Write, Actor: i, Key: 1})
		b2 = append(b2, workload.Event{Op: workload.Write, Actor: 30_000 + i, Key: 1})
	}
	b1 = append(b1, workload.Event{Op: workload.Read, Actor: 1 << 40, Key: 1}) // not counted
	day1.Observe(b1)
	day2.Observe(b2)
	return day1, day2
}

// TestRedisHLLSendsPF: each write's actor is one PFADD to the part's key;
// Distinct is PFCOUNT of it. The union, by merge: tagged, two keys of one
// tag (one slot) and a multi-key PFCOUNT of both, one command, changing
// neither; server, untagged keys and a PFMERGE of day 2 into day 1, which
// a cluster refuses across slots (CROSSSLOT, day 1 unchanged) and one
// server merges; app, untagged keys whose registers are read by a GET each
// and merged here, within the HLL's error of the truth. A design of
// another store, merge or type is refused.
func TestRedisHLLSendsPF(t *testing.T) {
	for _, merge := range []PFUnion{PFUnionTagged, PFUnionServer, PFUnionApp} {
		t.Run("merge="+merge.String(), func(t *testing.T) {
			st := newPFStore(t)
			day1, day2 := twoDays(t, st, merge)
			if d := day1.Distinct(); d != 50_000 {
				t.Errorf("day 1: %v, want 50,000", d)
			}
			if len(st.sets) != 2 || day1.key == day2.key || day1.tag != day2.tag || (day1.tag == 0) != (merge != PFUnionTagged) {
				t.Errorf("%d keys, keys %x %x, tags %x %x: want two keys, sharing one non-zero tag only when tagged", len(st.sets), day1.key, day2.key, day1.tag, day2.tag)
			}
			before := st.cmds
			err := day1.UnionWith(day2)
			union := day1.Distinct()
			sent := st.cmds - before
			switch merge {
			case PFUnionTagged:
				if err != nil || union != 80_000 || sent != 1 {
					t.Errorf("union %v, %v, %d commands; want 80,000 by one PFCOUNT", union, err, sent)
				}
			case PFUnionServer:
				if !errors.Is(err, strategies.ErrCrossSlot) || !strings.HasPrefix(err.Error(), "redis-hll: ") || union != 50_000 || sent != 2 {
					t.Errorf("union %v, %v, %d commands; want CROSSSLOT, day 1 unchanged, a PFMERGE and a PFCOUNT", union, err, sent)
				}
			case PFUnionApp:
				if err != nil || math.Abs(union-80_000) > 5.3*0.0081*80_000 || sent != 2 {
					t.Errorf("union %v, %v, %d commands; want 80,000 ± 5.3σ from two GETs", union, err, sent)
				}
				if day1.Bytes() < 1<<14+12_304 {
					t.Errorf("bytes %d: not counting the registers and the string read", day1.Bytes())
				}
			}
			if d := day2.Distinct(); d != 50_000 {
				t.Errorf("day 2 after the union: %v, want 50,000 (no key of day 2 written)", d)
			}
			other, _ := NewPFHLL(newPFStore(t), 7, 1, merge)
			if err := day1.UnionWith(other); !errors.Is(err, strategies.ErrMergeParams) {
				t.Errorf("a merge across stores: %v, want ErrMergeParams", err)
			}
			h, _ := NewHLL(HLLParams{Precision: 14}, 7)
			if err := day1.UnionWith(h); !errors.Is(err, strategies.ErrMergeParams) {
				t.Errorf("a merge with an HLL: %v, want ErrMergeParams", err)
			}
			otherMerge, _ := NewPFHLL(st, 7, 1, (merge+1)%3)
			if err := day1.UnionWith(otherMerge); !errors.Is(err, strategies.ErrMergeParams) {
				t.Errorf("a merge with another merge: %v, want ErrMergeParams", err)
			}
		})
	}
	// On one server (no slots to refuse), server's PFMERGE merges.
	st := newPFStore(t)
	st.oneServer = true
	day1, day2 := twoDays(t, st, PFUnionServer)
	if err := day1.UnionWith(day2); err != nil || day1.Distinct() != 80_000 {
		t.Errorf("one server: %v, union %v; want 80,000", err, day1.Distinct())
	}
	// merge app needs a store that reads values whole.
	day1, day2 = twoDays(t, struct{ strategies.Store }{newPFStore(t)}, PFUnionApp)
	if err := day1.UnionWith(day2); !errors.Is(err, strategies.ErrMergeParams) {
		t.Errorf("app on a store without GetBytes: %v, want ErrMergeParams", err)
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

// sinkStore reads each op's member and sends nothing anywhere: the store
// of BenchmarkPFHLLObserve, which times the building of the PFADDs alone.
type sinkStore struct{ sum uint64 }

func (s *sinkStore) Do(ops []strategies.StoreOp, _ []int64) {
	for i := range ops {
		s.sum += ops[i].Member
	}
}

func (s *sinkStore) Final(uint64) int64 { return 0 }

// BenchmarkPFHLLObserve: redis-hll's Observe of a batch of 4,096 Write
// events (the audience's batch) on a store that only reads the PFADDs: the
// cost of building them, 48 bytes an op, without the cluster's.
func BenchmarkPFHLLObserve(b *testing.B) {
	ev := hllBenchEvents(4096, 11)
	for i := range ev {
		ev[i].At = int64(i)
	}
	h, err := NewPFHLL(&sinkStore{}, 1, 0, PFUnionTagged)
	if err != nil {
		b.Fatal(err)
	}
	h.Observe(ev)
	cpu := startCPU(b)
	b.ReportAllocs()
	for b.Loop() {
		h.Observe(ev)
	}
	reportPerEvent(b, len(ev), cpu)
}
