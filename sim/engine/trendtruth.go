package engine

import (
	"math"
	"slices"

	"countsim/strategies"
	"countsim/workload"
)

// The truth of a trending run (trending.go): every key's exact score under
// each law the designs estimate — a sliding window's count, kept by bucket
// with its totals, or an exponentially decayed score, kept at each key's
// last event — and at each checkpoint the exact top K of now, each plant's
// score, the window's distinct keys and actors, and each plant's count in
// each region against the regional designs' thresholds.

// TrendTruth is the exact score of every key under each law the designs
// estimate, and the true top K of now at each checkpoint.
type TrendTruth struct {
	Laws   []TrendLaw
	checks []int64
	next   int // the next checkpoint
	k      int
	plants []uint64 // the planted keys, whose exact scores are kept
	events int64
	Keys   map[uint64]struct{}
	// PlantCount is each plant's count over the stream.
	PlantCount []int64
	// regional counts of each plant, and for each threshold the regional
	// designs flag at, when each plant's count in each region reached it
	RegionCount [][]int64 // [plant][region]
	Thresholds  []int64
	Crossed     map[[3]int]int64 // {threshold, plant, region} → At
}

// TrendLaw is one law's exact state and its answers.
type TrendLaw struct {
	Law strategies.TrendLaw
	// a window: the counts of each bucket still in the window, by bucket
	// index, and their totals
	buckets map[int64]map[uint64]int64
	totals  map[uint64]int64
	actors  map[int64]map[uint64]struct{} // each bucket's actors
	oldest  int64                         // the oldest bucket index held
	// a decay: each key's score at its last event
	decayed map[uint64]decayed
	// at each checkpoint: the Top K, and each plant's score
	Top    [][]strategies.Trend
	Plants [][]float64
	// a window's distinct keys and actors at each checkpoint
	DistinctKeys, DistinctActors []float64
}

type decayed struct {
	score float64
	at    int64
}

func NewTrendTruth(laws []strategies.TrendLaw, checks []int64, k int, plants []uint64) *TrendTruth {
	t := &TrendTruth{checks: checks, k: k, plants: plants, Keys: map[uint64]struct{}{}, PlantCount: make([]int64, len(plants))}
	for _, l := range laws {
		tl := TrendLaw{Law: l}
		if l.Window > 0 {
			tl.buckets, tl.totals, tl.actors = map[int64]map[uint64]int64{}, map[uint64]int64{}, map[int64]map[uint64]struct{}{}
		} else {
			tl.decayed = map[uint64]decayed{}
		}
		t.Laws = append(t.Laws, tl)
	}
	return t
}

func (t *TrendTruth) Observe(batch []workload.Event) {
	for i := range batch {
		e := &batch[i]
		for t.next < len(t.checks) && e.At >= t.checks[t.next] {
			t.checkpoint(t.checks[t.next])
			t.next++
		}
		if e.Op != workload.Write || e.Delta <= 0 {
			continue
		}
		t.events++
		t.Keys[e.Key] = struct{}{}
		for p, key := range t.plants {
			if e.Key != key {
				continue
			}
			t.PlantCount[p] += e.Delta
			if t.RegionCount == nil {
				continue
			}
			g := int(e.Actor) % len(t.RegionCount[p])
			before := t.RegionCount[p][g]
			t.RegionCount[p][g] += e.Delta
			for j, th := range t.Thresholds {
				if before < th && before+e.Delta >= th {
					t.Crossed[[3]int{j, p, g}] = e.At
				}
			}
		}
		for j := range t.Laws {
			l := &t.Laws[j]
			if l.Law.Window > 0 {
				b := e.At / l.Law.Bucket
				l.expire(b)
				m := l.buckets[b]
				if m == nil {
					m = map[uint64]int64{}
					l.buckets[b] = m
				}
				m[e.Key] += e.Delta
				l.totals[e.Key] += e.Delta
				a := l.actors[b]
				if a == nil {
					a = map[uint64]struct{}{}
					l.actors[b] = a
				}
				a[e.Actor] = struct{}{}
				continue
			}
			d := l.decayed[e.Key]
			d.score = d.score*math.Exp2(-float64(e.At-d.at)/float64(l.Law.HalfLife)) + float64(e.Delta)
			d.at = e.At
			l.decayed[e.Key] = d
		}
	}
}

// Finish takes the checkpoints after the last event.
func (t *TrendTruth) Finish() {
	for ; t.next < len(t.checks); t.next++ {
		t.checkpoint(t.checks[t.next])
	}
}

// expire drops the buckets that fall out of the window of bucket b: those
// before b − W + 1, subtracting their counts from the totals.
func (l *TrendLaw) expire(b int64) {
	w := l.Law.Window / l.Law.Bucket
	for ; l.oldest < b-w+1; l.oldest++ {
		for key, c := range l.buckets[l.oldest] {
			if l.totals[key] -= c; l.totals[key] == 0 {
				delete(l.totals, key)
			}
		}
		delete(l.buckets, l.oldest)
		delete(l.actors, l.oldest)
	}
}

// checkpoint takes every law's top K of now = c − 1 (the events before c).
func (t *TrendTruth) checkpoint(c int64) {
	now := c - 1
	for j := range t.Laws {
		l := &t.Laws[j]
		sel := newTrendSelect(t.k)
		plants := make([]float64, len(t.plants))
		if l.Law.Window > 0 {
			l.expire(now / l.Law.Bucket)
			for key, n := range l.totals {
				sel.offer(strategies.Trend{Key: key, Score: float64(n)})
			}
			for p, key := range t.plants {
				plants[p] = float64(l.totals[key])
			}
			union := map[uint64]struct{}{}
			for _, a := range l.actors {
				for x := range a {
					union[x] = struct{}{}
				}
			}
			l.DistinctKeys = append(l.DistinctKeys, float64(len(l.totals)))
			l.DistinctActors = append(l.DistinctActors, float64(len(union)))
		} else {
			h := float64(l.Law.HalfLife)
			score := func(d decayed) float64 { return d.score * math.Exp2(-float64(now-d.at)/h) }
			for key, d := range l.decayed {
				sel.offer(strategies.Trend{Key: key, Score: score(d)})
			}
			for p, key := range t.plants {
				plants[p] = score(l.decayed[key])
			}
		}
		l.Top = append(l.Top, sel.result())
		l.Plants = append(l.Plants, plants)
	}
}

// trendSelect keeps the k best trends offered (score descending, key
// ascending), whatever the order they come in.
type trendSelect struct {
	k    int
	best []strategies.Trend // sorted best first
}

func newTrendSelect(k int) *trendSelect { return &trendSelect{k: k} }

func TrendBefore(a, b strategies.Trend) bool {
	return a.Score > b.Score || a.Score == b.Score && a.Key < b.Key
}

func (s *trendSelect) offer(t strategies.Trend) {
	if len(s.best) == s.k && !TrendBefore(t, s.best[s.k-1]) {
		return
	}
	i, _ := slices.BinarySearchFunc(s.best, t, func(a, b strategies.Trend) int {
		if TrendBefore(a, b) {
			return -1
		}
		return 1
	})
	s.best = slices.Insert(s.best, i, t)
	if len(s.best) > s.k {
		s.best = s.best[:s.k]
	}
}

func (s *trendSelect) result() []strategies.Trend { return s.best }
