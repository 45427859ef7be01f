package sim

import (
	"context"
	"countsim/metrics"
	"countsim/scenarios"
	"countsim/sim/engine"
	"countsim/workload"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// A log replayed as ratings (as: ratings, issue 25): each line an item
// (the key) rated with the stars of a column (read as Delta), ranked by
// the ratings runner (ratings.go) as it ranks a generated stream's items:
// each design's top K, how thinly rated, how it overlaps the others', its
// score of an item rated once with 5 stars, each top K as a table with
// its items' strings, ratings and up votes. The truth is counted from the
// log (each item's ratings, stars and ratings of each number of stars). A
// log's items have no hidden quality, so the rows that need one (the mean
// quality of a top K, its overlap with the true-quality top K, precision
// at K) are left out, and the true top K is the items of highest mean
// stars among those rated enough times. A star off the scale is a bad
// line, named by its file and line.

func init() {
	defineLogAs("ratings", newLogRatings)
	defineSampler("ratings", sampleRatings)
}

// logRatingsKind is the ratings runner with its ratings read from a log:
// it is the runner's ratingItems.
type logRatingsKind struct {
	*ratingsKind
	*logBase
	src *ratingsLogSource
	tr  *ratingTruth
}

func newLogRatings(h *engine.Harness, b *logBase) (engine.Kind, error) {
	spec := b.spec
	lo, hi := spec.RatingsScale()
	k := &logRatingsKind{logBase: b}
	k.ratingsKind = &ratingsKind{lineup: h.Lineup, feeder: h.Feeder, rows: h.Rows, top: spec.Top, few: spec.Few, enough: spec.Enough,
		batch: spec.Batch, lo: lo, hi: hi, items: k}
	// As for a ratings run, the designs are sized for the items that can
	// be rated, at most the ratings: the catalogue's when given, else the
	// items the log rates (estimated past Prepare's head).
	env := &h.Lineup.Env
	env.Keys = uint64(math.Ceil(b.logKeys))
	if spec.Items > 0 {
		env.Keys = min(spec.Items, uint64(math.Ceil(b.logEvents)))
	}
	env.Events = int64(math.Ceil(b.logEvents))
	return k, nil
}

func (k *logRatingsKind) Describe() string {
	about := k.about()
	return fmt.Sprintf("Recorded log as ratings: %s (%s), items by column %s rated with the stars of column %s, %d..%d; %s%s ratings of %s%s items; top %d, thin below %d ratings, the true-mean top among items rated %d times or more.",
		k.cfg.Path, k.spec.Format, k.spec.Key, k.spec.Stars, k.lo, k.hi, about, metrics.Format(math.Ceil(k.logEvents)),
		about, metrics.Format(math.Round(k.logKeys)), k.top, k.few, k.enough)
}

// Reports: a ratings run's rows but those of the hidden quality.
func (k *logRatingsKind) Reports(d *engine.Design) []metrics.Metric {
	hidden := []metrics.Metric{metrics.TopMeanQuality, metrics.TopOverlapQuality, metrics.PrecisionAtK}
	ms := slices.DeleteFunc(k.ratingsKind.Reports(d), func(m metrics.Metric) bool { return slices.Contains(hidden, m) })
	if d == nil && k.spec.SkipBad > 0 {
		ms = append(ms, metrics.SkippedLines)
	}
	return ms
}

// Memory: the truth's map from an item to its index (made with room for
// the items estimated, at most 2^26), its arrays by index (a key and
// ratingTruthBytes an item, twice that as append grows them).
func (k *logRatingsKind) Memory() (int64, int64) {
	items := int64(math.Ceil(k.logKeys))
	return goMapBytes(min(items, 1<<26)) + 2*items*(8+ratingTruthBytes(k.lo, k.hi)), 1
}

// Churns: the reader makes garbage at every line it parses.
func (k *logRatingsKind) Churns() bool { return true }

func (k *logRatingsKind) source() engine.Source {
	k.src = &ratingsLogSource{logSource: k.logBase.source(), lo: k.lo, hi: k.hi, skipBad: k.spec.SkipBad}
	return k.src
}

func (k *logRatingsKind) truth() *ratingTruth {
	k.tr = newRatingTruth(nil, int(min(math.Ceil(k.logKeys), 1<<26)), k.lo, k.hi)
	return k.tr
}

// ratings: a log holds what was read of it.
func (k *logRatingsKind) ratings(events int64) int64 { return events }

// expected: a log has no law of its items, so the truth has no plan.
func (k *logRatingsKind) expected(int64, int64) (ratingsExpected, bool) {
	return ratingsExpected{}, false
}

func (k *logRatingsKind) hidden() hiddenQuality { return nil }

// finish refuses a bad line of the log, a star off the scale at its own
// line; once the log is read whole, the plans are worked out for its own
// ratings, and the report notes what was estimated from its head.
func (k *logRatingsKind) finish(rep *engine.Report, events int64, stopped bool) error {
	s := k.src
	if s.err != nil {
		return k.badInput(s.err)
	}
	if s.offAt > 0 {
		return k.offScale()
	}
	if stopped {
		return nil
	}
	items := float64(len(k.tr.keys))
	if !k.whole && (float64(events) != math.Ceil(k.logEvents) || items != math.Round(k.logKeys)) {
		k.lineup.PlanFor(engine.Fed{Events: events, Writes: float64(events)})
		rep.Note(fmt.Sprintf("The log held %s ratings of %s items, estimated at %s and %s from its first %s before the read: every simulated-scale plan is worked out for the %s ratings read, the designs sized for the items estimated.",
			metrics.Format(float64(events)), metrics.Format(items), metrics.Format(math.Ceil(k.logEvents)), metrics.Format(math.Round(k.logKeys)),
			metrics.Format(logSampleEvents), metrics.Format(float64(events))))
	}
	if k.spec.SkipBad > 0 {
		k.rows.Truth(rep, metrics.SkippedLines, float64(s.skipped+s.offSkipped), "lines", nil,
			fmt.Sprintf("bad lines skipped (skip_bad: %d), stars off the scale among them: %d", k.spec.SkipBad, s.offSkipped))
	}
	return nil
}

// offScale is the bad input of the star off the scale the read stopped
// at: the log is read again to the event, one at a time, for its line.
func (k *logRatingsKind) offScale() error {
	s := k.src
	r, err := workload.OpenLog(k.cfg)
	if err != nil {
		return k.badInput(err)
	}
	defer r.Close()
	one := make([]workload.Event, 0, 1)
	for r.Events() < s.offAt {
		if _, err := r.Read(one[:0]); err != nil {
			if err == io.EOF {
				break
			}
			return k.badInput(err)
		}
	}
	return &scenarios.Error{Pos: scenarios.Pos{File: k.cfg.Path, Line: int(r.Line())},
		Msg: fmt.Sprintf("column %q (stars): %d is off the scale %d..%d (allowed: a whole number from %d to %d, as workload.scale says)", k.spec.Stars, s.offStars, k.lo, k.hi, k.lo, k.hi)}
}

// names: the items' strings, read again from the log.
func (k *logRatingsKind) names(ctx context.Context, tr *ratingTruth, idx []int) (map[int]string, error) {
	last := k.src.last
	if last == nil || len(idx) == 0 {
		return nil, nil
	}
	keys := make([]uint64, len(idx))
	for j, i := range idx {
		keys[j] = tr.keyOf(i)
	}
	byKey, err := last.StringsContext(ctx, keys)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, i := range idx {
		out[i] = byKey[tr.keyOf(i)]
	}
	return out, nil
}

// ratingsLogSource is a log's ratings, each rating's stars checked against
// the scale: one off it is skipped while skip_bad allows (with the log's
// own bad lines), else the read stops there, offAt the event's number in
// the log, for its line.
type ratingsLogSource struct {
	*logSource
	lo, hi     int64
	skipBad    int64
	read       int64 // events the log gave
	offSkipped int64
	offAt      int64 // from 1; 0: none
	offStars   int64
}

func (s *ratingsLogSource) Chunk(i int, buf []workload.Event) []workload.Event {
	if s.offAt > 0 {
		return buf[:0]
	}
	buf = s.logSource.Chunk(i, buf)
	kept := buf[:0]
	for _, e := range buf {
		s.read++
		if e.Op == workload.Write && (e.Delta < s.lo || e.Delta > s.hi) {
			if s.offSkipped+s.readerSkipped() < s.skipBad {
				s.offSkipped++
				continue
			}
			s.offAt, s.offStars = s.read, e.Delta
			return kept
		}
		kept = append(kept, e)
	}
	return kept
}

// readerSkipped is the bad lines the log's reader skipped so far.
func (s *ratingsLogSource) readerSkipped() int64 {
	if s.r != nil {
		return s.r.Skipped()
	}
	return s.skipped
}

// sampleRatings samples a ratings run: its whole stream, each item named
// by its popularity rank ("item #3" the most rated), the stars in the
// delta column; refused past n events. The replay cannot judge what needs
// the hidden qualities, so their expectations are left out of it.
func sampleRatings(scn *scenarios.Scenario, n int64, each func([]workload.Event, SampleNames) error) (*Sampled, error) {
	spec := scn.Run.(*scenarios.Ratings)
	if r := spec.Stream.Ratings; r > n {
		return nil, fmt.Errorf("%s is %s ratings, past the %s events asked for: ratings are sampled whole (allowed: -events %d or more)",
			scn.ID(), metrics.Format(float64(r)), metrics.Format(float64(n)), r)
	}
	src, err := workload.NewRatings(ratingsConfig(scn.Seed, spec))
	if err != nil {
		return nil, err
	}
	lo, hi := spec.Stream.ScaleRange()
	names := SampleNames{Key: func(key uint64) string { return "item #" + strconv.FormatUint(src.RankOf(key), 10) }}
	out := &Sampled{As: "ratings", Keys: [][2]string{{"stars", "delta"}, {"delta", ""},
		{"scale", fmt.Sprintf("{min: %d, max: %d}", lo, hi)}, {"top", fmt.Sprint(spec.Top)}, {"few", fmt.Sprint(spec.Few)},
		{"enough", fmt.Sprint(spec.Enough)}, {"items", fmt.Sprint(spec.Stream.Items)}},
		Unjudged: []string{string(metrics.TopMeanQuality), string(metrics.TopOverlapQuality), string(metrics.PrecisionAtK)}}
	return drawAll(src, names, out, each)
}
