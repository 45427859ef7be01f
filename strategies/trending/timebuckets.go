package trending

import (
	"fmt"
	"math"
	"time"

	"countsim/metrics"
	"countsim/strategies"
	"countsim/strategies/internal/ds"
	"countsim/workload"
)

// Time buckets, the sliding-window trending count of
// seeds/000_466514a9c145316b.txt step 4: "Count for each minute. The score
// for the last hour is the sum of the last 60 buckets."
//
// Time is cut into buckets of Bucket ns; bucket b holds the events with
// ⌊At/Bucket⌋ = b. The design keeps a ring of W = Window/Bucket count
// tables, slot b mod W holding bucket b, for the W buckets up to the
// newest, and one table of window totals, key → Σ of its counts over the
// ring. An event adds its Delta to its key in its bucket's table and in the
// totals: two O(1) expected table adds (CountTable, slottable.go), one hash.
//
// Rotation. When an event (or a query's now) falls in a bucket past the
// newest, each bucket that leaves the window is subtracted from the totals
// key by key (a key whose total reaches 0 is deleted, slotTable.Sub) and
// emptied: the cost is the expiring bucket's own
// table, never a rescan of the keys of the window, so a rotation costs
// what that bucket's events cost to add. A gap of W buckets or more
// empties everything at once (O(slots), no hashing). Tables grow to the
// busiest bucket they have held and keep their size, so Observe allocates
// nothing in the steady state.
//
// The score (TrendLaw: Window = W·Bucket) is exact: Trending(k, now)
// rotates to now's bucket and selects the k largest totals with a bounded
// min-heap, O(keys tracked · log k); no ordered structure is kept, since
// keeping one would cost every event a reorder and the query is rare.
// Memory is W tables sized to a bucket's keys plus one sized to the
// window's keys: at most (W + 1) × 16 B × ~1.3–2.7 slots a key tracked.
//
// Events are expected in time order (the runner's streams are). An event
// older than the newest bucket is still counted if its bucket is in the
// window, and dropped if not (no query from now on could count it).

// TimeBucketsParams are the parameters of time-buckets.
type TimeBucketsParams struct {
	Bucket time.Duration `key:"bucket" range:">0" default:"1m" doc:"a bucket's width"`
	Window time.Duration `key:"window" range:"(0,1572864h]" default:"60m" doc:"the window, a whole multiple of the bucket, 1..65536 buckets (60m: the last 60 minutes)"`
}

// Validate checks the bucket and the window.
func (p TimeBucketsParams) Validate() error { return ds.ValidateWindow(p.Bucket, p.Window) }

// TimeBuckets is the exact sliding-window count: a Trending design. Not
// safe for concurrent use.
type TimeBuckets struct {
	clock   ds.BucketClock
	ring    []ds.CountTable // slot b mod W: bucket b's counts, for the W buckets up to the newest
	cur     *ds.CountTable  // the newest bucket's table
	totals  ds.CountTable   // key → Σ over the ring
	scanned int64           // slots a rotation has read or cleared, for the tests of its cost
}

var _ strategies.Trending = (*TimeBuckets)(nil)

// timeBucketsStartSlots is the slots a table starts with: each grows to
// the busiest bucket (or window) it holds.
const timeBucketsStartSlots = 64

// NewTimeBuckets returns an empty design; seed seeds the hash of its tables
// (one hash an event serves the bucket's table and the totals).
func NewTimeBuckets(p TimeBucketsParams, seed uint64) (*TimeBuckets, error) {
	if err := strategies.ValidateWith("time-buckets", &p); err != nil {
		return nil, err
	}
	s := workload.SplitMix64(seed ^ 0x74696d656275636b) // "timebuck"
	tb := &TimeBuckets{clock: ds.NewBucketClock(p.Bucket, p.Window)}
	tb.ring = make([]ds.CountTable, tb.clock.W)
	for i := range tb.ring {
		tb.ring[i].Init(timeBucketsStartSlots, s)
	}
	tb.totals.Init(timeBucketsStartSlots, s)
	tb.cur = &tb.ring[tb.clock.Slot(0)]
	return tb, nil
}

func init() {
	strategies.Define("time-buckets", "trending by a sliding window: a count table a bucket (a minute) and the window's totals; the score is the sum of the last W buckets, exact (seed 000)",
		func(p *TimeBucketsParams, env strategies.Env) (strategies.Strategy, error) {
			return NewTimeBuckets(*p, env.Seed)
		},
		timeBucketsPlan, strategies.Answers(strategies.FamilyTrending))
}

// windowEvents returns the events a bucket and a window hold at the
// stream's mean rate (0 when the stream is not timed), and the keys that
// can be in each: at most the stream's keys, at most its events.
func windowEvents(bucket, window time.Duration, env strategies.Env) (perBucket, perWindow, bucketKeys, windowKeys float64) {
	if env.Duration <= 0 || env.Events <= 0 {
		return 0, 0, float64(env.Keys), float64(env.Keys)
	}
	rate := float64(env.Events) / float64(env.Duration)
	perBucket = math.Min(float64(env.Events), rate*float64(bucket))
	perWindow = math.Min(float64(env.Events), rate*float64(window))
	return perBucket, perWindow, math.Min(float64(env.Keys), math.Ceil(perBucket)), math.Min(float64(env.Keys), math.Ceil(perWindow))
}

// timeBucketsBytes is the memory of the tables when a bucket holds
// bucketKeys keys and the window windowKeys: W tables and the totals, 16 B
// a slot, each the power of two a table of that many keys grows to.
func timeBucketsBytes(w int64, bucketKeys, windowKeys float64) float64 {
	slots := func(keys float64) float64 {
		return float64(max(timeBucketsStartSlots, ds.TableLen(uint64(keys))))
	}
	return float64(ds.ExactSlotBytes) * (float64(w)*slots(bucketKeys) + slots(windowKeys))
}

// timeBucketsPlan: W, the keys tracked and the memory, at most (every event
// of a bucket a new key, up to the stream's keys).
func timeBucketsPlan(p *TimeBucketsParams, env strategies.Env) []strategies.PlanLine {
	w := int64(p.Window / p.Bucket)
	_, _, bk, wk := windowEvents(p.Bucket, p.Window, env)
	return []strategies.PlanLine{
		{Metric: metrics.WindowBuckets, Value: float64(w), Unit: "buckets", Note: "W = window / bucket"},
		{Metric: metrics.Undercounts, Value: 0, Unit: "keys", Note: "exact within the window"},
		{Metric: metrics.KeysTracked, Value: wk, Unit: "keys", Note: "at most: the keys of a window, ≤ min(keys, events a window at the mean rate)"},
		{Metric: metrics.Bytes, Value: timeBucketsBytes(w, bk, wk), Unit: "B",
			Note: "at most: 16 B × (W × the slots of a bucket's keys + the slots of the window's keys), a table's slots the power of two ≥ 4/3 of its keys"},
	}
}

// Law returns the window: W buckets of the bucket's width.
func (tb *TimeBuckets) Law() strategies.TrendLaw { return tb.clock.Law() }

// Bytes returns the memory of the W bucket tables and the totals.
func (tb *TimeBuckets) Bytes() int64 {
	b := tb.totals.Bytes()
	for i := range tb.ring {
		b += tb.ring[i].Bytes()
	}
	return b
}

// Observe counts every write event's positive Delta in its bucket and in
// the window totals, rotating first when the event is past the newest
// bucket. Both adds are CountTable's probe loop written out (add does not
// inline), from one hash.
func (tb *TimeBuckets) Observe(batch []workload.Event) {
	seed := tb.totals.Seed
	for i := range batch {
		e := &batch[i]
		if e.At >= tb.clock.Next {
			tb.rotate(tb.clock.Of(e.At))
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		d := uint64(e.Delta)
		if e.At < tb.clock.Start {
			tb.late(e.At, e.Key, d)
			continue
		}
		h := workload.Mix64(e.Key ^ seed)
		t := tb.cur
		for j := h & t.Mask; ; j = (j + 1) & t.Mask {
			s := &t.Slots[j]
			if s.Count == 0 {
				t.Insert(s, h, e.Key, d)
				break
			}
			if s.Key == e.Key {
				s.Count += d
				break
			}
		}
		t = &tb.totals
		for j := h & t.Mask; ; j = (j + 1) & t.Mask {
			s := &t.Slots[j]
			if s.Count == 0 {
				t.Insert(s, h, e.Key, d)
				break
			}
			if s.Key == e.Key {
				s.Count += d
				break
			}
		}
	}
}

// late counts an event older than the newest bucket: in its own bucket if
// that is still in the window, else nowhere.
func (tb *TimeBuckets) late(at int64, key, d uint64) {
	b := tb.clock.Of(at)
	if !tb.clock.InWindow(b) {
		return
	}
	h := workload.Mix64(key ^ tb.totals.Seed)
	tb.ring[tb.clock.Slot(b)].Add(h, key, d)
	tb.totals.Add(h, key, d)
}

// rotate makes b the newest bucket, if it is past the newest: each bucket
// that leaves the window, newest − W + 1 … b − W, is subtracted from the
// totals and emptied (its table, which bucket b mod W takes over, keeps its
// slots). When all W leave, every table is emptied without hashing.
func (tb *TimeBuckets) rotate(b int64) {
	c := &tb.clock
	if b <= c.Newest {
		return
	}
	if b-c.Newest >= c.W {
		for i := range tb.ring {
			if t := &tb.ring[i]; t.N > 0 {
				tb.scanned += int64(len(t.Slots))
				t.Reset()
			}
		}
		if tb.totals.N > 0 {
			tb.scanned += int64(len(tb.totals.Slots))
			tb.totals.Reset()
		}
	} else {
		for x := c.Newest + 1; x <= b; x++ {
			tb.expire(&tb.ring[c.Slot(x)]) // holds bucket x − W
		}
	}
	c.Set(b)
	tb.cur = &tb.ring[c.Slot(b)]
}

// expire subtracts a bucket leaving the window from the totals and empties
// its table, in one pass over its slots.
func (tb *TimeBuckets) expire(t *ds.CountTable) {
	if t.N == 0 {
		return
	}
	tb.scanned += int64(len(t.Slots))
	tot := &tb.totals
	for i := range t.Slots {
		s := &t.Slots[i]
		if s.Count == 0 {
			continue
		}
		tot.Sub(workload.Mix64(s.Key^tot.Seed), s.Key, s.Count)
		*s = ds.CountSlot{}
	}
	t.N = 0
}

// Trending rotates to now's bucket and returns the k keys of largest window
// count, count descending then key ascending: the exact score of the
// window (TrendLaw), provided no event observed is after now. O(keys
// tracked · log k).
func (tb *TimeBuckets) Trending(k int, now int64) []strategies.Trend {
	if now >= tb.clock.Next {
		tb.rotate(tb.clock.Of(now))
	}
	if k <= 0 {
		return []strategies.Trend{}
	}
	items := ds.TopCounts(&tb.totals, k)
	ds.SortItems(items)
	out := make([]strategies.Trend, len(items))
	for i, it := range items {
		out[i] = strategies.Trend{Key: it.Key, Score: float64(it.Count)}
	}
	return out
}

// WindowCount returns key's count in the window of the newest bucket.
func (tb *TimeBuckets) WindowCount(key uint64) uint64 {
	return tb.totals.GetAt(workload.Mix64(key^tb.totals.Seed), key)
}

// check validates every table, that they hash alike, and that the totals
// are the sums of the ring, key by key, with no key of total 0.
func (tb *TimeBuckets) check() error {
	if int64(len(tb.ring)) != tb.clock.W || tb.cur != &tb.ring[tb.clock.Slot(tb.clock.Newest)] {
		return fmt.Errorf("time-buckets: %d tables for W = %d, or the newest table misplaced", len(tb.ring), tb.clock.W)
	}
	if err := tb.totals.Check(); err != nil {
		return fmt.Errorf("time-buckets: totals: %w", err)
	}
	sums := map[uint64]uint64{}
	for i := range tb.ring {
		t := &tb.ring[i]
		if err := t.Check(); err != nil {
			return fmt.Errorf("time-buckets: bucket table %d: %w", i, err)
		}
		if t.Seed != tb.totals.Seed {
			return fmt.Errorf("time-buckets: bucket table %d hashes with another seed", i)
		}
		for key, c := range t.All() {
			sums[key] += c
		}
	}
	if len(sums) != tb.totals.Len() {
		return fmt.Errorf("time-buckets: %d keys in the buckets, %d in the totals", len(sums), tb.totals.Len())
	}
	for key, c := range sums {
		if got := tb.WindowCount(key); got != c {
			return fmt.Errorf("time-buckets: key %d totals %d, its buckets sum to %d", key, got, c)
		}
	}
	return nil
}

// TrendScore is key's window count at now (rotating to now's bucket first).
func (tb *TimeBuckets) TrendScore(key uint64, now int64) float64 {
	if now >= tb.clock.Next {
		tb.rotate(tb.clock.Of(now))
	}
	return float64(tb.WindowCount(key))
}

var _ strategies.TrendScorer = (*TimeBuckets)(nil)
